/* propnet_circuit.c - build and run the propnet's optimised circuit (see
 * propnet_circuit.h for what and why). */
#include "reasoner/propnet_circuit.h"

#include <stdlib.h>
#include <string.h>

#include "base/scc.h"
#include "base/xalloc.h"

#define NONE UINT32_MAX
/* Edges from one node into the gates of a mutex group of size gs that go
 * to a table by member rather than stay counter edges. */
#define PN_MUX_TABLE(n, gs) ((n) >= 2 && (n) * 4 >= (gs) + 1)
#define PN_LSUM_MIN 8 /* legal words of a role from which its summary is kept and read */
#define LIT_TRUE 0u  /* node 0 is the constant true */
#define LIT_FALSE 1u /* its negation */

enum { K_TRUE, K_IN, K_AND, K_OR };
/* Node flags: has outputs, fan-out, several outputs, mutex tables, member
 * of a mutex group, outputs to a legal summary, cyclic groups or tables. */
enum { FL_OUT = 1, FL_FAN = 2, FL_MULTI = 4, FL_MUX = 8, FL_MEMBER = 16, FL_LSUM = 32, FL_SLOW = 64, FL_SHIFT = 8 };

/* What a flip of a node touches, packed for the hot loop. The counter
 * edges are the target gates, those that read the node as it is first,
 * then those that read its negation: a flip adds the same +1 or -1 to
 * every gate of a run, so the loop neither decodes nor branches on the
 * polarity of each edge (speedChess: 15 instructions per edge were 8). */
typedef struct pn_node {
    /* Counter edges (in cedge): [fan, mid) positive, [mid, the next node's
     * fan) negated; 16 bytes, so that speedChess's nodes fit in L2. */
    uint32_t fan, mid;
    uint32_t out; /* the output's word, or (FL_MULTI) where in mouts: count, entries */
    uint32_t fl;  /* FL_* | the output's bit in its word << FL_SHIFT */
} pn_node_t;

/* ------------------------------------------------------------ building */

typedef struct bnode {
    uint8_t kind;
    uint32_t n, cap; /* cap 0 with inputs: they lie in the shared pool */
    uint32_t *in;    /* literals */
} bnode_t;

typedef struct bld {
    bnode_t *nd;
    uint32_t *alias; /* per node: the literal it equals, or NONE */
    uint32_t n, cap;
    uint32_t n_aliased; /* aliases made, to detect a fixpoint */
} bld_t;

/* The i-th input of node u, for scc_tarjan. */
static uint32_t bnode_edge(const void *ctx, uint32_t u, uint32_t i)
{
    const bld_t *b = ctx;
    return i < b->nd[u].n ? b->nd[u].in[i] >> 1 : SCC_NONE;
}

static uint32_t b_new(bld_t *b, uint8_t kind)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 1024;
        b->nd = xreallocarray(b->nd, b->cap, sizeof *b->nd);
        b->alias = xreallocarray(b->alias, b->cap, sizeof *b->alias);
    }
    b->nd[b->n] = (bnode_t){.kind = kind};
    b->alias[b->n] = NONE;
    return b->n++;
}

static void b_add(bld_t *b, uint32_t n, uint32_t lit)
{
    bnode_t *x = &b->nd[n];
    if (!x->cap && x->in) { /* inputs in the shared pool: own them first */
        uint32_t *m = xmalloc((2 * (size_t)x->n + 2) * sizeof *m);
        memcpy(m, x->in, x->n * sizeof *m);
        x->in = m;
        x->cap = 2 * x->n + 2;
    }
    XVEC_RESERVE(&x->in, &x->cap, x->n + 1);
    x->in[x->n++] = lit;
}

/* The literal l stands for, following aliases (with path compression). */
static uint32_t b_res(bld_t *b, uint32_t l)
{
    uint32_t r = l;
    while (b->alias[r >> 1] != NONE) r = b->alias[r >> 1] ^ (r & 1);
    while (b->alias[l >> 1] != NONE) {
        uint32_t nx = b->alias[l >> 1] ^ (l & 1);
        b->alias[l >> 1] = r ^ (l & 1);
        l = nx;
    }
    return r;
}

static void b_set_alias(bld_t *b, uint32_t n, uint32_t lit)
{
    b->alias[n] = lit;
    b->nd[n].n = 0;
    b->n_aliased++;
}

