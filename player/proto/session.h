/* session.h - the player's side of the GGP match protocol, without HTTP.
 *
 * A session answers one request body at a time per call, from any number of
 * threads at once (the HTTP server runs one thread per connection), and
 * holds at most one match (shared/docs/gdl-protocol.md §5.2):
 *
 *   INFO    -> ((name N) (status available|busy))
 *   PING, PREVIEW -> ready
 *   START   -> load and compile the rules, search from the initial state
 *              until the start clock minus the margin, then `ready`;
 *              `busy` when another match is on or the rules do not load
 *   PLAY    -> apply the joint move in the message (never our own intended
 *              move, §5.4), then search until the play clock minus the
 *              margin and reply the move, as the rules spell it
 *   STOP    -> apply the last joint move, `done`, release the match
 *   ABORT   -> `done`, release the match
 *
 * Deadlines count from the request's arrival (§5.3). The engine is called
 * only by the session's state thread (moves applied in arrival order) and
 * search thread (with a stop flag), so INFO, ABORT and a stray START are
 * answered at once while a PLAY waits, a newer PLAY stops a stale search,
 * and every reply is sent on time whatever the rules cost: if the search
 * has not answered at the deadline, the reply is a random legal move drawn
 * when the request arrived; if even that is not ready, the last legal move
 * known (logged as such). A PLAY that comes while START's rules are still
 * loading is answered `noop` at its deadline (a guess) and its joint move
 * is applied first once they are in. A match that has had no
 * message for twice its play clock plus 10 s (plus the start clock before
 * the first PLAY) is considered abandoned (its manager died): INFO says
 * available again and a new START replaces it.
 *
 * Malformed messages get 400, unknown match ids 404, each with a one-line
 * reason; the current match goes on. Every request is logged as one line:
 * time, match, message kind, HTTP status, reply, milliseconds. */
#ifndef GGP_PLAYER_PROTO_SESSION_H
#define GGP_PLAYER_PROTO_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "player/proto/engine.h"

typedef struct session session_t;

typedef struct session_config {
    const char *name;       /* reported by INFO; one atom */
    uint64_t margin_ms;     /* reply this long before the clock runs out */
    const match_engine_t *engine; /* not owned */
    FILE *log;              /* request log (NULL: none); not owned */
    uint64_t seed;          /* for fallback random moves */
    /* Ponder: after answering START or PLAY, search on from the same state
     * until the next request of the match arrives (the manager waits for
     * the slowest player, so that time is free; issue 12). The engine's
     * choose must keep what it learns (compete's reused tree). */
    bool ponder;
} session_config_t;

session_t *session_new(const session_config_t *cfg);
/* Stops the search thread and releases the match; waits for a START's
 * rules still loading. */
void session_free(session_t *s);
/* Shutting down (ggp serve on a signal): every waiting request is answered
 * at once and no new work starts... */
void session_close(session_t *s);
/* ... then session_free, unless a load or a move being applied is still
 * running after wait_ms: then false, and the session is left to the
 * process's exit (its threads still use it). */
bool session_free_within(session_t *s, uint64_t wait_ms);

/* Answer one request body whose first byte arrived at arrival_ns
 * (clock_now_ns()). Returns the HTTP status and a malloc'd reply text in
 * *reply. Logs one line. */
int session_handle(session_t *s, const char *body, size_t len, uint64_t arrival_ns, char **reply);

/* Log a request that was answered without session_handle (oversized body,
 * OPTIONS, ...), in the same format. */
void session_log(session_t *s, const char *match, const char *kind, int status, const char *reply,
                 uint64_t arrival_ns, const char *note);

#endif
