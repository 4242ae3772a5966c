/* test_cli.c - `ggp players`, `ggp play` and `ggp tournament`: output
 * format, exit codes, reproducibility (same seed, same game; a tournament
 * game replays alone with the printed command; --jobs does not change
 * results), CSV and SVG output of a sweep; a tournament killed with
 * SIGKILL keeps its finished games and --resume completes it to the
 * result of an uninterrupted run; write errors exit 2 with a message. */
#include "testutil.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "search/search.h"
#include "st_util.h"

static char *run(const char *args, int *status)
{
    char cmd[4096 + 512];
    snprintf(cmd, sizeof cmd, "%s %s", GGP_BIN, args);
    char *out = NULL;
    *status = tu_run(cmd, &out);
    return out ? out : calloc(1, 1);
}

static const char *last_line(char *out)
{
    size_t n = strlen(out);
    while (n && out[n - 1] == '\n') out[--n] = 0;
    char *nl = strrchr(out, '\n');
    return nl ? nl + 1 : out;
}

#define game st_shared_game

/* `ggp ARGS` exits with status and prints needle (tu_ggp_expect). */
#define expect(...) tu_ggp_expect(NULL, __VA_ARGS__)

static void test_players(void **state)
{
    (void)state;
    int st;
    char *out = run("players", &st);
    assert_int_equal(st, 0);
    const char *names[] = {"random", "mc", "uct", "uct2", "uctr", "grave", "grave2", "graver", "graver2"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) assert_non_null(strstr(out, names[i]));
    assert_non_null(strstr(out, "lambda"));
    free(out);
    out = run("players --help", &st);
    assert_int_equal(st, 0);
    free(out);
}

static void test_play(void **state)
{
    (void)state;
    const char *f = game("ticTacToe.kif");
    if (!f) return;
    char args[2048];
    snprintf(args, sizeof args, "play %s --player grave:playouts=300 --player uct:playouts=300 --seed 3", f);
    int st;
    char *out = run(args, &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(out, "step 1: xplayer=(mark "));
    assert_non_null(strstr(out, " oplayer=noop\n"));
    assert_non_null(strstr(out, "state: "));
    assert_non_null(strstr(out, "(cell 1 1 "));
    char *again = run(args, &st);
    assert_string_equal(out, again); /* same seed, same game */
    const char *last = last_line(out);
    int gx, go;
    if (sscanf(last, "goals xplayer=%d oplayer=%d", &gx, &go) != 2) fail_msg("last line: %s", last);
    assert_int_equal(gx + go, 100);
    free(out);
    free(again);

    snprintf(args, sizeof args, "play %s --player grave:playouts=300 --player uct:playouts=300 --seed 3 --quiet", f);
    out = run(args, &st);
    assert_int_equal(st, 0);
    assert_null(strstr(out, "step 1"));
    assert_int_equal(strncmp(last_line(out), "goals xplayer=", 14), 0);
    free(out);

    /* a puzzle: GRAVE solves buttons (goal 100) */
    const char *b = game("buttons.kif");
    snprintf(args, sizeof args, "play %s --player grave:playouts=3000 --quiet", b);
    out = run(args, &st);
    assert_int_equal(st, 0);
    assert_string_equal(last_line(out), "goals robot=100");
    free(out);
}

/* --verbose shows each search's report; compete's later searches start
 * from the visits its earlier ones left in the kept subtree (reused=), the
 * first and those of reuse=off from none. */
