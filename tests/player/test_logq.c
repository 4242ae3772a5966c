/* test_logq.c - the log queue (player/proto/logq.h): lines go out whole
 * and in order; a log that stops taking data never makes a writer wait
 * (its lines are dropped and counted, the count logged once it takes data
 * again); closing gives up on a log that stays blocked. End to end: a
 * `ggp serve` whose log is a pipe nobody reads answers thousands of
 * requests, each on time, and exits on SIGTERM; a log that fails is
 * reported at exit. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "player/proto/logq.h"
#include "procs.h"

static char tmpdir[64];
/* Streams left open on purpose: a queue's left thread may still write to them. */
FILE *logq_test_left_open;

/* A pipe whose write end is full: a blocking write to it waits for a
 * reader. fds[0] reads, *out writes (blocking). */
static void full_pipe(int fds[2], FILE **out)
{
    assert_int_equal(pipe(fds), 0);
    int fl = fcntl(fds[1], F_GETFL);
    assert_int_equal(fcntl(fds[1], F_SETFL, fl | O_NONBLOCK), 0);
    char junk[4096];
    memset(junk, 'x', sizeof junk);
    while (write(fds[1], junk, sizeof junk) > 0) {
    }
    assert_int_equal(errno, EAGAIN);
    assert_int_equal(fcntl(fds[1], F_SETFL, fl), 0);
    *out = fdopen(fds[1], "w");
    assert_non_null(*out);
}

/* Everything fd gives until EOF (the write end closed), as a string. */
static char *read_all(int fd)
{
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 4096 + 1 > cap) buf = realloc(buf, cap *= 2);
        ssize_t k = read(fd, buf + len, 4096);
        if (k <= 0) break;
        len += (size_t)k;
    }
    buf[len] = '\0';
    return buf;
}

typedef struct reader {
    int fd;
    char *text;
    pthread_t thread;
} reader_t;

static void *reader_main(void *arg)
{
    reader_t *r = arg;
    r->text = read_all(r->fd);
    return NULL;
}

static void test_lines_in_order(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    FILE *out = fdopen(fds[1], "w");
    reader_t r = {.fd = fds[0]};
    assert_int_equal(pthread_create(&r.thread, NULL, reader_main, &r), 0);
    logq_t *q = logq_open(out, 1 << 20); /* room for them all: none dropped */
    assert_non_null(q);
    for (int i = 0; i < 2000; i++) {
        fprintf(logq_stream(q), "line %d of the log\n", i);
        if (i % 7 == 0) fflush(logq_stream(q));
    }
    assert_int_equal(logq_dropped(q), 0);
    assert_true(logq_close(q, 10000, NULL));
    fclose(out);
    pthread_join(r.thread, NULL);
    char *p = r.text;
    for (int i = 0; i < 2000; i++) { /* every line, whole, in order */
        char want[64];
        int n = snprintf(want, sizeof want, "line %d of the log\n", i);
        if (strncmp(p, want, (size_t)n) != 0) fail_msg("line %d: '%.40s'", i, p);
        p += n;
    }
    assert_string_equal(p, "");
    free(r.text);
    close(fds[0]);
}

typedef struct writer {
    logq_t *q;
    int lines;
    atomic_bool done;
} writer_t;

static void *writer_main(void *arg)
{
    writer_t *w = arg;
    for (int i = 0; i < w->lines; i++) {
        fprintf(logq_stream(w->q), "stalled line %d of the log\n", i);
        fflush(logq_stream(w->q));
    }
    atomic_store(&w->done, true);
    return NULL;
}

static void test_stalled_log_never_blocks(void **state)
{
    (void)state;
    int fds[2];
    FILE *out;
    full_pipe(fds, &out);
    logq_t *q = logq_open(out, 4096);
    assert_non_null(q);
    /* 28 bytes a line: 20,000 lines are 560 kB, the queue holds 4 kB and
     * the pipe nothing more: without the queue the writer would block */
    writer_t w = {.q = q, .lines = 20000};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, writer_main, &w), 0);
    for (int i = 0; i < 3000 && !atomic_load(&w.done); i++) tu_sleep_ms(10);
    if (!atomic_load(&w.done)) fail_msg("a writer waited for a stalled log (30 s)");
    pthread_join(t, NULL);
    uint64_t dropped = logq_dropped(q);
    assert_true(dropped > 0 && dropped < 20000);
    /* the log takes data again: what was queued and the count go out */
    reader_t r = {.fd = fds[0]};
    assert_int_equal(pthread_create(&r.thread, NULL, reader_main, &r), 0);
    assert_true(logq_flush(q, 10000));
    fprintf(logq_stream(q), "after the stall\n");
    assert_true(logq_close(q, 10000, NULL));
    fclose(out);
    pthread_join(r.thread, NULL);
    /* the count, told in one line or more (one per time the thread
     * found drops untold) */
    uint64_t told = 0;
    for (const char *p = r.text; (p = strstr(p, "ggp serve: ")); p++) {
        unsigned long long n;
        if (sscanf(p, "ggp serve: %llu log line", &n) == 1) told += n;
    }
    assert_int_equal(told, dropped);
    assert_non_null(strstr(r.text, "stalled line 0 of the log\n")); /* queued first */
    assert_non_null(strstr(r.text, "after the stall\n"));
    free(r.text);
    close(fds[0]);
}

