/* test_compete.c - the match player `compete` (issue 12): the MCTS solver
 * (a won position proven, a proven loss never chosen, simultaneous nodes,
 * three players' values, a one-player line against a proof),
 * tree reuse (the subtree after a move keeps its visit counts), the memory
 * bound over a whole match (pondering: tests/player/test_ponder.c). The every-variant loops of test_engine.c cover
 * compete on turn-taking, simultaneous, single-player and 3-player games
 * and its determinism. */
#include "testutil.h"

#include <math.h>

#include "base/clock.h"
#include "player/cli/common.h"
#include "search/search_internal.h"
#include "st_util.h"

static searcher_t *new_searcher(tgame_t *t, uint32_t role, const char *text, uint64_t seed, search_spec_t **sp)
{
    char err[512];
    *sp = search_spec_parse(text, err, sizeof err);
    if (!*sp) fail_msg("%s: %s", text, err);
    searcher_t *s = searcher_new(t->g, role, *sp);
    searcher_reseed(s, seed);
    return s;
}

static double node_value(const engine_t *e, uint32_t n, uint32_t r)
{
    return node_mean(e->pool, n, r);
}

/* ---- solver ------------------------------------------------------------------ */

/* x to play can win at once: the solver proves the root, stops early and
 * plays the win with value 1; without the solver the whole budget runs. */
static void test_solver_proves_win(void **state)
{
    (void)state;
    tgame_t t;
    tg_load(&t, data_file("ttt_win1.kif"));
    move_id_t want;
    assert_true(game_move_from_text(t.ctx, 0, "(mark 1 3)", 10, &want));
    for (uint64_t seed = 1; seed <= 3; seed++) {
        search_spec_t *sp;
        searcher_t *s = new_searcher(&t, 0, "compete:playouts=5000,check=on", seed, &sp);
        search_report_t rep;
        move_id_t m = searcher_choose(s, t.st, deadline_none(), NULL, &rep);
        assert_int_equal(m, want);
        assert_true(rep.solved);
        assert_true(rep.value > 0.999);
        assert_true(rep.playouts < 5000);
        searcher_free(s);
        search_spec_free(sp);
        s = new_searcher(&t, 0, "compete:playouts=5000,solver=off", seed, &sp);
        m = searcher_choose(s, t.st, deadline_none(), NULL, &rep);
        assert_false(rep.solved);
        assert_int_equal(rep.playouts, 5000);
        searcher_free(s);
        search_spec_free(sp);
    }
    tg_free(&t);
}

/* A solved node's value equals the minimax value found by brute force. */
static double minimax(tgame_t *t, const game_state_t *st, uint32_t r, int depth)
{
    game_ctx_set_state(t->ctx, st);
    if (game_is_terminal(t->ctx)) return game_goal(t->ctx, r) / 100.0;
    uint32_t k = game_num_roles(t->g), mover = 0, n_mover = 0;
    const move_id_t *ms;
    move_id_t joint[8];
    for (uint32_t q = 0; q < k; q++) {
        uint32_t n = game_legal(t->ctx, q, &ms);
        joint[q] = ms[0];
        if (n >= 2) {
            mover = q;
            n_mover = n;
        }
    }
    move_id_t moves[64];
    if (n_mover == 0) {
        game_state_t *nx = game_state_new(t->g);
        game_next(t->ctx, joint, nx);
        double v = minimax(t, nx, r, depth + 1);
        game_state_free(nx);
        return v;
    }
    game_legal(t->ctx, mover, &ms);
    memcpy(moves, ms, n_mover * sizeof *ms);
    double best = mover == r ? -1 : 2;
    game_state_t *nx = game_state_new(t->g);
    for (uint32_t i = 0; i < n_mover; i++) {
        game_ctx_set_state(t->ctx, st);
        for (uint32_t q = 0; q < k; q++) {
            game_legal(t->ctx, q, &ms);
            joint[q] = q == mover ? moves[i] : ms[0];
        }
        game_next(t->ctx, joint, nx);
        double v = minimax(t, nx, r, depth + 1); /* two players, zero-sum: r's value */
        if (mover == r ? v > best : v < best) best = v;
    }
    game_state_free(nx);
    return best;
}

/* ticTacToe (false: not in ../shared) after x centre, o corner, x the
 * opposite corner: o to move draws with a corner and loses with an edge (x
 * then has a fork, or a win). */
static bool ttt_fork_load(tgame_t *t)
{
    if (!tg_load(t, st_shared_game("ticTacToe.kif"))) return false;
    const char *line[][2] = {{"(mark 2 2)", "noop"}, {"noop", "(mark 1 1)"}, {"(mark 3 3)", "noop"}};
    game_ctx_set_state(t->ctx, t->st);
    for (size_t i = 0; i < 3; i++) {
        move_id_t joint[2];
        assert_true(game_move_from_text(t->ctx, 0, line[i][0], strlen(line[i][0]), &joint[0]));
        assert_true(game_move_from_text(t->ctx, 1, line[i][1], strlen(line[i][1]), &joint[1]));
        game_ctx_play(t->ctx, joint);
    }
    game_state_copy(t->g, t->st, game_ctx_state(t->ctx));
    return true;
}

/* Every proven root child of a ticTacToe search carries its exact value;
 * and over many small budgets the move chosen is never a proven loss while
 * a move not proven lost exists. */
static void test_solver_exact_and_no_proven_loss(void **state)
{
    (void)state;
    tgame_t t;
    if (!ttt_fork_load(&t)) {
        skip();
        return;
    }
    uint32_t proven = 0, lost_avoided = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        search_spec_t *sp;
        char text[64];
        snprintf(text, sizeof text, "compete:playouts=%llu", (unsigned long long)(40 + 25 * seed));
        searcher_t *s = new_searcher(&t, 1, text, seed, &sp);
        search_report_t rep;
        move_id_t m = searcher_choose(s, t.st, deadline_none(), NULL, &rep);
        engine_t *e = searcher_engine(s, 0);
        bool lost_chosen = false, other = false;
        uint32_t legal = 0;
        {
            const move_id_t *ms;
            game_ctx_set_state(t.ctx, t.st);
            legal = game_legal(t.ctx, 1, &ms);
        }
        uint32_t children = 0;
        for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
            children++;
            bool solved = e->pool->nodes[c].solved;
            if (!solved) {
                other = true;
                continue;
            }
            proven++;
            game_ctx_set_state(t.ctx, t.st);
            move_id_t joint[2] = {0, e->pool->nodes[c].edge};
            const move_id_t *ms;
            game_legal(t.ctx, 0, &ms);
            joint[0] = ms[0];
            game_state_t *nx = game_state_new(t.g);
            game_next(t.ctx, joint, nx);
            double exact = minimax(&t, nx, 1, 0);
            game_state_free(nx);
            if (fabs(node_value(e, c, 1) - exact) > 1e-3)
                fail_msg("seed %llu: a proven child valued %.3f, minimax %.3f", (unsigned long long)seed,
                         node_value(e, c, 1), exact);
            if (exact <= 0) {
                if (e->pool->nodes[c].edge == m) lost_chosen = true;
            } else {
                other = true;
            }
        }
        if (children < legal) other = true;
        if (lost_chosen && other) fail_msg("seed %llu: played a proven loss", (unsigned long long)seed);
        if (other && !lost_chosen) lost_avoided++;
        searcher_free(s);
        search_spec_free(sp);
    }
    assert_true(proven > 0); /* the test saw proofs */
    assert_true(lost_avoided > 0);
    tg_free(&t);
}

/* The solved nodes with children in e's tree that are not the root: each
 * has every child solved, all with its own values (a simultaneous node is
 * proven only when every joint move is, and they agree). Returns how many. */
