/* propnet_circuit_internal.h - what the circuit's build
 * (propnet_circuit_build.c) lays out and its run (propnet_circuit_run.c)
 * reads: the node kinds and flags, the packed node record and the circuit
 * itself. Private to those two files; propnet_circuit.h is the interface. */
#ifndef GGP_REASONER_PROPNET_CIRCUIT_INTERNAL_H
#define GGP_REASONER_PROPNET_CIRCUIT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reasoner/propnet_circuit.h"

#define NONE UINT32_MAX
#define PN_LSUM_MIN 8 /* legal words of a role from which its summary is kept and read */

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

#endif
