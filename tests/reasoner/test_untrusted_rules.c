/* test_untrusted_rules.c - rules are untrusted input (a START message
 * carries them): the limits of the reasoner are clean errors, never an
 * abort. A function term wider than GDL_MAX_ARITY is refused at its token
 * by `ggp check` and by every command that compiles; one exactly
 * GDL_MAX_ARITY wide, and a term nested as deep as the reader allows, play
 * on both engines; a full term store makes interning fail, not abort. */
#include "testutil.h"

#include <unistd.h>

#include "reasoner/terms.h"

/* A one-player game whose initial state is (p ARG...) with n arguments,
 * or, with deep > 0, (p (f (f ... x))) nested deep times. */
static char *write_game(const char *tag, uint32_t n, uint32_t deep)
{
    char *path = malloc(256);
    snprintf(path, 256, "/tmp/ggp_untrusted_%s_%d.kif", tag, (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("(role a)\n(init (p", f);
    if (deep) {
        for (uint32_t i = 0; i < deep; i++) fputs(" (f", f);
        fputs(" x", f);
        for (uint32_t i = 0; i < deep; i++) fputc(')', f);
    } else {
        for (uint32_t i = 0; i < n; i++) fputs(" x", f);
    }
    fputs("))\n(<= (legal a noop) (true (p", f);
    if (deep) fputs(" ?y", f);
    else
        for (uint32_t i = 0; i < n; i++) fputs(" ?y", f);
    fputs(")))\n(<= (next (q 1)) (true (p", f);
    if (deep) fputs(" ?z", f);
    else
        for (uint32_t i = 0; i < n; i++) fputs(" ?z", f);
    fputs(")))\n(<= (goal a 100) (true (q 1)))\n(<= (goal a 0) (not (true (q 1))))\n"
          "(<= terminal (true (q 1)))\n",
          f);
    fclose(f);
    return path;
}

/* Run `ggp ARGS` (a shell fragment); the exit status, -1 for a signal. */
static int run_ggp(const char *args, char **out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s", GGP_BIN, args);
    return tu_run(cmd, out);
}

static void test_too_wide_a_term_is_an_error(void **state)
{
    (void)state;
    char *path = write_game("wide", GDL_MAX_ARITY + 1, 0), args[1024], *out;
    snprintf(args, sizeof args, "check '%s'", path);
    int rc = run_ggp(args, &out);
    printf("%.300s\n", out);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, ":2:7: error: function 'p' has 65536 arguments: at most 65535 are supported"));
    free(out);
    /* Commands that compile refuse it the same way, on either engine. */
    for (int e = 0; e < 2; e++) {
        snprintf(args, sizeof args, "perft '%s' --depth 1 --engine %s", path, e ? "propnet" : "rules");
        rc = run_ggp(args, &out);
        assert_true(rc > 0);
        assert_non_null(strstr(out, "has 65536 arguments: at most 65535 are supported"));
        assert_null(strstr(out, "fatal"));
        free(out);
    }
    unlink(path);
    free(path);
}

static void test_widest_and_deepest_terms_play(void **state)
{
    (void)state;
    char *paths[2] = {write_game("widest", GDL_MAX_ARITY, 0), write_game("deepest", 0, 4000)};
    for (int k = 0; k < 2; k++)
        for (int e = 0; e < 2; e++) {
            char args[1024], *out;
            snprintf(args, sizeof args, "perft '%s' --depth 2 --engine %s", paths[k], e ? "propnet" : "rules");
            int rc = run_ggp(args, &out);
            if (rc != 0) fail_msg("%s: exit %d: %.500s", args, rc, out);
            assert_non_null(strstr(out, "depth 1: paths=1 states=1 terminals=1"));
            free(out);
        }
    unlink(paths[0]);
    unlink(paths[1]);
    free(paths[0]);
    free(paths[1]);
}

/* A full store (here one chunk) and a term wider than TS_MAX_ARITY: 0 and
 * the full flag, no abort; terms interned before stay readable. */
static void test_full_term_store_fails_cleanly(void **state)
{
    (void)state;
    symtab_t *st = symtab_new();
    term_store_t *ts = ts_new();
    ts->max_chunks = 1;
    sym_t f = symtab_intern(st, "f", 1);
    tid_t first = ts_const(ts, f), t = first;
    uint32_t n = 0;
    while (t && n < TS_CHUNK_WORDS) t = ts_intern(ts, f, 1, &(tid_t){t}), n++;
    assert_int_equal(t, 0);
    assert_true(ts->full);
    assert_true(n > TS_CHUNK_WORDS / 4);
    assert_int_equal(ts_functor(ts, first), f);
    ts_free(ts);

    ts = ts_new();
    tid_t *wide = calloc(TS_MAX_ARITY + 1, sizeof *wide);
    for (uint32_t i = 0; i <= TS_MAX_ARITY; i++) wide[i] = first;
    assert_int_equal(ts_intern(ts, f, TS_MAX_ARITY + 1, wide), 0);
    assert_true(ts->full);
    free(wide);
    ts_free(ts);
    symtab_free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_too_wide_a_term_is_an_error),
        cmocka_unit_test(test_widest_and_deepest_terms_play),
        cmocka_unit_test(test_full_term_store_fails_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
