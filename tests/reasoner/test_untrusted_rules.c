/* test_untrusted_rules.c - rules are untrusted input (a START message
 * carries them): the limits of the reasoner are clean errors, never an
 * abort. A function term wider than GDL_MAX_ARITY is refused at its token
 * by `ggp check` and by every command that compiles; one exactly
 * GDL_MAX_ARITY wide, and a term nested as deep as the reader allows, play
 * on both engines; a full term store makes interning fail, not abort. */
#include "testutil.h"

#include <unistd.h>

#include "reasoner/game.h"
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

/* `ggp perft FILE --depth D` on both engines: each output holds want;
 * ok: exit 0, else an error exit (and never "fatal"). */
static void perft_both(const char *path, int depth, bool ok, const char *want)
{
    for (int e = 0; e < 2; e++) {
        char args[1024], *out;
        snprintf(args, sizeof args, "perft '%s' --depth %d --engine %s", path, depth, e ? "propnet" : "rules");
        int rc = run_ggp(args, &out);
        if (ok ? rc != 0 : rc <= 0) fail_msg("%s: exit %d: %.500s", args, rc, out);
        if (!strstr(out, want)) fail_msg("%s: no '%s' in: %.500s", args, want, out);
        assert_null(strstr(out, "fatal"));
        free(out);
    }
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
    perft_both(path, 1, false, "has 65536 arguments: at most 65535 are supported");
    unlink(path);
    free(path);
}

static void test_widest_and_deepest_terms_play(void **state)
{
    (void)state;
    char *paths[2] = {write_game("widest", GDL_MAX_ARITY, 0), write_game("deepest", 0, 4000)};
    for (int k = 0; k < 2; k++) perft_both(paths[k], 2, true, "depth 1: paths=1 states=1 terminals=1");
    unlink(paths[0]);
    unlink(paths[1]);
    free(paths[0]);
    free(paths[1]);
}

