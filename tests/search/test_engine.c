/* test_engine.c - the searchers on real games (grave-spec §15): every row of
 * the variants table on turn-taking, simultaneous, multi-player and puzzle
 * games; exact budgets; identity of the recycling variants with their
 * unbounded counterparts when N >= P; forced wins in hand-made positions;
 * tree statistics; the reference-node extremes; MAST decay; time budgets. */
#include "testutil.h"

#include <math.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "player/cli/common.h"
#include "search/search_internal.h"
#include "st_util.h"

/* ---- helpers -------------------------------------------------------------- */

#define shared_game st_shared_game

/* Load a game of the shared corpus; false (the test skips) if it is absent. */
static bool tg_shared(tgame_t *t, const char *name)
{
    const char *path = shared_game(name);
    return path && tg_load(t, path);
}

static search_spec_t *spec_of(const char *text)
{
    char err[512];
    search_spec_t *s = search_spec_parse(text, err, sizeof err);
    if (!s) fail_msg("%s: %s", text, err);
    return s;
}

/* A budget of about p playouts for every row of the table, small enough
 * that the recycling rows do recycle, with the LRU checks on. */
static void small_spec(const variant_t *v, uint32_t p, char *buf, size_t len)
{
    uint32_t s = (uint32_t)lround(sqrt((double)p));
    if (v->sel == SEL_NONE) snprintf(buf, len, "%s", v->name);
    else if (v->match) snprintf(buf, len, "%s:playouts=%u,memory=1,check=on", v->name, p); /* ~15k nodes */
    else if (v->tree == TREE_SINGLE && !v->recycle) snprintf(buf, len, "%s:playouts=%u", v->name, p);
    else if (v->tree == TREE_SINGLE) snprintf(buf, len, "%s:playouts=%u,nodes=%u,check=on", v->name, p, p / 5 + 2);
    else if (!v->recycle) snprintf(buf, len, "%s:nodes=%u,check=on", v->name, 2 * s);
    else snprintf(buf, len, "%s:nodes=%u,ptop=%u,psec=%u,check=on", v->name, s, s, s / 2 + 2);
}

static uint64_t expected_playouts(const search_spec_t *s)
{
    budget_t b;
    spec_budget(s, &b);
    if (s->v->sel == SEL_NONE) return 0;
    return s->v->tree == TREE_TWO ? b.p_top * b.p_sec : b.p;
}

static uint64_t node_bound(const search_spec_t *s)
{
    budget_t b;
    spec_budget(s, &b);
    if (s->v->tree == TREE_TWO) return b.n_top + b.n_sec - 1;
    return s->v->recycle ? b.n : b.p; /* single level: at most P nodes (spec §15.2) */
}

static bool is_legal(tgame_t *t, uint32_t role, move_id_t m)
{
    const move_id_t *ms;
    uint32_t n = game_legal(t->ctx, role, &ms);
    for (uint32_t i = 0; i < n; i++)
        if (ms[i] == m) return true;
    return false;
}

static move_id_t find_move(tgame_t *t, uint32_t role, const char *text)
{
    move_id_t m;
    if (!game_move_from_text(t->ctx, role, text, strlen(text), &m)) fail_msg("%s is not legal", text);
    return m;
}

/* One search from the game's current state. */
static move_id_t choose(tgame_t *t, const char *spec_text, uint32_t role, uint64_t seed, search_report_t *rep,
                        engine_stats_t *st)
{
    search_spec_t *sp = spec_of(spec_text);
    searcher_t *s = searcher_new(t->g, role, sp);
    searcher_reseed(s, seed);
    move_id_t m = searcher_choose(s, game_ctx_state(t->ctx), deadline_none(), NULL, rep);
    if (st) *st = searcher_engine(s, 0)->st;
    searcher_free(s);
    search_spec_free(sp);
    return m;
}

/* ---- simulation lengths ------------------------------------------------------ */

/* The report's steps: every simulation of data/race.kif lasts 2 steps (x
 * goes quick) or 6 (slow), so the sum is 2q + 6(P - q) with both kinds
 * among P; all but the first start with a tree step (the first evaluates
 * the fresh root in place). P odd: a count off by one a simulation shows. */
static void test_simulation_lengths(void **state)
{
    (void)state;
    tgame_t t;
    tg_load(&t, data_file("race.kif"));
    const char *specs[] = {"grave:playouts=301", "uct:playouts=301", "compete:playouts=301,threads=1,solver=off"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        search_report_t rep;
        choose(&t, specs[i], 0, 5, &rep, NULL);
        uint64_t p = rep.playouts, slow4 = 6 * p - rep.steps; /* 4q */
        if (p == 0 || rep.steps < 2 * p || rep.steps > 6 * p || slow4 % 4 || slow4 / 4 == 0 || slow4 / 4 == p)
            fail_msg("%s: %llu steps in %llu simulations", specs[i], (unsigned long long)rep.steps,
                     (unsigned long long)p);
        assert_true(rep.tree_steps <= rep.steps);
        assert_true(rep.tree_steps >= p - 1);
    }
    tg_free(&t);
}

