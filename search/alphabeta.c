/* alphabeta.c - the alpha-beta baseline of grave-spec §14.4 ([M]'s
 * alpha-beta(10/12), [B] §2.3): two players taking turns.
 *
 * Negamax with iterative deepening: a node's value is for the role to move
 * there (the decider; a node where nobody decides keeps its parent's side);
 * a child whose mover differs is searched with the window negated. Values
 * are in [-1, 1]: terminal states exactly (goal(side) - goal(other)) / 100;
 * leaves at depth 0 by the same difference of goal values scaled into
 * (-1/2, 1/2), or by mobility difference (Md) when the game's non-terminal
 * goals are flat (§14.3), so a heuristic never ties with a proven result.
 *
 * Transposition table: Zobrist keys, one pseudo-random 64-bit number per
 * ground fluent id (derived from the id, so no table to fill), XOR over the
 * state's true fluents, XOR a side-to-move number. An entry stores the full
 * key and a second, independent hash of the state (game_state_hash); a probe
 * uses an entry only if both match, so an index collision (type 1) and a
 * key collision (type 2) are both rejected. Always-replace, a power-of-two
 * table within tt= MB. Move ordering: the TT move first, then the history
 * heuristic (depth^2 per cut-off, per (role, move)); the root's moves are
 * shuffled once by the seeded rng, which breaks ties at random. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "search/search_internal.h"

enum { TT_EXACT = 1, TT_LOWER = 2, TT_UPPER = 3 };

typedef struct tt_entry {
    uint64_t key;   /* Zobrist key; 0 = empty */
    uint64_t check; /* game_state_hash of the state */
    float value;    /* for the side to move */
    uint32_t move;  /* best move, or UINT32_MAX */
    uint8_t depth, flag;
} tt_entry_t;

typedef struct ply {
    game_state_t *st;
    move_id_t *moves;
    double *order;
    uint32_t cap;
} ply_t;

struct ab {
    const game_t *g;
    const search_spec_t *spec;
    uint32_t role, k;
    rng_t rng;
    game_ctx_t *ctx;
    ply_t *ply;
    uint32_t n_ply, n_root;
    move_id_t *joint;
    tt_entry_t *tt;
    size_t tt_mask;
    bool tt_on;
    uint64_t keymask;
    double *hist[2];
    uint32_t hist_len[2];
    uint32_t *fl;
    uint32_t fl_cap;
    int goals_flat; /* -1 not known */
    uint64_t nodes, rejected, hits;
    deadline_t dl;
    const atomic_bool *stop;
    bool aborted;
};

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

ab_t *ab_new(const game_t *g, uint32_t role, const search_spec_t *spec, uint64_t seed)
{
    ab_t *a = xcalloc(1, sizeof *a);
    a->g = g;
    a->spec = spec;
    a->role = role;
    a->k = game_num_roles(g);
    a->ctx = game_ctx_new(g);
    a->joint = xcalloc(a->k ? a->k : 1, sizeof *a->joint);
    a->keymask = UINT64_MAX;
    a->goals_flat = -1;
    if (spec->tt_mb) {
        size_t n = 1;
        while (n * 2 * sizeof(tt_entry_t) <= spec->tt_mb * 1024 * 1024) n *= 2;
        a->tt = xcalloc(n, sizeof *a->tt);
        a->tt_mask = n - 1;
    }
    ab_reset(a, seed);
    return a;
}

void ab_free(ab_t *a)
{
    if (!a) return;
    for (uint32_t i = 0; i < a->n_ply; i++) {
        game_state_free(a->ply[i].st);
        free(a->ply[i].moves);
        free(a->ply[i].order);
    }
    free(a->ply);
    free(a->tt);
    free(a->hist[0]);
    free(a->hist[1]);
    free(a->fl);
    free(a->joint);
    game_ctx_free(a->ctx);
    free(a);
}

void ab_reset(ab_t *a, uint64_t seed)
{
    rng_seed(&a->rng, seed);
    if (a->tt) memset(a->tt, 0, (a->tt_mask + 1) * sizeof *a->tt);
    for (int r = 0; r < 2; r++)
        if (a->hist[r]) memset(a->hist[r], 0, a->hist_len[r] * sizeof *a->hist[r]);
}

void ab_tt_stats(const ab_t *a, uint64_t *rejected, uint64_t *hits)
{
    *rejected = a->rejected;
    *hits = a->hits;
}

void ab_weaken_keys(ab_t *a, uint32_t bits) { a->keymask = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1; }

