/* playout.c - the playout strategies as one table, and strategy switching
 * (grave-spec §9, §14).
 *
 * A row of playout_strategies[] chooses one decider's move at one step of a
 * playout. random and mast are spec §9's playouts (the engine's default:
 * mast, or random with mast=off, so those searchers' moves are unchanged).
 * mobility (Mp), md (Md) and eval (E) are greedy one-ply choosers (§14.2):
 * every legal move a is tried in a scratch context, the state s_a after it
 * is scored by the row's heuristic for the role (§14.3), and the argmax is
 * played, ties broken at random. Terminal states are scored by the shortcut
 * of §14.2: a win (goal 100) above, anything less below every non-terminal
 * score. At a simultaneous step the other deciders' moves in each J_a are
 * one random sample per step, shared by all the candidates.
 *
 * With playout=switch a UCB1 bandit per role (Q_r, T_r over the strategy
 * set, b = 4) picks each role's strategy at the start of every playout;
 * after it, T_r(s_r) += 1 and Q_r(s_r) takes z[r]. The statistics persist
 * over a match and decay with MAST's gamma at each of the agent's searches
 * ([M] Algorithm 1 as resolved in §14.2 and §16 A24). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "search/search_internal.h"

/* Terminal shortcut (§14.2): a win above, less than a win below, every
 * heuristic value (all are far inside +-1e9). */
#define TERMINAL_WIN 1e12
#define TERMINAL_LOSS (-1e12)

/* ---- heuristics (§14.3), at ps->ctx's current state ---------------------- */

static uint32_t mob(playout_state_t *ps, uint32_t r)
{
    const move_id_t *m;
    return game_legal(ps->ctx, r, &m);
}

/* One random legal joint move at the scratch state into ps->J. */
static bool random_joint(playout_state_t *ps)
{
    for (uint32_t r = 0; r < ps->k; r++) {
        const move_id_t *m;
        uint32_t n = game_legal(ps->ctx, r, &m);
        if (n == 0) return false;
        ps->J[r] = m[n == 1 ? 0 : rng_below(ps->rng, n)];
    }
    return true;
}

/* Mp: the role's own mobility at s_a if it decides there; in alternating
 * play (its only move at s_a is a noop) a 2-ply sample: one random reply of
 * the others, then its mobility (§14.3, §16 A25). A sampled reply that
 * ends the game scores 0, or 1e6 if the role won. */
static double score_mobility(playout_state_t *ps, uint32_t r)
{
    uint32_t n = mob(ps, r);
    if (n >= 2) return n;
    if (!random_joint(ps)) return 0;
    game_next(ps->ctx, ps->J, ps->s2);
    game_ctx_set_state(ps->ctx, ps->s2);
    if (game_is_terminal(ps->ctx)) return game_goal(ps->ctx, r) >= 100 ? 1e6 : 0;
    return mob(ps, r);
}

/* Md: own mobility minus the opponents' mean, 1-ply: in alternating play
 * "leave the opponent the fewest replies" (§14.3). */
static double score_md(playout_state_t *ps, uint32_t r)
{
    double own = mob(ps, r), others = 0;
    for (uint32_t o = 0; o < ps->k; o++)
        if (o != r) others += mob(ps, o);
    return ps->k > 1 ? own - others / (ps->k - 1) : own;
}

/* The roles named by fluent f's text (a token equal to a role's name):
 * "(cell 4 4 black)" belongs to black. Cached per fluent id. */
static uint64_t fluent_roles(playout_state_t *ps, uint32_t f)
{
    if (f >= ps->fcap) {
        size_t old = ps->fcap, cap = old ? old : 256;
        while (cap <= f) cap *= 2;
        ps->fmask = xreallocarray(ps->fmask, cap, sizeof *ps->fmask);
        ps->fknown = xreallocarray(ps->fknown, cap, sizeof *ps->fknown);
        memset(ps->fknown + old, 0, cap - old);
        ps->fcap = cap;
    }
    if (ps->fknown[f]) return ps->fmask[f];
    char buf[512];
    game_fluent_text(ps->g, f, buf, sizeof buf);
    uint64_t mask = 0;
    for (char *p = buf; *p;) {
        while (*p && (*p == ' ' || *p == '(' || *p == ')')) p++;
        size_t len = strcspn(p, " ()");
        for (uint32_t r = 0; r < ps->k && r < 64 && len; r++) {
            const char *name = game_role_name(ps->g, r);
            if (strlen(name) == len && !strncasecmp(name, p, len)) mask |= 1ull << r;
        }
        p += len;
    }
    ps->fmask[f] = mask;
    ps->fknown[f] = 1;
    return mask;
}