static void sort_u32(uint32_t *a, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = a[i], j = i;
        while (j && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Resolve the inputs of gate n, fold constants, drop duplicates, and make
 * it a wire (alias) when one input is left. Self-loops take the least
 * fixpoint (GDL's semantics): h = h or x is x, h = h and x is false. */
static void b_simplify(bld_t *b, uint32_t n)
{
    bnode_t *x = &b->nd[n];
    if (b->alias[n] != NONE || (x->kind != K_AND && x->kind != K_OR)) return;
    uint32_t absorb = x->kind == K_AND ? LIT_FALSE : LIT_TRUE, ident = absorb ^ 1;
    uint32_t k = 0;
    for (uint32_t j = 0; j < x->n; j++) {
        uint32_t l = b_res(b, x->in[j]);
        if (l == ident) continue;
        if (l == absorb) {
            b_set_alias(b, n, absorb);
            return;
        }
        if (l == n << 1) {
            if (x->kind == K_OR) continue;
            b_set_alias(b, n, LIT_FALSE);
            return;
        }
        x->in[k++] = l;
    }
    if (k < 16) sort_u32(x->in, k);
    else qsort(x->in, k, sizeof *x->in, cmp_u32);
    uint32_t m = 0;
    for (uint32_t j = 0; j < k; j++) {
        if (m && x->in[m - 1] == x->in[j]) continue;
        if (m && x->in[m - 1] == (x->in[j] ^ 1)) {
            b_set_alias(b, n, absorb);
            return;
        }
        x->in[m++] = x->in[j];
    }
    x->n = m;
    if (m == 0) b_set_alias(b, n, ident);
    else if (m == 1) b_set_alias(b, n, x->in[0]);
}

/* Nodes in depth-first post-order over their inputs (inputs first), so
 * that one pass of simplification mostly sees settled inputs. */
static uint32_t *b_postorder(bld_t *b, bool *cyclic)
{
    *cyclic = false;
    uint32_t n = b->n, k = 0, top = 0;
    uint32_t *order = xmalloc((n ? n : 1) * sizeof *order);
    uint32_t *sv = xmalloc((n ? n : 1) * sizeof *sv), *se = xmalloc((n ? n : 1) * sizeof *se);
    uint8_t *seen = xcalloc(n ? n : 1, 1);
    for (uint32_t root = 0; root < n; root++) {
        if (seen[root]) continue;
        seen[root] = 1;
        sv[top] = root;
        se[top++] = 0;
        while (top) {
            uint32_t u = sv[top - 1];
            if (se[top - 1] < b->nd[u].n) {
                uint32_t w = b->nd[u].in[se[top - 1]++] >> 1;
                if (!seen[w]) {
                    seen[w] = 1;
                    sv[top] = w;
                    se[top++] = 0;
                } else if (seen[w] == 1) {
                    *cyclic = true; /* w is on the path: a cycle */
                }
                continue;
            }
            seen[u] = 2;
            order[k++] = u;
            top--;
        }
    }
    free(sv);
    free(se);
    free(seen);
    return order;
}

static uint64_t gate_hash(const bnode_t *x)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL * (x->kind + 1);
    for (uint32_t j = 0; j < x->n; j++) {
        h ^= x->in[j];
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 32);
}

/* Simplify every gate and merge gates with equal inputs, until nothing
 * changes (a bounded number of passes; each is linear). */
/* The build's budget (pn_raw_t): past the deadline or cancelled. */
static bool raw_late(const pn_raw_t *raw)
{
    return deadline_passed(raw->deadline) || (raw->cancel && atomic_load_explicit(raw->cancel, memory_order_relaxed));
}

static bool b_simplify_all(bld_t *b, const pn_raw_t *raw)
{
    bool ok = true;
    /* Simplification only makes aliases, so one order serves every pass;
     * without a cycle every input is settled before its users, and one
     * pass is the fixpoint. */
    bool cyclic;
    uint32_t *order = b_postorder(b, &cyclic);
    uint32_t cap = 1;
    while (cap < 2 * b->n) cap *= 2;
    uint64_t *tab = xmalloc(cap * sizeof *tab); /* hash << 32 | node, or ~0 */
    /* On a huge network (millions of gates) a pass costs seconds and the
     * later passes find little: stopping early only leaves some inputs
     * unresolved, which every later stage resolves as it reads them. */
    int max_pass = b->n > (1u << 20) ? 2 : 20;
    for (int pass = 0; pass < max_pass; pass++) {
        uint32_t before = b->n_aliased;
        memset(tab, 0xff, cap * sizeof *tab);
        for (uint32_t k = 0; k < b->n && ok; k++) {
            uint32_t u = order[k];
            if ((k & 0xffff) == 0xffff && raw_late(raw)) ok = false;
            b_simplify(b, u);
            bnode_t *x = &b->nd[u];
            if (b->alias[u] != NONE || (x->kind != K_AND && x->kind != K_OR)) continue;
            uint64_t hv = gate_hash(x);
            uint32_t h32 = (uint32_t)(hv >> 32), j = (uint32_t)hv & (cap - 1);
            for (; tab[j] != UINT64_MAX; j = (j + 1) & (cap - 1)) {
                if ((uint32_t)(tab[j] >> 32) != h32) continue;
                uint32_t o = (uint32_t)tab[j];
                const bnode_t *y = &b->nd[o];
                if (b->alias[o] == NONE && y->kind == x->kind && y->n == x->n &&
                    !memcmp(y->in, x->in, x->n * sizeof *x->in))
                    break;
            }
            if (tab[j] != UINT64_MAX) b_set_alias(b, u, (uint32_t)tab[j] << 1);
            else tab[j] = (uint64_t)h32 << 32 | u;
        }
        if (b->n_aliased == before || !cyclic || !ok) break;
    }
    free(tab);
    free(order);
    return ok;
}

/* References to each node from live gates' inputs and from the outputs. */
static int cmp_gedge(const void *x, const void *y)
{
    const uint32_t *a = x, *b = y;
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

static uint32_t *b_refcounts(bld_t *b, const uint32_t *outs, uint32_t n_outs)
{
    uint32_t *ref = xcalloc(b->n ? b->n : 1, sizeof *ref);
    for (uint32_t u = 0; u < b->n; u++) {
        if (b->alias[u] != NONE) continue;
        for (uint32_t j = 0; j < b->nd[u].n; j++) ref[b_res(b, b->nd[u].in[j]) >> 1]++;
    }
    for (uint32_t k = 0; k < n_outs; k++) ref[b_res(b, outs[k]) >> 1]++;
    return ref;
}

/* Factor a literal shared by several instances of an OR out of them:
 * h = (L and a1) or (L and a2) or ... or rest becomes h = (L and Y) or rest
 * with Y = a1 or a2 or ... Each instance loses a fan-in from L; the frame
 * rules of board games ("c stays if true(c) and some move leaves it")
 * collapse from cells x moves gates to cells + moves. Only instances that
 * no one else reads are changed in place; an input that is no such AND
 * counts as the instance of one literal. The most shared literal goes
 * first, again and again while one is shared by three instances or more:
 * an index from literals to instances and a heap keep that linear in the
 * size of the OR (times a logarithm). */
typedef struct factor_ws {
    uint32_t *ref, cap_ref;
    uint32_t *freq, cap_freq; /* per literal: instances left that hold it */
    uint64_t *pairs, cap_pairs; /* literal << 32 | instance */
    uint64_t *heap, cap_heap;   /* freq << 32 | ~literal */
    uint32_t *run_lo, *run_hi, cap_runs, cap_runs_hi; /* per shared literal: its pairs */
    uint32_t *run_of, cap_run_of;        /* per literal: its run */
    uint8_t *gone;
    uint32_t cap_gone;
} factor_ws_t;

static bool b_own(const bld_t *b, const factor_ws_t *w, uint32_t l)
{
    uint32_t c = l >> 1;
    return !(l & 1) && b->alias[c] == NONE && b->nd[c].kind == K_AND && c < w->cap_ref && w->ref[c] == 1;
}

static void heap_push(factor_ws_t *w, uint32_t *n, uint64_t v)
{
    XVEC_RESERVE(&w->heap, &w->cap_heap, *n + 1);
    uint32_t k = (*n)++;
    while (k && w->heap[(k - 1) / 2] < v) {
        w->heap[k] = w->heap[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    w->heap[k] = v;
}

static uint64_t heap_pop(factor_ws_t *w, uint32_t *n)
{
    uint64_t top = w->heap[0], v = w->heap[--(*n)];
    uint32_t k = 0;
    for (;;) {
        uint32_t c = 2 * k + 1;
        if (c >= *n) break;
        if (c + 1 < *n && w->heap[c + 1] > w->heap[c]) c++;
        if (w->heap[c] <= v) break;
        w->heap[k] = w->heap[c];
        k = c;
    }
    if (*n) w->heap[k] = v;
    return top;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Factor OR h; new ORs (the Ys) go to the work list. */
static void b_factor_one(bld_t *b, factor_ws_t *w, uint32_t h, uint32_t **work, uint32_t *n_work, uint32_t *cap_work)
{
    uint32_t n = b->nd[h].n;
    if (n < 3) return;
    /* (literal, instance) pairs, sorted: the runs index literals. */
    uint32_t np = 0;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t l = b->nd[h].in[j];
        if (b_own(b, w, l)) {
            const bnode_t *a = &b->nd[l >> 1];
            XVEC_RESERVE(&w->pairs, &w->cap_pairs, np + a->n);
            for (uint32_t k = 0; k < a->n; k++) w->pairs[np++] = (uint64_t)a->in[k] << 32 | j;
        } else {
            XVEC_RESERVE(&w->pairs, &w->cap_pairs, np + 1);
            w->pairs[np++] = (uint64_t)l << 32 | j;
        }
    }
    if (np > 24) {
        qsort(w->pairs, np, sizeof *w->pairs, cmp_u64);
    } else {
        for (uint32_t k = 1; k < np; k++) {
            uint64_t v = w->pairs[k];
            uint32_t q = k;
            while (q && w->pairs[q - 1] > v) {
                w->pairs[q] = w->pairs[q - 1];
                q--;
            }
            w->pairs[q] = v;
        }
    }
    uint32_t nr = 0, nh = 0;
    for (uint32_t k = 0; k < np;) {
        uint32_t L = (uint32_t)(w->pairs[k] >> 32), e = k;
        while (e < np && (uint32_t)(w->pairs[e] >> 32) == L) e++;
        if (e - k >= 3 && L < w->cap_freq) {
            XVEC_RESERVE(&w->run_lo, &w->cap_runs, nr + 1);
            XVEC_RESERVE(&w->run_hi, &w->cap_runs_hi, nr + 1);
            w->run_lo[nr] = k;
            w->run_hi[nr] = e;
            w->run_of[L] = nr++;
            w->freq[L] = e - k;
            heap_push(w, &nh, (uint64_t)(e - k) << 32 | (uint32_t)~L);
        }
        k = e;
    }
    if (!nr) return;
    if (n > w->cap_gone) {
        w->cap_gone = n;
        w->gone = xreallocarray(w->gone, n, 1);
    }
    memset(w->gone, 0, n);
    uint32_t n_new = 0, *zs = NULL, cap_zs = 0;
    while (nh) {
        uint64_t top = heap_pop(w, &nh);
        uint32_t L = ~(uint32_t)top, f = (uint32_t)(top >> 32);
        if (f != w->freq[L]) { /* stale: instances left since */
            if (w->freq[L] >= 3) heap_push(w, &nh, (uint64_t)w->freq[L] << 32 | (uint32_t)~L);
            continue;
        }
        if (f < 3) break;
        uint32_t y = b_new(b, K_OR), z = b_new(b, K_AND);
        if (b->n > w->cap_ref) {
            uint32_t nc = b->cap;
            w->ref = xreallocarray(w->ref, nc, sizeof *w->ref);
            memset(w->ref + w->cap_ref, 0, (nc - w->cap_ref) * sizeof *w->ref);
            w->cap_ref = nc;
        }
        w->ref[y] = w->ref[z] = 1;
        for (uint32_t k = w->run_lo[w->run_of[L]]; k < w->run_hi[w->run_of[L]]; k++) {
            uint32_t j = (uint32_t)w->pairs[k];
            if (w->gone[j]) continue;
            w->gone[j] = 1;
            uint32_t l = b->nd[h].in[j];
            if (b_own(b, w, l)) {
                bnode_t *a = &b->nd[l >> 1];
                uint32_t m = 0;
                for (uint32_t q = 0; q < a->n; q++) {
                    uint32_t L2 = a->in[q];
                    if (L2 == L) continue;
                    if (L2 < w->cap_freq && w->freq[L2]) w->freq[L2]--;
                    a->in[m++] = L2;
                }
                a->n = m;
                b_add(b, y, l);
            } else {
                b_add(b, y, LIT_TRUE);
            }
        }
        w->freq[L] = 0;
        b_add(b, z, L);
        b_add(b, z, y << 1);
        XVEC_RESERVE(&zs, &cap_zs, n_new + 1);
        zs[n_new++] = z << 1;
        XVEC_RESERVE(work, cap_work, *n_work + 1);
        (*work)[(*n_work)++] = y;
    }
    /* Clear the counts of literals left in the heap. */
    for (uint32_t k = 0; k < nh; k++) w->freq[~(uint32_t)w->heap[k]] = 0;
    for (uint32_t k = 0; k < np; k++) {
        uint32_t L = (uint32_t)(w->pairs[k] >> 32);
        if (L < w->cap_freq) w->freq[L] = 0;
    }
    if (n_new) {
        bnode_t *x = &b->nd[h];
        uint32_t keep = 0;
        for (uint32_t j = 0; j < x->n; j++)
            if (!w->gone[j]) x->in[keep++] = x->in[j];
        x->n = keep;
        for (uint32_t k = 0; k < n_new; k++) b_add(b, h, zs[k]);
    }
    free(zs);
}

/* False when the deadline passed (the network stays correct, only less
 * factored: each step is an equivalence). */
static bool b_factor(bld_t *b, const uint32_t *outs, uint32_t n_outs, const pn_raw_t *raw)
{
    bool ok = true;
    factor_ws_t w = {0};
    w.ref = b_refcounts(b, outs, n_outs);
    w.cap_ref = b->n;
    w.cap_freq = 2 * b->n + 2;
    w.freq = xcalloc(w.cap_freq, sizeof *w.freq);
    w.run_of = xcalloc(w.cap_freq, sizeof *w.run_of);
    uint32_t *work = NULL, n_work = 0, cap_work = 0;
    for (uint32_t u = 0; u < b->n; u++)
        if (b->alias[u] == NONE && b->nd[u].kind == K_OR) {
            XVEC_RESERVE(&work, &cap_work, n_work + 1);
            work[n_work++] = u;
        }
    for (uint32_t wi = 0; wi < n_work && ok; wi++) {
        b_factor_one(b, &w, work[wi], &work, &n_work, &cap_work);
        if ((wi & 1023) == 1023 && raw_late(raw)) ok = false;
    }
    free(work);
    free(w.ref);
    free(w.freq);
    free(w.run_of);
    free(w.pairs);
    free(w.heap);
    free(w.run_lo);
    free(w.run_hi);
    free(w.gone);
    return ok;
}

/* Flatten a gate into its only reader when both are of one kind and the
 * reader reads it as it is: u = v or a with v = b or c (v read by u alone,
 * no output) becomes u = b or a or c. The edges stay as many (less one),
 * and a change of b reaches u without v flipping and being popped on the
 * way (Breakthrough's "next cell" ORs over the moves into the cell). A
 * cycle through u and v becomes a self-loop of u, which simplification
 * reads as the least fixpoint, as before. Gates in post-order, so that v
 * is flat when u takes its inputs; only the gates changed are simplified
 * again (a pass over all costs seconds on a network of millions). */
static void b_flatten(bld_t *b, const uint32_t *outs, uint32_t n_outs)
{
    uint32_t *ref = b_refcounts(b, outs, n_outs);
    uint8_t *is_out = xcalloc(b->n ? b->n : 1, 1);
    for (uint32_t j = 0; j < n_outs; j++) is_out[b_res(b, outs[j]) >> 1] = 1;
    bool cyclic;
    uint32_t *order = b_postorder(b, &cyclic), n = b->n;
    uint32_t *lits = NULL, cap = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t u = order[k];
        bnode_t *x = &b->nd[u];
        if (b->alias[u] != NONE || (x->kind != K_AND && x->kind != K_OR)) continue;
        bool any = false;
        for (uint32_t j = 0; j < x->n && !any; j++) {
            uint32_t l = b_res(b, x->in[j]), v = l >> 1;
            any = !(l & 1) && v != u && b->alias[v] == NONE && b->nd[v].kind == x->kind && ref[v] == 1 && !is_out[v];
        }
        if (!any) continue;
        /* An OR of inputs only stays as it is: those may become universe
         * gates (below), which count moves, not flips of ORs. */
        bool all_in = x->kind == K_OR;
        for (uint32_t j = 0; j < x->n && all_in; j++) {
            uint32_t l = b_res(b, x->in[j]), v = l >> 1;
            if (l & 1) all_in = false;
            else if (b->nd[v].kind == K_OR && b->alias[v] == NONE && ref[v] == 1 && !is_out[v])
                for (uint32_t q = 0; q < b->nd[v].n && all_in; q++)
                    all_in = b->nd[b_res(b, b->nd[v].in[q]) >> 1].kind == K_IN;
            else all_in = b->nd[v].kind == K_IN;
        }
        if (all_in) continue;
        uint32_t m = 0;
        for (uint32_t j = 0; j < x->n; j++) {
            uint32_t l = b_res(b, x->in[j]), v = l >> 1;
            if (!(l & 1) && v != u && b->alias[v] == NONE && b->nd[v].kind == x->kind && ref[v] == 1 && !is_out[v]) {
                XVEC_RESERVE(&lits, &cap, m + b->nd[v].n);
                for (uint32_t q = 0; q < b->nd[v].n; q++) lits[m++] = b_res(b, b->nd[v].in[q]);
                b->nd[v].n = 0; /* dead: its only reader took its inputs */
                ref[v] = 0;
            } else {
                XVEC_RESERVE(&lits, &cap, m + 1);
                lits[m++] = l;
            }
        }
        x->n = 0;
        for (uint32_t j = 0; j < m; j++) b_add(b, u, lits[j]);
        b_simplify(b, u); /* duplicates, constants, a self-loop */
    }
    free(lits);
    free(order);
    free(is_out);
    free(ref);
}

/* The literals a gate's every instance shares (for legal gating): an AND's
 * inputs, or the inputs common to every AND of an OR. Returns a malloc'd
 * sorted list (count in *n), or NULL. */
static uint32_t *b_common(bld_t *b, uint32_t lit, uint32_t *n)
{
    *n = 0;
    if (lit & 1) return NULL;
    const bnode_t *x = &b->nd[lit >> 1];
    if (b->alias[lit >> 1] != NONE) return NULL;
    if (x->kind == K_AND) {
        uint32_t *r = xmalloc((x->n ? x->n : 1) * sizeof *r);
        memcpy(r, x->in, x->n * sizeof *r);
        *n = x->n;
        return r;
    }
    if (x->kind != K_OR || !x->n) return NULL;
    uint32_t *r = NULL, nr = 0;
    for (uint32_t j = 0; j < x->n; j++) {
        uint32_t l = x->in[j];
        const bnode_t *a = &b->nd[l >> 1];
        if ((l & 1) || b->alias[l >> 1] != NONE || a->kind != K_AND) {
            free(r);
            return NULL;
        }
        if (!j) {
            r = xmalloc((a->n ? a->n : 1) * sizeof *r);
            memcpy(r, a->in, a->n * sizeof *r);
            nr = a->n;
            continue;
        }
        uint32_t m = 0, p = 0;
        for (uint32_t k = 0; k < nr; k++) {
            while (p < a->n && a->in[p] < r[k]) p++;
            if (p < a->n && a->in[p] == r[k]) r[m++] = r[k];
        }
        nr = m;
    }
    *n = nr;
    return r;
}

/* The builder's nodes; pool holds the recorded inputs (gates that grew
 * own theirs). */
static void b_free(bld_t *b, uint32_t *pool)
{
    for (uint32_t u = 0; u < b->n; u++)
        if (b->nd[u].cap) free(b->nd[u].in);
    free(pool);
    free(b->nd);
    free(b->alias);
}

/* A copy of an AND's inputs without literal g, as a new gate. */
static uint32_t b_and_without(bld_t *b, uint32_t and_node, uint32_t g)
{
    uint32_t a = b_new(b, K_AND);
    for (uint32_t k = 0; k < b->nd[and_node].n; k++) {
        uint32_t l = b->nd[and_node].in[k];
        if (l != g) b_add(b, a, l);
    }
    return a;
}

/* --------------------------------------------------------------- circuit */

struct pn_circuit {
    uint32_t n_nodes;
    uint8_t *kind;
    uint32_t *in_off, *in;       /* inputs of each gate (new literals) */
    uint32_t *fan_off, *grp_off, *int_off, *fan;
    uint32_t *cedge;             /* the counter edges, node after node (pn_node_t) */
    uint32_t *group;             /* per node: its cyclic group or NONE */
    uint8_t *in_u;               /* per node: a does input of the universe */
    uint8_t *lazy;               /* per node: read by goals only, evaluated on demand */
    uint32_t *lazy_list, n_lazy, cap_lazy;
    uint32_t n_ugates, *ugates;  /* universe gates */
    uint32_t n_groups, *group_lo, *group_hi;
    uint8_t *has_out;            /* FL_* */
    pn_node_t *node;
    uint32_t *mouts;
    uint32_t *out_off, *outs;    /* index << 2 | OUT_* */
    uint32_t n_base, n_words;
    uint32_t *base_node;         /* per state bit, or NONE */
    uint32_t n_roles;
    uint32_t *n_moves, **does_node;
    uint32_t *lw_off, n_lwords;  /* legal bitset words per role */
    uint32_t *gate;              /* per role: gate literal, or NONE */
    uint32_t **legal_lit;
    uint8_t **legal_gated;
    uint32_t n_next, *next_lit, *next_bit;
    uint32_t terminal_lit;
    uint32_t *n_goals, **goal_lit;
    /* mutex groups (see the build) */
    uint32_t n_mg, cap_mg, *mg_size, *mg_off, *mg_mem;
    uint32_t *mgroup, *midx;     /* per node: its group (or NONE), index in it */
    uint32_t *gd_off, *gd;       /* per member node: the gates it guards */
    bool has_lsum;               /* a role's legal moves are summarised (FL_LSUM) */
    uint32_t *gd_lit;            /* per guarded gate of two inputs: the other literal, else NONE */
    uint32_t *mux_off, *mux;     /* per node: (group, table) pairs */
    uint32_t *mtab, *medge, n_medge; /* per table: member -> edges */
    size_t n_gates, n_edges;
};

pn_circuit_t *pn_circuit_build(const pn_raw_t *raw)
{
    bld_t b = {0};
    uint32_t np = raw->n_props;
    for (uint32_t p = 0; p < np; p++) b_new(&b, p == 0 ? K_TRUE : raw->is_input[p] ? K_IN : K_OR);
    b.alias[1] = LIT_FALSE;
    b.nd[1].kind = K_TRUE;
    /* The recorded network's inputs go to one pool (contiguous, one
     * allocation); a gate that grows later moves its own out. */
    uint32_t *pool = xmalloc(((size_t)raw->n_inst + raw->inst_lit[raw->n_inst] + 1) * sizeof *pool);
    {
        uint32_t *hc = xcalloc((size_t)np + 1, sizeof *hc);
        for (uint32_t i = 0; i < raw->n_inst; i++) hc[raw->inst_head[i] + 1]++;
        for (uint32_t p = 0; p < np; p++) hc[p + 1] += hc[p];
        for (uint32_t p = 0; p < np; p++) b.nd[p].in = pool + hc[p];
        free(hc);
    }
    for (uint32_t i = 0; i < raw->n_inst; i++) {
        uint32_t a = b_new(&b, K_AND), lo = raw->inst_lit[i], nl = raw->inst_lit[i + 1] - lo;
        b.nd[a].in = pool + raw->n_inst + lo;
        /* a body of no literals (a fact) may come with no literal array
         * at all: raw->lits + lo would be arithmetic on NULL */
        if (nl) memcpy(b.nd[a].in, raw->lits + lo, nl * sizeof *raw->lits);
        b.nd[a].n = nl;
        bnode_t *h = &b.nd[raw->inst_head[i]];
        h->in[h->n++] = a << 1;
    }
    uint32_t nr = raw->n_roles;
    /* Output literals, gathered in one array (refcounts, liveness). */
    uint32_t n_outs = 1 + raw->n_next + nr;
    for (uint32_t r = 0; r < nr; r++) n_outs += raw->n_moves[r] + raw->n_goals[r];
    uint32_t *outs = xmalloc(n_outs * sizeof *outs), k = 0;
    outs[k++] = raw->terminal_prop << 1;
    for (uint32_t i = 0; i < raw->n_next; i++) outs[k++] = raw->next_prop[i] << 1;
    uint32_t legal_at = k;
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t m = 0; m < raw->n_moves[r]; m++) outs[k++] = raw->legal_prop[r][m] << 1;
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t j = 0; j < raw->n_goals[r]; j++) outs[k++] = raw->goal_prop[r][j] << 1;
    uint32_t gate_at = k;
    for (uint32_t r = 0; r < nr; r++) outs[k++] = LIT_TRUE;

    bool in_time = b_simplify_all(&b, raw);

    /* Legal gating: per role, the literal most legal moves share. */
    uint8_t *gated = xcalloc(n_outs, 1), *has_gate = xcalloc(nr ? nr : 1, 1);
    if (!in_time) goto late;
    {
        uint32_t at = legal_at;
        for (uint32_t r = 0; r < nr; r++) {
            /* Sized now: gating an earlier role made nodes. */
            uint32_t *freq = xcalloc(2 * (size_t)b.n, sizeof *freq);
            uint32_t nm = raw->n_moves[r], best = NONE, bf = 0;
            for (uint32_t m = 0; m < nm; m++) {
                uint32_t nc, *c = b_common(&b, b_res(&b, outs[at + m]), &nc);
                for (uint32_t j = 0; j < nc; j++) freq[c[j]]++;
                free(c);
            }
            for (uint32_t m = 0; m < nm; m++) {
                uint32_t nc, *c = b_common(&b, b_res(&b, outs[at + m]), &nc);
                for (uint32_t j = 0; j < nc; j++) {
                    if (freq[c[j]] > bf || (freq[c[j]] == bf && c[j] < best)) {
                        bf = freq[c[j]];
                        best = c[j];
                    }
                }
                free(c);
            }
            for (uint32_t m = 0; m < nm; m++) {
                uint32_t nc, *c = b_common(&b, b_res(&b, outs[at + m]), &nc);
                for (uint32_t j = 0; j < nc; j++) freq[c[j]] = 0;
                free(c);
            }
            free(freq);
            if (bf >= 2) {
                outs[gate_at + r] = best;
                has_gate[r] = 1;
                for (uint32_t m = 0; m < nm; m++) {
                    uint32_t l = b_res(&b, outs[at + m]), nc, *c = b_common(&b, l, &nc);
                    bool has = false;
                    for (uint32_t j = 0; j < nc; j++) has |= c[j] == best;
                    free(c);
                    if (!has) continue;
                    uint32_t x;
                    if (b.nd[l >> 1].kind == K_AND) {
                        x = b_and_without(&b, l >> 1, best);
                    } else {
                        x = b_new(&b, K_OR);
                        for (uint32_t j = 0; j < b.nd[l >> 1].n; j++)
                            b_add(&b, x, b_and_without(&b, b.nd[l >> 1].in[j] >> 1, best) << 1);
                    }
                    /* The legal gate itself becomes gate and x, for the
                     * rules that read legal (Checkers' "has a legal move"):
                     * factoring then takes the gate out of their ORs. */
                    bnode_t *ln = &b.nd[l >> 1];
                    ln->kind = K_AND;
                    ln->n = 0;
                    b_add(&b, l >> 1, best);
                    b_add(&b, l >> 1, x << 1);
                    outs[at + m] = x << 1;
                    gated[at + m] = 1;
                }
            }
            at += nm;
        }
    }
    if (raw_late(raw) || !b_factor(&b, outs, n_outs, raw)) goto late;
    if (!b_simplify_all(&b, raw)) goto late;
    for (uint32_t j = 0; j < n_outs; j++) outs[j] = b_res(&b, outs[j]);
    if (raw_late(raw)) goto late;
    b_flatten(&b, outs, n_outs);
    for (uint32_t j = 0; j < n_outs; j++) outs[j] = b_res(&b, outs[j]);

    /* Live nodes: those an output reads, plus the inputs. The ones that
     * only goals read (Reversi's disc count) are "lazy": playouts need
     * goals at the end only, so they are evaluated when asked, not kept
     * up to date at every step. live: 1 core, 2 lazy. */
    uint32_t n = b.n, goal_lo = legal_at;
    for (uint32_t r = 0; r < nr; r++) goal_lo += raw->n_moves[r];
    uint8_t *live = xcalloc(n, 1);
    uint32_t *st = xmalloc(n * sizeof *st), sp = 0;
    live[0] = 1;
    for (uint32_t p = 0; p < np; p++)
        if (b.nd[p].kind == K_IN) live[p] = 1;
    for (uint8_t mark = 1; mark <= 2; mark++) {
        for (uint32_t j = 0; j < n_outs; j++) {
            bool goal = j >= goal_lo && j < gate_at;
            if (goal != (mark == 2) || live[outs[j] >> 1]) continue;
            live[outs[j] >> 1] = mark;
            st[sp++] = outs[j] >> 1;
        }
        while (sp) {
            uint32_t u = st[--sp];
            for (uint32_t j = 0; j < b.nd[u].n; j++) {
                uint32_t w = (b.nd[u].in[j] = b_res(&b, b.nd[u].in[j])) >> 1;
                if (!live[w]) {
                    live[w] = mark;
                    st[sp++] = w;
                }
            }
        }
    }

    /* Tarjan over live nodes, edges to inputs: components complete inputs
     * first, which is the evaluation order; node 0 (true) comes first. The
     * new id of a node is its place in that order. */
    uint32_t *comp = xmalloc(n * sizeof *comp), *old_of = xmalloc(n * sizeof *old_of);
    scc_tarjan(&(scc_graph_t){.n = n, .edge = bnode_edge, .ctx = &b, .roots = live}, comp, old_of);
    uint32_t nn = 0;
    for (uint32_t v = 0; v < n; v++) nn += live[v] != 0;
    uint32_t *newid = xmalloc(n * sizeof *newid);
    memset(newid, 0xff, n * sizeof *newid);
    for (uint32_t v = 0; v < nn; v++) newid[old_of[v]] = v;

    pn_circuit_t *c = xcalloc(1, sizeof *c);
    c->n_nodes = nn;
    c->kind = xmalloc(nn);
    c->in_off = xcalloc(nn + 1, sizeof *c->in_off);
    c->group = xmalloc(nn * sizeof *c->group);
    c->lazy = xmalloc(nn ? nn : 1);
    for (uint32_t v = 0; v < nn; v++) {
        c->lazy[v] = live[old_of[v]] == 2;
        if (c->lazy[v]) {
            XVEC_RESERVE(&c->lazy_list, &c->cap_lazy, c->n_lazy + 1);
            c->lazy_list[c->n_lazy++] = v;
        }
        c->kind[v] = b.nd[old_of[v]].kind;
        c->in_off[v + 1] = c->in_off[v] + b.nd[old_of[v]].n;
    }
    c->in = xmalloc((c->in_off[nn] ? c->in_off[nn] : 1) * sizeof *c->in);
    for (uint32_t v = 0; v < nn; v++) {
        const bnode_t *x = &b.nd[old_of[v]];
        for (uint32_t j = 0; j < x->n; j++) c->in[c->in_off[v] + j] = newid[x->in[j] >> 1] << 1 | (x->in[j] & 1);
    }
    /* Cyclic groups: components of several nodes, or one that reads itself. */
    c->group_lo = NULL;
    uint32_t cap_g = 0;
    for (uint32_t v = 0; v < nn;) {
        uint32_t e = v;
        while (e < nn && comp[old_of[e]] == comp[old_of[v]]) e++;
        bool cyc = e - v > 1;
        for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1] && !cyc; j++) cyc = c->in[j] >> 1 == v;
        for (uint32_t u = v; u < e; u++) c->group[u] = cyc ? c->n_groups : NONE;
        if (cyc) {
            XVEC_RESERVE(&c->group_lo, &cap_g, c->n_groups + 1);
            c->group_lo[c->n_groups++] = v;
        }
        v = e;
    }
    c->group_hi = xmalloc((c->n_groups ? c->n_groups : 1) * sizeof *c->group_hi);
    for (uint32_t gi = 0; gi < c->n_groups; gi++) {
        uint32_t v = c->group_lo[gi];
        while (v < nn && c->group[v] == gi) v++;
        c->group_hi[gi] = v;
    }
    free(comp);
    /* Universe gates: an OR that reads does inputs only (the frame rules'
     * "some move that leaves c alone") counts the moves played in the
     * universe U (every does input such ORs read) minus those played in
     * its exceptions U \ inputs, when those are fewer than its inputs. A
     * joint move that keeps the number of moves played in U (one role
     * moves, the other waits) then touches only the exceptions of the
     * moves that changed, not every gate that each move feeds. */
    c->in_u = xcalloc(nn, 1);
    uint8_t *is_does = xcalloc(nn, 1), *ugate = xcalloc(nn, 1), *mark = xcalloc(nn, 1);
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t m = 0; m < raw->n_moves[r]; m++) is_does[newid[raw->does_prop[r][m]]] = 1;
    uint32_t *u_list = NULL, n_u = 0, cap_u = 0;
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t v = 0; v < nn; v++) {
            if (c->group[v] != NONE || c->kind[v] != K_OR) continue;
            bool all = true;
            for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1] && all; j++)
                all = !(c->in[j] & 1) && is_does[c->in[j] >> 1];
            if (!all) continue;
            if (pass == 0) {
                for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1]; j++)
                    if (!c->in_u[c->in[j] >> 1]) {
                        c->in_u[c->in[j] >> 1] = 1;
                        XVEC_RESERVE(&u_list, &cap_u, n_u + 1);
                        u_list[n_u++] = c->in[j] >> 1;
                    }
            } else if (2 * (c->in_off[v + 1] - c->in_off[v]) > n_u + 2) {
                ugate[v] = 1;
                c->n_ugates++;
            }
        }
    c->ugates = xmalloc((c->n_ugates ? c->n_ugates : 1) * sizeof *c->ugates);
    uint32_t *exc_off = xcalloc(nn + 1, sizeof *exc_off), *exc = NULL, n_exc = 0, cap_exc = 0;
    c->n_ugates = 0;
    for (uint32_t v = 0; v < nn; v++) {
        if (ugate[v]) {
            c->ugates[c->n_ugates++] = v;
            for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1]; j++) mark[c->in[j] >> 1] = 1;
            for (uint32_t k2 = 0; k2 < n_u; k2++)
                if (!mark[u_list[k2]]) {
                    XVEC_RESERVE(&exc, &cap_exc, n_exc + 1);
                    exc[n_exc++] = u_list[k2] << 1 | 1;
                }
            for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1]; j++) mark[c->in[j] >> 1] = 0;
        }
        exc_off[v + 1] = n_exc;
    }
    free(u_list);
    free(is_does);
    free(mark);
    /* Mutex groups of state bits: a set S where each bit's next is false or
     * a wire from another bit of S, no bit of S feeds two, and the initial
     * state has at most one bit of S on (a counter such as (step n), whose
     * next is (true (step n-1)); whose turn it is). A state reached by next
     * then has at most one bit of S on (the bits on at t+1 have distinct
     * sources on at t), and states only come from initial and next. An AND
     * that reads a member s is false unless s is on: its counter is kept
     * only while s is the group's active member, and a node that feeds such
     * gates of many members reaches, through a table indexed by the active
     * member, only those of the member on (Hex's "(step k) and cell" gates,
     * one per step, cost one edge instead of one per step). */
    uint32_t *guard = xmalloc((nn ? nn : 1) * sizeof *guard);
    memset(guard, 0xff, (nn ? nn : 1) * sizeof *guard);
    c->mgroup = xmalloc((nn ? nn : 1) * sizeof *c->mgroup);
    memset(c->mgroup, 0xff, (nn ? nn : 1) * sizeof *c->mgroup);
    c->midx = xcalloc(nn ? nn : 1, sizeof *c->midx);
    {
        uint32_t nb = raw->n_base, nb1 = nb ? nb : 1;
        uint32_t *bit_of = xmalloc((nn ? nn : 1) * sizeof *bit_of), *src = xmalloc(nb1 * sizeof *src);
        uint32_t *par = xmalloc(nb1 * sizeof *par), *feeds = xcalloc(nb1, sizeof *feeds);
        uint32_t *cnt_init = xcalloc(nb1, sizeof *cnt_init), *size = xcalloc(nb1, sizeof *size);
        uint8_t *bad = xcalloc(nb1, 1), *seen_b = xcalloc(nb1, 1);
        memset(bit_of, 0xff, (nn ? nn : 1) * sizeof *bit_of);
        memset(src, 0xff, nb1 * sizeof *src);
        for (uint32_t bt = 0; bt < nb; bt++) {
            par[bt] = bt;
            uint32_t v = newid[raw->base_prop[bt]];
            if (v != NONE) bit_of[v] = bt;
        }
        for (uint32_t i = 0; i < raw->n_next; i++) {
            uint32_t bt = raw->next_bit[i], l = outs[1 + i];
            uint32_t nl = l == LIT_FALSE ? LIT_FALSE : newid[l >> 1] << 1 | (l & 1);
            if (seen_b[bt]) bad[bt] = 1;
            seen_b[bt] = 1;
            if (nl == LIT_FALSE) continue;
            if (!(nl & 1) && bit_of[nl >> 1] != NONE) src[bt] = bit_of[nl >> 1];
            else bad[bt] = 1;
        }
        for (uint32_t bt = 0; bt < nb; bt++) {
            if (src[bt] == NONE) continue;
            feeds[src[bt]]++;
            uint32_t a = bt, z = src[bt];
            while (par[a] != a) a = par[a] = par[par[a]];
            while (par[z] != z) z = par[z] = par[par[z]];
            if (a != z) par[a] = z;
        }
        for (uint32_t bt = 0; bt < nb; bt++) {
            uint32_t a = bt;
            while (par[a] != a) a = par[a];
            par[bt] = a;
            if (bad[bt] || feeds[bt] > 1) bad[a] = 1;
            size[a]++;
        }
        for (uint32_t i = 0; i < raw->n_init; i++) cnt_init[par[raw->init_bits[i]]]++;
        uint32_t *gid = feeds; /* reused: per root, its group + 1 */
        memset(gid, 0, nb1 * sizeof *gid);
        for (uint32_t bt = 0; bt < nb; bt++) {
            uint32_t a = par[bt], v = newid[raw->base_prop[bt]];
            if (bad[a] || size[a] < 2 || cnt_init[a] > 1 || v == NONE) continue;
            if (!gid[a]) {
                gid[a] = ++c->n_mg;
                XVEC_RESERVE(&c->mg_size, &c->cap_mg, c->n_mg);
                c->mg_size[c->n_mg - 1] = 0;
            }
            c->mgroup[v] = gid[a] - 1;
            c->midx[v] = c->mg_size[gid[a] - 1]++;
        }
        free(bit_of);
        free(src);
        free(par);
        free(feeds);
        free(cnt_init);
        free(size);
        free(bad);
        free(seen_b);
    }
    c->mg_off = xcalloc(c->n_mg + 1, sizeof *c->mg_off);
    for (uint32_t g = 0; g < c->n_mg; g++) c->mg_off[g + 1] = c->mg_off[g] + c->mg_size[g];
    c->mg_mem = xmalloc((c->mg_off[c->n_mg] ? c->mg_off[c->n_mg] : 1) * sizeof *c->mg_mem);
    for (uint32_t v = 0; v < nn; v++)
        if (c->mgroup[v] != NONE) c->mg_mem[c->mg_off[c->mgroup[v]] + c->midx[v]] = v;
    /* Guarded gates: ANDs (not cyclic, not lazy) that read a member. */
    c->gd_off = xcalloc(nn + 1, sizeof *c->gd_off);
    if (c->n_mg) {
        for (uint32_t v = 0; v < nn; v++) {
            if (c->kind[v] != K_AND || c->group[v] != NONE || c->lazy[v]) continue;
            for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1]; j++) {
                uint32_t l = c->in[j];
                if (!(l & 1) && c->mgroup[l >> 1] != NONE) {
                    guard[v] = l >> 1;
                    c->gd_off[(l >> 1) + 1]++;
                    break;
                }
            }
        }
    }
    typedef struct gedge {
        uint32_t p, g, m, e;
    } gedge_t;
    if (c->n_mg) {
        /* A gate gains from its guard only when an input reaches it through
         * a table (below: a node that feeds gates of many members); the
         * others stay plain gates, since waking them costs a recount. */
        gedge_t *pe = NULL;
        uint32_t n_pe = 0, cap_pe = 0;
        for (uint32_t v = 0; v < nn; v++) {
            if (guard[v] == NONE) continue;
            for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1]; j++) {
                if (c->in[j] == guard[v] << 1) continue;
                XVEC_RESERVE(&pe, &cap_pe, n_pe + 1);
                pe[n_pe++] = (gedge_t){c->in[j] >> 1, c->mgroup[guard[v]], 0, v};
            }
        }
        if (n_pe) qsort(pe, n_pe, sizeof *pe, cmp_gedge);
        uint8_t *gain = xcalloc(nn ? nn : 1, 1);
        for (uint32_t ka = 0; ka < n_pe;) {
            uint32_t e = ka;
            while (e < n_pe && pe[e].p == pe[ka].p && pe[e].g == pe[ka].g) e++;
            if (PN_MUX_TABLE(e - ka, c->mg_size[pe[ka].g]))
                for (uint32_t q = ka; q < e; q++) gain[pe[q].e] = 1;
            ka = e;
        }
        for (uint32_t v = 0; v < nn; v++)
            if (guard[v] != NONE && !gain[v]) {
                c->gd_off[guard[v] + 1]--;
                guard[v] = NONE;
            }
        free(gain);
        free(pe);
    }
    {
        /* A group that guards nothing need not be followed at run time. */
        uint8_t *used = xcalloc(c->n_mg + 1, 1);
        for (uint32_t v = 0; v < nn; v++)
            if (c->gd_off[v + 1]) used[c->mgroup[v]] = 1;
        for (uint32_t v = 0; v < nn; v++)
            if (c->mgroup[v] != NONE && !used[c->mgroup[v]]) c->mgroup[v] = NONE;
        free(used);
    }
    for (uint32_t v = 0; v < nn; v++) c->gd_off[v + 1] += c->gd_off[v];
    c->gd = xmalloc((c->gd_off[nn] ? c->gd_off[nn] : 1) * sizeof *c->gd);
    c->gd_lit = xmalloc((c->gd_off[nn] ? c->gd_off[nn] : 1) * sizeof *c->gd_lit);
    {
        uint32_t *fl = xmalloc((nn + 1) * sizeof *fl);
        memcpy(fl, c->gd_off, (nn + 1) * sizeof *fl);
        for (uint32_t v = 0; v < nn; v++) {
            if (guard[v] == NONE) continue;
            uint32_t k2 = fl[guard[v]]++, lo = c->in_off[v];
            c->gd[k2] = v;
            /* A gate of two inputs: its other literal, to wake it cheaply. */
            c->gd_lit[k2] = c->in_off[v + 1] - lo != 2 ? NONE : c->in[lo] >> 1 == guard[v] ? c->in[lo + 1] : c->in[lo];
        }
        free(fl);
    }
    /* The edges into guarded gates (but from the guard): those of a node
     * into one group go to a table by member when they are many, else
     * they stay counter edges (a dead gate's counter is far below 0). */
    gedge_t *ge = NULL;
    uint32_t n_ge = 0, cap_ge = 0;
    for (uint32_t v = 0; v < nn; v++) {
        if (guard[v] == NONE) continue;
        for (uint32_t j = c->in_off[v]; j < c->in_off[v + 1]; j++) {
            uint32_t l = c->in[j];
            if (l == guard[v] << 1) continue;
            XVEC_RESERVE(&ge, &cap_ge, n_ge + 1);
            ge[n_ge++] = (gedge_t){l >> 1, c->mgroup[guard[v]], c->midx[guard[v]], v << 1 | (l & 1)};
        }
    }
    if (n_ge) qsort(ge, n_ge, sizeof *ge, cmp_gedge);
    uint32_t *extra = NULL, n_extra = 0, cap_extra = 0; /* pairs p, edge */
    c->mux_off = xcalloc(nn + 1, sizeof *c->mux_off);
    uint32_t cap_mux = 0, n_mux = 0, cap_mtab = 0, n_mtab = 0, cap_med = 0, n_med = 0;
    for (uint32_t ka = 0; ka < n_ge;) {
        uint32_t e = ka;
        while (e < n_ge && ge[e].p == ge[ka].p && ge[e].g == ge[ka].g) e++;
        uint32_t gs = c->mg_size[ge[ka].g];
        if (PN_MUX_TABLE(e - ka, gs)) {
            XVEC_RESERVE(&c->mux, &cap_mux, n_mux + 2);
            c->mux[n_mux++] = ge[ka].g;
            c->mux[n_mux++] = n_mtab;
            c->mux_off[ge[ka].p + 1]++;
            XVEC_RESERVE(&c->mtab, &cap_mtab, n_mtab + gs + 1);
            XVEC_RESERVE(&c->medge, &cap_med, n_med + (e - ka));
            uint32_t q = ka;
            for (uint32_t m = 0; m <= gs; m++) {
                c->mtab[n_mtab + m] = n_med;
                while (q < e && ge[q].m == m) c->medge[n_med++] = ge[q++].e;
            }
            n_mtab += gs + 1;
        } else {
            for (uint32_t q = ka; q < e; q++) {
                XVEC_RESERVE(&extra, &cap_extra, n_extra + 2);
                extra[n_extra++] = ge[q].p;
                extra[n_extra++] = ge[q].e;
            }
        }
        ka = e;
    }
    for (uint32_t v = 0; v < nn; v++) c->mux_off[v + 1] += c->mux_off[v];
    c->n_medge = n_med;
    free(ge);
    /* The literals whose flips a gate counts: its inputs, or for a universe
     * gate its exceptions (negated: playing one counts down). */
