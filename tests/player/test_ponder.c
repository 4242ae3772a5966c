/* test_ponder.c - pondering (issue 12): with compete's ponder=on the
 * session searches on after each reply, so the tree has grown by the time
 * the next PLAY comes. */
#include "testutil.h"

#include <time.h>

#include "base/clock.h"
#include "player/proto/engine_gdl.h"
#include "player/proto/session.h"
#include "search/search.h"
#include "../search/st_util.h"

/* ---- pondering through the session ------------------------------------------------- */

/* The tree's resident peak reported in a step's log note. */
static uint64_t note_nodes(FILE *log, const char *step)
{
    fflush(log);
    rewind(log);
    char line[2048];
    uint64_t kept = UINT64_MAX;
    while (fgets(line, sizeof line, log)) {
        const char *p = strstr(line, step);
        if (!p) continue;
        const char *q = strstr(p, " nodes,");
        if (!q) continue;
        while (q > p && q[-1] != ' ') q--;
        kept = strtoull(q, NULL, 10);
    }
    return kept;
}

static void wait_ms(uint64_t ms)
{
    struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static uint64_t ponder_nodes(const char *kif_text, bool ponder)
{
    char err[256];
    search_spec_t *spec = search_spec_parse(ponder ? "compete:seconds=86400" : "compete:seconds=86400,ponder=off", err,
                                            sizeof err);
    assert_non_null(spec);
    gdl_engine_config_t ec = {.spec = spec, .game_options = {.engine = ENGINE_PROPNET}};
    engine_t engine;
    engine_gdl_init(&engine, &ec);
    FILE *log = tmpfile();
    assert_non_null(log);
    session_config_t sc = {.name = "t", .margin_ms = 800, .engine = &engine, .log = log, .seed = 1,
                           .ponder = search_spec_ponders(spec)};
    assert_true(sc.ponder == ponder);
    session_t *s = session_new(&sc);
    size_t n = strlen(kif_text) + 256;
    char *msg = malloc(n);
    snprintf(msg, n, "(start m1 black (%s) 1 1)", kif_text);
    char *reply = NULL;
    assert_int_equal(session_handle(s, msg, strlen(msg), clock_now_ns(), &reply), 200);
    assert_string_equal(reply, "ready");
    free(reply);
    const char *play1 = "(play m1 nil)";
    assert_int_equal(session_handle(s, play1, strlen(play1), clock_now_ns(), &reply), 200);
    free(reply);
    /* the opponent thinks for a while: our player ponders meanwhile */
    wait_ms(1000);
    const char *play2 = "(play m1 ((drop 4) noop))";
    assert_int_equal(session_handle(s, play2, strlen(play2), clock_now_ns(), &reply), 200);
    free(reply);
    uint64_t kept = note_nodes(log, "step 1:");
    const char *stop = "(abort m1)";
    assert_int_equal(session_handle(s, stop, strlen(stop), clock_now_ns(), &reply), 200);
    free(reply);
    session_free(s);
    fclose(log);
    free(msg);
    search_spec_free(spec);
    return kept;
}

static void test_ponder_grows_tree(void **state)
{
    (void)state;
    const char *path = st_shared_game("connectFour.kif");
    if (!path) {
        skip();
        return;
    }
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    /* strip ; comments: the message is one s-expression */
    for (char *p = text; *p; p++)
        if (*p == ';')
            while (*p && *p != '\n') *p++ = ' ';
    /* The first PLAY searches 0.2 s (1 s clock, 0.8 s margin); then 1 s
     * pass before the second PLAY. Pondering adds that second of search (a
     * node per playout) to the tree that the second PLAY reports. */
    uint64_t off = ponder_nodes(text, false), on = ponder_nodes(text, true);
    assert_true(off != UINT64_MAX && on != UINT64_MAX);
    printf("note: tree nodes at the second PLAY: %llu without pondering, %llu with\n", (unsigned long long)off,
           (unsigned long long)on);
    assert_true(on > off + 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ponder_grows_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
