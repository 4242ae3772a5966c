/* test_playout.c - the playout strategies and strategy switching
 * (grave-spec §14): each greedy strategy picks the move its heuristic rates
 * best in a hand-made position, the terminal shortcut takes a win and
 * avoids a loss (and so do decisive moves), MAST and random behave as spec §9 says, the bandit's
 * choices are UCB1's on a stub with known rewards, the bandits persist,
 * decay and reset like MAST, and every MCTS row runs with every strategy. */
#include "testutil.h"

#include <math.h>

#include "base/xalloc.h"
#include "games/go/go.h"
#include "search/search_internal.h"
#include "st_util.h"

static search_spec_t *spec_of(const char *text)
{
    char err[512];
    search_spec_t *s = search_spec_parse(text, err, sizeof err);
    if (!s) fail_msg("%s: %s", text, err);
    return s;
}

/* How often each move of x is chosen at strat's first state, out of n. */
static void pick_counts(tgame_t *t, const char *spec_text, uint32_t n, uint32_t *hits, const char **names, uint32_t k)
{
    search_spec_t *sp = spec_of(spec_text);
    searcher_t *s = searcher_new(t->g, 0, sp);
    searcher_reseed(s, 7);
    engine_t *e = searcher_engine(s, 0);
    memset(hits, 0, k * sizeof *hits);
    for (uint32_t i = 0; i < n; i++) {
        game_ctx_set_state(e->ctx, t->st);
        uint32_t m = engine_playout_move(e, 0);
        bool found = false;
        for (uint32_t j = 0; j < k; j++)
            if (!strcmp(game_move_name(t->g, 0, m, true), names[j])) {
                hits[j]++;
                found = true;
            }
        if (!found) fail_msg("%s: unexpected move %s", spec_text, game_move_name(t->g, 0, m, true));
    }
    searcher_free(s);
    search_spec_free(sp);
}

static void test_greedy_strategies_pick_their_best(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, data_file("strat_pos.kif"))) fail_msg("cannot load strat_pos.kif");
    const char *names[] = {"(pick a)", "(pick b)", "(pick c)", "(pick l)"};
    /* Mp: b (5 moves later); Md: a (o has 1 reply); E: c (goal 70) */
    static const struct { const char *spec; uint32_t best; } cases[] = {
        {"uct:playout=mobility", 1}, {"uct:playout=md", 0}, {"uct:playout=eval", 2},
        {"grave:playout=mobility", 1}, {"rave:playout=md", 0}, {"mc:playout=eval", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t hits[4];
        pick_counts(&t, cases[i].spec, 50, hits, names, 4);
        if (hits[cases[i].best] != 50)
            fail_msg("%s: chose a %u b %u c %u l %u times", cases[i].spec, hits[0], hits[1], hits[2], hits[3]);
    }
    tg_free(&t);
}

static void test_terminal_shortcut(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, data_file("strat_win.kif"))) fail_msg("cannot load strat_win.kif");
    const char *names[] = {"(pick a)", "(pick b)", "(pick c)", "(pick l)", "(pick w)"};
    const char *specs[] = {"uct:playout=mobility", "uct:playout=md", "uct:playout=eval", "compete:playout=decisive,eps=0.5"};
    for (size_t i = 0; i < 4; i++) {
        uint32_t hits[5];
        pick_counts(&t, specs[i], 30, hits, names, 5);
        if (hits[4] != 30) fail_msg("%s: the immediate win taken %u times of 30", specs[i], hits[4]);
    }
    tg_free(&t);
    /* the immediate loss l is never chosen (strat_pos: all heuristics above it) */
    if (!tg_load(&t, data_file("strat_pos.kif"))) fail_msg("cannot load strat_pos.kif");
    const char *pos[] = {"(pick a)", "(pick b)", "(pick c)", "(pick l)"};
    for (size_t i = 0; i < 4; i++) {
        uint32_t hits[4];
        pick_counts(&t, specs[i], 30, hits, pos, 4);
        assert_int_equal(hits[3], 0);
    }
    /* decisive: no win at once here, so MAST's epsilon-greedy choice (an
     * empty table: every remaining move ties) spreads over a, b and c */
    uint32_t hits[4];
    pick_counts(&t, "compete:playout=decisive", 60, hits, pos, 4);
    assert_true(hits[0] > 0 && hits[1] > 0 && hits[2] > 0);
    tg_free(&t);
}