static void test_play_verbose_reused(void **state)
{
    (void)state;
    char args[2048];
    int st;
    for (int reuse = 1; reuse >= 0; reuse--) {
        snprintf(args, sizeof args,
                 "play %s/games/tictactoe.kif --player compete:playouts=400,threads=1,reuse=%s --player random "
                 "--seed 3 --verbose",
                 GGP_SOURCE_DIR, reuse ? "on" : "off");
        char *out = run(args, &st);
        assert_int_equal(st, 0);
        const char *first = strstr(out, "\n  xplayer: playouts=");
        if (!first) fail_msg("no search report of xplayer:\n%s", out);
        size_t at = (size_t)(first - out) + 1, len = strcspn(out + at, "\n");
        assert_true(out[at + len] == '\n');
        out[at + len] = 0;
        assert_null(strstr(out + at, " reused=")); /* nothing to keep yet */
        const char *r = strstr(out + at + len + 1, " reused=");
        if (reuse) {
            if (!r) fail_msg("no reused= in a later search:\n%s", out);
            assert_true(strtoull(r + 8, NULL, 10) > 0);
        } else {
            assert_null(r);
        }
        free(out);
    }
}

static void test_play_errors(void **state)
{
    (void)state;
    const char *f = game("ticTacToe.kif");
    if (!f) return;
    expect(2, "2 roles (xplayer, oplayer)", "play %s --player grave", f);
    expect(2, "bad value for bias: '7000'", "play %s --player grave:bias=7000 --player uct", f);
    expect(2, "inapplicable key 'nodes' for grave", "play %s --player grave:nodes=9 --player uct", f);
    expect(2, "cannot read", "play /nonexistent/x.kif --player grave --player uct");
    expect(2, "unknown option", "play %s --player grave --player uct --bogus", f);
    expect(0, "--player", "play --help");
    /* a node-bounded pool is allocated whole: 10^8 nodes of hex7 (about
     * 80 GB with their AMAF rows) are refused, naming nodes=, instead of
     * aborting out of memory (skipped on a machine with the RAM for it) */
    char hex[1024];
    snprintf(hex, sizeof hex, "%s/games/hex7.kif", GGP_SOURCE_DIR);
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && size > 0 && (double)pages * (double)size < 150e9)
        expect(1, "nodes=100000000 needs", "play %s --player graver:nodes=100000000,playouts=10 --player random", hex);
}

typedef struct result {
    unsigned games, wins, draws, losses;
    double score, lo, hi;
} result_t;

static result_t parse_result(const char *line)
{
    result_t r;
    if (sscanf(line, "result games=%u wins=%u draws=%u losses=%u score=%lf ci_low=%lf ci_high=%lf", &r.games,
               &r.wins, &r.draws, &r.losses, &r.score, &r.lo, &r.hi) != 7)
        fail_msg("bad result line: %s", line);
    return r;
}

static void test_tournament(void **state)
{
    (void)state;
    const char *f = game("ticTacToe.kif");
    if (!f) return;
    char args[2048];
    int st;
    snprintf(args, sizeof args,
             "tournament %s --a grave:playouts=200 --b uct:playouts=100 --games 6 --seed 5 --quiet", f);
    char *one = run(args, &st);
    assert_int_equal(st, 0);
    result_t r = parse_result(last_line(one));
    assert_int_equal(r.games, 6);
    assert_int_equal(r.wins + r.draws + r.losses, 6);
    assert_float_equal(r.score, (r.wins + r.draws / 2.0) / 6, 1e-4);
    double lo, hi;
    search_agresti_coull(r.wins + r.draws / 2.0, 6, &lo, &hi);
    assert_float_equal(r.lo, lo, 1e-4);
    assert_float_equal(r.hi, hi, 1e-4);
    /* parallel games give the same results */
    snprintf(args, sizeof args,
             "tournament %s --a grave:playouts=200 --b uct:playouts=100 --games 6 --seed 5 --quiet --jobs 3", f);
    char *par = run(args, &st);
    assert_int_equal(st, 0);
    assert_string_equal(last_line(par), last_line(one));
    free(one);
    free(par);
}

