/* propnet_lanes.c - random playouts run side by side through the circuit,
 * one bit of a wide word per playout (see propnet_circuit.h).
 *
 * Why: the incremental run (propnet_circuit_run.c) pays about ten
 * instructions per counter edge it follows, and a chess-like ply follows
 * hundreds (bench/results/propnet_shape_groups.md: speedChess 436, hex
 * 1,439); its counters and edges are near their floor. Evaluating every
 * gate once per ply for LANES playouts at once costs one AND or OR of two
 * words per wire, shared by all of them: when the circuit's wires are
 * fewer than LANES times a ply's edges, a ply costs less. This is the
 * bit-parallel ("compiled, levelised") form of logic simulation; the
 * playouts are independent, each drawing its moves from one rng in lane
 * order, so the same seed gives the same playouts.
 *
 * A ply: the state's bits are written to the base inputs and the gates
 * that read no does input (phase A) are evaluated level by level (a
 * gate's inputs on lower levels; a cyclic group swept to its least
 * fixpoint), the gates of one kind of a level in one loop; the lanes
 * whose state is terminal are done (the goal-only gates are evaluated
 * then), the others each pick a legal move per role uniformly; the does
 * inputs are set, and the gates that read them (phase B) evaluated; the
 * next state is read off the next outputs. A lane whose playout ended
 * starts the next one from the start state.
 *
 * An OR over does inputs only (the frame rules' "a move that touches this
 * cell", or "that leaves it alone") is not evaluated over its inputs,
 * hundreds on chess-like games: each role plays exactly one move per lane,
 * so its value per role is "the move is in S" or, when S holds most of
 * the role's moves, "the move is not in the rest"; each lane's move
 * pushes its bit into the few such sets that list it. */
#include "reasoner/propnet_circuit_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"


#define LW 4 /* 64-bit words a lane word */
#define LANES (64 * LW)
/* GCC/Clang vector words: AND/OR of LW 64-bit words per operation (two
 * SSE2 instructions for LW 4 on the x86-64 baseline). */
typedef uint64_t lane_t __attribute__((vector_size(8 * LW)));
_Static_assert(LANES == GAME_PLAYOUT_LANES, "game.h says how many lanes");
#define LANE_ALIGN (8 * LW < 16 ? 16 : 8 * LW)
/* x86-64: the hot loop also compiled for AVX2, taken when the machine
 * has it (__builtin_cpu_supports); the same playouts either way. */
#if defined(__x86_64__) && defined(__GNUC__)
#define PN_LANES_AVX2 1
#endif

#define OP_OR 0x80000000u    /* in a gate's head: it is an OR */
#define OP_GROUP 0x40000000u /* in a head: a cyclic group follows */
#define OP_NODE 0x3fffffffu
#define LIST_CAP 256 /* legal moves listed per lane by pick */
#define PULL_MAX 8 /* moves of a does OR's part read, not pushed */

/* Wide words go between functions through pointers or macros, never by
 * value: their calling convention would depend on -mavx (GCC warns,
 * clang refuses a call between code with AVX and code without). */
static inline bool lane_any(const lane_t *x)
{
    uint64_t a = 0;
    for (int i = 0; i < LW; i++) a |= (*x)[i];
    return a != 0;
}
static inline bool lane_get(const lane_t *x, uint32_t i) { return (*x)[i >> 6] >> (i & 63) & 1; }
/* Through the element type: GCC lowers an element store into a vector
 * wider than its registers to a round trip through the stack. */
static inline void lane_flip(lane_t *x, uint32_t i) { ((uint64_t *)x)[i >> 6] ^= (uint64_t)1 << (i & 63); }
#define LANE_ONES (~(lane_t){0})
/* A literal's value (l: node << 1 | negated, evaluated twice). */
#define LIT_VAL(val, l) ((l) & 1 ? ~(val)[(l) >> 1] : (val)[(l) >> 1])
/* The lanes below n. */
static void lane_first(lane_t *x, uint64_t n)
{
    for (int i = 0; i < LW; i++)
        (*x)[i] = n >= 64 * (uint64_t)(i + 1) ? ~(uint64_t)0 : n > 64 * (uint64_t)i ? ((uint64_t)1 << (n - 64 * (uint64_t)i)) - 1 : 0;
}
/* Call body with i set to each lane of x, in order. */
#define LANE_EACH(x, i, ...)                                                   \
    do {                                                                       \
        lane_t le_x_ = (x);                                                    \
        for (uint32_t le_w_ = 0; le_w_ < LW; le_w_++)                          \
            for (uint64_t le_b_ = le_x_[le_w_]; le_b_; le_b_ &= le_b_ - 1) {   \
                uint32_t i = le_w_ * 64 + (uint32_t)__builtin_ctzll(le_b_);    \
                __VA_ARGS__;                                                   \
            }                                                                  \
    } while (0)

