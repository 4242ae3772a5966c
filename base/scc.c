/* scc.c - iterative Tarjan (see scc.h). */
#include "base/scc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

uint32_t scc_tarjan(const scc_graph_t *g, uint32_t *comp, uint32_t *order)
{
    uint32_t n = g->n;
    size_t sz = ((size_t)n + 1) * sizeof(uint32_t);
    uint32_t *index = xmalloc(sz), *low = xmalloc(sz), *stack = xmalloc(sz);
    /* the DFS path, and the next edge to follow of each node on it */
    uint32_t *call = xmalloc(sz), *next_edge = xmalloc(sz);
    bool *on = xcalloc((size_t)n + 1, sizeof *on);
    memset(index, 0xff, sz);
    for (uint32_t u = 0; u < n; u++) comp[u] = SCC_NONE;
    uint32_t next_index = 0, sp = 0, n_comp = 0, n_done = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (index[root] != SCC_NONE || (g->roots && !g->roots[root])) continue;
        uint32_t depth = 0;
        call[depth] = root;
        next_edge[depth++] = 0;
        index[root] = low[root] = next_index++;
        stack[sp++] = root;
        on[root] = true;
        while (depth) {
            uint32_t u = call[depth - 1];
            uint32_t w = g->edge(g->ctx, u, next_edge[depth - 1]);
            if (w != SCC_NONE) {
                next_edge[depth - 1]++;
                if (index[w] == SCC_NONE) {
                    index[w] = low[w] = next_index++;
                    stack[sp++] = w;
                    on[w] = true;
                    call[depth] = w;
                    next_edge[depth++] = 0;
                } else if (on[w] && index[w] < low[u]) {
                    low[u] = index[w];
                }
                continue;
            }
            if (low[u] == index[u]) {
                do {
                    w = stack[--sp];
                    on[w] = false;
                    comp[w] = n_comp;
                    if (order) order[n_done] = w;
                    n_done++;
                } while (w != u);
                n_comp++;
            }
            depth--;
            if (depth && low[u] < low[call[depth - 1]]) low[call[depth - 1]] = low[u];
        }
    }
    free(index);
    free(low);
    free(stack);
    free(call);
    free(next_edge);
    free(on);
    return n_comp;
}

typedef struct csr {
    const uint32_t *off, *adj;
} csr_t;

static uint32_t csr_edge(const void *ctx, uint32_t u, uint32_t i)
{
    const csr_t *c = ctx;
    return c->off[u] + i < c->off[u + 1] ? c->adj[c->off[u] + i] : SCC_NONE;
}

uint32_t scc_csr(uint32_t n, const uint32_t *off, const uint32_t *adj, uint32_t *comp)
{
    csr_t c = {off, adj};
    scc_graph_t g = {.n = n, .edge = csr_edge, .ctx = &c};
    return scc_tarjan(&g, comp, NULL);
}
