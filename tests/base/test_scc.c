/* test_scc.c - strongly connected components (base/scc.h): components and
 * their reverse topological numbering on a cycle, a chain, self-loops, a
 * mixed graph, roots restricted to a subset, the completion order, and a
 * chain of a million nodes that a recursive Tarjan would overflow the C
 * stack on. */
#include "testutil.h"

#include <stdlib.h>

#include "base/scc.h"

/* CSR of an edge list given as pairs (u, w): u -> w. */
typedef struct csr {
    uint32_t off[16], adj[32];
} csr_t;

static void csr_make(csr_t *g, uint32_t n, const uint32_t (*e)[2], uint32_t ne)
{
    for (uint32_t u = 0; u <= n; u++) g->off[u] = 0;
    for (uint32_t k = 0; k < ne; k++) g->off[e[k][0] + 1]++;
    for (uint32_t u = 0; u < n; u++) g->off[u + 1] += g->off[u];
    uint32_t fill[16];
    for (uint32_t u = 0; u < n; u++) fill[u] = g->off[u];
    for (uint32_t k = 0; k < ne; k++) g->adj[fill[e[k][0]]++] = e[k][1];
}

static void test_cycle_is_one_component(void **state)
{
    (void)state;
    const uint32_t e[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
    csr_t g;
    csr_make(&g, 4, e, 4);
    uint32_t comp[4];
    assert_int_equal(scc_csr(4, g.off, g.adj, comp), 1);
    for (uint32_t u = 0; u < 4; u++) assert_int_equal(comp[u], 0);
}

static void test_chain_numbers_sinks_first(void **state)
{
    (void)state;
    /* 0 -> 1 -> 2 -> 3: 3 completes first, an edge u -> w has comp[w] < comp[u] */
    const uint32_t e[][2] = {{0, 1}, {1, 2}, {2, 3}};
    csr_t g;
    csr_make(&g, 4, e, 3);
    uint32_t comp[4];
    assert_int_equal(scc_csr(4, g.off, g.adj, comp), 4);
    for (uint32_t u = 0; u < 4; u++) assert_int_equal(comp[u], 3 - u);
}

static void test_self_loops_and_isolated_nodes(void **state)
{
    (void)state;
    /* a self-loop does not merge anything; node 2 has no edge at all */
    const uint32_t e[][2] = {{0, 0}, {1, 1}, {1, 0}};
    csr_t g;
    csr_make(&g, 3, e, 3);
    uint32_t comp[3];
    assert_int_equal(scc_csr(3, g.off, g.adj, comp), 3);
    assert_int_equal(comp[0], 0);
    assert_int_equal(comp[1], 1);
    assert_int_equal(comp[2], 2);
    assert_int_equal(scc_csr(0, g.off, g.adj, comp), 0);
}

static uint32_t csr_edge(const void *ctx, uint32_t u, uint32_t i)
{
    const csr_t *g = ctx;
    return g->off[u] + i < g->off[u + 1] ? g->adj[g->off[u] + i] : SCC_NONE;
}

static void test_mixed_graph_and_completion_order(void **state)
{
    (void)state;
    /* {0,1,2} a cycle that reads 5 (from 2) and the cycle {3,4} (from 1);
     * 6 reads 0. Depth first from 0 along 1, 2 then 5: {5} completes
     * first, then {3,4}, then {0,1,2}, then {6}. */
    const uint32_t e[][2] = {{0, 1}, {1, 2}, {1, 3}, {2, 0}, {2, 5}, {3, 4}, {4, 3}, {6, 0}};
    csr_t g;
    csr_make(&g, 7, e, 8);
    uint32_t comp[7], order[7];
    const uint32_t want_comp[7] = {2, 2, 2, 1, 1, 0, 3};
    assert_int_equal(scc_csr(7, g.off, g.adj, comp), 4);
    for (uint32_t u = 0; u < 7; u++) assert_int_equal(comp[u], want_comp[u]);
    /* every edge between components goes to a smaller id */
    for (uint32_t u = 0; u < 7; u++)
        for (uint32_t k = g.off[u]; k < g.off[u + 1]; k++)
            if (comp[u] != comp[g.adj[k]]) assert_true(comp[g.adj[k]] < comp[u]);
    /* the completion order pops each component's stack top first */
    scc_graph_t sg = {.n = 7, .edge = csr_edge, .ctx = &g};
    assert_int_equal(scc_tarjan(&sg, comp, order), 4);
    const uint32_t want_order[7] = {5, 4, 3, 2, 1, 0, 6};
    for (uint32_t k = 0; k < 7; k++) assert_int_equal(order[k], want_order[k]);
}

/* Edges of a graph given by a callback: node u reads u + 1 and u + 2 up to
 * n (a "ladder" without cycles), restricted by roots. */
static uint32_t ladder_edge(const void *ctx, uint32_t u, uint32_t i)
{
    uint32_t n = *(const uint32_t *)ctx;
    uint32_t w = u + 1 + i;
    return i < 2 && w < n ? w : SCC_NONE;
}

static void test_roots_and_order(void **state)
{
    (void)state;
    uint32_t n = 6;
    /* nodes 0 and 1 are not roots; 2.. reach only 3.. */
    const uint8_t roots[6] = {0, 0, 1, 1, 1, 1};
    uint32_t comp[6], order[6];
    scc_graph_t g = {.n = n, .edge = ladder_edge, .ctx = &n, .roots = roots};
    assert_int_equal(scc_tarjan(&g, comp, order), 4);
    assert_int_equal(comp[0], SCC_NONE);
    assert_int_equal(comp[1], SCC_NONE);
    /* depth first from 2: 5 completes first, then 4, 3, 2 */
    for (uint32_t k = 0; k < 4; k++) {
        assert_int_equal(order[k], 5 - k);
        assert_int_equal(comp[5 - k], k);
    }
}

static uint32_t chain_edge(const void *ctx, uint32_t u, uint32_t i)
{
    uint32_t n = *(const uint32_t *)ctx;
    return i == 0 && u + 1 < n ? u + 1 : SCC_NONE;
}

static uint32_t ring_edge(const void *ctx, uint32_t u, uint32_t i)
{
    uint32_t n = *(const uint32_t *)ctx;
    return i == 0 ? (u + 1) % n : SCC_NONE;
}

static void test_deep_chain_without_recursion(void **state)
{
    (void)state;
    /* a DFS path of 10^6 nodes: one C frame per node (~100 bytes) would
     * use about as much as an 8 MB stack has, and more under ASan */
    uint32_t n = 1000000;
    uint32_t *comp = malloc(n * sizeof *comp), *order = malloc(n * sizeof *order);
    assert_non_null(comp);
    assert_non_null(order);
    scc_graph_t chain = {.n = n, .edge = chain_edge, .ctx = &n};
    assert_int_equal(scc_tarjan(&chain, comp, order), n);
    for (uint32_t u = 0; u < n; u += 9973) {
        assert_int_equal(comp[u], n - 1 - u);
        assert_int_equal(order[n - 1 - u], u);
    }
    scc_graph_t ring = {.n = n, .edge = ring_edge, .ctx = &n};
    assert_int_equal(scc_tarjan(&ring, comp, NULL), 1);
    for (uint32_t u = 0; u < n; u += 9973) assert_int_equal(comp[u], 0);
    free(comp);
    free(order);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycle_is_one_component),
        cmocka_unit_test(test_chain_numbers_sinks_first),
        cmocka_unit_test(test_self_loops_and_isolated_nodes),
        cmocka_unit_test(test_mixed_graph_and_completion_order),
        cmocka_unit_test(test_roots_and_order),
        cmocka_unit_test(test_deep_chain_without_recursion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
