/* test_tabling.c - goal-directed evaluation with tabling in the rules engine
 * (rules.h "Tabling", eval.c CALL_*): relations that are infinite bottom-up
 * but only ever called with some arguments bound (laikLee_hex's append_el
 * and isList) are evaluated per call, with memo tables, and recursion
 * through a call in progress is iterated to its fixpoint.
 *
 * Small hand-written games:
 *   - a stack of a/b built in the state, with list relations (islist, len,
 *     app, last) whose bottom-up extension is infinite, called with several
 *     patterns of bound arguments (len bf and bb, app fbb and bbf, last bb);
 *   - a static relation whose calls form a cycle (r(a) needs r(b) needs
 *     r(a)): answers must reach the fixpoint whichever call comes first;
 *   - an astronomically large relation asked with no argument bound (GDL's
 *     recursion restriction leaves nothing truly infinite): the compile
 *     fails cleanly on the static budget;
 *   - calls nested deeper than the limit: the program falls back to
 *     bottom-up evaluation, where it is small. */
#include "testutil.h"

#include "gdl/ast.h"
#include "gdl/validate.h"
#include "reasoner/eval.h"
#include "reasoner/game.h"
#include "reasoner/rules.h"

static game_t *compile_rules(const tu_rules_t *l, uint64_t static_ms, char **diag_text)
{
    tu_diag_t td;
    tu_diag_open(&td);
    game_options_t opt = {.engine = ENGINE_RULES, .static_ms = static_ms, .quiet = true};
    game_t *g = game_compile(l->prog, &opt, &td.d);
    if (diag_text) *diag_text = strdup(tu_diag_text(&td));
    tu_diag_close(&td);
    return g;
}