/* A phase: its gates by level (a gate's inputs all come from lower
 * levels or from outside the phase), and within a level by kind, so that
 * the hot loop runs one tight loop per kind without a branch per gate:
 * segments of records of one type. Small gates (two or three inputs, the
 * bulk: speedChess has 8,300 of its 10,100, hex 47,000 of 48,600) are
 * records [dst, a, b(, c)] of byte offsets into the node values, inputs
 * read as they are before negated ones, the type saying which are
 * negated; T_GEN is [node | OP_OR, #as they are, #negated, inputs...];
 * T_GROUP one cyclic group: [OP_GROUP, words, its T_GEN gates...]. */
enum {
    T_GEN, T_GROUP,
    T_A2PP, T_A2PN, T_A2NN, T_O2PP, T_O2PN, T_O2NN,
    T_A3PPP, T_A3PPN, T_A3PNN, T_A3NNN, T_O3PPP, T_O3PPN, T_O3PNN, T_O3NNN,
    N_TYPES
};
typedef struct seg {
    uint32_t type, n, off; /* n records from code[off] */
} seg_t;
typedef struct prog {
    uint32_t *code;
    uint32_t n, cap;
    seg_t *seg;
    uint32_t n_seg, cap_seg;
} prog_t;

struct pn_lanes {
    const pn_circuit_t *c;
    bool avx2; /* the machine has AVX2: run_prog_avx2 */
    prog_t ph[3]; /* A: state only, B: reads does, L: goals only (lazy) */
    lane_t *val;  /* per node */
    lane_t *st, *init; /* per base bit: the lanes' states, the start */
    uint32_t *touched, n_touched; /* does nodes set this ply */
    uint32_t *cand;               /* a role's moves legal in some lane */
    lane_t *cand_lanes;           /* and in which */
    move_id_t *choice;            /* per role, per lane */
    uint32_t *list;               /* pick's lists: LIST_CAP per lane */
    move_id_t *hist[LANES];       /* pn_lanes_run's record: each lane's joint moves */
    uint32_t hist_cap[LANES];
    /* ORs over does inputs (see the top): dor_node[i] is the OR of parts
     * [dor_off[i], dor_off[i + 1]); a part starts each ply at its start
     * value and a lane's move (r, m) flips its bit in the parts
     * push[r][push_off[r][m] ..]. */
    uint32_t n_dor, *dor_node, *dor_off;
    uint32_t n_part;
    uint8_t *part_compl, *part_pull;
    lane_t *part_val;
    /* a part of a few live moves reads their does inputs instead:
     * pull[pull_off[p] .. pull_off[p + 1]) */
    uint32_t *pull_off, *pull;
    uint32_t **push_off, **push;
};

static uint32_t *prog_grow(prog_t *p, uint32_t k)
{
    XVEC_RESERVE(&p->code, &p->cap, (size_t)p->n + k);
    p->n += k;
    return p->code + p->n - k;
}

static uint32_t in_off(uint32_t lit) { return (lit >> 1) * (uint32_t)sizeof(lane_t); }

/* A gate as T_GEN. */
static void prog_gen(prog_t *p, const pn_circuit_t *c, uint32_t v)
{
    uint32_t lo = c->in_off[v], hi = c->in_off[v + 1], *w = prog_grow(p, 3 + hi - lo);
    w[0] = v | (c->kind[v] == K_OR ? OP_OR : 0);
    w[1] = w[2] = 0;
    uint32_t *in = w + 3;
    for (uint32_t neg = 0; neg < 2; neg++)
        for (uint32_t j = lo; j < hi; j++)
            if ((c->in[j] & 1) == neg) {
                *in++ = in_off(c->in[j]);
                w[1 + neg]++;
            }
}

/* A gate's record type (T_GEN beyond three inputs or in a group). */
static uint32_t gate_type(const pn_circuit_t *c, uint32_t v)
{
    uint32_t n = c->in_off[v + 1] - c->in_off[v], neg = 0;
    if (c->group[v] != NONE || n < 2 || n > 3) return T_GEN;
    for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1]; j++) neg += c->in[j] & 1;
    bool or = c->kind[v] == K_OR;
    return n == 2 ? (or ? T_O2PP : T_A2PP) + neg : (or ? T_O3PPP : T_A3PPP) + neg;
}

