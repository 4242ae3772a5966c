/* test_cli_tools.c - `ggp replay`, `ggp trace` and `ggp perft` run as
 * programs (GGP_BIN) on small games: verdicts and exit codes of replays of
 * good and corrupted traces, trace/replay round trips, perft figures of
 * tic-tac-toe, the fields of `ggp bench`, the board of `ggp play`, option errors (exit 2)
 * and output to a full disk (exit 2, with the reason). */
#include "testutil.h"

#include <unistd.h>

static const char *games_dir;  /* shared/games, or NULL (then tests skip) */
static const char *traces_dir; /* shared/traces, or NULL */

static char *vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    assert_true(n >= 0);
    char *s = malloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return s;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    return s;
}

/* Run a command; returns its exit status and frees or returns its output. */
static int run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *cmd = vformat(fmt, ap);
    va_end(ap);
    char *o = NULL;
    int rc = tu_run(cmd, &o);
    if (out) *out = o;
    else free(o);
    free(cmd);
    return rc;
}

static char *tmp_path(const char *tag)
{
    char *p = xasprintf("/tmp/ggp_cli_tools_%ld_%s", (long)getpid(), tag);
    return p;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *ttt_kif(void) { return xasprintf("%s/ticTacToe.kif", games_dir); }

/* The reference tic-tac-toe trace (the test skips without the corpus). */
static char *ttt_trace_text(void)
{
    tu_skip_unless_shared(games_dir && traces_dir);
    char *p = xasprintf("%s/ticTacToe.1.trace", traces_dir);
    char *t = tu_read_file(p);
    if (!t) {
        printf("note: no %s; skipping\n", p);
        free(p);
        skip();
    }
    free(p);
    return t;
}

/* The first line of text that starts with prefix, or NULL. */
static char *find_line(char *text, const char *prefix)
{
    for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, prefix, strlen(prefix))) return l;
    return NULL;
}

/* Replace the first occurrence of old at or after from, in place
 * (reallocating *text). */
static void replace_at(char **text, char *from, const char *old, const char *new_)
{
    char *p = strstr(from, old);
    assert_non_null(p);
    size_t pre = (size_t)(p - *text), ol = strlen(old), nl = strlen(new_), len = strlen(*text);
    char *r = malloc(len - ol + nl + 1);
    memcpy(r, *text, pre);
    memcpy(r + pre, new_, nl);
    memcpy(r + pre + nl, p + ol, len - pre - ol + 1);
    free(*text);
    *text = r;
}

/* Replay a (modified) trace text; returns the exit status, output in *out. */
static int replay_text(const char *text, const char *tag, char **out)
{
    char *kif = ttt_kif(), *path = tmp_path(tag);
    write_text(path, text);
    int rc = run(out, "%s replay %s %s --quiet", GGP_BIN, kif, path);
    unlink(path);
    free(path);
    free(kif);
    return rc;
}

static void test_replay_reference(void **state)
{
    (void)state;
    tu_skip_unless_shared(games_dir && traces_dir);
    char *out;
    int rc = run(&out, "%s replay %s/ticTacToe.kif %s/ticTacToe.1.trace %s/ticTacToe.2.trace", GGP_BIN, games_dir,
                 traces_dir, traces_dir);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "ticTacToe.1.trace: ok"));
    assert_non_null(strstr(out, "ticTacToe.2.trace: ok"));
    assert_non_null(strstr(out, "replayed 2 traces: 2 ok, 0 failed"));
    free(out);
}

