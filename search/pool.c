/* pool.c - the node pool: flat node array, regions with bump allocation and
 * an intrusive LRU list, and the per-node tables (AMAF, marginals).
 *
 * Recycling follows grave-spec §6: nodes entered during selection leave the
 * LRU, backpropagation pushes them back deepest first, and allocation from a
 * full region pops the LRU front. Invariant (I) of §6.3 (a node in the LRU
 * is nearer the front than its parent in the LRU) makes the front a leaf
 * off the current path; pool_check verifies that and the rest of §15.3. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "search/search_internal.h"

enum { NODE_MARK = 4 };

/* ---- sparse tables ------------------------------------------------------- */

#define SP_EMPTY UINT32_MAX

void sparse_init(sparse_t *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < sizeof s->free_head / sizeof s->free_head[0]; i++) s->free_head[i] = NIL;
}

void sparse_free(sparse_t *s)
{
    size_t max = s->max_entries;
    free(s->e);
    sparse_init(s);
    s->max_entries = max;
}

static void sparse_reset(sparse_t *s)
{
    sp_entry_t *e = s->e;
    size_t cap = s->cap, max = s->max_entries;
    sparse_init(s);
    s->e = e;
    s->cap = cap;
    s->max_entries = max;
}

static inline uint32_t sp_slots(uint32_t cls) { return 8u << cls; }

static uint32_t sparse_block(sparse_t *s, uint32_t cls)
{
    assert(cls < sizeof s->free_head / sizeof s->free_head[0]);
    uint32_t slots = sp_slots(cls), h;
    if (s->free_head[cls] != NIL) {
        h = s->free_head[cls];
        s->free_head[cls] = s->e[h].p;
    } else {
        size_t need = s->len + 1 + slots;
        if (s->max_entries && need > s->cap) { /* grow within the limit, or refuse */
            if (need > s->max_entries) return NIL;
            size_t cap = s->cap ? s->cap * 2 : 8;
            while (cap < need) cap *= 2;
            if (cap > s->max_entries) cap = s->max_entries;
            s->e = xreallocarray(s->e, cap, sizeof *s->e);
            s->cap = cap;
        }
        XVEC_RESERVE(&s->e, &s->cap, need);
        h = (uint32_t)s->len;
        s->len += 1 + slots;
    }
    s->e[h].key = cls;
    s->e[h].p = 0;
    s->e[h].w = 0;
    for (uint32_t i = 1; i <= slots; i++) s->e[h + i].key = SP_EMPTY;
    s->bytes += (size_t)(1 + slots) * sizeof(sp_entry_t);
    return h;
}

void sparse_release(sparse_t *s, uint32_t *h)
{
    if (*h == NIL) return;
    uint32_t cls = s->e[*h].key;
    s->e[*h].p = s->free_head[cls];
    s->free_head[cls] = *h;
    s->bytes -= (size_t)(1 + sp_slots(cls)) * sizeof(sp_entry_t);
    *h = NIL;
}

static inline uint32_t sp_home(uint32_t key, uint32_t cls)
{
    return (uint32_t)((key * 2654435761u) >> (32 - 3 - cls));
}

/* Index of the slot holding key, or of the empty slot where it would go. */
static uint32_t sp_find(const sparse_t *s, uint32_t h, uint32_t key)
{
    uint32_t cls = s->e[h].key, mask = sp_slots(cls) - 1;
    for (uint32_t i = sp_home(key, cls);; i = (i + 1) & mask) {
        uint32_t k = s->e[h + 1 + i].key;
        if (k == key || k == SP_EMPTY) return h + 1 + i;
    }
}

bool sparse_get(const sparse_t *s, uint32_t h, uint32_t key, uint32_t *p, float *w)
{
    if (h != NIL) {
        uint32_t i = sp_find(s, h, key);
        if (s->e[i].key == key) {
            *p = s->e[i].p;
            *w = s->e[i].w;
            return true;
        }
    }
    *p = 0;
    *w = 0;
    return false;
}

uint32_t sparse_count(const sparse_t *s, uint32_t h) { return h == NIL ? 0 : s->e[h].p; }

