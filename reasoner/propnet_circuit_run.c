/* propnet_circuit_run.c - run the propnet's optimised circuit (see
 * propnet_circuit.h for what and why; propnet_circuit_build.c lays it out):
 * counters, fan-outs, cyclic groups, mutex tables, snapshots. */
#include "reasoner/propnet_circuit_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* Counts of the propagation's work, for bench/plies_stats.sh: compiled in
 * only with GGP_PN_STATS (cmake -DGGP_PN_STATS=ON), printed to stderr when
 * the run is freed. STAT(...) is its code, nothing otherwise. */
#ifdef GGP_PN_STATS
#include <stdio.h>
typedef struct pn_stats {
    uint64_t props;  /* propagations */
    uint64_t pops;   /* events popped */
    uint64_t edges;  /* counter edges followed */
    uint64_t flips;  /* gates flipped by a counter */
    uint64_t net;    /* of those gates, how many a propagation left changed */
    uint64_t dead;   /* edges into an AND that another input, a false state bit, holds false */
    uint8_t *mark, *orig, *is_base;
    uint32_t *list, n_list;
} pn_stats_t;
#define STAT(...) __VA_ARGS__
#else
#define STAT(...)
#endif

/* --------------------------------------------------------------- running */

/* A copy of the running state for a state set from outside (a search
 * returns to its root at every iteration, a benchmark to the initial
 * state): going back is a copy, not the undoing of a whole playout. */
#define PN_SNAPS 2
/* Words of the legal summary: one bit per legal word pair, and room for
 * the marks that the next state's toggles make past them. */
#define PN_LSUM_WORDS(c) (((2 * (c)->n_lwords + (c)->n_words) * 32 + 2047) / 2048 + 1)
#define PN_SNAP_MAX_NODES (1u << 21)
typedef struct pn_snap {
    bool ok;
    uint64_t used;
    int32_t *cnt;
    uint32_t *bits, *applied, *last_does, *act;
} pn_snap_t;

struct pn_run {
    const pn_circuit_t *c;
    const pn_node_t *node; /* c->node, one load less per flip */
    /* Per node: a gate's counter, an input's value (1 or 0); the node's
     * value is cnt > 0 (no array of values to keep in step: a flip writes
     * one line less, a snapshot copies less). */
    int32_t *cnt;
    uint8_t *gold; /* a cyclic group's values before its recount */
    uint32_t *stack, n_stack, cap_stack;
    uint32_t *queue; /* cyclic recompute */
    uint64_t *pending;
    uint32_t n_pwords;
    uint32_t *applied;
    uint32_t *bits; /* next state [0, n_words), legal moves, legal moves under the gate */
    uint32_t *next_bits;
    uint32_t *lsum; /* per legal word pair: a bit set when it was touched (clear: both words are 0) */
    uint32_t *last_does;
    uint32_t *act;           /* per mutex group: the active member's index, or NONE */
    uint32_t *touched, n_touched; /* mutex groups whose members flipped */
    uint32_t *cand;               /* per touched group: the member that came on, or NONE */
    uint8_t *tflag;
    move_id_t **legal;
    uint32_t *n_legal;
    uint32_t *legal_gen, gen; /* a role's list holds for the state of generation gen */
    bool lazy_ok; /* the lazy (goal-only) gates hold for the current state */
    pn_snap_t snap[PN_SNAPS];
    uint64_t tick;
    STAT(pn_stats_t st;)
};

static inline void run_toggle(pn_run_t *x, uint32_t e)
{
    x->bits[e >> 5] ^= 1u << (e & 31);
}