static uint32_t check_simul_solved(const engine_t *e)
{
    uint32_t seen = 0;
    for (uint32_t n = 0; n < e->pool->reg[0].bump; n++) {
        const node_t *x = &e->pool->nodes[n];
        if (!(x->flags & NODE_USED) || !x->solved || x->first_child == NIL || n == e->root) continue;
        seen++;
        uint32_t children = 0;
        for (uint32_t c = x->first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
            children++;
            assert_true(e->pool->nodes[c].solved);
            for (uint32_t r = 0; r < 2; r++)
                if (fabs(node_value(e, c, r) - node_value(e, n, r)) > 1e-3)
                    fail_msg("a proven simultaneous node %.3f, its child %.3f", node_value(e, n, r),
                             node_value(e, c, r));
        }
        assert_int_equal(children, 9); /* every joint move of the two bids */
    }
    return seen;
}

/* Simultaneous moves: the solver never proves a node whose joint children
 * disagree (sim_bid: the second round's bids always change the outcome, so
 * no node with children is provable), proves those whose nine joint moves
 * agree (sim_first: only the first bids count), and compete still finds
 * the dominant bid of both. */
static void test_solver_simultaneous(void **state)
{
    (void)state;
    const char *games[] = {"sim_bid.kif", "sim_first.kif"};
    for (int gi = 0; gi < 2; gi++) {
        tgame_t t;
        tg_load(&t, data_file(games[gi]));
        move_id_t want;
        assert_true(game_move_from_text(t.ctx, 0, "(bid 3)", 7, &want));
        uint32_t proven = 0;
        for (uint64_t seed = 1; seed <= 3; seed++) {
            search_spec_t *sp;
            searcher_t *s = new_searcher(&t, 0, "compete:playouts=3000,threads=1", seed, &sp);
            search_report_t rep;
            move_id_t m = searcher_choose(s, t.st, deadline_none(), NULL, &rep);
            assert_int_equal(m, want);
            engine_t *e = searcher_engine(s, 0);
            assert_null(pool_check(e->pool, 0, NULL, 0));
            uint32_t here = check_simul_solved(e);
            if (gi == 1 && here == 0)
                fail_msg("seed %llu: no first-round node of sim_first proven", (unsigned long long)seed);
            proven += here;
            searcher_free(s);
            search_spec_free(sp);
        }
        if (gi == 0) assert_int_equal(proven, 0);
        tg_free(&t);
    }
}

/* A simultaneous root: a move of ours whose every joint reply is proven is
 * judged by those proofs, not by its marginal statistics: won against every
 * reply, played at once; lost against every reply, never played while
 * another move is left. The marginal counts of `inflate` are raised by hand
 * so that the statistics alone would pick it (they did, before). */
static void sim_root_case(const char *file, const char *inflate, bool want_first)
{
    tgame_t t;
    tg_load(&t, data_file(file));
    move_id_t first, infl;
    assert_true(game_move_from_text(t.ctx, 0, "(pick first)", 12, &first));
    assert_true(game_move_from_text(t.ctx, 0, inflate, strlen(inflate), &infl));
    for (uint64_t seed = 1; seed <= 3; seed++) {
        search_spec_t *sp;
        /* c = 1: exploration that tries a move again after a loss (on a
         * game of this shape compete takes c = 0) */
        searcher_t *s = new_searcher(&t, 0, "compete:playouts=3000,threads=1,c=1", seed, &sp);
        search_report_t rep;
        searcher_choose(s, t.st, deadline_none(), NULL, &rep);
        engine_t *e = searcher_engine(s, 0);
        uint32_t key = keys_get(e->keys, 0, infl);
        for (int i = 0; i < 100000; i++) marg_add(e->pool, e->root, key, 1.0f);
        double v = -1;
        move_id_t m = engine_final(e, &v);
        uint32_t fi = UINT32_MAX;
        for (uint32_t i = 0; i < e->n_legal[0]; i++)
            if (e->legal[0][i] == first) fi = i;
        assert_true(fi != UINT32_MAX);
        assert_int_equal(e->fm[fi].proven, 2); /* both replies of b proven */
        if (want_first) {
            assert_int_equal(m, first);
            assert_true(v > 0.999);
        } else {
            assert_int_not_equal(m, first);
        }
        searcher_free(s);
        search_spec_free(sp);
    }
    tg_free(&t);
}

static void test_solver_simultaneous_root(void **state)
{
    (void)state;
    sim_root_case("sim_win.kif", "(pick left)", true);
    sim_root_case("sim_doom.kif", "(pick first)", false);
}

/* Three players: a proven node's values for the roles other than its
 * mover are what they get whichever of its best children the mover takes
 * (solver_3p.kif: a, indifferent, decides whether b gets 100 or 0). Taking
 * a child's vector whole proved pick 1 or 3 a win for b, which played it
 * at once with value 1, in 5 of 8 seeds, and got 0 in some. */
static void test_solver_n_player_values(void **state)
{
    (void)state;
    tgame_t t;
    tg_load(&t, data_file("solver_3p.kif"));
    move_id_t want;
    assert_true(game_move_from_text(t.ctx, 1, "(pick 2)", 8, &want));
    uint32_t deep = 0; /* picks 1 and 3 proven: a's node below them proven */
    for (uint64_t seed = 1; seed <= 8; seed++) {
        search_spec_t *sp;
        searcher_t *s = new_searcher(&t, 1, "compete:playouts=2000,threads=1", seed, &sp);
        search_report_t rep;
        move_id_t m = searcher_choose(s, t.st, deadline_none(), NULL, &rep);
        assert_int_equal(m, want);
        engine_t *e = searcher_engine(s, 0);
        /* (the root need not be proven: a move proven worse than pick 2 is
         * not explored to the end) */
        assert_true(rep.value < 0.5 + 1e-3);
        uint32_t proven = 0;
        for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
            if (!e->pool->nodes[c].solved) continue;
            proven++;
            if (e->pool->nodes[c].edge != want) deep++;
            double vb = node_value(e, c, 1); /* b: 0 after picks 1 and 3, 0.5 after 2 */
            if (vb > 0.5 + 1e-3) fail_msg("seed %llu: a child proven worth %.3f to b", (unsigned long long)seed, vb);
        }
        assert_true(proven >= 1);
        searcher_free(s);
        search_spec_free(sp);
    }
    assert_true(deep > 0);
    tg_free(&t);
}

/* One player: the best line found is played unless the solver has proven a
 * better move (a line is recorded by the first worker only, and not for a
 * proof from the proven-states table). The line is set back by hand to the
 * move worth 50 while (take win) is proven at 100: the win is played. */
static void test_line_yields_to_proven_win(void **state)
{
    (void)state;
    tgame_t t;
    tg_load(&t, data_file("one_choice.kif"));
    move_id_t win, half;
    assert_true(game_move_from_text(t.ctx, 0, "(take win)", 10, &win));
    assert_true(game_move_from_text(t.ctx, 0, "(take half)", 11, &half));
    search_spec_t *sp;
    searcher_t *s = new_searcher(&t, 0, "compete:playouts=200,threads=1", 1, &sp);
    search_report_t rep;
    assert_int_equal(searcher_choose(s, t.st, deadline_none(), NULL, &rep), win);
    engine_t *e = searcher_engine(s, 0);
    assert_true(e->line_len >= 1 && e->line_value > 0.999);
    uint32_t wc = NIL;
    for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling)
        if (e->pool->nodes[c].edge == win) wc = c;
    assert_true(wc != NIL && e->pool->nodes[wc].solved);
    double v = 0;
    assert_int_equal(engine_final(e, &v), win); /* the line agrees */
    e->line_move[0] = half;
    e->line_value = 0.5;
    assert_int_equal(engine_final(e, &v), win);
    assert_true(v > 0.999);
    /* with no better proof the line is followed */
    e->pool->nodes[wc].solved = 0;
    assert_int_equal(engine_final(e, &v), half);
    assert_true(fabs(v - 0.5) < 1e-9);
    searcher_free(s);
    search_spec_free(sp);
    tg_free(&t);
}

/* ---- two-ply lookahead (lookahead=on) ------------------------------------------ */

/* Every solved node below n (state st) holds its minimax value for both
 * roles; returns how many were checked. */
