/* test_partial_demand.c - partial demand (rules.h RULES_PARTIAL): a
 * relation asked with only some arguments bound, outside the move phase,
 * is evaluated per call instead of bottom-up for every value of those
 * arguments (chess's "ignore square" of *_move_ig).
 *
 * A small line game: a king and two sliders on 8 cells. `slide ?u ?x ?ig`
 * (a slider on ?u reaches ?x, treating ?ig as empty) is computed bottom-up
 * for all 8 values of ?ig; the slider's own moves ask it with ?u and ?ig
 * bound and ?x free. The test checks the compile-time decision and that
 * both evaluation plans give the same legal moves, goals, terminal and
 * next states along random plies. */
#include "testutil.h"

#include "base/rng.h"
#include "gdl/ast.h"
#include "gdl/validate.h"
#include "reasoner/eval.h"
#include "reasoner/rules.h"

static const char *const LINE_GAME =
    "(role p)\n"
    "(coord 1) (coord 2) (coord 3) (coord 4) (coord 5) (coord 6) (coord 7) (coord 8)\n"
    "(succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)\n"
    "(tick 0 1) (tick 1 2) (tick 2 3) (tick 3 4) (tick 4 5) (tick 5 6) (tick 6 7) (tick 7 8)\n"
    "(init (cell 1 e)) (init (cell 2 k)) (init (cell 3 e)) (init (cell 4 r))\n"
    "(init (cell 5 e)) (init (cell 6 e)) (init (cell 7 e)) (init (cell 8 r)) (init (step 0))\n"
    "(<= (adj ?a ?b) (succ ?a ?b))\n"
    "(<= (adj ?a ?b) (succ ?b ?a))\n"
    /* rightwards and leftwards slides, ignoring ?ig */
    "(<= (slide ?u ?x ?ig) (succ ?u ?x) (coord ?ig))\n"
    "(<= (slide ?u ?x ?ig) (succ ?u ?ig) (slide ?ig ?x ?ig))\n"
    "(<= (slide ?u ?x ?ig) (succ ?u ?v) (true (cell ?v e)) (slide ?v ?x ?ig))\n"
    "(<= (slide ?u ?x ?ig) (succ ?x ?u) (coord ?ig))\n"
    "(<= (slide ?u ?x ?ig) (succ ?ig ?u) (slide ?ig ?x ?ig))\n"
    "(<= (slide ?u ?x ?ig) (succ ?v ?u) (true (cell ?v e)) (slide ?v ?x ?ig))\n"
    "(<= (threatened ?x ?ig) (true (cell ?u r)) (slide ?u ?x ?ig))\n"
    "(<= (legal p (move k ?u ?x)) (true (cell ?u k)) (adj ?u ?x) (true (cell ?x e))\n"
    "    (not (threatened ?x ?u)))\n"
    "(<= (legal p (move r ?u ?x)) (true (cell ?u r)) (slide ?u ?x ?u) (not (true (cell ?x r))))\n"
    "(legal p noop)\n"
    "(<= (moved ?x) (does p (move ?piece ?u ?x)))\n"
    "(<= (moved ?u) (does p (move ?piece ?u ?x)))\n"
    "(<= (next (cell ?x ?piece)) (does p (move ?piece ?u ?x)))\n"
    "(<= (next (cell ?u e)) (does p (move ?piece ?u ?x)))\n"
    "(<= (next (cell ?c ?s)) (true (cell ?c ?s)) (not (moved ?c)))\n"
    "(<= (next (step ?n)) (true (step ?m)) (tick ?m ?n))\n"
    "(<= terminal (true (step 8)))\n"
    "(<= (goal p 100) (true (cell ?u k)) (not (threatened ?u ?u)))\n"
    "(<= (goal p 0) (true (cell ?u k)) (threatened ?u ?u))\n";

/* The line game and what it is loaded with (freed by unload). */
typedef struct line_game {
    src_t *src;
    gdl_info_t info;
    symtab_t *syms;
    program_t *prog;
} line_game_t;

static void load(line_game_t *l)
{
    *l = (line_game_t){0};
    l->src = src_new("line.kif", LINE_GAME, strlen(LINE_GAME));
    l->prog = tu_gdl_load(l->src, "line.kif", true, &l->syms, &l->info);
}

static void unload(line_game_t *l)
{
    program_free(l->prog);
    symtab_free(l->syms);
    gdl_info_free(&l->info);
    src_free(l->src);
}

static rules_t *compile(const line_game_t *l, term_store_t *ts, unsigned flags)
{
    tu_diag_t td;
    tu_diag_open(&td);
    rules_t *r = rules_compile(l->prog, ts, &td.d, flags);
    if (!r) fail_msg("does not compile: %s", tu_diag_text(&td));
    tu_diag_close(&td);
    return r;
}

static const crel_t *rel_named(const rules_t *r, const symtab_t *syms, const char *name)
{
    for (uint32_t i = 0; i < r->n_rels; i++)
        if (r->rels[i].name != SYM_NONE && !strcmp(symtab_key(syms, r->rels[i].name), name)) return &r->rels[i];
    fail_msg("no relation %s", name);
    return NULL;
}