/* antidecisive blocks x's threat in one (take 2) in each of two games, 60
 * times of 60; decisive blocks it only by chance, since no move of x wins
 * at once. */
static void check_blocks(const char *file, const char *grab_file)
{
    const char *names[] = {"(take 1)", "(take 2)", "(take 3)"};
    const char *files[] = {file, grab_file};
    for (size_t f = 0; f < 2; f++) {
        tgame_t t;
        if (!tg_load(&t, data_file(files[f]))) fail_msg("cannot load %s", files[f]);
        uint32_t hits[3];
        pick_counts(&t, "compete:playout=antidecisive,eps=0.5", 60, hits, names, 3);
        if (hits[1] != 60) fail_msg("%s: antidecisive blocked %u times of 60", files[f], hits[1]);
        pick_counts(&t, "compete:playout=decisive,eps=0.5", 60, hits, names, 3);
        assert_true(hits[0] > 0 && hits[1] > 0 && hits[2] > 0);
        tg_free(&t);
    }
}

/* The block is found as the cell the opponent would win on (strat_threat:
 * both roles spell moves (take ?c)) or by checking moves one by one
 * (strat_threat_grab: o's are (grab ?c)). */
static void test_antidecisive_blocks(void **state)
{
    (void)state;
    check_blocks("strat_threat.kif", "strat_threat_grab.kif");
}

/* The same at a simultaneous step, whose next step is simultaneous too
 * (connectFourSimultaneous): x's take is checked against each of o's
 * replies with a sample of x's own next move. */
static void test_antidecisive_blocks_simultaneous(void **state)
{
    (void)state;
    check_blocks("strat_threat_sim.kif", "strat_threat_sim_grab.kif");
}

/* random: every move about equally often; mast with eps=0: the best Q. */
static void test_random_and_mast_rows(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, data_file("strat_pos.kif"))) fail_msg("cannot load strat_pos.kif");
    const char *names[] = {"(pick a)", "(pick b)", "(pick c)", "(pick l)"};
    uint32_t hits[4];
    pick_counts(&t, "uct:playout=random", 4000, hits, names, 4);
    for (int j = 0; j < 4; j++) assert_float_equal(hits[j] / 4000.0, 0.25, 0.03);

    search_spec_t *sp = spec_of("uct:playout=mast,eps=0");
    searcher_t *s = searcher_new(t.g, 0, sp);
    engine_t *e = searcher_engine(s, 0);
    game_ctx_set_state(e->ctx, t.st);
    const move_id_t *ms;
    uint32_t n = game_legal(e->ctx, 0, &ms);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t key = keys_get(e->keys, 0, ms[i]);
        mast_reserve(&e->mast, key + 1);
        mast_set(&e->mast, key, 10, !strcmp(game_move_name(t.g, 0, ms[i], true), "(pick l)") ? 8 : 3);
    }
    for (int i = 0; i < 20; i++) {
        game_ctx_set_state(e->ctx, t.st);
        assert_string_equal(game_move_name(t.g, 0, engine_playout_move(e, 0), true), "(pick l)");
    }
    searcher_free(s);
    search_spec_free(sp);
    tg_free(&t);
}

/* MAST's playout step on a game that splits its playout list (Go:
 * candidates and a test, game.h): what it plays is drawn as from the list.
 * Black to move on 5x5 with an own eye at (1,1) and two suicide points at
 * (1,5) and (5,5): candidates the test refuses. */
