/* test_memory.c - memory of the front end on a large rule file (issue 13,
 * item 8): `ggp check` reads a 10 MB game of ground facts written by
 * bench/bigfacts.sh and succeeds with a peak RSS of at most 10 times the
 * file's size, the whole process included (about 9 MB of it is the
 * program and its libraries). Under a sanitizer, whose shadow memory and
 * quarantine dwarf the program's, only success is checked. */
#include "testutil.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

enum { FILE_MB = 10, MAX_RSS_PER_BYTE = 10 };

static void test_check_big_fact_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/ggp-memory-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[sizeof dir + 16], cmd[1024];
    snprintf(path, sizeof path, "%s/big.kif", dir);

    snprintf(cmd, sizeof cmd, "'%s/bench/bigfacts.sh' %d > '%s'", GGP_SOURCE_DIR, FILE_MB, path);
    char *out = NULL;
    int rc = tu_run(cmd, &out);
    if (rc != 0) fail_msg("%s: exit %d\n%s", cmd, rc, out);
    free(out);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(sb.st_size > FILE_MB * 900000L);

    /* RUSAGE_CHILDREN's ru_maxrss is the largest of every descendant
     * waited for: the generator's (a few MB of awk) or ggp's. Either way
     * it bounds ggp's. */
    snprintf(cmd, sizeof cmd, "'%s' check --quiet '%s'", GGP_BIN, path);
    rc = tu_run(cmd, &out);
    if (rc != 0 || !strstr(out, ": ok")) fail_msg("%s: exit %d\n%s", cmd, rc, out);
    free(out);
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_CHILDREN, &ru), 0);
    long max_kb = (long)(sb.st_size / 1024) * MAX_RSS_PER_BYTE;
    printf("ggp check of %ld bytes: peak RSS %ld KB (bound %ld KB%s)\n", (long)sb.st_size, ru.ru_maxrss, max_kb,
           SANITIZED ? ", not checked under a sanitizer" : "");
    if (!SANITIZED && ru.ru_maxrss > max_kb)
        fail_msg("peak RSS %ld KB is more than %d times the file's %ld bytes", ru.ru_maxrss, MAX_RSS_PER_BYTE,
                 (long)sb.st_size);

    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_big_fact_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