/* The canonical texts of a role's legal moves, sorted, joined by spaces. */
static char *legal_text(game_ctx_t *c, uint32_t role)
{
    const move_id_t *m;
    uint32_t n = game_legal(c, role, &m);
    const char **names = calloc(n ? n : 1, sizeof *names);
    for (uint32_t i = 0; i < n; i++) names[i] = game_move_name(game_ctx_game(c), role, m[i], true);
    for (uint32_t i = 1; i < n; i++) /* insertion sort: a handful of moves */
        for (uint32_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    size_t len = 1;
    for (uint32_t i = 0; i < n; i++) len += strlen(names[i]) + 1;
    char *out = calloc(len, 1);
    for (uint32_t i = 0; i < n; i++) {
        if (i) strcat(out, " ");
        strcat(out, names[i]);
    }
    free(names);
    return out;
}

static void play_text(game_ctx_t *c, const char *move)
{
    move_id_t m;
    if (!game_move_from_text(c, 0, move, strlen(move), &m)) fail_msg("move %s is not legal", move);
    game_ctx_play(c, &m);
}

/* ---- a stack built in the state, with list relations ------------------ */

/* GDL's recursion restriction makes every program finite, so the list
 * relations are guarded, as laikLee_hex's are, by a non-recursive islist
 * over lists of up to LIST_MAX of LIST_ELEMS elements: 10^16 lists, which
 * no bottom-up evaluation enumerates. len, app and last recurse over them
 * (len's head (c ?h ?t) holds ?t of its recursive call: the signature of
 * growth). The game pushes a or b three times; the goal depends on the
 * last element (the first pushed), found with app called with its third
 * argument bound and with last. */
enum { LIST_MAX = 16, LIST_ELEMS = 10 };

/* The list relations, then game (the rest of the program). */
static char *list_text(const char *game)
{
    size_t cap = (1 << 16) + strlen(game), len = 0;
    char *t = calloc(cap, 1);
#define ADD(...) (len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__))
    ADD("(elem a) (elem b)\n");
    for (int e = 0; e < LIST_ELEMS - 2; e++) ADD("(elem e%d) ", e);
    ADD("\n");
    for (int i = 0; i < 2 * LIST_MAX; i++) ADD("(succ %d %d) ", i, i + 1);
    ADD("\n(islist nil)\n");
    for (int n = 1; n <= LIST_MAX; n++) {
        ADD("(<= (islist ");
        for (int i = 0; i < n; i++) ADD("(c ?e%d ", i);
        ADD("nil");
        for (int i = 0; i < n; i++) ADD(")");
        ADD(")");
        for (int i = 0; i < n; i++) ADD(" (elem ?e%d)", i);
        ADD(")\n");
    }
    ADD("(len nil 0)\n"
        "(<= (len (c ?h ?t) ?n) (elem ?h) (islist ?t) (len ?t ?m) (succ ?m ?n))\n"
        "(<= (app nil ?l ?l) (islist ?l))\n"
        "(<= (app (c ?h ?t) ?l (c ?h ?r)) (elem ?h) (islist ?t) (islist ?l) (islist ?r) (app ?t ?l ?r))\n"
        "(<= (last (c ?x nil) ?x) (elem ?x))\n"
        "(<= (last (c ?h ?t) ?x) (elem ?h) (elem ?x) (islist ?t) (last ?t ?x))\n");
    ADD("%s", game);
#undef ADD
    assert_true(len < cap);
    return t;
}

static char *list_game_text(void)
{
    return list_text("(role p)\n(init (stack nil))\n"
        "(<= (legal p (push a)) (true (stack ?l)) (len ?l ?n) (succ ?n ?m) (distinct ?m 4))\n"
        "(<= (legal p (push b)) (true (stack ?l)) (len ?l ?n) (succ ?n ?m) (distinct ?m 4))\n"
        "(<= (next (stack (c ?x ?l))) (does p (push ?x)) (true (stack ?l)))\n"
        "(<= terminal (true (stack ?l)) (len ?l 3))\n"
        "(<= (ends_with ?x) (true (stack ?l)) (app ?front (c ?x nil) ?l))\n"
        "(<= lastb (true (stack ?l)) (last ?l b) (app ?l ?l ?ll) (len ?ll 6))\n"
        "(<= (goal p 100) (ends_with a))\n"
        "(<= (goal p 50) lastb)\n"
        "(<= (goal p 0) (true (stack ?l)) (not (ends_with a)) (not lastb))\n");
}

static uint32_t count_rel(const rules_t *r, const char *name, const symtab_t *syms, bool tabled, uint32_t *mask)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_rels; i++) {
        const crel_t *R = &r->rels[i];
        if (R->name == SYM_NONE || strcmp(symtab_key(syms, R->name), name)) continue;
        if (R->tabled != tabled) continue;
        if (mask) *mask |= 1u << R->demand_mask;
        n++;
    }
    return n;
}

/* The compile-time decision: the list relations are goal-directed, one
 * adorned copy per call pattern; the finite ones are not. */
