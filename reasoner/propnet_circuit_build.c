/* propnet_circuit_build.c - build the propnet's optimised circuit (see
 * propnet_circuit.h for what and why): simplify the recorded network, then
 * lay it out for the run (propnet_circuit_run.c) in named passes over one
 * build context (pn_circuit_build, at the end, is their driver). */
#include "reasoner/propnet_circuit_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/scc.h"
#include "base/xalloc.h"

/* Edges from one node into the gates of a mutex group of size gs that go
 * to a table by member rather than stay counter edges. */
#define PN_MUX_TABLE(n, gs) ((n) >= 2 && (n) * 4 >= (gs) + 1)
/* mark_live: goal-only gates past this many times the others are not lazy */
#define PN_LAZY_MAX_RATIO 32
#define LIT_TRUE 0u  /* node 0 is the constant true */
#define LIT_FALSE 1u /* its negation */

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

/* An edge into a guarded gate: from node p, into mutex group g whose
 * member m guards it; e the gate (and the edge's polarity). Sorted by
 * p, g, m. */
typedef struct gedge {
    uint32_t p, g, m, e;
} gedge_t;

static int cmp_gedge(const void *x, const void *y)
{
    const uint32_t *a = x, *b = y;
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* References to each node from live gates' inputs and from the outputs. */
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

/* ------------------------------------------------------ the build passes */

/* What the passes of pn_circuit_build share: the network being simplified
 * and its outputs, then the circuit being laid out. */
typedef struct cbuild {
    const pn_raw_t *raw;
    bld_t b;
    uint32_t *pool; /* the recorded network's inputs (see b_free) */
    uint32_t nr;    /* roles */
    /* Output literals: terminal, the next ones, legal moves (per role,
     * from legal_at), goals (per role), then per role the literal its
     * legal moves are gated by (from gate_at; LIT_TRUE when none). */
    uint32_t *outs, n_outs, legal_at, gate_at;
    uint8_t *gated;    /* per output: a legal move read under its role's gate */
    uint8_t *has_gate; /* per role */
    uint8_t *live;     /* per builder node: 0 dead, 1 core, 2 lazy (goals only) */
    /* The circuit's nodes are the live ones, in evaluation order. */
    uint32_t nn, *newid, *old_of; /* builder node -> circuit node (or NONE), and back */
    uint32_t *comp;               /* per builder node: its strongly connected component */
    pn_circuit_t *c;
    uint8_t *ugate;          /* per node: a universe gate */
    uint32_t *exc_off, *exc; /* per universe gate: its exceptions */
    uint32_t *guard;         /* per node: the mutex member that guards it, or NONE */
    uint32_t *extra, n_extra; /* guarded edges kept as counter edges: pairs p, edge */
} cbuild_t;

/* The recorded network as builder nodes: a proposition is the OR of its
 * instances, an instance the AND of its literals. */
static void load_network(cbuild_t *cb)
{
    const pn_raw_t *raw = cb->raw;
    bld_t *b = &cb->b;
    uint32_t np = raw->n_props;
    for (uint32_t p = 0; p < np; p++) b_new(b, p == 0 ? K_TRUE : raw->is_input[p] ? K_IN : K_OR);
    b->alias[1] = LIT_FALSE;
    b->nd[1].kind = K_TRUE;
    /* The recorded network's inputs go to one pool (contiguous, one
     * allocation); a gate that grows later moves its own out. */
    uint32_t *pool = xmalloc(((size_t)raw->n_inst + raw->inst_lit[raw->n_inst] + 1) * sizeof *pool);
    {
        uint32_t *hc = xcalloc((size_t)np + 1, sizeof *hc);
        for (uint32_t i = 0; i < raw->n_inst; i++) hc[raw->inst_head[i] + 1]++;
        for (uint32_t p = 0; p < np; p++) hc[p + 1] += hc[p];
        for (uint32_t p = 0; p < np; p++) b->nd[p].in = pool + hc[p];
        free(hc);
    }
    for (uint32_t i = 0; i < raw->n_inst; i++) {
        uint32_t a = b_new(b, K_AND), lo = raw->inst_lit[i], nl = raw->inst_lit[i + 1] - lo;
        b->nd[a].in = pool + raw->n_inst + lo;
        /* a body of no literals (a fact) may come with no literal array
         * at all: raw->lits + lo would be arithmetic on NULL */
        if (nl) memcpy(b->nd[a].in, raw->lits + lo, nl * sizeof *raw->lits);
        b->nd[a].n = nl;
        bnode_t *h = &b->nd[raw->inst_head[i]];
        h->in[h->n++] = a << 1;
    }
    cb->pool = pool;
}

/* Output literals, gathered in one array (refcounts, liveness). */
static void collect_outputs(cbuild_t *cb)
{
    const pn_raw_t *raw = cb->raw;
    uint32_t nr = raw->n_roles;
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
    cb->nr = nr;
    cb->outs = outs;
    cb->n_outs = n_outs;
    cb->legal_at = legal_at;
    cb->gate_at = gate_at;
    cb->gated = xcalloc(n_outs, 1);
    cb->has_gate = xcalloc(nr ? nr : 1, 1);
}

/* Legal gating: per role, the literal most legal moves share. */
static void gate_legal(cbuild_t *cb)
{
    const pn_raw_t *raw = cb->raw;
    bld_t *b = &cb->b;
    uint32_t nr = cb->nr, *outs = cb->outs, legal_at = cb->legal_at, gate_at = cb->gate_at;
    uint8_t *gated = cb->gated, *has_gate = cb->has_gate;
    uint32_t at = legal_at;
    for (uint32_t r = 0; r < nr; r++) {
        /* Sized now: gating an earlier role made nodes. */
        uint32_t *freq = xcalloc(2 * (size_t)b->n, sizeof *freq);
        uint32_t nm = raw->n_moves[r], best = NONE, bf = 0;
        for (uint32_t m = 0; m < nm; m++) {
            uint32_t nc, *c = b_common(b, b_res(b, outs[at + m]), &nc);
            for (uint32_t j = 0; j < nc; j++) freq[c[j]]++;
            free(c);
        }
        for (uint32_t m = 0; m < nm; m++) {
            uint32_t nc, *c = b_common(b, b_res(b, outs[at + m]), &nc);
            for (uint32_t j = 0; j < nc; j++) {
                if (freq[c[j]] > bf || (freq[c[j]] == bf && c[j] < best)) {
                    bf = freq[c[j]];
                    best = c[j];
                }
            }
            free(c);
        }
        for (uint32_t m = 0; m < nm; m++) {
            uint32_t nc, *c = b_common(b, b_res(b, outs[at + m]), &nc);
            for (uint32_t j = 0; j < nc; j++) freq[c[j]] = 0;
            free(c);
        }
        free(freq);
        if (bf >= 2) {
            outs[gate_at + r] = best;
            has_gate[r] = 1;
            for (uint32_t m = 0; m < nm; m++) {
                uint32_t l = b_res(b, outs[at + m]), nc, *c = b_common(b, l, &nc);
                bool has = false;
                for (uint32_t j = 0; j < nc; j++) has |= c[j] == best;
                free(c);
                if (!has) continue;
                uint32_t x;
                if (b->nd[l >> 1].kind == K_AND) {
                    x = b_and_without(b, l >> 1, best);
                } else {
                    x = b_new(b, K_OR);
                    for (uint32_t j = 0; j < b->nd[l >> 1].n; j++)
                        b_add(b, x, b_and_without(b, b->nd[l >> 1].in[j] >> 1, best) << 1);
                }
                /* The legal gate itself becomes gate and x, for the
                 * rules that read legal (Checkers' "has a legal move"):
                 * factoring then takes the gate out of their ORs. */
                bnode_t *ln = &b->nd[l >> 1];
                ln->kind = K_AND;
                ln->n = 0;
                b_add(b, l >> 1, best);
                b_add(b, l >> 1, x << 1);
                outs[at + m] = x << 1;
                gated[at + m] = 1;
            }
        }
        at += nm;
    }
}

/* Live nodes: those an output reads, plus the inputs. The ones that
 * only goals read (Reversi's disc count) are "lazy": playouts need
 * goals at the end only, so they are evaluated when asked, not kept
 * up to date at every step. live: 1 core, 2 lazy. */
static void mark_live(cbuild_t *cb)
{
    const pn_raw_t *raw = cb->raw;
    bld_t *b = &cb->b;
    uint32_t np = raw->n_props, nr = cb->nr, *outs = cb->outs, n_outs = cb->n_outs, legal_at = cb->legal_at,
             gate_at = cb->gate_at;
    uint32_t n = b->n, goal_lo = legal_at;
    for (uint32_t r = 0; r < nr; r++) goal_lo += raw->n_moves[r];
    uint8_t *live = xcalloc(n, 1);
    uint32_t *st = xmalloc(n * sizeof *st), sp = 0;
    live[0] = 1;
    for (uint32_t p = 0; p < np; p++)
        if (b->nd[p].kind == K_IN) live[p] = 1;
    for (uint8_t mark = 1; mark <= 2; mark++) {
        for (uint32_t j = 0; j < n_outs; j++) {
            bool goal = j >= goal_lo && j < gate_at;
            if (goal != (mark == 2) || live[outs[j] >> 1]) continue;
            live[outs[j] >> 1] = mark;
            st[sp++] = outs[j] >> 1;
        }
        while (sp) {
            uint32_t u = st[--sp];
            for (uint32_t j = 0; j < b->nd[u].n; j++) {
                uint32_t w = (b->nd[u].in[j] = b_res(b, b->nd[u].in[j])) >> 1;
                if (!live[w]) {
                    live[w] = mark;
                    st[sp++] = w;
                }
            }
        }
    }
    free(st);
    /* A goal-only part that dwarfs the rest is kept up to date after all:
     * evaluating it whole at each goal costs more than the playout that
     * reached it (gt_two_thirds_4p, a one-step game whose goal is
     * arithmetic over every guess: 90,141 lazy gates to 810, 1,870
     * playouts per second lazy, 120,261 kept up to date; othello-comp2007,
     * 14 times as many, stays lazy: 794 against 608). */
    uint32_t n_core = 0, n_lazy = 0;
    for (uint32_t u = 0; u < n; u++) {
        n_core += live[u] == 1;
        n_lazy += live[u] == 2;
    }
    if (n_lazy > PN_LAZY_MAX_RATIO * (uint64_t)n_core)
        for (uint32_t u = 0; u < n; u++)
            if (live[u] == 2) live[u] = 1;
    cb->live = live;
}

/* Tarjan over live nodes, edges to inputs: components complete inputs
 * first, which is the evaluation order; node 0 (true) comes first. The
 * new id of a node is its place in that order. */
static void order_components(cbuild_t *cb)
{
    bld_t *b = &cb->b;
    uint32_t n = b->n;
    const uint8_t *live = cb->live;
    uint32_t *comp = xmalloc(n * sizeof *comp), *old_of = xmalloc(n * sizeof *old_of);
    scc_tarjan(&(scc_graph_t){.n = n, .edge = bnode_edge, .ctx = b, .roots = live}, comp, old_of);
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
        c->kind[v] = b->nd[old_of[v]].kind;
        c->in_off[v + 1] = c->in_off[v] + b->nd[old_of[v]].n;
    }
    c->in = xmalloc((c->in_off[nn] ? c->in_off[nn] : 1) * sizeof *c->in);
    for (uint32_t v = 0; v < nn; v++) {
        const bnode_t *x = &b->nd[old_of[v]];
        for (uint32_t j = 0; j < x->n; j++) c->in[c->in_off[v] + j] = newid[x->in[j] >> 1] << 1 | (x->in[j] & 1);
    }
    cb->comp = comp;
    cb->old_of = old_of;
    cb->newid = newid;
    cb->nn = nn;
    cb->c = c;
}

