/* test_results.c - sharded tournaments (`ggp tournament --shard I/N`) and
 * `ggp results merge`: the shards partition the games (disjoint and
 * complete, game k in shard k mod N, with its unsharded seed); their merge
 * equals the unsharded run game by game (same seeds, moves, goals and
 * result line; a sweep's points CSV and plot too); a shard killed with
 * SIGKILL and resumed loses no finished game; merge refuses files of other
 * tournaments, duplicated games and malformed lines naming FILE:LINE, and
 * reports unfinished shards as partial results with the games missing;
 * progress lines with an estimate when stderr is not a terminal. The same
 * for round robins (`ggp roundrobin --shard I/N`): game k of the whole run
 * (pairs in order) in shard k mod N, the merge equal to the unsharded
 * table game by game, resume after kill -9, mismatched files refused.
 * Plays the bundled games/tictactoe.kif with tiny budgets. */
#include "testutil.h"

#include <signal.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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

/* `ggp RUN` (a command, its rule file and options, playing `games` games
 * numbered over the whole run) as n shards into PREFIXn_I.csv, their names
 * into files (" A B ..."): each game in exactly one shard, k in shard k mod
 * n, and each shard's head gives its size. */
static void run_shards(const char *run, const char *prefix, int n, int games, char *files, size_t files_size)
{
    int seen[64] = {0};
    assert_true(games <= 64);
    files[0] = '\0';
    for (int i = 0; i < n; i++) {
        char name[64];
        int st;
        snprintf(name, sizeof name, "%s%d_%d.csv", prefix, n, i);
        free(ggp(&st, "%s --quiet --csv %s --shard %d/%d --jobs 2", run, name, i, n));
        assert_int_equal(st, 0);
        char *text = read_file(name);
        char size_head[128];
        int size = games > i ? (games - i + n - 1) / n : 0;
        snprintf(size_head, sizeof size_head, ",shard=%d/%d,shard_games=%d,", i, n, size);
        assert_non_null(strstr(text, size_head));
        int rows = 0;
        for (char *l = strchr(text, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
            int k;
            if (sscanf(l + 1, "%d,", &k) != 1) continue; /* the header */
            assert_true(k >= 0 && k < games);
            assert_int_equal(k % n, i);
            seen[k]++;
            rows++;
        }
        assert_int_equal(rows, size);
        free(text);
        size_t used = strlen(files);
        snprintf(files + used, files_size - used, " %s", name);
    }
    for (int k = 0; k < games; k++) assert_int_equal(seen[k], 1); /* disjoint and complete */
}

/* The sorted rows of a tournament's CSV without its time column. */
static char *t_rows(const char *name, int *n) { return tu_csv_rows(path(name), 7, n); }

/* `ggp RUN` (a command, its rule file and options, playing `games` games)
 * unsharded into PREFIXfull.csv (and PREFIXfull.svg with plot), then for
 * each n of ns in n shards (run_shards) merged into PREFIXmerged.csv (and
 * .svg): the same summary of the output (summary: the lines that do not
 * depend on time), the same rows (rows: sorted, without time columns) and
 * the same plot; the merged CSV merges again alone to the same. Returns
 * the unsharded run's output. */
static char *check_shard_merges(const char *run, const char *prefix, int games, const int *ns, size_t n_ns, bool plot,
                                char *(*summary)(const char *out), char *(*rows)(const char *name, int *n))
{
    int st;
    char *full = ggp(&st, "%s --quiet --csv %sfull.csv%s%s%s", run, prefix, plot ? " --plot " : "", plot ? prefix : "",
                     plot ? "full.svg" : "");
    assert_int_equal(st, 0);
    char *want = summary(full), name[64];
    int n_full;
    snprintf(name, sizeof name, "%sfull.csv", prefix);
    char *full_rows = rows(name, &n_full);
    assert_int_equal(n_full, games);
    for (size_t t = 0; t < n_ns; t++) {
        char files[1024];
        run_shards(run, prefix, ns[t], games, files, sizeof files);
        char *out = ggp(&st, "results merge%s --csv %smerged.csv%s%s%s", files, prefix, plot ? " --plot " : "",
                        plot ? prefix : "", plot ? "merged.svg" : "");
        assert_int_equal(st, 0);
        char *got = summary(out);
        assert_string_equal(got, want);
        int n_m;
        snprintf(name, sizeof name, "%smerged.csv", prefix);
        char *m_rows = rows(name, &n_m);
        assert_string_equal(m_rows, full_rows); /* same seeds, goals, steps, moves_hash */
        if (plot) {
            snprintf(name, sizeof name, "%sfull.svg", prefix);
            char *a = read_file(name);
            snprintf(name, sizeof name, "%smerged.svg", prefix);
            char *b = read_file(name);
            assert_string_equal(a, b);
            free(a);
            free(b);
        }
        /* the merged CSV is the unsharded run's: it merges again alone */
        free(out);
        out = ggp(&st, "results merge %smerged.csv --quiet", prefix);
        assert_int_equal(st, 0);
        free(got);
        got = summary(out);
        assert_string_equal(got, want);
        free(out);
        free(got);
        free(m_rows);
    }
    free(want);
    free(full_rows);
    return full;
}

/* Every game in exactly one shard (k mod N), each shard's CSV head says
 * its size, and the merge equals the unsharded run row by row. */
static void test_shards_partition_and_merge(void **state)
{
    (void)state;
    char run[2048];
    snprintf(run, sizeof run, "tournament %s %s --games 10 --seed 4", game, players);
    const int ns[] = {1, 3, 4};
    char *full = check_shard_merges(run, "s", 10, ns, 3, false, result_line, t_rows);
    char *head = read_file("sfull.csv");
    assert_int_equal(strncmp(head, "# ggp tournament,games=10,seed=4,shard=0/1,shard_games=10,", 58), 0);
    /* the result line alone on stdout, when merged quietly */
    char *want = result_line(full);
    int st;
    char *out = ggp(&st, "results merge smerged.csv --quiet");
    assert_int_equal(strncmp(out, want, strlen(want)), 0);
    assert_string_equal(out + strlen(want), "\n");
    free(out);
    free(want);
    free(head);
    free(full);
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

/* The kill -9 of a shard and its --resume, for `ggp RUN` (a command, its
 * rule file and options, without --csv or --shard, playing 2 * half games):
 * shard 1/2 runs whole into PREFIX1.csv; shard 0/2 is killed after two
 * games in PREFIX0.csv; their merge is partial (exit 1: the games so far,
 * missing=M, written to PREFIXpart.csv); a half row appended (killed while
 * writing) is dropped by --resume, which refuses another shard and keeps
 * every row, none twice. Then the merge of the finished shards into
 * PREFIXmerged.csv, and the partial merge completed by --resume, equal the
 * unsharded run into PREFIXfull.csv: the same summary of their output
 * (summary: the lines that do not depend on time) and the same rows
 * (rows: the sorted rows of a CSV without its time columns). */
static void kill_and_resume(const char *run, const char *prefix, int half, char *(*summary)(const char *out),
                            char *(*rows)(const char *name, int *n))
{
    int st;
    char *full = ggp(&st, "%s --quiet --csv %sfull.csv", run, prefix);
    assert_int_equal(st, 0);
    char *want = summary(full);
    free(full);
    char *out = ggp(&st, "%s --quiet --csv %s1.csv --shard 1/2", run, prefix);
    assert_int_equal(st, 0);
    free(out);
    char cmd[4096], name[64];
    snprintf(name, sizeof name, "%s0.csv", prefix);
    snprintf(cmd, sizeof cmd, "cd '%s' && exec %s %s --quiet --csv %s --shard 0/2 >/dev/null", dir, GGP_BIN, run,
             path(name));
    pid_t pid = tu_spawn(cmd);
    char *text = tu_wait_lines(path(name), 4, 30000); /* head (2 lines) + 2 games */
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    assert_true(WIFSIGNALED(st));
    free(text);
    text = read_file(name);
    int kept = tu_count_char(text, '\n') - 2;
    printf("note: %s: %d of %d games of shard 0/2 kept after kill -9\n", prefix, kept, half);
    assert_true(kept >= 2 && kept < half);

    /* a partial merge: the games so far, with their intervals and the count missing */
    out = ggp(&st, "results merge %s0.csv %s1.csv --csv %spart.csv", prefix, prefix, prefix);
    assert_int_equal(st, 1);
    char missing[32];
    snprintf(missing, sizeof missing, " missing=%d\n", half - kept);
    assert_non_null(strstr(out, missing));
    assert_non_null(strstr(out, "(unfinished)"));
    assert_non_null(strstr(out, "games missing:"));
    /* shard 1/2 whole, 0/2 in part: A's seats unequal, and said (the
     * tournaments here play tictactoe.kif, two roles: each of two shards
     * holds one of A's seats, xplayer's in shard 0) */
    if (!strncmp(run, "tournament ", 11)) {
        const char *seats = strstr(out, "A's seats in these games: ");
        assert_non_null(seats);
        char want_seats[160];
        int n = snprintf(want_seats, sizeof want_seats, "A's seats in these games: xplayer %d (score ", kept);
        assert_int_equal(strncmp(seats, want_seats, (size_t)n), 0);
        assert_non_null(strstr(seats, "unequal, so the score leans on the seats"));
    }
    free(out);

    /* a kill in the middle of a row leaves half a line: resume drops it */
    FILE *f = fopen(path(name), "a");
    fputs("10,1234,xpla", f);
    fclose(f);
    char why[128];
    snprintf(why, sizeof why, "%s:1: another shard (another --shard?)", name);
    expect(2, why, "%s --quiet --csv %s --shard 0/3 --resume", run, name);
    out = ggp(&st, "%s --csv %s --shard 0/2 --resume", run, name);
    assert_int_equal(st, 0);
    char note[128];
    snprintf(note, sizeof note, "resuming %s: %d of %d games done", name, kept, half);
    assert_non_null(strstr(out, note));
    char *again = read_file(name);
    assert_int_equal(strncmp(again, text, strlen(text)), 0); /* the rows kept are still there */
    assert_int_equal(tu_count_char(again, '\n') - 2, half);  /* none twice */
    free(again);
    free(out);
    free(text);
    out = ggp(&st, "results merge %s1.csv %s0.csv --csv %smerged.csv", prefix, prefix, prefix);
    assert_int_equal(st, 0);
    char *got = summary(out);
    assert_string_equal(got, want);
    free(got);
    free(out);
    /* the partial merge is an unsharded CSV that --resume completes */
    out = ggp(&st, "%s --quiet --csv %spart.csv --resume", run, prefix);
    assert_int_equal(st, 0);
    got = summary(out);
    assert_string_equal(got, want);
    const char *const names[] = {"full", "merged", "part"};
    char *r[3];
    for (int i = 0; i < 3; i++) {
        int n;
        snprintf(name, sizeof name, "%s%s.csv", prefix, names[i]);
        r[i] = rows(name, &n);
        assert_int_equal(n, 2 * half);
    }
    assert_string_equal(r[1], r[0]);
    assert_string_equal(r[2], r[0]);
    for (int i = 0; i < 3; i++) free(r[i]);
    free(got);
    free(out);
    free(want);
}

/* kill -9 of a shard, --resume, merge: the unsharded result, no finished
 * game played again or lost. */
static void test_shard_kill_resume(void **state)
{
    (void)state;
    char run[2048];
    snprintf(run, sizeof run, "tournament %s --a grave:playouts=20000 --b uct:playouts=20000 --games 12 --seed 8",
             game);
    kill_and_resume(run, "k", 6, result_line, t_rows);
}

/* The CSV replaced under a running tournament (as `git stash` or `git
 * checkout` of a tracked results file does: a new file at the path, the
 * old one unlinked): the rows that follow would go to the unlinked file.
 * The run writes the CSV again at its path with every game finished and
 * appends there: at the end it holds each game once, as an undisturbed
 * run of the same seed does. With its folder removed it cannot: the run
 * warns and still ends with its result line. */
static void test_csv_replaced_while_running(void **state)
{
    (void)state;
    char args[2048], cmd[4096];
    snprintf(args, sizeof args, "tournament %s --a grave:playouts=50000 --b uct:playouts=50000 --games 4 --seed 8 --quiet",
             game);
    int st;
    char *out = ggp(&st, "%s --csv whole.csv", args);
    assert_int_equal(st, 0);
    free(out);
    snprintf(cmd, sizeof cmd, "cd '%s' && exec %s %s --csv moved.csv 2>moved.err >/dev/null", dir, GGP_BIN, args);
    pid_t pid = tu_spawn(cmd);
    char *text = tu_wait_lines(path("moved.csv"), 3, 60000); /* head (2 lines) + a game */
    assert_non_null(text);
    bool running = waitpid(pid, &st, WNOHANG) == 0;
    /* what a checkout of an older version does: its head only, renamed in */
    const char *row1 = strchr(strchr(text, '\n') + 1, '\n') + 1;
    char *old = strndup(text, (size_t)(row1 - text));
    write_file("older.csv", old);
    assert_int_equal(rename(path("older.csv"), path("moved.csv")), 0);
    if (running) assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    int n_whole, n_moved;
    char *whole = tu_csv_rows(path("whole.csv"), 7, &n_whole), *moved = tu_csv_rows(path("moved.csv"), 7, &n_moved);
    char *err = read_file("moved.err");
    if (running) {
        /* three games were left when it was replaced: the next row
         * finds the file gone, whichever game it is */
        assert_int_equal(n_moved, 4);
        assert_string_equal(moved, whole);
        assert_non_null(strstr(err, "moved.csv was removed or replaced while this run appended to it"));
    } else {
        printf("note: the run ended before its CSV was replaced; not tested\n");
    }
    free(err);
    free(whole);
    free(moved);
    free(old);
    free(text);

    /* its folder removed: the CSV cannot be written again, and the run
     * goes on to its result line, warning at each game, and exits 2
     * saying the file does not hold its games */
    assert_int_equal(mkdir(path("gone"), 0755), 0);
    snprintf(cmd, sizeof cmd, "cd '%s' && exec %s %s --csv gone/t.csv 2>gone.err >gone.out", dir, GGP_BIN, args);
    pid = tu_spawn(cmd);
    text = tu_wait_lines(path("gone/t.csv"), 3, 60000);
    assert_non_null(text);
    running = waitpid(pid, &st, WNOHANG) == 0;
    assert_int_equal(unlink(path("gone/t.csv")), 0);
    assert_int_equal(rmdir(path("gone")), 0);
    if (running) assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == (running ? 2 : 0));
    char *gone = read_file("gone.out");
    assert_non_null(strstr(gone, "result games=4 "));
    err = read_file("gone.err");
    if (running) {
        assert_non_null(strstr(err, "gone/t.csv was removed or replaced while this run appended to it, and could not be written again"));
        assert_non_null(strstr(err, "gone/t.csv does not hold this run's games"));
    }
    free(err);
    free(gone);
    free(text);

    /* replaced by another run's record, whose lock that run holds (here
     * the test's): left alone, with a warning at each game, and the run
     * exits 2 saying the file does not hold its games */
    snprintf(cmd, sizeof cmd, "cd '%s' && exec %s %s --csv locked.csv 2>locked.err >locked.out", dir, GGP_BIN, args);
    pid = tu_spawn(cmd);
    text = tu_wait_lines(path("locked.csv"), 3, 60000);
    assert_non_null(text);
    write_file("theirs.csv", "another run's rows\n");
    int theirs = open(path("theirs.csv"), O_RDONLY);
    assert_true(theirs >= 0);
    assert_int_equal(flock(theirs, LOCK_EX), 0);
    assert_int_equal(rename(path("theirs.csv"), path("locked.csv")), 0);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    close(theirs);
    /* whether the run saw it (its last game may have ended before) is
     * its exit status; the other run's file is left alone either way */
    assert_true(WIFEXITED(st) && (WEXITSTATUS(st) == 2 || WEXITSTATUS(st) == 0));
    char *kept = read_file("locked.csv");
    assert_string_equal(kept, "another run's rows\n");
    err = read_file("locked.err");
    if (WEXITSTATUS(st) == 2) {
        assert_non_null(strstr(err, "locked.csv was replaced while this run appended to it, and is in use by another run"));
        assert_non_null(strstr(err, "locked.csv does not hold this run's games"));
    } else {
        printf("note: the run ended before its CSV was replaced; not tested\n");
    }
    free(kept);
    free(err);
    free(text);

    /* replaced by a FIFO nobody reads: not a record, and opening it to
     * write would block the run for good; it warns and ends, exit 2 (0
     * when its last game ended before) */
    snprintf(cmd, sizeof cmd, "cd '%s' && exec timeout 120 %s %s --csv fifo.csv 2>fifo.err >fifo.out", dir, GGP_BIN,
             args);
    pid = tu_spawn(cmd);
    text = tu_wait_lines(path("fifo.csv"), 3, 60000);
    assert_non_null(text);
    assert_int_equal(mkfifo(path("fifo.new"), 0644), 0);
    assert_int_equal(rename(path("fifo.new"), path("fifo.csv")), 0);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && (WEXITSTATUS(st) == 2 || WEXITSTATUS(st) == 0)); /* not 124: hung */
    err = read_file("fifo.err");
    if (WEXITSTATUS(st) == 2) assert_non_null(strstr(err, "fifo.csv: not a regular file"));
    else printf("note: the run ended before its CSV was replaced by a FIFO; not tested\n");
    free(err);
    free(text);
    unlink(path("fifo.csv"));
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

/* A line of a CSV replaced, and the reason to expect for it. */
typedef struct bad_line {
    int line;
    const char *text, *why;
} bad_line_t;

/* Each of bad in place of its line of the CSV `good`, as PREFIXLINE.csv
 * merged with `other`: refused (exit 2) with its why. */
static void expect_bad_lines(const char *good, const char *other, const char *prefix, const bad_line_t *bad, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s%d.csv", prefix, bad[i].line);
        with_line(good, name, bad[i].line, bad[i].text);
        expect(2, bad[i].why, "results merge %s %s", name, other);
    }
}

