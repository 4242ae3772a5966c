/* test_propnet_lanes.c - the propnet's playouts side by side
 * (game_playouts, reasoner/propnet_lanes.c) against its one-at-a-time run:
 * every playout, recorded, is replayed with game_ctx_play on the
 * interpreted circuit, which must find each move legal, the state
 * terminal at the end and not before (or cut at the cap, or a role
 * without a legal move), and the same goal values. Also: the same seed
 * gives the same playouts, the first move is drawn uniformly, playouts
 * start from the state given, and an engine without the form says so. */
#include "testutil.h"

#include "base/rng.h"
#include "reasoner/game.h"

typedef struct replay {
    const char *name;
    const game_t *g;
    game_ctx_t *c;
    const game_state_t *start;
    uint32_t cap;
    uint64_t done, over, capped, stuck, plies;
    uint64_t hash;
    uint32_t first[512]; /* the first move of role 0, counted (ids below 512) */
} replay_t;

static bool is_legal(game_ctx_t *c, uint32_t r, move_id_t m)
{
    const move_id_t *v;
    uint32_t n = game_legal(c, r, &v);
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == m) return true;
    return false;
}

static void replay_one(void *ud, const int *goals, uint32_t plies, int how, const move_id_t *moves)
{
    replay_t *x = ud;
    uint32_t nr = game_num_roles(x->g);
    x->hash = x->hash * 1000003u + plies * 4u + (uint64_t)how;
    for (uint32_t r = 0; r < nr; r++) x->hash = x->hash * 31u + (uint64_t)(goals[r] + 7);
    if (plies && !moves) fail_msg("%s: playout %llu of %u plies without its moves", x->name, (unsigned long long)x->done, plies);
    if (plies && moves[0] < 512) x->first[moves[0]]++;
    game_ctx_set_state(x->c, x->start);
    for (uint32_t k = 0; k < plies; k++) {
        if (game_is_terminal(x->c))
            fail_msg("%s: playout %llu went on past a terminal state at ply %u", x->name, (unsigned long long)x->done, k);
        for (uint32_t r = 0; r < nr; r++) {
            move_id_t m = moves[(size_t)k * nr + r];
            x->hash = x->hash * 31u + m;
            if (!is_legal(x->c, r, m))
                fail_msg("%s: playout %llu ply %u: %s's move %s is not legal", x->name, (unsigned long long)x->done, k,
                         game_role_name(x->g, r), game_move_name(x->g, r, m, true));
        }
        game_ctx_play(x->c, moves + (size_t)k * nr);
    }
    bool term = game_is_terminal(x->c);
    switch (how) {
    case GAME_PLAYOUT_OVER:
        if (!term) fail_msg("%s: playout %llu said over after %u plies, not terminal", x->name, (unsigned long long)x->done, plies);
        for (uint32_t r = 0; r < nr; r++)
            if (goals[r] != game_goal(x->c, r))
                fail_msg("%s: playout %llu: goal of %s %d, the circuit run says %d", x->name, (unsigned long long)x->done,
                         game_role_name(x->g, r), goals[r], game_goal(x->c, r));
        x->over++;
        break;
    case GAME_PLAYOUT_CAPPED:
        assert_false(term);
        assert_int_equal(plies, x->cap);
        x->capped++;
        break;
    case GAME_PLAYOUT_STUCK: {
        assert_false(term);
        bool none = false;
        for (uint32_t r = 0; r < nr; r++) {
            const move_id_t *v;
            none = none || game_legal(x->c, r, &v) == 0;
        }
        if (!none) fail_msg("%s: playout %llu said stuck, but every role has a move", x->name, (unsigned long long)x->done);
        x->stuck++;
        break;
    }
    default:
        fail_msg("%s: playout ended as %d", x->name, how);
    }
    if (how != GAME_PLAYOUT_OVER)
        for (uint32_t r = 0; r < nr; r++) assert_int_equal(goals[r], GAME_GOAL_NONE);
    x->done++;
    x->plies += plies;
}

/* n playouts of the compiled game g from start (NULL: the initial state)
 * with seed, each replayed; the tallies in *out. */
static void run_replayed(const char *name, const game_t *g, const game_state_t *start, uint64_t n, uint32_t cap,
                         uint64_t seed, replay_t *out)
{
    game_ctx_t *lanes = game_ctx_new(g);
    game_state_t *s0 = game_state_new(g);
    if (start) game_state_copy(g, s0, start);
    else game_initial(lanes, s0);
    *out = (replay_t){.name = name, .g = g, .c = game_ctx_new(g), .start = s0, .cap = cap};
    rng_t rng;
    rng_seed(&rng, seed);
    if (!game_playouts(lanes, s0, n, cap, &rng, GAME_PLAYOUTS_HISTORY, replay_one, out))
        fail_msg("%s: the propnet has no playouts side by side", name);
    assert_int_equal(out->done, n);
    game_ctx_free(out->c);
    out->c = NULL;
    out->start = NULL;
    game_state_free(s0);
    game_ctx_free(lanes);
}

