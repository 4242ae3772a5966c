/* test_server.c - the player's HTTP layer over loopback: GGP-Base's and
 * Dresden's ways of talking (HTTP/1.0, read until close, upper case), the
 * reply headers of §5.1, OPTIONS and GET, keep-alive ignored,
 * `Expect: 100-continue`, bodies in many segments, oversized and malformed
 * requests, idle connections; slow clients dropped at their header and
 * body deadlines, the oldest unfinished connection dropped to make room,
 * the reply deadline counted from the accept (issue 13); the server must
 * answer them all and keep serving (shared/docs/gdl-protocol.md §5.1,
 * pitfalls 13-17). Uses the
 * stand-in engine of standin.h. */
#include "testutil.h"

#include <signal.h>
#include <time.h>

#include "player/proto/server.h"
#include "rawhttp.h"
#include "standin.h"

#define MAX_BODY 4096

typedef struct fixture {
    standin_cfg_t cfg;
    match_engine_t engine;
    session_t *s;
    server_t *sv;
    uint16_t port;
    FILE *log;
    char *log_text;
    size_t log_len;
} fixture_t;

static int setup_body(void **state, size_t max_body)
{
    fixture_t *f = calloc(1, sizeof *f);
    standin_engine(&f->engine, &f->cfg);
    f->log = open_memstream(&f->log_text, &f->log_len);
    /* A quick stand-in (its search ends after 20 ms) and 3 s clocks: a
     * loaded sanitizer run has seconds to schedule the search's thread. */
    atomic_store(&f->cfg.search_ms, 20);
    session_config_t sc = {.name = "httptest", .margin_ms = 900, .engine = &f->engine, .log = f->log, .seed = 3};
    f->s = session_new(&sc);
    char err[200];
    server_config_t cfg = {.bind = "127.0.0.1", .port = 0, .max_body = max_body, .session = f->s};
    f->sv = server_start(&cfg, err, sizeof err);
    if (!f->sv) fail_msg("server_start: %s", err);
    f->port = server_port(f->sv);
    assert_true(f->port != 0);
    *state = f;
    return 0;
}

static int setup(void **state) { return setup_body(state, MAX_BODY); }

static int setup_mb(void **state) { return setup_body(state, 1 << 20); }

static int teardown(void **state)
{
    fixture_t *f = *state;
    server_stop(f->sv);
    session_free(f->s);
    fclose(f->log);
    free(f->log_text);
    free(f);
    return 0;
}

/* POST body with HTTP/1.0 and check a 200 reply equal to expect. */
static void post_expect(fixture_t *f, const char *body, const char *expect)
{
    bool eof;
    char *r = raw_post(f->port, "1.0", body, 5000, &eof);
    assert_non_null(r);
    assert_true(eof);
    if (raw_status(r) != 200 || strcmp(raw_body(r), expect))
        fail_msg("'%s' -> '%s', expected 200 '%s'", body, r, expect);
    free(r);
}

static void test_ggpbase_http10(void **state)
{
    fixture_t *f = *state;
    bool eof;
    char *r = raw_post(f->port, "1.0", "( INFO )", 5000, &eof);
    assert_non_null(r);
    /* Read until close (Dresden): the server closed the connection. */
    assert_true(eof);
    assert_int_equal(raw_status(r), 200);
    assert_string_equal(raw_body(r), "((name httptest) (status available))");
    assert_true(raw_has_header(r, "Content-Type", "text/acl"));
    assert_true(raw_has_header(r, "Content-Length", "36"));
    assert_true(raw_has_header(r, "Access-Control-Allow-Origin", "*"));
    assert_true(raw_has_header(r, "Access-Control-Allow-Methods", "POST, GET, OPTIONS"));
    assert_true(raw_has_header(r, "Access-Control-Allow-Headers", "Content-Type"));
    assert_true(raw_has_header(r, "Access-Control-Allow-Age", "86400"));
    free(r);
}