static void test_list_relations_are_tabled(void **state)
{
    (void)state;
    tu_rules_t l;
    char *text = list_game_text();
    tu_rules_text("list.kif", text, &l);
    term_store_t *ts = ts_new();
    tu_diag_t td;
    tu_diag_open(&td);
    rules_t *r = rules_compile(l.prog, ts, &td.d, RULES_DEMAND);
    if (!r) fail_msg("does not compile: %s", tu_diag_text(&td));
    uint32_t len_masks = 0, app_masks = 0, last_masks = 0;
    /* len: bb from terminal, legal (after succ: a call with a free
     * argument comes after the finite generators), lastb and its own
     * recursion; islist: b; last: bb */
    count_rel(r, "len", l.syms, true, &len_masks);
    assert_int_equal(len_masks, 1u << 3);
    uint32_t islist_masks = 0;
    count_rel(r, "islist", l.syms, true, &islist_masks);
    assert_int_equal(islist_masks, 1u << 1);
    count_rel(r, "last", l.syms, true, &last_masks);
    assert_int_equal(last_masks, 1u << 3);
    /* app: two call patterns, ffb from ends_with (planned before its
     * head argument was known to be bound) and bbf from lastb */
    assert_int_equal(count_rel(r, "app", l.syms, true, &app_masks), 2);
    assert_int_equal(app_masks, 1u << 4 | 1u << 3);
    assert_int_equal(count_rel(r, "elem", l.syms, true, NULL), 0);
    assert_int_equal(count_rel(r, "succ", l.syms, true, NULL), 0);
    /* the originals are never evaluated */
    for (uint32_t i = 0; i < r->n_rels; i++)
        if (r->rels[i].name != SYM_NONE && !strcmp(symtab_key(l.syms, r->rels[i].name), "islist"))
            assert_true(r->rels[i].tabled || r->rels[i].replaced);
    rules_free(r);

    /* Without tabling the static relations are infinite bottom-up: the
     * evaluation runs into its budget. */
    r = rules_compile(l.prog, ts, &td.d, RULES_DEMAND | RULES_NO_TABLING);
    assert_non_null(r);
    evaluator_t ev;
    eval_init(&ev, r, ts, NULL);
    ev.deadline = deadline_in_ms(200);
    assert_false(eval_run_phase(&ev, PHASE_STATIC));
    eval_free(&ev);
    rules_free(r);
    tu_diag_close(&td);
    ts_free(ts);
    tu_rules_free(&l);
    free(text);
}

static void test_list_game_plays(void **state)
{
    (void)state;
    tu_rules_t l;
    char *text = list_game_text();
    tu_rules_text("list.kif", text, &l);
    char *why = NULL;
    game_t *g = compile_rules(&l, 5000, &why);
    if (!g) fail_msg("does not compile: %s", why);
    free(why);
    static const struct {
        const char *moves[3];
        int goal;
    } games[] = {
        {{"(push a)", "(push b)", "(push b)"}, 100}, /* the first push ends the list */
        {{"(push b)", "(push a)", "(push a)"}, 50},
        {{"(push b)", "(push b)", "(push b)"}, 50},
        {{"(push a)", "(push a)", "(push a)"}, 100},
    };
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *s = game_state_new(g);
    for (size_t k = 0; k < sizeof games / sizeof *games; k++) {
        game_initial(c, s);
        game_ctx_set_state(c, s);
        for (int step = 0; step < 3; step++) {
            assert_false(game_is_terminal(c));
            char *legal = legal_text(c, 0);
            assert_string_equal(legal, "(push a) (push b)");
            free(legal);
            /* before the end: neither ends with a nor lastb, unless the
             * first push was a (the last element is the first pushed) */
            int want = step == 0 ? 0 : !strcmp(games[k].moves[0], "(push a)") ? 100 : 0;
            assert_int_equal(game_goal(c, 0), want);
            play_text(c, games[k].moves[step]);
        }
        assert_true(game_is_terminal(c));
        const move_id_t *m;
        assert_int_equal(game_legal(c, 0, &m), 0);
        assert_int_equal(game_goal(c, 0), games[k].goal);
    }
    game_state_free(s);
    game_ctx_free(c);
    game_free(g);
    tu_rules_free(&l);
    free(text);
}

/* ---- recursion through a call in progress ------------------------------ */

/* r(?x, ?l): ?l alternates b, a, ... from ?x's neighbour down to the
 * start a, guarded by the huge islist, so it is asked with ?x bound only:
 * r(a) needs r(b) needs r(a), a cycle of calls in progress that must be
 * iterated until nothing is new: r(a) has the 9 lists of even length up
 * to 16, r(b) the 9 of odd length up to 17 (its guard is on the tail). Fresh contexts (empty memos) ask a
 * first, or b first. */