/* slide is asked with ?u and ?ig bound (the slider's moves) and in full
 * (threatened): partial outside the move phase, so only RULES_PARTIAL
 * makes it a demand relation, asked with arguments 0 and 2. */
static void test_partial_mask_chosen(void **state)
{
    (void)state;
    line_game_t l;
    load(&l);
    term_store_t *ts = ts_new();
    rules_t *plain = compile(&l, ts, RULES_DEMAND);
    assert_false(rel_named(plain, l.syms, "slide")->demand);
    rules_t *part = compile(&l, ts, RULES_DEMAND | RULES_PARTIAL);
    const crel_t *slide = rel_named(part, l.syms, "slide");
    assert_true(slide->demand);
    assert_int_equal(slide->demand_mask, 1u << 0 | 1u << 2);
    /* threatened is only ever asked fully bound */
    assert_true(rel_named(part, l.syms, "threatened")->demand);
    assert_int_equal(rel_named(part, l.syms, "threatened")->demand_mask, 3u);
    rules_free(plain);
    rules_free(part);
    ts_free(ts);
    unload(&l);
}

static int cmp_tid(const void *a, const void *b)
{
    tid_t x = *(const tid_t *)a, y = *(const tid_t *)b;
    return x < y ? -1 : x > y;
}

/* The tuples of a store as one mixed value each, sorted: equal sets of
 * tuples give equal lists (both programs share one term store). */
static uint32_t sorted_pairs(const relstore_t *s, tid_t *out)
{
    for (uint32_t i = 0; i < s->n; i++) {
        const tid_t *t = relstore_tuple(s, i);
        tid_t v = 1; /* terminal: arity 0 */
        for (uint32_t a = 0; a < s->arity; a++) v = v * 0x9e3779b1u + t[a];
        out[i] = v;
    }
    qsort(out, s->n, sizeof *out, cmp_tid);
    return s->n;
}

/* Both plans along random plies: the same legal moves, goals, terminal
 * and next state in every state reached. */
static void test_partial_plan_is_exact(void **state)
{
    (void)state;
    line_game_t l;
    load(&l);
    term_store_t *ts = ts_new();
    rules_t *rs[2] = {compile(&l, ts, RULES_DEMAND), compile(&l, ts, RULES_DEMAND | RULES_PARTIAL)};
    evaluator_t ev[2];
    for (int k = 0; k < 2; k++) {
        eval_init(&ev[k], rs[k], ts, NULL);
        assert_true(eval_run_phase(&ev[k], PHASE_STATIC));
    }
    const rules_t *r = rs[0];
    tid_t cur[64], a[128], b[128];
    const relstore_t *init = ev[0].store[r->rel_init];
    uint32_t n = init->n;
    for (uint32_t i = 0; i < n; i++) cur[i] = relstore_tuple(init, i)[0];
    for (uint64_t seed = 1; seed <= 4; seed++) {
        rng_t rng;
        rng_seed(&rng, seed);
        for (uint32_t i = 0; i < n; i++) cur[i] = relstore_tuple(init, i)[0];
        n = init->n;
        for (int ply = 0; ply < 10; ply++) {
            for (int k = 0; k < 2; k++) {
                eval_clear_phase(&ev[k], PHASE_STATE);
                eval_clear_phase(&ev[k], PHASE_MOVE);
                for (uint32_t i = 0; i < n; i++) relstore_insert(ev[k].store[rs[k]->rel_true], &cur[i], NULL);
                assert_true(eval_run_phase(&ev[k], PHASE_STATE));
            }
            uint32_t rels[] = {r->rel_legal, r->rel_goal, r->rel_terminal};
            for (int q = 0; q < 3; q++) {
                uint32_t na = sorted_pairs(ev[0].store[rels[q]], a), nb = sorted_pairs(ev[1].store[rels[q]], b);
                assert_int_equal(na, nb);
                assert_memory_equal(a, b, na * sizeof *a);
            }
            if (ev[0].store[r->rel_terminal]->n) break;
            const relstore_t *lg = ev[0].store[r->rel_legal];
            assert_true(lg->n > 0);
            const tid_t *pick = relstore_tuple(lg, rng_below(&rng, lg->n));
            tid_t mv[2] = {pick[0], pick[1]};
            for (int k = 0; k < 2; k++) {
                relstore_insert(ev[k].store[rs[k]->rel_does], mv, NULL);
                assert_true(eval_run_phase(&ev[k], PHASE_MOVE));
            }
            uint32_t na = sorted_pairs(ev[0].store[r->rel_next], a), nb = sorted_pairs(ev[1].store[r->rel_next], b);
            assert_int_equal(na, nb);
            assert_memory_equal(a, b, na * sizeof *a);
            const relstore_t *nx = ev[0].store[r->rel_next];
            n = nx->n;
            for (uint32_t i = 0; i < n; i++) cur[i] = relstore_tuple(nx, i)[0];
        }
    }
    for (int k = 0; k < 2; k++) {
        eval_free(&ev[k]);
        rules_free(rs[k]);
    }
    ts_free(ts);
    unload(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partial_mask_chosen),
        cmocka_unit_test(test_partial_plan_is_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