/* The loaded rules (name in the message) compiled with engine; fails the
 * test when they do not compile. */
static game_t *compile_loaded(const char *name, const tu_rules_t *l, engine_kind_t engine)
{
    tu_diag_t td;
    tu_diag_open(&td);
    game_options_t o = {.engine = engine, .quiet = true};
    game_t *g = game_compile(l->prog, &o, &td.d);
    if (!g) fail_msg("%s does not compile:\n%s", name, tu_diag_text(&td));
    tu_diag_close(&td);
    return g;
}

static game_t *compile_file(const char *path, tu_rules_t *l, engine_kind_t engine)
{
    tu_rules_file(path, l);
    return compile_loaded(path, l, engine);
}

/* More playouts than lanes, so that finished lanes start again. */
enum { N_PLAYOUTS = GAME_PLAYOUT_LANES + 44 };

static void check_file(const char *path, uint64_t n)
{
    tu_rules_t l;
    game_t *g = compile_file(path, &l, ENGINE_PROPNET);
    replay_t x;
    run_replayed(path, g, NULL, n, 10000, 7, &x);
    printf("%s: %llu playouts replayed, %llu plies, %llu over, %llu cut, %llu stuck\n", path,
           (unsigned long long)x.done, (unsigned long long)x.plies, (unsigned long long)x.over,
           (unsigned long long)x.capped, (unsigned long long)x.stuck);
    assert_true(x.plies > 0);
    game_free(g);
    tu_rules_free(&l);
}

/* check_file on dir/NAME.kif for each name. */
static void check_files(const char *dir, const char *const *names, size_t n, uint64_t playouts)
{
    for (size_t i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.kif", dir, names[i]);
        check_file(path, playouts);
    }
}

/* Ours: every bundled rule file (go5, atarigo7 and hex7 have cyclic
 * groups). */
static void test_bundled_games_replay(void **state)
{
    (void)state;
    static const char *const files[] = {"atarigo7",     "breakthrough", "breakthrough6",   "connect4",
                                        "go5",          "hex7",         "knightthrough",   "lightsout",
                                        "othello",      "simultaneous_rps", "tictactoe",   "tictactoe3p"};
    check_files(GGP_SOURCE_DIR "/games", files, sizeof files / sizeof *files, N_PLAYOUTS);
}

/* From the corpus: three roles and one, simultaneous moves, a chess-like
 * circuit, Reversi's goal-only gates, cyclic groups (cubicup_3player,
 * atariGoVariant_7x7). */
static void test_corpus_games_replay(void **state)
{
    (void)state;
    static const char *const names[] = {"ticTacToe",  "connectFourSimultaneous", "3pConnectFour", "eightPuzzle",
                                        "speedChess", "reversi",                 "cubicup_3player",
                                        "atariGoVariant_7x7", "hex", "checkersTorus", "pentago"};
    check_files(tu_shared_or_skip("games"), names, sizeof names / sizeof *names, N_PLAYOUTS);
}

/* The edge-case files of the reference test suite that ground. */
static void test_edge_cases_replay(void **state)
{
    (void)state;
    static const char *const names[] = {"simpleMutex", "test_case_1a", "test_case_1b", "test_case_2a", "test_case_2b",
                                        "test_case_2c", "test_case_3a", "test_case_3c", "test_case_3d", "test_case_4a",
                                        "test_case_5a", "test_case_5b", "test_case_5c", "test_case_5d", "test_case_5e",
                                        "test_clean_not_distinct", "test_distinct_beginning_rule"};
    check_files(tu_shared_or_skip("games-test"), names, sizeof names / sizeof *names, 40);
}

static void test_cap_cuts_playouts(void **state)
{
    (void)state;
    tu_rules_t l;
    game_t *g = compile_file(GGP_SOURCE_DIR "/games/tictactoe.kif", &l, ENGINE_PROPNET);
    replay_t x;
    run_replayed("tictactoe cap 3", g, NULL, N_PLAYOUTS, 3, 1, &x);
    assert_int_equal(x.capped, N_PLAYOUTS); /* no tic-tac-toe ends in 3 plies */
    run_replayed("tictactoe cap 6", g, NULL, N_PLAYOUTS, 6, 1, &x);
    assert_true(x.capped > 0 && x.over > 0); /* some win in 5, most go on */
    assert_int_equal(x.capped + x.over, N_PLAYOUTS);
    game_free(g);
    tu_rules_free(&l);
}