static void test_tournament_replay(void **state)
{
    (void)state;
    const char *f = game("ticTacToe.kif");
    if (!f) return;
    char args[2048];
    int st;
    snprintf(args, sizeof args,
             "tournament %s --a grave:playouts=150 --b mc:playouts=100 --games 3 --seed 11 --quiet --verbose", f);
    char *out = run(args, &st);
    assert_int_equal(st, 0);
    /* game 1 has A in seat 1 (oplayer) */
    char *g1 = strstr(out, "game 1: ");
    assert_non_null(g1);
    assert_non_null(strstr(g1, "A=oplayer"));
    char goals[256];
    const char *gs = strstr(g1, "goals ");
    const char *end = strchr(gs, '\n');
    snprintf(goals, sizeof goals, "%.*s", (int)(end - gs), gs);
    *strrchr(goals, ' ') = 0; /* drop the outcome word */
    char *rp = strstr(g1, "replay: ggp ");
    assert_non_null(rp);
    rp += strlen("replay: ggp ");
    char *rend = strchr(rp, '\n');
    *rend = 0;
    char *rout = run(rp, &st);
    assert_int_equal(st, 0);
    assert_string_equal(last_line(rout), goals);
    free(rout);
    free(out);
}

static void test_tournament_sweep(void **state)
{
    (void)state;
    const char *f = game("ticTacToe.kif");
    if (!f) return;
    char csv[] = "/tmp/ggp_sweep_XXXXXX";
    int fd = mkstemp(csv);
    assert_true(fd >= 0);
    close(fd);
    char svg[300];
    snprintf(svg, sizeof svg, "%s.svg", csv);
    char args[2048];
    int st;
    snprintf(args, sizeof args,
             "tournament %s --a grave:playouts=50 --b random --games 2 --seed 2 --quiet --sweep playouts=20,60 "
             "--csv %s --plot %s",
             f, csv, svg);
    char *out = run(args, &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(out, "result playouts=20 games=2 "));
    assert_non_null(strstr(out, "result playouts=60 games=2 "));
    char *c = tu_read_file(csv);
    assert_non_null(c);
    assert_int_equal(strncmp(c, "key,value,games,wins", 20), 0);
    assert_non_null(strstr(c, "\nplayouts,20,2,"));
    assert_non_null(strstr(c, "\nplayouts,60,2,"));
    assert_non_null(strstr(c, "\"grave:playouts=50,playouts=60\""));
    char *s = tu_read_file(svg);
    assert_non_null(s);
    assert_non_null(strstr(s, "<svg"));
    assert_non_null(strstr(s, "</svg>"));
    int circles = 0;
    for (const char *p = s; (p = strstr(p, "<circle")) != NULL; p++) circles++;
    assert_int_equal(circles, 2);
    free(c);
    free(s);
    free(out);
    remove(csv);
    remove(svg);
}