static void test_mast_from_candidates(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, "go5")) fail_msg("cannot load go5");
    const char *rows[] = {
        ".X...", /* y = 1 */
        "XX...",
        ".....",
        "OO..O",
        ".O.O.",
    };
    assert_true(go_state_from_rows(t.g, rows, false, t.st));
    const move_id_t *pl, *cs;
    game_ctx_set_state(t.ctx, t.st);
    uint32_t npl = game_playout_legal(t.ctx, 0, &pl), nc = game_playout_cands(t.ctx, 0, &cs);
    assert_int_equal(npl, 25 - 8 - 1 - 2);
    assert_int_equal(nc, 25 - 8);
    /* No MAST statistics yet: uniform over the list, whichever branch */
    search_spec_t *sp = spec_of("grave:playouts=100");
    searcher_t *s = searcher_new(t.g, 0, sp);
    searcher_reseed(s, 3);
    engine_t *e = searcher_engine(s, 0);
    enum { DRAWS = 14000 };
    uint32_t hits[32] = {0};
    for (int i = 0; i < DRAWS; i++) {
        game_ctx_set_state(e->ctx, t.st);
        assert_int_equal(playout_game_step(e), 1);
        assert_int_equal(e->dec[0], 0);
        move_id_t m = e->joint[0];
        bool in = false;
        for (uint32_t j = 0; j < npl; j++) in = in || pl[j] == m;
        if (!in) fail_msg("played %s, not in the playout list", game_move_name(t.g, 0, m, true));
        hits[m]++;
    }
    for (uint32_t j = 0; j < npl; j++) /* 1000 expected each; sd about 30 */
        if (hits[pl[j]] < 850 || hits[pl[j]] > 1150)
            fail_msg("%s drawn %u times of %d", game_move_name(t.g, 0, pl[j], true), hits[pl[j]], DRAWS);
    searcher_free(s);
    search_spec_free(sp);
    /* eps = 0: the best MAST value among the accepted candidates, even
     * when refused ones are valued higher: (5,5), (1,5) and the eye (1,1)
     * (ids 24, 20, 0) above (3,3) (id 12) above the rest */
    sp = spec_of("grave:playouts=100,eps=0");
    s = searcher_new(t.g, 0, sp);
    e = searcher_engine(s, 0);
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t key = keys_get(e->keys, 0, cs[i]);
        mast_reserve(&e->mast, key + 1);
        mast_set(&e->mast, key, 10, cs[i] == 24 ? 9.5 : cs[i] == 20 ? 9 : cs[i] == 0 ? 8.5 : cs[i] == 12 ? 8 : 5);
    }
    for (int i = 0; i < 50; i++) {
        game_ctx_set_state(e->ctx, t.st);
        assert_int_equal(playout_game_step(e), 1);
        assert_string_equal(game_move_name(t.g, 0, e->joint[0], true), "(play 3 3)");
    }
    /* white, not to move: the noop, no decider */
    game_ctx_set_state(e->ctx, t.st);
    playout_game_step(e);
    assert_string_equal(game_move_name(t.g, 1, e->joint[1], true), "noop");
    searcher_free(s);
    search_spec_free(sp);
    tg_free(&t);
}

/* ---- NST: MAST's 2-grams (Tak, Winands and Björnsson 2012) ------------------ */

/* The table alone: a pair counts from NST_MIN_VISITS visits, pairs are
 * ordered, it grows keeping every pair, decays and clears, and stops
 * taking new pairs at its bound while the old ones still learn. */