/* A role without a legal move in a state that is not terminal. */
static void test_stuck_playouts_reported(void **state)
{
    (void)state;
    tu_rules_t l;
    tu_rules_text("stuck", "(role p) (init (s 0)) (<= (legal p go) (true (s 0))) (<= (next (s 1)) (does p go))"
                           "(<= terminal (true (s 2))) (<= (goal p 100) (true (s 2)))",
                  &l);
    game_t *g = compile_loaded("stuck", &l, ENGINE_PROPNET);
    replay_t x;
    run_replayed("stuck", g, NULL, N_PLAYOUTS, 100, 1, &x);
    assert_int_equal(x.stuck, N_PLAYOUTS);
    assert_int_equal(x.plies, N_PLAYOUTS); /* one ply each */
    game_free(g);
    tu_rules_free(&l);
}

static void test_same_seed_same_playouts(void **state)
{
    (void)state;
    tu_rules_t l;
    game_t *g = compile_file(GGP_SOURCE_DIR "/games/breakthrough6.kif", &l, ENGINE_PROPNET);
    replay_t a, b, c;
    run_replayed("seed 5", g, NULL, N_PLAYOUTS, 10000, 5, &a);
    run_replayed("seed 5 again", g, NULL, N_PLAYOUTS, 10000, 5, &b);
    run_replayed("seed 6", g, NULL, N_PLAYOUTS, 10000, 6, &c);
    assert_int_equal(a.hash, b.hash);
    assert_int_equal(a.plies, b.plies);
    assert_true(a.hash != c.hash);
    game_free(g);
    tu_rules_free(&l);
}

/* xplayer's first move over 36 x 256 playouts: chi-square with 8 degrees
 * of freedom below 26.12 (p = 0.001; the seed is fixed, so the test is
 * not flaky: a biased draw, such as one favouring low lanes or low move
 * ids, fails it by far). */
static void test_first_move_uniform(void **state)
{
    (void)state;
    tu_rules_t l;
    game_t *g = compile_file(GGP_SOURCE_DIR "/games/tictactoe.kif", &l, ENGINE_PROPNET);
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *s0 = game_state_new(g);
    game_initial(c, s0);
    game_ctx_set_state(c, s0);
    const move_id_t *m;
    uint32_t n = game_legal(c, 0, &m);
    assert_int_equal(n, 9);
    replay_t x;
    uint64_t total = 36 * GAME_PLAYOUT_LANES;
    run_replayed("tictactoe uniform", g, NULL, total, 10000, 11, &x);
    double chi2 = 0, e = (double)total / n;
    for (uint32_t i = 0; i < n; i++) {
        assert_true(m[i] < 64);
        chi2 += ((double)x.first[m[i]] - e) * ((double)x.first[m[i]] - e) / e;
    }
    printf("first moves: chi-square %.2f over %u moves\n", chi2, n);
    assert_true(chi2 < 26.12);
    game_state_free(s0);
    game_ctx_free(c);
    game_free(g);
    tu_rules_free(&l);
}

/* A first move among 300 (more than a lane's list of 256 holds, so the
 * draw's second pass runs): every one drawn, and chi-square with 299
 * degrees of freedom below 390 (p < 0.001, the seed fixed). */
static void test_wide_draw_uniform(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("(role p) (init (s 0)) (<= (legal p (pick ?n)) (true (s 0)) (number ?n))"
          "(<= (next (s 1)) (does p (pick ?n))) (<= terminal (true (s 1))) (goal p 100)",
          f);
    for (int i = 0; i < 300; i++) fprintf(f, " (number %d)", i);
    fclose(f);
    tu_rules_t l;
    tu_rules_text("wide", text, &l);
    game_t *g = compile_loaded("wide", &l, ENGINE_PROPNET);
    assert_int_equal(game_num_moves(g, 0), 300);
    replay_t x;
    uint64_t total = 40 * GAME_PLAYOUT_LANES;
    run_replayed("wide", g, NULL, total, 10, 13, &x);
    assert_int_equal(x.over, total);
    double chi2 = 0, e = (double)total / 300;
    for (uint32_t m = 0; m < 300; m++) {
        if (!x.first[m]) fail_msg("wide: move %s never drawn", game_move_name(g, 0, m, true));
        chi2 += ((double)x.first[m] - e) * ((double)x.first[m] - e) / e;
    }
    printf("wide first moves: chi-square %.1f over 300 moves\n", chi2);
    assert_true(chi2 < 390);
    game_free(g);
    tu_rules_free(&l);
    free(text);
}