static ply_t *ply_at(ab_t *a, uint32_t i)
{
    if (i >= a->n_ply) {
        uint32_t n = i + 8;
        a->ply = xreallocarray(a->ply, n, sizeof *a->ply);
        memset(a->ply + a->n_ply, 0, (n - a->n_ply) * sizeof *a->ply);
        for (uint32_t j = a->n_ply; j < n; j++) a->ply[j].st = game_state_new(a->g);
        a->n_ply = n;
    }
    return &a->ply[i];
}

static double *hist_slot(ab_t *a, uint32_t r, move_id_t m)
{
    if (m >= a->hist_len[r]) {
        uint32_t len = a->hist_len[r] ? a->hist_len[r] : 64;
        while (len <= m) len *= 2;
        a->hist[r] = xreallocarray(a->hist[r], len, sizeof *a->hist[r]);
        memset(a->hist[r] + a->hist_len[r], 0, (len - a->hist_len[r]) * sizeof *a->hist[r]);
        a->hist_len[r] = len;
    }
    return &a->hist[r][m];
}

/* The Zobrist key of the context's state with side to move. */
static uint64_t zobrist(ab_t *a, const game_state_t *s, uint32_t side)
{
    uint32_t n = game_state_fluents(a->g, s, a->fl, a->fl_cap);
    if (n > a->fl_cap) {
        a->fl_cap = n;
        a->fl = xreallocarray(a->fl, n, sizeof *a->fl);
        n = game_state_fluents(a->g, s, a->fl, a->fl_cap);
    }
    uint64_t h = mix64(0x51de0000ull + side);
    for (uint32_t i = 0; i < n; i++) h ^= mix64(a->fl[i]);
    h &= a->keymask;
    return h ? h : 1; /* 0 marks an empty slot */
}

/* Exact value of a terminal state for side (spec §14.4). */
static double terminal_value(ab_t *a, uint32_t side)
{
    int me = game_goal(a->ctx, side), other = game_goal(a->ctx, 1 - side);
    return ((me < 0 ? 0 : me) - (other < 0 ? 0 : other)) / 100.0;
}

/* Leaf value of a non-terminal state for side, inside (-1/2, 1/2). */
static double leaf_value(ab_t *a, uint32_t side)
{
    if (a->goals_flat) {
        const move_id_t *m;
        double d = (double)game_legal(a->ctx, side, &m) - (double)game_legal(a->ctx, 1 - side, &m);
        return 0.5 * tanh(d / 8);
    }
    return 0.49 * terminal_value(a, side);
}

static bool out_of_time(ab_t *a)
{
    if (a->aborted) return true;
    if ((a->nodes & 255) == 0 && should_stop(a->dl, a->stop)) a->aborted = true;
    return a->aborted;
}

static double search(ab_t *a, uint32_t i, uint32_t depth, double alpha, double beta, uint32_t side, bool use_tt);

/* The node at ply i (its state in ply[i].st, set in the context), whose
 * mover is side with n_moves legal moves (1: nobody decides). */
