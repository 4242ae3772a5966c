/* test_pool.c - the node pool on synthetic trees (grave-spec §6, §15.3):
 * random descents with the selection/backprop LRU protocol must never
 * recycle an internal node or a node of the current path, must never hold
 * more than N nodes, and must keep every LRU invariant; the sparse tables
 * must agree with a plain array. No game is needed. */
#include "testutil.h"

#include "base/rng.h"
#include "base/xalloc.h"
#include "search/search_internal.h"

static bool on_path(const uint32_t *path, size_t n, uint32_t x)
{
    for (size_t i = 0; i < n; i++)
        if (path[i] == x) return true;
    return false;
}

/* One synthetic iteration in region reg below root: descend through random
 * children (removing each from the LRU), expand one node, check, back up. */
static void synthetic_iteration(pool_t *p, uint32_t reg, uint32_t root, rng_t *rng, uint32_t *path, size_t *plen,
                                uint32_t cap_total)
{
    size_t n = 0;
    path[n++] = root;
    pool_lru_remove(p, root);
    uint32_t x = root;
    for (;;) {
        uint32_t kids = 0;
        for (uint32_t c = p->nodes[x].first_child; c != NIL; c = p->nodes[c].next_sibling) kids++;
        /* expand with probability 1/(kids+1), else follow a random child */
        uint32_t pick = rng_below(rng, kids + 1);
        if (pick == kids) break;
        uint32_t c = p->nodes[x].first_child;
        while (pick--) c = p->nodes[c].next_sibling;
        pool_lru_remove(p, c);
        path[n++] = c;
        x = c;
    }
    uint32_t front = p->reg[reg].lru_head;
    bool full = p->reg[reg].bump == p->reg[reg].cap;
    uint32_t c = pool_alloc(p, reg);
    if (c != NIL) {
        /* a recycled node is the old LRU front: never on the path, and (the
         * assert in pool_alloc) never internal */
        if (full) assert_int_equal(c, front);
        assert_false(on_path(path, n, c));
        pool_link(p, x, c, rng_below(rng, 1000));
        path[n++] = c;
    } else {
        assert_true(full);
        assert_int_equal(p->reg[reg].n_lru, 0);
    }
    assert_true(pool_resident(p) <= cap_total);
    const char *msg = pool_check(p, reg, path, n);
    assert_null(msg);
    for (size_t i = n; i-- > 0;) { /* deepest first; nodes of other regions stay out */
        p->nodes[path[i]].visits++;
        if (p->nodes[path[i]].region == reg) pool_lru_push_back(p, path[i]);
    }
    msg = pool_check(p, reg, NULL, 0);
    if (msg) fail_msg("%s", msg);
    *plen = n;
}

static void test_lru_single_region(void **state)
{
    (void)state;
    uint32_t caps[] = {1, 2, 3, 7, 50};
    for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
        pool_t p;
        bool rec = true;
        pool_init(&p, 2, 1, &caps[ci], &rec, false, 0);
        rng_t rng;
        rng_seed(&rng, 42 + ci);
        uint32_t root = pool_alloc(&p, 0);
        uint32_t *path = xcalloc(caps[ci] + 2, sizeof *path);
        size_t plen;
        for (int it = 0; it < 3000; it++) synthetic_iteration(&p, 0, root, &rng, path, &plen, caps[ci]);
        assert_int_equal(p.reg[0].used, caps[ci]);
        if (caps[ci] > 3) assert_true(p.reg[0].recycled > 0);
        assert_true(p.resident_peak <= caps[ci]);
        free(path);
        pool_free(&p);
    }
}

/* Two regions as in two-level search (spec §7.2): T nodes on the top path
 * stay out of T's LRU while second-level iterations run in S below L. */