/* ---- every variant on every kind of game ----------------------------------- */

/* extra: keys appended to the spec of every row with a tree ("" none). */
static void check_game_all_variants_extra(const char *path, uint32_t steps, uint32_t playouts, const char *extra)
{
    tgame_t t;
    if (!path || !tg_load(&t, path)) return;
    uint32_t k = game_num_roles(t.g);
    for (size_t vi = 0; vi < search_n_variants; vi++) {
        char text[256];
        small_spec(&search_variants[vi], playouts, text, sizeof text);
        if (search_variants[vi].sel != SEL_NONE) strncat(text, extra, sizeof text - strlen(text) - 1);
        search_spec_t *sp = spec_of(text);
        /* two independent sets of searchers with the same seeds must agree */
        searcher_t *s1[8], *s2[8];
        for (uint32_t r = 0; r < k; r++) {
            s1[r] = searcher_new(t.g, r, sp);
            s2[r] = searcher_new(t.g, r, sp);
            searcher_reseed(s1[r], 100 + r);
            searcher_reseed(s2[r], 100 + r);
        }
        game_ctx_set_state(t.ctx, t.st);
        move_id_t joint[8];
        for (uint32_t step = 0; step < steps && !game_is_terminal(t.ctx); step++) {
            game_state_t *now = game_state_new(t.g);
            game_state_copy(t.g, now, game_ctx_state(t.ctx));
            for (uint32_t r = 0; r < k; r++) {
                search_report_t rep, rep2;
                joint[r] = searcher_choose(s1[r], now, deadline_none(), NULL, &rep);
                move_id_t again = searcher_choose(s2[r], now, deadline_none(), NULL, &rep2);
                if (!is_legal(&t, r, joint[r])) fail_msg("%s %s: illegal move", path, text);
                if (again != joint[r]) fail_msg("%s %s: same seed, different move", path, text);
                assert_int_equal(rep.playouts, rep2.playouts);
                const move_id_t *ms;
                if (game_legal(t.ctx, r, &ms) >= 2 && sp->v->sel != SEL_NONE) {
                    /* a match tree stops once its root is proven (solver) */
                    if (rep.playouts != expected_playouts(sp) && !(sp->v->match && rep.solved))
                        fail_msg("%s %s: %llu playouts, expected %llu", path, text, (unsigned long long)rep.playouts,
                                 (unsigned long long)expected_playouts(sp));
                    uint64_t bound = sp->v->match ? searcher_engine(s1[r], 0)->pool->reg[0].cap : node_bound(sp);
                    if (rep.nodes_peak > bound || rep.nodes_peak == 0)
                        fail_msg("%s %s: %llu resident nodes, bound %llu", path, text,
                                 (unsigned long long)rep.nodes_peak, (unsigned long long)bound);
                    engine_t *e = searcher_engine(s1[r], 0);
                    if (e->st.check_fail) fail_msg("%s %s: %s", path, text, e->st.check_msg);
                    assert_true(rep.bytes_per_node >= sizeof(node_t));
                    assert_true(rep.bytes_peak >= rep.nodes_peak * sizeof(node_t));
                    assert_true(rep.value >= 0 && rep.value <= 1);
                }
                game_ctx_set_state(t.ctx, now);
            }
            game_ctx_play(t.ctx, joint);
            game_state_free(now);
        }
        for (uint32_t r = 0; r < k; r++) {
            searcher_free(s1[r]);
            searcher_free(s2[r]);
        }
        search_spec_free(sp);
    }
    tg_free(&t);
}

static void check_game_all_variants(const char *path, uint32_t steps, uint32_t playouts)
{
    check_game_all_variants_extra(path, steps, playouts, "");
}

static void test_variants_turn_taking(void **state)
{
    (void)state;
    check_game_all_variants(shared_game("ticTacToe.kif"), 3, 150);
    check_game_all_variants(shared_game("connectFour.kif"), 2, 60);
    check_game_all_variants(shared_game("breakthrough.kif"), 1, 30);
}

/* A native game (games/go): the search cannot tell it from a GDL one. Its
 * playouts follow the game's own policy: MAST over game_playout_legal by
 * default, uniform draws by game_playout_move with mast=off. */
static void test_variants_go9(void **state)
{
    (void)state;
    check_game_all_variants("go9", 2, 60);
    check_game_all_variants_extra("go9", 2, 60, ",mast=off");
}

static void test_variants_simultaneous_multi_puzzle(void **state)
{
    (void)state;
    check_game_all_variants(data_file("sim_bid.kif"), 2, 100);
    check_game_all_variants(shared_game("gt_prisoner.kif"), 1, 30);
    check_game_all_variants(shared_game("roshambo2.kif"), 2, 60);
    check_game_all_variants(shared_game("tictactoe_3player.kif"), 1, 40);
    check_game_all_variants(shared_game("buttons.kif"), 3, 60);
    check_game_all_variants(shared_game("eightPuzzle.kif"), 1, 30);
}