static void test_keepalive_is_ignored(void **state)
{
    fixture_t *f = *state;
    const char req[] = "POST /any/path?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n"
                       "Content-Length: 6\r\n\r\n(ping)";
    bool eof;
    char *r = raw_exchange(f->port, req, sizeof req - 1, 5000, &eof);
    assert_non_null(r);
    assert_true(eof); /* one request per connection (pitfall 14) */
    assert_int_equal(raw_status(r), 200);
    assert_string_equal(raw_body(r), "ready");
    free(r);
}

static void test_options_get_and_other_methods(void **state)
{
    fixture_t *f = *state;
    bool eof;
    const char opt[] = "OPTIONS / HTTP/1.1\r\nHost: x\r\nOrigin: http://ggp.org\r\n"
                       "Access-Control-Request-Method: POST\r\n\r\n";
    char *r = raw_exchange(f->port, opt, sizeof opt - 1, 5000, &eof);
    assert_int_equal(raw_status(r), 200);
    assert_string_equal(raw_body(r), "");
    assert_true(raw_has_header(r, "Access-Control-Allow-Origin", "*"));
    assert_true(raw_has_header(r, "Content-Length", "0"));
    free(r);
    const char get[] = "GET /%28info%29 HTTP/1.0\r\n\r\n";
    r = raw_exchange(f->port, get, sizeof get - 1, 5000, &eof);
    assert_int_equal(raw_status(r), 200);
    assert_string_equal(raw_body(r), "((name httptest) (status available))");
    free(r);
    const char root[] = "GET / HTTP/1.0\r\n\r\n";
    r = raw_exchange(f->port, root, sizeof root - 1, 5000, &eof);
    assert_int_equal(raw_status(r), 200);
    assert_string_equal(raw_body(r), "");
    free(r);
    const char del[] = "DELETE / HTTP/1.0\r\n\r\n";
    r = raw_exchange(f->port, del, sizeof del - 1, 5000, &eof);
    assert_int_equal(raw_status(r), 200);
    assert_string_equal(raw_body(r), "");
    free(r);
}

static void test_dresden_match(void **state)
{
    fixture_t *f = *state;
    post_expect(f, "(START DRESDEN.1 BLUE ((ROLE RED) (ROLE BLUE) (LIMIT 2)) 3 3)", "ready");
    post_expect(f, "(INFO)", "((name httptest) (status busy))");
    post_expect(f, "(PLAY DRESDEN.1 NIL)", "(inc 1)");
    post_expect(f, "(PLAY DRESDEN.1 ((INC 1) NOOP))", "(inc 1)");
    post_expect(f, "(STOP DRESDEN.1 (NOOP (INC 1)))", "done");
    post_expect(f, "(INFO)", "((name httptest) (status available))");
}

static void test_expect_100_continue(void **state)
{
    fixture_t *f = *state;
    int fd = raw_connect(f->port);
    assert_true(fd >= 0);
    const char head[] = "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/acl\r\nContent-Length: 6\r\n"
                        "Expect: 100-continue\r\n\r\n";
    assert_true(raw_send(fd, head, sizeof head - 1));
    /* curl waits 1 s for this before sending anyway (pitfall 15): it must
     * come before the body is sent (read until it has, bounded: a loaded
     * sanitizer run may be late). */
    bool eof = false;
    char cont[512] = "";
    for (int i = 0; i < 100 && !eof && !strstr(cont, "100 Continue"); i++) {
        char *part = raw_read_all(fd, 50, &eof);
        strncat(cont, part, sizeof cont - strlen(cont) - 1);
        free(part);
    }
    assert_non_null(strstr(cont, "100 Continue"));
    assert_true(raw_send(fd, "(ping)", 6));
    char *r = raw_read_all(fd, 5000, &eof);
    assert_true(eof);
    assert_non_null(strstr(r, "200 OK"));
    assert_string_equal(raw_body(r), "ready");
    free(r);
    close(fd);
}