static uint32_t check_solved_below(tgame_t *t, const engine_t *e, uint32_t n, const game_state_t *st)
{
    uint32_t checked = 0;
    game_state_t *nx = game_state_new(t->g);
    for (uint32_t c = e->pool->nodes[n].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
        game_ctx_set_state(t->ctx, st);
        move_id_t joint[2];
        for (uint32_t q = 0; q < 2; q++) {
            const move_id_t *ms;
            uint32_t k = game_legal(t->ctx, q, &ms);
            joint[q] = k >= 2 ? e->pool->nodes[c].edge : ms[0];
        }
        game_next(t->ctx, joint, nx);
        if (e->pool->nodes[c].solved) {
            for (uint32_t r = 0; r < 2; r++) {
                double exact = minimax(t, nx, r, 0);
                if (fabs(node_value(e, c, r) - exact) > 1e-3)
                    fail_msg("a solved node valued %.3f for role %u, minimax %.3f", node_value(e, c, r), r, exact);
            }
            checked++;
        }
        checked += check_solved_below(t, e, c, nx);
    }
    game_state_free(nx);
    return checked;
}

/* lookahead=on proves nodes (a win in one, a loss to every move) that
 * carry their exact minimax values, and at small budgets more of the root's
 * children are proven than by the solver alone: o's four edge moves lose in
 * two plies. */
static void test_lookahead_proves_exactly(void **state)
{
    (void)state;
    tgame_t t;
    if (!ttt_fork_load(&t)) {
        skip();
        return;
    }
    uint32_t proven[2] = {0, 0}, checked = 0;
    uint64_t proofs = 0;
    for (uint64_t seed = 1; seed <= 12; seed++)
        for (int on = 0; on < 2; on++) {
            search_spec_t *sp;
            searcher_t *s = new_searcher(&t, 1, on ? "compete:playouts=60,lookahead=on" : "compete:playouts=60", seed, &sp);
            search_report_t rep;
            searcher_choose(s, t.st, deadline_none(), NULL, &rep);
            engine_t *e = searcher_engine(s, 0);
            for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling)
                proven[on] += e->pool->nodes[c].solved;
            checked += check_solved_below(&t, e, e->root, t.st);
            if (!on) assert_int_equal(rep.la_checks, 0);
            else proofs += rep.la_proofs;
            searcher_free(s);
            search_spec_free(sp);
        }
    print_message("note: root children proven %u / %u (lookahead on / off), %u solved nodes checked\n", proven[1],
                  proven[0], checked);
    assert_true(proofs > 0);
    assert_true(checked > 0);
    if (proven[1] <= proven[0]) fail_msg("root children proven: %u with lookahead, %u without", proven[1], proven[0]);
    tg_free(&t);
}

/* The key's rules: compete only, and not without the solver. */
static void test_lookahead_spec(void **state)
{
    (void)state;
    char err[256];
    search_spec_t *sp = search_spec_parse("compete:lookahead=on,solver=off", err, sizeof err);
    assert_null(sp);
    assert_non_null(strstr(err, "solver"));
    assert_null(search_spec_parse("grave:lookahead=on", err, sizeof err));
    sp = search_spec_parse("compete:lookahead=on", err, sizeof err);
    assert_non_null(sp);
    search_spec_free(sp);
}

/* Below n (state st) of a two-player turn-taking tree: the proven
 * children lost for the role to move (*lost) and their visits (returned). */
static uint64_t lost_visits_below(tgame_t *t, const engine_t *e, uint32_t n, const game_state_t *st, uint32_t *lost)
{
    uint64_t visits = 0;
    game_ctx_set_state(t->ctx, st);
    uint32_t mover = 0;
    for (uint32_t q = 0; q < 2; q++) {
        const move_id_t *ms;
        if (game_legal(t->ctx, q, &ms) >= 2) mover = q;
    }
    game_state_t *nx = game_state_new(t->g);
    for (uint32_t c = e->pool->nodes[n].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
        if (e->pool->nodes[c].solved && node_value(e, c, mover) < 1e-3) {
            ++*lost;
            visits += e->pool->nodes[c].visits;
        }
        game_ctx_set_state(t->ctx, st);
        move_id_t joint[2];
        for (uint32_t q = 0; q < 2; q++) {
            const move_id_t *ms;
            uint32_t k = game_legal(t->ctx, q, &ms);
            joint[q] = k >= 2 ? e->pool->nodes[c].edge : ms[0];
        }
        game_next(t->ctx, joint, nx);
        visits += lost_visits_below(t, e, c, nx, lost);
    }
    game_state_free(nx);
    return visits;
}

/* lostvisit=on, ticTacToe from the start: the proven losses of the tree
 * (children lost for the role to move) keep being visited, more than 1.4
 * times as often each as with the key off (1.8-4.1 in seeds of four) at the same budgets; every solved node
 * still holds its minimax value, and the key needs the solver. */
static void test_lostvisit(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, st_shared_game("ticTacToe.kif"))) {
        skip();
        return;
    }
    uint64_t visits[2] = {0, 0};
    uint32_t lost[2] = {0, 0};
    for (uint64_t seed = 1; seed <= 8; seed++)
        for (int on = 0; on < 2; on++) {
            search_spec_t *sp;
            searcher_t *s = new_searcher(&t, 0, on ? "compete:playouts=3000,lostvisit=on" : "compete:playouts=3000",
                                         seed, &sp);
            search_report_t rep;
            searcher_choose(s, t.st, deadline_none(), NULL, &rep);
            engine_t *e = searcher_engine(s, 0);
            visits[on] += lost_visits_below(&t, e, e->root, t.st, &lost[on]);
            check_solved_below(&t, e, e->root, t.st);
            searcher_free(s);
            search_spec_free(sp);
        }
    print_message("note: proven losses %u / %u, their visits %llu / %llu (lostvisit on / off)\n", lost[1], lost[0],
                  (unsigned long long)visits[1], (unsigned long long)visits[0]);
    assert_true(lost[1] > 0 && lost[0] > 0);
    if ((double)visits[1] / lost[1] <= 1.4 * visits[0] / lost[0])
        fail_msg("visits per proven loss: %.1f with lostvisit, %.1f without", (double)visits[1] / lost[1],
                 (double)visits[0] / lost[0]);
    char err[256];
    assert_null(search_spec_parse("compete:lostvisit=on,solver=off", err, sizeof err));
    assert_non_null(strstr(err, "solver"));
    assert_null(search_spec_parse("grave:lostvisit=on", err, sizeof err));
    tg_free(&t);
}

/* ---- relative bonus -------------------------------------------------------------- */

/* x wins whichever speed it picks (data/race.kif): the outcome alone rates
 * quick and slow alike (1); rbonus rates the quick win above a win and the
 * slow one below, and selection follows. The solver is off, as it would
 * prove the root on the first win. */
static void test_rbonus(void **state)
{
    (void)state;
    tgame_t t;
    tg_load(&t, data_file("race.kif"));
    move_id_t quick, slow;
    assert_true(game_move_from_text(t.ctx, 0, "(go quick)", 10, &quick));
    assert_true(game_move_from_text(t.ctx, 0, "(go slow)", 9, &slow));
    for (uint64_t seed = 1; seed <= 3; seed++)
        for (int on = 0; on < 2; on++) {
            search_spec_t *sp;
            searcher_t *s = new_searcher(&t, 0, on ? "compete:playouts=2000,solver=off,rbonus=0.2"
                                                   : "compete:playouts=2000,solver=off", seed, &sp);
            search_report_t rep;
            searcher_choose(s, t.st, deadline_none(), NULL, &rep);
            engine_t *e = searcher_engine(s, 0);
            uint32_t cq = NIL, cs = NIL;
            for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
                if (e->pool->nodes[c].edge == quick) cq = c;
                if (e->pool->nodes[c].edge == slow) cs = c;
            }
            assert_true(cq != NIL && cs != NIL);
            double vq = node_value(e, cq, 0), vs = node_value(e, cs, 0);
            uint32_t nq = node_visits(e->pool, cq), ns = node_visits(e->pool, cs);
            if (on) {
                print_message("note: seed %llu: quick %.3f (%u visits), slow %.3f (%u)\n", (unsigned long long)seed,
                              vq, nq, vs, ns);
                assert_true(vq > 1.001);
                assert_true(vs < 0.999);
                assert_true(nq > 2 * ns);
            } else {
                assert_true(fabs(vq - 1) < 1e-6 && fabs(vs - 1) < 1e-6);
            }
            searcher_free(s);
            search_spec_free(sp);
        }
    char err[256];
    assert_null(search_spec_parse("grave:rbonus=0.2", err, sizeof err));
    assert_null(search_spec_parse("compete:rbonus=1.5", err, sizeof err));
    tg_free(&t);
}