/* Cyclic groups: components of several nodes, or one that reads itself. */
static void cyclic_groups(cbuild_t *cb)
{
    pn_circuit_t *c = cb->c;
    uint32_t nn = cb->nn, *comp = cb->comp, *old_of = cb->old_of;
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
    cb->comp = NULL;
}

/* Universe gates: an OR that reads does inputs only (the frame rules'
 * "some move that leaves c alone") counts the moves played in the
 * universe U (every does input such ORs read) minus those played in
 * its exceptions U \ inputs, when those are fewer than its inputs. A
 * joint move that keeps the number of moves played in U (one role
 * moves, the other waits) then touches only the exceptions of the
 * moves that changed, not every gate that each move feeds. */
static void universe_gates(cbuild_t *cb)
{
    const pn_raw_t *raw = cb->raw;
    pn_circuit_t *c = cb->c;
    uint32_t nn = cb->nn, nr = cb->nr, *newid = cb->newid;
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
    cb->ugate = ugate;
    cb->exc_off = exc_off;
    cb->exc = exc;
}

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
static void mutex_groups(cbuild_t *cb)
{
    const pn_raw_t *raw = cb->raw;
    pn_circuit_t *c = cb->c;
    uint32_t nn = cb->nn, *newid = cb->newid, *outs = cb->outs;
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
}