static inline void run_flip(pn_run_t *x, uint32_t v, uint32_t nv)
{
    const pn_node_t *d = &x->node[v];
    uint32_t fl = d->fl;
    if (fl & FL_FAN) {
        if (__builtin_expect(x->n_stack == x->cap_stack, 0)) {
            x->cap_stack *= 2;
            x->stack = xreallocarray(x->stack, x->cap_stack, sizeof *x->stack);
        }
        x->stack[x->n_stack++] = v << 1 | nv;
    }
    if (fl & FL_OUT) {
        if (__builtin_expect(!(fl & FL_MULTI), 1)) {
            x->bits[d->out] ^= 1u << (fl >> FL_SHIFT);
        } else {
            /* A node with a move of a summarised role marks the word pairs
             * it toggles (they may be nonzero); the others need not. */
            const uint32_t *m = x->c->mouts + d->out;
            if (fl & FL_LSUM)
                for (uint32_t o = 1; o <= m[0]; o++) {
                    run_toggle(x, m[o]);
                    x->lsum[m[o] >> 11] |= 1u << ((m[o] >> 6) & 31);
                }
            else
                for (uint32_t o = 1; o <= m[0]; o++) run_toggle(x, m[o]);
        }
    }
}

/* The same for the propagation loop, on local copies of the running
 * state: a store to a counter may alias x's fields (int32_t and uint32_t
 * alias), so a flip that reads these through x reloads them all. */
typedef struct run_hot {
    const pn_node_t *node;
    const uint32_t *mouts;
    uint32_t *bits, *lsum, *stack;
    uint32_t n_stack, cap;
} run_hot_t;

static __attribute__((noinline)) uint32_t *run_grow(pn_run_t *x)
{
    x->cap_stack *= 2;
    x->stack = xreallocarray(x->stack, x->cap_stack, sizeof *x->stack);
    return x->stack;
}

static inline void hot_flip(pn_run_t *x, run_hot_t *h, uint32_t v, uint32_t nv)
{
    STAT(x->st.flips++; if (!x->st.mark[v]) {
        x->st.mark[v] = 1;
        x->st.orig[v] = !nv;
        x->st.list[x->st.n_list++] = v;
    })
    const pn_node_t *d = &h->node[v];
    uint32_t fl = d->fl;
    if (fl & FL_FAN) {
        if (__builtin_expect(h->n_stack == h->cap, 0)) {
            h->stack = run_grow(x);
            h->cap = x->cap_stack;
        }
        h->stack[h->n_stack++] = v << 1 | nv;
    }
    if (fl & FL_OUT) {
        if (__builtin_expect(!(fl & FL_MULTI), 1)) {
            h->bits[d->out] ^= 1u << (fl >> FL_SHIFT);
        } else {
            const uint32_t *m = h->mouts + d->out;
            if (fl & FL_LSUM)
                for (uint32_t o = 1; o <= m[0]; o++) {
                    h->bits[m[o] >> 5] ^= 1u << (m[o] & 31);
                    h->lsum[m[o] >> 11] |= 1u << ((m[o] >> 6) & 31);
                }
            else
                for (uint32_t o = 1; o <= m[0]; o++) h->bits[m[o] >> 5] ^= 1u << (m[o] & 31);
        }
    }
}

/* A gate's counter from its inputs' values (inside a cyclic group, the
 * group's own inputs count as false). */
static int32_t run_count(const pn_run_t *x, uint32_t v, uint32_t glo, uint32_t ghi)
{
    const pn_circuit_t *c = x->c;
    int32_t n = 0;
    for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1]; j++) {
        uint32_t l = c->in[j], p = l >> 1;
        if (p >= glo && p < ghi) continue;
        n += ((uint32_t)(x->cnt[p] > 0) ^ l) & 1;
    }
    return c->kind[v] == K_AND ? n - (int32_t)(c->in_off[v + 1] - c->in_off[v]) + 1 : n;
}

/* Least fixpoint of a cyclic group from its support outside: counters
 * from the outside inputs, then breadth-first along the group's own
 * (positive) edges. Sets cnt; returns nothing, values are cnt > 0. */