static void test_nst_table(void **state)
{
    (void)state;
    nst_t t;
    nst_init(&t, NST_MAX);
    double q = -1;
    assert_false(nst_q(&t, 1, 2, &q));
    for (int i = 0; i < NST_MIN_VISITS - 1; i++) nst_add(&t, 1, 2, 1.0);
    assert_false(nst_q(&t, 1, 2, &q));
    nst_add(&t, 1, 2, 0.0);
    assert_true(nst_q(&t, 1, 2, &q));
    assert_float_equal(q, (NST_MIN_VISITS - 1.0) / NST_MIN_VISITS, 1e-12);
    assert_false(nst_q(&t, 2, 1, &q)); /* (2, 1) is another pair */
    /* Growth keeps every pair with its own mean. */
    for (uint32_t i = 0; i < 5000; i++)
        for (int v = 0; v < NST_MIN_VISITS; v++) nst_add(&t, 100 + i, i, (i % 3) / 2.0);
    assert_int_equal(t.used, 5001);
    for (uint32_t i = 0; i < 5000; i++) {
        assert_true(nst_q(&t, 100 + i, i, &q));
        assert_float_equal(q, (i % 3) / 2.0, 1e-12);
    }
    nst_decay(&t, 0.5); /* 7 visits become 3.5: below the threshold again */
    assert_false(nst_q(&t, 100, 0, &q));
    for (int v = 0; v < 4; v++) nst_add(&t, 100, 0, 1.0);
    assert_true(nst_q(&t, 100, 0, &q));
    assert_float_equal(q, 4.0 / 7.5, 1e-12);
    /* The bound: far more distinct pairs than it holds. */
    for (uint32_t i = 0; i < 2 * NST_MAX; i++) nst_add(&t, 1u << 20, i, 0.0);
    assert_int_equal(t.used, NST_MAX);
    for (int v = 0; v < NST_MIN_VISITS; v++) nst_add(&t, 1, 2, 1.0); /* an old pair still counts */
    assert_true(nst_q(&t, 1, 2, &q));
    /* halved by the decay, then 7 wins: (6/2 + 7) / (7/2 + 7) */
    assert_float_equal(q, ((NST_MIN_VISITS - 1) * 0.5 + NST_MIN_VISITS) / (NST_MIN_VISITS * 1.5), 1e-12);
    assert_true(t.cap <= 2 * NST_MAX);
    nst_clear(&t);
    assert_int_equal(t.used, 0);
    assert_int_equal(t.max, NST_MAX); /* a new match keeps the bound */
    assert_false(nst_q(&t, 1, 2, &q));
    nst_free(&t);
    /* A smaller bound (a small memory=) rounds down to a power of two and
     * holds the slots to twice it. */
    nst_init(&t, 1000);
    assert_int_equal(t.max, 512);
    for (uint32_t i = 0; i < 5000; i++) nst_add(&t, 7, i, 1.0);
    assert_int_equal(t.used, 512);
    assert_true(t.cap <= 1024);
    nst_free(&t);
    nst_init(&t, 0);
    assert_int_equal(t.max, 64); /* the least bound */
    for (uint32_t i = 0; i < 5000; i++) nst_add(&t, 7, i, 1.0);
    assert_int_equal(t.used, 64);
    assert_true(t.cap <= 128);
    nst_free(&t);
}

/* MAST alone prefers (pick l); a 2-gram after the previous step's key that
 * favours (pick a) and disfavours (pick l) turns the choice with nst=on,
 * and only with it. */
static void nst_choice(tgame_t *t, const char *spec_text, const char *want)
{
    search_spec_t *sp = spec_of(spec_text);
    searcher_t *s = searcher_new(t->g, 0, sp);
    engine_t *e = searcher_engine(s, 0);
    game_ctx_set_state(e->ctx, t->st);
    const move_id_t *ms;
    uint32_t n = game_legal(e->ctx, 0, &ms);
    uint32_t prev = keys_get(e->keys, 0, ms[0]);
    for (uint32_t i = 0; i < n; i++) {
        const char *name = game_move_name(t->g, 0, ms[i], true);
        uint32_t key = keys_get(e->keys, 0, ms[i]);
        mast_reserve(&e->mast, key + 1);
        mast_set(&e->mast, key, 10, !strcmp(name, "(pick l)") ? 8 : 3);
        double z = !strcmp(name, "(pick a)") ? 1 : 0;
        for (int v = 0; v < 10; v++) nst_add(&e->nst, prev, key, z);
    }
    /* One step recorded before this one, with the key prev (the engine
     * records a step's keys after choosing its moves). */
    XVEC_RESERVE(&e->step_start, &e->steps_cap, 1);
    XVEC_RESERVE(&e->skeys, &e->skeys_cap, 1);
    e->step_start[0] = 0;
    e->skeys[0] = prev;
    e->n_steps = e->n_skeys = 1;
    for (int i = 0; i < 20; i++) {
        game_ctx_set_state(e->ctx, t->st);
        assert_string_equal(game_move_name(t->g, 0, engine_playout_move(e, 0), true), want);
    }
    searcher_free(s);
    search_spec_free(sp);
}