/* ---- budgets: GRAVE^2 / UCT^2 run exactly (lambda - lambda^2) N^2 --------- */

static void test_two_level_exact_budget(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_shared(&t, "ticTacToe.kif")) return;
    static const struct { unsigned n; double lambda; } cfg[] = {{20, 0.5}, {30, 0.4}, {24, 0.25}, {41, 0.5}};
    for (size_t vi = 0; vi < search_n_variants; vi++) {
        const variant_t *v = &search_variants[vi];
        if (v->tree != TREE_TWO || v->recycle) continue;
        for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
            char text[128];
            snprintf(text, sizeof text, "%s:nodes=%u,lambda=%g,check=on", v->name, cfg[i].n, cfg[i].lambda);
            search_report_t rep;
            engine_stats_t st;
            choose(&t, text, 0, 5, &rep, &st);
            unsigned ns = (unsigned)lround(cfg[i].lambda * cfg[i].n), nt = cfg[i].n - ns;
            assert_int_equal(rep.playouts, (uint64_t)nt * ns);
            assert_true(rep.nodes_peak <= cfg[i].n - 1);
            assert_int_equal(st.check_fail, 0);
        }
    }
    /* GRAVER^2 with recycling in both levels: P = P_top x P_sec, peak <= N - 1 */
    search_report_t rep;
    engine_stats_t st;
    choose(&t, "graver2:nodes=12,ptop=50,psec=30,check=on", 0, 5, &rep, &st);
    assert_int_equal(rep.playouts, 1500);
    assert_true(rep.nodes_peak <= 11);
    assert_true(rep.recycled > 0);
    assert_int_equal(st.check_fail, 0);
    tg_free(&t);
}

/* ---- identity: recycling with N >= P changes nothing (spec §15.1) --------- */

static void root_visits(searcher_t *s, uint32_t *out, size_t n)
{
    engine_t *e = searcher_engine(s, 0);
    memset(out, 0, n * sizeof *out);
    for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling)
        if (e->pool->nodes[c].edge < n) out[e->pool->nodes[c].edge] = e->pool->nodes[c].visits;
}

static void identity_on(const char *path, uint64_t seeds, uint32_t p)
{
    tgame_t t;
    if (!path || !tg_load(&t, path)) return;
    for (size_t vi = 0; vi < search_n_variants; vi++) {
        const variant_t *rv = &search_variants[vi];
        if (!rv->recycle || rv->match) continue; /* compete: test_compete.c */
        const variant_t *base = NULL; /* the same row without recycling */
        for (size_t j = 0; j < search_n_variants; j++)
            if (search_variants[j].sel == rv->sel && search_variants[j].tree == rv->tree && !search_variants[j].recycle)
                base = &search_variants[j];
        assert_non_null(base);
        char a[128], b[128];
        if (rv->tree == TREE_SINGLE) {
            snprintf(a, sizeof a, "%s:playouts=%u", base->name, p);
            snprintf(b, sizeof b, "%s:playouts=%u,nodes=%u,check=on", rv->name, p, p);
        } else { /* P_top = N_top and P_sec = N_sec: no recycling */
            uint32_t h = (uint32_t)lround(sqrt((double)p));
            snprintf(a, sizeof a, "%s:nodes=%u", base->name, 2 * h);
            snprintf(b, sizeof b, "%s:nodes=%u,ptop=%u,psec=%u,check=on", rv->name, 2 * h, h, h);
        }
        for (uint64_t seed = 1; seed <= seeds; seed++) {
            search_spec_t *sa = spec_of(a), *sb = spec_of(b);
            searcher_t *x = searcher_new(t.g, 0, sa), *y = searcher_new(t.g, 0, sb);
            searcher_reseed(x, seed);
            searcher_reseed(y, seed);
            /* two moves, so that MAST carries over too */
            for (int move = 0; move < 2; move++) {
                search_report_t ra, rb;
                move_id_t ma = searcher_choose(x, t.st, deadline_none(), NULL, &ra);
                move_id_t mb = searcher_choose(y, t.st, deadline_none(), NULL, &rb);
                if (ma != mb) fail_msg("%s: %s and %s chose differently (seed %llu)", path, a, b, (unsigned long long)seed);
                assert_int_equal(ra.playouts, rb.playouts);
                assert_int_equal(rb.recycled, 0);
                uint32_t va[512], vb[512];
                root_visits(x, va, 512);
                root_visits(y, vb, 512);
                assert_memory_equal(va, vb, sizeof va);
            }
            searcher_free(x);
            searcher_free(y);
            search_spec_free(sa);
            search_spec_free(sb);
        }
    }
    tg_free(&t);
}