#define CIN_LO(v) (ugate[v] ? exc_off[v] : c->in_off[v])
#define CIN_HI(v) (ugate[v] ? exc_off[(v) + 1] : c->in_off[(v) + 1])
#define CIN(v, j) (ugate[v] ? exc[j] : c->in[j])
    /* Fan-outs: counter edges, then cyclic groups to mark, then edges
     * inside the node's own group. */
    uint32_t *cnt_e = xcalloc(nn + 1, sizeof *cnt_e), *cnt_g = xcalloc(nn + 1, sizeof *cnt_g),
             *cnt_i = xcalloc(nn + 1, sizeof *cnt_i);
    for (uint32_t ke = 0; ke < n_extra; ke += 2) cnt_e[extra[ke]]++;
    for (uint32_t v = 0; v < nn; v++)
        for (uint32_t j = CIN_LO(v); j < CIN_HI(v); j++) {
            uint32_t p = CIN(v, j) >> 1;
            if (guard[v] != NONE) break;
            if (c->lazy[v] && (c->group[v] == NONE || c->group[v] != c->group[p])) continue;
            if (c->group[v] == NONE) cnt_e[p]++;
            else if (c->group[v] == c->group[p]) cnt_i[p]++;
            else cnt_g[p]++;
        }
    c->fan_off = xmalloc((nn + 1) * sizeof *c->fan_off);
    c->grp_off = xmalloc((nn + 1) * sizeof *c->grp_off);
    c->int_off = xmalloc((nn + 1) * sizeof *c->int_off);
    uint32_t tot = 0;
    for (uint32_t v = 0; v < nn; v++) {
        c->fan_off[v] = tot;
        c->grp_off[v] = tot + cnt_e[v];
        c->int_off[v] = c->grp_off[v] + cnt_g[v];
        tot = c->int_off[v] + cnt_i[v];
    }
    c->fan_off[nn] = tot;
    c->fan = xmalloc((tot ? tot : 1) * sizeof *c->fan);
    memset(cnt_e, 0, (nn + 1) * sizeof *cnt_e);
    memset(cnt_g, 0, (nn + 1) * sizeof *cnt_g);
    memset(cnt_i, 0, (nn + 1) * sizeof *cnt_i);
    for (uint32_t ke = 0; ke < n_extra; ke += 2) c->fan[c->fan_off[extra[ke]] + cnt_e[extra[ke]]++] = extra[ke + 1];
    free(extra);
    for (uint32_t v = 0; v < nn; v++)
        for (uint32_t j = CIN_LO(v); j < CIN_HI(v); j++) {
            uint32_t l = CIN(v, j), p = l >> 1;
            if (guard[v] != NONE) break;
            if (c->lazy[v] && (c->group[v] == NONE || c->group[v] != c->group[p])) continue;
            if (c->group[v] == NONE) {
                c->fan[c->fan_off[p] + cnt_e[p]++] = v << 1 | (l & 1);
            } else if (c->group[v] == c->group[p]) {
                c->fan[c->int_off[p] + cnt_i[p]++] = v;
            } else {
                uint32_t *gl = c->fan + c->grp_off[p];
                bool dup = false;
                for (uint32_t q = 0; q < cnt_g[p] && !dup; q++) dup = gl[q] == c->group[v];
                if (!dup) gl[cnt_g[p]++] = c->group[v];
            }
        }
    /* Compact the group lists (duplicates were skipped). */
    {
        uint32_t w = 0;
        for (uint32_t v = 0; v < nn; v++) {
            uint32_t a = c->fan_off[v], ng = cnt_g[v], ni = c->fan_off[v + 1] - c->int_off[v];
            uint32_t ne = c->grp_off[v] - a, gs = c->grp_off[v], is = c->int_off[v];
            c->fan_off[v] = w;
            memmove(c->fan + w, c->fan + a, ne * sizeof *c->fan);
            w += ne;
            c->grp_off[v] = w;
            memmove(c->fan + w, c->fan + gs, ng * sizeof *c->fan);
            w += ng;
            c->int_off[v] = w;
            memmove(c->fan + w, c->fan + is, ni * sizeof *c->fan);
            w += ni;
        }
        c->fan_off[nn] = w;
    }
    free(cnt_e);
    free(cnt_g);
    free(cnt_i);