/* The generic material feature of §14.3: the role's fluents minus the
 * opponents' mean (a difference, so that a capture counts twice). */
static double material(playout_state_t *ps, uint32_t r)
{
    const game_state_t *s = game_ctx_state(ps->ctx);
    uint32_t n = game_state_fluents(ps->g, s, ps->fl, ps->fl_cap);
    if (n > ps->fl_cap) {
        ps->fl_cap = n;
        ps->fl = xreallocarray(ps->fl, n, sizeof *ps->fl);
        n = game_state_fluents(ps->g, s, ps->fl, ps->fl_cap);
    }
    double own = 0, others = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t m = fluent_roles(ps, ps->fl[i]);
        if (!m) continue;
        for (uint32_t o = 0; o < ps->k && o < 64; o++)
            if ((m >> o) & 1) {
                if (o == r) own++;
                else others++;
            }
    }
    return ps->k > 1 ? own - others / (ps->k - 1) : own;
}

/* E: the goal value of the non-terminal state, or the material substitute
 * where goals are flat (§14.3). */
static double score_eval(playout_state_t *ps, uint32_t r)
{
    if (ps->goals_flat) return material(ps, r);
    int g = game_goal(ps->ctx, r);
    return g >= 0 ? g : 0;
}

const strategy_row_t playout_strategies[PS_N] = {
    [PS_RANDOM] = {"random", "a uniformly random legal move", NULL},
    [PS_MAST] = {"mast", "MAST epsilon-greedy (spec §9)", NULL},
    [PS_MOBILITY] = {"mobility", "Mp: the most own legal moves after the move (2-ply sample in turn-taking games)",
                     score_mobility},
    [PS_MD] = {"md", "Md: own minus opponents' legal moves after the move", score_md},
    [PS_EVAL] = {"eval", "E: the goal value after the move (material count where goals are flat)", score_eval},
    [PS_DECISIVE] = {"decisive", "a move that wins at once if there is one, else MAST among the moves that do not lose at once",
                     NULL},
    [PS_ANTIDECISIVE] = {"antidecisive",
                         "decisive, and never a move the next player can answer with a win at once while another is left",
                         NULL},
};

int strategy_find(const char *name, size_t len)
{
    for (int i = 0; i < PS_N; i++)
        if (strlen(playout_strategies[i].name) == len && !strncasecmp(playout_strategies[i].name, name, len)) return i;
    return -1;
}

const char *search_strategy_name(uint32_t i) { return i < PS_N ? playout_strategies[i].name : NULL; }

/* ---- flat goals (§14.3) ---------------------------------------------------- */

#define FLAT_SAMPLE_STATES 200
#define FLAT_SAMPLE_PLIES 2000

bool game_goals_informative(const game_t *g, game_ctx_t *ctx, rng_t *rng)
{
    uint32_t k = game_num_roles(g);
    int *first = xcalloc(k ? k : 1, sizeof *first);
    move_id_t *joint = xcalloc(k ? k : 1, sizeof *joint);
    game_state_t *s = game_state_new(g);
    bool informative = false, have = false;
    uint32_t states = 0, plies = 0;
    while (states < FLAT_SAMPLE_STATES && plies < FLAT_SAMPLE_PLIES && !informative) {
        game_initial(ctx, s); /* random playouts from the start, their non-terminal states */
        game_ctx_set_state(ctx, s);
        while (!game_is_terminal(ctx) && states < FLAT_SAMPLE_STATES && plies < FLAT_SAMPLE_PLIES) {
            for (uint32_t r = 0; r < k; r++) {
                int v = game_goal(ctx, r);
                if (!have) first[r] = v;
                else if (v != first[r]) informative = true;
            }
            have = true;
            states++;
            bool ok = true;
            for (uint32_t r = 0; r < k && ok; r++) {
                const move_id_t *m;
                uint32_t n = game_legal(ctx, r, &m);
                if (n == 0) ok = false;
                else joint[r] = m[n == 1 ? 0 : rng_below(rng, n)];
            }
            plies++;
            if (!ok) break;
            game_ctx_play(ctx, joint);
        }
        if (plies >= FLAT_SAMPLE_PLIES || states == 0) break;
    }
    game_state_free(s);
    free(first);
    free(joint);
    return informative;
}

/* ---- per engine ------------------------------------------------------------ */

static bool uses_strategies(const search_spec_t *s)
{
    return s->playout != PS_RANDOM && s->playout != PS_MAST;
}

/* ---- playout=auto: (anti-)decisive moves or MAST, from the game (issue 12 item 6) */

