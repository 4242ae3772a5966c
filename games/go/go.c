/* go.c - Go (go.h) behind reasoner/game_native.h.
 *
 * State (words, what legal and next need and nothing more):
 *   [0] to move (bit 0), passes in a row (bits 1-2), ko point + 1 (bits
 *       3-11, GO_KO_SIMPLE only), plies played (bits 12-31);
 *   [1] n_hist, the number of position hashes in the history (bits 0-15),
 *       and the most stones a board of the history has had (bits 16-31);
 *   [2 ..] the board, 2 bits per point (1 black, 2 white), 16 points a word;
 *   then n_hist 64-bit Zobrist hashes (two words each, low first) of every
 *       board the game has had, the current one last (GO_KO_POSITIONAL).
 * A state is then self-contained (states are copied, hashed and freed by
 * game.c as plain words, so a pointer to a shared history could not be
 * reference counted) at the price of 8 bytes a stone move: a 9x9 state
 * after 100 plies is about 0.8 KB. A pass adds no hash: it does not change
 * the board, and superko forbids boards, not passes.
 *
 * Context: a padded board (size + 2 square, a border ring) with linked
 * groups: every stone points at its group's head and the next stone of a
 * circular list; the head keeps the group's stone count, Zobrist hash and
 * pseudo-liberties (the count of (stone, empty neighbour) pairs, with the
 * sum and the sum of squares of their points: a group is in atari exactly
 * when sum^2 == count * squares, i.e. all are one point). Placing a stone
 * and capturing are then incremental, and a move's legality (suicide, and
 * the hash of the board it makes against a hash set of the history) needs
 * only its four neighbours' heads. A non-capturing move adds a stone, so
 * it cannot repeat a board unless the history has had one with more stones
 * than the board now (before a capture): otherwise it skips the lookup.
 *
 * Playouts (game_playout_move): from a random empty point, the first one in
 * the list that is legal and is not an eye of the mover (all four
 * neighbours its own or off the board, and at most one diagonal of the
 * opponent, none on the edge); pass when there is none. The legal moves of
 * the tree (game_legal) stay the full set, eye-filling moves included: the
 * rules allow them and a search must be able to find the rare one that is
 * good, while a playout that filled its own eyes would kill every group it
 * makes and score noise. Drawing the move in the game, instead of listing
 * every legal move at each playout step, is what makes 9x9 playouts fast:
 * a few points are tried per move instead of all of them. MAST's playouts
 * weigh every move, so they take the same policy as a list
 * (game_playout_legal): slower, but no eye filled either. */
#include "games/go/go.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/rng.h"
#include "base/xalloc.h"
#include "reasoner/game_native.h"

#define MAXW (GO_MAX_SIZE + 2)
#define MAXB (MAXW * MAXW)
enum { EMPTY = 0, BLACK = 1, WHITE = 2, BORDER = 3 };
#define OPP(c) (3 - (c))
/* Word 0. */
#define H_WHITE 1u
#define H_PASS_SHIFT 1
#define H_KO_SHIFT 3
#define H_PLY_SHIFT 12
#define HDR 2 /* header words */

typedef struct go_impl {
    go_params_t p;
    uint32_t n, W, pts, cap, bw; /* size, stride, points, move cap, board words */
    uint64_t zob[3][MAXB];       /* by colour, padded index */
    uint64_t h0;                 /* the empty board's hash (non-zero: 0 marks a free slot) */
    uint16_t pad_of[GO_MAX_SIZE * GO_MAX_SIZE]; /* point id -> padded index */
    int16_t id_of[MAXB];                        /* padded index -> point id, or -1 */
    char **move_names;                          /* pts + 2 */
    uint32_t hs_mask;                           /* hash set slots - 1 */
} go_impl_t;

typedef struct eff {
    uint16_t cap_heads[4];
    uint32_t n_cap, cap_stones;
    uint64_t hash; /* of the board after the move */
    bool own_nb, empty_nb;
} eff_t;

typedef struct go_ctx {
    const go_impl_t *gi;
    /* the state this context is at (the game_ctx_t's own, which next with
     * play writes in place) */
    const game_state_t *cur;
    /* the board */
    uint8_t col[MAXB];
    uint16_t head[MAXB], nxt[MAXB];
    uint16_t nst[MAXB];
    uint32_t nlib[MAXB], lsum[MAXB];
    uint64_t lsq[MAXB], ghash[MAXB];
    uint16_t empty[MAXB], epos[MAXB];
    move_id_t empty_id[MAXB]; /* empty[i]'s point id: MAST's playout candidates */
    uint32_t n_empty, stones;
    uint64_t hash;
    /* the rest of the state */
    uint32_t to_move; /* 0 black, 1 white */
    uint32_t passes, ko, ply, n_hist, hist_max;
    /* the history's hashes as a set (open addressing), and the slots used,
     * so that a new state clears only those */
    uint64_t *hs;
    uint32_t *hs_used;
    uint32_t n_used;
    /* caches of the current state */
    bool legal_ok, score_ok, plegal_ok;
    move_id_t *legal_buf, *plegal_buf;
    uint32_t n_legal, n_plegal;
    move_id_t noop[1];
    int diff; /* area difference */
    /* the playout's last draw, which next is about to play: its effects
     * are not worked out twice (valid until the board changes) */
    bool drawn_ok;
    uint32_t drawn_p;
    eff_t drawn;
} go_ctx_t;

