/* test_eliminate.c - the propnet grounder's bucket elimination of a rule's
 * body variables (reasoner/rules.h RULES_ELIMINATE, game_options_t
 * eliminate_after; issue 17 item 2) on huge_sum.kif, whose (total ?t)
 * rule has 20^4 ground instances:
 *   - without elimination the grounding passes an 8 MB budget, naming the
 *     rule;
 *   - past eliminate_after instances of that rule it grounds again with
 *     the rule's variables eliminated, within the same 8 MB;
 *   - a rule under the bound is not rewritten: the network is the one
 *     without elimination (same propositions and gates);
 *   - every way (never, after a bound, from the start, and the rules
 *     engine) plays the game as its rules say: each role scores 100 when
 *     the four guesses sum to an even number, else 0, on 300 seeded joint
 *     moves and on a few chosen ones;
 *   - huge_min.kif (gt_attrition's bid rule): the first rewrite, which
 *     leaves the variables a static literal fixes, is a network of its
 *     own (neither the original nor the full rewrite) and plays two rounds
 *     of bids as the rules say (score: the sum of the lower bids);
 *   - huge_worse.kif, where the rewrite needs more than 64 MB and the
 *     rules as written a few: the grounder falls back to them, within the
 *     same budget (the same network as without elimination). */
#include "testutil.h"

#include "base/rng.h"
#include "reasoner/game.h"

#define HUGE_SUM GGP_SOURCE_DIR "/tests/reasoner/huge_sum.kif"
#define HUGE_MIN GGP_SOURCE_DIR "/tests/reasoner/huge_min.kif"
#define HUGE_WORSE GGP_SOURCE_DIR "/tests/reasoner/huge_worse.kif"

static game_t *compile(const tu_rules_t *l, const game_options_t *opt, char **text)
{
    tu_diag_t td;
    tu_diag_open(&td);
    game_t *g = game_compile(l->prog, opt, &td.d);
    *text = strdup(tu_diag_text(&td));
    tu_diag_close(&td);
    return g;
}

static game_stats_t stats_of(const game_t *g)
{
    game_stats_t st;
    game_get_stats(g, &st);
    return st;
}

/* The move of role r guessing n. */
static move_id_t guess(game_ctx_t *c, uint32_t r, int n)
{
    char text[32];
    snprintf(text, sizeof text, "(guess %d)", n);
    move_id_t m;
    if (!game_move_from_text(c, r, text, strlen(text), &m)) fail_msg("no move %s for role %u", text, r);
    return m;
}

/* Play guesses g[0..4) from the initial state and check the outcome. */
static void check_joint(const game_t *g, game_ctx_t *c, const game_state_t *init, const int *gs)
{
    game_ctx_set_state(c, init);
    assert_false(game_is_terminal(c));
    move_id_t joint[4];
    for (uint32_t r = 0; r < 4; r++) joint[r] = guess(c, r, gs[r]);
    game_ctx_play(c, joint);
    assert_true(game_is_terminal(c));
    int want = (gs[0] + gs[1] + gs[2] + gs[3]) % 2 == 0 ? 100 : 0;
    for (uint32_t r = 0; r < 4; r++)
        if (game_goal(c, r) != want)
            fail_msg("%s: guesses %d %d %d %d: goal of %s is %d, not %d", stats_of(g).engine, gs[0], gs[1], gs[2],
                     gs[3], game_role_name(g, r), game_goal(c, r), want);
}

/* The game as its rules say, on chosen and seeded joint moves. */
static void check_plays(const game_t *g)
{
    assert_int_equal(game_num_roles(g), 4);
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *init = game_state_new(g);
    game_initial(c, init);
    game_ctx_set_state(c, init);
    for (uint32_t r = 0; r < 4; r++) {
        const move_id_t *m;
        assert_int_equal(game_legal(c, r, &m), 20);
    }
    static const int chosen[][4] = {{0, 0, 0, 0}, {19, 19, 19, 19}, {1, 2, 3, 4}, {1, 2, 3, 5}, {19, 0, 0, 0}};
    for (size_t k = 0; k < sizeof chosen / sizeof *chosen; k++) check_joint(g, c, init, chosen[k]);
    rng_t rng;
    rng_seed(&rng, 17);
    for (int k = 0; k < 300; k++) {
        int gs[4];
        for (int r = 0; r < 4; r++) gs[r] = (int)rng_below(&rng, 20);
        check_joint(g, c, init, gs);
    }
    game_state_free(init);
    game_ctx_free(c);
}