/* ---- proven states (tt) --------------------------------------------------------- */

static uint32_t count_solved(const engine_t *e, uint32_t n, uint32_t *table)
{
    uint32_t k = 0;
    for (uint32_t c = e->pool->nodes[n].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
        if (e->pool->nodes[c].solved) k++;
        if (e->pool->nodes[c].solved == SOLVED_TABLE) ++*table;
        k += count_solved(e, c, table);
    }
    return k;
}

/* The path (node ids below n, depth d on) to a node proven from the table
 * where x (role 0) is to move: ticTacToe alternates, x at even depths.
 * Returns its depth, or 0. */
static int find_table_proven(const engine_t *e, uint32_t n, int d, uint32_t *path)
{
    for (uint32_t c = e->pool->nodes[n].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
        path[d] = c;
        if (e->pool->nodes[c].solved == SOLVED_TABLE && (d + 1) % 2 == 0) return d + 1;
        int found = d + 1 < 15 ? find_table_proven(e, c, d + 1, path) : 0;
        if (found) return found;
    }
    return 0;
}

/* The table of proven states proves transpositions at sight: more nodes
 * proven for the same budget, each at its minimax value; tt=0 has none. */
static void test_proven_states(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, st_shared_game("ticTacToe.kif"))) {
        skip();
        return;
    }
    uint32_t solved[2] = {0, 0}, table[2] = {0, 0};
    uint64_t hits = 0;
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (int on = 0; on < 2; on++) {
            search_spec_t *sp;
            /* decisive playouts, as when the table was measured: with
             * antidecisive ones (auto's choice since) the two trees grow
             * apart and the counts compare other things than the table */
            searcher_t *s = new_searcher(&t, 0,
                                         on ? "compete:playouts=3000,threads=1,tt=16,playout=decisive"
                                            : "compete:playouts=3000,threads=1,playout=decisive",
                                         seed, &sp);
            search_report_t rep;
            searcher_choose(s, t.st, deadline_none(), NULL, &rep);
            engine_t *e = searcher_engine(s, 0);
            solved[on] += count_solved(e, e->root, &table[on]);
            check_solved_below(&t, e, e->root, t.st);
            if (on) hits += rep.tt_hits;
            else assert_int_equal(rep.tt_hits + rep.tt_stored, 0);
            searcher_free(s);
            search_spec_free(sp);
        }
    /* A node proven from the table where x is to move, made the root by
     * the moves that lead to it (reuse finds it deep in the tree): searched
     * again (not stopped at once), and its move is a best one by minimax. */
    uint32_t rerooted = 0;
    game_state_t *mid = game_state_new(t.g), *gs = game_state_new(t.g), *after = game_state_new(t.g);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        search_spec_t *sp;
        searcher_t *s = new_searcher(&t, 0, "compete:playouts=3000,threads=1,tt=16", seed, &sp);
        search_report_t rep;
        searcher_choose(s, t.st, deadline_none(), NULL, &rep);
        engine_t *e = searcher_engine(s, 0);
        uint32_t path[16];
        int depth = find_table_proven(e, e->root, 0, path);
        if (depth > 0) {
            /* reuse looks two plies down: the match goes there move by move */
            game_state_copy(t.g, mid, t.st);
            move_id_t m = 0;
            for (int d = 0; d < depth; d++) {
                game_ctx_set_state(t.ctx, mid);
                move_id_t joint[2];
                for (uint32_t q = 0; q < 2; q++) {
                    const move_id_t *ms;
                    joint[q] = game_legal(t.ctx, q, &ms) >= 2 ? e->pool->nodes[path[d]].edge : ms[0];
                }
                game_next(t.ctx, joint, gs);
                game_state_copy(t.g, mid, gs);
                if (d % 2 == 1) m = searcher_choose(s, gs, deadline_none(), NULL, &rep);
            }
            e = searcher_engine(s, 0);
            assert_true(rep.reused > 0); /* the tree was kept: the root is the node proven from the table */
            assert_int_equal(e->root, path[depth - 1]);
            assert_true(rep.playouts > 0);
            game_ctx_set_state(t.ctx, gs);
            move_id_t joint[2];
            const move_id_t *ms;
            game_legal(t.ctx, 1, &ms);
            joint[0] = m;
            joint[1] = ms[0];
            game_next(t.ctx, joint, after);
            assert_true(fabs(minimax(&t, after, 0, 0) - minimax(&t, gs, 0, 0)) < 1e-3);
            rerooted++;
        }
        searcher_free(s);
        search_spec_free(sp);
    }
    game_state_free(mid);
    game_state_free(gs);
    game_state_free(after);
    assert_true(rerooted > 0);
    print_message("note: proven nodes %u with the table (%u from it, %llu hits), %u without; %u roots re-proven\n", solved[1], table[1],
                  (unsigned long long)hits, solved[0], rerooted);
    assert_int_equal(table[0], 0);
    assert_true(table[1] > 0 && hits >= table[1]);
    assert_true(solved[1] > solved[0]);
    char err[256];
    assert_null(search_spec_parse("compete:tt=16,solver=off", err, sizeof err));
    assert_non_null(strstr(err, "solver"));
    search_spec_t *ok = search_spec_parse("compete:tt=0,solver=off", err, sizeof err);
    assert_non_null(ok);
    search_spec_free(ok);
    tg_free(&t);
}

/* Whole games with the table and the tree kept: a root proven from the
 * table (its value, not its move) is searched again, so a move played as a
 * proven win is one: minimax agrees after it. */
static void test_proven_states_match(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, st_shared_game("ticTacToe.kif"))) {
        skip();
        return;
    }
    uint32_t wins_played = 0;
    game_state_t *cur = game_state_new(t.g), *nx = game_state_new(t.g);
    for (uint64_t seed = 1; seed <= 10; seed++) {
        search_spec_t *sp[2];
        searcher_t *s[2];
        /* o is weak (a few playouts a move), so x reaches won positions */
        for (uint32_t r = 0; r < 2; r++)
            s[r] = new_searcher(&t, r, r ? "compete:playouts=8,threads=1,tt=16" : "compete:playouts=400,threads=1,tt=16", seed * 2 + r, &sp[r]);
        game_state_copy(t.g, cur, t.st);
        for (;;) {
            game_ctx_set_state(t.ctx, cur);
            if (game_is_terminal(t.ctx)) break;
            move_id_t joint[2];
            search_report_t rep[2];
            for (uint32_t r = 0; r < 2; r++) joint[r] = searcher_choose(s[r], cur, deadline_none(), NULL, &rep[r]);
            game_ctx_set_state(t.ctx, cur);
            game_next(t.ctx, joint, nx);
            for (uint32_t r = 0; r < 2; r++) {
                const move_id_t *ms;
                game_ctx_set_state(t.ctx, cur);
                if (game_legal(t.ctx, r, &ms) < 2 || !rep[r].solved) continue;
                /* any move played from a proven root keeps the root's value */
                double before = minimax(&t, cur, r, 0), after = minimax(&t, nx, r, 0);
                if (after < before - 1e-3)
                    fail_msg("seed %llu: a move from a proven root gives up value (%.2f -> %.2f)", (unsigned long long)seed, before, after);
                if (rep[r].value < 1 - 1e-3) continue;
                wins_played++;
                if (after < 1 - 1e-3) fail_msg("seed %llu: a move played as a proven win is none", (unsigned long long)seed);
            }
            game_state_copy(t.g, cur, nx);
        }
        for (uint32_t r = 0; r < 2; r++) {
            searcher_free(s[r]);
            search_spec_free(sp[r]);
        }
    }
    print_message("note: %u moves played as proven wins, each one\n", wins_played);
    assert_true(wins_played >= 6);
    game_state_free(cur);
    game_state_free(nx);
    tg_free(&t);
}