static double body(ab_t *a, uint32_t i, uint32_t depth, double alpha, double beta, uint32_t side, bool use_tt)
{
    ply_t *p = &a->ply[i];
    if (depth == 0) return leaf_value(a, side);
    uint64_t key = 0, check = 0;
    tt_entry_t *te = NULL;
    uint32_t tt_move = UINT32_MAX;
    double alpha0 = alpha;
    if (use_tt && a->tt) {
        key = zobrist(a, p->st, side);
        check = game_state_hash(a->g, p->st);
        te = &a->tt[key & a->tt_mask];
        if (te->key && (te->key != key || te->check != check)) {
            a->rejected++; /* another state in the slot (or a key collision): never used */
        } else if (te->key) {
            a->hits++;
            tt_move = te->move;
            if (te->depth >= depth) {
                double v = te->value;
                if (te->flag == TT_EXACT) return v;
                if (te->flag == TT_LOWER && v > alpha) alpha = v;
                if (te->flag == TT_UPPER && v < beta) beta = v;
                if (alpha >= beta) return v;
            }
        }
    }
    /* the moves of side (copied: the context moves on), all other roles forced */
    const move_id_t *m;
    uint32_t n = game_legal(a->ctx, side, &m);
    for (uint32_t r = 0; r < a->k; r++) {
        const move_id_t *f;
        if (r != side && game_legal(a->ctx, r, &f) > 0) a->joint[r] = f[0];
    }
    if (n > p->cap) {
        p->cap = n;
        p->moves = xreallocarray(p->moves, n, sizeof *p->moves);
        p->order = xreallocarray(p->order, n, sizeof *p->order);
    }
    memcpy(p->moves, m, n * sizeof *m);
    move_id_t forced[8];
    memcpy(forced, a->joint, (a->k < 8 ? a->k : 8) * sizeof *forced);
    /* ordering: TT move, then history (insertion sort: branching is small) */
    for (uint32_t j = 0; j < n; j++) p->order[j] = p->moves[j] == tt_move ? INFINITY : *hist_slot(a, side, p->moves[j]);
    for (uint32_t j = 1; j < n; j++) {
        move_id_t mv = p->moves[j];
        double o = p->order[j];
        uint32_t x = j;
        for (; x > 0 && p->order[x - 1] < o; x--) {
            p->moves[x] = p->moves[x - 1];
            p->order[x] = p->order[x - 1];
        }
        p->moves[x] = mv;
        p->order[x] = o;
    }
    double best = -INFINITY;
    uint32_t best_move = p->moves[0];
    ply_at(a, i + 1); /* a->ply may move: p is read again after each child */
    p = &a->ply[i];
    for (uint32_t j = 0; j < n; j++) {
        memcpy(a->joint, forced, (a->k < 8 ? a->k : 8) * sizeof *forced);
        a->joint[side] = p->moves[j];
        game_ctx_set_state(a->ctx, p->st);
        game_next(a->ctx, a->joint, a->ply[i + 1].st);
        double v = search(a, i + 1, depth - 1, alpha, beta, side, use_tt);
        if (a->aborted) return 0;
        p = &a->ply[i];
        if (v > best) {
            best = v;
            best_move = p->moves[j];
        }
        if (v > alpha) alpha = v;
        if (alpha >= beta) {
            *hist_slot(a, side, p->moves[j]) += (double)depth * depth;
            break;
        }
    }
    if (te) {
        *te = (tt_entry_t){key, check, (float)best, best_move, (uint8_t)(depth > 255 ? 255 : depth),
                           best <= alpha0 ? TT_UPPER : best >= beta ? TT_LOWER : TT_EXACT};
    }
    return best;
}

/* The value for side of the state at ply i (window relative to side). */
static double search(ab_t *a, uint32_t i, uint32_t depth, double alpha, double beta, uint32_t side, bool use_tt)
{
    a->nodes++;
    if (out_of_time(a)) return 0;
    game_ctx_set_state(a->ctx, a->ply[i].st);
    if (game_is_terminal(a->ctx)) return terminal_value(a, side);
    uint32_t mover = side, deciders = 0;
    for (uint32_t r = 0; r < a->k; r++) {
        const move_id_t *m;
        uint32_t n = game_legal(a->ctx, r, &m);
        if (n == 0) return 0; /* a defect of the rules: a draw */
        if (n >= 2) {
            mover = r;
            deciders++;
        }
    }
    if (deciders >= 2) return leaf_value(a, side); /* not turn-taking: search_spec_check_game says so */
    if (mover == side) return body(a, i, depth, alpha, beta, side, use_tt);
    return -body(a, i, depth, -beta, -alpha, mover, use_tt);
}

/* One search of the root (ply 0, our role to move) to depth; the best
 * move in *best. The root's moves keep ply[0]'s order, best first after. */
static double root(ab_t *a, uint32_t depth, bool use_tt, move_id_t *best)
{
    double alpha = -INFINITY;
    uint32_t bj = 0;
    ply_at(a, 1); /* a->ply may move: read through a->ply below */
    game_ctx_set_state(a->ctx, a->ply[0].st);
    for (uint32_t r = 0; r < a->k; r++) {
        const move_id_t *f;
        if (r != a->role && game_legal(a->ctx, r, &f) > 0) a->joint[r] = f[0];
    }
    move_id_t forced[8];
    memcpy(forced, a->joint, (a->k < 8 ? a->k : 8) * sizeof *forced);
    for (uint32_t j = 0; j < a->n_root; j++) {
        memcpy(a->joint, forced, (a->k < 8 ? a->k : 8) * sizeof *forced);
        a->joint[a->role] = a->ply[0].moves[j];
        game_ctx_set_state(a->ctx, a->ply[0].st);
        game_next(a->ctx, a->joint, a->ply[1].st);
        double v = search(a, 1, depth - 1, alpha, INFINITY, a->role, use_tt);
        if (a->aborted) break;
        if (v > alpha) {
            alpha = v;
            bj = j;
        }
    }
    move_id_t *m = a->ply[0].moves;
    if (!a->aborted) { /* best first for the next iteration */
        move_id_t mv = m[bj];
        memmove(m + 1, m, bj * sizeof *m);
        m[0] = mv;
    }
    *best = m[0];
    return alpha;
}