static char *write_text(const char *tag, const char *text)
{
    char *path = malloc(256);
    snprintf(path, 256, "/tmp/ggp_untrusted_%s_%d.kif", tag, (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define OR_GAME                                                                                                        \
    "(role a)\n(init (s0))\n(<= (legal a go) (true (s0)))\n(<= (next (s3)) (true (s0)))\n"                           \
    "(<= (goal a 100) (true (s3)))\n(<= (goal a 0) (not (true (s3))))\n"

/* An or nested three deep keeps its meaning: the rules compiler once
 * flattened two levels and dropped the third, so this game's terminal
 * rule had an empty body and the initial state was terminal. */
static void test_nested_or_keeps_its_meaning(void **state)
{
    (void)state;
    char *path = write_text("nested_or", OR_GAME "(<= terminal (or (true (s1)) (or (true (s2)) (or (true (s4))"
                                                 " (true (s3))))))\n");
    perft_both(path, 1, true, "depth 1: paths=1 states=1 terminals=1");
    unlink(path);
    free(path);
}

/* Forty two-way ors in one body would be 2^40 rules: a clear error at
 * the rule, on either engine, not memory exhausted. */
static void test_or_blowup_is_an_error(void **state)
{
    (void)state;
    char text[4096] = OR_GAME "(<= terminal (true (s3)))\n(<= (legal a stay) (true (s0))";
    for (int i = 0; i < 40; i++) strcat(text, " (or (true (s1)) (true (s2)))");
    strcat(text, ")\n");
    char *path = write_text("or_blowup", text);
    perft_both(path, 1, false, ":8:1: error: the 'or's of this rule expand it into too many rules");
    unlink(path);
    free(path);
}

/* A move as wide (1,000 arguments) or as deep (1,000 levels) as the rules
 * may make one is read back from its text, as a manager sends it in PLAY:
 * such moves got "bad joint move" (the reader stopped at 64 of either),
 * and the match stood still. */
/* Compile l with opt (failing the test with the diagnostics if it does
 * not) and set a new context to the initial state. */
static game_ctx_t *start_game(const tu_rules_t *l, const game_options_t *opt, game_t **g, game_state_t **s)
{
    tu_diag_t td;
    tu_diag_open(&td);
    *g = game_compile(l->prog, opt, &td.d);
    if (!*g) fail_msg("does not compile: %s", tu_diag_text(&td));
    tu_diag_close(&td);
    game_ctx_t *c = game_ctx_new(*g);
    *s = game_state_new(*g);
    game_initial(c, *s);
    game_ctx_set_state(c, *s);
    return c;
}

static void move_text(char *out, int deep, int n)
{
    char *p = out + sprintf(out, "(m");
    for (int i = 0; i < n; i++) p += sprintf(p, deep ? " (f" : " x");
    if (deep) p += sprintf(p, " x");
    for (int i = 0; i < n * deep; i++) *p++ = ')';
    strcpy(p, ")");
}

static void test_wide_and_deep_moves_read_back(void **state)
{
    (void)state;
    enum { N = 1000 };
    size_t cap = 64 * N + 1024;
    char *text = malloc(cap), *mv = malloc(cap);
    for (int k = 0; k < 2; k++) {
        move_text(mv, k, N);
        snprintf(text, cap,
                 "(role a)\n(init (s0))\n(legal a %s)\n(<= (next (s1)) (true (s0)))\n"
                 "(<= terminal (true (s1)))\n(<= (goal a 100) (true (s1)))\n(<= (goal a 0) (true (s0)))\n",
                 mv);
        tu_rules_t l;
        tu_rules_text(k ? "deep" : "wide", text, &l);
        for (int e = 0; e < 2; e++) {
            game_options_t opt = {.engine = e ? ENGINE_PROPNET : ENGINE_RULES, .quiet = true};
            game_t *g;
            game_state_t *s;
            game_ctx_t *c = start_game(&l, &opt, &g, &s);
            const move_id_t *legal;
            assert_int_equal(game_legal(c, 0, &legal), 1);
            move_id_t got = UINT32_MAX;
            if (!game_move_from_text(c, 0, mv, strlen(mv), &got)) fail_msg("%s move not read back", k ? "deep" : "wide");
            assert_int_equal(got, legal[0]);
            /* one argument fewer is no move of this game */
            char *shorter = malloc(cap);
            move_text(shorter, k, N - 1);
            assert_false(game_move_from_text(c, 0, shorter, strlen(shorter), &got));
            free(shorter);
            game_state_free(s);
            game_ctx_free(c);
            game_free(g);
        }
        tu_rules_free(&l);
    }
    free(text);
    free(mv);
}

/* A state whose legal moves are a product of four 50-value domains (6.25
 * million moves) stays within the memory budget of a rules-engine context
 * (here 16 MB): its results are incomplete (fewer moves) and said so, where
 * the context once stored them all (with 100-value domains and six
 * arguments, 10^12: every byte of the machine during a match). */
static void test_rules_context_memory_is_bounded(void **state)
{
    (void)state;
    char text[8192] = "(role a)\n(init (s0))\n(<= (legal a go) (true (s0)))\n"
                      "(<= (legal a (m ?w ?x ?y ?z)) (true (s1)) (d ?w) (d ?x) (d ?y) (d ?z))\n"
                      "(<= (next (s1)) (true (s0)))\n(<= (next (s1)) (true (s1)))\n"
                      "(<= terminal (true (s2)))\n(<= (goal a 0) (true (s0)))\n(<= (goal a 0) (true (s1)))\n";
    for (int i = 0; i < 50; i++) sprintf(text + strlen(text), "(d %d)\n", i);
    tu_rules_t l;
    tu_rules_text("product", text, &l);
    game_options_t opt = {.engine = ENGINE_RULES, .static_mb = 16, .quiet = true};
    game_t *g;
    game_state_t *s;
    game_ctx_t *c = start_game(&l, &opt, &g, &s);
    const move_id_t *legal;
    assert_int_equal(game_legal(c, 0, &legal), 1);
    game_ctx_play(c, legal);
    uint32_t n = game_legal(c, 0, &legal);
    printf("legal moves at s1 within 16 MB: %u of 6250000\n", n);
    assert_true(n > 0);
    assert_true(n < 6250000);
    game_state_free(s);
    game_ctx_free(c);
    game_free(g);
    tu_rules_free(&l);
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
        cmocka_unit_test(test_nested_or_keeps_its_meaning),
        cmocka_unit_test(test_or_blowup_is_an_error),
        cmocka_unit_test(test_wide_and_deep_moves_read_back),
        cmocka_unit_test(test_rules_context_memory_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