static const char *const role_names[2] = {"black", "white"};

/* ---------------------------------------------------------------- board */

static inline void addlib(go_ctx_t *x, uint32_t h, uint32_t q)
{
    x->nlib[h]++;
    x->lsum[h] += q;
    x->lsq[h] += (uint64_t)q * q;
}

static inline void remlib(go_ctx_t *x, uint32_t h, uint32_t q)
{
    x->nlib[h]--;
    x->lsum[h] -= q;
    x->lsq[h] -= (uint64_t)q * q;
}

static inline bool in_atari(const go_ctx_t *x, uint32_t h)
{
    return x->nlib[h] && (uint64_t)x->lsum[h] * x->lsum[h] == (uint64_t)x->nlib[h] * x->lsq[h];
}

static inline void nbrs(const go_ctx_t *x, uint32_t p, uint32_t q[4])
{
    q[0] = p - 1;
    q[1] = p + 1;
    q[2] = p - x->gi->W;
    q[3] = p + x->gi->W;
}

static void board_clear(go_ctx_t *x)
{
    const go_impl_t *gi = x->gi;
    memset(x->col, BORDER, sizeof x->col);
    x->n_empty = 0;
    for (uint32_t i = 0; i < gi->pts; i++) {
        uint32_t p = gi->pad_of[i];
        x->col[p] = EMPTY;
        x->epos[p] = (uint16_t)x->n_empty;
        x->empty_id[x->n_empty] = i;
        x->empty[x->n_empty++] = (uint16_t)p;
    }
    x->stones = 0;
    x->hash = gi->h0;
}

static void merge(go_ctx_t *x, uint32_t a, uint32_t b)
{
    if (x->nst[a] < x->nst[b]) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    uint32_t s = b;
    do {
        x->head[s] = (uint16_t)a;
        s = x->nxt[s];
    } while (s != b);
    uint16_t t = x->nxt[a];
    x->nxt[a] = x->nxt[b];
    x->nxt[b] = t;
    x->nst[a] = (uint16_t)(x->nst[a] + x->nst[b]);
    x->nlib[a] += x->nlib[b];
    x->lsum[a] += x->lsum[b];
    x->lsq[a] += x->lsq[b];
    x->ghash[a] ^= x->ghash[b];
}

/* Put a stone of colour c on empty p, merging groups, without captures. */
static void place(go_ctx_t *x, uint32_t p, int c)
{
    x->col[p] = (uint8_t)c;
    uint16_t last = x->empty[--x->n_empty];
    x->empty[x->epos[p]] = last;
    x->empty_id[x->epos[p]] = x->empty_id[x->n_empty];
    x->epos[last] = x->epos[p];
    uint64_t z = x->gi->zob[c][p];
    x->hash ^= z;
    x->stones++;
    x->head[p] = x->nxt[p] = (uint16_t)p;
    x->nst[p] = 1;
    x->nlib[p] = x->lsum[p] = 0;
    x->lsq[p] = 0;
    x->ghash[p] = z;
    uint32_t q[4];
    nbrs(x, p, q);
    for (int i = 0; i < 4; i++) {
        uint8_t cq = x->col[q[i]];
        if (cq == EMPTY) addlib(x, p, q[i]);
        else if (cq != BORDER) remlib(x, x->head[q[i]], p);
    }
    for (int i = 0; i < 4; i++)
        if (x->col[q[i]] == c && x->head[q[i]] != x->head[p]) merge(x, x->head[q[i]], x->head[p]);
}

static void remove_group(go_ctx_t *x, uint32_t h)
{
    int c = x->col[h];
    uint32_t s = h;
    do {
        uint32_t nx = x->nxt[s];
        x->col[s] = EMPTY;
        x->epos[s] = (uint16_t)x->n_empty;
        x->empty_id[x->n_empty] = (move_id_t)x->gi->id_of[s];
        x->empty[x->n_empty++] = (uint16_t)s;
        x->hash ^= x->gi->zob[c][s];
        x->stones--;
        s = nx;
    } while (s != h);
    s = h;
    do { /* the stones around get their liberties back */
        uint32_t q[4];
        nbrs(x, s, q);
        for (int i = 0; i < 4; i++)
            if (x->col[q[i]] == OPP(c)) addlib(x, x->head[q[i]], s);
        s = x->nxt[s];
    } while (s != h);
}

/* What playing c at empty p would do; false if it is illegal (suicide, the
 * ko point, or a board of the history). */