bool sparse_add(sparse_t *s, uint32_t *h, uint32_t key, uint32_t dp, float dw)
{
    if (*h == NIL && (*h = sparse_block(s, 0)) == NIL) return false;
    uint32_t i = sp_find(s, *h, key);
    if (s->e[i].key != key) {
        uint32_t cls = s->e[*h].key, cnt = s->e[*h].p;
        if ((cnt + 1) * 10 > sp_slots(cls) * 7) { /* grow at 70% load */
            uint32_t nh = sparse_block(s, cls + 1);
            if (nh == NIL) return false;
            for (uint32_t j = 1; j <= sp_slots(cls); j++) {
                sp_entry_t old = s->e[*h + j];
                if (old.key == SP_EMPTY) continue;
                s->e[sp_find(s, nh, old.key)] = old;
            }
            s->e[nh].p = cnt;
            sparse_release(s, h);
            *h = nh;
            i = sp_find(s, nh, key);
        }
        s->e[i].key = key;
        s->e[i].p = 0;
        s->e[i].w = 0;
        s->e[*h].p++;
    }
    s->e[i].p += dp;
    s->e[i].w += dw;
    return true;
}

/* ---- AMAF and marginals ---------------------------------------------------- */

/* A lazy dense block for node n, or NIL past the limit. */
static uint32_t blk_alloc(pool_t *p)
{
    uint32_t b;
    if (p->blk_free != NIL) {
        b = p->blk_free;
        memcpy(&p->blk_free, &p->blk[(size_t)b * p->K], sizeof p->blk_free);
    } else {
        if (p->max_blk && p->n_blk >= p->max_blk) return NIL;
        if (p->n_blk == p->cap_blk) {
            uint32_t cap = p->cap_blk ? p->cap_blk * 2 : 64;
            if (p->max_blk && cap > p->max_blk) cap = p->max_blk;
            p->blk = xreallocarray(p->blk, (size_t)cap * p->K, sizeof *p->blk);
            p->cap_blk = cap;
        }
        b = p->n_blk++;
    }
    memset(&p->blk[(size_t)b * p->K], 0, (size_t)p->K * sizeof *p->blk);
    return b;
}

static void blk_release(pool_t *p, uint32_t *h)
{
    if (*h == NIL) return;
    memcpy(&p->blk[(size_t)*h * p->K], &p->blk_free, sizeof p->blk_free); /* K >= 1 entries of 8 bytes */
    p->blk_free = *h;
    *h = NIL;
}

static void tables_release(pool_t *p, node_t *v)
{
    if (p->lazy && p->K) blk_release(p, &v->amaf);
    else sparse_release(&p->sp, &v->amaf);
    sparse_release(&p->sp, &v->marg);
}

void amaf_get(const pool_t *p, uint32_t n, uint32_t key, uint32_t *cnt, float *w)
{
    if (p->K) amaf_row_get(p, amaf_row(p, n), key, cnt, w); /* dense (lazy or not): the rows' accessors */
    else sparse_get(&p->sp, p->nodes[n].amaf, key, cnt, w);
}

bool amaf_ensure(pool_t *p, uint32_t n)
{
    if (!(p->K && p->lazy)) return true;
    uint32_t *h = &p->nodes[n].amaf;
    if (*h != NIL) return true;
    uint32_t b = blk_alloc(p);
    if (b == NIL) return false; /* memory bound: no table */
    __atomic_store_n(h, b, __ATOMIC_RELEASE);
    return true;
}

amaf_dense_t *amaf_row_mut(pool_t *p, uint32_t n)
{
    assert(p->K);
    if (!p->lazy) return &p->dense[(size_t)n * p->K];
    return amaf_ensure(p, n) ? &p->blk[(size_t)p->nodes[n].amaf * p->K] : NULL;
}

void amaf_add(pool_t *p, uint32_t n, uint32_t key, float dw)
{
    if (p->K) {
        assert(p->lazy || key < p->K); /* dense mode is chosen only when every key is known */
        amaf_dense_t *row = amaf_row_mut(p, n);
        if (row && key < p->K) amaf_row_add(&row[key], dw); /* one writer (the node's lock) */
    } else {
        sparse_add(&p->sp, &p->nodes[n].amaf, key, 1, dw);
    }
}

void marg_get(const pool_t *p, uint32_t n, uint32_t key, uint32_t *cnt, float *w)
{
    sparse_get(&p->sp, p->nodes[n].marg, key, cnt, w);
}

