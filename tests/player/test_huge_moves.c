/* test_huge_moves.c - issue 13 item 5 over loopback: a game whose `legal`
 * gives each role 40^4 = 2,560,000 moves (tests/player/huge_moves.kif)
 * played by two `ggp serve` players under `ggp match --startclock 8
 * --playclock 6` (before the fix START took 12.3 s and PLAY 11.8 s; after
 * it 4.5 s and 2.5 s alone, more when ctest runs other tests beside it,
 * hence the margin). Every reply must come on time: START `ready` even while
 * the rules still compile, PLAY a legal move. The record then has no TO
 * (late) and no IL (illegal) entry. A CE (a PLAY answered on time while
 * the rules are still loading, on a loaded machine) is reported, not
 * failed. Bounded by `timeout 90`. */
#include "testutil.h"

#include <unistd.h>

#include "procs.h"

static void test_huge_move_sets_reply_on_time(void **state)
{
    (void)state;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s match --help", GGP_BIN);
    if (tu_run(cmd, NULL) != 0) {
        printf("note: ggp was built without libcurl (no 'ggp match'); skipping\n");
        return;
    }
    char log1[300], log2[300], rec[300];
    snprintf(log1, sizeof log1, "%s/p1.log", procs_tmpdir());
    snprintf(log2, sizeof log2, "%s/p2.log", procs_tmpdir());
    snprintf(rec, sizeof rec, "%s/rec.json", procs_tmpdir());
    serve_proc_t a, b;
    assert_true(serve_start(&a, log1, NULL));
    assert_true(serve_start(&b, log2, NULL));
    snprintf(cmd, sizeof cmd,
             "timeout 90 %s match %s/tests/player/huge_moves.kif --startclock 8 --playclock 6 --out %s %s %s",
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
    for (int i = 0; i < n; i++)
        if (!strcmp(errors[i], "TO") || !strncmp(errors[i], "IL", 2))
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_huge_move_sets_reply_on_time, procs_reap_all),
    };
    return cmocka_run_group_tests(tests, procs_make_tmpdir, procs_remove_tmpdir);
}
