/* logq.h - a log stream whose writers never wait for the log.
 *
 * `ggp serve` logs every request on the path of its reply (session_log),
 * and libmicrohttpd's own thread logs the requests it refuses. A log that
 * stops taking data (a terminal paused with ^S, a pipe into a stalled
 * reader, a slow journal) would then hold every reply past its play clock,
 * and the whole server with it. The stream of logq_stream() only copies
 * into a buffer that a thread of the queue's own writes to the real log.
 * Past `cap` bytes waiting, writes are dropped and counted; the count is
 * written as a line of its own once the log takes data again. */
#ifndef GGP_PLAYER_PROTO_LOGQ_H
#define GGP_PLAYER_PROTO_LOGQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct logq logq_t;

/* A queue in front of out (which stays the caller's; its writes are done
 * by the queue's thread until logq_close), or NULL if the thread or the
 * stream cannot be made. */
logq_t *logq_open(FILE *out, size_t cap);
/* The stream to write to: line-buffered, safe from any thread (stdio's
 * own lock). */
FILE *logq_stream(logq_t *q);
/* Writes dropped so far because cap bytes were waiting. */
uint64_t logq_dropped(logq_t *q);
/* Flush the stream and wait at most wait_ms for out to take everything
 * queued; true when it has (the stream stays open). */
bool logq_flush(logq_t *q, uint64_t wait_ms);
/* Close the stream and wait at most wait_ms for out to take what is
 * queued. True when it all went out (the queue is freed); false when out
 * still blocks: the thread is left to finish on its own and frees the
 * queue then, and out must stay open meanwhile. *write_errno (may be
 * NULL) gets the first error of a write to out so far, or 0: the queue
 * writes to out's descriptor, so out's own error flag does not show it. */
bool logq_close(logq_t *q, uint64_t wait_ms, int *write_errno);

#endif