/* The sample: random playouts from the initial state, with its own fixed
 * seed (a property of the game, not of the search: every worker and every
 * run decides alike). At each step each decider with at most
 * DECISIVE_MAX_BRANCH moves looks one ply ahead at all of them; a step where
 * one of them would have won at once and the random move did not is a
 * missed win. Decisive moves cost one next state per legal move per step:
 * about 1.7x fewer playouts on connect four (8 moves), where they won 73% of
 * 60 games against UCT at equal time against 52% for MAST; on breakthrough
 * (about 25 moves) they lost (bench/results/compete.md). Where they pay,
 * auto plays the anti-decisive form too (antidecisive: blocks threats in
 * one), which beat decisive moves head to head on connect four. */
#define DECIDE_SEED 0xdec151feull
#define DECIDE_PLAYOUTS 64
#define DECIDE_PLIES 4000
#define DECISIVE_MAX_BRANCH 12
#define DECISIVE_MIN_MISSED 0.25 /* missed wins per playout */
/* A slow reasoner makes decisive moves dear too: past this many states or
 * this long (only on slow rules, so fast games decide alike every run),
 * MAST. */
#define DECIDE_MAX_STATES 40000
#define DECIDE_MAX_MS 300

/* 1: decisive pays, 0: MAST, -1: the search's own deadline or stop flag
 * came first (the sample is left for the next search: MAST meanwhile). */
static int decisive_pays(engine_t *e, deadline_t search_dl, const atomic_bool *stop)
{
    playout_state_t *ps = e->ps;
    rng_t rng;
    rng_seed(&rng, DECIDE_SEED);
    game_state_t *s = game_state_new(e->g);
    uint32_t playouts = 0, plies = 0, missed = 0, states = 0;
    bool wide = false;
    /* At most DECIDE_MAX_MS in all, over the searches whose own time cut
     * the sample, and at most half of what is left of this search. A
     * search by budget alone (playouts=, no deadline, no stop flag) is
     * not timed: the states cap alone bounds its sample, so that the same
     * seed and budget decide alike on a slow reasoner too (its choice
     * differed from run to run). */
    uint64_t t0 = clock_now_ns(), cap_ns = (uint64_t)DECIDE_MAX_MS * 1000000;
    bool timed = e->spec->seconds > 0 || search_dl.at_ns || stop;
    deadline_t dl = timed ? deadline_at_ns(t0 + (ps->decide_ns < cap_ns ? cap_ns - ps->decide_ns : 0)) : deadline_none();
    if (search_dl.at_ns) search_dl.at_ns = search_dl.at_ns > t0 ? t0 + (search_dl.at_ns - t0) / 2 : t0;
    while (playouts < DECIDE_PLAYOUTS && plies < DECIDE_PLIES && !wide) {
        game_initial(e->ctx, s);
        game_ctx_set_state(e->ctx, s);
        playouts++;
        while (!game_is_terminal(e->ctx) && plies < DECIDE_PLIES && !wide) {
            bool ok = true;
            for (uint32_t r = 0; r < e->k && ok; r++) {
                e->n_legal[r] = game_legal(e->ctx, r, &e->legal[r]);
                if (e->n_legal[r] == 0) ok = false;
                else if (e->n_legal[r] > DECISIVE_MAX_BRANCH) wide = true;
                else e->joint[r] = e->legal[r][rng_below(&rng, e->n_legal[r])];
            }
            if (!ok || wide) break;
            if (states > DECIDE_MAX_STATES || deadline_passed(dl)) { /* too dear: mast */
                wide = true;
                break;
            }
            if (should_stop(search_dl, stop)) {
                game_state_free(s); /* a short search: the rest of its time is the search's */
                ps->decide_ns += clock_now_ns() - t0;
                return -1;
            }
            plies++;
            for (uint32_t r = 0; r < e->k; r++) { /* would a move of r have won at once? */
                if (e->n_legal[r] < 2) continue;
                bool won = false, took = false;
                for (uint32_t i = 0; i < e->n_legal[r] && !took; i++) {
                    for (uint32_t o = 0; o < e->k; o++) ps->J[o] = e->joint[o];
                    ps->J[r] = e->legal[r][i];
                    game_next(e->ctx, ps->J, ps->sa);
                    game_ctx_set_state(ps->ctx, ps->sa);
                    states++;
                    if (game_is_terminal(ps->ctx) && game_goal(ps->ctx, r) >= 100) {
                        won = true;
                        took = ps->J[r] == e->joint[r];
                    }
                }
                if (won && !took) missed++;
            }
            game_ctx_play(e->ctx, e->joint);
        }
    }
    game_state_free(s);
    return !wide && playouts > 0 && (double)missed / playouts >= DECISIVE_MIN_MISSED;
}