void marg_add(pool_t *p, uint32_t n, uint32_t key, float dw) { (void)sparse_add(&p->sp, &p->nodes[n].marg, key, 1, dw); }

/* ---- pool ---------------------------------------------------------------- */

static void pool_grow(pool_t *p, uint32_t need)
{
    if (need <= p->n_alloc) return;
    assert(!p->fixed); /* workers read the arrays without the tree's lock */
    uint32_t cap = p->n_alloc ? p->n_alloc : 1024;
    while (cap < need) cap = cap > UINT32_MAX / 2 ? UINT32_MAX - 1 : cap * 2;
    if (p->max_nodes && cap > p->max_nodes) cap = need > p->max_nodes ? need : p->max_nodes;
    p->nodes = xreallocarray(p->nodes, cap, sizeof *p->nodes);
    p->w = xreallocarray(p->w, (size_t)cap * p->k, sizeof *p->w);
    if (p->K && !p->lazy) p->dense = xreallocarray(p->dense, (size_t)cap * p->K, sizeof *p->dense);
    p->n_alloc = cap;
}

void pool_init(pool_t *p, uint32_t k, uint32_t n_regions, const uint32_t *caps, const bool *recycling,
               bool amaf_on, uint32_t dense_K)
{
    assert(n_regions >= 1 && n_regions <= 2);
    memset(p, 0, sizeof *p);
    p->k = k;
    p->amaf_on = amaf_on;
    p->K = amaf_on ? dense_K : 0;
    p->n_regions = n_regions;
    p->blk_free = NIL;
    sparse_init(&p->sp);
    uint32_t base = 0;
    for (uint32_t i = 0; i < n_regions; i++) {
        region_t *r = &p->reg[i];
        r->base = base;
        r->cap = caps[i];
        r->recycling = recycling[i];
        r->lru_head = r->lru_tail = NIL;
        r->free_head = NIL;
        if (caps[i] != UINT32_MAX) base += caps[i];
    }
    assert(n_regions == 1 || caps[0] != UINT32_MAX);
    /* Bounded pools are allocated whole up front: N is the budget. */
    pool_grow(p, caps[n_regions - 1] == UINT32_MAX ? 1024 : (base ? base : 1));
}

void pool_free(pool_t *p)
{
    free(p->nodes);
    free(p->w);
    free(p->dense);
    free(p->blk);
    sparse_free(&p->sp);
    memset(p, 0, sizeof *p);
}

static void region_empty(region_t *r)
{
    r->bump = r->used = r->n_lru = r->n_free = 0;
    r->lru_head = r->lru_tail = r->free_head = NIL;
}

void pool_reset(pool_t *p)
{
    for (uint32_t i = 0; i < p->n_regions; i++) {
        region_t *r = &p->reg[i];
        for (uint32_t j = 0; j < r->bump; j++) p->nodes[r->base + j].flags = 0;
        region_empty(r);
        r->recycled = 0;
    }
    sparse_reset(&p->sp);
    p->n_blk = 0;
    p->blk_free = NIL;
    p->resident_peak = 0;
    p->bytes_peak = 0;
}

void pool_bound(pool_t *p, uint64_t mem_bytes)
{
    /* Nodes get 3/4 of the budget, AMAF and marginal tables 1/4: GRAVE reads
     * tables only at reference nodes (V > ref), a small share of the tree.
     * Lazy first, so that a node costs no dense row: its AMAF is a block
     * taken when it becomes a reference node (amaf_row_mut), so the rows
     * pool_init gave its first nodes go (K x 8 bytes a node: 2.4 KB on
     * breakthrough, against 52 for the node itself). */
    p->lazy = true;
    free(p->dense);
    p->dense = NULL;
    uint64_t per = pool_node_bytes(p), nodes = mem_bytes / 4 * 3 / per;
    if (nodes < 16) nodes = 16;
    if (nodes > UINT32_MAX - 1) nodes = UINT32_MAX - 1;
    p->reg[0].cap = (uint32_t)nodes;
    p->max_nodes = (uint32_t)nodes;
    uint64_t tables = mem_bytes / 4;
    if (p->K) {
        uint64_t blocks = tables / 2 / ((uint64_t)p->K * sizeof(amaf_dense_t));
        p->max_blk = (uint32_t)(blocks < 1 ? 1 : blocks > UINT32_MAX - 1 ? UINT32_MAX - 1 : blocks);
        tables /= 2;
    }
    p->sp.max_entries = tables / sizeof(sp_entry_t) < 64 ? 64 : tables / sizeof(sp_entry_t);
}