/* A root proven in the tree whose witness (the proven child of its value)
 * is gone, as when the LRU recycles it, is searched again rather than
 * answered at once from stale visits; its move is then a winning one.
 * ticTacToe positions where x (to move) wins by force; the witnesses are
 * unproven by hand, which is what losing them means to the move choice. */
static void test_proven_root_needs_witness(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, st_shared_game("ticTacToe.kif"))) {
        skip();
        return;
    }
    game_state_t *cur = game_state_new(t.g), *nx = game_state_new(t.g);
    rng_t rng;
    rng_seed(&rng, 11);
    uint32_t checked = 0;
    for (int tries = 0; tries < 400 && checked < 5; tries++) {
        /* a random position with x to move and a forced win for x */
        game_state_copy(t.g, cur, t.st);
        uint32_t plies = 2 * (1 + rng_below(&rng, 3));
        bool ok = true;
        for (uint32_t p = 0; p < plies && ok; p++) {
            game_ctx_set_state(t.ctx, cur);
            if (game_is_terminal(t.ctx)) ok = false;
            move_id_t joint[2];
            for (uint32_t q = 0; q < 2 && ok; q++) {
                const move_id_t *ms;
                uint32_t n = game_legal(t.ctx, q, &ms);
                joint[q] = ms[rng_below(&rng, n)];
            }
            if (!ok) break;
            game_next(t.ctx, joint, nx);
            game_state_copy(t.g, cur, nx);
        }
        game_ctx_set_state(t.ctx, cur);
        const move_id_t *ms;
        if (!ok || game_is_terminal(t.ctx) || game_legal(t.ctx, 0, &ms) < 2 || minimax(&t, cur, 0, 0) < 1 - 1e-3) continue;
        search_spec_t *sp;
        searcher_t *s = new_searcher(&t, 0, "compete:playouts=3000,threads=1", (uint64_t)tries, &sp);
        search_report_t rep;
        searcher_choose(s, cur, deadline_none(), NULL, &rep);
        engine_t *e = searcher_engine(s, 0);
        if (!rep.solved || !node_solved(e->pool, e->root)) {
            searcher_free(s);
            search_spec_free(sp);
            continue;
        }
        /* lose every witness: x's proven children worth a win */
        uint32_t lost = 0;
        for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
            if (!node_solved(e->pool, c) || ldf(&pool_w(e->pool, c)[0]) < 1 - 1e-3) continue;
            float *w = pool_w(e->pool, c);
            for (uint32_t r = 0; r < 2; r++) w[r] *= (float)e->pool->nodes[c].visits;
            e->pool->nodes[c].solved = 0;
            lost++;
        }
        assert_true(lost > 0);
        move_id_t m = searcher_choose(s, cur, deadline_none(), NULL, &rep); /* the same state: the tree is kept */
        assert_true(rep.reused > 0);
        assert_true(rep.playouts > 0); /* searched again, not answered from the stale root */
        move_id_t joint[2] = {m, 0};
        game_ctx_set_state(t.ctx, cur);
        game_legal(t.ctx, 1, &ms);
        joint[1] = ms[0];
        game_next(t.ctx, joint, nx);
        if (minimax(&t, nx, 0, 0) < 1 - 1e-3) fail_msg("try %d: a won root without its witness plays a move that does not win", tries);
        checked++;
        searcher_free(s);
        search_spec_free(sp);
    }
    print_message("note: %u proven roots re-proven after losing their witnesses\n", checked);
    assert_true(checked >= 3);
    game_state_free(cur);
    game_state_free(nx);
    tg_free(&t);
}

/* ---- tree reuse ------------------------------------------------------------------ */

/* After a move and the reply, the new root is the old grandchild, with its
 * visit counts; reuse=off starts from nothing. Forced moves are searched. */
static void test_tree_reuse(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, st_shared_game("connectFour.kif"))) {
        skip();
        return;
    }
    for (int reuse = 1; reuse >= 0; reuse--) {
        search_spec_t *sp;
        searcher_t *s = new_searcher(&t, 0, reuse ? "compete:playouts=20000" : "compete:playouts=20000,reuse=off",
                                     7, &sp);
        search_report_t rep;
        move_id_t m = searcher_choose(s, t.st, deadline_none(), NULL, &rep);
        engine_t *e = searcher_engine(s, 0);
        assert_int_equal(rep.reused, 0);
        assert_null(pool_check(e->pool, 0, NULL, 0));
        /* red plays m; yellow answers with its most visited reply in our tree */
        uint32_t child = NIL;
        for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling)
            if (e->pool->nodes[c].edge == m) child = c;
        assert_true(child != NIL);
        uint32_t grand = NIL;
        for (uint32_t c = e->pool->nodes[child].first_child; c != NIL; c = e->pool->nodes[c].next_sibling)
            if (grand == NIL || e->pool->nodes[c].visits > e->pool->nodes[grand].visits) grand = c;
        assert_true(grand != NIL);
        uint32_t kept = e->pool->nodes[grand].visits;
        move_id_t reply = e->pool->nodes[grand].edge;
        game_ctx_set_state(t.ctx, t.st);
        const move_id_t *ms;
        game_legal(t.ctx, 1, &ms);
        move_id_t joint[2] = {m, ms[0]};
        game_ctx_play(t.ctx, joint);
        /* yellow's turn: red's move is forced (noop) and still searched */
        game_state_t *mid = game_state_new(t.g);
        game_state_copy(t.g, mid, game_ctx_state(t.ctx));
        search_report_t rep_forced;
        uint32_t child_visits = e->pool->nodes[child].visits; /* what the new root keeps */
        searcher_choose(s, mid, deadline_none(), NULL, &rep_forced);
        if (reuse) {
            assert_int_equal(rep_forced.playouts, 20000);
            assert_int_equal(rep_forced.reused, child_visits);
        } else {
            assert_int_equal(rep_forced.playouts, 0);
        }
        game_legal(t.ctx, 0, &ms);
        joint[0] = ms[0];
        joint[1] = reply;
        game_ctx_play(t.ctx, joint);
        game_state_t *now = game_state_new(t.g);
        game_state_copy(t.g, now, game_ctx_state(t.ctx));
        if (reuse) { /* the forced search grew the grandchild further */
            for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling)
                if (e->pool->nodes[c].edge == reply) kept = e->pool->nodes[c].visits;
        }
        searcher_choose(s, now, deadline_none(), NULL, &rep);
        if (reuse) {
            assert_int_equal(rep.reused, kept);
            assert_true(kept > 100);
            /* the released nodes are reused: nothing leaks past the bound */
            assert_null(pool_check(e->pool, 0, NULL, 0));
        } else {
            assert_int_equal(rep.reused, 0);
        }
        game_state_free(mid);
        game_state_free(now);
        searcher_free(s);
        search_spec_free(sp);
        game_ctx_set_state(t.ctx, t.st);
    }
    tg_free(&t);
}

/* oppc: a search on the opponent's turn (hex7 after red's first stone, red's
 * searcher: its move is forced) spreads the root's visits over more replies
 * than GRAVE's own c = 0 does; a search on red's own turn is the same, move
 * and visits, with or without it. */
static void root_spread(const engine_t *e, uint32_t *most, uint32_t *wide)
{
    *most = *wide = 0;
    for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
        uint32_t v = node_visits(e->pool, c);
        if (v > *most) *most = v;
        if (v >= 30) ++*wide;
    }
}

/* The visits of the root's children and grandchildren, each weighed by its
 * move: equal for two searches that spread their playouts alike. */
