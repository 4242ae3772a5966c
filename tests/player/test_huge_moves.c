/* test_huge_moves.c - issue 13 item 5 over loopback: a game whose `legal`
 * gives each role 40^4 = 2,560,000 moves (tests/player/huge_moves.kif)
 * played by two `ggp serve` players under `ggp match --startclock 8
 * --playclock 10` (before the fix START took 12.3 s and PLAY 11.8 s).
 * Every reply must come on time: START `ready` even while the rules still
 * compile, PLAY a legal move. The record then has no TO (late) and no IL
 * (illegal) entry. A reply is on time by construction now (the handler
 * never waits past its deadline); a legal one needs the rules loaded and
 * our 2.56 M moves listed: under ASan with both players on two cores that
 * is 12 s of the 18 the clocks give, hence the 10 s play clock. A PLAY
 * answered on time while the rules are still loading (noop, logged as a
 * guess: seen with CI pinned to one core) is reported, not failed.
 * The manager's own load is outside the clocks: it uses the rules engine
 * (about 5 s here, against 14 s for auto's propnet), and `timeout 300`
 * only guards against a hang (CI under ASan: the manager's auto load took
 * 64 s and a 90 s bound killed a completed match). */
#include "testutil.h"

#include <unistd.h>

#include "procs.h"
#include "rawhttp.h"

static void test_huge_move_sets_reply_on_time(void **state)
{
    (void)state;
    procs_require_manager();
    char cmd[2048];
    char log1[300], log2[300], rec[300];
    snprintf(log1, sizeof log1, "%s/p1.log", procs_tmpdir());
    snprintf(log2, sizeof log2, "%s/p2.log", procs_tmpdir());
    snprintf(rec, sizeof rec, "%s/rec.json", procs_tmpdir());
    serve_proc_t a, b;
    assert_true(serve_start(&a, log1, NULL));
    assert_true(serve_start(&b, log2, NULL));
    snprintf(cmd, sizeof cmd,
             "timeout 300 %s match %s/tests/player/huge_moves.kif --engine rules --startclock 8 --playclock 10 --out %s %s %s",
             GGP_BIN, GGP_SOURCE_DIR, rec, a.url, b.url);
    char *out = NULL;
    int rc = tu_run(cmd, &out);
    printf("%s", out ? out : "");
    assert_int_equal(rc, 0);
    char *json = tu_read_file(rec);
    assert_non_null(json);
    char **errors;
    int rows;
    int n = json_strings(json, "errors", &errors, &rows);
    assert_true(n >= 2);
    /* A player whose rules are still loading at a PLAY (an overloaded
     * machine: one core for both players, the manager and other tests)
     * answers on time with a guess, noop, and logs it: that is the
     * designed fallback, reported here. Any other illegal reply fails, as
     * does every late one. */
    int guesses = count_lines_with(log1, ": a guess") + count_lines_with(log2, ": a guess"), noops = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(errors[i], "IL noop") && ++noops <= guesses)
            printf("note: record error %d: '%s', a player's logged guess while its rules loaded\n", i, errors[i]);
        else if (!strcmp(errors[i], "TO") || !strncmp(errors[i], "IL", 2))
            fail_msg("record error %d: '%s' (player logs in %s)", i, errors[i], procs_tmpdir());
        else if (errors[i][0])
            printf("note: record error %d: '%s'\n", i, errors[i]);
    json_strings_free(errors, n);
    assert_non_null(strstr(json, "\"isCompleted\":true"));
    free(json);
    free(out);
    procs_reap(a.pid);
    procs_reap(b.pid);
}

/* SIGINT while a START's rules are still compiling (start clock 60 s):
 * `ggp serve` exits within seconds, not when the clock or the load ends
 * (before the fix: 28.9 s with a 30 s clock). */
static void test_sigint_during_load_stops_promptly(void **state)
{
    (void)state;
    char log[300];
    snprintf(log, sizeof log, "%s/sig.log", procs_tmpdir());
    serve_proc_t a;
    assert_true(serve_start(&a, log, NULL));
    char path[512];
    snprintf(path, sizeof path, "%s/tests/player/huge_moves.kif", GGP_SOURCE_DIR);
    char *rules = tu_read_file(path);
    assert_non_null(rules);
    for (char *p = rules; *p; p++) /* one line, without the ; comments */
        if (*p == ';')
            while (*p && *p != '\n') *p++ = ' ';
    size_t n = strlen(rules) + 512;
    char *body = malloc(n), *req = malloc(n + 512);
    snprintf(body, n, "(start m1 red (%s) 60 10)", rules);
    int k = snprintf(req, n + 512,
                     "POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: %zu\r\n\r\n%s", strlen(body),
                     body);
    int fd = raw_connect(a.port);
    assert_true(fd >= 0);
    assert_true(raw_send(fd, req, (size_t)k));
    /* The START is being handled once INFO says busy. */
    bool busy = false;
    for (int i = 0; i < 200 && !busy; i++) {
        bool eof;
        char *r = raw_post(a.port, "1.0", "(info)", 2000, &eof);
        busy = r && strstr(raw_body(r), "busy");
        free(r);
        if (!busy) tu_sleep_ms(10);
    }
    assert_true(busy);
    uint64_t t0 = clock_now_ns();
    kill(a.pid, SIGINT);
    int status = -1;
    pid_t got = 0;
    while ((got = waitpid(a.pid, &status, WNOHANG)) == 0 && clock_now_ns() - t0 < 30000000000ULL) tu_sleep_ms(10);
    double secs = (double)(clock_now_ns() - t0) / 1e9;
    printf("note: ggp serve exited %.2f s after SIGINT\n", secs);
    assert_int_equal(got, a.pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(secs < 10.0);
    /* the load was still running, and the log says so to its last line:
     * the process now ends there without returning (a load reads what the
     * command's frame holds), and loses nothing written before */
    char *text = tu_read_file(log);
    assert_non_null(text);
    assert_non_null(strstr(text, "stopping on signal"));
    assert_non_null(strstr(text, "exiting while rules are still loading"));
    free(text);
    close(fd);
    free(req);
    free(body);
    free(rules);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_huge_move_sets_reply_on_time, procs_reap_all),
        cmocka_unit_test_teardown(test_sigint_during_load_stops_promptly, procs_reap_all),
    };
    return cmocka_run_group_tests(tests, procs_make_tmpdir, procs_remove_tmpdir);
}