void playout_decide(engine_t *e, const engine_t *owner, deadline_t dl, const atomic_bool *stop)
{
    if (e->playout != PLAYOUT_AUTO) return;
    /* A worker of a shared tree takes the owner's choice: one sample per
     * search, and every worker plays the same policy (MAST, as the owner,
     * while the owner has not decided). */
    if (owner) {
        if (owner->playout == PLAYOUT_AUTO) return;
        e->playout = owner->playout;
    } else {
        int pays = decisive_pays(e, dl, stop);
        if (pays < 0) return;
        e->playout = pays ? PS_ANTIDECISIVE : PS_MAST;
    }
    for (uint32_t r = 0; r < e->k; r++) e->ps->cur[r] = e->playout;
}

void playout_init(engine_t *e)
{
    e->ps = NULL;
    e->playout = e->spec->playout;
    if (!uses_strategies(e->spec)) return; /* spec §9's playouts: nothing to keep */
    playout_state_t *ps = xcalloc(1, sizeof *ps);
    uint32_t k = e->k ? e->k : 1;
    ps->g = e->g;
    ps->k = e->k;
    ps->ctx = game_ctx_new(e->g);
    game_ctx_scratch(ps->ctx); /* one-ply lookahead from the playout */
    ps->sa = game_state_new(e->g);
    ps->s2 = game_state_new(e->g);
    ps->J = xcalloc(k, sizeof *ps->J);
    ps->sample = xcalloc(k, sizeof *ps->sample);
    ps->cur = xcalloc(k, sizeof *ps->cur);
    ps->T = xcalloc((size_t)k * PS_N, sizeof *ps->T);
    ps->W = xcalloc((size_t)k * PS_N, sizeof *ps->W);
    ps->chosen = xcalloc((size_t)k * PS_N, sizeof *ps->chosen);
    ps->goals_flat = -1;
    ps->rng = &e->rng;
    for (uint32_t r = 0; r < k; r++) /* auto: mast until playout_decide */
        ps->cur[r] = e->playout == PLAYOUT_SWITCH || e->playout == PLAYOUT_AUTO ? PS_MAST : e->playout;
    e->ps = ps;
}

void playout_free(engine_t *e)
{
    playout_state_t *ps = e->ps;
    if (!ps) return;
    game_ctx_free(ps->ctx);
    game_ctx_free(ps->rctx);
    game_state_free(ps->sa);
    game_state_free(ps->s2);
    game_state_free(ps->sr);
    free(ps->J);
    free(ps->sample);
    free(ps->cand);
    free(ps->cur);
    free(ps->T);
    free(ps->W);
    free(ps->chosen);
    free(ps->fmask);
    free(ps->fknown);
    free(ps->fl);
    free(ps);
    e->ps = NULL;
}

void playout_reset(engine_t *e)
{
    playout_state_t *ps = e->ps;
    if (!ps) return;
    size_t n = (size_t)(e->k ? e->k : 1) * PS_N;
    memset(ps->T, 0, n * sizeof *ps->T);
    memset(ps->W, 0, n * sizeof *ps->W);
    memset(ps->chosen, 0, n * sizeof *ps->chosen);
}

void engine_decay(engine_t *e, double gamma)
{
    mast_decay(&e->mast, gamma);
    nst_decay(&e->nst, gamma);
    playout_state_t *ps = e->ps;
    if (!ps) return;
    size_t n = (size_t)(e->k ? e->k : 1) * PS_N;
    for (size_t i = 0; i < n; i++) {
        ps->T[i] *= gamma; /* the same gamma as MAST (§14.2) */
        ps->W[i] *= gamma;
    }
    memset(ps->chosen, 0, n * sizeof *ps->chosen);
}

uint32_t bandit_pick(const double *T, const double *W, const uint8_t *set, uint32_t n, double b, rng_t *rng)
{
    double total = 0;
    for (uint32_t i = 0; i < n; i++) total += T[set[i]];
    double ln = log(total > 1 ? total : 1);
    argmax_t am = {-INFINITY, set[0], 0};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = set[i];
        double v = T[s] > 0 ? W[s] / T[s] + b * sqrt(ln / T[s]) : INFINITY; /* untried first */
        argmax_offer(&am, rng, s, v);
    }
    return am.pick;
}

void playout_begin(engine_t *e)
{
    playout_state_t *ps = e->ps;
    if (ps) ps->quiet = false;
    if (!ps || e->playout != PLAYOUT_SWITCH) return;
    for (uint32_t r = 0; r < e->k; r++) {
        const double *T = ps->T + (size_t)r * PS_N, *W = ps->W + (size_t)r * PS_N;
        ps->cur[r] = (uint8_t)bandit_pick(T, W, e->spec->strategies, e->spec->n_strategies, e->spec->ss_b, &e->rng);
    }
}

