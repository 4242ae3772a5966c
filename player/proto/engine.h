/* engine.h - what a match session needs from a game and a searcher.
 *
 * The session (session.h) owns the protocol: match ids, clocks, the search
 * thread, replies. Everything about the game itself - loading START's rules,
 * applying the joint moves of PLAY and STOP, legal moves, searching - goes
 * through this small table, so the session never sees the reasoner. The
 * shipped implementation is engine_gdl.c (gdl + reasoner/game.h +
 * search/search.h); keeping the seam lets the session's timing be tested
 * with games of any speed.
 *
 * Threads: load runs on a thread of its own; apply, is_terminal, goal,
 * random_move, snapshot and snapshot_free on the session's state thread,
 * one at a time per match (never from a request handler, so slow rules
 * cannot make a reply late). choose runs on the session's search thread
 * and may overlap those calls, on a snapshot taken before; it must return
 * soon after *stop becomes true or the deadline passes. Move texts returned
 * stay valid until the match is freed. */
#ifndef GGP_PLAYER_PROTO_ENGINE_H
#define GGP_PLAYER_PROTO_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/clock.h"
#include "base/rng.h"
#include "player/proto/message.h"

typedef struct engine_match engine_match_t;

typedef struct match_engine {
    void *cfg; /* passed to load (e.g. the player spec) */
    /* Load START's rules for START's role. On failure returns NULL with a
     * one-line reason in err, after writing the full diagnostics to log (if
     * not NULL). May take the message's parse (ggp_msg_take). */
    engine_match_t *(*load)(void *cfg, ggp_msg_t *start, FILE *log, char *err, size_t err_len);
    void (*free)(engine_match_t *m);
    /* Advance the current state by a joint move, texts in role order. On a
     * wrong count or an illegal move returns false with a reason and leaves
     * the state unchanged. */
    bool (*apply)(engine_match_t *m, char *const *moves, uint32_t n, char *err, size_t err_len);
    bool (*is_terminal)(engine_match_t *m);
    /* Our role's goal in the current state (negative: none or several). */
    int (*goal)(engine_match_t *m);
    /* A uniformly random legal move of our role now, or NULL if it has none. */
    const char *(*random_move)(engine_match_t *m, rng_t *rng);
    /* A copy of the current state, for a search. */
    void *(*snapshot)(engine_match_t *m);
    void (*snapshot_free)(engine_match_t *m, void *snap);
    /* Search from snap for our role; returns a legal move's text or NULL.
     * A short description of the search (playouts, ...) goes into info. */
    const char *(*choose)(engine_match_t *m, void *snap, deadline_t deadline, const atomic_bool *stop, char *info,
                          size_t info_len);
} match_engine_t;

#endif