static void run_group_fix(pn_run_t *x, uint32_t gi)
{
    const pn_circuit_t *c = x->c;
    uint32_t lo = c->group_lo[gi], hi = c->group_hi[gi], qh = 0, qt = 0;
    for (uint32_t v = lo; v < hi; v++) {
        x->cnt[v] = run_count(x, v, lo, hi);
        if (x->cnt[v] > 0) x->queue[qt++] = v;
    }
    while (qh < qt) {
        uint32_t p = x->queue[qh++];
        for (uint32_t f = c->int_off[p]; f < c->fan_off[p + 1]; f++) {
            uint32_t q = c->fan[f];
            if (++x->cnt[q] == 1) x->queue[qt++] = q;
        }
    }
}

/* A popped node's rare work (cyclic groups to mark, mutex tables), out of
 * the hot loop so that the loop keeps fewer values live. fe: the node's
 * group list. */
static __attribute__((noinline)) void run_slow(pn_run_t *x, uint32_t e)
{
    const pn_circuit_t *c = x->c;
    int32_t *cnt = x->cnt;
    uint32_t p = e >> 1, v = e & 1, fl = c->node[p].fl;
    for (uint32_t k = c->grp_off[p]; k < c->int_off[p]; k++) {
        uint32_t gi = c->fan[k];
        x->pending[gi >> 6] |= 1ULL << (gi & 63);
    }
    if (fl & FL_MUX) {
        for (uint32_t k = c->mux_off[p]; k < c->mux_off[p + 1]; k++) {
            uint32_t a = x->act[c->mux[2 * k]];
            if (a == NONE) continue;
            const uint32_t *t = c->mtab + c->mux[2 * k + 1] + a;
            for (uint32_t q = t[0]; q < t[1]; q++) {
                uint32_t ed = c->medge[q], tg = ed >> 1, up = (v ^ ed) & 1;
                int32_t nc = cnt[tg] + (int32_t)(up << 1) - 1;
                cnt[tg] = nc;
                if (nc == (int32_t)up) run_flip(x, tg, up);
            }
        }
    }
}

#ifdef GGP_PN_STATS
static void stat_edges(pn_run_t *x, uint32_t e, const uint32_t *f, const uint32_t *fe)
{
    const pn_circuit_t *c = x->c;
    x->st.pops++;
    x->st.edges += (uint64_t)(fe - f);
    for (; f < fe; f++) {
        uint32_t t = *f;
        if (c->kind[t] != K_AND) continue;
        for (uint32_t j = c->in_off[t]; j < c->in_off[t + 1]; j++) {
            uint32_t l = c->in[j];
            if (!(l & 1) && l >> 1 != e >> 1 && x->st.is_base[l >> 1] && x->cnt[l >> 1] <= 0) {
                x->st.dead++;
                break;
            }
        }
    }
}

static void stat_end(pn_run_t *x)
{
    x->st.props++;
    for (uint32_t i = 0; i < x->st.n_list; i++) {
        uint32_t v = x->st.list[i];
        x->st.mark[v] = 0;
        x->st.net += (uint8_t)(x->cnt[v] > 0) != x->st.orig[v];
    }
    x->st.n_list = 0;
}
#endif