static void test_recycling_identity(void **state)
{
    (void)state;
    identity_on(shared_game("ticTacToe.kif"), 2, 300);
    identity_on(shared_game("connectFour.kif"), 1, 120);
    identity_on(data_file("sim_bid.kif"), 2, 300);
}

/* ---- forced wins ------------------------------------------------------------ */

/* About p playouts; the recycling rows keep about a fifth of p nodes. */
static void budget_spec(const variant_t *v, uint32_t p, char *buf, size_t len)
{
    uint32_t s = (uint32_t)lround(sqrt((double)p));
    if (v->match) snprintf(buf, len, "%s:playouts=%u,check=on", v->name, p);
    else if (v->tree == TREE_SINGLE && !v->recycle) snprintf(buf, len, "%s:playouts=%u", v->name, p);
    else if (v->tree == TREE_SINGLE) snprintf(buf, len, "%s:playouts=%u,nodes=%u,check=on", v->name, p, p / 5);
    else if (!v->recycle) snprintf(buf, len, "%s:nodes=%u,check=on", v->name, 2 * s);
    else snprintf(buf, len, "%s:nodes=%u,ptop=%u,psec=%u,check=on", v->name, 4 * s / 3, 4 * s / 3, 3 * s / 4);
}

static void forced(const char *file, uint32_t role, const char *winning, bool deep, uint32_t playouts)
{
    tgame_t t;
    if (!tg_load(&t, data_file(file))) fail_msg("cannot load %s", file);
    move_id_t want = find_move(&t, role, winning);
    for (size_t vi = 0; vi < search_n_variants; vi++) {
        const variant_t *v = &search_variants[vi];
        if (v->sel == SEL_NONE || (deep && v->sel == SEL_FLAT)) continue;
        char text[128];
        budget_spec(v, playouts, text, sizeof text);
        for (uint64_t seed = 1; seed <= 2; seed++) {
            search_report_t rep;
            move_id_t m = choose(&t, text, role, seed, &rep, NULL);
            if (m != want)
                fail_msg("%s: %s (seed %llu) played %s, not %s", file, text, (unsigned long long)seed,
                         game_move_name(t.g, role, m, true), winning);
        }
    }
    tg_free(&t);
}

static void test_forced_wins(void **state)
{
    (void)state;
    forced("ttt_win1.kif", 0, "(mark 1 3)", false, 400);
    forced("ttt_owin.kif", 1, "(mark 2 3)", false, 400);
    forced("ttt_fork.kif", 0, "(mark 2 2)", true, 1500);
    forced("sim_bid.kif", 0, "(bid 3)", false, 400);
    forced("sim_bid.kif", 1, "(bid 3)", false, 400);
}

static void test_deep_forced_win(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_load(&t, data_file("ttt_deep.kif"))) fail_msg("cannot load ttt_deep.kif");
    move_id_t want = find_move(&t, 0, "(mark 1 3)");
    const char *specs[] = {"grave:playouts=10000", "uct:playouts=10000", "grave:playouts=3000,c=0.2"};
    for (size_t i = 0; i < 3; i++) {
        search_report_t rep;
        move_id_t m = choose(&t, specs[i], 0, 1, &rep, NULL);
        if (m != want) fail_msg("%s played %s", specs[i], game_move_name(t.g, 0, m, true));
    }
    tg_free(&t);
    /* After x takes the centre, o must take a corner. Pure-exploitation
     * GRAVE (c = 0, the paper's rule) can lock onto a drawn-looking line and
     * miss this; with a little exploration it does not. */
    if (!tg_load(&t, data_file("ttt_center.kif"))) fail_msg("cannot load ttt_center.kif");
    const char *corner_specs[] = {"uct:playouts=3000", "grave:playouts=3000,c=0.2"};
    for (size_t i = 0; i < 2; i++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            search_report_t rep;
            move_id_t m = choose(&t, corner_specs[i], 1, seed, &rep, NULL);
            const char *name = game_move_name(t.g, 1, m, true);
            if (strcmp(name, "(mark 1 1)") && strcmp(name, "(mark 1 3)") && strcmp(name, "(mark 3 1)") &&
                strcmp(name, "(mark 3 3)"))
                fail_msg("%s (seed %llu) played %s", corner_specs[i], (unsigned long long)seed, name);
        }
    tg_free(&t);
}

/* ---- statistics (spec §15.4) ------------------------------------------------- */

typedef struct walk {
    tgame_t *t;
    engine_t *e;
    uint64_t p_sec; /* 1 for single level */
    bool recycled;  /* with recycling the visit relation becomes >= */
    uint32_t anc[256];
    uint32_t depth;
    uint64_t nodes;
} walk_t;