void playout_end(engine_t *e)
{
    playout_state_t *ps = e->ps;
    if (!ps) return;
    for (uint32_t r = 0; r < e->k; r++) {
        size_t i = (size_t)r * PS_N + ps->cur[r];
        ps->chosen[i]++;
        if (e->playout != PLAYOUT_SWITCH) continue;
        ps->T[i] += 1;
        ps->W[i] += e->z[r];
    }
}

/* q[j] = playout_move_q(e, r, c[j]) for j < n; without N-grams, with the
 * key map and MAST's values in locals (a go9 playout step asks this of
 * about 20 candidates, and through e each read was reloaded). */
static void move_qs(engine_t *e, uint32_t r, const move_id_t *c, uint32_t n, double *q)
{
    if (e->spec->nst && e->n_steps) {
        for (uint32_t j = 0; j < n; j++) q[j] = playout_move_q(e, r, c[j]);
        return;
    }
    keys_t *ks = e->keys;
    const double *mq = e->mast.q;
    uint32_t cap = e->mast.cap, len = ks->of_len[r];
    const uint32_t *of = ks->of[r];
    for (uint32_t j = 0; j < n; j++) {
        uint32_t key = c[j] < len ? of[c[j]] : NIL;
        if (key == NIL) { /* a new key: the map may grow */
            key = keys_get(ks, r, c[j]);
            len = ks->of_len[r];
            of = ks->of[r];
        }
        q[j] = key < cap ? mq[key] : 1.0;
    }
}

/* MAST's move for decider r drawn from the game's candidates
 * (game_playout_cands) with the distribution playout_pick gives over the
 * policy's list: with probability eps uniform, else the best MAST value
 * with random ties; a drawn candidate the game does not accept is struck
 * out and the draw made again among the rest (uniform over the accepted
 * ones, and the best of them). Sets e->joint[r]; returns 1 if another
 * candidate is accepted too (r decides, spec §2.2), 0 if not (forced), -1
 * if none is (the caller takes the policy's list: pass). */
static int cand_pick(engine_t *e, uint32_t r, const move_id_t *cands, uint32_t n)
{
    if (n > e->cand_cap) {
        e->cand_cap = n;
        e->cand = xreallocarray(e->cand, n, sizeof *e->cand);
        e->cand_q = xreallocarray(e->cand_q, n, sizeof *e->cand_q);
    }
    move_id_t *c = e->cand;
    double *q = e->cand_q;
    memcpy(c, cands, n * sizeof *c);
    bool greedy = rng_double(&e->rng) >= e->spec->eps;
    if (greedy) move_qs(e, r, c, n, q);
    while (n > 0) {
        uint32_t i;
        if (greedy) {
            argmax_t am = {-INFINITY, 0, 0};
            for (uint32_t j = 0; j < n; j++) argmax_offer(&am, &e->rng, j, q[j]);
            i = am.pick;
        } else {
            i = rng_below(&e->rng, n);
        }
        move_id_t a = c[i];
        bool ok = game_playout_accepts(e->ctx, r, a);
        c[i] = c[n - 1]; /* struck out: drawn (and played) or refused */
        q[i] = q[n - 1];
        n--;
        if (!ok) continue;
        e->joint[r] = a;
        for (uint32_t j = 0; j < n; j++)
            if (game_playout_accepts(e->ctx, r, c[j])) return 1;
        return 0;
    }
    return -1;
}

int playout_game_step(engine_t *e)
{
    /* The greedy and decisive strategies try every legal move: the policy
     * is not theirs. MAST (compete's auto on a game with no wins in one,
     * and while auto has not decided) and uniform playouts draw from the
     * game's list. */
    if (e->ps && e->playout != PS_MAST && e->playout != PS_RANDOM && e->playout != PLAYOUT_AUTO) return -1;
    int nd = 0;
    if (e->spec->mast) { /* MAST weighs the moves: the policy's list */
        /* Roles whose game splits the list (cand_pick) are drawn here and
         * join the deciders after the others are; only while every role
         * plays MAST (the greedy strategies sample other deciders' lists). */
        bool split = true;
        for (uint32_t r = 0; e->ps && r < e->k; r++) split = split && e->ps->cur[r] == PS_MAST;
        uint32_t drawn[64], nc = 0;
        for (uint32_t r = 0; r < e->k; r++) {
            const move_id_t *cands;
            uint32_t n = split && nc < 64 ? game_playout_cands(e->ctx, r, &cands) : 0;
            int d = n ? cand_pick(e, r, cands, n) : -1;
            if (d >= 0) {
                if (d) drawn[nc++] = r;
                continue;
            }
            e->n_legal[r] = game_playout_legal(e->ctx, r, &e->legal[r]);
            if (e->n_legal[r] == 0) return -1;
            if (e->n_legal[r] >= 2) e->dec[nd++] = r;
            else e->joint[r] = e->legal[r][0];
        }
        playout_joint(e, nd);
        for (uint32_t i = 0; i < nc; i++) e->dec[nd++] = drawn[i];
        return nd;
    }
    for (uint32_t r = 0; r < e->k; r++) {
        bool decides;
        if (!game_playout_move(e->ctx, r, &e->rng, &e->joint[r], &decides)) return -1;
        if (decides) e->dec[nd++] = r;
    }
    return nd;
}

