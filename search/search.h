/* search.h - the searchers: one MCTS engine whose variants (uct, uct2,
 * uctr, uctr2, grave, grave2, graver, graver2), plus random and flat mc, are
 * rows of one policy table (shared/docs/grave-spec.md; issue "Search"; the
 * table and the engine's internals are in search_internal.h).
 *
 * A searcher is made from a player spec string, `ALGO[:key=value,...]`,
 * e.g. "grave2:nodes=200,lambda=0.5,bias=0.01,ref=25,seed=7". It belongs to
 * one role of one game and is used from one thread at a time; it keeps what
 * must persist between the moves of a match (MAST statistics). */
#ifndef GGP_SEARCH_SEARCH_H
#define GGP_SEARCH_SEARCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/clock.h"
#include "reasoner/game.h"

typedef struct search_spec search_spec_t; /* parsed spec (spec.c) */
typedef struct searcher searcher_t;

/* Parse a spec string. On error returns NULL and writes a one-line message
 * naming the bad key and its allowed range into err. */
search_spec_t *search_spec_parse(const char *text, char *err, size_t err_len);
void search_spec_free(search_spec_t *s);
/* Canonical text of a spec with every key (for logs and CSV). */
void search_spec_print(const search_spec_t *s, FILE *out);
/* True if the spec has a time budget (seconds=...) rather than playouts. */
bool search_spec_is_timed(const search_spec_t *s);
/* True if the player should go on searching between requests (compete's
 * ponder=on with its tree reused): the server calls searcher_choose again
 * with a stop flag after replying, and the next request stops it. */
bool search_spec_ponders(const search_spec_t *s);
/* A match player's workers (its shared tree), unless threads= was given
 * (`ggp serve` gives it every online core); false if not applied. */
bool search_spec_set_threads(search_spec_t *s, uint32_t n);
/* Set a match player's memory bound (MB) unless memory= was given; false if
 * the spec has no such key or it was given. */
bool search_spec_set_memory(search_spec_t *s, uint64_t mb);
/* This machine's physical RAM in MB (0 if unknown): a memory bound above it
 * is refused (memory=, `ggp serve --memory`), since a shared tree's arrays
 * are allocated whole at the first search and would abort it there. */
uint64_t search_ram_mb(void);
/* Whether the spec can play game g: alpha-beta needs two players taking
 * turns, NMCS one player; MCTS rows play any game. False with why in err. */
bool search_spec_check_game(const search_spec_t *s, const game_t *g, char *err, size_t len);
/* Print the algorithms, keys, defaults and meanings (`ggp players`). */
void search_players_help(FILE *out);
/* The spec's seed= value (0 by default). */
uint64_t search_spec_seed(const search_spec_t *s);

/* Agresti-Coull 95% interval for x successes in n trials (x may be
 * fractional: draws count 1/2), clamped to [0,1] (grave-spec §11.1). */
void search_agresti_coull(double x, double n, double *lo, double *hi);

#define SEARCH_MAX_STRATEGIES 8

/* What one decision did (for logs, tournaments and memory reports). */
typedef struct search_report {
    uint64_t playouts;        /* simulations run */
    uint64_t nodes_peak;      /* resident nodes, peak */
    uint64_t bytes_per_node;  /* node struct + its AMAF table */
    uint64_t bytes_peak;      /* peak bytes of the search (nodes + AMAF, MAST, N-grams, replies, keys) */
    double seconds;           /* wall time spent */
    /* CPU time of the search's threads: playouts / cpu_seconds is the
     * search's speed on a loaded machine, where wall time is shared */
    double cpu_seconds;
    double value;             /* estimated value of the chosen move in [0,1] */
    uint64_t capped;          /* playouts cut at the ply cap or by a rules defect */
    uint64_t recycled;        /* nodes recycled (LRU, spec §6) */
    uint64_t reused;          /* root visits kept from the match's earlier searches */
    bool solved;              /* the root's value is exact (compete's solver) */
    uint64_t la_checks, la_proofs; /* compete, lookahead=on: nodes checked, proven so */
    uint64_t tt_stored, tt_hits;   /* compete: proofs stored in the proven-states table, nodes proven from it */
    uint64_t cached_steps;    /* tree steps into a node whose state was cached (cache=on): no reasoner call */
    /* The simulations' steps from the root (tree and playout), and those
     * in the tree: a search's playouts per second read beside the raw
     * playouts of `ggp bench` depend on how long its simulations are */
    uint64_t steps, tree_steps;
    int nested_best;          /* compete, one player: the NMCS line's score (-1: none) */
    /* playout=switch: this search's playouts by the searcher's role per
     * strategy (named by search_strategy_name), spec §14.2 */
    uint64_t strategy[SEARCH_MAX_STRATEGIES];
} search_report_t;

/* Name of playout strategy i (random, mast, mobility, md, eval), or NULL. */
const char *search_strategy_name(uint32_t i);

searcher_t *searcher_new(const game_t *g, uint32_t role, const search_spec_t *spec);
void searcher_free(searcher_t *s);
/* Start of a new match: forget everything (MAST, trees) and restart the
 * random sequence from the seed. */
void searcher_reset(searcher_t *s);
/* Use this seed instead of the spec's (play and tournaments derive one per
 * game and seat); takes effect at once, like a reset. */
void searcher_reseed(searcher_t *s, uint64_t seed);

/* Choose a move for the searcher's role in state st. The search stops at
 * its budget (playouts / nodes), at the deadline (if not deadline_none()),
 * or as soon as *stop becomes true (stop may be NULL), and always returns a
 * legal move (if the role has one; UINT32_MAX otherwise). With the same
 * seed and playout budget it returns the same move. */
move_id_t searcher_choose(searcher_t *s, const game_state_t *st, deadline_t deadline,
                          const atomic_bool *stop, search_report_t *rep);

#endif