static void test_body_in_many_segments(void **state)
{
    fixture_t *f = *state;
    const char *body = "( START seg.1 red ( ( role red ) ( role blue ) ) 1 1 )";
    int fd = raw_connect(f->port);
    char head[256];
    int k = snprintf(head, sizeof head, "POST / HTTP/1.0\r\nContent-Length: %zu\r\n\r\n", strlen(body));
    raw_send(fd, head, (size_t)k);
    for (const char *p = body; *p; p++) {
        raw_send(fd, p, 1);
        tu_sleep_ms(2); /* the scenario: a byte per segment */
    }
    bool eof;
    char *r = raw_read_all(fd, 5000, &eof);
    close(fd);
    assert_string_equal(raw_body(r), "ready");
    free(r);
    post_expect(f, "(abort seg.1)", "done");
}

static void test_oversized_bodies(void **state)
{
    fixture_t *f = *state;
    /* Declared too long: refused from the headers, before the body. */
    int fd = raw_connect(f->port);
    char head[256];
    int k = snprintf(head, sizeof head, "POST / HTTP/1.0\r\nContent-Length: %d\r\n\r\n", 10 * MAX_BODY);
    raw_send(fd, head, (size_t)k);
    bool eof;
    char *r = raw_read_all(fd, 5000, &eof);
    close(fd);
    assert_true(eof);
    assert_int_equal(raw_status(r), 413);
    assert_non_null(strstr(raw_body(r), "over the limit of 4096 bytes"));
    assert_null(strchr(raw_body(r), '\n'));
    free(r);
    /* Chunked, with no length: read up to the cap, then refused. */
    fd = raw_connect(f->port);
    const char ch[] = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    raw_send(fd, ch, sizeof ch - 1);
    char chunk[1100];
    memset(chunk, 'a', sizeof chunk);
    char size_line[32];
    for (int i = 0; i < 6; i++) {
        k = snprintf(size_line, sizeof size_line, "%zx\r\n", sizeof chunk);
        raw_send(fd, size_line, (size_t)k);
        raw_send(fd, chunk, sizeof chunk);
        raw_send(fd, "\r\n", 2);
    }
    raw_send(fd, "0\r\n\r\n", 5);
    r = raw_read_all(fd, 5000, &eof);
    close(fd);
    assert_int_equal(raw_status(r), 413);
    free(r);
    /* Just under the cap is fine. */
    char *big = malloc(MAX_BODY + 1);
    memset(big, ' ', MAX_BODY);
    memcpy(big, "(ping)", 6);
    big[MAX_BODY] = '\0';
    post_expect(f, big, "ready");
    free(big);
    post_expect(f, "(ping)", "ready");
}

/* Only START and PREVIEW carry rules: any other message longer than 64 KB
 * is refused as it arrives (it was buffered to the body limit, here 1 MB,
 * and parsed: about 40 times its size in memory, on each of 32 workers). */
static void test_long_bodies_only_for_rules(void **state)
{
    fixture_t *f = *state;
    size_t n = 200 * 1024;
    char *big = malloc(n + 1);
    const char *heads[] = {"(ping)", "(play m1 nil)", " ( INFO )", "(startx)"};
    for (int i = 0; i < 4; i++) {
        memset(big, ' ', n);
        memcpy(big, heads[i], strlen(heads[i]));
        big[n] = '\0';
        bool eof;
        char *r = raw_post(f->port, "1.0", big, 5000, &eof);
        assert_non_null(r);
        if (raw_status(r) != 413) fail_msg("'%s' + spaces -> '%.200s', expected 413", heads[i], r);
        assert_non_null(strstr(raw_body(r), "only START and PREVIEW (they carry rules) may be longer"));
        free(r);
    }
    /* a START as long (its rules padded): played */
    const char *start = "( START long.1 red ( ( role red ) ( role blue ) ";
    memset(big, ' ', n);
    memcpy(big, start, strlen(start));
    memcpy(big + n - 8, ") 1 1 )", 7);
    post_expect(f, big, "ready");
    post_expect(f, "(abort long.1)", "done");
    free(big);
}