double playout_nst_q(engine_t *e, uint32_t key, double q)
{
    /* NST: the 1-gram always, each 2-gram with NST_MIN_VISITS (Tak et al.
     * 2012, §III-B); the previous step is the last one recorded, since a
     * step's keys are recorded after its moves are chosen. */
    double sum = q, v;
    uint32_t cnt = 1;
    size_t t = e->n_steps - 1;
    for (size_t i = e->step_start[t]; i < e->n_skeys; i++)
        if (nst_q(&e->nst, e->skeys[i], key, &v)) {
            sum += v;
            cnt++;
        }
    return sum / cnt;
}

/* The index among m[0 .. n) of role r's last good reply (spec.lgr,
 * engine.c lgr_update) to a move of the last recorded step, or n. */
static uint32_t lgr_reply(const engine_t *e, uint32_t r, const move_id_t *m, uint32_t n)
{
    if (!e->spec->lgr || e->n_steps == 0) return n;
    size_t t = e->n_steps - 1;
    for (size_t i = e->step_start[t]; i < e->n_skeys; i++) {
        size_t at = (size_t)e->skeys[i] * e->k + r;
        if (at >= e->lgr_cap || e->lgr[at] == 0) continue;
        uint32_t want = e->keys->move[e->lgr[at] - 1];
        for (uint32_t j = 0; j < n; j++)
            if (m[j] == want) return j;
    }
    return n;
}

uint32_t playout_pick(engine_t *e, uint32_t r)
{
    const move_id_t *m = e->legal[r];
    uint32_t n = e->n_legal[r];
    uint32_t reply = lgr_reply(e, r, m, n);
    if (reply < n) return m[reply];
    if (!e->spec->mast || rng_double(&e->rng) < e->spec->eps) return m[rng_below(&e->rng, n)];
    argmax_t am = {-INFINITY, m[0], 0};
    for (uint32_t i = 0; i < n; i++) argmax_offer(&am, &e->rng, m[i], playout_move_q(e, r, m[i]));
    return am.pick;
}

/* Decider r's legal moves copied to ps->cand (e->ctx's arrays do not
 * survive game_next); returns their number. */
static uint32_t copy_candidates(engine_t *e, uint32_t r)
{
    playout_state_t *ps = e->ps;
    uint32_t n = e->n_legal[r];
    if (n > ps->cand_cap) {
        ps->cand_cap = n;
        ps->cand = xreallocarray(ps->cand, n, sizeof *ps->cand);
    }
    memcpy(ps->cand, e->legal[r], n * sizeof *ps->cand);
    return n;
}

/* The state after decider r's move a into ps->ctx; the other roles' moves:
 * forced ones as gathered, other deciders' from ps->sample. Returns
 * whether it is terminal. */
static bool try_candidate(engine_t *e, uint32_t r, move_id_t a)
{
    playout_state_t *ps = e->ps;
    for (uint32_t o = 0; o < e->k; o++) ps->J[o] = e->n_legal[o] >= 2 ? ps->sample[o] : e->joint[o];
    ps->J[r] = a;
    game_next(e->ctx, ps->J, ps->sa);
    game_ctx_set_state(ps->ctx, ps->sa);
    return game_is_terminal(ps->ctx);
}

/* The greedy one-ply choice of decider r with heuristic score (§14.2). The
 * other roles' moves in each candidate's joint move: forced moves as
 * gathered, other deciders' from ps->sample. */