static void run_propagate(pn_run_t *x)
{
    const pn_circuit_t *c = x->c;
    const uint32_t *cedge = c->cedge;
    const pn_node_t *node = c->node;
    int32_t *cnt = x->cnt;
    for (;;) {
        run_hot_t h = {node, c->mouts, x->bits, x->lsum, x->stack, x->n_stack, x->cap_stack};
        while (h.n_stack) {
            uint32_t e = h.stack[--h.n_stack];
            const pn_node_t *d = &node[e >> 1];
            /* The rare work first (the order of a node's events does not
             * change the counters they leave). */
            if (__builtin_expect(d->fl & FL_SLOW, 0)) {
                x->n_stack = h.n_stack;
                run_slow(x, e);
                h.stack = x->stack;
                h.n_stack = x->n_stack;
                h.cap = x->cap_stack;
            }
            /* +1 to the gates whose input literal became true, -1 to the
             * others; a gate flips when its counter crosses 0/1. */
            const uint32_t *f = cedge + d->fan, *fm = cedge + d->mid, *fe = cedge + d[1].fan;
            STAT(stat_edges(x, e, f, fe);)
            if (e & 1) {
                for (; f < fm; f++)
                    if (++cnt[*f] == 1) hot_flip(x, &h, *f, 1);
                for (; f < fe; f++)
                    if (--cnt[*f] == 0) hot_flip(x, &h, *f, 0);
            } else {
                for (; f < fm; f++)
                    if (--cnt[*f] == 0) hot_flip(x, &h, *f, 0);
                for (; f < fe; f++)
                    if (++cnt[*f] == 1) hot_flip(x, &h, *f, 1);
            }
        }
        x->n_stack = 0;
        uint32_t w = 0;
        while (w < x->n_pwords && !x->pending[w]) w++;
        if (w == x->n_pwords) {
            STAT(stat_end(x);)
            return;
        }
        uint32_t gi = w * 64 + (uint32_t)__builtin_ctzll(x->pending[w]);
        x->pending[w] &= x->pending[w] - 1;
        uint32_t lo = c->group_lo[gi], hi = c->group_hi[gi];
        for (uint32_t v = lo; v < hi; v++) x->gold[v - lo] = x->cnt[v] > 0;
        run_group_fix(x, gi);
        for (uint32_t v = lo; v < hi; v++) {
            uint32_t now = x->cnt[v] > 0;
            if (now != x->gold[v - lo]) run_flip(x, v, now);
        }
    }
}

/* The counter of a gate whose guard is not active: far from 0, so that
 * the counter edges that still reach it never flip it. */
#define MUX_DEAD (INT32_MIN / 4)

/* Member s of a mutex group becomes active: its gates' counters from their
 * inputs (all settled), then the flips (so that events between them count
 * once). */
static void run_mux_on(pn_run_t *x, uint32_t s)
{
    const pn_circuit_t *c = x->c;
    for (uint32_t k = c->gd_off[s]; k < c->gd_off[s + 1]; k++) {
        uint32_t o = c->gd_lit[k];
        x->cnt[c->gd[k]] = o != NONE ? (int32_t)(((uint32_t)(x->cnt[o >> 1] > 0) ^ o) & 1) : run_count(x, c->gd[k], 0, 0);
    }
    for (uint32_t k = c->gd_off[s]; k < c->gd_off[s + 1]; k++)
        if (x->cnt[c->gd[k]] > 0) run_flip(x, c->gd[k], 1);
}

static void run_mux_off(pn_run_t *x, uint32_t s)
{
    const pn_circuit_t *c = x->c;
    for (uint32_t k = c->gd_off[s]; k < c->gd_off[s + 1]; k++) {
        uint32_t v = c->gd[k];
        bool on = x->cnt[v] > 0;
        x->cnt[v] = MUX_DEAD;
        if (on) run_flip(x, v, 0);
    }
}

