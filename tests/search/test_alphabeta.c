/* test_alphabeta.c - the baselines that are not MCTS (grave-spec §14.4):
 * alpha-beta finds forced wins at the depth they need, agrees with plain
 * minimax (same value, fewer nodes), never uses a colliding table entry,
 * and refuses games it cannot play; NMCS solves a small puzzle. */
#include "testutil.h"

#include <math.h>

#include "base/clock.h"
#include "search/search_internal.h"
#include "st_util.h"

static search_spec_t *spec_of(const char *text)
{
    char err[512];
    search_spec_t *s = search_spec_parse(text, err, sizeof err);
    if (!s) fail_msg("%s: %s", text, err);
    return s;
}

/* Plain minimax to the end of the game, no pruning, no table: the value
 * (goal(me) - goal(other)) / 100 for role me; *nodes counts states. */
static double minimax(game_ctx_t *c, const game_state_t *s, uint32_t me, uint64_t *nodes)
{
    (*nodes)++;
    game_ctx_set_state(c, s);
    if (game_is_terminal(c)) return (game_goal(c, me) - game_goal(c, 1 - me)) / 100.0;
    const move_id_t *m[2];
    uint32_t n[2] = {game_legal(c, 0, &m[0]), game_legal(c, 1, &m[1])};
    uint32_t mover = n[0] >= 2 ? 0 : 1;
    move_id_t moves[64], joint[2] = {m[0][0], m[1][0]};
    uint32_t k = n[mover];
    memcpy(moves, m[mover], k * sizeof *moves);
    game_state_t *next = game_state_new(game_ctx_game(c));
    double best = mover == me ? -INFINITY : INFINITY;
    for (uint32_t i = 0; i < k; i++) {
        joint[mover] = moves[i];
        game_ctx_set_state(c, s);
        game_next(c, joint, next);
        double v = minimax(c, next, me, nodes);
        best = mover == me ? fmax(best, v) : fmin(best, v);
    }
    game_state_free(next);
    return best;
}

static move_id_t find_move(tgame_t *t, uint32_t role, const char *text)
{
    move_id_t m;
    if (!game_move_from_text(t->ctx, role, text, strlen(text), &m)) fail_msg("%s is not legal", text);
    return m;
}

/* ---- forced wins ------------------------------------------------------------ */

static void forced(const char *file, uint32_t role, const char *winning, uint32_t need)
{
    tgame_t t;
    if (!tg_load(&t, data_file(file))) fail_msg("cannot load %s", file);
    move_id_t want = find_move(&t, role, winning);
    search_spec_t *sp = spec_of("ab");
    for (uint32_t depth = 1; depth <= need + 2; depth++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            ab_t *a = ab_new(t.g, role, sp, seed);
            move_id_t best;
            uint64_t nodes;
            double v = ab_search_depth(a, t.st, depth, true, &best, &nodes);
            if (depth >= need && (v != 1.0 || best != want))
                fail_msg("%s depth %u: value %g, move %s (want %s, a win)", file, depth, v,
                         game_move_name(t.g, role, best, true), winning);
            if (depth < need && v >= 1.0) fail_msg("%s: a win proven at depth %u < %u", file, depth, need);
            ab_free(a);
        }
    }
    search_spec_free(sp);
    tg_free(&t);
}

static void test_forced_wins_at_their_depth(void **state)
{
    (void)state;
    forced("ttt_win1.kif", 0, "(mark 1 3)", 1);
    forced("ttt_owin.kif", 1, "(mark 2 3)", 1);
    forced("ttt_fork.kif", 0, "(mark 2 2)", 3); /* the fork, a reply, the win */
}

/* ---- against plain minimax ------------------------------------------------- */

/* Positions of tic-tac-toe after `plies` random moves from the start. */
static void random_position(tgame_t *t, rng_t *rng, int plies, game_state_t *out)
{
    game_ctx_set_state(t->ctx, t->st);
    for (int p = 0; p < plies && !game_is_terminal(t->ctx); p++) {
        move_id_t joint[2];
        for (uint32_t r = 0; r < 2; r++) {
            const move_id_t *m;
            uint32_t n = game_legal(t->ctx, r, &m);
            joint[r] = m[rng_below(rng, n)];
        }
        game_ctx_play(t->ctx, joint);
    }
    game_state_copy(t->g, out, game_ctx_state(t->ctx));
}