static bool try_move(const go_ctx_t *x, uint32_t p, int c, eff_t *e)
{
    const go_impl_t *gi = x->gi;
    if (x->col[p] != EMPTY) return false;
    if (gi->p.ko == GO_KO_SIMPLE && x->ko == p) return false;
    uint32_t q[4];
    nbrs(x, p, q);
    bool ok = false;
    e->n_cap = e->cap_stones = 0;
    e->own_nb = e->empty_nb = false;
    e->hash = x->hash ^ gi->zob[c][p];
    for (int i = 0; i < 4; i++) {
        uint8_t cq = x->col[q[i]];
        if (cq == EMPTY) {
            ok = e->empty_nb = true;
        } else if (cq == c) {
            e->own_nb = true;
            if (!in_atari(x, x->head[q[i]])) ok = true; /* a liberty beside p */
        } else if (cq == OPP(c)) {
            uint32_t h = x->head[q[i]];
            if (!in_atari(x, h)) continue;
            bool seen = false; /* its last liberty is p: captured, once */
            for (uint32_t k = 0; k < e->n_cap; k++) seen = seen || e->cap_heads[k] == h;
            if (seen) continue;
            e->cap_heads[e->n_cap++] = (uint16_t)h;
            e->cap_stones += x->nst[h];
            e->hash ^= x->ghash[h];
            ok = true;
        }
    }
    if (!ok) return false;
    if (gi->p.ko == GO_KO_POSITIONAL && (e->n_cap || x->stones + 1 <= x->hist_max)) {
        for (uint32_t i = (uint32_t)(e->hash * 0x9e3779b97f4a7c15ULL >> 40) & gi->hs_mask; x->hs[i];
             i = (i + 1) & gi->hs_mask)
            if (x->hs[i] == e->hash) return false;
    }
    return true;
}

/* A move that try_move would allow without looking further: an empty
 * neighbour, no opponent group in atari beside it (no capture) and not
 * the simple-ko point. The caller knows that the board it makes has more
 * stones than any before (fresh), so superko cannot forbid it. */
static inline bool quiet_legal(const go_ctx_t *x, uint32_t p, int c)
{
    if (x->gi->p.ko == GO_KO_SIMPLE && x->ko == p) return false;
    uint32_t q[4];
    nbrs(x, p, q);
    bool lib = false;
    for (int i = 0; i < 4; i++) {
        uint8_t cq = x->col[q[i]];
        if (cq == EMPTY) lib = true;
        else if (cq == OPP(c) && in_atari(x, x->head[q[i]])) return false;
    }
    return lib;
}

/* Whether c may play at empty p: quiet_legal where it settles it, else
 * the whole check. */
static inline bool legal_point(const go_ctx_t *x, uint32_t p, int c)
{
    eff_t e;
    bool fresh = x->gi->p.ko != GO_KO_POSITIONAL || x->stones + 1 > x->hist_max;
    return (fresh && quiet_legal(x, p, c)) || try_move(x, p, c, &e);
}

static void hs_add(go_ctx_t *x, uint64_t h)
{
    uint32_t m = x->gi->hs_mask, i = (uint32_t)(h * 0x9e3779b97f4a7c15ULL >> 40) & m;
    /* sized for 4 x the boards of a game to its cap; only moves played past
     * a terminal state could add more, and the probe must find a free slot */
    if (x->n_used > m / 2) return;
    while (x->hs[i]) {
        if (x->hs[i] == h) return;
        i = (i + 1) & m;
    }
    x->hs[i] = h;
    x->hs_used[x->n_used++] = i;
}

static bool own_eye(const go_ctx_t *x, uint32_t p, int c)
{
    uint32_t W = x->gi->W;
    for (int i = 0; i < 4; i++) {
        uint8_t cq = x->col[i == 0 ? p - 1 : i == 1 ? p + 1 : i == 2 ? p - W : p + W];
        if (cq != c && cq != BORDER) return false;
    }
    uint32_t d[4] = {p - W - 1, p - W + 1, p + W - 1, p + W + 1};
    int opp = 0, edge = 0;
    for (int i = 0; i < 4; i++) {
        if (x->col[d[i]] == BORDER) edge = 1;
        else if (x->col[d[i]] == OPP(c)) opp++;
    }
    return opp + edge < 2;
}

/* --------------------------------------------------------------- states */

static inline uint32_t st_col(const uint32_t *w, uint32_t id) { return (w[HDR + (id >> 4)] >> ((id & 15) * 2)) & 3; }
static inline void st_set(uint32_t *w, uint32_t id, uint32_t c)
{
    uint32_t *a = &w[HDR + (id >> 4)], sh = (id & 15) * 2;
    *a = (*a & ~(3u << sh)) | (c << sh);
}

static inline uint64_t st_hist(const go_impl_t *gi, const uint32_t *w, uint32_t i)
{
    const uint32_t *h = w + HDR + gi->bw + 2 * i;
    return (uint64_t)h[0] | (uint64_t)h[1] << 32;
}