/* Guarded gates: ANDs (not cyclic, not lazy) that read a member. */
static void guard_gates(cbuild_t *cb)
{
    pn_circuit_t *c = cb->c;
    uint32_t nn = cb->nn;
    uint32_t *guard = xmalloc((nn ? nn : 1) * sizeof *guard);
    memset(guard, 0xff, (nn ? nn : 1) * sizeof *guard);
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
    cb->guard = guard;
}

/* The edges into guarded gates (but from the guard): those of a node
 * into one group go to a table by member when they are many, else
 * they stay counter edges (a dead gate's counter is far below 0). */
static void mux_tables(cbuild_t *cb)
{
    pn_circuit_t *c = cb->c;
    uint32_t nn = cb->nn, *guard = cb->guard;
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
    cb->extra = extra;
    cb->n_extra = n_extra;
}

/* Fan-outs, per node: its counter edges (to the gates that read it, then
 * the guarded edges that stay counter edges), then the cyclic groups to
 * mark, then the edges inside its own group. Edges into guarded gates
 * went to mux_tables' tables instead. */
static void fanout_layout(cbuild_t *cb)
{
    pn_circuit_t *c = cb->c;
    uint32_t nn = cb->nn, *guard = cb->guard, *extra = cb->extra, n_extra = cb->n_extra;
    uint8_t *ugate = cb->ugate;
    uint32_t *exc_off = cb->exc_off, *exc = cb->exc;
    /* The literals whose flips a gate counts: its inputs, or for a
     * universe gate its exceptions (negated: playing one counts down). */
#define CIN_LO(v) (ugate[v] ? exc_off[v] : c->in_off[v])
#define CIN_HI(v) (ugate[v] ? exc_off[(v) + 1] : c->in_off[(v) + 1])
#define CIN(v, j) (ugate[v] ? exc[j] : c->in[j])
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
    cb->extra = cb->exc_off = cb->exc = cb->guard = NULL;
    cb->ugate = NULL;
}

