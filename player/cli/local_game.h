/* local_game.h - play one game locally between searchers (one per role), as
 * `ggp play` and `ggp tournament` do, with reproducible per-seat seeds.
 *
 * A seat's seed is derived from the game seed, the seat and the spec's own
 * seed= key, so `ggp play FILE --player A --player B --seed S` replays game
 * k of a tournament exactly when S is that game's seed. */
#ifndef GGP_PLAYER_CLI_LOCAL_GAME_H
#define GGP_PLAYER_CLI_LOCAL_GAME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "player/cli/common.h"
#include "reasoner/game.h"
#include "search/search.h"

/* What one seat did over a game. */
typedef struct seat_totals {
    uint64_t searches;   /* moves it searched (forced moves are not searched) */
    uint64_t playouts;
    double seconds;      /* time in its searches */
    uint64_t nodes_peak; /* max over its searches */
    uint64_t bytes_peak;
    uint64_t bytes_per_node;
} seat_totals_t;

typedef struct local_game {
    uint32_t steps;
    uint64_t moves_hash; /* FNV-1a of the moves played, as text: same moves,
                          * same hash, whatever the engine */
    int goals[64];       /* per role; GAME_GOAL_NONE if undefined */
    bool ok;             /* reached a terminal state */
    char error[160];     /* why not */
} local_game_t;

/* FNV-1a 64 of n bytes continued from h (LOCAL_HASH_START for a new hash):
 * the moves hash of a game and the rules hash of a tournament CSV. */
#define LOCAL_HASH_START 14695981039346656037ull
uint64_t local_hash_bytes(uint64_t h, const char *s, size_t n);

/* A game not over after this many steps fails (--max-steps): rules whose
 * game never ends must not hold a run for hours. */
#define LOCAL_MAX_STEPS 100000u

/* Play one game from the initial state. specs[r] plays role r (at most 64
 * roles). out (may be NULL) gets each joint move; verbose adds each search's
 * report. totals (may be NULL) has one entry per role. A game that has not
 * ended after max_steps joint moves (0: LOCAL_MAX_STEPS) fails. */
void local_game_play(const game_t *g, const search_spec_t *const *specs, uint64_t game_seed, uint32_t max_steps,
                     FILE *out, bool verbose, seat_totals_t *totals, local_game_t *res);


/* Load, validate and compile a rule file (diagnostics on stderr) with
 * opt's engine and load budgets. Returns NULL with *rc set to the exit
 * code on failure. */
game_t *local_load_game(const char *cmd, const char *path, const game_options_t *opt, gdl_loaded_t *l, int *rc);

#endif