pn_run_t *pn_run_new(const pn_circuit_t *c)
{
    pn_run_t *x = xcalloc(1, sizeof *x);
    x->c = c;
    x->node = c->node;
    uint32_t nn = c->n_nodes;
    {
        uint32_t gmax = 1;
        for (uint32_t gi = 0; gi < c->n_groups; gi++)
            if (c->group_hi[gi] - c->group_lo[gi] > gmax) gmax = c->group_hi[gi] - c->group_lo[gi];
        x->gold = xmalloc(gmax);
    }
    x->cnt = xcalloc(nn, sizeof *x->cnt);
    STAT(x->st.mark = xcalloc(nn + 1, 1); x->st.orig = xcalloc(nn + 1, 1); x->st.is_base = xcalloc(nn + 1, 1);
         x->st.list = xmalloc((nn + 1) * sizeof *x->st.list);
         for (uint32_t b = 0; b < c->n_base; b++) if (c->base_node[b] != NONE) x->st.is_base[c->base_node[b]] = 1;)
    x->cap_stack = 2 * nn + 16;
    x->stack = xmalloc(x->cap_stack * sizeof *x->stack);
    x->queue = xmalloc((nn ? nn : 1) * sizeof *x->queue);
    x->n_pwords = (c->n_groups + 63) / 64;
    x->pending = xcalloc(x->n_pwords + 1, sizeof *x->pending);
    x->applied = xcalloc(c->n_words + 1, sizeof *x->applied);
    x->bits = xcalloc(c->n_words + 2 * c->n_lwords + 1, sizeof *x->bits);
    x->next_bits = x->bits + 2 * c->n_lwords;
    x->lsum = xcalloc(PN_LSUM_WORDS(c), sizeof *x->lsum);
    uint32_t nr = c->n_roles ? c->n_roles : 1;
    x->last_does = xmalloc(nr * sizeof *x->last_does);
    memset(x->last_does, 0xff, nr * sizeof *x->last_does);
    x->legal = xcalloc(nr, sizeof *x->legal);
    x->n_legal = xcalloc(nr, sizeof *x->n_legal);
    x->legal_gen = xcalloc(nr, sizeof *x->legal_gen);
    x->gen = 1;
    for (uint32_t r = 0; r < c->n_roles; r++) x->legal[r] = xmalloc((c->n_moves[r] ? c->n_moves[r] : 1) * sizeof **x->legal);
    x->act = xmalloc((c->n_mg + 1) * sizeof *x->act);
    memset(x->act, 0xff, (c->n_mg + 1) * sizeof *x->act);
    x->touched = xmalloc((c->n_mg + 1) * sizeof *x->touched);
    x->tflag = xcalloc(c->n_mg + 1, 1);
    x->cand = xmalloc((c->n_mg + 1) * sizeof *x->cand);
    /* Every input false: evaluate in order (ids are topological). */
    x->cnt[0] = 1;
    for (uint32_t v = 1; v < nn;) {
        if (c->kind[v] != K_AND && c->kind[v] != K_OR) {
            v++;
            continue;
        }
        if (c->group[v] != NONE) {
            uint32_t gi = c->group[v];
            run_group_fix(x, gi);
            v = c->group_hi[gi];
            continue;
        }
        x->cnt[v] = run_count(x, v, 0, 0);
        v++;
    }
    /* No member is on: every guarded gate is dead (and false). */
    for (uint32_t k = 0; k < c->gd_off[nn]; k++) x->cnt[c->gd[k]] = MUX_DEAD;
#define LITVAL(l) (((uint32_t)(x->cnt[(l) >> 1] > 0) ^ (l)) & 1)
    for (uint32_t i = 0; i < c->n_next; i++)
        if (LITVAL(c->next_lit[i])) x->next_bits[c->next_bit[i] >> 5] |= 1u << (c->next_bit[i] & 31);
    for (uint32_t r = 0; r < c->n_roles; r++)
        for (uint32_t m = 0; m < c->n_moves[r]; m++)
            if (LITVAL(c->legal_lit[r][m])) {
                uint32_t i = (2 * (c->lw_off[r] + m / 32) + c->legal_gated[r][m]) * 32 + m % 32;
                x->bits[i >> 5] |= 1u << (i & 31);
            }
    memset(x->lsum, 0xff, PN_LSUM_WORDS(c) * sizeof *x->lsum);
    return x;
}