/* Without elimination the rule does not ground within 8 MB; past a bound
 * of 10,000 instances it grounds again eliminated, within the same 8 MB. */
static void test_exploding_rule_grounds(void **state)
{
    (void)state;
    tu_rules_t l;
    tu_rules_file(HUGE_SUM, &l);
    char *text;
    game_options_t never = {.engine = ENGINE_PROPNET, .ground_mb = 8, .eliminate_after = UINT32_MAX, .quiet = true};
    game_t *g = compile(&l, &never, &text);
    assert_null(g);
    const char *rule = "(at relation 'total/1', ";
    if (!strstr(text, "grounding needs more than 8 MB") || !strstr(text, rule) || !strstr(text, "huge_sum.kif:36:1)"))
        fail_msg("expected the 8 MB budget and '%s' at huge_sum.kif:36:1 in: %s", rule, text);
    free(text);

    game_options_t after = {.engine = ENGINE_PROPNET, .ground_mb = 8, .eliminate_after = 10000, .quiet = true};
    g = compile(&l, &after, &text);
    if (!g) fail_msg("not grounded with elimination: %s", text);
    free(text);
    assert_string_equal(stats_of(g).engine, "propnet");
    /* the rule exploded once; the first rewrite would leave every
     * variable (each is fixed by a sum), so the full one came at once */
    assert_int_equal(stats_of(g).ground_tries, 2);
    check_plays(g);
    game_free(g);
    tu_rules_free(&l);
}

/* Under the bound nothing is rewritten; over it, or from the start, the
 * network changes (the aux relations are propositions of their own). */
static void test_rewrite_only_past_bound(void **state)
{
    (void)state;
    tu_rules_t l;
    tu_rules_file(HUGE_SUM, &l);
    char *text;
    game_options_t never = {.engine = ENGINE_PROPNET, .eliminate_after = UINT32_MAX, .quiet = true};
    game_options_t under = {.engine = ENGINE_PROPNET, .eliminate_after = 200000, .quiet = true};
    game_options_t over = {.engine = ENGINE_PROPNET, .eliminate_after = 10000, .quiet = true};
    game_options_t start = {.engine = ENGINE_PROPNET, .eliminate_after = 1, .quiet = true};
    game_t *gn = compile(&l, &never, &text);
    if (!gn) fail_msg("not grounded without elimination: %s", text);
    free(text);
    game_t *gu = compile(&l, &under, &text);
    if (!gu) fail_msg("not grounded under the bound: %s", text);
    free(text);
    game_t *go = compile(&l, &over, &text);
    if (!go) fail_msg("not grounded over the bound: %s", text);
    free(text);
    game_t *gs = compile(&l, &start, &text);
    if (!gs) fail_msg("not grounded eliminated from the start: %s", text);
    free(text);
    game_stats_t sn = stats_of(gn), su = stats_of(gu), so = stats_of(go), ss = stats_of(gs);
    assert_int_equal(su.props, sn.props);
    assert_int_equal(su.gates, sn.gates);
    assert_int_equal(su.rules, sn.rules);
    assert_true(so.rules > sn.rules); /* the aux rules */
    assert_true(so.props > sn.props);
    assert_true(ss.rules >= so.rules);
    game_t *all[] = {gn, gu, go, gs};
    for (size_t k = 0; k < 4; k++) {
        check_plays(all[k]);
        game_free(all[k]);
    }
    game_options_t ru = {.engine = ENGINE_RULES, .quiet = true};
    game_t *gr = compile(&l, &ru, &text);
    if (!gr) fail_msg("the rules engine does not compile it: %s", text);
    free(text);
    check_plays(gr);
    game_free(gr);
    tu_rules_free(&l);
}