/* A small gate's record: its node, then its inputs as they are first. */
static void prog_small(prog_t *p, const pn_circuit_t *c, uint32_t v)
{
    uint32_t lo = c->in_off[v], hi = c->in_off[v + 1], *w = prog_grow(p, 1 + hi - lo), k = 1;
    w[0] = v * (uint32_t)sizeof(lane_t);
    for (uint32_t neg = 0; neg < 2; neg++)
        for (uint32_t j = lo; j < hi; j++)
            if ((c->in[j] & 1) == neg) w[k++] = in_off(c->in[j]);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Lay out the gates of one phase (in[v] says which, in the circuit's
 * order): levels, then kinds within a level. */
static bool prog_build(prog_t *p, const pn_circuit_t *c, const uint8_t *in)
{
    uint32_t nn = c->n_nodes, max_lv = 0;
    uint32_t *lv = xcalloc(nn ? nn : 1, sizeof *lv);
    for (uint32_t v = 0; v < nn;) {
        uint32_t hi = c->group[v] != NONE ? c->group_hi[c->group[v]] : v + 1, l = 0;
        if (!in[v]) {
            v = hi;
            continue;
        }
        for (uint32_t u = v; u < hi; u++)
            for (uint32_t j = c->in_off[u]; j < c->in_off[u + 1]; j++) {
                uint32_t w = c->in[j] >> 1;
                if ((w < v || w >= hi) && in[w] && lv[w] > l) l = lv[w];
            }
        for (uint32_t u = v; u < hi; u++) lv[u] = l + 1;
        if (l + 1 > max_lv) max_lv = l + 1;
        v = hi;
    }
    if (max_lv >= 1u << 24) { /* past the sort key's 24 bits of level */
        free(lv);
        return false;
    }
    /* (level, type, node) of each unit (a group: its first node), sorted */
    uint64_t *unit = NULL;
    uint32_t n_unit = 0, cap_unit = 0;
    for (uint32_t v = 0; v < nn;) {
        bool grp = c->group[v] != NONE;
        uint32_t hi = grp ? c->group_hi[c->group[v]] : v + 1;
        if (in[v]) {
            XVEC_RESERVE(&unit, &cap_unit, n_unit + 1);
            unit[n_unit++] = (uint64_t)lv[v] << 40 | (uint64_t)(grp ? T_GROUP : gate_type(c, v)) << 32 | v;
        }
        v = hi;
    }
    if (n_unit) qsort(unit, n_unit, sizeof *unit, cmp_u64);
    for (uint32_t i = 0; i < n_unit; i++) {
        uint32_t type = (uint32_t)(unit[i] >> 32) & 0xff, v = (uint32_t)unit[i];
        if (!p->n_seg || p->seg[p->n_seg - 1].type != type || type == T_GROUP ||
            (uint32_t)(unit[i] >> 40) != (uint32_t)(unit[i - 1] >> 40)) {
            XVEC_RESERVE(&p->seg, &p->cap_seg, p->n_seg + 1);
            p->seg[p->n_seg++] = (seg_t){type, 0, p->n};
        }
        p->seg[p->n_seg - 1].n++;
        if (type == T_GROUP) {
            uint32_t hi = c->group_hi[c->group[v]], at = p->n;
            prog_grow(p, 2)[0] = OP_GROUP;
            for (uint32_t u = v; u < hi; u++) prog_gen(p, c, u);
            p->code[at + 1] = p->n - at - 2;
        } else if (type == T_GEN) {
            prog_gen(p, c, v);
        } else {
            prog_small(p, c, v);
        }
    }
    free(unit);
    free(lv);
    return true;
}

/* The ORs over does inputs only, their parts and the moves' push lists. */
static void does_ors(pn_lanes_t *L, const uint8_t *is_dor)
{
    const pn_circuit_t *c = L->c;
    uint32_t nn = c->n_nodes, nr = c->n_roles;
    uint32_t *drole = xmalloc((nn ? nn : 1) * sizeof *drole), *dmove = xmalloc((nn ? nn : 1) * sizeof *dmove);
    memset(drole, 0xff, (nn ? nn : 1) * sizeof *drole);
    uint32_t max_m = 0;
    for (uint32_t r = 0; r < nr; r++) {
        if (c->n_moves[r] > max_m) max_m = c->n_moves[r];
        for (uint32_t m = 0; m < c->n_moves[r]; m++)
            if (c->does_node[r][m] != NONE) {
                drole[c->does_node[r][m]] = r;
                dmove[c->does_node[r][m]] = m;
            }
    }
    uint8_t *in_s = xcalloc(max_m ? max_m : 1, 1);
    uint32_t *size = xcalloc(nr ? nr : 1, sizeof *size);
    /* (role, move, part) triples, then bucketed by role and move */
    uint32_t *tri = NULL, n_tri = 0, cap_tri = 0;
    L->dor_off = xcalloc(1, sizeof *L->dor_off);
    uint32_t cap_dor = 0, cap_off = 1, cap_compl = 0, cap_pull_off = 1, n_pull = 0, cap_pull = 0;
    L->pull_off = xcalloc(1, sizeof *L->pull_off);
    for (uint32_t v = 0; v < nn; v++) {
        if (!is_dor[v]) continue;
        XVEC_RESERVE(&L->dor_node, &cap_dor, L->n_dor + 1);
        L->dor_node[L->n_dor++] = v;
        memset(size, 0, nr * sizeof *size);
        for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1]; j++) size[drole[c->in[j] >> 1]]++;
        for (uint32_t r = 0; r < nr; r++) {
            if (!size[r]) continue;
            uint32_t part = L->n_part++;
            bool compl = c->n_moves[r] - size[r] < size[r];
            XVEC_RESERVE(&L->part_compl, &cap_compl, L->n_part);
            L->part_pull = xreallocarray(L->part_pull, cap_compl, 1);
            L->part_compl[part] = compl;
            for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1]; j++)
                if (drole[c->in[j] >> 1] == r) in_s[dmove[c->in[j] >> 1]] = 1;
            /* A few moves, all live inputs: read from their does
             * inputs (a lone noop in a frame OR, played every other
             * ply, would push into every cell's part). */
            uint32_t n_rep = 0;
            bool live = true;
            for (uint32_t m = 0; m < c->n_moves[r]; m++)
                if (in_s[m] != compl) {
                    n_rep++;
                    live = live && c->does_node[r][m] != NONE;
                }
            bool pull = live && n_rep <= PULL_MAX;
            for (uint32_t m = 0; m < c->n_moves[r]; m++) {
                if (in_s[m] == compl) continue;
                if (pull) {
                    XVEC_RESERVE(&L->pull, &cap_pull, n_pull + 1);
                    L->pull[n_pull++] = c->does_node[r][m];
                    continue;
                }
                XVEC_RESERVE(&tri, &cap_tri, 3 * (n_tri + 1));
                tri[3 * n_tri] = r;
                tri[3 * n_tri + 1] = m;
                tri[3 * n_tri++ + 2] = part;
            }
            XVEC_RESERVE(&L->pull_off, &cap_pull_off, L->n_part + 1);
            L->pull_off[L->n_part] = n_pull;
            L->part_pull[part] = pull;
            for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1]; j++)
                if (drole[c->in[j] >> 1] == r) in_s[dmove[c->in[j] >> 1]] = 0;
        }
        XVEC_RESERVE(&L->dor_off, &cap_off, L->n_dor + 1);
        L->dor_off[L->n_dor] = L->n_part;
    }
    L->push_off = xcalloc(nr ? nr : 1, sizeof *L->push_off);
    L->push = xcalloc(nr ? nr : 1, sizeof *L->push);
    for (uint32_t r = 0; r < nr; r++) L->push_off[r] = xcalloc(c->n_moves[r] + 1, sizeof **L->push_off);
    for (uint32_t k = 0; k < n_tri; k++) L->push_off[tri[3 * k]][tri[3 * k + 1] + 1]++;
    for (uint32_t r = 0; r < nr; r++) {
        for (uint32_t m = 0; m < c->n_moves[r]; m++) L->push_off[r][m + 1] += L->push_off[r][m];
        L->push[r] = xmalloc((L->push_off[r][c->n_moves[r]] ? L->push_off[r][c->n_moves[r]] : 1) * sizeof **L->push);
    }
    for (uint32_t k = 0; k < n_tri; k++) { /* parts in increasing order per move: the triples are */
        uint32_t r = tri[3 * k], m = tri[3 * k + 1];
        L->push[r][L->push_off[r][m]++] = tri[3 * k + 2];
    }
    for (uint32_t r = 0; r < nr; r++) { /* the fill moved each start to the next's: back */
        for (uint32_t m = c->n_moves[r]; m > 0; m--) L->push_off[r][m] = L->push_off[r][m - 1];
        L->push_off[r][0] = 0;
    }
    L->part_val = xaligned_calloc(LANE_ALIGN, L->n_part ? L->n_part : 1, sizeof *L->part_val);
    free(tri);
    free(size);
    free(in_s);
    free(drole);
    free(dmove);
}