static void go_set_state(void *cx, const game_state_t *s)
{
    go_ctx_t *x = cx;
    const go_impl_t *gi = x->gi;
    uint32_t n;
    const uint32_t *w = game_state_data(s, &n);
    x->cur = s;
    board_clear(x);
    for (uint32_t id = 0; id < gi->pts; id++) {
        uint32_t c = st_col(w, id);
        if (c == BLACK || c == WHITE) place(x, gi->pad_of[id], (int)c);
    }
    x->to_move = w[0] & H_WHITE;
    x->passes = (w[0] >> H_PASS_SHIFT) & 3;
    uint32_t ko = (w[0] >> H_KO_SHIFT) & 511;
    x->ko = ko ? gi->pad_of[ko - 1] : 0;
    x->ply = w[0] >> H_PLY_SHIFT;
    x->n_hist = w[1] & 0xffff;
    x->hist_max = w[1] >> 16;
    for (uint32_t i = 0; i < x->n_used; i++) x->hs[x->hs_used[i]] = 0;
    x->n_used = 0;
    for (uint32_t i = 0; i < x->n_hist; i++) hs_add(x, st_hist(gi, w, i));
    x->legal_ok = x->score_ok = x->plegal_ok = x->drawn_ok = false;
}

static void go_initial(const void *impl, game_state_t *out)
{
    const go_impl_t *gi = impl;
    bool hist = gi->p.ko == GO_KO_POSITIONAL;
    uint32_t *w = game_state_words(out, HDR + gi->bw + (hist ? 2 : 0));
    memset(w, 0, (HDR + gi->bw) * sizeof *w);
    if (hist) {
        w[1] = 1;
        w[HDR + gi->bw] = (uint32_t)gi->h0;
        w[HDR + gi->bw + 1] = (uint32_t)(gi->h0 >> 32);
    }
}

static void *go_ctx_new(const void *impl)
{
    const go_impl_t *gi = impl;
    go_ctx_t *x = xcalloc(1, sizeof *x);
    x->gi = gi;
    x->hs = xcalloc((size_t)gi->hs_mask + 1, sizeof *x->hs);
    x->hs_used = xcalloc((size_t)gi->hs_mask + 1, sizeof *x->hs_used);
    x->legal_buf = xcalloc(gi->pts + 1, sizeof *x->legal_buf);
    x->plegal_buf = xcalloc(gi->pts + 1, sizeof *x->plegal_buf);
    x->noop[0] = gi->pts + 1;
    game_state_t *s = game_state_new(NULL);
    go_initial(gi, s);
    go_set_state(x, s);
    game_state_free(s);
    return x;
}

static void go_ctx_free(void *cx)
{
    go_ctx_t *x = cx;
    free(x->hs);
    free(x->hs_used);
    free(x->legal_buf);
    free(x->plegal_buf);
    free(x);
}

static bool go_terminal(void *cx)
{
    go_ctx_t *x = cx;
    return x->passes >= 2 || x->ply >= x->gi->cap;
}

static uint32_t go_legal(void *cx, uint32_t role, const move_id_t **moves)
{
    go_ctx_t *x = cx;
    const go_impl_t *gi = x->gi;
    if (role != x->to_move) {
        *moves = x->noop;
        return 1;
    }
    if (!x->legal_ok) {
        uint32_t n = 0;
        int c = (int)role + 1;
        for (uint32_t id = 0; id < gi->pts; id++) {
            uint32_t p = gi->pad_of[id];
            if (x->col[p] == EMPTY && legal_point(x, p, c)) x->legal_buf[n++] = id;
        }
        x->legal_buf[n++] = gi->pts; /* pass */
        x->n_legal = n;
        x->legal_ok = true;
    }
    *moves = x->legal_buf;
    return x->n_legal;
}

static int area_diff(go_ctx_t *x)
{
    if (x->score_ok) return x->diff;
    const go_impl_t *gi = x->gi;
    uint8_t seen[MAXB] = {0};
    uint16_t stack[MAXB];
    int d = 0;
    for (uint32_t id = 0; id < gi->pts; id++) {
        uint32_t p = gi->pad_of[id];
        if (x->col[p] == BLACK) d++;
        else if (x->col[p] == WHITE) d--;
        else if (!seen[p]) { /* an empty region: whose it is */
            int touch = 0, size = 0, sp = 0;
            stack[sp++] = (uint16_t)p;
            seen[p] = 1;
            while (sp) {
                uint32_t s = stack[--sp], q[4];
                size++;
                nbrs(x, s, q);
                for (int i = 0; i < 4; i++) {
                    uint8_t cq = x->col[q[i]];
                    if (cq == EMPTY && !seen[q[i]]) {
                        seen[q[i]] = 1;
                        stack[sp++] = (uint16_t)q[i];
                    } else if (cq == BLACK || cq == WHITE) {
                        touch |= cq;
                    }
                }
            }
            if (touch == BLACK) d += size;
            else if (touch == WHITE) d -= size;
        }
    }
    x->diff = d;
    x->score_ok = true;
    return d;
}

static int go_goal(void *cx, uint32_t role)
{
    go_ctx_t *x = cx;
    double d = area_diff(x) - x->gi->p.komi;
    int black = d > 0 ? 100 : d < 0 ? 0 : 50;
    return role == 0 ? black : 100 - black;
}

/* The state after the mover's move m into out; play: out is the current
 * state, and the context follows it. */