/* Two rounds of bids x1 y1, x2 y2 from the initial state. */
static void check_bids(const game_t *g, game_ctx_t *c, const game_state_t *init, const int *bids)
{
    game_ctx_set_state(c, init);
    for (int round = 0; round < 2; round++) {
        assert_false(game_is_terminal(c));
        move_id_t joint[2];
        for (uint32_t r = 0; r < 2; r++) {
            char text[32];
            snprintf(text, sizeof text, "(bid %d)", bids[2 * round + (int)r]);
            if (!game_move_from_text(c, r, text, strlen(text), &joint[r])) fail_msg("no move %s", text);
        }
        game_ctx_play(c, joint);
    }
    assert_true(game_is_terminal(c));
    int score = (bids[0] < bids[1] ? bids[0] : bids[1]) + (bids[2] < bids[3] ? bids[2] : bids[3]);
    int want = score % 2 == 0 ? 100 : 0;
    for (uint32_t r = 0; r < 2; r++)
        if (game_goal(c, r) != want)
            fail_msg("%s: bids %d %d, %d %d: goal of %s is %d, not %d", stats_of(g).engine, bids[0], bids[1], bids[2],
                     bids[3], game_role_name(g, r), game_goal(c, r), want);
}

static void check_min_plays(const game_t *g)
{
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *init = game_state_new(g);
    game_initial(c, init);
    static const int chosen[][4] = {{0, 0, 0, 0}, {19, 19, 19, 19}, {3, 7, 9, 2}, {3, 7, 9, 4}, {19, 0, 1, 19}};
    for (size_t k = 0; k < sizeof chosen / sizeof *chosen; k++) check_bids(g, c, init, chosen[k]);
    rng_t rng;
    rng_seed(&rng, 29);
    for (int k = 0; k < 300; k++) {
        int bids[4];
        for (int j = 0; j < 4; j++) bids[j] = (int)rng_below(&rng, 20);
        check_bids(g, c, init, bids);
    }
    game_state_free(init);
    game_ctx_free(c);
}

/* Past 1,000 instances of the bid rule, the first rewrite eliminates the
 * bids and leaves the score and the minimum (each fixed by the sum given
 * the others): 41 x 20 instances, under the bound, so it stays there. */
static void test_first_rewrite_partial(void **state)
{
    (void)state;
    tu_rules_t l;
    tu_rules_file(HUGE_MIN, &l);
    char *text;
    game_options_t never = {.engine = ENGINE_PROPNET, .eliminate_after = UINT32_MAX, .quiet = true};
    game_options_t first = {.engine = ENGINE_PROPNET, .eliminate_after = 1000, .quiet = true};
    game_options_t all = {.engine = ENGINE_PROPNET, .eliminate_after = 1, .quiet = true};
    game_options_t ru = {.engine = ENGINE_RULES, .quiet = true};
    game_t *gn = compile(&l, &never, &text);
    if (!gn) fail_msg("not grounded without elimination: %s", text);
    free(text);
    game_t *gf = compile(&l, &first, &text);
    if (!gf) fail_msg("not grounded with the first rewrite: %s", text);
    free(text);
    game_t *ga = compile(&l, &all, &text);
    if (!ga) fail_msg("not grounded with every rule rewritten: %s", text);
    free(text);
    game_t *gr = compile(&l, &ru, &text);
    if (!gr) fail_msg("the rules engine does not compile it: %s", text);
    free(text);
    game_stats_t sn = stats_of(gn), sf = stats_of(gf), sa = stats_of(ga);
    printf("props: never %zu, first rewrite %zu, all %zu\n", sn.props, sf.props, sa.props);
    assert_int_equal(sn.ground_tries, 1);
    assert_int_equal(sf.ground_tries, 2);
    assert_int_equal(sa.ground_tries, 1);
    assert_true(sf.props != sn.props);
    assert_true(sf.props != sa.props);
    game_t *each[] = {gn, gf, ga, gr};
    for (size_t k = 0; k < 4; k++) {
        check_min_plays(each[k]);
        game_free(each[k]);
    }
    tu_rules_free(&l);
}

/* The pick (v, b) and its goal: 100 when b is 0. */
static void check_picks(const game_t *g)
{
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *init = game_state_new(g);
    game_initial(c, init);
    static const int picks[][2] = {{0, 0}, {57, 0}, {0, 1}, {99, 99}, {13, 42}};
    for (size_t k = 0; k < sizeof picks / sizeof *picks; k++) {
        game_ctx_set_state(c, init);
        char text[32];
        snprintf(text, sizeof text, "(pick %d %d)", picks[k][0], picks[k][1]);
        move_id_t m;
        if (!game_move_from_text(c, 0, text, strlen(text), &m)) fail_msg("no move %s", text);
        game_ctx_play(c, &m);
        assert_true(game_is_terminal(c));
        assert_int_equal(game_goal(c, 0), picks[k][1] == 0 ? 100 : 0);
    }
    game_state_free(init);
    game_ctx_free(c);
}