void pn_run_free(pn_run_t *x)
{
    if (!x) return;
    STAT(fprintf(stderr, "pn_stats propagations=%llu pops=%llu edges=%llu flips=%llu net=%llu dead_and_edges=%llu\n",
                 (unsigned long long)x->st.props, (unsigned long long)x->st.pops, (unsigned long long)x->st.edges,
                 (unsigned long long)x->st.flips, (unsigned long long)x->st.net, (unsigned long long)x->st.dead);
         free(x->st.mark); free(x->st.orig); free(x->st.is_base); free(x->st.list);)
    for (uint32_t r = 0; r < x->c->n_roles; r++) free(x->legal[r]);
    free(x->legal);
    free(x->n_legal);
    free(x->legal_gen);
    for (uint32_t k = 0; k < PN_SNAPS; k++) {
        free(x->snap[k].cnt);
        free(x->snap[k].bits);
        free(x->snap[k].applied);
        free(x->snap[k].last_does);
        free(x->snap[k].act);
    }
    free(x->act);
    free(x->touched);
    free(x->tflag);
    free(x->cand);
    free(x->last_does);
    free(x->gold);
    free(x->cnt);
    free(x->stack);
    free(x->queue);
    free(x->pending);
    free(x->applied);
    free(x->bits);
    free(x->lsum);
    free(x);
}

static void snap_copy(const pn_run_t *x, int32_t *cnt, uint32_t *bits, uint32_t *applied,
                      uint32_t *last_does, uint32_t *act, const int32_t *cnt_s,
                      const uint32_t *bits_s, const uint32_t *applied_s, const uint32_t *last_does_s,
                      const uint32_t *act_s)
{
    const pn_circuit_t *c = x->c;
    if (c->n_mg) memcpy(act, act_s, c->n_mg * sizeof *act);
    memcpy(cnt, cnt_s, c->n_nodes * sizeof *cnt);
    memcpy(bits, bits_s, (c->n_words + 2 * c->n_lwords) * sizeof *bits);
    memcpy(applied, applied_s, c->n_words * sizeof *applied);
    memcpy(last_does, last_does_s, c->n_roles * sizeof *last_does);
}

/* Flip the base inputs that differ from bits. With mutex groups (a
 * constant, so each caller gets its own copy of the loop), note the groups
 * touched and the member that came on. */
static inline void apply_diff(pn_run_t *x, const uint32_t *bits, bool mux)
{
    const pn_circuit_t *c = x->c;
    for (uint32_t w = 0; w < c->n_words; w++) {
        uint32_t diff = bits[w] ^ x->applied[w];
        while (diff) {
            uint32_t bt = w * 32 + (uint32_t)__builtin_ctz(diff);
            diff &= diff - 1;
            uint32_t v = c->base_node[bt];
            if (v == NONE) continue;
            uint32_t nv = (bits[w] >> (bt & 31)) & 1;
            x->cnt[v] = (int32_t)nv;
            run_flip(x, v, nv);
            if (mux && (c->node[v].fl & FL_MEMBER)) {
                uint32_t g = c->mgroup[v];
                if (!x->tflag[g]) {
                    x->tflag[g] = 1;
                    x->touched[x->n_touched++] = g;
                    x->cand[g] = NONE;
                }
                if (x->cnt[v] > 0) x->cand[g] = c->midx[v]; /* the member that came on */
            }
        }
        x->applied[w] = bits[w];
    }
}

/* Flip the base inputs that differ from bits, and propagate. */
static void run_apply(pn_run_t *x, const uint32_t *bits)
{
    apply_diff(x, bits, false);
    run_propagate(x);
}

/* The same with guarded gates (mutex groups). */
static void run_apply_mux(pn_run_t *x, const uint32_t *bits)
{
    const pn_circuit_t *c = x->c;
    apply_diff(x, bits, true);
    /* Mutex groups: the member that went off dies first; the one that came
     * on wakes once the rest is settled (its gates read settled inputs). */
    for (uint32_t k = 0; k < x->n_touched; k++) {
        uint32_t g = x->touched[k], a = x->act[g];
        if (a != NONE && x->cnt[c->mg_mem[c->mg_off[g] + a]] <= 0) {
            run_mux_off(x, c->mg_mem[c->mg_off[g] + a]);
            x->act[g] = NONE;
        }
    }
    run_propagate(x);
    if (x->n_touched) {
        for (uint32_t k = 0; k < x->n_touched; k++) {
            uint32_t g = x->touched[k];
            x->tflag[g] = 0;
            if (x->act[g] != NONE) continue;
            uint32_t m = x->cand[g];
            if (m != NONE && x->cnt[c->mg_mem[c->mg_off[g] + m]] > 0) {
                x->act[g] = m;
                run_mux_on(x, c->mg_mem[c->mg_off[g] + m]);
            }
        }
        x->n_touched = 0;
        run_propagate(x);
    }
}