static void go_next(void *cx, const move_id_t *joint, game_state_t *out, bool play)
{
    go_ctx_t *x = cx;
    const go_impl_t *gi = x->gi;
    int c = (int)x->to_move + 1;
    move_id_t m = joint[x->to_move];
    uint32_t p = m < gi->pts ? gi->pad_of[m] : 0;
    eff_t e;
    if (p && x->drawn_ok && x->drawn_p == p) e = x->drawn;
    else if (p && !try_move(x, p, c, &e)) p = 0; /* not legal: a pass (callers play legal moves) */
    bool hist = gi->p.ko == GO_KO_POSITIONAL && p;
    uint32_t n_old;
    const uint32_t *cur = game_state_data(x->cur, &n_old);
    uint32_t *w;
    if (play) { /* out is x->cur: only what changes is written */
        w = game_state_words(out, n_old + (hist ? 2 : 0));
    } else {
        w = game_state_words(out, n_old + (hist ? 2 : 0));
        memcpy(w, cur, n_old * sizeof *w);
    }
    uint32_t ko = 0, passes = 0;
    if (p) {
        st_set(w, (uint32_t)gi->id_of[p], (uint32_t)c);
        for (uint32_t k = 0; k < e.n_cap; k++) {
            uint32_t s = e.cap_heads[k];
            do {
                st_set(w, (uint32_t)gi->id_of[s], EMPTY);
                s = x->nxt[s];
            } while (s != e.cap_heads[k]);
        }
        if (gi->p.ko == GO_KO_SIMPLE && e.cap_stones == 1 && !e.own_nb && !e.empty_nb) ko = e.cap_heads[0];
        if (hist) {
            w[HDR + gi->bw + 2 * x->n_hist] = (uint32_t)e.hash;
            w[HDR + gi->bw + 2 * x->n_hist + 1] = (uint32_t)(e.hash >> 32);
            uint32_t st = x->stones + 1 - e.cap_stones;
            w[1] = (x->n_hist + 1) | (st > x->hist_max ? st : x->hist_max) << 16;
        }
    } else {
        passes = x->passes < 2 ? x->passes + 1 : 2;
    }
    w[0] = (x->to_move ^ 1) | passes << H_PASS_SHIFT | (ko ? (uint32_t)gi->id_of[ko] + 1 : 0) << H_KO_SHIFT |
           (x->ply + 1) << H_PLY_SHIFT;
    if (!play) return;
    if (p) {
        place(x, p, c);
        for (uint32_t k = 0; k < e.n_cap; k++) remove_group(x, e.cap_heads[k]);
        if (hist) {
            hs_add(x, e.hash);
            x->n_hist++;
            if (x->stones > x->hist_max) x->hist_max = x->stones;
        }
    }
    x->to_move ^= 1;
    x->passes = passes;
    x->ko = ko;
    x->ply++;
    x->legal_ok = x->score_ok = x->plegal_ok = x->drawn_ok = false;
}

static bool go_playout_move(void *cx, uint32_t role, rng_t *rng, move_id_t *out, bool *decides)
{
    go_ctx_t *x = cx;
    const go_impl_t *gi = x->gi;
    if (role != x->to_move) {
        *out = gi->pts + 1;
        *decides = false;
        return true;
    }
    int c = (int)role + 1;
    uint32_t n = x->n_empty;
    bool other = false; /* a legal eye-filling move: pass is still a choice */
    eff_t e;
    if (n) {
        uint32_t start = rng_below(rng, n);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t k = start + i < n ? start + i : start + i - n;
            uint32_t p = x->empty[k];
            if (own_eye(x, p, c)) {
                if (!other) other = try_move(x, p, c, &e);
                continue;
            }
            if (try_move(x, p, c, &e)) {
                x->drawn_ok = true;
                x->drawn_p = p;
                x->drawn = e;
                *out = (uint32_t)gi->id_of[p];
                *decides = true;
                return true;
            }
        }
    }
    *out = gi->pts;
    *decides = other;
    return true;
}

/* The list form of the policy above, for MAST's playouts. */
static uint32_t go_playout_legal(void *cx, uint32_t role, const move_id_t **moves)
{
    go_ctx_t *x = cx;
    const go_impl_t *gi = x->gi;
    if (role != x->to_move) {
        *moves = x->noop;
        return 1;
    }
    if (!x->plegal_ok) {
        uint32_t n = 0;
        int c = (int)role + 1;
        for (uint32_t id = 0; id < gi->pts; id++) {
            uint32_t p = gi->pad_of[id];
            if (x->col[p] == EMPTY && !own_eye(x, p, c) && legal_point(x, p, c)) x->plegal_buf[n++] = id;
        }
        if (!n) x->plegal_buf[n++] = gi->pts;
        x->n_plegal = n;
        x->plegal_ok = true;
    }
    *moves = x->plegal_buf;
    return x->n_plegal;
}