static void test_replay_corrupted_legal(void **state)
{
    (void)state;
    char *t = ttt_trace_text();
    /* At step 3 oplayer moves: drop its first legal move from the trace. */
    char *l = find_line(t, "(step 3 ");
    assert_non_null(l);
    char *lg = strstr(l, "(legal oplayer (mark ");
    assert_non_null(lg);
    char *m = lg + strlen("(legal oplayer ");
    char *me = strchr(m, ')');
    char *dropped = strndup(m, (size_t)(me + 1 - m));
    char *needle = xasprintf("%s ", dropped);
    replace_at(&t, m, needle, "");
    char *out;
    assert_int_equal(replay_text(t, "legal", &out), 1);
    char *want = xasprintf("step 3: legal of oplayer differs: expected nothing got %s (", dropped);
    if (!strstr(out, want)) fail_msg("want '%s' in:\n%s", want, out);
    assert_non_null(strstr(out, "replayed 1 trace: 0 ok, 1 failed"));
    free(want);
    free(out);
    free(needle);
    free(dropped);
    free(t);
}

static void test_replay_corrupted_state(void **state)
{
    (void)state;
    char *t = ttt_trace_text();
    /* Step 4 is xplayer's turn; claim it is oplayer's. */
    replace_at(&t, find_line(t, "(step 4 "), "(control xplayer)", "(control oplayer)");
    char *out;
    assert_int_equal(replay_text(t, "state", &out), 1);
    if (!strstr(out, "step 4: state differs: expected (control oplayer) got (control xplayer)"))
        fail_msg("unexpected output:\n%s", out);
    free(out);
    free(t);
}

static void test_replay_corrupted_goal_and_terminal(void **state)
{
    (void)state;
    char *t = ttt_trace_text();
    char *orig = strdup(t);
    char *term = find_line(t, "(terminal ");
    assert_non_null(term);
    unsigned k = (unsigned)atoi(term + strlen("(terminal "));
    char *g = strstr(term, "(goal xplayer ");
    assert_non_null(g);
    char *ge = strchr(g, ')');
    char *old = strndup(g, (size_t)(ge + 1 - g));
    replace_at(&t, term, old, "(goal xplayer 37)");
    char *out;
    assert_int_equal(replay_text(t, "goal", &out), 1);
    char *want = xasprintf("terminal %u: goal of xplayer differs: expected 37 got ", k);
    if (!strstr(out, want)) fail_msg("want '%s' in:\n%s", want, out);
    free(want);
    free(out);

    /* The terminal line as a step line without moves: the flag differs. */
    free(t);
    t = orig;
    term = find_line(t, "(terminal ");
    char *goals = strstr(term, " (goal ");
    size_t head = (size_t)(term - t);
    char *st = xasprintf("%.*s(step%.*s (legal xplayer) (legal oplayer))\n", (int)head, t,
                         (int)(goals - term - (int)strlen("(terminal")), term + strlen("(terminal"));
    assert_int_equal(replay_text(st, "terminal", &out), 1);
    want = xasprintf("step %u: terminal differs: expected non-terminal got terminal", k);
    if (!strstr(out, want)) fail_msg("want '%s' in:\n%s", want, out);
    free(want);
    free(out);
    free(st);
    free(old);
    free(t);
}

static void test_replay_illegal_move(void **state)
{
    (void)state;
    char *t = ttt_trace_text();
    char *l = find_line(t, "(step 2 ");
    char *d = strstr(l, "(does xplayer ");
    char *mv = d + strlen("(does xplayer ");
    char *de = strchr(mv, ')');
    if (*mv == '(') de = strchr(de + 1, ')'); /* (does xplayer (mark i j)) */
    char *old = strndup(d, (size_t)(de + 1 - d));
    replace_at(&t, l, old, "(does xplayer (mark 4 4))");
    char *out;
    assert_int_equal(replay_text(t, "illegal", &out), 1);
    if (!strstr(out, "step 2: move of xplayer not accepted: (mark 4 4)")) fail_msg("unexpected output:\n%s", out);
    free(out);
    free(old);
    free(t);
}

/* Case of keys, spacing, line breaks inside a form and the order of a set
 * do not matter. */