static uint64_t tree_signature(const engine_t *e)
{
    uint64_t sig = 0;
    for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
        sig = sig * 31 + (uint64_t)(e->pool->nodes[c].edge + 1) * node_visits(e->pool, c);
        for (uint32_t g = e->pool->nodes[c].first_child; g != NIL; g = e->pool->nodes[g].next_sibling)
            sig = sig * 7 + (uint64_t)(e->pool->nodes[g].edge + 1) * node_visits(e->pool, g);
    }
    return sig;
}

static void test_oppc(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, GGP_SOURCE_DIR "/games/hex7.kif")) fail_msg("cannot load hex7.kif");
    const move_id_t *ms;
    game_ctx_set_state(t.ctx, t.st);
    assert_true(game_legal(t.ctx, 0, &ms) > 1);
    move_id_t joint[2] = {ms[24], 0};
    assert_int_equal(game_legal(t.ctx, 1, &ms), 1);
    joint[1] = ms[0];
    game_ctx_play(t.ctx, joint);
    game_state_t *blue = game_state_new(t.g);
    game_state_copy(t.g, blue, game_ctx_state(t.ctx));
    uint32_t most[2] = {0, 0}, wide[2] = {0, 0};
    for (uint64_t seed = 1; seed <= 3; seed++) {
        move_id_t own[2];
        uint64_t own_visits[2];
        for (int on = 0; on < 2; on++) {
            search_spec_t *sp;
            searcher_t *s = new_searcher(&t, 0, on ? "compete:playouts=3000,threads=1,oppc=1"
                                                   : "compete:playouts=3000,threads=1", seed, &sp);
            search_report_t rep;
            searcher_choose(s, blue, deadline_none(), NULL, &rep); /* blue's turn: red's noop */
            uint32_t m, w;
            root_spread(searcher_engine(s, 0), &m, &w);
            most[on] += m;
            wide[on] += w;
            searcher_free(s);
            search_spec_free(sp);
            /* red's own turn: the root is red's, oppc does not apply */
            s = new_searcher(&t, 0, on ? "compete:playouts=3000,threads=1,oppc=1" : "compete:playouts=3000,threads=1",
                             seed, &sp);
            own[on] = searcher_choose(s, t.st, deadline_none(), NULL, &rep);
            own_visits[on] = tree_signature(searcher_engine(s, 0));
            searcher_free(s);
            search_spec_free(sp);
        }
        assert_int_equal(own[0], own[1]);
        assert_int_equal(own_visits[0], own_visits[1]); /* the same tree, move by move */
    }
    print_message("note: blue's root over 3 seeds: most visited %u / %u, replies with 30+ visits %u / %u (c / oppc=1)\n",
                  most[0], most[1], wide[0], wide[1]);
    assert_true(most[1] < most[0]);
    assert_true(wide[1] > wide[0]);
    char err[256];
    search_spec_t *sp = search_spec_parse("grave:oppc=1", err, sizeof err);
    assert_null(sp);
    game_state_free(blue);
    tg_free(&t);
}

/* ---- memory bound over a whole match ---------------------------------------------- */

static void play_bounded_match(const char *path, const char *spec_text, uint64_t mb, bool fills)
{
    tgame_t t;
    if (!tg_load(&t, path)) {
        skip();
        return;
    }
    uint32_t k = game_num_roles(t.g);
    searcher_t *s[8];
    search_spec_t *sp = NULL;
    for (uint32_t r = 0; r < k; r++) {
        search_spec_t *x;
        s[r] = new_searcher(&t, r, spec_text, 11 + r, &x);
        if (r == 0) sp = x;
        else search_spec_free(x);
    }
    uint64_t recycled = 0;
    uint32_t steps = 0;
    game_state_t *now = game_state_new(t.g);
    while (!game_is_terminal(t.ctx) && steps < 300) {
        game_state_copy(t.g, now, game_ctx_state(t.ctx));
        move_id_t joint[8];
        for (uint32_t r = 0; r < k; r++) {
            search_report_t rep;
            joint[r] = searcher_choose(s[r], now, deadline_none(), NULL, &rep);
            recycled += rep.recycled;
            /* this search's own recycling: at most a node per playout (one
             * expansion each), not the match's running total */
            if (rep.recycled > rep.playouts)
                fail_msg("step %u: %llu recycled in %llu playouts", steps, (unsigned long long)rep.recycled,
                         (unsigned long long)rep.playouts);
            engine_t *e = searcher_engine(s[r], 0);
            /* all it holds: the tree, MAST, N-grams, last good replies, keys */
            size_t held = searcher_held_bytes(s[r]);
            if (held > mb * 1024 * 1024)
                fail_msg("step %u: the searcher holds %zu bytes (its tree %zu), bound %llu MB", steps, held,
                         pool_held_bytes(e->pool), (unsigned long long)mb);
            const char *bad = pool_check(e->pool, 0, NULL, 0);
            if (bad) fail_msg("step %u: %s", steps, bad);
        }
        game_ctx_set_state(t.ctx, now);
        game_ctx_play(t.ctx, joint);
        steps++;
    }
    assert_true(game_is_terminal(t.ctx));
    if (fills) assert_true(recycled > 0); /* the bound was reached and held */
    game_state_free(now);
    for (uint32_t r = 0; r < k; r++) searcher_free(s[r]);
    search_spec_free(sp);
    tg_free(&t);
}

static void test_memory_bound_long_match(void **state)
{
    (void)state;
    /* 1 MB: about 15k nodes; the tree kept from move to move outgrows it */
    play_bounded_match(st_shared_game("connectFour.kif"), "compete:playouts=4000,memory=1", 1, true);
}

/* Breakthrough: hundreds of keys, tens of thousands of N-gram pairs (the
 * 2-gram table alone would take 6 MB unbounded) and last good replies; the
 * bound holds for all of it. (The tree of 1500 playouts a move stays under
 * the 15k nodes of 1 MB: connectFour's test above fills it.) */
static void test_memory_bound_side_tables(void **state)
{
    (void)state;
    play_bounded_match(st_shared_game("breakthrough.kif"), "compete:playouts=1500,memory=1,nst=on,lgr=on,mast=on", 1, false);
}

/* ---- single-player games: the best line found is followed ------------------------- */

/* GDL with one role is deterministic: the value of the best line found by
 * the first search is guaranteed, so the game played on by the same player
 * ends with at least that goal. */
static void line_game(const char *path, uint64_t seed)
{
    tgame_t t;
    if (!tg_load(&t, path)) {
        skip();
        return;
    }
    search_spec_t *sp;
    searcher_t *s = new_searcher(&t, 0, "compete:playouts=2000", seed, &sp);
    engine_t *e = searcher_engine(s, 0);
    double first = -1;
    game_state_t *now = game_state_new(t.g);
    uint32_t steps = 0;
    while (!game_is_terminal(t.ctx) && steps < 500) {
        game_state_copy(t.g, now, game_ctx_state(t.ctx));
        search_report_t rep;
        move_id_t m = searcher_choose(s, now, deadline_none(), NULL, &rep);
        if (first < 0) first = e->line_value;
        game_ctx_set_state(t.ctx, now);
        game_ctx_play(t.ctx, &m);
        steps++;
    }
    assert_true(game_is_terminal(t.ctx));
    assert_true(first >= 0); /* a playout of the first search reached the end */
    int goal = game_goal(t.ctx, 0);
    if (goal < first * 100 - 1e-6)
        fail_msg("%s seed %llu: the first search found a line worth %.0f, the game ended with %d", path,
                 (unsigned long long)seed, first * 100, goal);
    game_state_free(now);
    searcher_free(s);
    search_spec_free(sp);
    tg_free(&t);
}

static void test_single_player_best_line(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        line_game(GGP_SOURCE_DIR "/games/lightsout.kif", seed);
        line_game(st_shared_game("hanoi.kif"), seed);
    }
}

/* nested=on (issue 12 item 6): on a one-player game with a time budget,
 * half of each search goes to NMCS (level 2) beside the tree; its line is
 * reported, and played when better. Off, or with a playout budget, there
 * is none. */