pn_lanes_t *pn_lanes_new(const pn_circuit_t *c)
{
    uint32_t nn = c->n_nodes, nr = c->n_roles;
    if (nn > UINT32_MAX / sizeof(lane_t)) return NULL; /* the records' byte offsets are 32-bit */
    uint8_t *dep = xcalloc(nn ? nn : 1, 1), *is_does = xcalloc(nn ? nn : 1, 1);
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t m = 0; m < c->n_moves[r]; m++)
            if (c->does_node[r][m] != NONE) dep[c->does_node[r][m]] = is_does[c->does_node[r][m]] = 1;
    /* Which gates read a does input, whole cyclic groups at once; a
     * negated read inside a group would not be monotone: not run here. */
    for (uint32_t v = 0; v < nn;) {
        uint32_t hi = c->group[v] != NONE ? c->group_hi[c->group[v]] : v + 1;
        uint8_t d = dep[v];
        for (uint32_t u = v; u < hi; u++)
            for (uint32_t j = c->in_off[u]; j < c->in_off[u + 1]; j++) {
                uint32_t w = c->in[j] >> 1;
                if (w >= v && w < hi && (c->in[j] & 1)) {
                    free(dep);
                    free(is_does);
                    return NULL;
                }
                d |= dep[w];
            }
        for (uint32_t u = v; u < hi; u++) dep[u] = d;
        v = hi;
    }
    /* ORs of positive does inputs only, outside groups, that a playout's
     * step needs (not goal-only): pushed, not evaluated. */
    uint8_t *is_dor = xcalloc(nn ? nn : 1, 1);
    for (uint32_t v = 0; v < nn; v++) {
        if (c->kind[v] != K_OR || c->group[v] != NONE || c->lazy[v] || c->in_off[v] == c->in_off[v + 1]) continue;
        bool all = true;
        for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1] && all; j++) all = !(c->in[j] & 1) && is_does[c->in[j] >> 1];
        is_dor[v] = all;
    }
    pn_lanes_t *L = xcalloc(1, sizeof *L);
    L->c = c;
    uint8_t *in_ph = xcalloc(nn ? nn : 1, 1);
    for (uint32_t q = 0; q < 3; q++) {
        for (uint32_t v = 0; v < nn; v++)
            in_ph[v] = (c->kind[v] == K_AND || c->kind[v] == K_OR) && !is_dor[v] &&
                       (c->lazy[v] ? 2u : dep[v] ? 1u : 0u) == q;
        if (!prog_build(&L->ph[q], c, in_ph)) {
            free(in_ph);
            free(is_dor);
            free(dep);
            free(is_does);
            pn_lanes_free(L);
            return NULL;
        }
    }
    free(in_ph);
    does_ors(L, is_dor);
    free(is_dor);
    free(dep);
    free(is_does);