static void test_replay_whitespace_and_case(void **state)
{
    (void)state;
    char *t = ttt_trace_text();
    size_t n = strlen(t);
    char *w = malloc(4 * n + 1), *o = w;
    for (char *p = t; *p; p++) {
        if (*p == ' ') {
            memcpy(o, " \t ", 3);
            o += 3;
        } else if (*p == '(' && p != t && p[-1] == ' ' && !strncmp(p, "(legal", 6)) {
            memcpy(o, "\n  (", 4);
            o += 4;
        } else if (*p >= 'a' && *p <= 'z' && (p - t) % 3 == 0) {
            *o++ = (char)(*p - 'a' + 'A');
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    char *out;
    int rc = replay_text(w, "spaces", &out);
    if (rc != 0) fail_msg("rc %d:\n%s\n--- trace:\n%s", rc, out, w);
    free(out);
    free(t);
    /* swap two legal moves of xplayer at step 0 */
    t = ttt_trace_text();
    replace_at(&t, t, "(mark 1 1) (mark 1 2)", "(mark 1 2) (mark 1 1)");
    assert_int_equal(replay_text(t, "order", &out), 0);
    free(out);
    free(w);
    free(t);
}

static void test_replay_malformed(void **state)
{
    (void)state;
    tu_skip_unless_shared(games_dir != NULL);
    char *out;
    assert_int_equal(replay_text("(game ticTacToe)\n(roles xplayer oplayer)\n(step 0 (state (cell 1 1 b)\n", "unbal",
                                 &out),
                     2);
    assert_non_null(strstr(out, "error"));
    free(out);
    assert_int_equal(replay_text("(game ticTacToe)\n(roles xplayer oplayer)\n(step 1 (state) (legal xplayer) "
                                 "(legal oplayer))\n",
                                 "stepno", &out),
                     2);
    if (!strstr(out, ":3:1: error: expected (step 0")) fail_msg("unexpected output:\n%s", out);
    free(out);
    assert_int_equal(replay_text("(game ticTacToe)\n(roles xplayer oplayer)\n(step 0 (state) (legal xplayer) "
                                 "(legal nobody))\n",
                                 "role", &out),
                     2);
    assert_non_null(strstr(out, "expected a role"));
    free(out);
    /* wrong roles: a divergence, not a format error */
    assert_int_equal(replay_text("(game ticTacToe)\n(roles oplayer xplayer)\n(step 0 (state) (legal xplayer) "
                                 "(legal oplayer))\n",
                                 "roles", &out),
                     1);
    assert_non_null(strstr(out, "roles differ"));
    free(out);
    /* cut at a line's end after a step's moves: no terminal line */
    char *t = ttt_trace_text(), *p = t;
    for (int i = 0; i < 4; i++) p = strchr(p, '\n') + 1; /* (game), (roles), steps 0 and 1 */
    *p = '\0';
    assert_int_equal(replay_text(t, "cut", &out), 2);
    if (!strstr(out, ":4:1: error: the trace ends after the moves of step 1: no terminal line"))
        fail_msg("unexpected output:\n%s", out);
    free(out);
    free(t);
}

static void test_trace_roundtrip(void **state)
{
    (void)state;
    tu_skip_unless_shared(games_dir != NULL);
    char *kif = ttt_kif(), *a = tmp_path("a"), *b = tmp_path("b"), *c = tmp_path("c");
    char *out;
    assert_int_equal(run(&out, "{ %s trace %s --seed 7 --quiet > %s; }", GGP_BIN, kif, a), 0);
    free(out);
    assert_int_equal(run(&out, "{ %s trace %s --seed 7 --engine rules --quiet > %s; }", GGP_BIN, kif, b), 0);
    free(out);
    char *ta = tu_read_file(a), *tb = tu_read_file(b);
    assert_non_null(ta);
    assert_non_null(tb);
    /* same seed, same trace, whatever the engine */
    assert_string_equal(ta, tb);
    const char *head = "(game ticTacToe)\n(roles xplayer oplayer)\n(step 0 (state (cell 1 1 b) ";
    if (strncmp(ta, head, strlen(head))) fail_msg("unexpected trace:\n%.400s", ta);
    assert_non_null(find_line(ta, "(terminal "));
    assert_int_equal(run(&out, "%s replay %s %s", GGP_BIN, kif, a), 0);
    assert_non_null(strstr(out, "replayed 1 trace: 1 ok, 0 failed"));
    free(out);
    /* another seed, another game (at least one of a few) */
    bool differs = false;
    for (int s = 8; s < 12 && !differs; s++) {
        assert_int_equal(run(&out, "{ %s trace %s --seed %d --quiet > %s; }", GGP_BIN, kif, s, c), 0);
        free(out);
        char *tc = tu_read_file(c);
        differs = strcmp(ta, tc) != 0;
        free(tc);
    }
    assert_true(differs);
    /* a cut playout ends with a step line without moves, and replays */
    assert_int_equal(run(&out, "{ %s trace %s --seed 3 --max-steps 2 --quiet > %s; }", GGP_BIN, kif, c), 0);
    free(out);
    char *tc = tu_read_file(c);
    char *last = find_line(tc, "(step 2 ");
    assert_non_null(last);
    assert_null(strstr(last, "(does"));
    assert_null(find_line(tc, "(terminal"));
    assert_int_equal(run(&out, "%s replay %s %s --quiet", GGP_BIN, kif, c), 0);
    free(out);
    free(tc);
    free(ta);
    free(tb);
    unlink(a);
    unlink(b);
    unlink(c);
    free(a);
    free(b);
    free(c);
    free(kif);
}

/* Defects of the rules: a role without legal moves in a non-terminal state
 * ends the playout with a step line without moves; no goal value or several
 * give `(goal R error)`; replay reports them as notes at their step and
 * still passes; a trace that claims a value there diverges. Both engines. */
static const char stuck_kif[] = "(role a) (role b) (init (step 0))\n"
                                "(<= (next (step 1)) (true (step 0))) (<= (next (step 2)) (true (step 1)))\n"
                                "(<= (legal a go) (true (step 0))) (legal b wait)\n"
                                "(<= terminal (true (step 2))) (goal a 50) (goal b 50)\n";
static const char goals_kif[] = "(role a) (role b) (init (step 0)) (<= (next (step 1)) (true (step 0)))\n"
                                "(legal a go) (legal b wait) (<= terminal (true (step 1)))\n"
                                "(goal a 0) (goal a 100) (<= (goal b 100) (true (step 5)))\n";

static void test_rules_defects(void **state)
{
    (void)state;
    static const char *engines[] = {"rules", "propnet"};
    char *kif = tmp_path("defect.kif"), *tr = tmp_path("defect.trace"), *out;
    for (int e = 0; e < 2; e++) {
        write_text(kif, stuck_kif);
        int rc = run(&out, "{ %s trace %s --engine %s --quiet > %s; }", GGP_BIN, kif, engines[e], tr);
        if (rc == 1 && strstr(out, "does not compile")) {
            printf("note: engine %s does not compile the defect games; skipped\n", engines[e]);
            free(out);
            continue;
        }
        assert_int_equal(rc, 0);
        assert_non_null(strstr(out, "step 1: a has no legal move in a non-terminal state"));
        free(out);
        char *t = tu_read_file(tr);
        assert_non_null(strstr(t, "\n(step 1 (state (step 1)) (legal a) (legal b wait))\n"));
        assert_null(strstr(t, "(step 2"));
        free(t);
        assert_int_equal(run(&out, "%s replay %s %s --engine %s", GGP_BIN, kif, tr, engines[e]), 0);
        assert_non_null(strstr(out, "step 1: note: a has no legal move in a non-terminal state"));
        assert_non_null(strstr(out, "replayed 1 trace: 1 ok, 0 failed"));
        free(out);

        write_text(kif, goals_kif);
        assert_int_equal(run(&out, "{ %s trace %s --engine %s --quiet > %s; }", GGP_BIN, kif, engines[e], tr), 0);
        assert_non_null(strstr(out, "terminal 1: a has more than one goal value"));
        assert_non_null(strstr(out, "terminal 1: b has no goal value"));
        free(out);
        t = tu_read_file(tr);
        assert_non_null(strstr(t, "\n(terminal 1 (state (step 1)) (goal a error) (goal b error))\n"));
        assert_int_equal(run(&out, "%s replay %s %s --engine %s", GGP_BIN, kif, tr, engines[e]), 0);
        assert_non_null(strstr(out, "step 0: note: a has several goal values"));
        assert_non_null(strstr(out, "terminal 1: note: goal of a: several values hold"));
        assert_non_null(strstr(out, "terminal 1: note: goal of b: no value holds"));
        free(out);
        /* claiming values where the rules give none or several diverges */
        replace_at(&t, t, "(goal a error)", "(goal a 100)");
        write_text(tr, t);
        assert_int_equal(run(&out, "%s replay %s %s --engine %s --quiet", GGP_BIN, kif, tr, engines[e]), 1);
        if (!strstr(out, "terminal 1: goal of a differs: expected 100 got several")) fail_msg("unexpected:\n%s", out);
        free(out);
        free(t);
    }
    unlink(kif);
    unlink(tr);
    free(kif);
    free(tr);
}

/* Tic-tac-toe figures, from Henry Bottomley, "Tic-tac-toe"
 * (http://www.se16.info/hgb/tictactoe.htm): 255168 games, 5478 positions;
 * by ply, games ended 1440/5328/47952/72576/127872 at plies 5..9 and
 * positions 9/72/252/756/1260/1520/1140/390/78 at plies 1..9. The paths are
 * 9*8*...*(9-d+1) minus the games that ended before ply d, times what is
 * left. All were also checked by an independent brute force (a Python
 * enumeration of the 3x3 board) while writing this test. */
static void test_perft_tictactoe(void **state)
{
    (void)state;
    tu_skip_unless_shared(games_dir != NULL);
    static const char *want[] = {
        "depth 1: paths=9 states=9 terminals=0\n",
        "depth 2: paths=72 states=72 terminals=0\n",
        "depth 3: paths=504 states=252 terminals=0\n",
        "depth 4: paths=3024 states=756 terminals=0\n",
        "depth 5: paths=15120 states=1260 terminals=1440\n",
        "depth 6: paths=54720 states=1520 terminals=5328\n",
        "depth 7: paths=148176 states=1140 terminals=47952\n",
        "depth 8: paths=200448 states=390 terminals=72576\n",
        "depth 9: paths=127872 states=78 terminals=127872\n",
    };
    /* The whole tree with the propnet; the rules engine is much slower, so
     * it checks the first plies (the whole tree too if there is no
     * propnet). */
    char *out;
    int rc = run(&out, "%s perft %s/ticTacToe.kif --depth 9 --engine propnet --quiet", GGP_BIN, games_dir);
    int rules_depth = 5;
    if (rc == 1 && strstr(out, "does not compile with engine propnet")) {
        printf("note: no propnet; perft of the rules engine only, to depth 7\n");
        rules_depth = 7;
    } else {
        assert_int_equal(rc, 0);
        for (int d = 0; d < 9; d++)
            if (!strstr(out, want[d])) fail_msg("want '%s' in:\n%s", want[d], out);
        assert_null(strstr(out, "depth 10"));
    }
    free(out);
    assert_int_equal(run(&out, "%s perft %s/ticTacToe.kif --depth %d --engine rules --quiet", GGP_BIN, games_dir,
                         rules_depth),
                     0);
    for (int d = 0; d < rules_depth; d++)
        if (!strstr(out, want[d])) fail_msg("want '%s' in:\n%s", want[d], out);
    if (rules_depth < 9) {
        char *next = xasprintf("depth %d:", rules_depth + 1);
        assert_null(strstr(out, next));
        free(next);
    }
    free(out);
}

/* Value of `key=` in a `bench ...` line, or -1 when absent. */
static double bench_field(const char *out, const char *key)
{
    const char *line = strstr(out, "bench game=");
    if (!line) return -1;
    char *pat = xasprintf(" %s=", key);
    const char *at = strstr(line, pat);
    double v = at ? strtod(at + strlen(pat), NULL) : -1;
    free(pat);
    return v;
}

/* `ggp bench` on the repository's tic-tac-toe with each engine: the last
 * line has every field, playouts happened, a tic-tac-toe playout lasts 5 to
 * 9 plies, and the start-up figure covers loading. Speeds are not asserted
 * (machines are noisy; bench/ reports them). */
static void test_bench_fields(void **state)
{
    (void)state;
    static const char *engines[] = {"propnet", "rules"};
    for (int e = 0; e < 2; e++) {
        char *out;
        int rc = run(&out, "%s bench %s/games/tictactoe.kif --seconds 0.2 --threads 2 --engine %s --quiet", GGP_BIN,
                     GGP_SOURCE_DIR, engines[e]);
        if (rc != 0) fail_msg("ggp bench --engine %s: exit %d:\n%s", engines[e], rc, out);
        char *want = xasprintf(" engine=%s ", engines[e]);
        if (!strstr(out, want)) fail_msg("want '%s' in:\n%s", want, out);
        free(want);
        static const char *keys[] = {"load_ms", "playouts", "playouts_per_sec", "playouts_per_cpu_sec", "mean_depth",
                                     "props", "gates", "rss_kb", "first_playout_ms", "ground_tries"};
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            if (bench_field(out, keys[k]) < 0) fail_msg("no %s in:\n%s", keys[k], out);
        assert_true(bench_field(out, "playouts") >= 1);
        double depth = bench_field(out, "mean_depth");
        if (depth < 5 || depth > 9) fail_msg("mean depth %g outside [5, 9]:\n%s", depth, out);
        assert_true(bench_field(out, "first_playout_ms") >= bench_field(out, "load_ms"));
        assert_true(bench_field(out, "rss_kb") > 0);
        /* tictactoe grounds at the first try; the rules engine grounds nothing */
        assert_true(bench_field(out, "ground_tries") == (e == 0 ? 1 : 0));
        assert_true(bench_field(out, "lanes") == 1);
        free(out);
    }
}

/* `ggp bench --lanes`: the propnet's playouts side by side (lanes=256,
 * and the same plies a tic-tac-toe playout has); the rules engine has no
 * such form, says so, and plays them one by one (lanes=1). */
static void test_bench_lanes(void **state)
{
    (void)state;
    static const char *engines[] = {"propnet", "rules"};
    for (int e = 0; e < 2; e++) {
        char *out;
        int rc = run(&out, "%s bench %s/games/tictactoe.kif --seconds 0.2 --lanes --engine %s", GGP_BIN, GGP_SOURCE_DIR,
                     engines[e]);
        if (rc != 0) fail_msg("ggp bench --lanes --engine %s: exit %d:\n%s", engines[e], rc, out);
        if (bench_field(out, "lanes") != (e == 0 ? 256 : 1)) fail_msg("lanes for %s in:\n%s", engines[e], out);
        assert_true(bench_field(out, "playouts") >= 1);
        double depth = bench_field(out, "mean_depth");
        if (depth < 5 || depth > 9) fail_msg("mean depth %g outside [5, 9]:\n%s", depth, out);
        assert_true((strstr(out, "plays its playouts one by one") != NULL) == (e == 1));
        free(out);
    }
}

/* `ggp play` prints the final board of a (cell X Y MARK) game with X as
 * the column and row 1 at the bottom: the last grid line of a connect-four
 * game is the bottom row, (cell 1 1) .. (cell 7 1), '.' where empty. */
static void test_play_board(void **state)
{
    (void)state;
    char *out;
    int rc = run(&out, "%s play %s/games/connect4.kif --player random --player random --seed 4", GGP_BIN,
                 GGP_SOURCE_DIR);
    if (rc != 0) fail_msg("ggp play: exit %d:\n%s", rc, out);
    char *st = strstr(out, "\nstate: ");
    assert_non_null(st);
    char *grid = strchr(st + 1, '\n') + 1, *goals = strstr(grid, "goals ");
    assert_non_null(goals);
    /* the last grid line: the one ending just before "goals" */
    char *last = goals - 1;
    while (last > grid && last[-1] != '\n') last--;
    /* the row label first: row 1 at the bottom */
    char label[8];
    int skip = 0;
    assert_int_equal(sscanf(last, " %7s%n", label, &skip), 1);
    assert_string_equal(label, "1");
    last += skip;
    for (int x = 1; x <= 7; x++) {
        char want[16] = ".", tok[16] = "";
        char *pat = xasprintf("(cell %d 1 ", x), *at = strstr(st, pat);
        if (at && at < grid) sscanf(at + strlen(pat), "%15[a-z]", want);
        free(pat);
        int used = 0;
        if (sscanf(last, " %15s%n", tok, &used) != 1) fail_msg("short bottom row:\n%s", out);
        last += used;
        if (strcmp(tok, want)) fail_msg("column %d of the bottom row: '%s', want '%s':\n%s", x, tok, want, out);
    }
    free(out);
}

static void test_bad_options(void **state)
{
    (void)state;
    /* Option errors are found before any file is read, so these hold (and
     * run) without the corpus too. */
    char *k = games_dir ? ttt_kif() : strdup("/nonexistent/ticTacToe.kif");
    struct {
        const char *args;
        int rc;
    } cases[] = {
        {"replay", 2},
        {"replay KIF", 2},
        {"replay KIF t.trace --engine magic", 2},
        {"replay KIF t.trace --engine", 2},
        {"replay KIF t.trace --bogus", 2},
        {"replay KIF /nonexistent/x.trace", 2},
        {"replay /nonexistent/x.kif /nonexistent/x.trace", 2},
        {"trace", 2},
        {"trace KIF --seed abc", 2},
        {"trace KIF --seed -1", 2},
        {"trace KIF --max-steps", 2},
        {"trace KIF --bogus 1", 2},
        {"trace KIF other.kif", 2},
        {"perft KIF", 2},
        {"perft KIF --depth 0", 2},
        {"perft KIF --depth 65", 2},
        {"perft KIF --depth x", 2},
        {"perft KIF --depth 2 --engine magic", 2},
        {"bench KIF --seconds 0", 2},
        {"bench KIF --seconds", 2},
        {"bench KIF --threads 0", 2},
        {"bench KIF other.kif", 2},
        {"bench --help", 0},
        {"replay --help", 0},
        {"trace --help", 0},
        {"perft --help", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        /* KIF stands for the rule file */
        const char *at = strstr(cases[i].args, "KIF");
        char *args = at ? xasprintf("%.*s%s%s", (int)(at - cases[i].args), cases[i].args, k, at + 3)
                        : strdup(cases[i].args);
        char *out;
        int rc = run(&out, "%s %s", GGP_BIN, args);
        if (rc != cases[i].rc) fail_msg("ggp %s: exit %d, expected %d:\n%s", args, rc, cases[i].rc, out);
        if (cases[i].rc == 0) assert_non_null(strstr(out, "usage: ggp"));
        free(out);
        free(args);
    }
    free(k);
}

/* The options every game-loading command accepts (cli_args_parse's
 * common list, copied here) are in each one's help twice: in the usage
 * lines (up to the first blank line) and at the start of a line of the
 * option list after them, with their meaning. */
static void test_load_options_in_help(void **state)
{
    (void)state;
    const char *cmds[] = {"bench", "replay", "trace", "perft"};
    const char *opts[] = {"--engine", "--ground-ms", "--eliminate-after", "--load-ms", "--memory", "--quiet"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char *out;
        assert_int_equal(run(&out, "%s %s --help", GGP_BIN, cmds[i]), 0);
        char *rest = strstr(out, "\n\n");
        assert_non_null(rest);
        *rest++ = '\0'; /* out: the usage lines */
        for (size_t j = 0; j < sizeof opts / sizeof *opts; j++) {
            char *item = xasprintf("\n  %s ", opts[j]);
            if (!strstr(out, opts[j])) fail_msg("ggp %s --help: %s not in the usage lines:\n%s", cmds[i], opts[j], out);
            if (!strstr(rest, item)) fail_msg("ggp %s --help: %s not in the option list:\n%s", cmds[i], opts[j], rest);
            free(item);
        }
        free(out);
    }
}

/* Output lost to a full disk is an error naming what could not be
 * written, never a silent exit 0. */
static void test_stdout_write_errors(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0) {
        printf("note: no /dev/full; skipping\n");
        skip();
    }
    const char *cmds[] = {"trace", "check", "perft", "play"};
    const char *args[] = {"--seed 1", "", "--depth 2", "--player random --player random"};
    for (size_t i = 0; i < 4; i++) {
        char *out;
        /* only stdout to /dev/full: the message must reach us */
        int rc = run(&out, "{ %s %s %s/games/tictactoe.kif %s >/dev/full; }", GGP_BIN, cmds[i], GGP_SOURCE_DIR,
                     args[i]);
        char *want = xasprintf("ggp %s: cannot write stdout: No space left on device", cmds[i]);
        if (rc != 2 || !strstr(out, want)) fail_msg("ggp %s >/dev/full: exit %d (want 2):\n%s", cmds[i], rc, out);
        free(want);
        free(out);
    }
}

/* `ggp play` with too few or no --player options says what is missing,
 * in the right number: the roles, in order, and an example. */
static void test_play_names_the_missing_players(void **state)
{
    (void)state;
    const struct {
        const char *opts, *want;
    } cases[] = {
        {"", "has 2 roles (xplayer, oplayer) but no --player option was given: one per role, in this order"},
        {"--player random", "has 2 roles (xplayer, oplayer) but 1 --player option was given"},
        {"--player random --player random --player random", "but 3 --player options were given"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char cmd[1024], *out;
        snprintf(cmd, sizeof cmd, "'%s' play '%s/games/tictactoe.kif' %s", GGP_BIN, GGP_SOURCE_DIR, cases[i].opts);
        assert_int_equal(tu_run(cmd, &out), 2);
        if (!strstr(out, cases[i].want)) fail_msg("'%s': no '%s' in:\n%s", cmd, cases[i].want, out);
        assert_non_null(strstr(out, "e.g. ggp play "));
        free(out);
    }
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd, "'%s' play '%s/games/lightsout.kif' --player random --player random", GGP_BIN,
             GGP_SOURCE_DIR);
    assert_int_equal(tu_run(cmd, &out), 2);
    assert_non_null(strstr(out, "has 1 role (player) but 2 --player options were given"));
    free(out);
}

int main(void)
{
    const char *s = tu_shared("games"); /* a static buffer: copy */
    games_dir = s ? strdup(s) : NULL;
    s = tu_shared("traces");
    traces_dir = s ? strdup(s) : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_play_names_the_missing_players),
        cmocka_unit_test(test_replay_reference),
        cmocka_unit_test(test_replay_corrupted_legal),
        cmocka_unit_test(test_replay_corrupted_state),
        cmocka_unit_test(test_replay_corrupted_goal_and_terminal),
        cmocka_unit_test(test_replay_illegal_move),
        cmocka_unit_test(test_replay_whitespace_and_case),
        cmocka_unit_test(test_replay_malformed),
        cmocka_unit_test(test_trace_roundtrip),
        cmocka_unit_test(test_rules_defects),
        cmocka_unit_test(test_perft_tictactoe),
        cmocka_unit_test(test_bench_fields),
        cmocka_unit_test(test_bench_lanes),
        cmocka_unit_test(test_play_board),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_stdout_write_errors),
        cmocka_unit_test(test_load_options_in_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
