/* test_huge_static.c - static relations too big to compute in full (issue
 * 13, item 4; rules.h RULES_MEMBER_BIG, eval.h budgets).
 *
 *   - huge_member.kif: a sudoku whose ten-argument relation over nine
 *     (index ?x) facts has 9^10 tuples bottom-up but is only asked with
 *     every argument bound: both engines load it at once (goal-directed
 *     membership calls) and play it as expected: six blanks with one legal
 *     digit each, so 6! move orders, terminal after six plies, goal 100;
 *   - huge_member_low.kif: the same game with a nine-argument relation
 *     over a recursive index, estimated at 4^9 tuples (below
 *     RULES_MEMBER_BIG) but 9^9 bottom-up: the static phase measures it,
 *     and every engine compiles again with it asked on demand, within
 *     the load budget (issue 13 item 4: on demand whatever the estimate);
 *   - huge_free.kif: a relation of 9^8 tuples asked with free arguments
 *     is computed in full: the memory and the time budgets stop the load
 *     with an error naming it, at its rule, within the time bound;
 *   - huge_ground.kif: a non-static rule of 10^6 relaxed instances: the
 *     propnet's grounding stops at its memory or time budget with an
 *     error naming the relation and the rule being joined (file:line:col);
 *   - huge_aux.kif: the same in an auxiliary relation split from a rule:
 *     the rule's own relation is named;
 *   - the corpus sudoku loads within a few seconds (skipped without
 *     the corpus). */
#include "testutil.h"

#include <time.h>

#include "base/clock.h"
#include "reasoner/game.h"

/* Compile with opt; the diagnostics into *text (malloc'd) and the time
 * it took into *ms. */
static game_t *compile(const tu_rules_t *l, const game_options_t *opt, char **text, double *ms)
{
    tu_diag_t td;
    tu_diag_open(&td);
    uint64_t t0 = clock_now_ns();
    game_t *g = game_compile(l->prog, opt, &td.d);
    *ms = (double)(clock_now_ns() - t0) / 1e6;
    *text = strdup(tu_diag_text(&td));
    tu_diag_close(&td);
    return g;
}

/* Depth-first over every move order: leaves counts the terminal states
 * reached at depth 6, each with goal 100; every state at depth d has 6 - d
 * legal moves. */
static void walk(game_ctx_t *c, const game_state_t *s, uint32_t depth, uint32_t *leaves)
{
    game_ctx_set_state(c, s);
    if (game_is_terminal(c)) {
        assert_int_equal(depth, 6);
        assert_int_equal(game_goal(c, 0), 100);
        (*leaves)++;
        return;
    }
    const move_id_t *m;
    uint32_t n = game_legal(c, 0, &m);
    assert_int_equal(n, 6 - depth);
    assert_int_equal(game_goal(c, 0), 0);
    move_id_t *moves = malloc(n * sizeof *moves);
    memcpy(moves, m, n * sizeof *moves);
    game_state_t *next = game_state_new(game_ctx_game(c));
    for (uint32_t i = 0; i < n; i++) {
        game_ctx_set_state(c, s);
        game_next(c, &moves[i], next);
        walk(c, next, depth + 1, leaves);
    }
    game_state_free(next);
    free(moves);
}

static void play_member_file(const char *file, engine_kind_t engine, const char *want)
{
    tu_rules_t l;
    tu_rules_file(file, &l);
    /* a load budget, so that computing the relation in full fails rather
     * than takes minutes and gigabytes */
    game_options_t opt = {.engine = engine, .load_ms = 20000, .quiet = true};
    char *text;
    double ms;
    game_t *g = compile(&l, &opt, &text, &ms);
    if (!g) fail_msg("%s does not compile: %s", file, text);
    game_stats_t st;
    game_get_stats(g, &st);
    assert_string_equal(st.engine, want);
    if (ms > 5000) fail_msg("%s took %.0f ms to load", file, ms);
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *s = game_state_new(g);
    game_initial(c, s);
    /* the first blank is (cell 1 1 b): its one legal digit is 1 */
    game_ctx_set_state(c, s);
    move_id_t mv;
    assert_true(game_move_from_text(c, 0, "(mark 1 1 1)", 12, &mv));
    assert_false(game_move_from_text(c, 0, "(mark 1 1 2)", 12, &mv));
    uint32_t leaves = 0;
    walk(c, s, 0, &leaves);
    assert_int_equal(leaves, 720);
    game_state_free(s);
    game_ctx_free(c);
    game_free(g);
    free(text);
    tu_rules_free(&l);
}

static void play_member(engine_kind_t engine, const char *want)
{
    play_member_file(GGP_SOURCE_DIR "/tests/reasoner/huge_member.kif", engine, want);
}

static void play_member_low(engine_kind_t engine, const char *want)
{
    play_member_file(GGP_SOURCE_DIR "/tests/reasoner/huge_member_low.kif", engine, want);
}

static void test_member_low_rules(void **state)
{
    (void)state;
    play_member_low(ENGINE_RULES, "rules");
}

static void test_member_low_propnet(void **state)
{
    (void)state;
    play_member_low(ENGINE_PROPNET, "propnet");
}

static void test_member_low_auto(void **state)
{
    (void)state;
    play_member_low(ENGINE_AUTO, "propnet");
}

static void test_member_rules(void **state)
{
    (void)state;
    play_member(ENGINE_RULES, "rules");
}

static void test_member_propnet(void **state)
{
    (void)state;
    play_member(ENGINE_PROPNET, "propnet");
}

