/* http_client.h - the game manager's side of the transport (libcurl).
 *
 * One round sends one message to each player at once, a thread per player,
 * and waits for all of them (GGP-Base contacts players in parallel and a
 * step lasts as long as the slowest; shared/docs/gdl-protocol.md §5.3).
 * Every POST is made as pitfall 20 asks: Content-Type text/acl, an empty
 * `Expect:` header, a body of known size, HTTP/1.0 with no connection
 * reuse, no signals. The outcome of each request is one of: a reply (any
 * HTTP status: GGP-Base reads the body and ignores the status), a timeout
 * (`TO` in the record) or a connection error (`CE`). Replies are read up to
 * HTTP_REPLY_MAX bytes; a longer one is cut there and flagged. */
#ifndef GGP_PLAYER_MANAGER_HTTP_CLIENT_H
#define GGP_PLAYER_MANAGER_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_REPLY_MAX 65536

typedef enum { HTTP_REPLY, HTTP_TIMEOUT, HTTP_CONN_ERROR } http_outcome_t;

typedef struct http_result {
    http_outcome_t outcome;
    long status;     /* HTTP status of a reply */
    char *body;      /* HTTP_REPLY: malloc'd, NUL-terminated */
    size_t len;
    bool truncated;  /* the reply was longer than HTTP_REPLY_MAX */
    double ms;       /* from sending to the end of the reply */
    char error[160]; /* curl's reason for TO / CE */
} http_result_t;

/* Process-wide set-up of libcurl (call once before any thread starts). */
bool http_client_init(void);
void http_client_cleanup(void);

/* POST bodies[i] to urls[i] for every i < n at once (none where bodies[i]
 * is NULL: that result is a CE "not sent"), each with a total
 * timeout of timeout_ms and a connect timeout of at most connect_ms;
 * results[i] receives each outcome (free with http_result_free). */
void http_post_round(char *const *urls, char *const *bodies, uint32_t n, uint64_t timeout_ms, uint64_t connect_ms,
                     http_result_t *results);
void http_result_free(http_result_t *r);

#endif