static uint32_t greedy_pick(engine_t *e, uint32_t r, double (*score)(playout_state_t *, uint32_t))
{
    playout_state_t *ps = e->ps;
    uint32_t n = copy_candidates(e, r);
    if (ps->goals_flat < 0 && score == score_eval) {
        rng_t own; /* a sample of the game, not of this search: its own sequence */
        rng_seed(&own, 0x5eedf1a7ull);
        ps->goals_flat = !game_goals_informative(e->g, ps->ctx, &own);
    }
    argmax_t am = {-INFINITY, ps->cand[0], 0};
    for (uint32_t i = 0; i < n; i++) {
        double v;
        if (try_candidate(e, r, ps->cand[i])) {
            int g = game_goal(ps->ctx, r);
            v = g >= 100 ? TERMINAL_WIN + g : TERMINAL_LOSS + g;
        } else {
            v = score(ps, r);
        }
        argmax_offer(&am, &e->rng, ps->cand[i], v);
    }
    return am.pick;
}

/* Does a reply to decider r's move a win at once? The state after a is in
 * ps->ctx (try_candidate, not terminal). When a decider o of the next step
 * other than r has a move (*won_by) that ends the game with its most (100):
 * o + 1; 0 otherwise. A simultaneous next step (connectFourSimultaneous:
 * each role drops on the board the other just played) tries each other
 * decider's moves against one random sample of the rest's, as decisive
 * moves do at a simultaneous step (spec §14.2). *quiet says that the next
 * step has one decider, a role other than r, and none of its moves ends the
 * game at all. */
static int reply_wins(engine_t *e, uint32_t r, bool *quiet, move_id_t *won_by)
{
    playout_state_t *ps = e->ps;
    *quiet = false;
    if (!ps->rctx) {
        ps->rctx = game_ctx_new(e->g);
        game_ctx_scratch(ps->rctx);
        ps->sr = game_state_new(e->g);
    }
    uint32_t nd = 0, first = UINT32_MAX;
    for (uint32_t q = 0; q < e->k; q++) {
        const move_id_t *m;
        uint32_t nq = game_legal(ps->ctx, q, &m);
        if (nq == 0) return 0;
        /* a decider's sample is drawn only when there are two: a turn-taking
         * game's playouts draw exactly as they did before simultaneous steps
         * were checked */
        ps->J[q] = m[0];
        if (nq >= 2 && nd++ == 0) first = q;
    }
    if (nd >= 2)
        for (uint32_t q = 0; q < e->k; q++) {
            const move_id_t *m;
            uint32_t nq = game_legal(ps->ctx, q, &m);
            if (nq >= 2) ps->J[q] = m[rng_below(&e->rng, nq)];
        }
    bool ends = false;
    for (uint32_t o = first; o < e->k; o++) {
        if (o == r) continue;
        const move_id_t *replies;
        uint32_t n = game_legal(ps->ctx, o, &replies);
        if (n < 2) continue;
        move_id_t keep = ps->J[o];
        for (uint32_t i = 0; i < n; i++) {
            ps->J[o] = replies[i]; /* ps->ctx stays at a's state: replies stay valid */
            game_next(ps->ctx, ps->J, ps->sr);
            game_ctx_set_state(ps->rctx, ps->sr);
            if (!game_is_terminal(ps->rctx)) continue;
            if (game_goal(ps->rctx, o) >= 100) {
                *won_by = replies[i];
                return (int)o + 1;
            }
            ends = true;
        }
        ps->J[o] = keep;
    }
    *quiet = nd == 1 && first != r && !ends;
    return 0;
}

/* The index among cand[0 .. n) of r's move spelled as role o's move m (the
 * same cell in a game whose roles' moves name cells: tic-tac-toe's mark,
 * connect four's drop), or n. */
static uint32_t same_move(const engine_t *e, uint32_t o, move_id_t m, uint32_t r, const move_id_t *cand, uint32_t n)
{
    const char *want = game_move_name(e->g, o, m, true);
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(game_move_name(e->g, r, cand[i], true), want)) return i;
    return n;
}

/* antidecisive: MAST's choices checked per step where no cell blocks (each
 * check costs a next state per reply; in a lost position every move fails) */
#define ANTI_TRIES 3

/* Decisive moves (Teytaud and Teytaud, "On the huge benefit of decisive
 * moves in Monte-Carlo tree search algorithms", CIG 2010): every legal move
 * of decider r is tried one ply ahead; one that ends the game with the most
 * a goal can give (100) is played at once; one that ends it with less is
 * never chosen while another is left; the rest go to MAST's choice (spec
 * §9). Random playouts miss a win or a threat in one, which is what makes
 * their values of sudden-death games (connect four) unreliable; the check
 * costs one next-state per legal move, so it fits small branching.
 *
 * anti (playout=antidecisive, the same paper's anti-decisive moves): MAST's
 * choice is also looked at from the next step's other deciders' side (at a
 * simultaneous step, with the other deciders' samples); a move they can
 * answer with a win at once is struck out. The winning reply's own move is
 * then played unchecked when r can play it too (the cell of the threat; a
 * second threat would lose anyway), else the choice is made again among the
 * rest, ANTI_TRIES choices at most (then the first drawn). A random player
 * so blocks a threat in one as it takes a win in one. When no reply ends
 * the game the next step's own win check is known to find nothing (quiet)
 * and is skipped; playouts still cost more, being longer (3.7x on connect
 * four, bench/results/compete.md). */