static const char *cycle_game = "(role p)\n"
                                 "(init (at a))\n"
                                 "(link a b) (link b a)\n"
                                 "(r a nil)\n"
                                 "(<= (r ?x (c ?x ?l)) (link ?x ?z) (r ?z ?l) (islist ?l))\n"
                                 "(<= (legal p (go ?z)) (true (at ?x)) (link ?x ?z))\n"
                                 "(<= (legal p (show ?n)) (true (at ?x)) (r ?x ?l) (len ?l ?n))\n"
                                 "(<= (next (at ?z)) (does p (go ?z)))\n"
                                 "(<= (next (at ?x)) (does p (show ?n)) (true (at ?x)))\n"
                                 "(<= (next (shown ?n)) (does p (show ?n)))\n"
                                 "(<= terminal (true (shown ?n)))\n"
                                 "(goal p 100)\n";

/* ENGINE_AUTO does not try to ground a program that needs tabling (its
 * grounding cannot end): it takes the rules engine at once and says why. */
static void test_auto_skips_grounding(void **state)
{
    (void)state;
    tu_rules_t l;
    char *text = list_game_text();
    tu_rules_text("list.kif", text, &l);
    tu_diag_t td;
    tu_diag_open(&td);
    game_options_t opt = {.engine = ENGINE_AUTO, .ground_ms = 60000, .static_ms = 5000};
    game_t *g = game_compile(l.prog, &opt, &td.d);
    if (!g) fail_msg("does not compile:\n%s", tu_diag_text(&td));
    game_stats_t st;
    game_get_stats(g, &st);
    assert_int_equal(game_engine(g), ENGINE_RULES);
    assert_false(game_moves_enumerable(g));
    assert_string_equal(st.engine, "rules");
    assert_non_null(strstr(st.fallback_reason, "infinite bottom-up"));
    assert_non_null(strstr(tu_diag_text(&td), "falling back to the rules engine"));
    tu_diag_close(&td);
    game_free(g);
    tu_rules_free(&l);
    free(text);
}

/* ENGINE_PROPNET cannot ground it either: past its budget it fails,
 * naming the relation. */
static void test_propnet_says_why(void **state)
{
    (void)state;
    tu_rules_t l;
    char *text = list_game_text();
    tu_rules_text("list.kif", text, &l);
    tu_diag_t td;
    tu_diag_open(&td);
    game_options_t opt = {.engine = ENGINE_PROPNET, .ground_ms = 60000, .ground_mb = 8};
    game_t *g = game_compile(l.prog, &opt, &td.d);
    assert_null(g);
    const char *want = "cannot build a propositional network: grounding needs more than 8 MB";
    const char *at = strstr(tu_diag_text(&td), want);
    if (!at || !strstr(at, "; relation 'islist/1' may be infinite bottom-up"))
        fail_msg("expected '%s...' and the relation in: %s", want, tu_diag_text(&td));
    tu_diag_close(&td);
    tu_rules_free(&l);
    free(text);
}

static void test_cycle_reaches_fixpoint(void **state)
{
    (void)state;
    tu_rules_t l;
    char *text = list_text(cycle_game);
    tu_rules_text("cycle.kif", text, &l);
    char *why = NULL;
    game_t *g = compile_rules(&l, 5000, &why);
    if (!g) fail_msg("does not compile: %s", why);
    free(why);
    const char *at_a = "(go b) (show 0) (show 10) (show 12) (show 14) (show 16) (show 2) (show 4) (show 6) (show 8)";
    const char *at_b = "(go a) (show 1) (show 11) (show 13) (show 15) (show 17) (show 3) (show 5) (show 7) (show 9)";
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *s = game_state_new(g), *sb = game_state_new(g);
    game_initial(c, s);
    game_ctx_set_state(c, s);
    char *t = legal_text(c, 0);
    assert_string_equal(t, at_a);
    free(t);
    play_text(c, "(go b)");
    game_state_copy(g, sb, game_ctx_state(c));
    t = legal_text(c, 0);
    assert_string_equal(t, at_b);
    free(t);
    game_ctx_free(c);

    c = game_ctx_new(g); /* b first */
    game_ctx_set_state(c, sb);
    t = legal_text(c, 0);
    assert_string_equal(t, at_b);
    free(t);
    play_text(c, "(go a)");
    t = legal_text(c, 0);
    assert_string_equal(t, at_a);
    free(t);
    play_text(c, "(show 16)");
    assert_true(game_is_terminal(c));
    assert_int_equal(game_goal(c, 0), 100);
    game_ctx_free(c);
    game_state_free(s);
    game_state_free(sb);
    game_free(g);
    tu_rules_free(&l);
    free(text);
}