static void test_lru_two_regions(void **state)
{
    (void)state;
    uint32_t caps[2] = {6, 5};
    bool rec[2] = {true, true};
    pool_t p;
    pool_init(&p, 1, 2, caps, rec, false, 0);
    rng_t rng;
    rng_seed(&rng, 7);
    uint32_t root = pool_alloc(&p, 0);
    uint32_t tpath[16], spath[16];
    for (int top = 0; top < 400; top++) {
        size_t tn = 0;
        tpath[tn++] = root;
        pool_lru_remove(&p, root);
        uint32_t x = root;
        while (p.nodes[x].first_child != NIL && rng_below(&rng, 3)) {
            x = p.nodes[x].first_child;
            pool_lru_remove(&p, x);
            tpath[tn++] = x;
        }
        uint32_t L = pool_alloc(&p, 0);
        if (L != NIL) {
            assert_false(on_path(tpath, tn, L));
            pool_link(&p, x, L, 0);
            tpath[tn++] = L;
        } else {
            L = x;
        }
        assert_null(pool_check(&p, 0, tpath, tn));
        /* the second level: S below L, never touching T's LRU */
        if (p.nodes[L].first_child == NIL || p.nodes[p.nodes[L].first_child].region == 1) {
            for (int s = 0; s < 30; s++) {
                size_t sn;
                synthetic_iteration(&p, 1, L, &rng, spath, &sn, caps[0] + caps[1]);
                assert_true(pool_resident(&p) <= caps[0] + caps[1]);
                assert_true(p.reg[1].used <= caps[1]);
                assert_null(pool_check(&p, 0, tpath, tn));
            }
            pool_region_clear(&p, 1);
            p.nodes[L].first_child = NIL;
        }
        for (size_t i = tn; i-- > 0;) pool_lru_push_back(&p, tpath[i]);
        assert_null(pool_check(&p, 0, NULL, 0));
        assert_true(p.reg[0].used <= caps[0]);
    }
    assert_true(p.reg[0].recycled > 0);
    pool_free(&p);
}

/* The checker itself must see a broken invariant: push a parent before its
 * child so that the child ends up behind it. */
static void test_check_detects_violations(void **state)
{
    (void)state;
    uint32_t cap = 4;
    bool rec = true;
    pool_t p;
    pool_init(&p, 1, 1, &cap, &rec, false, 0);
    uint32_t r = pool_alloc(&p, 0), a = pool_alloc(&p, 0);
    pool_link(&p, r, a, 1);
    pool_lru_push_back(&p, r);
    pool_lru_push_back(&p, a); /* wrong order: child behind parent */
    const char *msg = pool_check(&p, 0, NULL, 0);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "front is not a leaf"));
    pool_lru_push_back(&p, r);
    assert_null(pool_check(&p, 0, NULL, 0));
    pool_lru_remove(&p, a);
    msg = pool_check(&p, 0, NULL, 0);
    assert_non_null(msg);
    /* a path node whose parent stayed in the LRU: the front is internal */
    assert_non_null(pool_check(&p, 0, &a, 1));
    pool_lru_remove(&p, r);
    uint32_t both[2] = {r, a};
    assert_null(pool_check(&p, 0, both, 2));
    pool_free(&p);
}

static void test_growable_region(void **state)
{
    (void)state;
    uint32_t cap = UINT32_MAX;
    bool rec = false;
    pool_t p;
    pool_init(&p, 3, 1, &cap, &rec, true, 5);
    uint32_t root = pool_alloc(&p, 0);
    for (uint32_t i = 0; i < 5000; i++) {
        uint32_t c = pool_alloc(&p, 0);
        assert_int_equal(c, i + 1);
        pool_link(&p, root, c, i);
        amaf_add(&p, c, i % 5, 0.5f);
        pool_w(&p, c)[2] = (float)i;
    }
    assert_int_equal(pool_resident(&p), 5001);
    assert_true(p.resident_peak == 5001);
    uint32_t cnt;
    float w;
    amaf_get(&p, 4000, 3999 % 5, &cnt, &w);
    assert_int_equal(cnt, 1);
    assert_float_equal(w, 0.5, 1e-6);
    assert_float_equal(pool_w(&p, 4000)[2], 3999, 1e-3);
    assert_int_equal(pool_node_bytes(&p), sizeof(node_t) + 3 * sizeof(float) + 5 * 8);
    pool_reset(&p);
    assert_int_equal(pool_resident(&p), 0);
    pool_free(&p);
}