#ifdef PN_LANES_AVX2
    L->avx2 = __builtin_cpu_supports("avx2");
#endif
    L->val = xaligned_calloc(LANE_ALIGN, nn ? nn : 1, sizeof *L->val);
    L->val[0] = LANE_ONES; /* node 0 is true */
    uint32_t nb = c->n_base ? c->n_base : 1, n_does = 0, max_moves = 1;
    L->st = xaligned_calloc(LANE_ALIGN, nb, sizeof *L->st);
    L->init = xaligned_calloc(LANE_ALIGN, nb, sizeof *L->init);
    for (uint32_t r = 0; r < nr; r++) {
        n_does += c->n_moves[r];
        if (c->n_moves[r] > max_moves) max_moves = c->n_moves[r];
    }
    L->touched = xmalloc((n_does ? n_does : 1) * sizeof *L->touched);
    L->cand = xmalloc(max_moves * sizeof *L->cand);
    L->cand_lanes = xaligned_calloc(LANE_ALIGN, max_moves, sizeof *L->cand_lanes);
    L->list = xmalloc((size_t)LANES * LIST_CAP * sizeof *L->list);
    L->choice = xcalloc((size_t)(nr ? nr : 1) * LANES, sizeof *L->choice);
    return L;
}

void pn_lanes_free(pn_lanes_t *L)
{
    if (!L) return;
    for (int i = 0; i < 3; i++) {
        free(L->ph[i].code);
        free(L->ph[i].seg);
    }
    for (uint32_t r = 0; L->push_off && r < L->c->n_roles; r++) { /* none when pn_lanes_new gave up early */
        free(L->push_off[r]);
        free(L->push[r]);
    }
    free(L->push_off);
    free(L->push);
    free(L->dor_node);
    free(L->dor_off);
    free(L->part_compl);
    free(L->part_pull);
    free(L->pull_off);
    free(L->pull);
    free(L->part_val);
    free(L->val);
    free(L->st);
    free(L->init);
    free(L->touched);
    free(L->cand);
    free(L->cand_lanes);
    free(L->choice);
    free(L->list);
    for (uint32_t i = 0; i < LANES; i++) free(L->hist[i]);
    free(L);
}