/* The list above in two parts (game_playout_cands): the empty points, as
 * the board keeps them, and the test of one (not an own eye; suicide, ko,
 * superko). MAST's playouts draw a move and test it: about two try_move
 * a step instead of one per empty point (two thirds of a GRAVE search's
 * time on 9x9 went to listing the points a playout may play). */
static uint32_t go_playout_cands(void *cx, uint32_t role, const move_id_t **moves)
{
    go_ctx_t *x = cx;
    if (role != x->to_move) return 0; /* the noop: playout_legal's list */
    *moves = x->empty_id;
    return x->n_empty;
}

static bool go_playout_accepts(void *cx, uint32_t role, move_id_t m)
{
    go_ctx_t *x = cx;
    const go_impl_t *gi = x->gi;
    return role == x->to_move && m < gi->pts && x->col[gi->pad_of[m]] == EMPTY &&
           !own_eye(x, gi->pad_of[m], (int)role + 1) && legal_point(x, gi->pad_of[m], (int)role + 1);
}

/* ----------------------------------------------------------------- text */

static uint32_t go_num_moves(const void *impl, uint32_t role)
{
    (void)role;
    return ((const go_impl_t *)impl)->pts + 2;
}

static const char *go_move_name(const void *impl, uint32_t role, move_id_t m)
{
    (void)role;
    const go_impl_t *gi = impl;
    return m < gi->pts + 2 ? gi->move_names[m] : "?";
}

/* A token of KIF: '(' or ')' or a word; returns its length (0 at end). */
static size_t token(const char **pp, const char *end)
{
    const char *p = *pp;
    while (p < end && isspace((unsigned char)*p)) p++;
    *pp = p;
    if (p == end) return 0;
    if (*p == '(' || *p == ')') return 1;
    const char *a = p;
    while (p < end && !isspace((unsigned char)*p) && *p != '(' && *p != ')') p++;
    return (size_t)(p - a);
}

static bool word_is(const char *t, size_t len, const char *w) { return strlen(w) == len && !strncasecmp(t, w, len); }

static bool number(const char *t, size_t len, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint32_t v = 0;
    if (!len || len > 3) return false;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)t[i])) return false;
        v = v * 10 + (uint32_t)(t[i] - '0');
    }
    if (v < lo || v > hi || (len > 1 && t[0] == '0')) return false;
    *out = v;
    return true;
}

static bool go_move_from_text(void *cx, uint32_t role, const char *text, size_t len, move_id_t *out)
{
    go_ctx_t *x = cx;
    const go_impl_t *gi = x->gi;
    const char *p = text, *end = text + len, *t[6];
    size_t tl[6], n = 0, l;
    while ((l = token(&p, end))) {
        if (n == 6) return false;
        t[n] = p;
        tl[n++] = l;
        p += l;
    }
    move_id_t m;
    uint32_t cx_, cy;
    bool paren = n >= 2 && tl[0] == 1 && *t[0] == '(' && tl[n - 1] == 1 && *t[n - 1] == ')';
    size_t a = paren ? 1 : 0, k = paren ? n - 2 : n; /* the words inside */
    if (k == 1 && word_is(t[a], tl[a], "pass")) m = gi->pts;
    else if (k == 1 && word_is(t[a], tl[a], "noop")) m = gi->pts + 1;
    else if (paren && k == 3 && word_is(t[1], tl[1], "play") && number(t[2], tl[2], 1, gi->n, &cx_) &&
             number(t[3], tl[3], 1, gi->n, &cy))
        m = (cy - 1) * gi->n + cx_ - 1;
    else return false;
    const move_id_t *lm;
    uint32_t nl = go_legal(x, role, &lm);
    for (uint32_t i = 0; i < nl; i++)
        if (lm[i] == m) {
            *out = m;
            return true;
        }
    return false;
}

/* Fluent ids: cells 2 id + colour - 1; control 2P + r; passes 2P + 1 + n;
 * ko 2P + 4 + id; step 3P + 4 + ply. Increasing in that order. */
static uint32_t go_fluents(const void *impl, const game_state_t *s, uint32_t *out, uint32_t cap)
{
    const go_impl_t *gi = impl;
    uint32_t nw, n = 0, P = gi->pts;
    const uint32_t *w = game_state_data(s, &nw);
#define PUT(v)                                                                                                         \
    do {                                                                                                               \
        if (n < cap) out[n] = (v);                                                                                     \
        n++;                                                                                                           \
    } while (0)
    for (uint32_t id = 0; id < P; id++) { /* bit 0 black, bit 1 white: both only in go_all_fluents */
        uint32_t c = st_col(w, id);
        if (c & BLACK) PUT(2 * id);
        if (c & WHITE) PUT(2 * id + 1);
    }
    PUT(2 * P + (w[0] & H_WHITE));
    uint32_t passes = (w[0] >> H_PASS_SHIFT) & 3, ko = (w[0] >> H_KO_SHIFT) & 511;
    if (passes) PUT(2 * P + 1 + passes);
    if (ko) PUT(2 * P + 4 + ko - 1);
    PUT(3 * P + 4 + (w[0] >> H_PLY_SHIFT));
#undef PUT
    return n;
}