static void test_single_player_nested(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, data_file("lock.kif"))) fail_msg("cannot load lock.kif");
    /* 1 s for the row that must find the code: its level-2 search has the
     * second half, which a loaded sanitizer run could stall through at 0.2 s */
    const char *specs[] = {"compete:seconds=1,threads=1", "compete:seconds=0.2,threads=1,nested=off",
                           "compete:playouts=300,threads=1"};
    for (int i = 0; i < 3; i++) {
        search_spec_t *sp;
        searcher_t *s = new_searcher(&t, 0, specs[i], 1, &sp);
        game_ctx_set_state(t.ctx, t.st);
        game_state_t *now = game_state_new(t.g);
        int first = -2;
        while (!game_is_terminal(t.ctx)) {
            game_state_copy(t.g, now, game_ctx_state(t.ctx));
            search_report_t rep;
            move_id_t m = searcher_choose(s, now, deadline_none(), NULL, &rep);
            if (first == -2) first = rep.nested_best;
            game_ctx_set_state(t.ctx, now);
            game_ctx_play(t.ctx, &m);
        }
        if (i == 0) {
            assert_int_equal(first, 100); /* the level-2 search from the start finds the code */
            assert_int_equal(game_goal(t.ctx, 0), 100);
        } else {
            assert_int_equal(first, -1);
        }
        game_state_free(now);
        searcher_free(s);
        search_spec_free(sp);
    }
    tg_free(&t);
}

/* ---- tree parallelism ------------------------------------------------------------- */

/* threads=2 shares one tree: the playout budget is exact over both workers,
 * the root's visits are those playouts (plus what reuse kept), no node is
 * left in flight and the LRU invariants hold after every search, over a
 * whole game with a small memory bound (recycling while both work). */
static void shared_game(const char *path, const char *spec_text)
{
    tgame_t t;
    if (!tg_load(&t, path)) {
        skip();
        return;
    }
    uint32_t k = game_num_roles(t.g);
    searcher_t *s[8];
    search_spec_t *sp[8];
    for (uint32_t r = 0; r < k; r++) s[r] = new_searcher(&t, r, spec_text, 5 + r, &sp[r]);
    game_state_t *now = game_state_new(t.g);
    uint64_t recycled = 0;
    for (uint32_t step = 0; step < 400 && !game_is_terminal(t.ctx); step++) {
        game_state_copy(t.g, now, game_ctx_state(t.ctx));
        move_id_t joint[8];
        for (uint32_t r = 0; r < k; r++) {
            search_report_t rep;
            joint[r] = searcher_choose(s[r], now, deadline_none(), NULL, &rep);
            engine_t *e = searcher_engine(s[r], 0);
            assert_non_null(searcher_engine(s[r], 1)); /* two workers (the propnet knows every move) */
            game_ctx_set_state(t.ctx, now);
            const move_id_t *ms;
            uint32_t n = game_legal(t.ctx, r, &ms);
            bool legal = false;
            for (uint32_t i = 0; i < n; i++) legal = legal || ms[i] == joint[r];
            assert_true(legal);
            if (!rep.solved) assert_int_equal(rep.playouts, 3000);
            /* both workers' CPU time, each at most the search's wall time */
            if (rep.playouts) assert_true(rep.cpu_seconds > 0);
            assert_true(rep.cpu_seconds <= 2 * rep.seconds + 0.01);
            assert_int_equal(e->pool->nodes[e->root].visits, rep.reused + rep.playouts);
            for (uint32_t x = 0; x < e->pool->reg[0].bump; x++)
                assert_int_equal(e->pool->nodes[x].flight, 0);
            const char *bad = pool_check(e->pool, 0, NULL, 0);
            if (bad) fail_msg("%s step %u: %s", path, step, bad);
            recycled += rep.recycled;
        }
        game_ctx_play(t.ctx, joint);
    }
    printf("note: %s: %llu nodes recycled\n", path, (unsigned long long)recycled);
    game_state_free(now);
    for (uint32_t r = 0; r < k; r++) {
        searcher_free(s[r]);
        search_spec_free(sp[r]);
    }
    tg_free(&t);
}

static void test_tree_parallel(void **state)
{
    (void)state;
    shared_game(st_shared_game("connectFour.kif"), "compete:playouts=3000,threads=2,memory=1");
    shared_game(data_file("sim_bid.kif"), "compete:playouts=3000,threads=2");
    shared_game(st_shared_game("tictactoe_3player.kif"), "compete:playouts=3000,threads=2");
}

/* Placement games: compete takes GRAVE's own bias and c there (searcher.c,
 * search_move_shape), keeps its own where moves recur or a ply's changes
 * vary with the position (Othello's flips), and never overrides a bias or
 * c the spec sets. Last good replies and N-grams are off where a ply's
 * changes vary, unless the spec sets lgr or nst. */
static move_shape_t placement_case(const char *path, const char *text, bool placement, double bias, double c, bool lgr,
                                   bool nst)
{
    tgame_t t;
    tg_load(&t, path);
    move_shape_t shape = search_move_shape(t.g);
    printf("%s: recur %.3f churn %.3f\n", path, shape.recur, shape.churn);
    assert_true(search_is_placement(shape) == placement);
    if (placement) assert_true(shape.recur == 0.0 && shape.churn == 0.0);
    search_spec_t *sp;
    searcher_t *s = new_searcher(&t, 0, text, 1, &sp);
    const search_spec_t *used = searcher_engine(s, 0)->spec; /* what the engine reads */
    assert_true(fabs(used->bias - bias) < 1e-12);
    assert_true(fabs(used->c - c) < 1e-12);
    assert_true(used->lgr == lgr);
    assert_true(used->nst == nst);
    searcher_free(s);
    search_spec_free(sp);
    tg_free(&t);
    return shape;
}

/* ---- cached tree states (engine.c nc_*) ------------------------------------ */

#define CACHE_STEPS 400
#if defined(__SANITIZE_THREAD__)
#define TSAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TSAN_BUILD 1
#endif
#endif
#ifndef TSAN_BUILD
#define TSAN_BUILD 0
#endif

typedef struct cache_run {
    move_id_t moves[CACHE_STEPS][8];
    uint64_t playouts[CACHE_STEPS][8], nodes[CACHE_STEPS][8];
    double value[CACHE_STEPS][8];
    uint32_t steps;
    uint64_t cached;   /* tree steps the cache took without the reasoner */
    size_t held_max;   /* most bytes a searcher held */
} cache_run_t;

/* A whole match in which role `only` (or every role, k) searches with
 * spec and the others play their first legal move; each searcher's
 * report per step into *out. */
static void cache_match(const char *path, engine_kind_t engine, const char *spec, uint32_t only, cache_run_t *out)
{
    tgame_t t;
    if (!tg_load_engine(&t, path, engine)) {
        skip();
        return;
    }
    uint32_t k = game_num_roles(t.g);
    assert_true(k <= 8);
    searcher_t *s[8] = {0};
    search_spec_t *sp[8] = {0};
    for (uint32_t r = 0; r < k; r++)
        if (only == k || r == only) s[r] = new_searcher(&t, r, spec, 11 + r, &sp[r]);
    memset(out, 0, sizeof *out);
    game_state_t *now = game_state_new(t.g);
    while (!game_is_terminal(t.ctx) && out->steps < CACHE_STEPS) {
        game_state_copy(t.g, now, game_ctx_state(t.ctx));
        move_id_t joint[8];
        for (uint32_t r = 0; r < k; r++) {
            if (!s[r]) {
                const move_id_t *ms;
                game_ctx_set_state(t.ctx, now);
                assert_true(game_legal(t.ctx, r, &ms) > 0);
                joint[r] = ms[0];
                continue;
            }
            search_report_t rep;
            joint[r] = searcher_choose(s[r], now, deadline_none(), NULL, &rep);
            out->moves[out->steps][r] = joint[r];
            out->playouts[out->steps][r] = rep.playouts;
            out->nodes[out->steps][r] = rep.nodes_peak;
            out->value[out->steps][r] = rep.value;
            out->cached += rep.cached_steps;
            size_t held = searcher_held_bytes(s[r]);
            if (held > out->held_max) out->held_max = held;
            const char *bad = pool_check(searcher_engine(s[r], 0)->pool, 0, NULL, 0);
            if (bad) fail_msg("step %u: %s", out->steps, bad);
        }
        game_ctx_set_state(t.ctx, now);
        game_ctx_play(t.ctx, joint);
        out->steps++;
    }
    game_state_free(now);
    for (uint32_t r = 0; r < k; r++) {
        searcher_free(s[r]);
        search_spec_free(sp[r]);
    }
    tg_free(&t);
}