/* One gate's value; *pp moves past its words. */
static inline void gate_val(lane_t *out, const char *vb, const uint32_t **pp)
{
    const uint32_t *p = *pp, *a = p + 3, *m = a + p[1], *e = m + p[2];
    lane_t acc;
#define AT(off) (*(const lane_t *)(const void *)(vb + (off)))
    if (p[0] & OP_OR) {
        acc = (lane_t){0};
        for (; a < m; a++) acc |= AT(*a);
        for (; a < e; a++) acc |= ~AT(*a);
    } else {
        acc = LANE_ONES;
        for (; a < m; a++) acc &= AT(*a);
        for (; a < e; a++) acc &= ~AT(*a);
    }
#undef AT
    *pp = e;
    *out = acc;
}

/* A cyclic group (p at its head): its least fixpoint, swept in order
 * until no gate changes (its reads inside are positive: monotone).
 * Returns the words past it. */
static const uint32_t *run_group(lane_t *val, const uint32_t *p)
{
    const char *vb = (const char *)val;
    const uint32_t *lo = p + 2, *hi = lo + p[1];
    for (const uint32_t *q = lo; q < hi; q += 3 + q[1] + q[2]) val[q[0] & OP_NODE] = (lane_t){0};
    bool changed;
    do {
        changed = false;
        for (const uint32_t *q = lo; q < hi;) {
            lane_t *dst = &val[q[0] & OP_NODE], v;
            gate_val(&v, vb, &q);
            lane_t diff = v ^ *dst;
            if (lane_any(&diff)) {
                *dst = v;
                changed = true;
            }
        }
    } while (changed);
    return hi;
}

/* A phase's gates, the hot loop, over the machine's vector words T (N of
 * them to a lane word; GCC keeps a lane_t wider than its registers in
 * memory, so the words are spelled per register). */
#define AT_(off) ((const lt_ *)(const void *)(vb + (off)))
#define LOOP2_(expr)                                                                          \
    for (uint32_t i_ = 0; i_ < sg->n; i_++, r += 3)                                             \
        for (int k = 0; k < N; k++) {                                                         \
            lt_ x = AT_(r[1])[k], y = AT_(r[2])[k];                                            \
            ((lt_ *)(void *)(vw + r[0]))[k] = (expr);                                         \
        }
#define LOOP3_(expr)                                                                          \
    for (uint32_t i_ = 0; i_ < sg->n; i_++, r += 4)                                             \
        for (int k = 0; k < N; k++) {                                                         \
            lt_ x = AT_(r[1])[k], y = AT_(r[2])[k], z = AT_(r[3])[k];                           \
            ((lt_ *)(void *)(vw + r[0]))[k] = (expr);                                         \
        }