static void test_agrees_with_minimax(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, st_shared_game("ticTacToe.kif"))) return;
    search_spec_t *sp = spec_of("ab:tt=1");
    rng_t rng;
    rng_seed(&rng, 9);
    game_state_t *pos = game_state_new(t.g);
    uint64_t sum_mm = 0, sum_ab = 0, sum_tt = 0;
    for (int i = 0; i < 12; i++) {
        random_position(&t, &rng, 2 + i % 3, pos);
        game_ctx_set_state(t.ctx, pos);
        if (game_is_terminal(t.ctx)) continue;
        const move_id_t *m;
        uint32_t role = game_legal(t.ctx, 0, &m) >= 2 ? 0 : 1;
        uint64_t mm_nodes = 0, ab_nodes = 0, tt_nodes = 0;
        double want = minimax(t.ctx, pos, role, &mm_nodes);
        ab_t *a = ab_new(t.g, role, sp, 1);
        move_id_t best;
        double plain = ab_search_depth(a, pos, 9, false, &best, &ab_nodes);
        double tt = ab_search_depth(a, pos, 9, true, &best, &tt_nodes);
        if (plain != want || tt != want) fail_msg("position %d: minimax %g, alpha-beta %g, with table %g", i, want, plain, tt);
        assert_true(ab_nodes < mm_nodes);
        sum_mm += mm_nodes;
        sum_ab += ab_nodes;
        sum_tt += tt_nodes;
        ab_free(a);
    }
    printf("nodes: minimax %llu, alpha-beta %llu, alpha-beta + table %llu\n", (unsigned long long)sum_mm,
           (unsigned long long)sum_ab, (unsigned long long)sum_tt);
    assert_true(sum_tt < sum_ab);
    game_state_free(pos);
    search_spec_free(sp);
    tg_free(&t);
}

/* With Zobrist keys cut to a few bits, distinct states share keys: every
 * such entry must be rejected (full key and state check), so the values
 * stay minimax's. */
static void test_tt_rejects_collisions(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, st_shared_game("ticTacToe.kif"))) return;
    search_spec_t *sp = spec_of("ab:tt=1");
    rng_t rng;
    rng_seed(&rng, 4);
    game_state_t *pos = game_state_new(t.g);
    uint64_t rejected_total = 0;
    for (int i = 0; i < 6; i++) {
        random_position(&t, &rng, 3, pos);
        game_ctx_set_state(t.ctx, pos);
        if (game_is_terminal(t.ctx)) continue;
        const move_id_t *m;
        uint32_t role = game_legal(t.ctx, 0, &m) >= 2 ? 0 : 1;
        uint64_t mm_nodes = 0, nodes;
        double want = minimax(t.ctx, pos, role, &mm_nodes);
        ab_t *a = ab_new(t.g, role, sp, 1);
        ab_weaken_keys(a, 3); /* 8 distinct keys for thousands of states */
        move_id_t best;
        double v = ab_search_depth(a, pos, 9, true, &best, &nodes);
        uint64_t rejected, hits;
        ab_tt_stats(a, &rejected, &hits);
        if (v != want) fail_msg("position %d: %g with colliding keys, minimax %g", i, v, want);
        rejected_total += rejected;
        ab_free(a);
    }
    assert_true(rejected_total > 0);
    game_state_free(pos);
    search_spec_free(sp);
    tg_free(&t);
}

/* ---- games it cannot play; the searcher interface ------------------------------- */