void pool_fix(pool_t *p)
{
    if (p->fixed) return;
    assert(p->n_regions == 1 && p->max_nodes);
    pool_grow(p, p->max_nodes);
    if (p->lazy && p->K && p->max_blk > p->cap_blk) {
        p->blk = xreallocarray(p->blk, (size_t)p->max_blk * p->K, sizeof *p->blk);
        p->cap_blk = p->max_blk;
    }
    /* Sparse tables (marginals, AMAF over many keys) still grow: the tree's
     * lock guards every read and write of them. */
    p->fixed = true;
}

size_t pool_held_bytes(const pool_t *p)
{
    return (size_t)p->n_alloc * (sizeof(node_t) + (size_t)p->k * sizeof(float) + (p->lazy ? 0 : (size_t)p->K * sizeof(amaf_dense_t))) +
           (size_t)p->cap_blk * p->K * sizeof(amaf_dense_t) + p->sp.cap * sizeof(sp_entry_t);
}

void pool_region_clear(pool_t *p, uint32_t reg)
{
    region_t *r = &p->reg[reg];
    for (uint32_t j = 0; j < r->bump; j++) {
        node_t *n = &p->nodes[r->base + j];
        if (n->flags & NODE_USED) tables_release(p, n);
        n->flags = 0;
    }
    region_empty(r);
}

uint32_t pool_resident(const pool_t *p)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_regions; i++) n += p->reg[i].used;
    return n;
}

size_t pool_node_bytes(const pool_t *p)
{
    return sizeof(node_t) + (size_t)p->k * sizeof(float) + (p->lazy ? 0 : (size_t)p->K * sizeof(amaf_dense_t));
}

size_t pool_bytes(const pool_t *p)
{
    size_t blk = p->lazy ? (size_t)p->n_blk * p->K * sizeof(amaf_dense_t) : 0;
    return (size_t)pool_resident(p) * pool_node_bytes(p) + p->sp.bytes + blk;
}

void pool_note_peak(pool_t *p)
{
    uint64_t n = pool_resident(p), b = pool_bytes(p);
    if (n > p->resident_peak) p->resident_peak = n;
    if (b > p->bytes_peak) p->bytes_peak = b;
}

static void lru_unlink(pool_t *p, region_t *r, uint32_t i)
{
    node_t *n = &p->nodes[i];
    if (n->lru_prev != NIL) p->nodes[n->lru_prev].lru_next = n->lru_next;
    else r->lru_head = n->lru_next;
    if (n->lru_next != NIL) p->nodes[n->lru_next].lru_prev = n->lru_prev;
    else r->lru_tail = n->lru_prev;
    n->lru_prev = n->lru_next = NIL;
    n->flags &= (uint8_t)~NODE_IN_LRU;
    r->n_lru--;
}

void pool_lru_remove(pool_t *p, uint32_t i)
{
    node_t *n = &p->nodes[i];
    if (n->flags & NODE_IN_LRU) lru_unlink(p, &p->reg[n->region], i);
}

void pool_lru_push_back(pool_t *p, uint32_t i)
{
    node_t *n = &p->nodes[i];
    region_t *r = &p->reg[n->region];
    if (!r->recycling) return;
    if (n->flags & NODE_IN_LRU) lru_unlink(p, r, i);
    n->lru_prev = r->lru_tail;
    n->lru_next = NIL;
    if (r->lru_tail != NIL) p->nodes[r->lru_tail].lru_next = i;
    else r->lru_head = i;
    r->lru_tail = i;
    n->flags |= NODE_IN_LRU;
    r->n_lru++;
}

void pool_unlink(pool_t *p, uint32_t i)
{
    node_t *n = &p->nodes[i];
    if (n->parent == NIL) return;
    if (n->prev_sibling != NIL) p->nodes[n->prev_sibling].next_sibling = n->next_sibling;
    else p->nodes[n->parent].first_child = n->next_sibling;
    if (n->next_sibling != NIL) p->nodes[n->next_sibling].prev_sibling = n->prev_sibling;
    n->parent = n->next_sibling = n->prev_sibling = NIL;
}