static void walk_node(walk_t *w, uint32_t n, const game_state_t *st)
{
    engine_t *e = w->e;
    pool_t *p = e->pool;
    w->nodes++;
    game_ctx_set_state(w->t->ctx, st);
    bool terminal = game_is_terminal(w->t->ctx);
    uint64_t sum = 0;
    for (uint32_t c = p->nodes[n].first_child; c != NIL; c = p->nodes[c].next_sibling) sum += p->nodes[c].visits;
    if (!terminal && (w->recycled ? p->nodes[n].visits < w->p_sec + sum : p->nodes[n].visits != w->p_sec + sum))
        fail_msg("V(n) = %u but P_sec + sum V(children) = %llu", p->nodes[n].visits, (unsigned long long)(w->p_sec + sum));
    /* every AMAF count is at most V(node) (first-occurrence rule) */
    if (p->amaf_on)
        for (uint32_t key = 0; key < e->keys->n; key++) {
            uint32_t cnt;
            float aw;
            amaf_get(p, n, key, &cnt, &aw);
            assert_true(cnt <= p->nodes[n].visits);
            assert_true(aw <= cnt + 1e-3);
        }
    if (terminal) return;
    /* the decider at n (turn-taking), and its AMAF bound at every ancestor */
    const move_id_t *ms;
    int decider = -1, deciders = 0;
    for (uint32_t r = 0; r < game_num_roles(w->t->g); r++)
        if (game_legal(w->t->ctx, r, &ms) >= 2) {
            decider = (int)r;
            deciders++;
        }
    w->anc[w->depth++] = n;
    game_state_t *next = game_state_new(w->t->g);
    move_id_t joint[8];
    for (uint32_t c = p->nodes[n].first_child; c != NIL; c = p->nodes[c].next_sibling) {
        game_ctx_set_state(w->t->ctx, st);
        uint32_t edge = p->nodes[c].edge;
        for (uint32_t r = 0; r < game_num_roles(w->t->g); r++) {
            game_legal(w->t->ctx, r, &ms);
            joint[r] = (int)r == decider ? edge : ms[0];
        }
        assert_true(deciders <= 1); /* ticTacToe: turn-taking (0: the last cell is forced) */
        if (p->amaf_on && deciders == 1) {
            uint32_t key = keys_get(e->keys, (uint32_t)decider, edge);
            for (uint32_t i = 0; i < w->depth; i++) {
                uint32_t cnt;
                float aw;
                amaf_get(p, w->anc[i], key, &cnt, &aw);
                if (cnt < p->nodes[c].visits) fail_msg("AMAF count %u at an ancestor < V(child) %u", cnt, p->nodes[c].visits);
                /* Every simulation through c also added z[decider] to this
                 * ancestor's entry for (decider, edge), once; the others
                 * added at most 1 each (spec §4.5: the entry holds the
                 * reward of the role that played the move). An entry
                 * valued with another role's reward breaks this. */
                double extra = (double)aw - pool_w(p, c)[decider];
                if (extra < -1e-3 || extra > (double)(cnt - p->nodes[c].visits) + 1e-3)
                    fail_msg("AMAF sum %.2f at an ancestor for (%d, %u): W(child) %.2f, counts %u vs %u", aw, decider,
                             edge, pool_w(p, c)[decider], cnt, p->nodes[c].visits);
            }
        }
        game_next(w->t->ctx, joint, next);
        walk_node(w, c, next);
    }
    game_state_free(next);
    w->depth--;
}

static void test_tree_statistics(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_shared(&t, "ticTacToe.kif")) return;
    const char *specs[] = {"grave:playouts=800",      "uct:playouts=800",
                           "grave:playouts=800,ref=0", "grave:playouts=800,amaf=sparse",
                           "grave2:nodes=40",          "uct2:nodes=40",
                           "graver:playouts=800,nodes=60", "uctr:playouts=800,nodes=60",
                           "graver2:nodes=30,ptop=40,psec=20"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        search_spec_t *sp = spec_of(specs[i]);
        searcher_t *s = searcher_new(t.g, 0, sp);
        search_report_t rep;
        searcher_choose(s, t.st, deadline_none(), NULL, &rep);
        budget_t b;
        spec_budget(sp, &b);
        walk_t w = {.t = &t, .e = searcher_engine(s, 0), .p_sec = sp->v->tree == TREE_TWO ? b.p_sec : 1,
                    .recycled = sp->v->recycle};
        walk_node(&w, w.e->root, t.st);
        if (sp->v->recycle) assert_true(rep.recycled > 0);
        assert_int_equal(w.e->pool->nodes[w.e->root].visits, rep.playouts);
        assert_int_equal(w.nodes, pool_resident(w.e->pool));
        searcher_free(s);
        search_spec_free(sp);
    }
    tg_free(&t);
}

/* ---- first-play urgency and random ties (spec §4.1) ------------------------ */

/* One search of grave:playouts=P from the initial state with this seed. */
static searcher_t *grave_run(tgame_t *t, search_spec_t *sp, uint64_t seed)
{
    searcher_t *s = searcher_new(t->g, 0, sp);
    searcher_reseed(s, seed);
    search_report_t rep;
    searcher_choose(s, t->st, deadline_none(), NULL, &rep);
    return s;
}