static void test_nst_turns_the_choice(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, data_file("strat_pos.kif"))) fail_msg("cannot load strat_pos.kif");
    nst_choice(&t, "uct:playout=mast,eps=0", "(pick l)");
    nst_choice(&t, "uct:playout=mast,eps=0,nst=on", "(pick a)"); /* (0.3 + 1) / 2 > (0.8 + 0) / 2 */
    tg_free(&t);
}

/* A search with nst=on learns 2-grams (and one with nst=off none), and the
 * same seed gives the same move. */
static void test_nst_search(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, GGP_SOURCE_DIR "/games/tictactoe.kif")) fail_msg("cannot load tictactoe");
    const char *specs[] = {"grave:playouts=2000,nst=off,seed=5", "grave:playouts=2000,nst=on,seed=5",
                           "compete:playouts=2000,nst=on,threads=1,seed=5"};
    for (int k = 0; k < 3; k++) {
        move_id_t first = UINT32_MAX;
        for (int run = 0; run < 2; run++) {
            search_spec_t *sp = spec_of(specs[k]);
            searcher_t *s = searcher_new(t.g, 0, sp);
            move_id_t m = searcher_choose(s, t.st, deadline_none(), NULL, NULL);
            engine_t *e = searcher_engine(s, 0);
            if (k == 0) assert_int_equal(e->nst.used, 0);
            else assert_true(e->nst.used > 20);
            if (run == 0) first = m;
            else assert_int_equal(m, first);
            searcher_free(s);
            search_spec_free(sp);
        }
    }
    char err[256];
    assert_null(search_spec_parse("uct:nst=on,mast=off", err, sizeof err));
    assert_non_null(strstr(err, "mast=off"));
    tg_free(&t);
}

/* Pair statistics in real playouts (reply.kif): flat Monte Carlo leaves
 * b's reply to a's move to the playouts, where the right reply depends on
 * a's move. MAST alone rates (y 1) and (y 2) alike and mostly answers
 * wrong one of a's two moves; NST's 2-grams and LGR's last good replies
 * answer right, so a's best move is worth much less to a. With the step of
 * a playout's moves recorded before they were chosen, NST read an empty
 * step and played as MAST (0.795 here, as MAST alone). */
static double reply_value(tgame_t *t, const char *spec_text)
{
    search_spec_t *sp = spec_of(spec_text);
    searcher_t *s = searcher_new(t->g, 0, sp);
    search_report_t rep;
    searcher_choose(s, t->st, deadline_none(), NULL, &rep);
    engine_t *e = searcher_engine(s, 0);
    bool learnt = false; /* LGR's table: some reply of b's (role 1) stored */
    for (size_t i = 1; i < e->lgr_cap; i += 2) learnt = learnt || e->lgr[i] != 0;
    assert_true(learnt == (strstr(spec_text, "lgr=on") != NULL));
    searcher_free(s);
    search_spec_free(sp);
    return rep.value;
}

static void test_reply_pairs(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, data_file("reply.kif"))) fail_msg("cannot load reply.kif");
    double mast = reply_value(&t, "mc:playouts=4000,seed=3");
    double nst = reply_value(&t, "mc:playouts=4000,nst=on,seed=3");
    double lgr = reply_value(&t, "mc:playouts=4000,lgr=on,seed=3");
    printf("a's value: MAST %.3f, NST %.3f, LGR %.3f\n", mast, nst, lgr);
    assert_true(mast > 0.6);
    assert_true(nst < 0.45);
    assert_true(lgr < 0.1); /* a stored reply is played before MAST's epsilon */
    assert_true(reply_value(&t, "mc:playouts=4000,lgr=on,seed=3") == lgr); /* same seed, same search */
    search_spec_t *c = spec_of("compete"), *g = spec_of("grave");
    assert_true(c->lgr && !g->lgr); /* compete's default; the paper's rows as the paper */
    search_spec_free(c);
    search_spec_free(g);
    /* in a tree the table is learnt from every simulation too */
    assert_true(reply_value(&t, "compete:playouts=2000,threads=1,lgr=on,seed=3") < 0.1);
    tg_free(&t);
}

