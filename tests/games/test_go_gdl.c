/* test_go_gdl.c - the native Go against games/go5.kif, a Go in GDL with
 * the same rules (the simple ko rule: the native game as go5:ko=simple).
 * Random traces written by each engine are replayed by the other (`ggp
 * trace`, `ggp replay`: every state as its fluents, every role's legal
 * moves, terminal flags and goals compared), and perft counts from the
 * start agree. */
#include "testutil.h"

#include <stdlib.h>
#include <unistd.h>

#define KIF GGP_SOURCE_DIR "/games/go5.kif"
#define NATIVE "go5:ko=simple"
#define TRACES 40

static char dir[] = "/tmp/ggp_go_gdl_XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Write TRACES traces with game `from` (seeds from seed0), replay them all
 * with `to` (and its --engine); returns how many had a ko fluent. */
static int traces_agree(const char *from, const char *to, const char *engine, const char *tag, unsigned seed0)
{
    int with_ko = 0;
    char cmd[8192];
    int off = snprintf(cmd, sizeof cmd, "%s replay %s %s --quiet", GGP_BIN, to, engine);
    for (unsigned i = 0; i < TRACES; i++) {
        char path[512], tcmd[1024];
        snprintf(path, sizeof path, "%s/%s%u.txt", dir, tag, i);
        snprintf(tcmd, sizeof tcmd, "%s trace %s --seed %u > %s", GGP_BIN, from, seed0 + i, path);
        char *out = NULL;
        if (tu_run(tcmd, &out) != 0) fail_msg("%s: %s", tcmd, out);
        free(out);
        char *text = tu_read_file(path);
        assert_non_null(text);
        with_ko += strstr(text, "(ko ") != NULL;
        free(text);
        off += snprintf(cmd + off, sizeof cmd - (size_t)off, " %s", path);
    }
    char *out = NULL;
    int rc = tu_run(cmd, &out);
    char want[128];
    snprintf(want, sizeof want, "replayed %d traces: %d ok, 0 failed", TRACES, TRACES);
    if (rc != 0 || !strstr(out, want)) fail_msg("%s -> %s %s: exit %d\n%s", from, to, engine, rc, out);
    free(out);
    return with_ko;
}

static void test_traces_both_ways(void **state)
{
    (void)state;
    int ko = traces_agree(KIF, NATIVE, "", "gdl", 1);
    ko += traces_agree(NATIVE, KIF, "--engine propnet", "nat", 1001);
    /* the rules engine too, on fewer plies' worth of time: the same traces */
    ko += traces_agree(NATIVE, KIF, "--engine rules", "natr", 2001);
    /* the ko rule was met, not only plain placements */
    assert_true(ko >= 3);
}

/* perft's level lines (not its timing line) */
static char *levels(const char *game, unsigned depth)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s perft %s --depth %u", GGP_BIN, game, depth);
    if (tu_run(cmd, &out) != 0) fail_msg("%s: %s", cmd, out);
    char *t = strstr(out, "\ntime:");
    assert_non_null(t);
    t[1] = '\0';
    return out;
}

static void test_perft_agrees(void **state)
{
    (void)state;
    char *native = levels(NATIVE, 4), *gdl = levels(KIF, 4);
    assert_string_equal(native, gdl);
    /* the figures themselves: 25 points and pass, then a pass ends nothing
     * until the second; the one terminal at depth 2 is pass, pass */
    assert_non_null(strstr(native, "depth 1: paths=26 states=26 terminals=0\n"));
    assert_non_null(strstr(native, "depth 2: paths=651 states=651 terminals=1\n"));
    assert_non_null(strstr(native, "depth 4: paths=361041 states=98237 terminals=625\n"));
    free(native);
    free(gdl);
    /* under positional superko the same paths and terminals, but every
     * path is a state of its own: the boards met on the way are part of a
     * state (they decide later moves' legality), so two orders of the same
     * moves do not meet */
    char *pos = levels("go5", 3);
    assert_non_null(strstr(pos, "depth 3: paths=15650 states=15650 terminals=25\n"));
    free(pos);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_traces_both_ways),
        cmocka_unit_test(test_perft_agrees),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