static void test_falls_back_to_rules_as_written(void **state)
{
    (void)state;
    tu_rules_t l;
    tu_rules_file(HUGE_WORSE, &l);
    char *text;
    /* a generous deadline: the test is about the 64 MB budget (under
     * ASan the fallback's try alone takes about 2 s) */
    game_options_t never = {
        .engine = ENGINE_PROPNET, .ground_ms = 60000, .ground_mb = 64, .eliminate_after = UINT32_MAX, .quiet = true};
    game_options_t after = {
        .engine = ENGINE_PROPNET, .ground_ms = 60000, .ground_mb = 64, .eliminate_after = 2000, .quiet = true};
    game_options_t start = {
        .engine = ENGINE_PROPNET, .ground_ms = 60000, .ground_mb = 64, .eliminate_after = 1, .quiet = true};
    game_t *gn = compile(&l, &never, &text);
    if (!gn) fail_msg("not grounded without elimination: %s", text);
    free(text);
    game_t *ga = compile(&l, &after, &text);
    if (!ga) fail_msg("not grounded past the bound: %s", text);
    free(text);
    game_t *gs = compile(&l, &start, &text);
    if (!gs) fail_msg("not grounded eliminated from the start: %s", text);
    free(text);
    game_stats_t sn = stats_of(gn), sa = stats_of(ga);
    assert_int_equal(sa.props, sn.props);
    assert_int_equal(sa.rules, sn.rules);
    assert_int_equal(sa.ground_tries, 3); /* as written, rewritten, as written */
    game_t *each[] = {gn, ga, gs};
    for (size_t k = 0; k < 3; k++) {
        check_picks(each[k]);
        game_free(each[k]);
    }
    tu_rules_free(&l);
}

/* A bucket of static literals alone is not eliminated: aux(?a ?b) <=
 * (e ?v ?a) (e ?v ?b) would be a static relation computed in full (the
 * square of e), no longer narrowed by the state. ?b's bucket holds every
 * variable, so nothing is rewritten, even with every rule eliminated. */
static void test_static_bucket_left(void **state)
{
    (void)state;
    static const char text[] = "(role r)\n"
                               "(e 0 1) (e 0 2) (e 1 2) (e 2 0)\n"
                               "(init (q 1 2 x)) (init (q 0 0 y))\n"
                               "(<= (legal r noop) (true (q ?a ?b ?c)))\n"
                               "(<= (next (q ?a ?b ?c)) (true (q ?a ?b ?c)))\n"
                               "(<= (h ?a ?c) (e ?v ?a) (e ?v ?b) (true (q ?a ?b ?c)))\n"
                               "(<= terminal (h 1 x))\n"
                               "(<= (goal r 100) (h 1 x))\n"
                               "(<= (goal r 0) (not (h 1 x)))\n";
    tu_rules_t l;
    tu_rules_text("static_bucket.kif", text, &l);
    char *msg;
    game_options_t never = {.engine = ENGINE_PROPNET, .eliminate_after = UINT32_MAX, .quiet = true};
    game_options_t start = {.engine = ENGINE_PROPNET, .eliminate_after = 1, .quiet = true};
    game_t *gn = compile(&l, &never, &msg);
    if (!gn) fail_msg("not grounded: %s", msg);
    free(msg);
    game_t *gs = compile(&l, &start, &msg);
    if (!gs) fail_msg("not grounded eliminated from the start: %s", msg);
    free(msg);
    assert_int_equal(stats_of(gs).rules, stats_of(gn).rules);
    assert_int_equal(stats_of(gs).props, stats_of(gn).props);
    game_t *each[] = {gn, gs};
    for (size_t k = 0; k < 2; k++) { /* (h 1 x): (e 0 1) (e 0 2) (q 1 2 x) */
        game_ctx_t *c = game_ctx_new(each[k]);
        game_state_t *s = game_state_new(each[k]);
        game_initial(c, s);
        game_ctx_set_state(c, s);
        assert_true(game_is_terminal(c));
        assert_int_equal(game_goal(c, 0), 100);
        game_state_free(s);
        game_ctx_free(c);
        game_free(each[k]);
    }
    tu_rules_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exploding_rule_grounds),
        cmocka_unit_test(test_rewrite_only_past_bound),
        cmocka_unit_test(test_first_rewrite_partial),
        cmocka_unit_test(test_falls_back_to_rules_as_written),
        cmocka_unit_test(test_static_bucket_left),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
