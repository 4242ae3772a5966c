/* server.h - the player's HTTP front end (libmicrohttpd).
 *
 * Serves a session (session.h) over HTTP/1.x, as GGP-Base's player does
 * (shared/docs/gdl-protocol.md §5.1, pitfalls 13-17):
 *   - POST at any path: the body is a message; the reply is text/acl with
 *     Content-Length and the CORS headers, and the connection is closed
 *     after every reply, so HTTP/1.0 clients that read until EOF (Dresden)
 *     work as well as those that use the length (GGP-Base);
 *   - GET /<url-encoded message> answers the message too (browser tests);
 *   - OPTIONS (CORS preflight) and any other method: an empty 200;
 *   - a body longer than the cap: 413 with a one-line reason, decided from
 *     Content-Length before reading when there is one;
 *   - `Expect: 100-continue` is answered by libmicrohttpd.
 * Hostile clients (issue 13): one epoll thread does the I/O, so idle and
 * slow connections cost no thread; each complete request is answered on a
 * thread of its own, so a PLAY that waits for its search never delays INFO
 * or ABORT. A connection must finish its headers within header_ms of the
 * accept and its body within body_ms after that, or it is dropped; one
 * address (an IPv6 /64) holds at most per_address connections and all of
 * them at most max_connections: past either limit the oldest connection
 * still sending its request is dropped, never the newcomer, so the game
 * manager gets in even from an attacker's address (loopback). The reply
 * deadline counts from the accept, which no byte of the request precedes
 * (§5.3). */
#ifndef GGP_PLAYER_PROTO_SERVER_H
#define GGP_PLAYER_PROTO_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "player/proto/session.h"

typedef struct server server_t;

typedef struct server_config {
    const char *bind;   /* numeric address: "0.0.0.0" (default), "127.0.0.1", "::" (dual stack), ... */
    uint16_t port;      /* 0: any free port (see server_port) */
    size_t max_body;    /* bytes */
    session_t *session; /* not owned */
    /* 0 for each: the defaults of server.c */
    unsigned max_connections; /* held at once (default 2048, lowered to the fd limit) */
    unsigned per_address;     /* held by one client address (default 256) */
    uint32_t header_ms;       /* accept to end of headers (default 4000) */
    uint32_t body_ms;         /* end of headers to end of body (default 4000) */
} server_config_t;

/* What the server did with its connections, since it started. */
typedef struct server_counts {
    uint64_t accepted;
    uint64_t dropped_late; /* past their header, body or reply deadline */
    uint64_t dropped_room; /* the oldest unfinished, to make room for a newcomer */
    unsigned open;         /* held now, not counting those being dropped */
} server_counts_t;

/* Start serving in background threads. On failure returns NULL with a
 * one-line reason in err. */
server_t *server_start(const server_config_t *cfg, char *err, size_t err_len);
/* The port actually bound. */
uint16_t server_port(const server_t *sv);
/* A snapshot of the counts; thread-safe. */
void server_counts(server_t *sv, server_counts_t *out);
/* Stop accepting, finish the connections in progress and free. */
void server_stop(server_t *sv);

#endif