/* ---- the bandit (spec §14.1, §14.2) ----------------------------------------- */

/* UCB1 as [M] writes it, computed here independently: untried first, else
 * argmax Q + b sqrt(ln n / T). Returns the arm, or -1 if several tie. */
static int ucb1_reference(const double *T, const double *W, uint32_t n, double b)
{
    double total = 0;
    for (uint32_t i = 0; i < n; i++) total += T[i];
    int best = -1, ties = 0;
    double bv = -1;
    for (uint32_t i = 0; i < n; i++) {
        double v = T[i] == 0 ? 1e300 : W[i] / T[i] + b * sqrt(log(total) / T[i]);
        if (v > bv + 1e-12) {
            bv = v;
            best = (int)i;
            ties = 1;
        } else if (fabs(v - bv) <= 1e-12) {
            ties++;
        }
    }
    return ties == 1 ? best : -1;
}

static void test_bandit_follows_ucb1(void **state)
{
    (void)state;
    /* a stub: strategy i always scores reward[i] */
    const double reward[4] = {0.2, 0.9, 0.5, 0.6};
    const uint8_t set[4] = {0, 1, 2, 3};
    const double bs[] = {4, 0.5};
    for (size_t bi = 0; bi < 2; bi++) {
        double T[PS_N] = {0}, W[PS_N] = {0};
        rng_t rng;
        rng_seed(&rng, 3);
        for (int step = 0; step < 3000; step++) {
            uint32_t s = bandit_pick(T, W, set, 4, bs[bi], &rng);
            int want = ucb1_reference(T, W, 4, bs[bi]);
            if (want >= 0 && (uint32_t)want != s) fail_msg("b=%g step %d: picked %u, UCB1 says %d", bs[bi], step, s, want);
            if (step < 4) assert_true(T[s] == 0); /* untried ones first */
            T[s] += 1;
            W[s] += reward[s];
        }
        /* the best strategy is played most, and more so with less exploration */
        for (int i = 0; i < 4; i++)
            if (i != 1) assert_true(T[1] > T[i]);
        if (bi == 1) assert_true(T[1] > 2500);
    }
}

/* The bandits of a searcher: every playout counted once per role, every
 * strategy of the set tried, statistics kept between moves and decayed. */
static void test_switch_bookkeeping(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, st_shared_game("ticTacToe.kif"))) return;
    search_spec_t *sp = spec_of("uct:playouts=400,playout=switch,strategies=random,mobility,md,eval,decay=0.5");
    assert_int_equal(sp->n_strategies, 4);
    searcher_t *s = searcher_new(t.g, 0, sp);
    searcher_reseed(s, 11);
    search_report_t rep;
    searcher_choose(s, t.st, deadline_none(), NULL, &rep);
    engine_t *e = searcher_engine(s, 0);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < PS_N; i++) sum += rep.strategy[i];
    assert_int_equal(sum, e->st.playouts - 0); /* every playout chose one */
    assert_int_equal(rep.strategy[PS_MAST], 0);  /* not in the set */
    double T0[2 * PS_N];
    for (uint32_t i = 0; i < 2 * PS_N; i++) T0[i] = e->ps->T[i];
    for (uint32_t r = 0; r < 2; r++) {
        double tr = 0;
        for (uint32_t i = 0; i < PS_N; i++) tr += T0[r * PS_N + i];
        assert_float_equal(tr, (double)sum, 1e-9);
        assert_true(T0[r * PS_N + PS_RANDOM] > 0 && T0[r * PS_N + PS_EVAL] > 0);
    }
    engine_decay(e, 0.5); /* what the next search starts with */
    for (uint32_t i = 0; i < 2 * PS_N; i++) assert_float_equal(e->ps->T[i], T0[i] * 0.5, 1e-9);
    searcher_reset(s);
    for (uint32_t i = 0; i < 2 * PS_N; i++) assert_float_equal(e->ps->T[i], 0, 0);
    searcher_free(s);
    search_spec_free(sp);
    tg_free(&t);
}