#undef CIN_LO
#undef CIN_HI
#undef CIN
    free(exc_off);
    free(exc);
    free(ugate);
    for (uint32_t v = 0; v < nn; v++) c->n_gates += c->kind[v] == K_AND || c->kind[v] == K_OR;
    c->n_edges = c->fan_off[nn] + c->n_medge;
    free(guard);

    /* Inputs and outputs in new ids. */
#define NEWLIT(l) (newid[(l) >> 1] << 1 | ((l) & 1))
    c->n_base = raw->n_base;
    c->n_words = raw->n_words;
    c->base_node = xmalloc((raw->n_base ? raw->n_base : 1) * sizeof *c->base_node);
    for (uint32_t bt = 0; bt < raw->n_base; bt++) {
        c->base_node[bt] = newid[raw->base_prop[bt]];
    }
    c->n_roles = nr;
    uint32_t nrr = nr ? nr : 1;
    c->n_moves = xcalloc(nrr, sizeof *c->n_moves);
    c->does_node = xcalloc(nrr, sizeof *c->does_node);
    c->legal_lit = xcalloc(nrr, sizeof *c->legal_lit);
    c->legal_gated = xcalloc(nrr, sizeof *c->legal_gated);
    c->lw_off = xcalloc(nrr + 1, sizeof *c->lw_off);
    c->gate = xmalloc(nrr * sizeof *c->gate);
    c->n_goals = xcalloc(nrr, sizeof *c->n_goals);
    c->goal_lit = xcalloc(nrr, sizeof *c->goal_lit);
    uint32_t at = legal_at, gat = legal_at;
    for (uint32_t r = 0; r < nr; r++) gat += raw->n_moves[r];
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t nm = raw->n_moves[r];
        c->n_moves[r] = nm;
        c->does_node[r] = xmalloc((nm ? nm : 1) * sizeof **c->does_node);
        c->legal_lit[r] = xmalloc((nm ? nm : 1) * sizeof **c->legal_lit);
        c->legal_gated[r] = xmalloc(nm ? nm : 1);
        for (uint32_t m = 0; m < nm; m++) {
            c->does_node[r][m] = newid[raw->does_prop[r][m]];
            c->legal_lit[r][m] = NEWLIT(outs[at + m]);
            c->legal_gated[r][m] = gated[at + m];
        }
        at += nm;
        c->lw_off[r + 1] = c->lw_off[r] + (nm + 31) / 32;
        c->gate[r] = has_gate[r] ? NEWLIT(outs[gate_at + r]) : NONE;
        c->n_goals[r] = raw->n_goals[r];
        c->goal_lit[r] = xmalloc((raw->n_goals[r] ? raw->n_goals[r] : 1) * sizeof **c->goal_lit);
        for (uint32_t j = 0; j < raw->n_goals[r]; j++, gat++) c->goal_lit[r][j] = NEWLIT(outs[gat]);
    }
    c->n_lwords = c->lw_off[nr];
    c->n_next = raw->n_next;
    c->next_lit = xmalloc((raw->n_next ? raw->n_next : 1) * sizeof *c->next_lit);
    c->next_bit = xmalloc((raw->n_next ? raw->n_next : 1) * sizeof *c->next_bit);
    for (uint32_t i = 0; i < raw->n_next; i++) {
        c->next_lit[i] = NEWLIT(outs[1 + i]);
        c->next_bit[i] = raw->next_bit[i];
    }
    c->terminal_lit = NEWLIT(outs[0]);