/* Inputs and outputs in new ids: state bits, does inputs, legal moves
 * (and which are gated), the legal gates, goals, next and terminal. */
static void io_literals(cbuild_t *cb)
{
    const pn_raw_t *raw = cb->raw;
    pn_circuit_t *c = cb->c;
    uint32_t nr = cb->nr, *newid = cb->newid, *outs = cb->outs, legal_at = cb->legal_at, gate_at = cb->gate_at;
    const uint8_t *gated = cb->gated, *has_gate = cb->has_gate;
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
}

/* Output toggles per node, and the packed node records the run loops
 * over (pn_node_t): flags, the output's word and bit, and the counter
 * edges reordered, positive before negated. */
static void node_records(cbuild_t *cb)
{
    pn_circuit_t *c = cb->c;
    uint32_t nn = cb->nn, nr = cb->nr;
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
}

static void cbuild_free(cbuild_t *cb)
{
    free(cb->newid);
    free(cb->old_of);
    free(cb->live);
    free(cb->gated);
    free(cb->has_gate);
    free(cb->outs);
    b_free(&cb->b, cb->pool);
}

/* Outputs as the builder's nodes resolve them (after merges and wires). */
static void resolve_outputs(cbuild_t *cb)
{
    for (uint32_t j = 0; j < cb->n_outs; j++) cb->outs[j] = b_res(&cb->b, cb->outs[j]);
}

pn_circuit_t *pn_circuit_build(const pn_raw_t *raw)
{
    cbuild_t cb = {.raw = raw};
    load_network(&cb);
    collect_outputs(&cb);
    /* Simplify the network; past the deadline, give up before the circuit
     * itself is allocated. */
    bool in_time = b_simplify_all(&cb.b, raw);
    if (in_time) gate_legal(&cb);
    in_time = in_time && !raw_late(raw) && b_factor(&cb.b, cb.outs, cb.n_outs, raw) && b_simplify_all(&cb.b, raw);
    if (in_time) resolve_outputs(&cb);
    if (!in_time || raw_late(raw)) {
        cbuild_free(&cb);
        return NULL;
    }
    b_flatten(&cb.b, cb.outs, cb.n_outs);
    resolve_outputs(&cb);
    /* Lay it out. */
    mark_live(&cb);
    order_components(&cb);
    cyclic_groups(&cb);
    universe_gates(&cb);
    mutex_groups(&cb);
    guard_gates(&cb);
    mux_tables(&cb);
    fanout_layout(&cb);
    io_literals(&cb);
    node_records(&cb);
    cbuild_free(&cb);
    return cb.c;
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