/* A new state: the legal lists made so far are stale (a counter rather
 * than a memset per state; on wrapping, every list is marked stale). */
static inline void run_new_gen(pn_run_t *x)
{
    if (__builtin_expect(++x->gen == 0, 0)) {
        memset(x->legal_gen, 0, x->c->n_roles * sizeof *x->legal_gen);
        x->gen = 1;
    }
}

void pn_run_set_state(pn_run_t *x, const uint32_t *bits, bool keep)
{
    const pn_circuit_t *c = x->c;
    size_t wb = c->n_words * sizeof *bits;
    /* wb == 0 (no base proposition) is the same state as before, and
     * bits may then be NULL, which memcmp must not see */
    if (keep && wb && memcmp(bits, x->applied, wb)) {
        for (uint32_t k = 0; k < PN_SNAPS; k++) {
            pn_snap_t *s = &x->snap[k];
            if (!s->ok || memcmp(s->applied, bits, wb)) continue;
            snap_copy(x, x->cnt, x->bits, x->applied, x->last_does, x->act, s->cnt, s->bits,
                      s->applied, s->last_does, s->act);
            if (c->has_lsum) memset(x->lsum, 0xff, PN_LSUM_WORDS(c) * sizeof *x->lsum);
            s->used = ++x->tick;
            run_new_gen(x);
            x->lazy_ok = false;
            return;
        }
    } else {
        keep = false;
    }
    if (c->gd_off[c->n_nodes]) run_apply_mux(x, bits);
    else run_apply(x, bits);
    run_new_gen(x);
    x->lazy_ok = false;
    if (keep && c->n_nodes <= PN_SNAP_MAX_NODES) {
        pn_snap_t *s = &x->snap[0];
        for (uint32_t k = 1; k < PN_SNAPS; k++)
            if (!x->snap[k].ok || (s->ok && x->snap[k].used < s->used)) s = &x->snap[k];
        if (!s->cnt) {
            s->cnt = xmalloc((c->n_nodes ? c->n_nodes : 1) * sizeof *s->cnt);
            s->bits = xmalloc((c->n_words + 2 * c->n_lwords + 1) * sizeof *s->bits);
            s->applied = xmalloc((c->n_words + 1) * sizeof *s->applied);
            s->last_does = xmalloc((c->n_roles + 1) * sizeof *s->last_does);
            s->act = xmalloc((c->n_mg + 1) * sizeof *s->act);
        }
        snap_copy(x, s->cnt, s->bits, s->applied, s->last_does, s->act, x->cnt, x->bits,
                  x->applied, x->last_does, x->act);
        s->ok = true;
        s->used = ++x->tick;
    }
}

/* Evaluate the goal-only gates from the rest, in topological order. */
static void run_lazy(pn_run_t *x)
{
    const pn_circuit_t *c = x->c;
    for (uint32_t k = 0; k < c->n_lazy;) {
        uint32_t v = c->lazy_list[k];
        if (c->group[v] != NONE) {
            uint32_t gi = c->group[v];
            run_group_fix(x, gi);
            k += c->group_hi[gi] - c->group_lo[gi];
            continue;
        }
        x->cnt[v] = run_count(x, v, 0, 0);
        k++;
    }
    x->lazy_ok = true;
}

bool pn_run_terminal(const pn_run_t *x) { return LITVAL(x->c->terminal_lit); }