/* ---- every MCTS row with every strategy; keys --------------------------------- */

static void every_row_every_strategy(const char *path, unsigned budget)
{
    tgame_t t;
    if (!tg_load(&t, path)) return;
    const char *playouts[] = {"random", "mobility", "md", "eval", "decisive", "antidecisive", "switch"};
    for (size_t vi = 0; vi < search_n_variants; vi++) {
        const variant_t *v = &search_variants[vi];
        if (v->sel == SEL_NONE || v->tree == TREE_TWO) continue;
        for (size_t p = 0; p < sizeof playouts / sizeof *playouts; p++) {
            char text[160];
            snprintf(text, sizeof text, "%s:playouts=%u,playout=%s%s", v->name, budget, playouts[p],
                     v->match ? ",memory=1" : "");
            search_spec_t *sp = spec_of(text);
            move_id_t m[2];
            for (int rep = 0; rep < 2; rep++) {
                searcher_t *s = searcher_new(t.g, 0, sp);
                searcher_reseed(s, 5);
                search_report_t r;
                m[rep] = searcher_choose(s, t.st, deadline_none(), NULL, &r);
                assert_int_equal(r.playouts, budget);
                searcher_free(s);
            }
            if (m[0] != m[1]) fail_msg("%s: same seed, different move", text);
            search_spec_free(sp);
        }
    }
    tg_free(&t);
}

static void test_every_row_every_strategy(void **state)
{
    (void)state;
    every_row_every_strategy(st_shared_game_if("connectFour.kif"), 40);
    /* a native game: the greedy strategies try every legal move of Go */
    every_row_every_strategy("go9", 10);
}

/* playout=auto (compete's default) plays decisive and anti-decisive moves
 * where random playouts miss wins in one, MAST where they do not (issue 12,
 * item 6). */
static uint64_t auto_count(const char *file, uint32_t strategy)
{
    tgame_t t;
    if (!tg_load(&t, data_file(file))) fail_msg("cannot load %s", file);
    search_spec_t *sp = spec_of("compete:playouts=200,memory=1,nested=off,solver=off");
    searcher_t *s = searcher_new(t.g, 0, sp);
    search_report_t r;
    searcher_choose(s, t.st, deadline_none(), NULL, &r);
    assert_int_equal(r.playouts, 200);
    searcher_free(s);
    search_spec_free(sp);
    tg_free(&t);
    return r.strategy[strategy];
}

static void test_auto_playouts(void **state)
{
    (void)state;
    /* strat_win: a random x misses the win w four times in five */
    assert_true(auto_count("strat_win.kif", PS_ANTIDECISIVE) > 0);
    assert_int_equal(auto_count("strat_win.kif", PS_MAST), 0);
    /* strat_pos: no win in one anywhere (only a loss, l) */
    assert_int_equal(auto_count("strat_pos.kif", PS_ANTIDECISIVE), 0);
    assert_true(auto_count("strat_pos.kif", PS_MAST) > 0);
}

/* The sample of playout=auto ends at the search's stop flag (or half of
 * its time) rather than taking up to 300 ms of a short search: cut so, that
 * search plays MAST and the next one samples and decides; cut samples add
 * up to 300 ms at most, then MAST is the choice. */
static void test_auto_sample_heeds_stop(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, data_file("strat_win.kif"))) fail_msg("cannot load strat_win.kif");
    search_spec_t *sp = spec_of("compete:playouts=200,memory=1,nested=off,solver=off");
    searcher_t *s = searcher_new(t.g, 0, sp);
    search_report_t r;
    atomic_bool stop = true;
    searcher_choose(s, t.st, deadline_none(), &stop, &r);
    assert_true(r.playouts >= 1 && r.playouts < 200);
    assert_int_equal(r.strategy[PS_ANTIDECISIVE], 0);
    assert_true(r.strategy[PS_MAST] > 0);
    engine_t *e = searcher_engine(s, 0);
    assert_int_equal(e->playout, PLAYOUT_AUTO);
    searcher_choose(s, t.st, deadline_none(), NULL, &r);
    assert_true(r.strategy[PS_ANTIDECISIVE] > 0);
    searcher_free(s);
    /* Cut searches share one 300 ms: once it is spent (as if by many cut
     * samples), the next search decides MAST even when it is cut too. */
    s = searcher_new(t.g, 0, sp);
    e = searcher_engine(s, 0);
    e->ps->decide_ns = 300 * 1000000ull;
    searcher_choose(s, t.st, deadline_none(), &stop, &r);
    assert_int_equal(e->playout, PS_MAST);
    searcher_free(s);
    search_spec_free(sp);
    tg_free(&t);
}

