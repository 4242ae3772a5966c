/* test_docs.c - the user documentation agrees with the program: every
 * searcher `ggp players` lists is in the README and in docs/players.md,
 * whose table gives exactly the keys `ggp players` says it takes; `ggp
 * players` names the same algorithms for threads in its text and in its
 * key's list, and cites no document outside the repository. */
#include "testutil.h"

#define MAX_ALGOS 32

typedef struct algo {
    char name[16];
    char keys[512]; /* "`k1`, `k2`, ..." in `ggp players` order */
} algo_t;

/* The algorithms of `ggp players` and, from each key's "for:" line, the
 * keys of each; returns the count. *text gets the output. */
static size_t players(algo_t *a, char **text)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' players", GGP_BIN);
    assert_int_equal(tu_run(cmd, text), 0);
    size_t n = 0;
    const char *p = strstr(*text, "algorithms:\n");
    assert_non_null(p);
    for (p = strchr(p, '\n') + 1; p[0] == ' ' && p[1] == ' ' && n < MAX_ALGOS; p = strchr(p, '\n') + 1) {
        assert_int_equal(sscanf(p, " %15s", a[n].name), 1);
        a[n++].keys[0] = '\0';
    }
    const char *k = strstr(p, "keys (");
    assert_non_null(k);
    char key[32] = "";
    for (const char *line = strchr(k, '\n') + 1; *line && *line != '\n'; line = strchr(line, '\n') + 1) {
        if (!strncmp(line, "            for:", 16)) {
            const char *end = strchr(line, '\n');
            for (size_t i = 0; i < n; i++) {
                char want[32];
                snprintf(want, sizeof want, " %s", a[i].name);
                size_t wl = strlen(want);
                for (const char *q = line + 16; q && q < end; q = strstr(q + 1, want))
                    if (!strncmp(q, want, wl) && (q[wl] == ' ' || q[wl] == '\n')) {
                        size_t used = strlen(a[i].keys);
                        snprintf(a[i].keys + used, sizeof a[i].keys - used, "%s`%s`", used ? ", " : "", key);
                        break;
                    }
            }
        } else {
            assert_int_equal(sscanf(line, " %31s", key), 1);
        }
    }
    return n;
}

static void test_readme_lists_every_searcher(void **state)
{
    (void)state;
    algo_t a[MAX_ALGOS];
    char *text;
    size_t n = players(a, &text);
    assert_true(n >= 11);
    char *readme = tu_read_file(GGP_SOURCE_DIR "/README.md");
    assert_non_null(readme);
    const char *row = strstr(readme, "| `ggp players` |");
    assert_non_null(row);
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(row, "\n"), row);
    for (size_t i = 0; i < n; i++) {
        char want[32];
        snprintf(want, sizeof want, "`%.15s`", a[i].name);
        if (!strstr(line, want)) fail_msg("README's `ggp players` row lacks %s", want);
    }
    free(readme);
    free(text);
}

static void test_players_md_has_every_searcher_and_its_keys(void **state)
{
    (void)state;
    algo_t a[MAX_ALGOS];
    char *text;
    size_t n = players(a, &text);
    char *doc = tu_read_file(GGP_SOURCE_DIR "/docs/players.md");
    assert_non_null(doc);
    for (size_t i = 0; i < n; i++) {
        char head[32];
        snprintf(head, sizeof head, "\n| `%.15s` | ", a[i].name);
        const char *row = strstr(doc, head);
        if (!row) fail_msg("docs/players.md has no row for %s", a[i].name);
        row++;
        /* the last column: between the last two '|' of the row */
        const char *close = strchr(row, '\n') - 1, *open = close - 1;
        while (open > row && *open != '|') open--;
        char keys[512];
        snprintf(keys, sizeof keys, "%.*s", (int)(close - 1 - (open + 2)), open + 2);
        if (strcmp(keys, a[i].keys))
            fail_msg("docs/players.md: %s takes '%s', ggp players says '%s'", a[i].name, keys, a[i].keys);
    }
    free(doc);
    free(text);
}

static void test_players_is_consistent(void **state)
{
    (void)state;
    algo_t a[MAX_ALGOS];
    char *text;
    size_t n = players(a, &text);
    /* threads: the algorithms its meaning names are those it is a key of */
    const char *t = strstr(text, "\n  threads ");
    assert_non_null(t);
    char meaning[512];
    snprintf(meaning, sizeof meaning, "%.*s", (int)strcspn(t + 1, "\n"), t + 1);
    unsigned named = 0;
    for (size_t i = 0; i < n; i++) {
        bool key = strstr(a[i].keys, "`threads`") != NULL;
        char w1[24], w2[24], w3[24];
        snprintf(w1, sizeof w1, " %.15s,", a[i].name);
        snprintf(w2, sizeof w2, " %.15s ", a[i].name);
        snprintf(w3, sizeof w3, " %.15s\n", a[i].name);
        char m[520];
        snprintf(m, sizeof m, "%s\n", meaning);
        bool in_text = strstr(m, w1) || strstr(m, w2) || strstr(m, w3);
        if (key != in_text)
            fail_msg("ggp players: threads %s a key of %s but its text %s it", key ? "is" : "is not", a[i].name,
                     in_text ? "names" : "does not name");
        named += key;
    }
    assert_int_equal(named, 5); /* mc uct grave rave compete */
    /* nothing outside the repository */
    const char *outside[] = {"grave-spec", "gdl-protocol", "anchors", "shared/", "issue "};
    for (size_t i = 0; i < sizeof outside / sizeof *outside; i++)
        if (strstr(text, outside[i])) fail_msg("ggp players cites '%s'", outside[i]);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readme_lists_every_searcher),
        cmocka_unit_test(test_players_md_has_every_searcher_and_its_keys),
        cmocka_unit_test(test_players_is_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