/* The row accessors the engine's hot loops use (amaf_row, amaf_row_get,
 * amaf_row_mut, amaf_row_add) agree with amaf_get and amaf_add entry by
 * entry, on a dense pool (grave) and a lazy bounded one (compete), where a
 * node without a table reads as all zeros until its row is made. */
static void test_amaf_rows(void **state)
{
    (void)state;
    enum { K = 6, NODES = 40 };
    for (int lazy = 0; lazy < 2; lazy++) {
        uint32_t cap = lazy ? 64 : UINT32_MAX;
        bool rec = lazy;
        pool_t p;
        pool_init(&p, 2, 1, &cap, &rec, true, K);
        if (lazy) {
            pool_bound(&p, 1u << 20);
            /* a lazy node has no dense row: it costs the node and its W, so
             * 3/4 of the bound is that many nodes (the rows were allocated
             * and counted per node, K times fewer nodes on big games) */
            assert_null(p.dense);
            assert_int_equal(pool_node_bytes(&p), sizeof(node_t) + 2 * sizeof(float));
            assert_int_equal(p.max_nodes, (1u << 20) / 4 * 3 / pool_node_bytes(&p));
        }
        uint32_t n[NODES];
        for (int i = 0; i < NODES; i++) n[i] = pool_alloc(&p, 0);
        rng_t rng;
        rng_seed(&rng, 11);
        /* half the nodes through amaf_add, half through their rows */
        for (int it = 0; it < 3000; it++) {
            uint32_t i = rng_below(&rng, NODES / 2), key = rng_below(&rng, K);
            float dw = (float)rng_below(&rng, 101) / 100.0f;
            amaf_add(&p, n[2 * i], key, dw);
            amaf_dense_t *row = amaf_row_mut(&p, n[2 * i + 1]);
            assert_non_null(row);
            amaf_row_add(&row[key], dw);
        }
        for (int i = 0; i < NODES; i += 2)
            for (uint32_t key = 0; key < K + 2; key++) { /* keys past K read as (0, 0) */
                uint32_t ca, cb, cr;
                float wa, wb, wr;
                amaf_get(&p, n[i], key, &ca, &wa);
                amaf_get(&p, n[i + 1], key, &cb, &wb);
                amaf_row_get(&p, amaf_row(&p, n[i + 1]), key, &cr, &wr);
                assert_int_equal(ca, cb);
                assert_int_equal(cb, cr);
                assert_true(wa == wb && wb == wr); /* the same float additions in the same order */
                if (key >= K) assert_int_equal(cr, 0);
            }
        uint32_t fresh = pool_alloc(&p, 0), c;
        float w;
        if (lazy) assert_null(amaf_row(&p, fresh)); /* no table yet */
        if (lazy) assert_null(p.dense);              /* nor any row since the bound */
        amaf_row_get(&p, amaf_row(&p, fresh), 1, &c, &w);
        assert_int_equal(c, 0);
        assert_true(w == 0);
        pool_free(&p);
    }
}

