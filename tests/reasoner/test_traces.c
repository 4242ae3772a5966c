/* test_traces.c - every reference trace in shared/traces replays exactly
 * (`ggp replay`, run as a program) with one engine: auto here;
 * test_traces_rules.c and test_traces_propnet.c include this file with
 * TRACES_ENGINE set, so each engine is its own ctest test (and the three can
 * run side by side); test_traces_eliminate.c is the propnet with every
 * rule's variables eliminated (TRACES_EXTRA_ARGS).
 *
 * auto and rules must match every trace. propnet must match every game it
 * grounds; a game whose propnet compile fails (grounding budget) is listed,
 * not failed.
 *
 * CI time is bounded by a time limit per trace (`ggp replay --time-limit`,
 * TRACES_TIME_LIMIT seconds, or GGP_TRACE_TIME_LIMIT; 0 = none): a trace cut
 * by it is listed as incomplete with the lines that did match, not failed,
 * unless more than half the traces are cut (the check would be too weak).
 * The full check is `GGP_TRACE_TIME_LIMIT=0` on a release build.
 * GGP_TRACE_GAMES=ticTacToe,chess limits the run to some games (for
 * debugging). Skips, saying so, when the corpus is absent. */
#include "testutil.h"

#include <dirent.h>
#include <time.h>

#include "reasoner/game.h"

#ifndef TRACES_ENGINE
#define TRACES_ENGINE ENGINE_AUTO
#endif
/* More options of `ggp replay` (test_traces_eliminate.c). */
#ifndef TRACES_EXTRA_ARGS
#define TRACES_EXTRA_ARGS ""
#endif

/* Seconds allowed to one trace; past it the trace is incomplete. */
#ifndef TRACES_TIME_LIMIT
#define TRACES_TIME_LIMIT 1
#endif
/* Seconds allowed to one game's replays, beyond the per-trace limits (a hang
 * inside one step must not stall CI). Loading is in it: mummymaze1p's
 * static relations take 17 s in a release build and about 34 s in a dev
 * one, and past 60 s once under AddressSanitizer on a loaded machine. */
#define TRACES_GAME_TIMEOUT 180
/* Grounding budget (ms) given to the propnet: a game past it is "not
 * grounded" (listed); smaller than the default to bound CI time. */
#define TRACES_GROUND_MS 5000

typedef struct game_traces {
    char *game;
    char **files;
    size_t n, cap;
} game_traces_t;

static int cmp_games(const void *a, const void *b)
{
    return strcmp(((const game_traces_t *)a)->game, ((const game_traces_t *)b)->game);
}

static int cmp_strs(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool selected(const char *game)
{
    const char *f = getenv("GGP_TRACE_GAMES");
    if (!f || !*f) return true;
    size_t n = strlen(game);
    for (const char *p = f; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, game, n)) return true;
        p += len + (e ? 1 : 0);
    }
    return false;
}

/* Games listed in tests/reasoner/slow-games.txt (one name first on a line,
 * '#' comments) take minutes with the rules engine; they are replayed only
 * when GGP_TRACE_SLOW=1 (the default run keeps CI within its budget). */
static bool is_slow(const char *game)
{
    if (getenv("GGP_TRACE_SLOW") && !strcmp(getenv("GGP_TRACE_SLOW"), "1")) return false;
    char *text = tu_read_file(GGP_SOURCE_DIR "/tests/reasoner/slow-games.txt");
    if (!text) return false;
    bool slow = false;
    for (char *line = strtok(text, "\n"); line && !slow; line = strtok(NULL, "\n")) {
        char name[256];
        if (line[0] == '#' || sscanf(line, "%255s", name) != 1) continue;
        slow = !strcmp(name, game);
    }
    free(text);
    return slow;
}

