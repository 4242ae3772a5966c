/* test_roundrobin.c - `ggp roundrobin` on a 3-method toy run: each
 * method's games and score add up over the pairs, the intervals are
 * Agresti-Coull's, the pair table is consistent, --jobs changes nothing,
 * a run cut short and --resumed gives the same table, and the methods a
 * game does not suit are refused with the reason. */
#include "testutil.h"

#include <math.h>
#include <unistd.h>

#include "search/search.h"
#include "search/st_util.h"

#define run st_run_ggp

typedef struct row {
    double games, score, lo, hi, secs;
} row_t;

/* The `result method=...` lines of a run. */
static uint32_t results(const char *out, row_t *rows, uint32_t max)
{
    uint32_t n = 0;
    for (const char *p = out; (p = strstr(p, "result method=")) != NULL; p++) {
        unsigned m;
        row_t r;
        if (sscanf(p, "result method=%u games=%lf score=%lf ci_low=%lf ci_high=%lf seconds_per_game=%lf", &m, &r.games,
                   &r.score, &r.lo, &r.hi, &r.secs) == 6 &&
            m >= 1 && m <= max) {
            rows[m - 1] = r;
            n++;
        }
    }
    return n;
}

#define TOY "--player random --player uct:playouts=60 --player ab:depth=9 --games-per-pair 6 --quiet"

static void test_toy_table(void **state)
{
    (void)state;
    const char *ttt = st_shared_game("ticTacToe.kif");
    if (!ttt) return;
    char args[2048];
    snprintf(args, sizeof args, "roundrobin %s " TOY, ttt);
    int st;
    char *out = run(args, &st);
    assert_int_equal(st, 0);
    row_t r[3];
    assert_int_equal(results(out, r, 3), 3);
    double wins = 0;
    for (int i = 0; i < 3; i++) {
        assert_float_equal(r[i].games, 12, 0); /* two opponents, 6 games each */
        wins += r[i].score * r[i].games;
        double lo, hi;
        search_agresti_coull(r[i].score * r[i].games, r[i].games, &lo, &hi);
        assert_float_equal(lo, r[i].lo, 1e-4);
        assert_float_equal(hi, r[i].hi, 1e-4);
        assert_true(r[i].secs >= 0);
    }
    assert_float_equal(wins, 18, 1e-6); /* one point per game: 3 pairs x 6 */
    assert_true(r[0].score < r[1].score && r[0].score < r[2].score); /* random is last */
    assert_non_null(strstr(out, "score of the row against the column"));
    /* --jobs 2: the same games, the same table */
    snprintf(args, sizeof args, "roundrobin %s " TOY " --jobs 2", ttt);
    char *out2 = run(args, &st);
    assert_int_equal(st, 0);
    row_t r2[3];
    assert_int_equal(results(out2, r2, 3), 3);
    for (int i = 0; i < 3; i++) assert_float_equal(r2[i].score, r[i].score, 0);
    free(out);
    free(out2);
}

static void test_resume(void **state)
{
    (void)state;
    const char *ttt = st_shared_game("ticTacToe.kif");
    if (!ttt) return;
    char csv[] = "/tmp/ggp_rr_XXXXXX";
    int fd = mkstemp(csv);
    assert_true(fd >= 0);
    close(fd);
    char args[2048];
    snprintf(args, sizeof args, "roundrobin %s " TOY " --csv %s", ttt, csv);
    int st;
    char *full = run(args, &st);
    assert_int_equal(st, 0);
    /* keep the head (2 lines), 5 rows and half of the sixth (a kill while
     * writing) */
    char *text = tu_read_file(csv);
    char *p = text;
    for (int i = 0; i < 7; i++) p = strchr(p, '\n') + 1;
    size_t keep = (size_t)(p - text) + 10;
    FILE *f = fopen(csv, "w");
    fwrite(text, 1, keep, f);
    fclose(f);
    snprintf(args, sizeof args, "roundrobin %s " TOY " --csv %s --resume", ttt, csv);
    char *resumed = run(args, &st);
    assert_int_equal(st, 0);
    row_t a[3], b[3];
    assert_int_equal(results(full, a, 3), 3);
    assert_int_equal(results(resumed, b, 3), 3);
    for (int i = 0; i < 3; i++) assert_float_equal(a[i].score, b[i].score, 0);
    char *again = tu_read_file(csv);
    size_t lines = 0;
    for (char *q = again; *q; q++) lines += *q == '\n';
    assert_int_equal(lines, 2 + 18);
    /* other players: the rows are refused */
    snprintf(args, sizeof args, "roundrobin %s --player random --player uct:playouts=61 --player ab:depth=9 "
                                "--games-per-pair 6 --quiet --csv %s --resume", ttt, csv);
    char *bad = run(args, &st);
    assert_int_equal(st, 2);
    assert_non_null(strstr(bad, ":1: other players (other --player options"));
    free(full);
    free(text);
    free(resumed);
    free(again);
    free(bad);
    unlink(csv);
}

static void test_errors(void **state)
{
    (void)state;
    const char *three = st_shared_game("tictactoe_3player.kif");
    if (!three) return;
    char args[2048];
    snprintf(args, sizeof args, "roundrobin %s --player ab --player uct --games-per-pair 2", three);
    int st;
    char *out = run(args, &st);
    assert_int_equal(st, 2);
    assert_non_null(strstr(out, "two-player"));
    free(out);
    snprintf(args, sizeof args, "roundrobin %s --player uct --games-per-pair 2", three);
    out = run(args, &st);
    assert_int_equal(st, 2);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toy_table),
        cmocka_unit_test(test_resume),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