static void test_sparse_tables(void **state)
{
    (void)state;
    sparse_t sp;
    sparse_init(&sp);
    enum { T = 20, K = 300 };
    uint32_t h[T];
    uint32_t refp[T][K];
    double refw[T][K];
    memset(refp, 0, sizeof refp);
    memset(refw, 0, sizeof refw);
    for (int i = 0; i < T; i++) h[i] = NIL;
    rng_t rng;
    rng_seed(&rng, 3);
    for (int it = 0; it < 20000; it++) {
        uint32_t t = rng_below(&rng, T), key = rng_below(&rng, 1 + t * 15);
        float dw = (float)rng_below(&rng, 101) / 100.0f;
        sparse_add(&sp, &h[t], key, 1, dw);
        refp[t][key]++;
        refw[t][key] += dw;
        if (rng_below(&rng, 2000) == 0) { /* release and restart one table */
            sparse_release(&sp, &h[t]);
            memset(refp[t], 0, sizeof refp[t]);
            memset(refw[t], 0, sizeof refw[t]);
        }
    }
    for (int t = 0; t < T; t++) {
        uint32_t distinct = 0;
        for (uint32_t key = 0; key < K; key++) {
            uint32_t p;
            float w;
            bool found = sparse_get(&sp, h[t], key, &p, &w);
            assert_int_equal(found, refp[t][key] > 0);
            assert_int_equal(p, refp[t][key]);
            assert_float_equal(w, refw[t][key], 1e-2);
            distinct += refp[t][key] > 0;
        }
        assert_int_equal(sparse_count(&sp, h[t]), distinct);
    }
    assert_true(sp.bytes > 0);
    for (int t = 0; t < T; t++) sparse_release(&sp, &h[t]);
    assert_int_equal(sp.bytes, 0);
    sparse_free(&sp);
}

static void test_keys_and_joints(void **state)
{
    (void)state;
    keys_t ks;
    keys_init(&ks, 2);
    assert_int_equal(keys_get(&ks, 1, 7), 0);
    assert_int_equal(keys_get(&ks, 0, 7), 1); /* same move, other role: another key */
    assert_int_equal(keys_get(&ks, 1, 7), 0);
    assert_int_equal(keys_get(&ks, 0, 100000), 2);
    assert_int_equal(ks.role[2], 0);
    assert_int_equal(ks.move[2], 100000);
    keys_free(&ks);
    joints_t j;
    joints_init(&j, 3);
    for (uint32_t i = 0; i < 500; i++) {
        uint32_t m[3] = {i, i * 7, 3};
        assert_int_equal(joints_intern(&j, m), i);
    }
    uint32_t m[3] = {123, 861, 3};
    assert_int_equal(joints_intern(&j, m), 123);
    joints_free(&j);
}

static void test_mast_decay(void **state)
{
    (void)state;
    mast_t m;
    mast_init(&m);
    mast_reserve(&m, 10);
    assert_float_equal(mast_q(&m, 3), 1.0, 1e-12); /* unseen keys are optimistic (spec §9) */
    for (uint32_t i = 0; i < 10; i++) mast_set(&m, i, i + 1, (i + 1) * 0.5);
    mast_add(&m, 9, 1.0); /* 10 + 1 playouts, 5 + 1 */
    assert_float_equal(mast_q(&m, 3), 0.5, 1e-12);
    assert_float_equal(mast_q(&m, 9), 6.0 / 11, 1e-12);
    assert_float_equal(mast_q(&m, 5000), 1.0, 1e-12);
    mast_decay(&m, 0.2);
    for (uint32_t i = 0; i < 9; i++) {
        assert_float_equal(m.n[i], 0.2 * (i + 1), 1e-12);
        assert_float_equal(m.w[i], 0.2 * (i + 1) * 0.5, 1e-12);
        assert_true(mast_q(&m, i) == m.w[i] / m.n[i]); /* the value kept is the one computed */
    }
    mast_clear(&m);
    for (uint32_t i = 0; i < m.cap; i++) assert_true(m.n[i] == 0 && m.w[i] == 0 && mast_q(&m, i) == 1.0);
    mast_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_single_region),  cmocka_unit_test(test_lru_two_regions),
        cmocka_unit_test(test_check_detects_violations), cmocka_unit_test(test_growable_region),
        cmocka_unit_test(test_amaf_rows),
        cmocka_unit_test(test_sparse_tables),      cmocka_unit_test(test_keys_and_joints),
        cmocka_unit_test(test_mast_decay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