/* A field of a good row (column col, from 0) replaced, and the reason. */
typedef struct bad_field {
    int col;
    const char *value, *why;
} bad_field_t;

/* Each of bad in place of its column of the first row (line 3) of the CSV
 * `good`, as PREFIX.csv merged alone: refused with "PREFIX.csv:3: why". */
static void expect_bad_fields(const char *good, const char *prefix, const bad_field_t *bad, size_t n)
{
    char *text = read_file(good);
    const char *r3 = strchr(strchr(text, '\n') + 1, '\n') + 1;
    char name[64];
    snprintf(name, sizeof name, "%s.csv", prefix);
    for (size_t i = 0; i < n; i++) {
        char row[1024] = "", *save = NULL, copy[1024];
        snprintf(copy, sizeof copy, "%.*s", (int)strcspn(r3, "\n"), r3);
        /* the specs are quoted without commas: split on commas */
        int c = 0;
        for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save), c++) {
            if (c) strcat(row, ",");
            strcat(row, c == bad[i].col ? bad[i].value : f);
        }
        with_line(good, name, 3, row);
        char why[160];
        snprintf(why, sizeof why, "%s:3: %s", name, bad[i].why);
        expect(2, why, "results merge %s", name);
    }
    free(text);
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
    const bad_line_t bad[] = {
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
    expect_bad_lines("r0.csv", "r1.csv", "bad", bad, sizeof bad / sizeof *bad);
    /* fields of a good row changed one at a time */
    const bad_field_t fields[] = {
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
    expect_bad_fields("r0.csv", "badf", fields, sizeof fields / sizeof *fields);
    /* an outcome that does not follow from the goals */
    const char *flip = NULL, *instead = NULL;
    if ((flip = strstr(row3, ",win,"))) instead = "loss";
    else if ((flip = strstr(row3, ",draw,"))) instead = "loss";
    else if ((flip = strstr(row3, ",loss,"))) instead = "win";
    assert_non_null(flip); /* every row has one of the three outcomes */
    char row[1024];
    snprintf(row, sizeof row, "%.*s,%s,%s", (int)(flip - row3), row3, instead, strchr(flip + 1, ',') + 1);
    with_line("r0.csv", "badf.csv", 3, row);
    expect(2, "badf.csv:3: an outcome that does not follow from the goals", "results merge badf.csv");
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
    expect(2, "unknown option '--bogus'", "results merge r0.csv --bogus");
    expect(2, "--plot needs a tournament with --sweep", "results merge r0.csv r1.csv --plot p.svg");
    expect(2, "cannot write /nonexistent/m.csv", "results merge r0.csv r1.csv --csv /nonexistent/m.csv");
    /* the merge written onto a shard it reads would replace that shard */
    char *before = read_file("r1.csv");
    expect(2, "--csv ./r1.csv is the input r1.csv: write the merge elsewhere", "results merge r0.csv r1.csv --csv ./r1.csv");
    char *after = read_file("r1.csv");
    assert_string_equal(before, after);
    free(before);
    free(after);
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

/* ---- round robins ---------------------------------------------------------- */

static const char rr_players[] = "--player random --player uct:playouts=40 --player grave:playouts=40";

/* The rows of a round robin's CSV, sorted, without its two time columns
 * (a_seconds, column 7, and b_seconds, the last). */
static char *rr_rows(const char *name, int *n)
{
    char *rows = tu_csv_rows(path(name), 7, n);
    char *w = rows;
    for (char *l = rows; *l;) {
        char *nl = strchr(l, '\n'), *comma = l;
        for (char *c = l; c < nl; c++)
            if (*c == ',') comma = c;
        memmove(w, l, (size_t)(comma - l));
        w += comma - l;
        *w++ = '\n';
        l = nl + 1;
    }
    *w = '\0';
    return rows;
}

/* What a round robin's output says but for times: its result lines cut
 * before seconds_per_game (kept: " missing=M"), and the table of pairs. */
static char *rr_scores(const char *out)
{
    char *s = calloc(1, strlen(out) + 1), *w = s;
    const char *pairs = strstr(out, "score of the row against the column");
    if (!pairs) fail_msg("no table of pairs in:\n%s", out);
    for (const char *l = pairs; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        const char *secs = strstr(l, " seconds_per_game=");
        if (!strncmp(l, "result ", 7) && secs && secs < l + len) {
            const char *rest = strchr(secs + 1, ' ');
            w += sprintf(w, "%.*s%.*s\n", (int)(secs - l), l, rest && rest < l + len ? (int)(l + len - rest) : 0,
                         rest ? rest : "");
        } else if (strncmp(l, "ggp ", 4)) { /* not a note on stderr */
            w += sprintf(w, "%.*s\n", (int)len, l);
        }
        l = nl ? nl + 1 : l + len;
    }
    return s;
}

/* Every game of the whole run in exactly one shard (k mod N, k counted over
 * all pairs), each shard's head says its size, and the merge equals the
 * unsharded run game by game: same rows (seeds, goals, steps, moves
 * hashes), same result lines and pair table, same plot. */
static void test_rr_shards_partition_and_merge(void **state)
{
    (void)state;
    char run[2048];
    snprintf(run, sizeof run, "roundrobin %s %s --games-per-pair 5 --seed 5", game, rr_players);
    const int ns[] = {2, 4, 16};
    free(check_shard_merges(run, "rs", 15, ns, 3, true, rr_scores, rr_rows));
    char *head = read_file("rsfull.csv");
    const char *want_head = "# ggp roundrobin,games_per_pair=5,seed=5,shard=0/1,shard_games=15,roles=xplayer;oplayer,"
                            "rules=tictactoe.kif,rules_hash=";
    assert_int_equal(strncmp(head, want_head, strlen(want_head)), 0);
    /* then the engine that played (a seed plays other games on another) */
    assert_non_null(strstr(head, ",player=random,player=uct:playouts=40,player=grave:playouts=40,engine=propnet\n"));
    free(head);
}

/* kill -9 of a round robin's shard, --resume, merge: the unsharded games,
 * none played again or lost. */
static void test_rr_shard_kill_resume(void **state)
{
    (void)state;
    char run[2048];
    snprintf(run, sizeof run,
             "roundrobin %s --player grave:playouts=20000 --player uct:playouts=20000 --games-per-pair 12 --seed 9",
             game);
    kill_and_resume(run, "rk", 6, rr_scores, rr_rows);
}

/* Round robins' files of other runs, mixed with tournaments', duplicated
 * games and bad lines are refused with FILE:LINE and exit status 2. */
static void test_rr_merge_rejects(void **state)
{
    (void)state;
    int st;
    const char *base = "--games-per-pair 2 --quiet";
    for (int i = 0; i < 2; i++)
        free(ggp(&st, "roundrobin %s %s %s --seed 3 --csv rr%d.csv --shard %d/2", game, rr_players, base, i, i));
    expect(0, "result method=3 games=4 ", "results merge rr0.csv rr1.csv");

    free(ggp(&st, "roundrobin %s %s %s --seed 4 --csv rseed.csv --shard 1/2", game, rr_players, base));
    expect(2, "rseed.csv:1: another seed (another --seed?) than rr0.csv", "results merge rr0.csv rseed.csv");
    free(ggp(&st, "roundrobin %s %s --games-per-pair 3 --quiet --seed 3 --csv rg.csv --shard 1/2", game, rr_players));
    expect(2, "rg.csv:1: another number of games per pair (another --games-per-pair?)", "results merge rr0.csv rg.csv");
    free(ggp(&st, "roundrobin %s --player random --player grave:playouts=40 --player uct:playouts=40 %s --seed 3 "
                  "--csv rorder.csv --shard 1/2", game, base));
    expect(2, "rorder.csv:1: other players (other --player options, or in another order?)",
           "results merge rr0.csv rorder.csv");
    free(ggp(&st, "roundrobin %s %s --player ab:depth=2 %s --seed 3 --csv rmore.csv --shard 1/2", game, rr_players,
             base));
    expect(2, "rmore.csv:1: other players", "results merge rr0.csv rmore.csv");
    free(ggp(&st, "roundrobin %s %s %s --seed 3 --csv rrules.csv --shard 1/2", game2, rr_players, base));
    expect(2, "rrules.csv:1: other rules (another FILE.kif?)", "results merge rr0.csv rrules.csv");
    free(ggp(&st, "tournament %s %s --games 6 --quiet --seed 3 --csv rt.csv --shard 1/2", game, players));
    expect(2, "rt.csv:1: the CSV of another command (ggp tournament) than rr0.csv", "results merge rr0.csv rt.csv");
    expect(2, "rr0.csv:1: the CSV of another command (ggp roundrobin) than rt.csv", "results merge rt.csv rr0.csv");
    expect(2, "rt.csv:1: the CSV of another command (ggp tournament)",
           "roundrobin %s %s %s --seed 3 --csv rt.csv --shard 1/2 --resume", game, rr_players, base);
    expect(2, "rr0.csv:3: game 0 is also at rr0.csv:3", "results merge rr0.csv rr1.csv rr0.csv");
    free(ggp(&st, "roundrobin %s %s %s --seed 3 --csv rq0.csv --shard 0/3", game, rr_players, base));
    expect(2, "is also at", "results merge rr0.csv rq0.csv");

    /* malformed lines, each named */
    const bad_line_t bad[] = {
        {3, "0,1,2", "rbad3.csv:3: not 17 columns"},
        {3, "6,1,xplayer,,,,,,,,,,,,,,", "rbad3.csv:3: game number out of range"},
        {3, "1,1,xplayer,,,,,,,,,,,,,,", "rbad3.csv:3: a game of another shard"},
        {3, "0,1,xplayer,,,,,,,,,,,,,,", "rbad3.csv:3: another seed"},
        {1, "# ggp roundrobin,games_per_pair=2,seed=3", "rbad1.csv:1: metadata line without all of games_per_pair"},
        {2, "game,seed", "rbad2.csv:2: not the column header of this version of 'ggp roundrobin'"},
        /* a round robin's CSV of before the shards: no first line */
        {1, "game,seed,a,b,a_seat,goals,outcome,a_seconds,b_seconds,a_spec,b_spec",
         "rbad1.csv:1: not a per-game CSV of 'ggp tournament' or 'ggp roundrobin'"},
    };
    expect_bad_lines("rr0.csv", "rr1.csv", "rbad", bad, sizeof bad / sizeof *bad);
    expect(2, "rbad1.csv:1: not a per-game CSV", "roundrobin %s %s %s --seed 3 --csv rbad1.csv --shard 0/2 --resume",
           game, rr_players, base);
    /* one player only */
    char *good = read_file("rr0.csv");
    char *one = strdup(good);
    *strstr(one, ",player=uct") = '\0';
    char line1[1024];
    snprintf(line1, sizeof line1, "%s", one);
    with_line("rr0.csv", "rone.csv", 1, line1);
    expect(2, "rone.csv:1: 1 players (a round robin has 2 to 256)", "results merge rone.csv");
    free(one);
    /* fields of a good row changed one at a time */
    const bad_field_t fields[] = {
        {2, "oplayer", "A's role is not the role of its seat"},
        {11, "\"uct:playouts=40\"", "other players for this game's pair"},
        {12, "\"random\"", "other players for this game's pair"},
        {16, "-1", "a count that is not a number"},
    };
    expect_bad_fields("rr0.csv", "rbadf", fields, sizeof fields / sizeof *fields);
    free(good);

    /* options */
    expect(2, "bad value for --shard: '2/2'", "roundrobin %s %s %s --shard 2/2 --csv x.csv", game, rr_players, base);
    expect(2, "--shard needs --csv", "roundrobin %s %s %s --shard 0/2", game, rr_players, base);
    expect(2, "--plot with --shard", "roundrobin %s %s %s --shard 0/2 --csv x.csv --plot x.svg", game, rr_players, base);
    expect(0, "--shard I/N", "roundrobin --help");
    expect(0, "ggp roundrobin --shard I/N", "results --help");
}

/* --max-steps: a game not over after N joint moves fails with its reason
 * (tic-tac-toe needs at least five), in `ggp play` and in a tournament's
 * and a round robin's games; the limit is in the CSV's metadata only when
 * set (a default run's file is as before), a resume with another limit is
 * refused, and --verbose's replay commands carry it. */
static void test_max_steps(void **state)
{
    (void)state;
    expect(1, "no terminal state after 3 steps", "play '%s' --player random --player random --max-steps 3", game);
    expect(0, "goals", "play '%s' --player random --player random --max-steps 9", game);
    expect(2, "--max-steps", "play '%s' --player random --player random --max-steps 0", game);
    int st;
    char *out = ggp(&st, "tournament '%s' --a random --b random --games 4 --max-steps 3 --csv ms.csv --quiet --verbose",
                    game);
    assert_int_equal(st, 1); /* games that could not end */
    assert_non_null(strstr(out, "no terminal state after 3 steps"));
    assert_non_null(strstr(out, "--max-steps 3 --engine propnet --verbose"));
    free(out);
    char *text = read_file("ms.csv");
    assert_non_null(strstr(text, ",max_steps=3,engine=propnet\n"));
    assert_int_equal(tu_count_char(text, '\n'), 2 + 4);
    assert_non_null(strstr(text, ",failed,"));
    free(text);
    /* read back: the same limit resumes (every game done, all failed), another
     * or none is refused, a merge keeps it */
    expect(1, "failed=4", "tournament '%s' --a random --b random --games 4 --max-steps 3 --csv ms.csv --resume --quiet",
           game);
    expect(2, "another step limit (another --max-steps?)",
           "tournament '%s' --a random --b random --games 4 --max-steps 4 --csv ms.csv --resume --quiet", game);
    expect(2, "another step limit (another --max-steps?)",
           "tournament '%s' --a random --b random --games 4 --csv ms.csv --resume --quiet", game);
    expect(1, "result games=0", "results merge ms.csv --csv ms_merged.csv");
    text = read_file("ms_merged.csv");
    assert_non_null(strstr(text, ",max_steps=3,engine=propnet\n"));
    free(text);
    /* shards of other limits do not merge; bad or repeated values are named */
    expect(1, "failed", "tournament '%s' --a random --b random --games 4 --max-steps 3 --shard 0/2 --csv ms0.csv --quiet",
           game);
    expect(1, "failed", "tournament '%s' --a random --b random --games 4 --max-steps 4 --shard 1/2 --csv ms1.csv --quiet",
           game);
    expect(2, "another step limit", "results merge ms0.csv ms1.csv");
    text = read_file("ms.csv");
    char *at = strstr(text, ",max_steps=3,");
    const char *bad[] = {",max_steps=0,", ",max_steps=x,", ",max_steps=4294967296,", ",max_steps=3,max_steps=3,"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *edited = calloc(1, strlen(text) + 64);
        memcpy(edited, text, (size_t)(at - text));
        strcat(edited, bad[i]);
        strcat(edited, at + strlen(",max_steps=3,"));
        write_file("ms_bad.csv", edited);
        free(edited);
        expect(2, "ms_bad.csv:1: bad metadata field 'max_steps'", "results merge ms_bad.csv");
    }
    free(text);
    /* the default: no field, games that end */
    out = ggp(&st, "tournament '%s' --a random --b random --games 2 --csv ms_default.csv --quiet", game);
    assert_int_equal(st, 0);
    free(out);
    text = read_file("ms_default.csv");
    assert_null(strstr(text, "max_steps"));
    free(text);
    out = ggp(&st, "roundrobin '%s' --player random --player random --games-per-pair 2 --max-steps 2 --csv ms_rr.csv --quiet",
              game);
    assert_int_equal(st, 1);
    free(out);
    text = read_file("ms_rr.csv");
    assert_non_null(strstr(text, ",max_steps=2,engine=propnet\n"));
    free(text);
}

/* The engine that played is in the CSV: a resume or a merge with another
 * (whose games from the same seeds differ) is refused; files from before
 * it was written match any. A sweep's repeated value is refused (its two
 * points' rows could not be told apart: the file could never be resumed
 * or merged). */
static void test_engine_and_sweep(void **state)
{
    (void)state;
    int st;
    char *out = ggp(&st, "tournament '%s' --a random --b random --games 2 --csv en.csv --quiet --verbose", game);
    assert_int_equal(st, 0);
    assert_non_null(strstr(out, " --engine propnet --verbose"));
    free(out);
    char *text = read_file("en.csv");
    char *at = strstr(text, ",engine=propnet\n");
    assert_non_null(at);
    expect(2, "another engine", "tournament '%s' --a random --b random --games 2 --csv en.csv --resume --quiet --engine rules",
           game);
    expect(0, "result games=2", "tournament '%s' --a random --b random --games 2 --csv en.csv --resume --quiet", game);
    memmove(at, at + strlen(",engine=propnet"), strlen(at + strlen(",engine=propnet")) + 1);
    write_file("en_old.csv", text); /* a file of an earlier version */
    free(text);
    expect(0, "result games=2",
           "tournament '%s' --a random --b random --games 2 --csv en_old.csv --resume --quiet --engine rules", game);
    expect(0, "result", "tournament '%s' --a random --b random --games 2 --shard 0/2 --csv en0.csv --quiet", game);
    expect(0, "result", "tournament '%s' --a random --b random --games 2 --shard 1/2 --csv en1.csv --quiet --engine rules",
           game);
    expect(2, "another engine", "results merge en0.csv en1.csv");
    expect(2, "--sweep has the value '5' twice",
           "tournament '%s' --a uct --b random --games 2 --sweep playouts=5,5 --csv sw.csv --quiet", game);
}

/* bench/run_list.sh goes on past a tournament that fails (a missing rule
 * file here; failed games alike): the next line still plays, and the
 * list's status is the worst of its lines'. */
static void test_run_list_goes_on(void **state)
{
    (void)state;
    char list[1200];
    snprintf(list, sizeof list,
             "# games: 2\n"
             "gone /nonexistent/none.kif random random 1 rl/gone.csv 1\n"
             "ttt %s random random 2 rl/ttt.csv 1\n",
             game);
    write_file("list.txt", list);
    char cmd[2048], *out;
    snprintf(cmd, sizeof cmd, "cd '%s' && GGP='%s' OUT='%s' '%s/bench/run_list.sh' list.txt 0 2>&1", dir, GGP_BIN, dir,
             GGP_SOURCE_DIR);
    int st = tu_run(cmd, &out);
    if (st != 2 || !strstr(out, "gone: exit status 2") || !strstr(out, "ttt result games=2"))
        fail_msg("run_list.sh: status %d (want 2, and the second line played):\n%s", st, out);
    free(out);
    char *csv = read_file("rl/ttt.csv");
    assert_int_equal(tu_count_char(csv, '\n'), 2 + 2);
    free(csv);
}

/* Two runs on one CSV: the second is refused while the first holds it
 * (their rows interleaved made a file neither resume nor merge can read),
 * and resumes once the first has stopped. */
static void test_csv_in_use(void **state)
{
    (void)state;
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && exec '%s' tournament '%s' --a uct:playouts=3000 --b uct:playouts=3000 --games 400 --csv lk.csv "
             "--quiet",
             dir, GGP_BIN, game);
    int pid = tu_spawn(cmd);
    char path[256];
    snprintf(path, sizeof path, "%s/lk.csv", dir);
    char *rows = tu_wait_lines(path, 3, 30000); /* the header and a game: running, locked */
    assert_non_null(rows);
    free(rows);
    expect(2, "lk.csv is in use by another run",
           "tournament '%s' --a uct:playouts=3000 --b uct:playouts=3000 --games 400 --csv lk.csv --resume --quiet", game);
    expect(2, "lk.csv is in use by another run",
           "tournament '%s' --a uct:playouts=3000 --b uct:playouts=3000 --games 400 --csv lk.csv --quiet", game);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    /* a device is not a record two runs share: --csv /dev/null while
     * another holds a lock on it */
    int null = open("/dev/null", O_WRONLY);
    assert_true(null >= 0);
    assert_int_equal(flock(null, LOCK_EX), 0);
    expect(0, "result games=2", "tournament '%s' --a random --b random --games 2 --csv /dev/null --quiet", game);
    close(null);
    /* the lock went with the run: a resume goes on (a few games, then stopped) */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && timeout -s INT 3 '%s' tournament '%s' --a uct:playouts=3000 --b uct:playouts=3000 --games 400 "
             "--csv lk.csv --resume --quiet 2>&1",
             dir, GGP_BIN, game);
    char *out;
    int st = tu_run(cmd, &out);
    if (strstr(out, "in use")) fail_msg("resume after the run ended: status %d:\n%s", st, out);
    free(out);
}