#undef NEWLIT
    /* Output toggles per node. */
    c->has_out = xcalloc(nn, 1);
    c->out_off = xcalloc(nn + 1, sizeof *c->out_off);
    for (uint32_t i = 0; i < c->n_next; i++) c->out_off[(c->next_lit[i] >> 1) + 1]++;
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t m = 0; m < c->n_moves[r]; m++) c->out_off[(c->legal_lit[r][m] >> 1) + 1]++;
    for (uint32_t v = 0; v < nn; v++) c->out_off[v + 1] += c->out_off[v];
    c->outs = xmalloc((c->out_off[nn] ? c->out_off[nn] : 1) * sizeof *c->outs);
    uint32_t *fill = xmalloc((nn + 1) * sizeof *fill);
    memcpy(fill, c->out_off, (nn + 1) * sizeof *fill);
    for (uint32_t i = 0; i < c->n_next; i++) c->outs[fill[c->next_lit[i] >> 1]++] = 2 * c->n_lwords * 32 + c->next_bit[i];
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t m = 0; m < c->n_moves[r]; m++)
            c->outs[fill[c->legal_lit[r][m] >> 1]++] =
                (2 * (c->lw_off[r] + m / 32) + c->legal_gated[r][m]) * 32 + m % 32;
    free(fill);
    for (uint32_t v = 0; v < nn; v++)
        c->has_out[v] = (uint8_t)((c->out_off[v] != c->out_off[v + 1] ? FL_OUT : 0) |
                                  (c->fan_off[v] != c->int_off[v] ? FL_FAN : 0) |
                                  (c->mux_off[v] != c->mux_off[v + 1] ? FL_FAN | FL_MUX : 0));
    c->node = xmalloc((nn + 1) * sizeof *c->node);
    c->cedge = xmalloc((c->fan_off[nn] ? c->fan_off[nn] : 1) * sizeof *c->cedge);
    uint32_t n_ce = 0;
    uint32_t n_m = 0;
    for (uint32_t v = 0; v < nn; v++)
        if (c->out_off[v + 1] != c->out_off[v]) n_m += 1 + c->out_off[v + 1] - c->out_off[v];
    c->mouts = xmalloc((n_m ? n_m : 1) * sizeof *c->mouts);
    n_m = 0;
    for (uint32_t v = 0; v < nn; v++) {
        pn_node_t *d = &c->node[v];
        uint32_t no = c->out_off[v + 1] - c->out_off[v], fl = c->has_out[v];
        if (c->mgroup[v] != NONE) fl |= FL_MEMBER;
        for (uint32_t o = c->out_off[v]; o < c->out_off[v + 1]; o++) {
            uint32_t pw = c->outs[o] >> 6; /* a legal word pair, or past them */
            for (uint32_t r = 0; r < nr && pw < c->n_lwords; r++)
                if (pw >= c->lw_off[r] && pw < c->lw_off[r + 1] && c->lw_off[r + 1] - c->lw_off[r] >= PN_LSUM_MIN)
                    fl |= FL_LSUM, c->has_lsum = true;
        }
        d->fan = n_ce;
        {
            /* Positive edges first, as plain gate ids (see pn_node_t). */
            const uint32_t *e = c->fan + c->fan_off[v];
            uint32_t ne = c->grp_off[v] - c->fan_off[v], np2 = 0;
            for (uint32_t q = 0; q < ne; q++)
                if (!(e[q] & 1)) np2++;
            uint32_t ip = n_ce, in = n_ce + np2;
            for (uint32_t q = 0; q < ne; q++) c->cedge[e[q] & 1 ? in++ : ip++] = e[q] >> 1;
            d->mid = n_ce + np2;
            n_ce += ne;
        }
        d->out = no ? c->outs[c->out_off[v]] >> 5 : 0;
        uint32_t bit = no ? c->outs[c->out_off[v]] & 31 : 0;
        /* A node with a legal move of a summarised role takes the slow path
         * (several outputs), where toggles also mark the summary. */
        if (no > 1 || (fl & FL_LSUM)) {
            fl |= FL_MULTI;
            d->out = n_m;
            c->mouts[n_m++] = no;
            for (uint32_t o = c->out_off[v]; o < c->out_off[v + 1]; o++) c->mouts[n_m++] = c->outs[o];
        }
        if (c->int_off[v] != c->grp_off[v] || (fl & FL_MUX)) fl |= FL_SLOW;
        d->fl = bit << FL_SHIFT | fl;
    }
    c->node[nn] = (pn_node_t){.fan = n_ce, .mid = n_ce};

    free(newid);
    free(old_of);
    free(st);
    free(live);
    free(gated);
    free(has_gate);
    free(outs);
    b_free(&b, pool);
    return c;