static void test_malformed_requests(void **state)
{
    fixture_t *f = *state;
    post_expect(f, "(start mal.1 red ((role red)) 3 3)", "ready");
    const char *bad[] = {"", "(", ")", "(play mal.1", "hello", "(play mal.1 nil) (info)", "(start x)",
                         "(play nosuchmatch nil)", "\x01\x02\x03"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bool eof;
        char *r = raw_post(f->port, "1.0", bad[i], 5000, &eof);
        assert_true(eof);
        int st = raw_status(r);
        if (st < 400 || st > 499) fail_msg("'%s' -> %d", bad[i], st);
        assert_true(strlen(raw_body(r)) > 0);
        assert_null(strchr(raw_body(r), '\n'));
        free(r);
    }
    /* Not HTTP at all: the server answers or closes, and goes on. */
    bool eof;
    const char junk[] = "HELLO THERE\r\n\r\n";
    char *r = raw_exchange(f->port, junk, sizeof junk - 1, 5000, &eof);
    assert_true(eof);
    free(r);
    /* A client that connects and says nothing does not block others. */
    int idle = raw_connect(f->port);
    assert_true(idle >= 0);
    post_expect(f, "(play mal.1 nil)", "(inc 1)");
    post_expect(f, "(abort mal.1)", "done");
    close(idle);
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "kind=? status=400"));
    assert_non_null(strstr(f->log_text, "match=nosuchmatch kind=play status=404"));
}

/* ---- hostile clients (issue 13) ---- */

/* Serve the fixture's session again with other limits. */
static void restart(fixture_t *f, server_config_t cfg)
{
    server_stop(f->sv);
    cfg.bind = "127.0.0.1";
    cfg.port = 0;
    cfg.max_body = MAX_BODY;
    cfg.session = f->s;
    char err[200];
    f->sv = server_start(&cfg, err, sizeof err);
    if (!f->sv) fail_msg("server_start: %s", err);
    f->port = server_port(f->sv);
}

/* Wait (bounded) until the server has accepted n connections. */
static void wait_accepted(fixture_t *f, uint64_t n)
{
    server_counts_t c;
    for (int i = 0; i < 300; i++) {
        server_counts(f->sv, &c);
        if (c.accepted >= n) return;
        tu_sleep_ms(10);
    }
    fail_msg("the server accepted %llu connections, expected %llu", (unsigned long long)c.accepted,
             (unsigned long long)n);
}

/* An idle connection, a slowloris that sends one more header byte every
 * 50 ms (an idle timeout never fires on it) and a body that stops after
 * a few bytes and then trickles: each is dropped once its header or body
 * deadline has passed, not before, and the server goes on serving. */
static void test_slow_requests_dropped_at_deadline(void **state)
{
    fixture_t *f = *state;
    restart(f, (server_config_t){.header_ms = 300, .body_ms = 300});
    const char *heads[3] = {"", "POST / HTTP/1.0\r\nHost: x\r\nX-Slow: ",
                            "POST / HTTP/1.0\r\nContent-Length: 100\r\n\r\n(pi"};
    int fds[3];
    uint64_t t0 = clock_now_ns(), closed_at[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        fds[i] = raw_connect(f->port);
        assert_true(fds[i] >= 0);
        raw_send(fds[i], heads[i], strlen(heads[i]));
    }
    int open = 3;
    while (open && clock_now_ns() < t0 + 3000000000ULL) {
        struct pollfd pf[3];
        for (int i = 0; i < 3; i++) pf[i] = (struct pollfd){.fd = closed_at[i] ? -1 : fds[i], .events = POLLIN};
        poll(pf, 3, 50);
        for (int i = 0; i < 3; i++) {
            if (closed_at[i]) continue;
            char buf[256];
            ssize_t n = pf[i].revents ? recv(fds[i], buf, sizeof buf, MSG_DONTWAIT) : 1;
            if (n == 0 || (n < 0 && errno != EAGAIN)) {
                closed_at[i] = clock_now_ns();
                open--;
            } else if (i > 0) {
                send(fds[i], "a", 1, MSG_NOSIGNAL);
            }
        }
    }
    for (int i = 0; i < 3; i++) {
        close(fds[i]);
        if (!closed_at[i]) fail_msg("connection %d still open after 3 s", i);
        uint64_t ms = (closed_at[i] - t0) / 1000000ULL;
        if (ms < 250) fail_msg("connection %d dropped after %llu ms, before its deadline", i, (unsigned long long)ms);
    }
    server_counts_t c;
    server_counts(f->sv, &c);
    assert_int_equal(c.dropped_late, 3);
    assert_int_equal(c.dropped_room, 0);
    post_expect(f, "(ping)", "ready");
}