/* Iteration 1 evaluates the root by a playout; iteration 2 must expand a
 * root move that playout did not contain (v = 0 and p = 0: +inf), chosen at
 * random among those, not the first in legal order. With playouts=1 and
 * playouts=2 under one seed, the first iteration is the same. */
static void test_first_play_urgency(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_shared(&t, "ticTacToe.kif")) return;
    const move_id_t *ms;
    uint32_t n = game_legal(t.ctx, 0, &ms);
    assert_int_equal(n, 9);
    move_id_t moves[9];
    memcpy(moves, ms, sizeof moves);
    search_spec_t *one = spec_of("grave:playouts=1"), *two = spec_of("grave:playouts=2");
    int not_first = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        searcher_t *a = grave_run(&t, one, seed), *b = grave_run(&t, two, seed);
        engine_t *ea = searcher_engine(a, 0), *eb = searcher_engine(b, 0);
        bool seen[9];
        int first_unseen = -1, picked = -1;
        for (int i = 0; i < 9; i++) {
            uint32_t cnt;
            float w;
            amaf_get(ea->pool, ea->root, keys_get(ea->keys, 0, moves[i]), &cnt, &w);
            seen[i] = cnt > 0;
            if (!seen[i] && first_unseen < 0) first_unseen = i;
        }
        assert_true(first_unseen >= 0); /* x marks at most 5 of the 9 cells */
        uint32_t c = eb->pool->nodes[eb->root].first_child;
        assert_true(c != NIL);
        assert_true(eb->pool->nodes[c].next_sibling == NIL);
        for (int i = 0; i < 9; i++)
            if (moves[i] == eb->pool->nodes[c].edge) picked = i;
        assert_true(picked >= 0);
        if (seen[picked]) fail_msg("seed %llu: iteration 2 expanded a move with AMAF evidence", (unsigned long long)seed);
        not_first += picked != first_unseen;
        searcher_free(a);
        searcher_free(b);
    }
    assert_true(not_first > 0);
    search_spec_free(one);
    search_spec_free(two);
    tg_free(&t);
}

/* ---- reference node extremes (spec §15.1) ------------------------------------ */

static void test_ref_extremes(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_shared(&t, "ticTacToe.kif")) return;
    for (size_t vi = 0; vi < search_n_variants; vi++) {
        const variant_t *v = &search_variants[vi];
        if (v->sel != SEL_GRAVE) continue;
        char base[128], text[160];
        small_spec(v, 300, base, sizeof base);
        engine_stats_t st;
        search_report_t rep;
        snprintf(text, sizeof text, "%s,ref=0", base); /* RAVE: every node its own table */
        choose(&t, text, 0, 3, &rep, &st);
        assert_true(st.selections > 0);
        assert_int_equal(st.ref_self, st.selections);
        snprintf(text, sizeof text, "%s,ref=inf", base); /* HRAVE: always the root's table */
        choose(&t, text, 0, 3, &rep, &st);
        assert_int_equal(st.ref_root, st.selections);
        assert_true(st.ref_self < st.selections);
    }
    tg_free(&t);
}

/* ---- forward sharing ablation (spec §15.5) ----------------------------------- */

/* At the second second-level search (top path R, L): optionally scramble
 * the AMAF tables of the top path above L, then fingerprint what the
 * second-level search did (L's statistics and its second-level children)
 * and stop the search. */
typedef struct ablation {
    bool scramble;
    int calls;
    uint64_t fingerprint;
    atomic_bool stop;
    rng_t rng;
} ablation_t;

static uint64_t fnv(uint64_t h, uint64_t x) { return (h ^ x) * 0x100000001b3ULL; }

static void ablation_hook(engine_t *e, bool before, void *arg)
{
    ablation_t *ab = arg;
    pool_t *p = e->pool;
    if (before && ++ab->calls == 2 && ab->scramble) {
        for (size_t i = 0; i + 1 < e->path_len; i++) {
            uint32_t h = p->nodes[e->path[i]].amaf;
            if (h == NIL) continue;
            for (uint32_t j = 1; j <= (8u << p->sp.e[h].key); j++) {
                sp_entry_t *en = &p->sp.e[h + j];
                if (en->key == UINT32_MAX) continue;
                en->w = (float)rng_below(&ab->rng, en->p + 1); /* same count, another mean */
            }
        }
    }
    if (!before && ab->calls == 2) {
        uint32_t L = e->path[e->path_len - 1];
        uint64_t h = fnv(0xcbf29ce484222325ULL, p->nodes[L].visits);
        for (uint32_t c = p->nodes[L].first_child; c != NIL; c = p->nodes[c].next_sibling) {
            float w0 = pool_w(p, c)[0];
            uint32_t bits;
            memcpy(&bits, &w0, sizeof bits);
            h = fnv(fnv(fnv(h, p->nodes[c].edge), p->nodes[c].visits), bits);
        }
        ab->fingerprint = h;
        atomic_store(&ab->stop, true);
    }
}