static void test_keys(void **state)
{
    (void)state;
    char err[512];
    search_spec_t *s = search_spec_parse("grave:playout=switch,strategies=mast,eval,b=2,seed=3", err, sizeof err);
    if (!s) fail_msg("%s", err);
    assert_int_equal(s->playout, PLAYOUT_SWITCH);
    assert_int_equal(s->n_strategies, 2);
    assert_int_equal(s->strategies[1], PS_EVAL);
    assert_float_equal(s->ss_b, 2, 0);
    assert_int_equal(s->seed, 3);
    search_spec_free(s);
    s = search_spec_parse("uct:mast=off", err, sizeof err);
    assert_int_equal(s->playout, PS_RANDOM); /* the default follows mast= */
    search_spec_free(s);
    assert_null(search_spec_parse("uct:playout=fast", err, sizeof err));
    assert_non_null(strstr(err, "random, mast, mobility, md, eval, decisive, antidecisive, switch, or auto for compete"));
    assert_null(search_spec_parse("uct:playout=auto", err, sizeof err)); /* compete's only */
    s = search_spec_parse("compete", err, sizeof err);
    assert_int_equal(s->playout, PLAYOUT_AUTO);
    assert_true(s->nst && s->lgr); /* compete's N-grams and last good replies */
    search_spec_free(s);
    s = search_spec_parse("grave", err, sizeof err);
    assert_true(!s->nst && !s->lgr); /* the paper's rows: neither */
    search_spec_free(s);
    s = search_spec_parse("compete:mast=off", err, sizeof err);
    assert_int_equal(s->playout, PS_RANDOM);
    assert_false(s->nst); /* the default follows mast= */
    search_spec_free(s);
    assert_null(search_spec_parse("compete:mast=off,nst=on", err, sizeof err));
    assert_non_null(strstr(err, "mast=off"));
    assert_null(search_spec_parse("uct:playout=switch,strategies=mast,bogus", err, sizeof err));
    assert_non_null(strstr(err, "strategies"));
    assert_null(search_spec_parse("uct:playout=mast,mast=off", err, sizeof err));
    assert_non_null(strstr(err, "mast=off"));
    assert_null(search_spec_parse("uct:strategies=mast,eval", err, sizeof err));
    assert_non_null(strstr(err, "playout=switch"));
    assert_null(search_spec_parse("ab:playout=eval", err, sizeof err));
    assert_non_null(strstr(err, "inapplicable"));
    s = search_spec_parse("rave", err, sizeof err);
    assert_float_equal(s->rave_k, 1000, 0);
    assert_float_equal(s->ref, 0, 0);
    search_spec_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_greedy_strategies_pick_their_best),
        cmocka_unit_test(test_terminal_shortcut),
        cmocka_unit_test(test_antidecisive_blocks),
        cmocka_unit_test(test_antidecisive_blocks_simultaneous),
        cmocka_unit_test(test_random_and_mast_rows),
        cmocka_unit_test(test_mast_from_candidates),
        cmocka_unit_test(test_nst_table),
        cmocka_unit_test(test_nst_turns_the_choice),
        cmocka_unit_test(test_nst_search),
        cmocka_unit_test(test_reply_pairs),
        cmocka_unit_test(test_bandit_follows_ucb1),
        cmocka_unit_test(test_switch_bookkeeping),
        cmocka_unit_test(test_every_row_every_strategy),
        cmocka_unit_test(test_auto_playouts),
        cmocka_unit_test(test_auto_sample_heeds_stop),
        cmocka_unit_test(test_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