static size_t go_fluent_text(const void *impl, uint32_t f, char *buf, size_t len)
{
    const go_impl_t *gi = impl;
    uint32_t P = gi->pts, n = gi->n;
    int r;
    if (f < 2 * P) r = snprintf(buf, len, "(cell %u %u %s)", f / 2 % n + 1, f / 2 / n + 1, role_names[f & 1]);
    else if (f < 2 * P + 2) r = snprintf(buf, len, "(control %s)", role_names[f - 2 * P]);
    else if (f < 2 * P + 4) r = snprintf(buf, len, "(passes %u)", f - 2 * P - 1);
    else if (f < 3 * P + 4) r = snprintf(buf, len, "(ko %u %u)", (f - 2 * P - 4) % n + 1, (f - 2 * P - 4) / n + 1);
    else r = snprintf(buf, len, "(step %u)", f - 3 * P - 4);
    return r < 0 ? 0 : (size_t)r;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void go_state_print(const void *impl, const game_state_t *s, FILE *out)
{
    const go_impl_t *gi = impl;
    uint32_t cap = gi->pts + 8, *ids = xcalloc(cap, sizeof *ids);
    uint32_t n = go_fluents(impl, s, ids, cap);
    char **t = xcalloc(n ? n : 1, sizeof *t);
    for (uint32_t i = 0; i < n; i++) {
        char buf[64];
        go_fluent_text(impl, ids[i], buf, sizeof buf);
        t[i] = xstrdup(buf);
    }
    qsort(t, n, sizeof *t, cmp_str);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(out, "%s%s", i ? " " : "", t[i]);
        free(t[i]);
    }
    free(t);
    free(ids);
}

/* Every cell of either colour: the board's extent, for tools that lay a
 * state out (game_all_fluents). Never a context's state. */
static bool go_all_fluents(const void *impl, game_state_t *out)
{
    const go_impl_t *gi = impl;
    uint32_t *w = game_state_words(out, HDR + gi->bw);
    memset(w, 0, (HDR + gi->bw) * sizeof *w);
    for (uint32_t id = 0; id < gi->pts; id++) st_set(w, id, BLACK | WHITE);
    return true;
}

/* ------------------------------------------------------------- the game */

static void go_destroy(void *impl)
{
    go_impl_t *gi = impl;
    for (uint32_t i = 0; i < gi->pts + 2; i++) free(gi->move_names[i]);
    free(gi->move_names);
    free(gi);
}

static const native_vtbl_t go_vtbl = {
    .destroy = go_destroy,
    .ctx_new = go_ctx_new,
    .ctx_free = go_ctx_free,
    .initial = go_initial,
    .set_state = go_set_state,
    .terminal = go_terminal,
    .legal = go_legal,
    .goal = go_goal,
    .next = go_next,
    .num_moves = go_num_moves,
    .move_name = go_move_name,
    .move_from_text = go_move_from_text,
    .state_print = go_state_print,
    .fluents = go_fluents,
    .fluent_text = go_fluent_text,
    .all_fluents = go_all_fluents,
    .playout_move = go_playout_move,
    .playout_legal = go_playout_legal,
    .playout_cands = go_playout_cands,
    .playout_accepts = go_playout_accepts,
    .history_ordered = true, /* the candidates' order (go_set_state rebuilds it) */
};

go_params_t go_params_default(uint32_t size) { return (go_params_t){.size = size, .komi = 7.5}; }

bool go_params_parse(go_params_t *p, const char *opts, char *err, size_t err_len)
{
    const char *s = opts;
    while (*s) {
        size_t len = strcspn(s, ",");
        const char *eq = memchr(s, '=', len);
        size_t klen = eq ? (size_t)(eq - s) : len;
        char val[64] = "";
        if (eq) snprintf(val, sizeof val, "%.*s", (int)(len - klen - 1), eq + 1);
        char *end;
        if (eq && klen == 4 && !strncmp(s, "komi", 4)) {
            errno = 0;
            double k = strtod(val, &end);
            if (!*val || *end || errno || !isfinite(k) || fabs(k) > 1000 || k * 2 != floor(k * 2)) {
                snprintf(err, err_len, "bad komi '%s' (expected a multiple of 0.5, e.g. 7.5)", val);
                return false;
            }
            p->komi = k;
        } else if (eq && klen == 2 && !strncmp(s, "ko", 2)) {
            if (!strcmp(val, "positional")) p->ko = GO_KO_POSITIONAL;
            else if (!strcmp(val, "simple")) p->ko = GO_KO_SIMPLE;
            else {
                snprintf(err, err_len, "bad ko rule '%s' (expected positional or simple)", val);
                return false;
            }
        } else if (eq && klen == 3 && !strncmp(s, "cap", 3)) {
            errno = 0;
            unsigned long v = strtoul(val, &end, 10);
            if (!*val || *end || errno || val[0] == '-' || v < 1 || v > 10000) {
                snprintf(err, err_len, "bad move cap '%s' (expected 1 to 10000 plies)", val);
                return false;
            }
            p->max_plies = (uint32_t)v;
        } else {
            snprintf(err, err_len, "unknown option '%.*s' (expected komi=K, ko=positional|simple or cap=N)", (int)len,
                     s);
            return false;
        }
        s += len;
        if (*s == ',') s++;
    }
    return true;
}

