/* test_games_play.c - every shipped game plays to its end under every
 * searcher of the variants table, in a short `ggp play` (issue "The games
 * we ship": "plays under every searcher"), with both reasoner engines.
 *
 * Budgets are tiny (the point is that each searcher handles each game's
 * shape: one to three roles, turn-taking and simultaneous moves, a puzzle),
 * and every role of a game gets the same searcher. */
#include "testutil.h"

#include <dirent.h>

/* Each row of the table with a small budget (grave-spec §1: two-level
 * variants run N_top x N_sec or ptop x psec playouts). */
static const char *const specs[] = {
    "random",
    "mc:playouts=12",
    "uct:playouts=12",
    "uctr:playouts=20,nodes=8",
    "uct2:nodes=8",
    "uctr2:nodes=8,ptop=8,psec=4",
    "grave:playouts=12",
    "graver:playouts=20,nodes=8",
    "grave2:nodes=8",
    "graver2:nodes=8,ptop=8,psec=4",
};

/* Roles of a game, counted from its (role ...) facts by `ggp check`. */
static int count_roles(const char *kif)
{
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s check %s", GGP_BIN, kif);
    int rc = tu_run(cmd, &out);
    assert_int_equal(rc, 0);
    const char *p = strstr(out, "roles:");
    assert_non_null(p);
    int n = 0;
    for (p += 6; *p && *p != '\n'; p++)
        if (*p != ' ' && (p[-1] == ' ' || p[-1] == ':')) n++;
    free(out);
    return n;
}

static void test_every_game_every_searcher(void **state)
{
    (void)state;
    DIR *d = opendir(GGP_SOURCE_DIR "/games");
    assert_non_null(d);
    struct dirent *e;
    int games = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".kif")) continue;
        char kif[1024];
        snprintf(kif, sizeof kif, "%s/games/%s", GGP_SOURCE_DIR, e->d_name);
        int n_roles = count_roles(kif);
        assert_true(n_roles >= 1);
        games++;
        for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
            /* both engines, alternately; Othello's rules engine is slow
             * (its 64-step disc count), so it keeps to the propnet here */
            const char *engine = s % 2 && strcmp(e->d_name, "othello.kif") ? "rules" : "propnet";
            char cmd[4096];
            int off = snprintf(cmd, sizeof cmd, "%s play %s --engine %s --quiet --seed %zu", GGP_BIN, kif, engine, s + 1);
            for (int r = 0; r < n_roles; r++) off += snprintf(cmd + off, sizeof cmd - (size_t)off, " --player %s", specs[s]);
            char *out = NULL;
            int rc = tu_run(cmd, &out);
            if (rc != 0 || !strstr(out, "goals ")) fail_msg("%s under %s (%s): exit %d\n%s", e->d_name, specs[s], engine, rc, out);
            /* one value per role, each 0..100 */
            const char *g = strstr(out, "goals ");
            int values = 0;
            for (const char *p = strchr(g, '='); p; p = strchr(p + 1, '=')) {
                int v = atoi(p + 1);
                assert_in_range(v, 0, 100);
                values++;
            }
            assert_int_equal(values, n_roles);
            free(out);
        }
    }
    closedir(d);
    assert_true(games >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_game_every_searcher)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