/* Playouts start from the state given (a search's leaf), not the initial one. */
static void test_playouts_from_a_given_state(void **state)
{
    (void)state;
    tu_rules_t l;
    game_t *g = compile_file(GGP_SOURCE_DIR "/games/connect4.kif", &l, ENGINE_PROPNET);
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *s = game_state_new(g);
    game_initial(c, s);
    game_ctx_set_state(c, s);
    uint32_t nr = game_num_roles(g);
    move_id_t joint[8];
    assert_true(nr <= 8);
    for (int k = 0; k < 6; k++) {
        for (uint32_t r = 0; r < nr; r++) {
            const move_id_t *m;
            assert_true(game_legal(c, r, &m) > 0);
            joint[r] = m[0];
        }
        game_ctx_play(c, joint);
    }
    game_state_copy(g, s, game_ctx_state(c));
    replay_t x;
    run_replayed("connect4 after 6 plies", g, s, N_PLAYOUTS, 10000, 3, &x);
    assert_int_equal(x.over, N_PLAYOUTS);
    game_state_free(s);
    game_ctx_free(c);
    game_free(g);
    tu_rules_free(&l);
}

/* Every corpus game that grounds within the default budget (those that do
 * not are named and skipped): test_traces_lanes.c, slow. Playouts are cut
 * at 500 plies, so that a long game costs its replay only. */
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void test_whole_corpus_replay(void **state)
{
    (void)state;
    const char *games = tu_shared_or_skip("games");
    char cmd[600], *out = NULL;
    snprintf(cmd, sizeof cmd, "ls '%s' | grep '[.]kif$'", games);
    assert_int_equal(tu_run(cmd, &out), 0);
    char *names[1024];
    size_t n = 0;
    for (char *t = strtok(out, "\n"); t && n < 1024; t = strtok(NULL, "\n")) names[n++] = t;
    qsort(names, n, sizeof *names, cmp_str);
    unsigned ran = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", games, names[i]);
        tu_rules_t l;
        tu_rules_file(path, &l);
        game_options_t o = {.engine = ENGINE_PROPNET, .quiet = true};
        tu_diag_t td;
        tu_diag_open(&td);
        game_t *g = game_compile(l.prog, &o, &td.d);
        if (!g) {
            printf("note: the propnet does not ground %s; skipped: %s", names[i], tu_diag_text(&td));
            skipped++;
        } else {
            replay_t x;
            run_replayed(names[i], g, NULL, N_PLAYOUTS, 500, 9, &x);
            printf("%s: %llu playouts, %llu plies, %llu over, %llu cut, %llu stuck\n", names[i],
                   (unsigned long long)x.done, (unsigned long long)x.plies, (unsigned long long)x.over,
                   (unsigned long long)x.capped, (unsigned long long)x.stuck);
            ran++;
            game_free(g);
        }
        tu_diag_close(&td);
        tu_rules_free(&l);
    }
    printf("%u games replayed, %u skipped\n", ran, skipped);
    assert_true(ran > skipped);
    free(out);
}

static void never(void *ud, const int *goals, uint32_t plies, int how, const move_id_t *moves)
{
    (void)ud, (void)goals, (void)plies, (void)how, (void)moves;
    fail_msg("a playout was reported by an engine that has none side by side");
}

static void test_rules_engine_has_none(void **state)
{
    (void)state;
    tu_rules_t l;
    game_t *g = compile_file(GGP_SOURCE_DIR "/games/tictactoe.kif", &l, ENGINE_RULES);
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *s = game_state_new(g);
    game_initial(c, s);
    rng_t rng;
    rng_seed(&rng, 1);
    assert_false(game_playouts(c, s, 10, 100, &rng, 0, never, NULL));
    game_state_free(s);
    game_ctx_free(c);
    game_free(g);
    tu_rules_free(&l);
}

#define FAST_TESTS                                                                                          \
    cmocka_unit_test(test_bundled_games_replay), cmocka_unit_test(test_corpus_games_replay),                 \
        cmocka_unit_test(test_edge_cases_replay), cmocka_unit_test(test_cap_cuts_playouts),                  \
        cmocka_unit_test(test_stuck_playouts_reported), cmocka_unit_test(test_same_seed_same_playouts),      \
        cmocka_unit_test(test_first_move_uniform), cmocka_unit_test(test_wide_draw_uniform),                 \
        cmocka_unit_test(test_playouts_from_a_given_state),                                                  \
        cmocka_unit_test(test_rules_engine_has_none)

int main(void)
{
#ifdef LANES_CORPUS
    const struct CMUnitTest fast[] = {FAST_TESTS}; /* test_propnet_lanes' own */
    (void)fast;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_whole_corpus_replay)};
#else
    (void)test_whole_corpus_replay;
    const struct CMUnitTest tests[] = {FAST_TESTS};
#endif
    return cmocka_run_group_tests(tests, NULL, NULL);
}