/* Ply 0 from st with our legal moves (shuffled); false if we have none. */
static bool root_setup(ab_t *a, const game_state_t *st)
{
    if (a->goals_flat < 0) {
        rng_t own; /* a sample of the game, not of this search */
        rng_seed(&own, 0x5eedf1a7ull);
        a->goals_flat = !game_goals_informative(a->g, a->ctx, &own);
    }
    ply_t *p = ply_at(a, 0);
    game_state_copy(a->g, p->st, st);
    game_ctx_set_state(a->ctx, p->st);
    const move_id_t *m;
    uint32_t n = game_legal(a->ctx, a->role, &m);
    if (n == 0) return false;
    p->moves = xreallocarray(p->moves, n, sizeof *p->moves);
    p->order = xreallocarray(p->order, n, sizeof *p->order);
    p->cap = n;
    a->n_root = n;
    memcpy(p->moves, m, n * sizeof *m);
    for (uint32_t j = n; j > 1; j--) { /* random tie-breaking among equal values */
        uint32_t x = rng_below(&a->rng, j);
        move_id_t t = p->moves[j - 1];
        p->moves[j - 1] = p->moves[x];
        p->moves[x] = t;
    }
    return true;
}

double ab_search_depth(ab_t *a, const game_state_t *st, uint32_t depth, bool tt, move_id_t *best, uint64_t *nodes)
{
    a->nodes = 0;
    a->aborted = false;
    a->dl = deadline_none();
    a->stop = NULL;
    *best = UINT32_MAX;
    if (!root_setup(a, st) || depth == 0) return 0;
    double v = root(a, depth, tt, best);
    *nodes = a->nodes;
    return v;
}

move_id_t ab_choose(ab_t *a, const game_state_t *st, deadline_t dl, const atomic_bool *stop, search_report_t *rep)
{
    a->nodes = 0;
    a->aborted = false;
    a->dl = dl;
    a->stop = stop;
    if (!root_setup(a, st)) return UINT32_MAX;
    move_id_t best = a->ply[0].moves[0];
    double value = 0;
    uint32_t max_depth = search_spec_is_timed(a->spec) ? 200 : a->spec->depth;
    for (uint32_t d = 1; d <= max_depth; d++) {
        move_id_t b;
        double v = root(a, d, true, &b);
        if (a->aborted) break; /* the last completed depth's move */
        best = b;
        value = v;
        if (fabs(v) >= 1) break; /* proven */
    }
    if (rep) {
        rep->playouts = a->nodes; /* nodes searched */
        rep->value = (value + 1) / 2;
        rep->bytes_peak = (a->tt_mask + (a->tt != NULL)) * sizeof *a->tt;
    }
    return best;
}

/* A two-player game whose sampled playouts never have two deciders. */
bool ab_check_game(const game_t *g, char *err, size_t len)
{
    uint32_t k = game_num_roles(g);
    if (k != 2) {
        snprintf(err, len, "ab (alpha-beta) needs a two-player game; this one has %u role%s", k, k == 1 ? "" : "s");
        return false;
    }
    game_ctx_t *ctx = game_ctx_new(g);
    game_state_t *s = game_state_new(g);
    rng_t rng;
    rng_seed(&rng, 0xab5eedull);
    bool ok = true;
    for (int game = 0; game < 20 && ok; game++) {
        game_initial(ctx, s);
        game_ctx_set_state(ctx, s);
        for (uint32_t step = 1; step < 5000 && ok && !game_is_terminal(ctx); step++) {
            move_id_t joint[2];
            uint32_t deciders = 0, stuck = 0;
            for (uint32_t r = 0; r < 2; r++) {
                const move_id_t *m;
                uint32_t n = game_legal(ctx, r, &m);
                if (n == 0) {
                    stuck = 1;
                    break;
                }
                deciders += n >= 2;
                joint[r] = m[rng_below(&rng, n)];
            }
            if (stuck) break;
            if (deciders >= 2) {
                snprintf(err, len,
                         "ab (alpha-beta) needs players that take turns; here both roles have a choice at once "
                         "(step %u of a random playout)",
                         step);
                ok = false;
            } else {
                game_ctx_play(ctx, joint);
            }
        }
    }
    game_state_free(s);
    game_ctx_free(ctx);
    return ok;
}