static uint32_t decisive_pick(engine_t *e, uint32_t r, bool anti, bool quiet)
{
    playout_state_t *ps = e->ps;
    uint32_t n = copy_candidates(e, r), kept = 0;
    move_id_t any = ps->cand[rng_below(&e->rng, n)]; /* when every move loses at once */
    if (quiet) {
        kept = n; /* the previous step's check: no move here ends the game */
    } else {
        for (uint32_t i = 0; i < n; i++) {
            move_id_t a = ps->cand[i];
            if (try_candidate(e, r, a)) {
                if (game_goal(ps->ctx, r) >= 100) return a;
                continue; /* ends the game short of a win */
            }
            ps->cand[kept++] = a; /* kept <= i: compacted in place */
        }
    }
    if (kept == 0) return any;
    move_id_t first = UINT32_MAX;
    for (uint32_t tries = 0; kept > 0 && tries < ANTI_TRIES; tries++) {
        /* a last good reply first, checked as any */
        uint32_t pick = tries == 0 ? lgr_reply(e, r, ps->cand, kept) : kept;
        if (pick == kept && rng_double(&e->rng) < e->spec->eps) {
            pick = rng_below(&e->rng, kept);
        } else if (pick == kept) {
            argmax_t am = {-INFINITY, 0, 0};
            for (uint32_t i = 0; i < kept; i++) argmax_offer(&am, &e->rng, i, playout_move_q(e, r, ps->cand[i]));
            pick = am.pick;
        }
        move_id_t a = ps->cand[pick];
        if (!anti) return a;
        bool q;
        move_id_t b;
        try_candidate(e, r, a); /* not terminal: kept */
        int o = reply_wins(e, r, &q, &b);
        if (!o) {
            ps->quiet = q;
            return a;
        }
        if (first == UINT32_MAX) first = a;
        ps->cand[pick] = ps->cand[--kept];
        /* Teytaud's anti-decisive move: where the next player would win,
         * when r can play the same move (a cell); played unchecked, since
         * a second threat would make every move lose anyway */
        uint32_t i = same_move(e, (uint32_t)o - 1, b, r, ps->cand, kept);
        if (i < kept) return ps->cand[i];
    }
    return first;
}

void playout_joint(engine_t *e, int nd)
{
    playout_state_t *ps = e->ps;
    if (!ps) { /* spec §9's playouts, exactly as they always were */
        for (int i = 0; i < nd; i++) e->joint[e->dec[i]] = playout_pick(e, e->dec[i]);
        return;
    }
    bool greedy = false;
    for (int i = 0; i < nd; i++)
        greedy = greedy || playout_strategies[ps->cur[e->dec[i]]].score || ps->cur[e->dec[i]] == PS_DECISIVE ||
                 ps->cur[e->dec[i]] == PS_ANTIDECISIVE;
    /* antidecisive's check of the last step holds for this step only, and
     * only with one decider (the joint move it tried is the one played) */
    bool quiet = ps->quiet && nd == 1;
    ps->quiet = false;
    if (greedy && nd >= 2) /* the other deciders' moves in J_a: one sample per step (§14.2) */
        for (int i = 0; i < nd; i++) {
            uint32_t o = e->dec[i];
            ps->sample[o] = e->legal[o][rng_below(&e->rng, e->n_legal[o])];
        }
    for (int i = 0; i < nd; i++) {
        uint32_t r = e->dec[i];
        const strategy_row_t *row = &playout_strategies[ps->cur[r]];
        if (row->score) e->joint[r] = greedy_pick(e, r, row->score);
        else if (ps->cur[r] == PS_MAST) e->joint[r] = playout_pick(e, r);
        else if (ps->cur[r] == PS_DECISIVE) e->joint[r] = decisive_pick(e, r, false, false);
        else if (ps->cur[r] == PS_ANTIDECISIVE) e->joint[r] = decisive_pick(e, r, true, quiet);
        else e->joint[r] = e->legal[r][rng_below(&e->rng, e->n_legal[r])];
    }
    /* at a simultaneous step the check saw the other deciders' samples, not
     * the moves they play: it says nothing sure of the next step */
    if (nd != 1) ps->quiet = false;
}
