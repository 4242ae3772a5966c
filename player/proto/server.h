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
 * One thread per connection, so a PLAY that waits for its search never
 * delays INFO or ABORT. Connections are limited in number and in idle time
 * so that a client that never finishes its request cannot exhaust us. */
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
} server_config_t;

/* Start serving in background threads. On failure returns NULL with a
 * one-line reason in err. */
server_t *server_start(const server_config_t *cfg, char *err, size_t err_len);
/* The port actually bound. */
uint16_t server_port(const server_t *sv);
/* Stop accepting, finish the connections in progress and free. */
void server_stop(server_t *sv);

#endif