bool pool_can_alloc(const pool_t *p, uint32_t reg)
{
    const region_t *r = &p->reg[reg];
    return r->free_head != NIL || r->bump < r->cap || (r->recycling && r->n_lru > 0);
}

void pool_free_subtree(pool_t *p, uint32_t n)
{
    /* Iterative: a subtree can be as deep as a game is long. Each freed node
     * is pushed on the free list after its children were taken from it. */
    uint32_t *stack = NULL;
    size_t len = 0, cap = 0;
    XVEC_RESERVE(&stack, &cap, 1);
    stack[len++] = n;
    while (len) {
        uint32_t i = stack[--len];
        node_t *v = &p->nodes[i];
        for (uint32_t c = v->first_child; c != NIL; c = p->nodes[c].next_sibling) {
            XVEC_RESERVE(&stack, &cap, len + 1);
            stack[len++] = c;
        }
        region_t *r = &p->reg[v->region];
        pool_lru_remove(p, i);
        tables_release(p, v);
        v->flags = 0;
        v->first_child = v->parent = v->prev_sibling = NIL;
        v->next_sibling = r->free_head;
        r->free_head = i;
        r->n_free++;
        r->used--;
    }
    free(stack);
}

/* Recycling: a leaf from the LRU's front, unlinked, its tables released.
 * One worker: the front itself, a leaf off the path by invariant (I) of
 * spec §6.3. Tree-parallel workers (issue 12, p->victim_lock set): nodes
 * stay in the LRU while workers are in flight through them, so the front
 * need not be a leaf off every path; take the first of the few front nodes
 * that is a leaf, not in flight, and whose parent's lock can be had at once
 * (its child list changes; no worker can enter the victim meanwhile, since
 * entering takes that lock). The others keep their places, so (I) holds
 * again whenever no worker is in flight: a node's flight ends, and it is
 * pushed back, after its descendants on the same path. */
static uint32_t recycle(pool_t *p, region_t *r)
{
    bool shared = p->victim_lock != NULL;
    uint32_t i = r->lru_head;
    for (uint32_t tries = 0; tries < (shared ? 64u : 1u) && i != NIL; tries++, i = p->nodes[i].lru_next) {
        node_t *v = &p->nodes[i];
        uint32_t par = ld32(&v->parent);
        if (shared && (par == NIL || !p->victim_lock(p->victim_arg, par))) continue;
        /* Its child list is read only now: a worker in flight at v may be
         * linking a child to it under v's own lock. Flight ends with a
         * release (engine.c, backup), so once it reads 0 here the last link
         * made at v is seen, and no worker can enter v while par is held. */
        if ((shared && __atomic_load_n(&v->flight, __ATOMIC_ACQUIRE)) || v->first_child != NIL) { /* one worker: a leaf */
            if (shared) p->victim_unlock(p->victim_arg, par);
            continue;
        }
        lru_unlink(p, r, i);
        pool_unlink(p, i);
        if (shared) p->victim_unlock(p->victim_arg, par);
        tables_release(p, v);
        r->recycled++;
        r->used--;
        return i;
    }
    return NIL;
}

uint32_t pool_alloc(pool_t *p, uint32_t reg)
{
    region_t *r = &p->reg[reg];
    uint32_t i;
    if (r->free_head != NIL) {
        i = r->free_head;
        r->free_head = p->nodes[i].next_sibling;
        r->n_free--;
    } else if (r->bump < r->cap) {
        i = r->base + r->bump;
        if (i >= p->n_alloc) pool_grow(p, i + 1);
        r->bump++;
    } else if (r->recycling && r->n_lru > 0) {
        if ((i = recycle(p, r)) == NIL) return NIL;
    } else {
        return NIL;
    }
    node_t *n = &p->nodes[i];
    /* Field by field: a worker of a shared tree may still be reading a
     * recycled node's link and statistics (selection reads them without
     * the child list's lock, then checks the link under it). */
    n->first_child = n->next_sibling = n->prev_sibling = n->lru_prev = n->lru_next = NIL;
    st32(&n->parent, NIL);
    st32(&n->edge, 0);
    st32(&n->visits, 0);
    n->amaf = n->marg = NIL;
    n->flags = NODE_USED;
    n->region = (uint8_t)reg;
    __atomic_store_n(&n->solved, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&n->flight, 0, __ATOMIC_RELAXED);
    for (uint32_t j = 0; j < p->k; j++) stf(&pool_w(p, i)[j], 0);
    if (p->K && !p->lazy) memset(&p->dense[(size_t)i * p->K], 0, (size_t)p->K * sizeof(amaf_dense_t));
    r->used++;
    uint64_t res = pool_resident(p);
    if (res > p->resident_peak) p->resident_peak = res;
    return i;
}