late: /* past the deadline, before the circuit itself was allocated */
    free(gated);
    free(has_gate);
    free(outs);
    b_free(&b, pool);
    return NULL;
}

void pn_circuit_size(const pn_circuit_t *c, size_t *gates, size_t *edges)
{
    *gates = c->n_gates;
    *edges = c->n_edges;
}

void pn_circuit_free(pn_circuit_t *c)
{
    if (!c) return;
    for (uint32_t r = 0; r < c->n_roles; r++) {
        free(c->does_node[r]);
        free(c->legal_lit[r]);
        free(c->legal_gated[r]);
        free(c->goal_lit[r]);
    }
    free(c->does_node);
    free(c->legal_lit);
    free(c->legal_gated);
    free(c->goal_lit);
    free(c->n_goals);
    free(c->n_moves);
    free(c->lw_off);
    free(c->gate);
    free(c->next_lit);
    free(c->next_bit);
    free(c->base_node);
    free(c->has_out);
    free(c->node);
    free(c->cedge);
    free(c->mouts);
    free(c->out_off);
    free(c->outs);
    free(c->kind);
    free(c->in_off);
    free(c->in);
    free(c->fan_off);
    free(c->grp_off);
    free(c->int_off);
    free(c->fan);
    free(c->group);
    free(c->in_u);
    free(c->lazy);
    free(c->lazy_list);
    free(c->ugates);
    free(c->group_lo);
    free(c->group_hi);
    free(c->mg_size);
    free(c->mg_off);
    free(c->mg_mem);
    free(c->mgroup);
    free(c->midx);
    free(c->gd_off);
    free(c->gd);
    free(c->gd_lit);
    free(c->mux_off);
    free(c->mux);
    free(c->mtab);
    free(c->medge);
    free(c);
}

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
        if (w == x->n_pwords) return;
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