static void test_member_auto(void **state)
{
    (void)state;
    play_member(ENGINE_AUTO, "propnet");
}

/* huge_free.kif with a budget: no game, an error at spread's rule naming
 * it, well within the time the budget allows. */
static void over_budget(const game_options_t *opt, const char *needle, double max_ms)
{
    tu_rules_t l;
    tu_rules_file(GGP_SOURCE_DIR "/tests/reasoner/huge_free.kif", &l);
    char *text;
    double ms;
    game_t *g = compile(&l, opt, &text, &ms);
    assert_null(g);
    if (!strstr(text, needle) || !strstr(text, "huge_free.kif:6:1: error: relation 'spread/8'"))
        fail_msg("expected '%s' in: %s", needle, text);
    if (ms > max_ms) fail_msg("took %.0f ms (at most %.0f expected)", ms, max_ms);
    free(text);
    tu_rules_free(&l);
}

static void test_free_memory_budget(void **state)
{
    (void)state;
    game_options_t opt = {.engine = ENGINE_RULES, .static_mb = 32, .quiet = true};
    over_budget(&opt, "exceeds the memory budget of 32 MB", 20000);
}

static void test_free_time_budget(void **state)
{
    (void)state;
    game_options_t opt = {.engine = ENGINE_RULES, .load_ms = 300, .quiet = true};
    over_budget(&opt, "when the load budget of 300 ms runs out", 3000);
}

static void test_free_auto_budget(void **state)
{
    (void)state;
    /* grounding fails on the memory budget, then the rules engine too */
    game_options_t opt = {.engine = ENGINE_AUTO, .ground_mb = 32, .static_mb = 32, .load_ms = 20000, .quiet = true};
    over_budget(&opt, "exceeds the memory budget of 32 MB", 20000);
}

/* tests/reasoner/NAME on the propnet alone: no game, and the reason
 * names relation rel and its rule at line. */
static void ground_over_budget(const game_options_t *opt, const char *name, const char *needle, const char *rel,
                               int line)
{
    tu_rules_t l;
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/reasoner/%s", GGP_SOURCE_DIR, name);
    tu_rules_file(path, &l);
    char *text, rule[4200];
    double ms;
    game_t *g = compile(&l, opt, &text, &ms);
    assert_null(g);
    snprintf(rule, sizeof rule, "(at relation '%s', ", rel);
    if (!strstr(text, needle) || !strstr(text, rule)) fail_msg("expected '%s' and '%s' in: %s", needle, rule, text);
    snprintf(rule, sizeof rule, " tuples, in its rule at %s:%d:1)", path, line);
    if (!strstr(text, rule)) fail_msg("expected '%s' in: %s", rule, text);
    /* that rule made the most instances: no other is named */
    if (strstr(text, "the most instances")) fail_msg("another rule named in: %s", text);
    free(text);
    tu_rules_free(&l);
}

static void test_ground_memory_budget(void **state)
{
    (void)state;
    game_options_t opt = {.engine = ENGINE_PROPNET, .ground_mb = 8, .quiet = true};
    ground_over_budget(&opt, "huge_ground.kif", "grounding needs more than 8 MB", "wide/6", 10);
}

static void test_ground_time_budget(void **state)
{
    (void)state;
    game_options_t opt = {.engine = ENGINE_PROPNET, .ground_ms = 100, .ground_mb = 1 << 20, .quiet = true};
    ground_over_budget(&opt, "huge_ground.kif", "grounding takes longer than 100 ms", "wide/6", 10);
}

/* Stopped in the join of an auxiliary relation (no name of its own): the
 * relation named is the one of the rule it was split from. */
static void test_ground_time_budget_aux(void **state)
{
    (void)state;
    game_options_t opt = {.engine = ENGINE_PROPNET, .ground_ms = 100, .ground_mb = 1 << 20, .quiet = true};
    ground_over_budget(&opt, "huge_aux.kif", "grounding takes longer than 100 ms", "spread/1", 10);
}

static void test_corpus_sudoku(void **state)
{
    (void)state;
    const char *dir = tu_shared_or_skip("games");
    char path[4096];
    snprintf(path, sizeof path, "%s/sudokuGrade1.kif", dir);
    tu_rules_t l;
    tu_rules_file(path, &l);
    for (int e = 0; e < 2; e++) {
        game_options_t opt = {.engine = e ? ENGINE_RULES : ENGINE_AUTO, .quiet = true};
        char *text;
        double ms;
        game_t *g = compile(&l, &opt, &text, &ms);
        if (!g) fail_msg("sudokuGrade1 does not compile: %s", text);
        if (ms > 5000) fail_msg("sudokuGrade1 took %.0f ms to load", ms);
        game_free(g);
        free(text);
    }
    tu_rules_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_member_rules),      cmocka_unit_test(test_member_propnet),
        cmocka_unit_test(test_member_auto),       cmocka_unit_test(test_member_low_rules),
        cmocka_unit_test(test_member_low_propnet), cmocka_unit_test(test_member_low_auto),
        cmocka_unit_test(test_free_memory_budget),
        cmocka_unit_test(test_free_time_budget),  cmocka_unit_test(test_free_auto_budget),
        cmocka_unit_test(test_ground_memory_budget), cmocka_unit_test(test_ground_time_budget),
        cmocka_unit_test(test_ground_time_budget_aux),
        cmocka_unit_test(test_corpus_sudoku),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