uint32_t pool_take(pool_t *p, uint32_t reg, uint32_t *out, uint32_t want)
{
    region_t *r = &p->reg[reg];
    uint32_t n = 0;
    while (n < want && (r->free_head != NIL || r->bump < r->cap)) out[n++] = pool_alloc(p, reg); /* never recycles */
    return n;
}

void pool_give_back(pool_t *p, const uint32_t *nodes, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++) pool_free_subtree(p, nodes[j]); /* fresh: no children, not linked */
}

void pool_link(pool_t *p, uint32_t parent, uint32_t child, uint32_t edge)
{
    node_t *c = &p->nodes[child], *x = &p->nodes[parent];
    st32(&c->parent, parent); /* read atomically by selection (engine.c, descend) */
    st32(&c->edge, edge);
    c->prev_sibling = NIL;
    c->next_sibling = x->first_child;
    if (x->first_child != NIL) p->nodes[x->first_child].prev_sibling = child;
    x->first_child = child;
}

const char *pool_check(const pool_t *p, uint32_t reg, const uint32_t *path, size_t n)
{
    const region_t *r = &p->reg[reg];
    if (!r->recycling) return NULL;
    if (r->used > r->cap || r->bump > r->cap) return "region holds more nodes than its capacity";
    node_t *nodes = p->nodes; /* marks are set and cleared below */
    for (size_t i = 0; i < n; i++) nodes[path[i]].flags |= NODE_MARK;
    const char *err = NULL;
    /* positions in the LRU, front = 0 */
    uint32_t *pos = xcalloc(r->bump ? r->bump : 1, sizeof *pos); /* indexed by i - base < bump */
    uint32_t count = 0, prev = NIL;
    for (uint32_t i = r->lru_head; i != NIL; i = nodes[i].lru_next) {
        if (i < r->base || i >= r->base + r->bump) { err = "LRU holds a node outside its region"; goto out; }
        if (!(nodes[i].flags & NODE_IN_LRU) || !(nodes[i].flags & NODE_USED)) { err = "LRU holds a node not flagged in it"; goto out; }
        if (nodes[i].lru_prev != prev) { err = "LRU back link broken"; goto out; }
        if (count > r->used) { err = "LRU longer than the allocated nodes (cycle?)"; goto out; }
        pos[i - r->base] = count++;
        prev = i;
    }
    if (prev != r->lru_tail) { err = "LRU tail wrong"; goto out; }
    if (count != r->n_lru) { err = "LRU length wrong"; goto out; }
    if (r->lru_head != NIL && nodes[r->lru_head].first_child != NIL) { err = "LRU front is not a leaf"; goto out; }
    uint32_t absent = 0;
    for (uint32_t j = 0; j < r->bump; j++) {
        uint32_t i = r->base + j;
        const node_t *x = &nodes[i];
        if (!(x->flags & NODE_USED)) continue;
        bool in = x->flags & NODE_IN_LRU, on_path = x->flags & NODE_MARK;
        if (in == on_path) { err = on_path ? "a path node is in the LRU" : "an allocated node is missing from the LRU"; goto out; }
        if (!in) absent++;
        uint32_t par = x->parent;
        if (in && par != NIL && par >= r->base && par < r->base + r->bump && (nodes[par].flags & NODE_IN_LRU) &&
            pos[i - r->base] >= pos[par - r->base]) {
            err = "invariant (I) broken: a node is behind its parent in the LRU";
            goto out;
        }
    }
    if (r->n_lru + absent != r->used) { err = "|LRU| + path nodes != allocated nodes"; goto out; }
    if (r->n_lru + absent + (r->cap - r->bump) + r->n_free != r->cap) { err = "|LRU| + |free| != capacity"; goto out; }
out:
    free(pos);
    for (size_t i = 0; i < n; i++) nodes[path[i]].flags &= (uint8_t)~NODE_MARK;
    return err;
}