bool pn_run_goal_holds(pn_run_t *x, uint32_t role, uint32_t k)
{
    if (!x->lazy_ok) run_lazy(x);
    return LITVAL(x->c->goal_lit[role][k]);
}

uint32_t pn_run_legal(pn_run_t *x, uint32_t role, const move_id_t **moves)
{
    const pn_circuit_t *c = x->c;
    if (x->legal_gen[role] != x->gen) {
        uint32_t g = c->gate[role], lo = c->lw_off[role], nw = c->lw_off[role + 1] - lo;
        uint32_t mask = g != NONE && LITVAL(g) ? UINT32_MAX : 0;
        /* A few word pairs (legal, legal under the gate) are read as they
         * are; of many, only those marked in the summary can hold moves
         * (those found empty are unmarked). */
        uint32_t n = 0, hi = lo + nw;
        move_id_t *out = x->legal[role];
        if (nw < PN_LSUM_MIN) {
            const uint32_t *pb = x->bits + 2 * lo, *pe = x->bits + 2 * hi;
            move_id_t *o = out;
            for (uint32_t base = 0; pb < pe; pb += 2, base += 32)
                for (uint32_t bits = pb[0] | (pb[1] & mask); bits; bits &= bits - 1)
                    *o++ = base + (uint32_t)__builtin_ctz(bits);
            n = (uint32_t)(o - out);
        }
        for (uint32_t sw = lo >> 5; nw >= PN_LSUM_MIN && sw < (hi + 31) >> 5; sw++) {
            uint32_t m = x->lsum[sw];
            if (sw == lo >> 5) m &= UINT32_MAX << (lo & 31);
            if (sw == (hi - 1) >> 5 && (hi & 31)) m &= UINT32_MAX >> (32 - (hi & 31));
            while (m) {
                uint32_t pw = sw * 32 + (uint32_t)__builtin_ctz(m);
                m &= m - 1;
                uint32_t lw = x->bits[2 * pw], gw = x->bits[2 * pw + 1];
                if (!(lw | gw)) {
                    x->lsum[sw] &= ~(1u << (pw & 31));
                    continue;
                }
                uint32_t bits = lw | (gw & mask), base = (pw - lo) * 32;
                while (bits) {
                    out[n++] = base + (uint32_t)__builtin_ctz(bits);
                    bits &= bits - 1;
                }
            }
        }
        x->n_legal[role] = n;
        x->legal_gen[role] = x->gen;
    }
    *moves = x->legal[role];
    return x->n_legal[role];
}

void pn_run_next(pn_run_t *x, const move_id_t *joint, uint32_t *out_bits)
{
    const pn_circuit_t *c = x->c;
    /* The previous joint move's inputs go off first, so that the new ones
     * (pushed last) propagate first and shared gates do not flicker. */
    int du = 0; /* change of the number of moves played in the universe */
    for (uint32_t r = 0; r < c->n_roles; r++) {
        uint32_t v = c->does_node[r][joint[r]], o = x->last_does[r];
        if (o != v && o != NONE) {
            du -= c->in_u[o];
            x->cnt[o] = 0;
            run_flip(x, o, 0);
        }
    }
    for (uint32_t r = 0; r < c->n_roles; r++) {
        uint32_t v = c->does_node[r][joint[r]];
        if (x->last_does[r] != v && v != NONE) {
            du += c->in_u[v];
            x->cnt[v] = 1;
            run_flip(x, v, 1);
        }
        x->last_does[r] = v;
    }
    for (; du > 0; du--)
        for (uint32_t k = 0; k < c->n_ugates; k++)
            if (++x->cnt[c->ugates[k]] == 1) run_flip(x, c->ugates[k], 1);
    for (; du < 0; du++)
        for (uint32_t k = 0; k < c->n_ugates; k++)
            if (--x->cnt[c->ugates[k]] == 0) run_flip(x, c->ugates[k], 0);
    run_propagate(x);
    memcpy(out_bits, x->next_bits, c->n_words * sizeof *out_bits);
}
#undef LITVAL