static void test_clear_errors(void **state)
{
    (void)state;
    search_spec_t *ab = spec_of("ab"), *nm = spec_of("nmcs");
    char err[160];
    tgame_t t;
    if (tg_load(&t, st_shared_game_if("tictactoe_3player.kif"))) {
        assert_false(search_spec_check_game(ab, t.g, err, sizeof err));
        assert_non_null(strstr(err, "two-player"));
        assert_false(search_spec_check_game(nm, t.g, err, sizeof err));
        assert_non_null(strstr(err, "one-player"));
        tg_free(&t);
    }
    if (tg_load(&t, data_file("sim_bid.kif"))) {
        assert_false(search_spec_check_game(ab, t.g, err, sizeof err));
        assert_non_null(strstr(err, "take turns"));
        tg_free(&t);
    }
    if (tg_load(&t, st_shared_game_if("ticTacToe.kif"))) {
        assert_true(search_spec_check_game(ab, t.g, err, sizeof err));
        tg_free(&t);
    }
    char e2[512];
    assert_null(search_spec_parse("ab:depth=3,seconds=1", e2, sizeof e2));
    assert_null(search_spec_parse("ab:depth=0", e2, sizeof e2));
    assert_null(search_spec_parse("nmcs:playouts=5", e2, sizeof e2));
    search_spec_free(ab);
    search_spec_free(nm);
}

static void test_searcher_interface(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, st_shared_game("connectFour.kif"))) return;
    /* fixed depth: same seed, same move; time: a legal move within the budget */
    const char *specs[] = {"ab:depth=3,seed=2", "ab:seconds=0.05,tt=4"};
    for (int i = 0; i < 2; i++) {
        search_spec_t *sp = spec_of(specs[i]);
        move_id_t m[2];
        for (int j = 0; j < 2; j++) {
            searcher_t *s = searcher_new(t.g, 0, sp);
            uint64_t t0 = clock_now_ns();
            search_report_t rep;
            m[j] = searcher_choose(s, t.st, deadline_none(), NULL, &rep);
            double secs = (double)(clock_now_ns() - t0) / 1e9;
            assert_true(rep.playouts > 0);
            if (i == 1) assert_true(secs < 5.0); /* a deadline kept, not a speed claim (loaded sanitizer runs) */
            searcher_free(s);
        }
        const move_id_t *ms;
        game_ctx_set_state(t.ctx, t.st);
        uint32_t n = game_legal(t.ctx, 0, &ms);
        bool legal = false;
        for (uint32_t k = 0; k < n; k++) legal = legal || ms[k] == m[0];
        assert_true(legal);
        if (i == 0) assert_int_equal(m[0], m[1]);
        search_spec_free(sp);
    }
    tg_free(&t);
}

/* ---- NMCS ------------------------------------------------------------------ */

static void test_nmcs_solves_lock(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, data_file("lock.kif"))) fail_msg("cannot load lock.kif");
    const char *specs[] = {"nmcs:level=1", "nmcs:level=2"};
    for (int i = 0; i < 2; i++) {
        search_spec_t *sp = spec_of(specs[i]);
        for (uint64_t seed = 1; seed <= 4; seed++) {
            searcher_t *s = searcher_new(t.g, 0, sp);
            searcher_reseed(s, seed);
            game_ctx_set_state(t.ctx, t.st);
            while (!game_is_terminal(t.ctx)) {
                game_state_t *now = game_state_new(t.g);
                game_state_copy(t.g, now, game_ctx_state(t.ctx));
                search_report_t rep;
                move_id_t m = searcher_choose(s, now, deadline_none(), NULL, &rep);
                game_ctx_set_state(t.ctx, now);
                game_ctx_play(t.ctx, &m);
                game_state_free(now);
            }
            if (game_goal(t.ctx, 0) != 100) fail_msg("%s seed %llu: goal %d", specs[i], (unsigned long long)seed,
                                                     game_goal(t.ctx, 0));
            searcher_free(s);
        }
        search_spec_free(sp);
    }
    /* the level-2 search from the start already finds the code and keeps it */
    search_spec_t *sp = spec_of("nmcs:level=2");
    nmcs_t *n = nmcs_new(t.g, 0, sp, 3);
    search_report_t rep;
    memset(&rep, 0, sizeof rep);
    nmcs_choose(n, t.st, deadline_none(), NULL, &rep);
    assert_int_equal(nmcs_best(n), 100);
    assert_true(rep.playouts > 0);
    nmcs_free(n);
    search_spec_free(sp);
    tg_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forced_wins_at_their_depth),
        cmocka_unit_test(test_agrees_with_minimax),
        cmocka_unit_test(test_tt_rejects_collisions),
        cmocka_unit_test(test_clear_errors),
        cmocka_unit_test(test_searcher_interface),
        cmocka_unit_test(test_nmcs_solves_lock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