/* Past the limit of one address, or of all, a newcomer gets in and the
 * oldest connection still sending its request is dropped; the others stay. */
static void test_room_made_by_dropping_the_oldest(void **state)
{
    fixture_t *f = *state;
    for (int pass = 0; pass < 2; pass++) {
        restart(f, pass ? (server_config_t){.max_connections = 8} : (server_config_t){.per_address = 8});
        int fds[8];
        for (int i = 0; i < 8; i++) {
            fds[i] = raw_connect(f->port);
            assert_true(fds[i] >= 0);
            if (i % 2) raw_send(fds[i], "POST / HTTP/1.0\r\n", 17);
            wait_accepted(f, (uint64_t)i + 1); /* in this order */
        }
        post_expect(f, "(ping)", "ready");
        bool eof;
        char *r = raw_read_all(fds[0], 3000, &eof);
        assert_true(eof);
        assert_string_equal(r, "");
        free(r);
        for (int i = 1; i < 8; i++) {
            char ch;
            errno = 0;
            if (recv(fds[i], &ch, 1, MSG_DONTWAIT) != -1 || errno != EAGAIN) fail_msg("connection %d was dropped", i);
        }
        /* The newcomer's own connection leaves the table just after it
         * closes: wait (bounded) for that. */
        server_counts_t c;
        for (int i = 0; i < 300; i++) {
            server_counts(f->sv, &c);
            if (c.open <= 7) break;
            tu_sleep_ms(10);
        }
        assert_int_equal(c.dropped_room, 1);
        assert_int_equal(c.dropped_late, 0);
        assert_int_equal(c.open, 7);
        for (int i = 0; i < 8; i++) close(fds[i]);
    }
}

/* The reply deadline counts from the accept (§5.3): a request whose
 * headers come 400 ms after the connection has 400 ms less. */
static void test_deadline_counts_from_accept(void **state)
{
    fixture_t *f = *state;
    int fd = raw_connect(f->port);
    assert_true(fd >= 0);
    tu_sleep_ms(400); /* the scenario: headers late by 400 ms, no event to await */
    const char req[] = "POST / HTTP/1.0\r\nContent-Length: 6\r\n\r\n(info)";
    raw_send(fd, req, sizeof req - 1);
    bool eof;
    char *r = raw_read_all(fd, 3000, &eof);
    close(fd);
    assert_int_equal(raw_status(r), 200);
    free(r);
    fflush(f->log);
    const char *line = strstr(f->log_text, "kind=info status=200 ms=");
    assert_non_null(line);
    long ms = atol(line + strlen("kind=info status=200 ms="));
    /* The server accepts a few ms after connect() returns. */
    if (ms < 300) fail_msg("logged %ld ms, counted from the headers rather than the accept", ms);
}

static void test_bad_bind_address(void **state)
{
    fixture_t *f = *state;
    char err[200];
    server_config_t cfg = {.bind = "not-an-address", .port = 0, .max_body = 100, .session = f->s};
    assert_null(server_start(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "bad bind address"));
    /* The port in use. */
    cfg = (server_config_t){.bind = "127.0.0.1", .port = f->port, .max_body = 100, .session = f->s};
    assert_null(server_start(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "cannot listen"));
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ggpbase_http10, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keepalive_is_ignored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_options_get_and_other_methods, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dresden_match, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expect_100_continue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_body_in_many_segments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oversized_bodies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_bodies_only_for_rules, setup_mb, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_bind_address, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slow_requests_dropped_at_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_room_made_by_dropping_the_oldest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deadline_counts_from_accept, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