/* spec with cache=on and with cache=off: the same match, move for move,
 * with the same playouts, tree sizes and values at every step; the cached
 * run skipped the reasoner at some tree steps iff want_cached. */
static void same_with_cache(const char *path, engine_kind_t engine, const char *spec, uint32_t only,
                            bool want_cached, uint64_t bound_mb)
{
    static cache_run_t on, off;
    char text[256];
    snprintf(text, sizeof text, "%s,cache=on", spec);
    cache_match(path, engine, text, only, &on);
    snprintf(text, sizeof text, "%s,cache=off", spec);
    cache_match(path, engine, text, only, &off);
    assert_int_equal(off.cached, 0);
    if (want_cached != (on.cached > 0))
        fail_msg("%s %s: %llu cached tree steps", path, spec, (unsigned long long)on.cached);
    assert_int_equal(on.steps, off.steps);
    assert_true(on.steps > 0);
    for (uint32_t i = 0; i < on.steps; i++)
        for (uint32_t r = 0; r < 8; r++) {
            if (on.moves[i][r] != off.moves[i][r] || on.playouts[i][r] != off.playouts[i][r] ||
                on.nodes[i][r] != off.nodes[i][r] || on.value[i][r] != off.value[i][r])
                fail_msg("%s %s: step %u role %u: move %u/%u playouts %llu/%llu value %g/%g with/without the cache",
                         path, spec, i, r, on.moves[i][r], off.moves[i][r], (unsigned long long)on.playouts[i][r],
                         (unsigned long long)off.playouts[i][r], on.value[i][r], off.value[i][r]);
        }
    if (bound_mb && on.held_max > bound_mb * 1024 * 1024)
        fail_msg("%s %s: held %zu bytes, bound %llu MB", path, spec, on.held_max, (unsigned long long)bound_mb);
}

/* The cache changes the reasoner's work, never the search: turn-taking,
 * simultaneous and three-player games, GRAVE, UCT and compete (its tree
 * kept over the match, and recycled within a 1 MB bound, which hands node
 * ids out again), the propnet and the rules engine; Go, whose playout
 * candidates come in an order of its history, does not use it. */
static void test_cache_same_search(void **state)
{
    (void)state;
    const char *c4 = st_shared_game("connectFour.kif");
    /* ThreadSanitizer (about 25x slower here) runs only the shared tree's
     * case below, the one with threads: the single-threaded comparisons
     * took 14 of its 15 minutes and run in the dev and ASan builds. */
    if (!TSAN_BUILD) {
        same_with_cache(c4, ENGINE_AUTO, "grave:playouts=1000", 2, true, 0);
        same_with_cache(c4, ENGINE_AUTO, "uct:playouts=1000", 2, true, 0);
        same_with_cache(c4, ENGINE_AUTO, "compete:playouts=1500,threads=1", 2, true, 0);
        same_with_cache(c4, ENGINE_AUTO, "compete:playouts=4000,threads=1,memory=1", 2, true, 1);
        same_with_cache(st_shared_game("breakthrough.kif"), ENGINE_AUTO, "compete:playouts=1500,threads=1,memory=1", 2,
                        true, 1);
        same_with_cache(st_shared_game("connectFourSimultaneous.kif"), ENGINE_AUTO, "compete:playouts=1000,threads=1", 2,
                        true, 0);
        same_with_cache(st_shared_game("3pConnectFour.kif"), ENGINE_AUTO, "grave:playouts=1000", 3, true, 0);
        /* terminal nodes' goals (nc_put_terminal): the solver stops short
         * of them, so without it, recycled (ids handed out again) and on
         * a simultaneous game */
        same_with_cache(c4, ENGINE_AUTO, "compete:playouts=4000,threads=1,memory=1,solver=off", 2, true, 1);
        same_with_cache(st_shared_game("connectFourSimultaneous.kif"), ENGINE_AUTO, "grave:playouts=1000", 2, true, 0);
        same_with_cache(c4, ENGINE_RULES, "compete:playouts=150,threads=1", 0, true, 0);
        same_with_cache("go5", ENGINE_AUTO, "grave:playouts=300", 2, false, 0);
    }
    /* a shared tree (threads=2) does not use it: workers recycle each other's nodes */
    cache_run_t r;
    cache_match(c4, ENGINE_AUTO, "compete:playouts=1000,threads=2", 0, &r);
    assert_int_equal(r.cached, 0);
}

static void test_placement_settings(void **state)
{
    (void)state;
    const char *ttt = GGP_SOURCE_DIR "/games/tictactoe.kif", *c4 = GGP_SOURCE_DIR "/games/connect4.kif";
    const char *hex = GGP_SOURCE_DIR "/games/hex7.kif", *oth = GGP_SOURCE_DIR "/games/othello.kif";
    placement_case(ttt, "compete:playouts=10", true, 0.01, 0, true, true);
    placement_case(ttt, "compete:playouts=10,bias=1,c=0.4", true, 1, 0.4, true, true);
    placement_case(ttt, "compete:playouts=10,c=0.2", true, 0.01, 0.2, true, true);
    placement_case(hex, "compete:playouts=10", true, 0.01, 0, true, true);
    /* bookkeeping beside the board (the corpus Hex's connected groups)
     * churns; the board relation a move writes its own cell in does not */
    placement_case(data_file("placement_aux.kif"), "compete:playouts=10", true, 0.01, 0, true, true);
    /* the measures themselves: connect four's drops repeat a column about
     * half the time; Othello's moves never repeat, its flips vary */
    assert_true(placement_case(c4, "compete:playouts=10", false, 1, 0.4, true, true).recur > 0.3);
    placement_case(c4, "compete:playouts=10,bias=0.5", false, 0.5, 0.4, true, true);
    move_shape_t o = placement_case(oth, "compete:playouts=10", false, 1, 0.4, false, false);
    assert_true(o.recur == 0.0 && o.churn > 1.0);
    placement_case(oth, "compete:playouts=10,c=0", false, 1, 0, false, false);
    placement_case(oth, "compete:playouts=10,lgr=on", false, 1, 0.4, true, false);
    placement_case(oth, "compete:playouts=10,nst=on", false, 1, 0.4, false, true);
    placement_case(c4, "compete:playouts=10,nst=off", false, 1, 0.4, true, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solver_proves_win),
        cmocka_unit_test(test_solver_exact_and_no_proven_loss),
        cmocka_unit_test(test_solver_simultaneous),
        cmocka_unit_test(test_solver_simultaneous_root),
        cmocka_unit_test(test_solver_n_player_values),
        cmocka_unit_test(test_line_yields_to_proven_win),
        cmocka_unit_test(test_lostvisit),
        cmocka_unit_test(test_rbonus),
        cmocka_unit_test(test_proven_states),
        cmocka_unit_test(test_proven_states_match),
        cmocka_unit_test(test_proven_root_needs_witness),
        cmocka_unit_test(test_lookahead_proves_exactly),
        cmocka_unit_test(test_lookahead_spec),
        cmocka_unit_test(test_tree_reuse),
        cmocka_unit_test(test_oppc),
        cmocka_unit_test(test_memory_bound_long_match),
        cmocka_unit_test(test_memory_bound_side_tables),
        cmocka_unit_test(test_single_player_best_line),
        cmocka_unit_test(test_single_player_nested),
        cmocka_unit_test(test_tree_parallel),
        cmocka_unit_test(test_placement_settings),
        cmocka_unit_test(test_cache_same_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