/* A run killed while it wrote its header left part of it and no game:
 * --resume starts the file afresh (it refused it as not a CSV of ours).
 * Part of another tournament's header is still refused. */
static void test_resume_cut_header(void **state)
{
    (void)state;
    expect(0, "result games=2", "tournament '%s' --a random --b random --games 2 --csv hc_full.csv --quiet", game);
    char *text = read_file("hc_full.csv");
    char *nl = strchr(text, '\n');
    assert_non_null(nl);
    for (size_t cut = 1; cut < (size_t)(nl - text) + 2; cut += 37) {
        char saved = text[cut];
        text[cut] = '\0';
        write_file("hc.csv", text);
        text[cut] = saved;
        expect(0, "result games=2", "tournament '%s' --a random --b random --games 2 --csv hc.csv --resume --quiet", game);
    }
    text[40] = '\0';
    write_file("hc.csv", text);
    expect(2, "--resume", "tournament '%s' --a random --b random --games 3 --csv hc.csv --resume --quiet", game);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shards_partition_and_merge),
        cmocka_unit_test(test_engine_and_sweep),
        cmocka_unit_test(test_run_list_goes_on),
        cmocka_unit_test(test_csv_in_use),
        cmocka_unit_test(test_resume_cut_header),
        cmocka_unit_test(test_sweep_shards),
        cmocka_unit_test(test_shard_kill_resume),
        cmocka_unit_test(test_csv_replaced_while_running),
        cmocka_unit_test(test_merge_rejects),
        cmocka_unit_test(test_shard_options),
        cmocka_unit_test(test_progress_lines),
        cmocka_unit_test(test_rr_shards_partition_and_merge),
        cmocka_unit_test(test_rr_shard_kill_resume),
        cmocka_unit_test(test_rr_merge_rejects),
        cmocka_unit_test(test_max_steps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
