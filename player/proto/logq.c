/* logq.c - a log stream whose writers never wait for the log (logq.h).
 *
 * Two buffers: writers append to one under the queue's mutex (a copy), the
 * thread swaps it for the other and writes that one out with no lock held,
 * so a log that blocks holds up the thread alone. The stream is a GNU
 * fopencookie stream, so every writer of the log (the request lines, the
 * engine's load diagnostics) goes through the queue unchanged. The thread
 * writes to out's descriptor, not through out: a stdio write blocked on
 * the log would hold out's lock, and exit(), which flushes every stream,
 * would wait for it forever. */
#define _GNU_SOURCE /* fopencookie */
#include "player/proto/logq.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/xalloc.h"

struct logq {
    pthread_mutex_t mu;
    pthread_cond_t cv;   /* data queued, quit asked, or the thread finished */
    char *buf, *spare;   /* writers fill buf; the thread writes spare out */
    size_t len, cap;
    uint64_t dropped;    /* writes dropped, in all */
    uint64_t untold;     /* ... not yet told in the log */
    bool quit;           /* no more writes: drain and end */
    bool writing;        /* the thread is writing spare out */
    bool finished;       /* the thread has written everything and ended */
    bool orphan;         /* logq_close gave up waiting: the thread frees it */
    int err;             /* the first error writing to out (errno), or 0 */
    int fd;              /* out's descriptor */
    FILE *out, *stream;
    pthread_t thread;
};

static void logq_destroy(logq_t *q)
{
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    free(q->buf);
    free(q->spare);
    free(q);
}

static ssize_t logq_write(void *cookie, const char *data, size_t size)
{
    logq_t *q = cookie;
    pthread_mutex_lock(&q->mu);
    if (size <= q->cap - q->len) {
        memcpy(q->buf + q->len, data, size);
        q->len += size;
    } else {
        q->dropped++;
        q->untold++;
    }
    pthread_cond_broadcast(&q->cv); /* the thread, not only a logq_flush waiting */
    pthread_mutex_unlock(&q->mu);
    return (ssize_t)size; /* dropped or not, the writer goes on */
}

static int logq_cookie_close(void *cookie)
{
    (void)cookie; /* the queue outlives its stream: logq_close frees it */
    return 0;
}

/* All of data to the log, or the first error (then the rest is lost). */
static int write_all(int fd, const char *data, size_t n)
{
    while (n) {
        ssize_t k = write(fd, data, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return k < 0 ? errno : EIO;
        data += k;
        n -= (size_t)k;
    }
    return 0;
}

static void *logq_main(void *arg)
{
    logq_t *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->len && !q->untold && !q->quit) pthread_cond_wait(&q->cv, &q->mu);
        if (!q->len && !q->untold) break; /* quit, and nothing left */
        char *out = q->buf;
        size_t n = q->len;
        uint64_t untold = q->untold;
        q->buf = q->spare;
        q->spare = out;
        q->len = 0;
        q->untold = 0;
        q->writing = true;
        pthread_mutex_unlock(&q->mu);
        /* the log may block here; writers keep filling the other buffer */
        int e = n ? write_all(q->fd, out, n) : 0;
        if (untold && !e) {
            char line[128];
            int len = snprintf(line, sizeof line, "ggp serve: %llu log line%s dropped: the log was not taking them\n",
                               (unsigned long long)untold, untold == 1 ? "" : "s");
            e = write_all(q->fd, line, (size_t)len);
        }
        pthread_mutex_lock(&q->mu);
        if (e && !q->err) q->err = e;
        q->writing = false;
        pthread_cond_broadcast(&q->cv); /* logq_flush may be waiting */
    }
    q->finished = true;
    bool orphan = q->orphan;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    if (orphan) logq_destroy(q);
    return NULL;
}

logq_t *logq_open(FILE *out, size_t cap)
{
    if (cap < 256) cap = 256;
    logq_t *q = xcalloc(1, sizeof *q);
    fflush(out); /* what out buffered goes first: from here on the thread writes to its descriptor */
    q->out = out;
    q->fd = fileno(out);
    q->cap = cap;
    q->buf = xmalloc(cap);
    q->spare = xmalloc(cap);
    pthread_mutex_init(&q->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q->cv, &ca);
    pthread_condattr_destroy(&ca);
    cookie_io_functions_t io = {.write = logq_write, .close = logq_cookie_close};
    q->stream = fopencookie(q, "w", io);
    if (!q->stream) {
        logq_destroy(q);
        return NULL;
    }
    /* a line reaches the queue when it is written, as a file's would */
    setvbuf(q->stream, NULL, _IOLBF, 0);
    if (pthread_create(&q->thread, NULL, logq_main, q) != 0) {
        fclose(q->stream);
        logq_destroy(q);
        return NULL;
    }
    return q;
}

FILE *logq_stream(logq_t *q) { return q->stream; }

uint64_t logq_dropped(logq_t *q)
{
    pthread_mutex_lock(&q->mu);
    uint64_t d = q->dropped;
    pthread_mutex_unlock(&q->mu);
    return d;
}

/* Wait (q->mu held) until the monotonic time until; false once passed. */
static bool logq_wait(logq_t *q, uint64_t until)
{
    struct timespec ts = {.tv_sec = (time_t)(until / 1000000000ULL), .tv_nsec = (long)(until % 1000000000ULL)};
    return clock_now_ns() < until && pthread_cond_timedwait(&q->cv, &q->mu, &ts) != ETIMEDOUT;
}

bool logq_flush(logq_t *q, uint64_t wait_ms)
{
    fflush(q->stream);
    uint64_t until = clock_now_ns() + wait_ms * 1000000ULL;
    pthread_mutex_lock(&q->mu);
    while ((q->len || q->untold || q->writing) && logq_wait(q, until)) {
    }
    bool done = !q->len && !q->untold && !q->writing;
    pthread_mutex_unlock(&q->mu);
    return done;
}

bool logq_close(logq_t *q, uint64_t wait_ms, int *write_errno)
{
    fclose(q->stream); /* its last bytes into the queue */
    uint64_t until = clock_now_ns() + wait_ms * 1000000ULL;
    pthread_mutex_lock(&q->mu);
    q->quit = true;
    pthread_cond_broadcast(&q->cv);
    while (!q->finished && logq_wait(q, until)) {
    }
    bool done = q->finished;
    if (write_errno) *write_errno = q->err;
    pthread_t thread = q->thread; /* once orphaned, q is the thread's to free */
    if (!done) q->orphan = true;
    pthread_mutex_unlock(&q->mu);
    if (!done) {
        pthread_detach(thread);
        return false;
    }
    pthread_join(thread, NULL);
    logq_destroy(q);
    return true;
}
