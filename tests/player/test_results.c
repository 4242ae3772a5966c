/* test_results.c - sharded tournaments (`ggp tournament --shard I/N`) and
 * `ggp results merge`: the shards partition the games (disjoint and
 * complete, game k in shard k mod N, with its unsharded seed); their merge
 * equals the unsharded run game by game (same seeds, moves, goals and
 * result line; a sweep's points CSV and plot too); a shard killed with
 * SIGKILL and resumed loses no finished game; merge refuses files of other
 * tournaments, duplicated games and malformed lines naming FILE:LINE, and
 * reports unfinished shards as partial results with the games missing;
 * progress lines with an estimate when stderr is not a terminal. Plays the
 * bundled games/tictactoe.kif with tiny budgets. */
#include "testutil.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/ggp_results_XXXXXX";
static char game[1024], game2[1024];

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir)) return -1;
    snprintf(game, sizeof game, "%s/games/tictactoe.kif", GGP_SOURCE_DIR);
    snprintf(game2, sizeof game2, "%s/games/tictactoe3p.kif", GGP_SOURCE_DIR);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* `ggp ARGS` (printf-style): its stdout+stderr (malloc'd), status in *st. */
static char *ggp(int *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *ggp(int *st, const char *fmt, ...)
{
    char args[4096], cmd[4096 + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s %s", dir, GGP_BIN, args);
    char *out = NULL;
    *st = tu_run(cmd, &out);
    return out ? out : calloc(1, 1);
}

/* `ggp ARGS` exits with status and prints needle (tu_ggp_expect). */
#define expect(...) tu_ggp_expect(dir, __VA_ARGS__)

static char *path(const char *name)
{
    static char buf[8][1024];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(path(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_file(const char *name)
{
    char *t = tu_read_file(path(name));
    if (!t) fail_msg("cannot read %s", path(name));
    return t;
}

/* The last line of the output that starts with "result". */
static char *result_line(const char *out)
{
    const char *last = NULL;
    for (const char *p = out; (p = strstr(p, "result ")) != NULL; p++)
        if (p == out || p[-1] == '\n') last = p;
    if (!last) fail_msg("no result line in:\n%s", out);
    size_t n = strcspn(last, "\n");
    char *s = calloc(1, n + 1);
    memcpy(s, last, n);
    return s;
}

static const char players[] = "--a grave:playouts=150 --b uct:playouts=150";

/* Every game in exactly one shard (k mod N), each shard's CSV head says
 * its size, and the merge equals the unsharded run row by row. */
static void test_shards_partition_and_merge(void **state)
{
    (void)state;
    enum { GAMES = 10 };
    int st;
    char *full = ggp(&st, "tournament %s %s --games %d --seed 4 --quiet --csv full.csv", game, players, GAMES);
    assert_int_equal(st, 0);
    char *want = result_line(full);
    int n_full;
    char *full_rows = tu_csv_rows(path("full.csv"), 7, &n_full);
    assert_int_equal(n_full, GAMES);
    char *head = read_file("full.csv");
    assert_int_equal(strncmp(head, "# ggp tournament,games=10,seed=4,shard=0/1,shard_games=10,", 58), 0);
    free(head);

    const int ns[] = {1, 3, 4};
    for (size_t t = 0; t < sizeof ns / sizeof *ns; t++) {
        int n = ns[t];
        int seen[GAMES] = {0};
        char files[512] = "";
        for (int i = 0; i < n; i++) {
            char name[64];
            snprintf(name, sizeof name, "s%d_%d.csv", n, i);
            char *out = ggp(&st, "tournament %s %s --games %d --seed 4 --quiet --csv %s --shard %d/%d --jobs 2", game,
                            players, GAMES, name, i, n);
            assert_int_equal(st, 0);
            free(out);
            char *text = read_file(name);
            char want_head[128];
            int size = (GAMES - i + n - 1) / n;
            snprintf(want_head, sizeof want_head, "shard=%d/%d,shard_games=%d,", i, n, size);
            assert_non_null(strstr(text, want_head));
            int rows = 0;
            for (char *l = strchr(text, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
                int k;
                if (sscanf(l + 1, "%d,", &k) != 1) continue; /* the header */
                assert_true(k >= 0 && k < GAMES);
                assert_int_equal(k % n, i);
                seen[k]++;
                rows++;
            }
            assert_int_equal(rows, size);
            free(text);
            strcat(strcat(files, " "), name);
        }
        for (int k = 0; k < GAMES; k++) assert_int_equal(seen[k], 1); /* disjoint and complete */

        char merged[64];
        snprintf(merged, sizeof merged, "merged%d.csv", n);
        char *out = ggp(&st, "results merge%s --csv %s", files, merged);
        assert_int_equal(st, 0);
        char *got = result_line(out);
        assert_string_equal(got, want);
        int n_m;
        char *m_rows = tu_csv_rows(path(merged), 7, &n_m);
        assert_string_equal(m_rows, full_rows); /* same seeds, goals, steps, moves_hash */
        /* the merged CSV is the unsharded run's: it merges again alone */
        free(out);
        out = ggp(&st, "results merge %s --quiet", merged);
        assert_int_equal(st, 0);
        char want_nl[512];
        snprintf(want_nl, sizeof want_nl, "%s\n", want);
        assert_string_equal(out, want_nl);
        free(out);
        free(got);
        free(m_rows);
    }
    free(full);
    free(want);
    free(full_rows);
}

/* A sweep in shards: the same result lines, points CSV (but for the time
 * column) and plot as the unsharded sweep. */
static void test_sweep_shards(void **state)
{
    (void)state;
    const char *sweep = "--a grave:playouts=40 --b random --games 4 --seed 2 --quiet --sweep playouts=10,30";
    int st;
    char *full = ggp(&st, "tournament %s %s --csv points.csv --plot full.svg", game, sweep);
    assert_int_equal(st, 0);
    for (int i = 0; i < 3; i++) {
        char *out = ggp(&st, "tournament %s %s --csv w%d.csv --shard %d/3", game, sweep, i, i);
        assert_int_equal(st, 0);
        free(out);
    }
    expect(2, "--plot with --shard", "tournament %s %s --csv w.csv --shard 0/3 --plot x.svg", game, sweep);
    char *out = ggp(&st, "results merge w2.csv w0.csv w1.csv --csv mpoints.csv --plot merged.svg --quiet");
    assert_int_equal(st, 0);
    assert_string_equal(out, full);
    char *a = read_file("full.svg"), *b = read_file("merged.svg");
    assert_string_equal(a, b);
    free(a);
    free(b);
    a = read_file("points.csv");
    b = read_file("mpoints.csv");
    /* a_seconds_per_move is column 12: compare the lines up to it */
    for (char *p = a, *q = b; p && q; p = strchr(p, '\n'), q = strchr(q, '\n')) {
        p += *p == '\n';
        q += *q == '\n';
        if (!*p && !*q) break;
        const char *pc = p, *qc = q;
        for (int i = 0; i < 11; i++) {
            pc = strchr(pc, ',') + 1;
            qc = strchr(qc, ',') + 1;
        }
        assert_int_equal(pc - p, qc - q);
        assert_memory_equal(p, q, (size_t)(pc - p));
    }
    free(a);
    free(b);
    free(out);
    free(full);
}

/* kill -9 of a shard, --resume, merge: the unsharded result, no finished
 * game played again or lost. */
static void test_shard_kill_resume(void **state)
{
    (void)state;
    enum { GAMES = 12 };
    const char *slow = "--a grave:playouts=20000 --b uct:playouts=20000";
    int st;
    char *full = ggp(&st, "tournament %s %s --games %d --seed 8 --quiet --csv kfull.csv", game, slow, GAMES);
    assert_int_equal(st, 0);
    char *want = result_line(full);
    char *out = ggp(&st, "tournament %s %s --games %d --seed 8 --quiet --csv k1.csv --shard 1/2", game, slow, GAMES);
    assert_int_equal(st, 0);
    free(out);

    char cmd[4096];
    snprintf(cmd, sizeof cmd, "exec %s tournament %s %s --games %d --seed 8 --quiet --csv %s --shard 0/2 >/dev/null",
             GGP_BIN, game, slow, GAMES, path("k0.csv"));
    pid_t pid = tu_spawn(cmd);
    char *text = tu_wait_lines(path("k0.csv"), 4, 30000); /* head (2 lines) + 2 games */
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    assert_true(WIFSIGNALED(st));
    free(text);
    text = read_file("k0.csv");
    int kept = tu_count_char(text, '\n') - 2;
    printf("note: %d of %d games of shard 0/2 kept after kill -9\n", kept, GAMES / 2);
    assert_true(kept >= 2 && kept < GAMES / 2);

    /* a partial merge: the games so far, with their interval and the count missing */
    out = ggp(&st, "results merge k0.csv k1.csv --csv kpart.csv");
    assert_int_equal(st, 1);
    char missing[32];
    snprintf(missing, sizeof missing, " missing=%d\n", GAMES / 2 - kept);
    assert_non_null(strstr(out, missing));
    assert_non_null(strstr(out, "(unfinished)"));
    assert_non_null(strstr(out, "games missing:"));
    free(out);

    /* a kill in the middle of a row leaves half a line: resume drops it */
    FILE *f = fopen(path("k0.csv"), "a");
    fputs("10,1234,xpla", f);
    fclose(f);
    expect(2, "k0.csv:1: another shard (another --shard?)",
           "tournament %s %s --games %d --seed 8 --quiet --csv k0.csv --shard 0/3 --resume", game, slow, GAMES);
    out = ggp(&st, "tournament %s %s --games %d --seed 8 --csv k0.csv --shard 0/2 --resume --progress-every 0", game,
              slow, GAMES);
    assert_int_equal(st, 0);
    char note[128];
    snprintf(note, sizeof note, "resuming k0.csv: %d of %d games done", kept, GAMES / 2);
    assert_non_null(strstr(out, note));
    /* the rows kept are still there, none twice */
    char *again = read_file("k0.csv");
    assert_int_equal(strncmp(again, text, strlen(text)), 0);
    assert_int_equal(tu_count_char(again, '\n') - 2, GAMES / 2);
    free(again);
    free(out);
    out = ggp(&st, "results merge k1.csv k0.csv --csv kmerged.csv");
    assert_int_equal(st, 0);
    char *got = result_line(out);
    assert_string_equal(got, want);
    /* the partial merge is an unsharded CSV that --resume completes */
    free(out);
    out = ggp(&st, "tournament %s %s --games %d --seed 8 --quiet --csv kpart.csv --resume", game, slow, GAMES);
    assert_int_equal(st, 0);
    free(got);
    got = result_line(out);
    assert_string_equal(got, want);
    int n1, n2;
    char *r1 = tu_csv_rows(path("kfull.csv"), 7, &n1), *r2 = tu_csv_rows(path("kmerged.csv"), 7, &n2);
    assert_int_equal(n1, GAMES);
    assert_string_equal(r1, r2);
    free(r1);
    free(r2);
    free(got);
    free(out);
    free(text);
    free(want);
    free(full);
}

/* Copy of file `from` with line `line` (1-based) replaced. */
static void with_line(const char *from, const char *to, int line, const char *text)
{
    char *t = read_file(from);
    FILE *f = fopen(path(to), "w");
    assert_non_null(f);
    int n = 1;
    for (char *l = t; *l; n++) {
        char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) + 1 : strlen(l);
        if (n == line) fprintf(f, "%s\n", text);
        else fwrite(l, 1, len, f);
        l += len;
    }
    fclose(f);
    free(t);
}

/* Files of other tournaments, duplicated games and bad lines are refused
 * with FILE:LINE and exit status 2; never a crash. */
static void test_merge_rejects(void **state)
{
    (void)state;
    int st;
    const char *base = "--games 6 --quiet --progress-every 0";
    char *out = ggp(&st, "tournament %s %s %s --seed 3 --csv r0.csv --shard 0/2", game, players, base);
    assert_int_equal(st, 0);
    free(out);
    out = ggp(&st, "tournament %s %s %s --seed 3 --csv r1.csv --shard 1/2", game, players, base);
    assert_int_equal(st, 0);
    free(out);
    expect(0, "games=6 ", "results merge r0.csv r1.csv");

    /* other tournaments */
    free(ggp(&st, "tournament %s %s %s --seed 4 --csv seed.csv --shard 1/2", game, players, base));
    expect(2, "seed.csv:1: another seed (another --seed?) than r0.csv", "results merge r0.csv seed.csv");
    free(ggp(&st, "tournament %s --a grave:playouts=151 --b uct:playouts=150 %s --seed 3 --csv a.csv --shard 1/2", game,
             base));
    expect(2, "a.csv:1: another player A (another --a?)", "results merge r0.csv a.csv");
    free(ggp(&st, "tournament %s %s --games 7 --quiet --seed 3 --csv g.csv --shard 1/2", game, players));
    expect(2, "g.csv:1: another number of games (another --games?)", "results merge r0.csv g.csv");
    free(ggp(&st, "tournament %s %s %s --seed 3 --csv rules.csv --shard 1/2", game2, players, base));
    expect(2, "rules.csv:1: other rules (another FILE.kif?)", "results merge r0.csv rules.csv");
    free(ggp(&st, "tournament %s %s %s --seed 3 --csv sw.csv --shard 1/2 --sweep playouts=5", game, players, base));
    expect(2, "sw.csv:1: another sweep", "results merge r0.csv sw.csv");

    /* the same game twice: a shard given twice, or shards of another N */
    expect(2, "r0.csv:3: game 0 is also at r0.csv:3", "results merge r0.csv r1.csv r0.csv");
    free(ggp(&st, "tournament %s %s %s --seed 3 --csv q0.csv --shard 0/3", game, players, base));
    expect(2, "is also at", "results merge r0.csv q0.csv");

    /* malformed lines, each named */
    struct {
        int line;
        const char *text, *why;
    } bad[] = {
        {3, "0,1,2", "bad3.csv:3: not 16 columns"},
        {3, "\"0,1", "bad3.csv:3: a quote that is not closed"},
        {3, "x,1,xplayer,,,,,,,,,,,,,", "bad3.csv:3: game number out of range"},
        {3, "1,1,xplayer,,,,,,,,,,,,,", "bad3.csv:3: a game of another shard"},
        {3, "0,1,xplayer,,,,,,,,,,,,,", "bad3.csv:3: another seed"},
        {1, "# ggp tournament,games=6", "bad1.csv:1: metadata line without all of"},
        {1, "# ggp tournament,games=6,games=7", "bad1.csv:1: bad metadata field 'games'"},
        {1, "# ggp tournament,\"games=6", "bad1.csv:1: bad metadata line (a quote not closed)"},
        {1, "game,seed,a_role", "bad1.csv:1: not a per-game CSV of 'ggp tournament'"},
        {2, "game,seed", "bad2.csv:2: not the column header"},
    };
    char *good = read_file("r0.csv");
    char row3[1024];
    const char *r3 = strchr(strchr(good, '\n') + 1, '\n') + 1;
    snprintf(row3, sizeof row3, "%.*s", (int)strcspn(r3, "\n"), r3);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%d.csv", bad[i].line);
        with_line("r0.csv", name, bad[i].line, bad[i].text);
        expect(2, bad[i].why, "results merge %s r1.csv", name);
    }
    /* fields of a good row changed one at a time */
    struct {
        int col;
        const char *value, *why;
    } fields[] = {
        {2, "oplayer", "A's role is not the role of its seat"},
        {3, "xplayer=100", "goals of another game"},
        {3, "xplayer=100;oplayer=zero", "a goal that is not a number"},
        {4, "won", "unknown outcome"},
        {5, "-3", "a count that is not a number"},
        {7, "nan", "a count that is not a number"},
        {10, "1", "A is not in seat game mod roles"},
        {11, "\"uct\"", "other players (another --a or --sweep?)"},
        {12, "\"grave\"", "other players (another --b?)"},
        {15, "zz", "a moves_hash that is not 16 hex digits"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        char row[1024] = "", *save = NULL, copy[1024];
        snprintf(copy, sizeof copy, "%s", row3);
        /* the specs are quoted without commas: split on commas */
        int c = 0;
        for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save), c++) {
            if (c) strcat(row, ",");
            strcat(row, c == fields[i].col ? fields[i].value : f);
        }
        with_line("r0.csv", "badf.csv", 3, row);
        char why[128];
        snprintf(why, sizeof why, "badf.csv:3: %s", fields[i].why);
        expect(2, why, "results merge badf.csv");
    }
    /* an outcome that does not follow from the goals */
    char *flip = strstr(row3, ",win,") ? strstr(row3, ",win,") : strstr(row3, ",draw,");
    if (flip) {
        char row[1024];
        snprintf(row, sizeof row, "%.*s,loss,%s", (int)(flip - row3), row3, strchr(flip + 1, ',') + 1);
        with_line("r0.csv", "badf.csv", 3, row);
        expect(2, "badf.csv:3: an outcome that does not follow from the goals", "results merge badf.csv");
    }
    /* a NUL byte, an empty file, a missing file, binary garbage */
    FILE *f = fopen(path("nul.csv"), "w");
    fputs(good, f);
    fwrite("0,1\0x\n", 1, 6, f);
    fclose(f);
    expect(2, "nul.csv:6: a NUL byte", "results merge nul.csv"); /* 2 head lines, 3 rows */
    write_file("empty.csv", "");
    expect(2, "empty.csv:1: not a per-game CSV", "results merge empty.csv");
    expect(2, "nofile.csv: ", "results merge nofile.csv");
    expect(2, "not a per-game CSV", "results merge %s", game);
    /* a last line without its newline (a shard killed while writing) is left out */
    f = fopen(path("cut.csv"), "w");
    fprintf(f, "%s0,123", good);
    fclose(f);
    expect(0, "games=6 ", "results merge cut.csv r1.csv");

    /* usage */
    expect(2, "merge needs at least one FILE.csv", "results merge");
    expect(2, "unknown subcommand 'fuse'", "results fuse r0.csv");
    expect(2, "usage: ggp results merge", "results");
    expect(2, "unknown option or missing value: '--bogus'", "results merge r0.csv --bogus");
    expect(2, "--plot needs a tournament with --sweep", "results merge r0.csv r1.csv --plot p.svg");
    expect(2, "cannot write /nonexistent/m.csv", "results merge r0.csv r1.csv --csv /nonexistent/m.csv");
    expect(0, "merge FILE.csv", "results --help");
    expect(0, "results ", "--help");
    free(good);
}

static void test_shard_options(void **state)
{
    (void)state;
    expect(2, "bad value for --shard: '4/4'", "tournament %s %s --games 4 --shard 4/4 --csv x.csv", game, players);
    expect(2, "bad value for --shard: '1'", "tournament %s %s --games 4 --shard 1 --csv x.csv", game, players);
    expect(2, "bad value for --shard: '-1/2'", "tournament %s %s --games 4 --shard -1/2 --csv x.csv", game, players);
    expect(2, "bad value for --shard: '1/2x'", "tournament %s %s --games 4 --shard 1/2x --csv x.csv", game, players);
    expect(2, "--shard needs --csv", "tournament %s %s --games 4 --shard 1/2", game, players);
    expect(2, "--resume needs --csv and no --sweep, or --shard",
           "tournament %s %s --games 4 --sweep playouts=1,2 --csv x.csv --resume", game, players);
    expect(2, "bad value for --progress-every", "tournament %s %s --games 4 --progress-every x", game, players);
    expect(0, "--shard I/N", "tournament --help");
    /* a shard with no game: an empty result, a complete CSV */
    expect(0, "result games=0 ", "tournament %s %s --games 2 --shard 3/4 --csv empty3.csv --quiet", game, players);
    char *t = read_file("empty3.csv");
    assert_non_null(strstr(t, "shard=3/4,shard_games=0,"));
    free(t);
}

/* Not a terminal: plain progress lines (no \r) with the time left. */
static void test_progress_lines(void **state)
{
    (void)state;
    int st;
    char *out = ggp(&st, "tournament %s %s --games 3 --progress-every 0 --shard 0/1 --csv p.csv", game, players);
    assert_int_equal(st, 0);
    assert_null(strchr(out, '\r'));
    assert_non_null(strstr(out, "ggp tournament: shard 0/1: 1/3 games (W "));
    assert_non_null(strstr(out, "elapsed, eta "));
    assert_non_null(strstr(out, "ggp tournament: shard 0/1: 3/3 games"));
    free(out);
    /* the default interval (30 s) prints the last line only, here */
    out = ggp(&st, "tournament %s %s --games 3", game, players);
    assert_int_equal(st, 0);
    assert_null(strstr(out, "1/3 games"));
    assert_non_null(strstr(out, "ggp tournament: 3/3 games"));
    free(out);
    /* a terminal (script(1) gives one): a bar redrawn with \r */
    if (system("command -v script >/dev/null 2>&1") != 0) {
        printf("note: no script(1): the terminal case is not tested\n");
        return;
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "script -qec '%s tournament %s %s --games 3' /dev/null", GGP_BIN, game, players);
    assert_int_equal(tu_run(cmd, &out), 0);
    assert_non_null(strstr(out, "\r[##########....................] 1/3  W "));
    assert_non_null(strstr(out, "elapsed, eta "));
    assert_non_null(strstr(out, "] 3/3  W "));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shards_partition_and_merge),
        cmocka_unit_test(test_sweep_shards),
        cmocka_unit_test(test_shard_kill_resume),
        cmocka_unit_test(test_merge_rejects),
        cmocka_unit_test(test_shard_options),
        cmocka_unit_test(test_progress_lines),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