static uint64_t ablation_run(tgame_t *t, const char *spec_text, uint64_t seed, bool scramble)
{
    search_spec_t *sp = spec_of(spec_text);
    searcher_t *s = searcher_new(t->g, 0, sp);
    searcher_reseed(s, seed);
    ablation_t ab = {.scramble = scramble};
    rng_seed(&ab.rng, seed);
    atomic_init(&ab.stop, false);
    engine_t *e = searcher_engine(s, 0);
    e->sl_hook = ablation_hook;
    e->sl_arg = &ab;
    search_report_t rep;
    searcher_choose(s, t->st, deadline_none(), &ab.stop, &rep);
    assert_int_equal(ab.calls, 2);
    searcher_free(s);
    search_spec_free(sp);
    return ab.fingerprint;
}

static void test_forward_sharing_ablation(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_shared(&t, "connectFour.kif")) return;
    const char *off = "grave2:nodes=80,share=off,amaf=sparse,ref=10";
    const char *on = "grave2:nodes=80,share=on,amaf=sparse,ref=10";
    int changed = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        /* without sharing, the top path's tables are never read below L */
        assert_true(ablation_run(&t, off, seed, false) == ablation_run(&t, off, seed, true));
        /* with sharing they are (so the check above can fail) */
        changed += ablation_run(&t, on, seed, false) != ablation_run(&t, on, seed, true);
    }
    assert_true(changed > 0);
    tg_free(&t);
}

/* ---- MAST (spec §15.6) -------------------------------------------------------- */

static double mast_sum_n(const mast_t *m)
{
    double s = 0;
    for (uint32_t i = 0; i < m->cap; i++) s += m->n[i];
    return s;
}

static void test_mast_decay_and_reset(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_shared(&t, "connectFour.kif")) return;
    for (size_t vi = 0; vi < search_n_variants; vi++) {
        const variant_t *v = &search_variants[vi];
        if (v->sel == SEL_NONE) continue;
        char text[256];
        small_spec(v, 100, text, sizeof text);
        search_spec_t *sp = spec_of(text);
        searcher_t *s = searcher_new(t.g, 0, sp);
        engine_t *e = searcher_engine(s, 0);
        assert_true(mast_sum_n(&e->mast) == 0); /* empty at game start */
        search_report_t rep;
        searcher_choose(s, t.st, deadline_none(), NULL, &rep);
        double before = mast_sum_n(&e->mast);
        assert_true(before > 0);
        double *old_w = xmalloc(e->mast.cap * sizeof *old_w);
        memcpy(old_w, e->mast.w, e->mast.cap * sizeof *old_w);
        uint32_t old_cap = e->mast.cap;
        /* a search stopped at once runs one simulation after the decay */
        atomic_bool stop = true;
        searcher_choose(s, t.st, deadline_none(), &stop, &rep);
        assert_int_equal(rep.playouts, 1);
        double added = 0;
        for (size_t j = 0; j < e->n_skeys; j++) added += 1;
        assert_float_equal(mast_sum_n(&e->mast), 0.2 * before + added, 1e-6);
        /* keys absent from that simulation keep exactly 0.2 of their sum */
        for (uint32_t key = 0; key < old_cap; key++) {
            bool used = false;
            for (size_t j = 0; j < e->n_skeys; j++) used |= e->skeys[j] == key;
            if (!used) assert_float_equal(e->mast.w[key], 0.2 * old_w[key], 1e-9);
        }
        free(old_w);
        searcher_reset(s);
        assert_true(mast_sum_n(&e->mast) == 0);
        searcher_free(s);
        search_spec_free(sp);
    }
    tg_free(&t);
}

static void test_mast_epsilon_greedy(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_shared(&t, "ticTacToe.kif")) return;
    search_spec_t *sp = spec_of("grave:eps=0.4");
    searcher_t *s = searcher_new(t.g, 0, sp);
    engine_t *e = searcher_engine(s, 0);
    game_ctx_set_state(e->ctx, t.st);
    const move_id_t *ms;
    uint32_t n = game_legal(e->ctx, 0, &ms);
    assert_int_equal(n, 9);
    /* every move seen, one clearly best */
    mast_reserve(&e->mast, 64);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t key = keys_get(e->keys, 0, ms[i]);
        mast_reserve(&e->mast, key + 1);
        mast_set(&e->mast, key, 10, i == 4 ? 9 : 2);
    }
    uint32_t hits[9] = {0}, trials = 20000;
    for (uint32_t i = 0; i < trials; i++) {
        uint32_t m = engine_playout_move(e, 0);
        for (uint32_t j = 0; j < n; j++)
            if (ms[j] == m) hits[j]++;
    }
    double greedy = 0.6 + 0.4 / 9, other = 0.4 / 9;
    for (uint32_t j = 0; j < n; j++)
        assert_float_equal(hits[j] / (double)trials, j == 4 ? greedy : other, 0.015);
    searcher_free(s);
    search_spec_free(sp);
    tg_free(&t);
}