static void test_tournament_kill_and_resume(void **state)
{
    (void)state;
    const char *f = game("ticTacToe.kif");
    if (!f) return;
    enum { GAMES = 16 };
    char ref[] = "/tmp/ggp_resume_ref_XXXXXX", csv[] = "/tmp/ggp_resume_XXXXXX";
    close(mkstemp(ref));
    close(mkstemp(csv));
    const char *players = "--a grave:playouts=20000 --b uct:playouts=20000";
    char args[2048];
    int st;
    snprintf(args, sizeof args, "tournament %s %s --games %d --seed 3 --quiet --csv %s", f, players, GAMES, ref);
    char *want = run(args, &st);
    assert_int_equal(st, 0);
    int n_ref;
    char *ref_set = tu_csv_rows(ref, 7, &n_ref);
    assert_int_equal(n_ref, GAMES);

    /* The same tournament, two games at a time, killed once two games have
     * ended (about 150 ms each: the run is far from its end). */
    snprintf(args, sizeof args, "exec %s tournament %s %s --games %d --seed 3 --quiet --jobs 2 --csv %s >/dev/null",
             GGP_BIN, f, players, GAMES, csv);
    pid_t pid = tu_spawn(args);
    char *text = tu_wait_lines(csv, 4, 30000); /* head (2 lines) + 2 games */
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    assert_true(WIFSIGNALED(st));
    free(text);
    text = tu_read_file(csv);
    int kept = tu_count_char(text, '\n') - 2; /* the metadata and header lines */
    printf("note: %d of %d games kept after kill -9\n", kept, GAMES);
    assert_true(kept >= 2);
    assert_true(kept < GAMES);
    free(text);
    /* A kill in the middle of a row leaves half a line: resume drops it. */
    FILE *fp = fopen(csv, "a");
    fputs("15,1234,xpla", fp);
    fclose(fp);

    snprintf(args, sizeof args, "tournament %s %s --games %d --seed 4 --quiet --csv %s --resume", f, players, GAMES,
             csv);
    expect(2, "another seed (another --seed?)", "%s", args);
    snprintf(args, sizeof args, "tournament %s %s --games %d --seed 3 --quiet --jobs 2 --csv %s --resume", f, players,
             GAMES, csv);
    char *got = run(args, &st);
    assert_int_equal(st, 0);
    assert_string_equal(last_line(got), last_line(want));
    int n_got;
    char *got_set = tu_csv_rows(csv, 7, &n_got);
    assert_int_equal(n_got, GAMES);
    assert_string_equal(got_set, ref_set);
    /* nothing left to play: the same result again */
    char *again = run(args, &st);
    assert_int_equal(st, 0);
    assert_string_equal(last_line(again), last_line(want));
    free(again);
    free(got);
    free(got_set);
    free(ref_set);
    free(want);
    remove(ref);
    remove(csv);
}

/* A full disk is an error that names the file, never a silent exit 0. */
static void test_tournament_write_errors(void **state)
{
    (void)state;
    const char *f = game("ticTacToe.kif");
    if (!f) return;
    if (access("/dev/full", W_OK) != 0) {
        printf("note: no /dev/full; skipping\n");
        skip();
    }
    const char *nospace = "cannot write /dev/full: No space left on device";
    expect(2, nospace, "tournament %s --a grave:playouts=20 --b random --games 2 --quiet --csv /dev/full", f);
    expect(2, nospace, "tournament %s --a grave:playouts=20 --b random --games 2 --quiet --sweep playouts=10,20 "
                       "--csv /dev/full", f);
    expect(2, nospace, "tournament %s --a grave:playouts=20 --b random --games 2 --quiet --sweep playouts=10,20 "
                       "--plot /dev/full", f);
    expect(2, "cannot write /nonexistent/p.svg", "tournament %s --a grave --b random --games 2 --quiet --sweep "
                                                 "playouts=10,20 --plot /nonexistent/p.svg", f);
    expect(2, "--resume needs --csv", "tournament %s --a grave --b random --games 2 --resume", f);
}

static void test_tournament_errors(void **state)
{
    (void)state;
    const char *f = game("ticTacToe.kif");
    if (!f) return;
    expect(2, "--games are required", "tournament %s --a grave --b uct", f);
    expect(2, "--plot needs --sweep", "tournament %s --a grave --b uct --games 2 --plot x.svg", f);
    expect(2, "unknown key 'zap'", "tournament %s --a grave --b uct:zap=1 --games 2", f);
    expect(2, "expected KEY=V1,V2", "tournament %s --a grave --b uct --games 2 --sweep bias", f);
    expect(2, "bad value for bias", "tournament %s --a grave --b uct --games 2 --sweep bias=0.1,9000", f);
    expect(2, "at least 2", "tournament %s --a grave --b uct --games 2", game("buttons.kif"));
    expect(0, "--sweep", "tournament --help");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_players),           cmocka_unit_test(test_play),
        cmocka_unit_test(test_play_errors),       cmocka_unit_test(test_tournament),
        cmocka_unit_test(test_tournament_replay), cmocka_unit_test(test_tournament_sweep),
        cmocka_unit_test(test_tournament_errors), cmocka_unit_test(test_tournament_kill_and_resume),
        cmocka_unit_test(test_tournament_write_errors), cmocka_unit_test(test_play_verbose_reused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
