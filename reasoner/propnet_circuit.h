/* propnet_circuit.h - the optimised circuit that the propnet engine runs
 * (private to reasoner/; propnet.c grounds, propnet_circuit_build.c
 * simplifies, propnet_circuit_run.c runs).
 *
 * Input: the ground network as grounding records it (a proposition is the
 * OR of its instances, an instance the AND of its literals) and which
 * propositions are inputs (true, does) and outputs (legal, goal, terminal,
 * next). The build turns it into a circuit of AND/OR gates over literals
 * (node << 1 | negated) and simplifies it without changing any output:
 * constants are folded, one-input gates become wires, gates that no output
 * reads are dropped, equal gates are merged, a literal shared by many
 * instances of one OR is factored out (the frame rules' "true(c) and some
 * move that leaves c alone" become one AND per cell), a gate that only one
 * gate of its kind reads is flattened into it, and the literal that
 * most legal moves of a role share (whose turn it is) becomes a gate read at
 * query time instead of a fan-out to every move.
 *
 * Running: a gate keeps a counter whose sign is its value (an AND of n
 * inputs starts at 1 - n, an OR at 0; a satisfied input adds 1; an
 * input's counter is its value), so a flip of an input costs one add per
 * fan-out and a test against 0/1; a node's fan-out is split into the gates
 * that read it as it is and those that read its negation. Gates of
 * cyclic components (Hex-like connectivity) are recomputed, from their
 * support outside the component, when an input of the component changes.
 * Next-state bits and legal moves are kept as bitsets, toggled when their
 * gate flips. Four more savings at run time:
 *  - an OR over does inputs only (the frame's "some move leaves c alone")
 *    counts the moves of a shared universe minus its few exceptions, so a
 *    joint move touches the exceptions of the moves that changed only;
 *  - gates that only goals read (Reversi's disc count) are evaluated when
 *    a goal is asked, once per state, not at every step;
 *  - a state set from outside (a search's root, a playout's start) keeps a
 *    copy of the running state, so going back to it is a copy;
 *  - state bits of which at most one is on in any reachable state (proved
 *    from the rules: a counter such as (step n), whose turn it is) form
 *    mutex groups; an AND that reads a member is dead unless that member
 *    is on, and a node feeding such gates of many members reaches, through
 *    a table indexed by the member on, only those of that member (Hex keeps
 *    its groups per step: a cell's gate fed 81 gates, it now feeds one). */
#ifndef GGP_REASONER_PROPNET_CIRCUIT_H
#define GGP_REASONER_PROPNET_CIRCUIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "reasoner/game.h"

/* The ground network. Proposition 0 is true, 1 false; literals are
 * prop << 1 | negated; a proposition with no instance that is no input is
 * false. Per-role arrays are indexed by move id or goal index. */
typedef struct pn_raw {
    uint32_t n_props;
    const uint8_t *is_input; /* per proposition */
    uint32_t n_inst;
    const uint32_t *inst_head, *inst_lit, *lits;
    uint32_t n_base, n_words;
    const uint32_t *base_prop; /* per state bit */
    uint32_t n_roles;
    const uint32_t *n_moves;
    uint32_t *const *legal_prop, *const *does_prop;
    const uint32_t *n_goals;
    uint32_t *const *goal_prop;
    uint32_t terminal_prop;
    uint32_t n_next;
    const uint32_t *next_prop, *next_bit;
    uint32_t n_init;
    const uint32_t *init_bits; /* the initial state's bits */
    /* The build gives up (returns NULL) once this passes: the grounding
     * budget covers rules to circuit (deadline_none(): no limit). */
    deadline_t deadline;
    const atomic_bool *cancel; /* or NULL: gives up too once true */
} pn_raw_t;

typedef struct pn_circuit pn_circuit_t;
typedef struct pn_run pn_run_t;

/* NULL when raw->deadline passes or raw->cancel is set first. */
pn_circuit_t *pn_circuit_build(const pn_raw_t *raw);
void pn_circuit_free(pn_circuit_t *c);
/* Gates (AND/OR nodes) and wires (fan-out edges) of the final circuit. */
void pn_circuit_size(const pn_circuit_t *c, size_t *gates, size_t *edges);

/* Per-thread running state; starts with every input false. */
pn_run_t *pn_run_new(const pn_circuit_t *c);
void pn_run_free(pn_run_t *x);
/* Make the base inputs equal bits (n_words words); only differences flip.
 * keep: the state was set from outside (not the result of the last next),
 * so it may come back: keep a copy of the running state for it. */
void pn_run_set_state(pn_run_t *x, const uint32_t *bits, bool keep);
bool pn_run_terminal(const pn_run_t *x);
/* Sorted legal move ids of a role in the current state. */
uint32_t pn_run_legal(pn_run_t *x, uint32_t role, const move_id_t **moves);
/* Whether goal literal k of a role holds (the gates that only goals read
 * are evaluated then, once per state). */
bool pn_run_goal_holds(pn_run_t *x, uint32_t role, uint32_t k);
/* Set the does inputs to the joint move and write the next state. */
void pn_run_next(pn_run_t *x, const move_id_t *joint, uint32_t *out_bits);

/* Random playouts 256 side by side, one bit of a word per playout
 * (propnet_lanes.c). NULL when the circuit has a cyclic group that reads
 * its own members negated (not monotone: not run this way), 2^27 nodes
 * or more (its records hold byte offsets in 32 bits) or 2^24 levels. */
typedef struct pn_lanes pn_lanes_t;
enum { PN_LANE_OVER, PN_LANE_CAPPED, PN_LANE_STUCK };
/* A finished playout: how it ended, its plies, its lane, which
 * pn_lanes_goal_holds reads, and when recorded its joint moves (plies x
 * roles, role order), all valid during the call only. */
typedef void (*pn_lanes_done_fn)(void *ud, int how, uint32_t plies, uint32_t lane, const move_id_t *hist);
pn_lanes_t *pn_lanes_new(const pn_circuit_t *c);
void pn_lanes_free(pn_lanes_t *L);
/* n playouts from the state bits, each cut after cap plies; returns the
 * plies played. Deterministic for a given rng state. */
uint64_t pn_lanes_run(pn_lanes_t *L, const uint32_t *bits, uint64_t n, uint32_t cap, rng_t *rng, bool record,
                      pn_lanes_done_fn done, void *ud);
bool pn_lanes_goal_holds(const pn_lanes_t *L, uint32_t lane, uint32_t role, uint32_t k);

#endif