/* ---- time budgets, stop flag, memory, threads, dense vs sparse ---------------- */

static void test_time_budget(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_shared(&t, "connectFour.kif")) return;
    const char *specs[] = {"grave:seconds=0.05", "graver:seconds=0.05,nodes=100", "grave2:nodes=3000,seconds=0.05",
                           "graver2:nodes=40,seconds=0.05", "uct:seconds=0.05", "mc:seconds=0.05"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        uint64_t t0 = clock_now_ns();
        search_report_t rep;
        move_id_t m = choose(&t, specs[i], 0, 1, &rep, NULL);
        double secs = (double)(clock_now_ns() - t0) / 1e9;
        assert_true(is_legal(&t, 0, m));
        assert_true(rep.playouts > 0);
        if (secs > 5) fail_msg("%s took %.2fs", specs[i], secs); /* a deadline, not a speed claim */
        if (strstr(specs[i], "grave2")) assert_true(rep.playouts < 1500ull * 1500ull); /* stopped early */
    }
    /* the caller's deadline also ends a playout budget */
    search_report_t rep;
    search_spec_t *sp = spec_of("grave:playouts=100000000");
    searcher_t *s = searcher_new(t.g, 0, sp);
    move_id_t m = searcher_choose(s, t.st, deadline_in_ms(30), NULL, &rep);
    assert_true(is_legal(&t, 0, m));
    assert_true(rep.playouts > 0 && rep.playouts < 100000000);
    searcher_free(s);
    search_spec_free(sp);
    tg_free(&t);
}

static void test_dense_sparse_threads(void **state)
{
    (void)state;
    tgame_t t;
    if (!tg_shared(&t, "connectFour.kif")) return;
    search_report_t rd, rs;
    move_id_t md = choose(&t, "grave:playouts=400,amaf=dense", 0, 9, &rd, NULL);
    move_id_t ms = choose(&t, "grave:playouts=400,amaf=sparse", 0, 9, &rs, NULL);
    assert_int_equal(md, ms);
    assert_int_equal(rd.nodes_peak, rs.nodes_peak);
    if (game_moves_enumerable(t.g)) {
        uint32_t K = 0;
        for (uint32_t r = 0; r < game_num_roles(t.g); r++) K += game_num_moves(t.g, r);
        assert_int_equal(rd.bytes_per_node, sizeof(node_t) + 2 * sizeof(float) + 8 * K);
    }
    /* UCT nodes carry no AMAF */
    search_report_t ru;
    choose(&t, "uct:playouts=100", 0, 9, &ru, NULL);
    assert_int_equal(ru.bytes_per_node, sizeof(node_t) + 2 * sizeof(float));
    /* root parallelism: the playouts are shared, and the result is reproducible */
    search_report_t r1, r2;
    move_id_t a = choose(&t, "grave:playouts=301,threads=2", 0, 4, &r1, NULL);
    move_id_t b = choose(&t, "grave:playouts=301,threads=2", 0, 4, &r2, NULL);
    assert_int_equal(r1.playouts, 301);
    assert_true(r1.cpu_seconds > 0 && r1.cpu_seconds <= 2 * r1.seconds + 0.01); /* both workers' threads */
    assert_int_equal(a, b);
    assert_true(is_legal(&t, 0, a));
    tg_free(&t);
}

static void test_rules_engine(void **state)
{
    (void)state;
    tgame_t t;
    const char *path = shared_game("ticTacToe.kif");
    if (!path || !tg_load_engine(&t, path, ENGINE_RULES)) return;
    for (size_t vi = 0; vi < search_n_variants; vi++) {
        char text[256];
        small_spec(&search_variants[vi], 100, text, sizeof text);
        search_report_t rep;
        engine_stats_t st;
        move_id_t m = choose(&t, text, 0, 2, &rep, &st);
        assert_true(is_legal(&t, 0, m));
        assert_int_equal(st.check_fail, 0);
    }
    tg_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_turn_taking),
        cmocka_unit_test(test_variants_go9),
        cmocka_unit_test(test_variants_simultaneous_multi_puzzle),
        cmocka_unit_test(test_two_level_exact_budget),
        cmocka_unit_test(test_simulation_lengths),
        cmocka_unit_test(test_recycling_identity),
        cmocka_unit_test(test_forced_wins),
        cmocka_unit_test(test_deep_forced_win),
        cmocka_unit_test(test_tree_statistics),
        cmocka_unit_test(test_first_play_urgency),
        cmocka_unit_test(test_ref_extremes),
        cmocka_unit_test(test_forward_sharing_ablation),
        cmocka_unit_test(test_mast_decay_and_reset),
        cmocka_unit_test(test_mast_epsilon_greedy),
        cmocka_unit_test(test_time_budget),
        cmocka_unit_test(test_dense_sparse_threads),
        cmocka_unit_test(test_rules_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
