/* test_install.c - `cmake --install` into a temporary prefix: the program,
 * its manual page (ggp.1, written from the help texts), the licence and the
 * guides. The page holds every line of `ggp --help` and of each command's
 * --help, as roff that prints it verbatim, and renders with groff when
 * groff is there; `ggp --version` is project(VERSION). */
#include "testutil.h"

#include <unistd.h>

static char prefix[256];

static int setup(void **state)
{
    (void)state;
    snprintf(prefix, sizeof prefix, "/tmp/ggp_install_%d", (int)getpid());
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd, "'%s' --install '%s' --prefix '%s'", GGP_CMAKE, GGP_BUILD_DIR, prefix);
    int rc = tu_run(cmd, &out);
    if (rc != 0) {
        printf("%s\n%s\n", cmd, out);
        free(out);
        return -1;
    }
    free(out);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", prefix);
    return tu_run(cmd, NULL) == 0 ? 0 : -1;
}

static char *installed(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", prefix, rel);
    char *text = tu_read_file(path);
    if (!text) fail_msg("not installed: %s", path);
    return text;
}

static void test_version_is_the_project_version(void **state)
{
    (void)state;
    char *lists = tu_read_file(GGP_SOURCE_DIR "/CMakeLists.txt");
    assert_non_null(lists);
    const char *v = strstr(lists, "project(ggp VERSION ");
    assert_non_null(v);
    v += strlen("project(ggp VERSION ");
    char want[64];
    snprintf(want, sizeof want, "ggp %.*s\n", (int)strcspn(v, " )"), v);
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd, "'%s/bin/ggp' --version", prefix);
    assert_int_equal(tu_run(cmd, &out), 0);
    assert_string_equal(out, want);
    free(out);
    free(lists);
}

/* Each line of `ggp ARGS` must be a line of the page (escaped as the
 * generator escapes it). */
static void expect_help_in_page(const char *page, const char *args)
{
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd, "'%s/bin/ggp' %s", prefix, args);
    assert_int_equal(tu_run(cmd, &out), 0);
    for (char *line = out, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl) break;
        *nl = '\0';
        char want[1024];
        size_t n = 0;
        want[n++] = '\n';
        if (line[0] == '.' || line[0] == '\'') want[n++] = '\\', want[n++] = '&';
        for (const char *c = line; *c && n < sizeof want - 4; c++)
            if (*c == '\\') want[n++] = '\\', want[n++] = 'e';
            else want[n++] = *c;
        want[n++] = '\n';
        want[n] = '\0';
        if (!strstr(page, want)) fail_msg("ggp.1 lacks the line of 'ggp %s': %s", args, line);
    }
    free(out);
}

static void test_man_page_is_the_help(void **state)
{
    (void)state;
    char *page = installed("share/man/man1/ggp.1");
    assert_non_null(strstr(page, ".TH GGP 1"));
    expect_help_in_page(page, "--help");
    expect_help_in_page(page, "players");
    char cmd[512], *top;
    snprintf(cmd, sizeof cmd, "'%s/bin/ggp' --help", prefix);
    assert_int_equal(tu_run(cmd, &top), 0);
    unsigned n_cmds = 0;
    for (const char *p = strstr(top, "commands:\n"); p && (p = strstr(p, "\n  ")); p++) {
        char name[32], args[64], heading[64];
        if (sscanf(p + 3, "%31[a-z]", name) != 1) continue;
        snprintf(args, sizeof args, "%s --help", name);
        expect_help_in_page(page, args);
        snprintf(heading, sizeof heading, "\n.SS ggp %s\n", name);
        assert_non_null(strstr(page, heading));
        n_cmds++;
    }
    assert_true(n_cmds >= 9);
    free(top);
    /* It renders, without warnings, where groff is installed. */
    if (tu_run("command -v groff", NULL) == 0) {
        char *out;
        snprintf(cmd, sizeof cmd, "groff -man -Tutf8 -ww -z '%s/share/man/man1/ggp.1'", prefix);
        assert_int_equal(tu_run(cmd, &out), 0);
        assert_string_equal(out, "");
        free(out);
        snprintf(cmd, sizeof cmd, "groff -man -Tascii '%s/share/man/man1/ggp.1' | col -b", prefix);
        assert_int_equal(tu_run(cmd, &out), 0);
        assert_non_null(strstr(out, "usage: ggp check FILE.kif"));
        assert_non_null(strstr(out, "'ggp COMMAND --help' describes"));
        free(out);
    } else {
        printf("note: groff is not installed; the page is not rendered\n");
    }
    free(page);
}

static void test_licence_and_guides(void **state)
{
    (void)state;
    char *lic = installed("share/doc/ggp/LICENSE");
    assert_non_null(strstr(lic, "MIT License"));
    assert_non_null(strstr(lic, "Copyright (c) 2026 the ggp authors"));
    free(lic);
    const char *docs[] = {"share/doc/ggp/README.md", "share/doc/ggp/players.md", "share/doc/ggp/writing-gdl.md",
                          "share/doc/ggp/gtp.md"};
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
        char *t = installed(docs[i]);
        assert_true(strlen(t) > 1000);
        free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_is_the_project_version),
        cmocka_unit_test(test_man_page_is_the_help),
        cmocka_unit_test(test_licence_and_guides),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