static void test_close_gives_up_on_a_blocked_log(void **state)
{
    (void)state;
    int fds[2];
    FILE *out;
    full_pipe(fds, &out);
    logq_t *q = logq_open(out, 4096);
    assert_non_null(q);
    fprintf(logq_stream(q), "the last line\n");
    uint64_t t0 = clock_now_ns();
    assert_false(logq_close(q, 200, NULL)); /* out still blocks: the thread is left to finish */
    assert_true(clock_now_ns() - t0 < 20000000000ULL);
    /* the log takes data again: the left thread writes its line and frees
     * the queue (AddressSanitizer would tell a leak or a use after free);
     * out stays open: the left thread may still be inside its write(2),
     * and nothing says when it is not (as `ggp serve` leaves its log) */
    logq_test_left_open = out;
    char *text = NULL;
    size_t len = 0;
    for (int i = 0; i < 1000 && !(text && strstr(text, "the last line\n")); i++) {
        char buf[4096];
        ssize_t k = read(fds[0], buf, sizeof buf);
        if (k <= 0) break;
        text = realloc(text, len + (size_t)k + 1);
        memcpy(text + len, buf, (size_t)k);
        len += (size_t)k;
        text[len] = '\0';
    }
    assert_non_null(text);
    assert_non_null(strstr(text, "the last line\n"));
    free(text);
    close(fds[0]);
}

/* `ggp serve --log FIFO`: the FIFO opened for reading first (so that the
 * player's open for writing does not wait; O_CLOEXEC: the player holds no
 * reader of its own), not read. Returns the read end. */
static int serve_with_fifo_log(const char *name, serve_proc_t *p)
{
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/%s", tmpdir, name);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int rfd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    assert_true(rfd >= 0);
    assert_true(serve_start(p, fifo, NULL));
    return rfd;
}

/* n requests of body, each answered 200 within 5 s. */
static void requests_answered(uint16_t port, const char *body, int n)
{
    for (int i = 0; i < n; i++) {
        bool eof;
        char *r = raw_post(port, "1.0", body, 5000, &eof);
        if (!r || raw_status(r) != 200)
            fail_msg("request %d not answered in 5 s: '%s'", i, r ? r : "(no connection)");
        free(r);
    }
}

/* `ggp serve --log FIFO` where nobody reads the FIFO: once the pipe is
 * full (64 kB, about 650 request lines), every request must still be
 * answered at once. 1,500 INFOs log about 150 kB, which the queue holds
 * (1 MB): once the log is read again, every line is there. */
static void test_serve_answers_with_a_stalled_log(void **state)
{
    (void)state;
    serve_proc_t p;
    int rfd = serve_with_fifo_log("log.fifo", &p);
    requests_answered(p.port, "( info )", 1500);
    /* the log is read again and the player stops: every line goes out */
    assert_int_equal(fcntl(rfd, F_SETFL, fcntl(rfd, F_GETFL) & ~O_NONBLOCK), 0);
    reader_t r = {.fd = rfd};
    assert_int_equal(pthread_create(&r.thread, NULL, reader_main, &r), 0);
    procs_reap(p.pid);
    pthread_join(r.thread, NULL);
    int infos = 0;
    for (const char *q = r.text; (q = strstr(q, " kind=info ")); q++) infos++;
    assert_int_equal(infos, 1500);
    assert_null(strstr(r.text, "dropped"));
    assert_non_null(strstr(r.text, "ggp serve: stopping on signal"));
    free(r.text);
    close(rfd);
}

/* SIGTERM, then the player's exit status within 10 s (-1: still running,
 * then killed). */
static int stop_and_wait(pid_t pid)
{
    kill(pid, SIGTERM);
    for (int i = 0; i < 1000; i++) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            for (int j = 0; j < PROCS_MAX; j++)
                if (procs_pids[j] == pid) procs_pids[j] = 0;
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        tu_sleep_ms(10);
    }
    procs_reap(pid);
    return -1;
}

/* A log that stays blocked does not keep the player from exiting: its
 * queue's thread is left behind (it blocks in write(2), holding no stdio
 * lock that exit() would wait for). */
static void test_serve_exits_with_a_blocked_log(void **state)
{
    (void)state;
    serve_proc_t p;
    int rfd = serve_with_fifo_log("blocked.fifo", &p);
    requests_answered(p.port, "( info )", 1000); /* about 100 kB: the pipe is full */
    assert_int_equal(stop_and_wait(p.pid), 0);
    close(rfd);
}

/* A log that fails while the player serves (its reader gone: EPIPE) is
 * reported at exit, with the usage status, as a log file that cannot be
 * written is at start. */
static void test_serve_reports_a_failed_log(void **state)
{
    (void)state;
    serve_proc_t p;
    close(serve_with_fifo_log("failed.fifo", &p)); /* its only reader */
    requests_answered(p.port, "( ping )", 20); /* the replies go on */
    assert_int_equal(stop_and_wait(p.pid), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_in_order),
        cmocka_unit_test(test_stalled_log_never_blocks),
        cmocka_unit_test(test_close_gives_up_on_a_blocked_log),
        cmocka_unit_test_teardown(test_serve_answers_with_a_stalled_log, procs_reap_all),
        cmocka_unit_test_teardown(test_serve_exits_with_a_blocked_log, procs_reap_all),
        cmocka_unit_test_teardown(test_serve_reports_a_failed_log, procs_reap_all),
    };
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ggp_test_logq_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? failed : 1;
}
