/* nmcs.c - nested Monte Carlo search for one-player games (grave-spec
 * §14.4, [B] §4.2; Cazenave, "Nested Monte-Carlo Search", IJCAI 2009).
 *
 * Level 0 is a uniformly random playout. At level n, from a state, each
 * step tries every legal move followed by a level n-1 search, remembers the
 * best complete sequence found so far (its score is the goal at its end),
 * and plays that sequence's next move; the level's result is the best
 * sequence. A one-player GDL game is deterministic, so the searcher keeps
 * the best sequence found over the whole match (with the state hash before
 * each move) and follows it as long as no search finds better. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "search/search_internal.h"

typedef struct seq {
    move_id_t *m;
    size_t n, cap;
} seq_t;

static void seq_push(seq_t *s, move_id_t m)
{
    XVEC_RESERVE(&s->m, &s->cap, s->n + 1);
    s->m[s->n++] = m;
}

static void seq_copy(seq_t *dst, const seq_t *src)
{
    XVEC_RESERVE(&dst->m, &dst->cap, src->n + 1);
    if (src->n) memcpy(dst->m, src->m, src->n * sizeof *src->m);
    dst->n = src->n;
}

/* One level's scratch: its best sequence (the level's result), the moves
 * it has played, its states and a copy of the legal moves. */
typedef struct lvl {
    seq_t best, played;
    game_state_t *cur, *next;
    move_id_t *legal;
    uint32_t legal_cap;
} lvl_t;

struct nmcs {
    const game_t *g;
    const search_spec_t *spec;
    rng_t rng;
    game_ctx_t *ctx;
    lvl_t *lv;
    uint32_t n_lv;
    seq_t line;          /* the best sequence of the match, from line_at's state */
    uint64_t *line_hash; /* state hash before each move of line */
    size_t hash_cap;
    int line_score;      /* -1: none */
    uint64_t playouts;
    deadline_t dl;
    const atomic_bool *stop;
    bool aborted;
};

nmcs_t *nmcs_new(const game_t *g, uint32_t role, const search_spec_t *spec, uint64_t seed)
{
    (void)role;
    nmcs_t *n = xcalloc(1, sizeof *n);
    n->g = g;
    n->spec = spec;
    n->ctx = game_ctx_new(g);
    n->n_lv = spec->level + 1;
    n->lv = xcalloc(n->n_lv, sizeof *n->lv);
    for (uint32_t i = 0; i < n->n_lv; i++) {
        n->lv[i].cur = game_state_new(g);
        n->lv[i].next = game_state_new(g);
    }
    nmcs_reset(n, seed);
    return n;
}

void nmcs_free(nmcs_t *n)
{
    if (!n) return;
    for (uint32_t i = 0; i < n->n_lv; i++) {
        free(n->lv[i].best.m);
        free(n->lv[i].played.m);
        free(n->lv[i].legal);
        game_state_free(n->lv[i].cur);
        game_state_free(n->lv[i].next);
    }
    free(n->lv);
    free(n->line.m);
    free(n->line_hash);
    game_ctx_free(n->ctx);
    free(n);
}

void nmcs_reset(nmcs_t *n, uint64_t seed)
{
    rng_seed(&n->rng, seed);
    n->line.n = 0;
    n->line_score = -1;
}

int nmcs_best(const nmcs_t *n) { return n->line_score; }

/* The index of st in the match's line, SIZE_MAX if it is not on it. */
static size_t line_index(const nmcs_t *n, const game_state_t *st)
{
    uint64_t h = game_state_hash(n->g, st);
    for (size_t i = 0; i < n->line.n; i++)
        if (n->line_hash[i] == h) return i;
    return SIZE_MAX;
}

bool nmcs_on_line(const nmcs_t *n, const game_state_t *st)
{
    return n->line_score >= 0 && line_index(n, st) != SIZE_MAX;
}

static int goal_of(nmcs_t *n)
{
    int g = game_goal(n->ctx, 0);
    return g < 0 ? 0 : g;
}

static bool stopped(nmcs_t *n)
{
    if (!n->aborted && should_stop(n->dl, n->stop)) n->aborted = true;
    return n->aborted;
}

#define MAX_PLIES 10000 /* spec §2.3's cap */