game_t *go_game_new(const go_params_t *p)
{
    if (p->size < GO_MIN_SIZE || p->size > GO_MAX_SIZE) return NULL;
    go_impl_t *gi = xcalloc(1, sizeof *gi);
    gi->p = *p;
    gi->n = p->size;
    gi->W = p->size + 2;
    gi->pts = p->size * p->size;
    gi->cap = p->max_plies ? p->max_plies : 3 * gi->pts;
    if (gi->cap >= (1u << (32 - H_PLY_SHIFT))) gi->cap = (1u << (32 - H_PLY_SHIFT)) - 1;
    gi->bw = (gi->pts + 15) / 16;
    uint32_t slots = 64;
    while (slots < 4 * (gi->cap + 2)) slots *= 2;
    gi->hs_mask = slots - 1;
    rng_t r; /* fixed keys: the same hashes in every run and thread */
    rng_seed(&r, 0x60A11CE5EEDULL);
    for (int c = 0; c < 3; c++)
        for (uint32_t i = 0; i < MAXB; i++) gi->zob[c][i] = rng_next(&r);
    do gi->h0 = rng_next(&r);
    while (!gi->h0);
    for (uint32_t i = 0; i < MAXB; i++) gi->id_of[i] = -1;
    gi->move_names = xcalloc(gi->pts + 2, sizeof *gi->move_names);
    for (uint32_t y = 1; y <= gi->n; y++)
        for (uint32_t x = 1; x <= gi->n; x++) {
            uint32_t id = (y - 1) * gi->n + x - 1, pad = y * gi->W + x;
            gi->pad_of[id] = (uint16_t)pad;
            gi->id_of[pad] = (int16_t)id;
            char buf[32];
            snprintf(buf, sizeof buf, "(play %u %u)", x, y);
            gi->move_names[id] = xstrdup(buf);
        }
    gi->move_names[gi->pts] = xstrdup("pass");
    gi->move_names[gi->pts + 1] = xstrdup("noop");
    return game_native_new(&go_vtbl, gi, role_names, 2);
}

bool go_state_from_rows(const game_t *g, const char *const *rows, bool white_to_move, game_state_t *out)
{
    const go_impl_t *gi = game_native_impl(g);
    if (!gi || game_num_moves(g, 0) != gi->pts + 2) return false;
    for (uint32_t y = 0; y < gi->n; y++)
        if (strlen(rows[y]) != gi->n || strspn(rows[y], ".XO") != gi->n) return false;
    bool hist = gi->p.ko == GO_KO_POSITIONAL;
    uint32_t *w = game_state_words(out, HDR + gi->bw + (hist ? 2 : 0));
    memset(w, 0, (HDR + gi->bw) * sizeof *w);
    w[0] = white_to_move ? H_WHITE : 0;
    uint64_t h = gi->h0;
    uint32_t stones = 0;
    for (uint32_t y = 0; y < gi->n; y++)
        for (uint32_t x = 0; x < gi->n; x++) {
            char ch = rows[y][x];
            uint32_t c = ch == 'X' ? BLACK : ch == 'O' ? WHITE : EMPTY, id = y * gi->n + x;
            if (!c) continue;
            st_set(w, id, c);
            h ^= gi->zob[c][gi->pad_of[id]];
            stones++;
        }
    if (hist) {
        w[1] = 1 | stones << 16;
        w[HDR + gi->bw] = (uint32_t)h;
        w[HDR + gi->bw + 1] = (uint32_t)(h >> 32);
    }
    return true;
}

bool go_state_give_turn(const game_t *g, game_state_t *s)
{
    const go_impl_t *gi = game_native_impl(g);
    if (!gi || game_num_moves(g, 0) != gi->pts + 2) return false;
    uint32_t n;
    game_state_data(s, &n);
    uint32_t *w = game_state_words(s, n);
    w[0] = (w[0] ^ H_WHITE) & ~(511u << H_KO_SHIFT) & ~(3u << H_PASS_SHIFT);
    return true;
}

int go_area_diff(game_ctx_t *c) { return area_diff(game_native_ctx(c)); }

bool go_fills_own_eye(game_ctx_t *c, uint32_t role, move_id_t m)
{
    go_ctx_t *x = game_native_ctx(c);
    if (!x || role != x->to_move || m >= x->gi->pts) return false;
    /* No group around such a point is saved by the fill: its neighbours
     * are linked by own diagonals into one group, except across an empty
     * diagonal (a liberty of both sides) or the one opposing diagonal a
     * centre eye may have (then the chain ends at an empty diagonal on its
     * other side); so a neighbour in atari is one group around the point,
     * and filling its last liberty is suicide, which try_move refuses. */
    uint32_t p = x->gi->pad_of[m];
    eff_t e;
    return own_eye(x, p, (int)role + 1) && try_move(x, p, (int)role + 1, &e);
}
