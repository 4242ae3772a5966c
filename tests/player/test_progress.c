/* test_progress.c - what the program says while it works: a rule file
 * that takes more than 2 s to load says what is being done (one whole line
 * on stderr, then when it is done); no '\r' progress frames on a stderr
 * that is not a terminal (tournament); and the CI scripts keep apt quiet
 * and free of questions. (`ggp match`'s line per step: test_match.c.) */
#include "testutil.h"

#include <unistd.h>

static void test_slow_load_says_what_it_does(void **state)
{
    (void)state;
    const char *dir = tu_shared("games");
    char path[1024];
    snprintf(path, sizeof path, "%s/chess.kif", dir ? dir : "");
    if (!dir || access(path, R_OK) != 0) {
        printf("note: no chess.kif (grounding takes its 10 s budget); skipping\n");
        skip();
        return;
    }
    char cmd[2048], *out;
    snprintf(cmd, sizeof cmd, "('%s' perft '%s' --depth 1 >/dev/null)", GGP_BIN, path);
    assert_int_equal(tu_run(cmd, &out), 0);
    printf("%s", out);
    char want[1200];
    snprintf(want, sizeof want, "ggp perft: loading %s: grounding the rules", path);
    const char *notice = strstr(out, want);
    assert_non_null(notice);
    /* "... (2.0 s)": said once 2 s have passed (a loaded machine may be late) */
    const char *eol = strchr(notice, '\n'), *paren = eol;
    while (paren > notice && *paren != '(') paren--;
    double sec = 0;
    assert_int_equal(sscanf(paren, "(%lf s)", &sec), 1);
    assert_true(sec >= 2.0 && sec < 10.0); /* the next notice would say 12 s */
    assert_true(eol[-1] == ')');
    snprintf(want, sizeof want, "ggp perft: loading %s: done after ", path);
    assert_non_null(strstr(out, want));
    assert_null(strchr(out, '\r'));
    free(out);
}

static void test_fast_load_is_silent(void **state)
{
    (void)state;
    char cmd[2048], *out;
    snprintf(cmd, sizeof cmd, "('%s' perft '%s/games/tictactoe.kif' --depth 1 >/dev/null)", GGP_BIN, GGP_SOURCE_DIR);
    assert_int_equal(tu_run(cmd, &out), 0);
    assert_null(strstr(out, "loading"));
    free(out);
}

static void test_no_carriage_returns_off_a_terminal(void **state)
{
    (void)state;
    char cmd[2048], *out;
    snprintf(cmd, sizeof cmd, "'%s' tournament '%s/games/tictactoe.kif' --a random --b random --games 4 </dev/null",
             GGP_BIN, GGP_SOURCE_DIR);
    assert_int_equal(tu_run(cmd, &out), 0);
    if (strchr(out, '\r')) fail_msg("a '\\r' in the output of a tournament to a pipe:\n%s", out);
    free(out);
}

static void test_ci_apt_is_quiet(void **state)
{
    (void)state;
    char *deps = tu_read_file(GGP_SOURCE_DIR "/.ci/deps.sh");
    assert_non_null(deps);
    unsigned n = 0;
    for (const char *p = deps; (p = strstr(p, "apt-get ")); p++, n++) {
        const char *bol = p, *eol = strchr(p, '\n');
        while (bol > deps && bol[-1] != '\n') bol--;
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(eol - bol), bol);
        if (!strstr(line, "-qq") || !strstr(line, "DEBIAN_FRONTEND=noninteractive"))
            fail_msg(".ci/deps.sh: apt-get without -qq or DEBIAN_FRONTEND=noninteractive: %s", line);
    }
    assert_true(n >= 2);
    free(deps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slow_load_says_what_it_does),
        cmocka_unit_test(test_fast_load_is_silent),
        cmocka_unit_test(test_no_carriage_returns_off_a_terminal),
        cmocka_unit_test(test_ci_apt_is_quiet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