/* Level 0 from st: a random playout, its moves into lv[0].best. */
static int playout(nmcs_t *n, const game_state_t *st)
{
    seq_t *out = &n->lv[0].best;
    out->n = 0;
    n->playouts++;
    game_ctx_set_state(n->ctx, st);
    for (int ply = 0; ply < MAX_PLIES && !game_is_terminal(n->ctx); ply++) {
        const move_id_t *m;
        uint32_t c = game_legal(n->ctx, 0, &m);
        if (c == 0) return 0;
        move_id_t mv = m[c == 1 ? 0 : rng_below(&n->rng, c)];
        seq_push(out, mv);
        game_ctx_play(n->ctx, &mv);
    }
    return goal_of(n);
}

/* The level-l search from st: the best sequence into lv[l].best, its score
 * returned. */
static int nested(nmcs_t *n, const game_state_t *st, uint32_t l)
{
    if (l == 0) return playout(n, st);
    lvl_t *v = &n->lv[l];
    v->best.n = v->played.n = 0;
    int best = -1;
    game_state_copy(n->g, v->cur, st);
    for (int ply = 0; ply < MAX_PLIES; ply++) {
        game_ctx_set_state(n->ctx, v->cur);
        if (game_is_terminal(n->ctx)) {
            if (best < 0) { /* nothing tried: the state itself */
                best = goal_of(n);
                seq_copy(&v->best, &v->played);
            }
            break;
        }
        const move_id_t *m;
        uint32_t c = game_legal(n->ctx, 0, &m);
        if (c == 0) break;
        if (c > v->legal_cap) {
            v->legal_cap = c;
            v->legal = xreallocarray(v->legal, c, sizeof *v->legal);
        }
        memcpy(v->legal, m, c * sizeof *m);
        for (uint32_t i = 0; i < c; i++) {
            game_ctx_set_state(n->ctx, v->cur);
            game_next(n->ctx, &v->legal[i], v->next);
            int s = nested(n, v->next, l - 1);
            if (s > best) { /* the best sequence: played, this move, the child's */
                best = s;
                seq_copy(&v->best, &v->played);
                seq_push(&v->best, v->legal[i]);
                const seq_t *child = &n->lv[l - 1].best;
                for (size_t j = 0; j < child->n; j++) seq_push(&v->best, child->m[j]);
            }
            if (stopped(n)) break;
        }
        if (n->aborted || v->best.n <= v->played.n) break;
        move_id_t mv = v->best.m[v->played.n]; /* follow the best sequence */
        seq_push(&v->played, mv);
        game_ctx_set_state(n->ctx, v->cur);
        game_next(n->ctx, &mv, v->next);
        game_state_t *t = v->cur;
        v->cur = v->next;
        v->next = t;
    }
    return best;
}

/* Keep seq (from st) as the match's line, with the hashes of its states. */
static void keep_line(nmcs_t *n, const game_state_t *st, const seq_t *seq, int score)
{
    seq_copy(&n->line, seq);
    XVEC_RESERVE(&n->line_hash, &n->hash_cap, seq->n + 1);
    game_ctx_set_state(n->ctx, st);
    for (size_t i = 0; i < seq->n; i++) {
        n->line_hash[i] = game_state_hash(n->g, game_ctx_state(n->ctx));
        game_ctx_play(n->ctx, &seq->m[i]);
    }
    n->line_score = score;
}

move_id_t nmcs_choose(nmcs_t *n, const game_state_t *st, deadline_t dl, const atomic_bool *stop, search_report_t *rep)
{
    n->playouts = 0;
    n->aborted = false;
    n->dl = dl;
    n->stop = stop;
    uint32_t top = n->n_lv - 1;
    int s = nested(n, st, top);
    /* where st is on the match's line, the line's move unless this search found better */
    size_t at = line_index(n, st);
    if (at == SIZE_MAX || s > n->line_score) {
        const seq_t *b = &n->lv[top].best;
        if (b->n > 0) {
            keep_line(n, st, b, s);
            at = 0;
        }
    }
    if (rep) {
        rep->playouts = n->playouts;
        rep->value = n->line_score >= 0 ? n->line_score / 100.0 : 0;
    }
    if (at != SIZE_MAX) return n->line.m[at];
    game_ctx_set_state(n->ctx, st);
    const move_id_t *m;
    return game_legal(n->ctx, 0, &m) ? m[0] : UINT32_MAX;
}
