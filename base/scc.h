/* scc.h - strongly connected components, without recursion.
 *
 * Tarjan's algorithm (R. Tarjan, "Depth-first search and linear graph
 * algorithms", SIAM J. Comput. 1(2), 1972) with an explicit call stack, so
 * that a rule set or a circuit with millions of nodes in one long chain does
 * not overflow the C stack. The rule checker (gdl/validate.c), the rule
 * planner (reasoner/rules.c) and the propnet circuit builder all order their
 * graphs with it, and their outputs depend on its exact visiting order: roots
 * in increasing node order, successors in the order the graph gives them.
 *
 * Component ids are numbered as components complete, which is a reverse
 * topological order: for an edge u -> w between components,
 * comp[w] < comp[u]. Read edges as "u depends on w" and the ids are an
 * evaluation order. */
#ifndef GGP_BASE_SCC_H
#define GGP_BASE_SCC_H

#include <stdint.h>

/* The end of a node's successor list, and the comp[] of unvisited nodes. */
#define SCC_NONE UINT32_MAX

/* The i-th successor of node u (i = 0, 1, ...), or SCC_NONE past the last. */
typedef uint32_t scc_edge_fn(const void *ctx, uint32_t u, uint32_t i);

typedef struct scc_graph {
    uint32_t n; /* nodes 0 .. n-1 */
    scc_edge_fn *edge;
    const void *ctx;
    /* NULL: every node is a root. Otherwise only nodes with roots[u] != 0
     * are; successors of those must have roots[] != 0 too (the others are
     * never visited and keep comp[] = SCC_NONE). */
    const uint8_t *roots;
} scc_graph_t;

/* Fills comp[0 .. n) and, when order is not NULL, order[] with the visited
 * nodes in the order they complete: grouped by component, components by
 * increasing id. Returns the number of components. */
uint32_t scc_tarjan(const scc_graph_t *g, uint32_t *comp, uint32_t *order);

/* The same over a graph in CSR form: the successors of u are
 * adj[off[u] .. off[u+1]). Every node is a root. */
uint32_t scc_csr(uint32_t n, const uint32_t *off, const uint32_t *adj, uint32_t *comp);

#endif
