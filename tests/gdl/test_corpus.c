/* test_corpus.c - `ggp check` semantics over the shared games: every
 * corpus game loads except those listed with a reason in
 * tests/gdl/known-invalid.txt, and every ggp-base edge case in games-test
 * loads or is rejected as tests/gdl/games-test-expectations.txt decides.
 * Both skip (saying so) when the shared directory is absent. */
#include "testutil.h"

#include <dirent.h>

#include "gdl_check.h"

typedef struct expect {
    char *file;
    bool load;
} expect_t;

/* Read "FILE.kif [load|reject] reason" lines ('#' comments). With
 * verdicts false, every listed file is expected to be rejected. */
static size_t read_expectations(const char *path, bool verdicts, expect_t **out)
{
    char *text = tu_read_file(path);
    assert_non_null(text);
    expect_t *ex = NULL;
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char file[256], verdict[32];
        if (line[0] == '#' || sscanf(line, "%255s %31s", file, verdict) < 1) continue;
        ex = realloc(ex, (n + 1) * sizeof *ex);
        ex[n].file = strdup(file);
        if (verdicts) {
            assert_true(!strcmp(verdict, "load") || !strcmp(verdict, "reject"));
            ex[n].load = !strcmp(verdict, "load");
        } else {
            ex[n].load = false;
        }
        n++;
    }
    free(text);
    *out = ex;
    return n;
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static size_t kif_files(const char *dir, char ***out)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".kif")) continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, str_cmp);
    *out = names;
    return n;
}

/* Check every .kif of dir against the expectations; files not listed are
 * expected to load when unlisted_load, and to be listed otherwise. */
static void check_dir(const char *dir, expect_t *ex, size_t n_ex, bool unlisted_load, unsigned *loaded,
                      unsigned *rejected)
{
    char **files;
    size_t n = kif_files(dir, &files);
    assert_true(n > 0);
    unsigned failures = 0;
    bool *used = calloc(n_ex + 1, sizeof *used);
    for (size_t i = 0; i < n; i++) {
        int want = unlisted_load ? 1 : -1;
        for (size_t k = 0; k < n_ex; k++)
            if (!strcmp(ex[k].file, files[i])) {
                want = ex[k].load;
                used[k] = true;
            }
        char *path = malloc(strlen(dir) + strlen(files[i]) + 2);
        sprintf(path, "%s/%s", dir, files[i]);
        const char *err = NULL;
        src_t *src = src_read_file(path, &err);
        free(path);
        assert_non_null(src);
        checked_t c;
        unsigned e = check_src(&c, src);
        if (e == 0) (*loaded)++;
        else (*rejected)++;
        if (want < 0) {
            printf("FAIL %s: no decision recorded for it\n", files[i]);
            failures++;
        } else if ((e == 0) != (want == 1)) {
            printf("FAIL %s: expected to %s, got %u errors\n%s", files[i], want ? "load" : "be rejected", e,
                   check_diags(&c));
            failures++;
        }
        check_done(&c);
        free(files[i]);
    }
    for (size_t k = 0; k < n_ex; k++)
        if (!used[k]) {
            printf("FAIL %s: listed but not in %s\n", ex[k].file, dir);
            failures++;
        }
    free(used);
    free(files);
    assert_int_equal(failures, 0);
}

static void free_expectations(expect_t *ex, size_t n)
{
    for (size_t k = 0; k < n; k++) free(ex[k].file);
    free(ex);
}

/* Check shared/SUB against the list file (relative to the source tree):
 * with verdicts, a decision per file; without, the files to reject. */
static void check_shared(const char *sub, const char *list, bool verdicts)
{
    const char *dir = tu_shared_or_skip(sub);
    char dir_copy[4096];
    snprintf(dir_copy, sizeof dir_copy, "%s", dir);
    expect_t *ex;
    size_t n_ex = read_expectations(list, verdicts, &ex);
    unsigned loaded = 0, rejected = 0;
    check_dir(dir_copy, ex, n_ex, !verdicts, &loaded, &rejected);
    printf("%s: %u loaded, %u rejected, as expected\n", sub, loaded, rejected);
    assert_true(loaded > 0);
    free_expectations(ex, n_ex);
}

static void test_corpus_games_load(void **state)
{
    (void)state;
    check_shared("games", GGP_SOURCE_DIR "/tests/gdl/known-invalid.txt", false);
}

static void test_games_test_decisions(void **state)
{
    (void)state;
    check_shared("games-test", GGP_SOURCE_DIR "/tests/gdl/games-test-expectations.txt", true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_games_load),
        cmocka_unit_test(test_games_test_decisions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