/* Group NAME.K.trace files by NAME, sorted. */
static game_traces_t *list_traces(const char *dir, size_t *n_games)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    game_traces_t *g = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".trace")) continue;
        const char *dot = e->d_name + len - 6;
        const char *k = dot;
        while (k > e->d_name && k[-1] != '.') k--;
        size_t glen = k > e->d_name ? (size_t)(k - 1 - e->d_name) : (size_t)(dot - e->d_name);
        char *name = strndup(e->d_name, glen);
        if (!selected(name)) {
            free(name);
            continue;
        }
        size_t i = 0;
        while (i < n && strcmp(g[i].game, name)) i++;
        if (i == n) {
            if (n == cap) g = realloc(g, (cap = cap ? 2 * cap : 64) * sizeof *g);
            g[n++] = (game_traces_t){.game = name};
        } else {
            free(name);
        }
        if (g[i].n == g[i].cap) g[i].files = realloc(g[i].files, (g[i].cap = g[i].cap ? 2 * g[i].cap : 4) * sizeof(char *));
        g[i].files[g[i].n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(g, n, sizeof *g, cmp_games);
    for (size_t i = 0; i < n; i++) qsort(g[i].files, g[i].n, sizeof *g[i].files, cmp_strs);
    *n_games = n;
    return g;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_replay_all(void **state)
{
    (void)state;
    tu_shared_or_skip("traces"); /* skip unless both are there */
    char *games = strdup(tu_shared_or_skip("games"));
    char *traces = strdup(tu_shared("traces"));
    const bool propnet = TRACES_ENGINE == ENGINE_PROPNET;
    const char *engine = game_engine_name(TRACES_ENGINE);
    size_t n_games;
    game_traces_t *g = list_traces(traces, &n_games);
    size_t n_traces = 0, n_ok = 0, n_failed = 0, n_skipped = 0, n_incomplete = 0;
    char *failed_games = strdup(""), *not_grounded = strdup(""), *incomplete_games = strdup("");
    unsigned long limit = TRACES_TIME_LIMIT;
    const char *env_limit = getenv("GGP_TRACE_TIME_LIMIT");
    if (env_limit && *env_limit) limit = strtoul(env_limit, NULL, 10);
    double slowest = 0, t_all = now_s();
    const char *slowest_game = "";
    size_t n_slow = 0;
    char *slow_games = strdup("");
    for (size_t i = 0; i < n_games; i++) {
        if (is_slow(g[i].game)) {
            n_slow += g[i].n;
            size_t l = strlen(slow_games) + strlen(g[i].game) + 2;
            slow_games = realloc(slow_games, l);
            strcat(strcat(slow_games, " "), g[i].game);
            continue;
        }
        size_t cmd_len = 256 + strlen(TRACES_EXTRA_ARGS) + strlen(GGP_BIN) + strlen(games) + strlen(g[i].game);
        for (size_t j = 0; j < g[i].n; j++) cmd_len += strlen(traces) + strlen(g[i].files[j]) + 2;
        char *cmd = malloc(cmd_len);
        unsigned long timeout = limit ? TRACES_GAME_TIMEOUT + limit * g[i].n : 3600;
        int off = snprintf(cmd, cmd_len,
                           "timeout %lu %s replay --quiet --engine %s --ground-ms %d --time-limit %lu%s %s/%s.kif",
                           timeout, GGP_BIN, engine, TRACES_GROUND_MS, limit, TRACES_EXTRA_ARGS, games, g[i].game);
        for (size_t j = 0; j < g[i].n; j++)
            off += snprintf(cmd + off, cmd_len - (size_t)off, " %s/%s", traces, g[i].files[j]);
        double t0 = now_s();
        char *out = NULL;
        int rc = tu_run(cmd, &out);
        double dt = now_s() - t0;
        if (dt > slowest) {
            slowest = dt;
            slowest_game = g[i].game;
        }
        n_traces += g[i].n;
        unsigned long ok, bad, inc = 0;
        const char *sum = strstr(out, "replayed ");
        const char *colon = sum ? strchr(sum, ':') : NULL;
        bool parsed = colon && sscanf(colon, ": %lu ok, %lu failed, %lu incomplete", &ok, &bad, &inc) >= 2;
        if (propnet && rc == 1 && strstr(out, "does not compile with engine propnet")) {
            n_skipped += g[i].n;
            size_t l = strlen(not_grounded) + strlen(g[i].game) + 2;
            not_grounded = realloc(not_grounded, l);
            strcat(strcat(not_grounded, " "), g[i].game);
        } else if (parsed && bad == 0 && ok + inc == g[i].n && (rc == 0 || inc > 0)) {
            n_ok += ok;
            if (inc) {
                n_incomplete += inc;
                printf("%.2000s", out); /* the "incomplete: stopped at line K" lines */
                size_t l = strlen(incomplete_games) + strlen(g[i].game) + 2;
                incomplete_games = realloc(incomplete_games, l);
                strcat(strcat(incomplete_games, " "), g[i].game);
            }
        } else {
            n_ok += parsed ? ok : 0;
            n_failed += parsed ? g[i].n - ok : g[i].n;
            printf("FAIL %s (exit %d%s, %.1f s):\n%.4000s\n", g[i].game, rc,
                   rc == 124 ? ": killed by timeout, some step takes too long" : "", dt, out);
            size_t l = strlen(failed_games) + strlen(g[i].game) + 2;
            failed_games = realloc(failed_games, l);
            strcat(strcat(failed_games, " "), g[i].game);
        }
        fflush(stdout);
        free(out);
        free(cmd);
    }
    printf("engine %s: %zu traces of %zu games: %zu ok, %zu failed, %zu incomplete (time limit %lu s), %zu not "
           "replayed (%.1f s; slowest game %s, %.1f s)\n",
           engine, n_traces, n_games, n_ok, n_failed, n_incomplete, limit, n_skipped, now_s() - t_all,
           slowest_game, slowest);
    if (*incomplete_games) printf("games with traces cut by the time limit (listed, not failed):%s\n", incomplete_games);
    if (*not_grounded) printf("games the propnet does not ground (listed, not failed):%s\n", not_grounded);
    if (n_slow) printf("skipped %zu traces of slow games (GGP_TRACE_SLOW=1 replays them):%s\n", n_slow, slow_games);
    free(slow_games);
    if (*failed_games) printf("games with a divergence:%s\n", failed_games);
    for (size_t i = 0; i < n_games; i++) {
        for (size_t j = 0; j < g[i].n; j++) free(g[i].files[j]);
        free(g[i].files);
        free(g[i].game);
    }
    free(g);
    free(games);
    free(traces);
    free(not_grounded);
    free(incomplete_games);
    assert_true(n_games > 0 || getenv("GGP_TRACE_GAMES"));
    /* fail_msg does not return: the message is copied out first. */
    char msg[1024];
    snprintf(msg, sizeof msg, "%zu trace(s) diverge with engine %s:%.900s", n_failed, engine, failed_games);
    free(failed_games);
    if (n_failed) fail_msg("%s", msg);
    /* A trace cut by the time limit is checked up to the cut only: on a
     * machine too slow for the limit the test would check little and still
     * pass. Most traces must be replayed to their end. */
    size_t replayed = n_traces - n_skipped;
    if (limit && replayed && n_incomplete * 2 > replayed)
        fail_msg("%zu of %zu traces were cut by the time limit (%lu s): too few replayed to their end; raise "
                 "GGP_TRACE_TIME_LIMIT",
                 n_incomplete, replayed, limit);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_replay_all)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