#define RUN_PROG(NAME, T, ATTR)                                                               \
    ATTR static void NAME(lane_t *val, const prog_t *ph)                                     \
    {                                                                                         \
        typedef T lt_;                                                                        \
        enum { N = sizeof(lane_t) / sizeof(T) };                                              \
        const char *vb = (const char *)val;                                                   \
        char *vw = (char *)val;                                                               \
        for (const seg_t *sg = ph->seg, *se = sg + ph->n_seg; sg < se; sg++) {                 \
            const uint32_t *r = ph->code + sg->off;                                           \
            switch (sg->type) {                                                               \
            case T_A2PP: LOOP2_(x & y) break;                                                 \
            case T_A2PN: LOOP2_(x & ~y) break;                                                \
            case T_A2NN: LOOP2_(~(x | y)) break;                                              \
            case T_O2PP: LOOP2_(x | y) break;                                                 \
            case T_O2PN: LOOP2_(x | ~y) break;                                                \
            case T_O2NN: LOOP2_(~(x & y)) break;                                              \
            case T_A3PPP: LOOP3_(x & y & z) break;                                            \
            case T_A3PPN: LOOP3_(x & y & ~z) break;                                           \
            case T_A3PNN: LOOP3_(x & ~(y | z)) break;                                         \
            case T_A3NNN: LOOP3_(~(x | y | z)) break;                                         \
            case T_O3PPP: LOOP3_(x | y | z) break;                                            \
            case T_O3PPN: LOOP3_(x | y | ~z) break;                                           \
            case T_O3PNN: LOOP3_(x | ~(y & z)) break;                                         \
            case T_O3NNN: LOOP3_(~(x & y & z)) break;                                         \
            case T_GROUP: run_group(val, r); break;                                           \
            default:                                                                          \
                for (uint32_t i_ = 0; i_ < sg->n; i_++) {                                     \
                    const uint32_t *a = r + 3, *m = a + r[1], *e = m + r[2];                   \
                    T acc[N];                                                                 \
                    if (r[0] & OP_OR) {                                                       \
                        for (int k = 0; k < N; k++) acc[k] = (T){0};                          \
                        for (; a < m; a++)                                                    \
                            for (int k = 0; k < N; k++) acc[k] |= AT_(*a)[k];                  \
                        for (; a < e; a++)                                                    \
                            for (int k = 0; k < N; k++) acc[k] |= ~AT_(*a)[k];                 \
                    } else {                                                                  \
                        for (int k = 0; k < N; k++) acc[k] = ~(T){0};                         \
                        for (; a < m; a++)                                                    \
                            for (int k = 0; k < N; k++) acc[k] &= AT_(*a)[k];                  \
                        for (; a < e; a++)                                                    \
                            for (int k = 0; k < N; k++) acc[k] &= ~AT_(*a)[k];                 \
                    }                                                                         \
                    T *dst = (T *)(void *)&val[r[0] & OP_NODE];                               \
                    for (int k = 0; k < N; k++) dst[k] = acc[k];                              \
                    r = e;                                                                    \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
    }

typedef uint64_t v2_t __attribute__((vector_size(16), may_alias));
RUN_PROG(run_prog_base, v2_t, )
#ifdef PN_LANES_AVX2
typedef uint64_t v4_t __attribute__((vector_size(32), may_alias));
RUN_PROG(run_prog_avx2, v4_t, __attribute__((target("avx2"))))
#endif

static void run_prog(const pn_lanes_t *L, const prog_t *ph)
{
#ifdef PN_LANES_AVX2
    if (L->avx2) {
        run_prog_avx2(L->val, ph);
        return;
    }
#endif
    run_prog_base(L->val, ph);
}

/* Pick a legal move of role r in each lane of `lanes` (into choice),
 * uniformly: one rng_below per lane with several moves, in lane order.
 * Takes the lanes where r has none out of *lanes_io. One pass over the moves legal in
 * some lane lists each lane's moves (up to LIST_CAP of them; a lane with
 * more draws past them by a second pass). */
static inline __attribute__((always_inline)) void pick(pn_lanes_t *L, uint32_t r, lane_t *lanes_io, rng_t *rng, move_id_t *choice)
{
    const pn_circuit_t *c = L->c;
    const lane_t *val = L->val;
    lane_t gate = c->gate[r] == NONE ? LANE_ONES : LIT_VAL(val, c->gate[r]), lanes = *lanes_io;
    uint32_t n_cand = 0, cnt[LANES] = {0}, *list = L->list;
    for (uint32_t m = 0; m < c->n_moves[r]; m++) {
        lane_t w = LIT_VAL(val, c->legal_lit[r][m]) & lanes;
        if (c->legal_gated[r][m]) w &= gate;
        if (!lane_any(&w)) continue;
        L->cand[n_cand] = m;
        L->cand_lanes[n_cand++] = w;
        LANE_EACH(w, i, {
            uint32_t k = cnt[i]++;
            if (k < LIST_CAP) list[i * LIST_CAP + k] = m;
        });
    }
    lane_t none = {0}, pending = {0};
    uint32_t left[LANES];
    LANE_EACH(lanes, i, {
        if (!cnt[i]) {
            lane_flip(&none, i);
        } else {
            uint32_t k = cnt[i] == 1 ? 0 : rng_below(rng, cnt[i]);
            if (k < LIST_CAP) {
                choice[i] = list[i * LIST_CAP + k];
            } else {
                left[i] = k;
                lane_flip(&pending, i);
            }
        }
    });
    for (uint32_t k = 0; k < n_cand && lane_any(&pending); k++)
        LANE_EACH(L->cand_lanes[k] & pending, i, {
            if (left[i]-- == 0) {
                choice[i] = L->cand[k];
                lane_flip(&pending, i);
            }
        });
    *lanes_io = lanes & ~none;
}

/* The does inputs and the ORs over them for the moves in choice. */
static inline __attribute__((always_inline)) void set_does(pn_lanes_t *L, const lane_t *movers_p)
{
    lane_t movers = *movers_p;
    const pn_circuit_t *c = L->c;
    lane_t *val = L->val;
    for (uint32_t k = 0; k < L->n_touched; k++) val[L->touched[k]] = (lane_t){0};
    L->n_touched = 0;
    for (uint32_t p = 0; p < L->n_part; p++)
        if (!L->part_pull[p]) L->part_val[p] = L->part_compl[p] ? LANE_ONES : (lane_t){0};
    for (uint32_t r = 0; r < c->n_roles; r++) {
        const move_id_t *ch = L->choice + (size_t)r * LANES;
        const uint32_t *po = L->push_off[r], *pu = L->push[r];
        LANE_EACH(movers, i, {
            uint32_t m = ch[i], d = c->does_node[r][m];
            if (d != NONE) {
                if (!lane_any(&val[d])) L->touched[L->n_touched++] = d;
                lane_flip(&val[d], i);
            }
            for (uint32_t k = po[m]; k < po[m + 1]; k++) lane_flip(&L->part_val[pu[k]], i);
        });
    }
    for (uint32_t p = 0; p < L->n_part; p++) {
        if (!L->part_pull[p]) continue;
        lane_t acc = {0};
        for (uint32_t k = L->pull_off[p]; k < L->pull_off[p + 1]; k++) acc |= val[L->pull[k]];
        L->part_val[p] = L->part_compl[p] ? ~acc : acc;
    }
    for (uint32_t k = 0; k < L->n_dor; k++) {
        lane_t acc = {0};
        for (uint32_t p = L->dor_off[k]; p < L->dor_off[k + 1]; p++) acc |= L->part_val[p];
        val[L->dor_node[k]] = acc;
    }
}

/* GCC with glibc: the whole run (the draw and the pushes inlined) also
 * compiled for AVX2 and picked at load time (an ifunc); elsewhere only
 * the gates' loop is (run_prog). Not under ThreadSanitizer: an ifunc's
 * resolver runs before its runtime is up (every program crashed). */
#if defined(PN_LANES_AVX2) && !defined(__clang__) && defined(__GLIBC__) && defined(__ELF__) && \
    !defined(__SANITIZE_THREAD__)
#define LANES_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LANES_CLONES
#endif
LANES_CLONES uint64_t pn_lanes_run(pn_lanes_t *L, const uint32_t *bits, uint64_t n, uint32_t cap, rng_t *rng, bool record,
                                   pn_lanes_done_fn done, void *ud)
{
    const pn_circuit_t *c = L->c;
    lane_t *val = L->val, *st = L->st;
    uint32_t nb = c->n_base, nr = c->n_roles;
    for (uint32_t b = 0; b < nb; b++) L->init[b] = bits[b >> 5] >> (b & 31) & 1 ? LANE_ONES : (lane_t){0};
    uint64_t started = n < LANES ? n : LANES, plies = 0;
    lane_t active;
    lane_first(&active, started);
    for (uint32_t b = 0; b < nb; b++) st[b] = L->init[b] & active;
    uint32_t depth[LANES] = {0};
    while (lane_any(&active)) {
        for (uint32_t b = 0; b < nb; b++)
            if (c->base_node[b] != NONE) val[c->base_node[b]] = st[b];
        run_prog(L, &L->ph[0]);
        lane_t over = LIT_VAL(val, c->terminal_lit) & active, capped = {0};
        LANE_EACH(active & ~over, i, {
            if (depth[i] >= cap) lane_flip(&capped, i);
        });
        lane_t movers = active & ~over & ~capped;
        for (uint32_t r = 0; r < nr && lane_any(&movers); r++)
            pick(L, r, &movers, rng, L->choice + (size_t)r * LANES);
        lane_t fin = active & ~movers;
        if (lane_any(&fin)) {
            if (lane_any(&over)) run_prog(L, &L->ph[2]);
            LANE_EACH(fin, i, {
                done(ud, lane_get(&over, i) ? PN_LANE_OVER : lane_get(&capped, i) ? PN_LANE_CAPPED : PN_LANE_STUCK, depth[i], i,
                     record ? L->hist[i] : NULL);
                depth[i] = 0;
                if (started < n) started++;
                else lane_flip(&active, i);
            });
        }
        lane_t restart = fin & active;
        if (!lane_any(&movers)) {
            for (uint32_t b = 0; b < nb; b++) st[b] = L->init[b] & restart;
            continue;
        }
        if (record)
            LANE_EACH(movers, i, {
                XVEC_RESERVE(&L->hist[i], &L->hist_cap[i], (size_t)(depth[i] + 1) * nr);
                for (uint32_t r = 0; r < nr; r++) L->hist[i][(size_t)depth[i] * nr + r] = L->choice[(size_t)r * LANES + i];
            });
        set_does(L, &movers);
        run_prog(L, &L->ph[1]);
        /* the next state off the next outputs (a bit none sets is off),
         * the start state in the lanes that start again */
        for (uint32_t b = 0; b < nb; b++) st[b] = L->init[b] & restart;
        for (uint32_t i = 0; i < c->n_next; i++) st[c->next_bit[i]] |= LIT_VAL(val, c->next_lit[i]) & movers;
        LANE_EACH(movers, i, depth[i]++);
        for (int w = 0; w < LW; w++) plies += (uint64_t)__builtin_popcountll(movers[w]);
    }
    return plies;
}

bool pn_lanes_goal_holds(const pn_lanes_t *L, uint32_t lane, uint32_t role, uint32_t k)
{
    lane_t v = LIT_VAL(L->val, L->c->goal_lit[role][k]);
    return lane_get(&v, lane);
}
