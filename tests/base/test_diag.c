/* test_diag.c - source texts and the diagnostics sink (base/diag.h): the
 * format `file:line:col: error: message`, the source line and caret, line
 * ends, counts, the error limit and location-less messages; reading a
 * file as text. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"

static void test_format_and_caret(void **state)
{
    (void)state;
    const char text[] = "(role x)\n(init (cell 1 1 b))\n";
    src_t *s = src_new("t.kif", text, sizeof text - 1);
    tu_diag_t td;
    tu_diag_open(&td);
    diag_error(&td.d, s, 15, "unknown relation '%s'", "cell");
    assert_string_equal(tu_diag_text(&td), "t.kif:2:7: error: unknown relation 'cell'\n"
                                           "    (init (cell 1 1 b))\n"
                                           "          ^\n");
    assert_int_equal(td.d.errors, 1);
    assert_int_equal(td.d.warnings, 0);
    tu_diag_close(&td);
    src_free(s);
}

/* An error at the first byte, reported before anything built the source's
 * line table (the first diagnostic of `ggp check` on a file that starts
 * with ')'): the line and caret, no crash. */
static void test_error_at_offset_zero(void **state)
{
    (void)state;
    const char text[] = ")\n(role x)\n";
    src_t *s = src_new("z.kif", text, sizeof text - 1);
    tu_diag_t td;
    tu_diag_open(&td);
    diag_error(&td.d, s, 0, "unmatched ')'");
    assert_string_equal(tu_diag_text(&td), "z.kif:1:1: error: unmatched ')'\n"
                                           "    )\n"
                                           "    ^\n");
    tu_diag_close(&td);
    src_free(s);
}

static void test_levels_and_no_source(void **state)
{
    (void)state;
    src_t *s = src_new("g.kif", "abc", 3);
    tu_diag_t td;
    tu_diag_open(&td);
    td.d.show_source = false;
    diag_warning(&td.d, s, 2, "w");
    diag_note(&td.d, s, 0, "n");
    diag_error(&td.d, NULL, 0, "no place");
    diag_report_file(&td.d, DIAG_ERROR, s, "no %s", "goal");
    assert_string_equal(tu_diag_text(&td), "g.kif:1:3: warning: w\n"
                                           "g.kif:1:1: note: n\n"
                                           "ggp: error: no place\n"
                                           "g.kif:1:1: error: no goal\n");
    assert_int_equal(td.d.errors, 2);
    assert_int_equal(td.d.warnings, 1);
    tu_diag_close(&td);
    src_free(s);
}

/* LF, CR and CRLF each end a line; columns count bytes. */
static void test_locate_line_ends(void **state)
{
    (void)state;
    const char text[] = "a\nbb\r\ncc\rd";
    src_t *s = src_new("x", text, sizeof text - 1);
    static const struct {
        uint32_t off, line, col;
    } want[] = {{0, 1, 1}, {2, 2, 1}, {3, 2, 2}, {6, 3, 1}, {9, 4, 1}, {10, 4, 2}, {99, 4, 2}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        uint32_t line, col;
        src_locate(s, want[i].off, &line, &col);
        if (line != want[i].line || col != want[i].col)
            fail_msg("offset %u: %u:%u, want %u:%u", want[i].off, line, col, want[i].line, want[i].col);
    }
    src_free(s);
}

static void test_error_limit_and_counting_only(void **state)
{
    (void)state;
    tu_diag_t td;
    tu_diag_open(&td);
    td.d.max_errors = 2;
    for (int i = 0; i < 5; i++) diag_error(&td.d, NULL, 0, "e%d", i);
    assert_string_equal(tu_diag_text(&td), "ggp: error: e0\nggp: error: e1\n"
                                           "ggp: too many errors, stopping the report here\n");
    assert_int_equal(td.d.errors, 5);
    tu_diag_close(&td);

    diag_t quiet;
    diag_init(&quiet, NULL);
    diag_error(&quiet, NULL, 0, "counted");
    assert_int_equal(quiet.errors, 1);
}

/* A text reader refuses a NUL byte where it reads it: a binary or a
 * device of zeros given as a rule file fails at its first block instead
 * of reading up to the 2 GB limit. The plain reader keeps every byte. */
static void test_text_file_refuses_nul(void **state)
{
    (void)state;
    char path[] = "/tmp/ggp_test_diag_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char bytes[] = "(role a)\n\0(role b)\n";
    assert_int_equal(write(fd, bytes, sizeof bytes - 1), (ssize_t)(sizeof bytes - 1));
    close(fd);
    const char *err = NULL;
    assert_null(src_read_text_file(path, &err));
    assert_string_equal(err, "not a text file (it holds a NUL byte)");
    src_t *s = src_read_file(path, &err);
    assert_non_null(s);
    assert_int_equal(s->len, sizeof bytes - 1);
    assert_memory_equal(s->text, bytes, sizeof bytes - 1);
    src_free(s);
    unlink(path);

    /* without a NUL the two readers agree */
    strcpy(path, "/tmp/ggp_test_diag_XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "(role a)\n", 9), 9);
    close(fd);
    s = src_read_text_file(path, &err);
    assert_non_null(s);
    assert_int_equal(s->len, 9);
    assert_string_equal(s->text, "(role a)\n");
    src_free(s);
    unlink(path);

    err = NULL;
    if (access("/dev/zero", R_OK) == 0) {
        assert_null(src_read_text_file("/dev/zero", &err));
        assert_string_equal(err, "not a text file (it holds a NUL byte)");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_and_caret),
        cmocka_unit_test(test_error_at_offset_zero),
        cmocka_unit_test(test_levels_and_no_source),
        cmocka_unit_test(test_locate_line_ends),
        cmocka_unit_test(test_error_limit_and_counting_only),
        cmocka_unit_test(test_text_file_refuses_nul),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