/* ---- programs goal-directed evaluation cannot finish ------------------- */

/* islist is astronomically large and legal asks for all of it: nothing can
 * be goal-directed there (legal is a keyword), so the static budget fails
 * the compile with a message, as before tabling. */
static void test_huge_program_fails_cleanly(void **state)
{
    (void)state;
    char *text = list_game_text();
    size_t n = strlen(text);
    text = realloc(text, n + 64);
    strcpy(text + n, "(<= (legal p (pick ?l)) (islist ?l))\n");
    tu_rules_t l;
    tu_rules_text("huge.kif", text, &l);
    char *why = NULL;
    game_t *g = compile_rules(&l, 300, &why);
    assert_null(g);
    if (!strstr(why, "relation 'islist/1' is still being computed") || !strstr(why, "load budget of 300 ms"))
        fail_msg("unexpected: %s", why);
    free(why);
    tu_rules_free(&l);
    free(text);
}

/* reach grows (s ?n) through its recursive call, so it is goal-directed,
 * but from position 0 its calls go down a chain of CHAIN successors,
 * deeper than EVAL_MAX_DEPTH; bottom-up it is three tuples near the end of
 * the chain. The compile notices (the initial-state probe) and evaluates
 * the program bottom-up: the answers are right either way. */
enum { CHAIN = EVAL_MAX_DEPTH + 200 };

static void test_deep_calls_fall_back(void **state)
{
    (void)state;
    size_t cap = 32 * CHAIN + 1024, len = 0;
    char *t = calloc(cap, 1);
    len += (size_t)snprintf(t + len, cap - len,
                            "(role p) (init (pos 0))\n"
                            "(tag z) (tag (s z))\n"
                            "(reach %d z)\n"
                            "(<= (reach ?x (s ?n)) (succ ?x ?y) (tag ?n) (reach ?y ?n))\n"
                            "(<= (legal p (go ?n)) (true (pos ?x)) (reach ?x ?n))\n"
                            "(<= (legal p wait) (true (pos ?x)))\n"
                            "(<= (next (pos %d)) (does p wait))\n"
                            "(<= (next (done ?n)) (does p (go ?n)))\n"
                            "(<= terminal (true (done ?n)))\n"
                            "(goal p 100)\n",
                            CHAIN, CHAIN - 1);
    for (int i = 0; i < CHAIN; i++) len += (size_t)snprintf(t + len, cap - len, "(succ %d %d)\n", i, i + 1);
    assert_true(len < cap);
    tu_rules_t l;
    tu_rules_text("chain.kif", t, &l);
    char *why = NULL;
    game_t *g = compile_rules(&l, 5000, &why);
    if (!g) fail_msg("does not compile: %s", why);
    free(why);
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *s = game_state_new(g);
    game_initial(c, s);
    game_ctx_set_state(c, s);
    char *legal = legal_text(c, 0);
    assert_string_equal(legal, "wait");
    free(legal);
    play_text(c, "wait"); /* to CHAIN - 1: reach holds (s z) there */
    legal = legal_text(c, 0);
    assert_string_equal(legal, "(go (s z)) wait");
    free(legal);
    game_state_free(s);
    game_ctx_free(c);
    game_free(g);
    tu_rules_free(&l);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_relations_are_tabled),
        cmocka_unit_test(test_list_game_plays),
        cmocka_unit_test(test_auto_skips_grounding),
        cmocka_unit_test(test_propnet_says_why),
        cmocka_unit_test(test_cycle_reaches_fixpoint),
        cmocka_unit_test(test_huge_program_fails_cleanly),
        cmocka_unit_test(test_deep_calls_fall_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
