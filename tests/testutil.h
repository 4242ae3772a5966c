/* testutil.h - helpers for the CMocka tests.
 *
 * Include after <cmocka.h>'s prerequisites; provides paths to the project,
 * the shared corpus and the built program, and a way to capture diagnostics
 * in memory. */
#ifndef GGP_TESTS_TESTUTIL_H
#define GGP_TESTS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
/* cmocka.h needs the four headers above. */
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "gdl/ast.h"
#include "gdl/symbols.h"
#include "gdl/validate.h"

/* The shared corpus directory, or NULL (with a message on stdout) when it
 * is absent: tests then skip. sub is e.g. "games" or "traces". */
const char *tu_shared(const char *sub);
/* Same inside a test: when the corpus is absent, the test is reported
 * skipped (cmocka skip(), after tu_shared's message), never passed. */
const char *tu_shared_or_skip(const char *sub);
/* In a test that needs the shared corpus: skip it (saying why) unless ok. */
void tu_skip_unless_shared(bool ok);

/* A diagnostics sink that writes into memory; tu_diag_text() returns what
 * was written so far (owned by the sink). */
typedef struct tu_diag {
    diag_t d;
    char *buf;
    size_t len;
} tu_diag_t;
void tu_diag_open(tu_diag_t *t);
const char *tu_diag_text(tu_diag_t *t);
void tu_diag_close(tu_diag_t *t);

/* Run a shell command, capturing stdout+stderr into *out (malloc'd).
 * Returns the exit status (or -1). */
int tu_run(const char *cmd, char **out);

/* Run the built `ggp ARGS` (ARGS printf-style) in folder cwd (NULL: here)
 * and fail the test, showing the output, unless it exits with status and
 * its output (stdout+stderr) contains needle (if not NULL). */
void tu_ggp_expect(const char *cwd, int status, const char *needle, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Read a whole file into a malloc'd string (NULL on error). */
char *tu_read_file(const char *path);

/* How many times c is in s (0 for NULL). */
int tu_count_char(const char *s, char c);
void tu_sleep_ms(long ms);
/* Start `sh -c CMD` in the background; its pid (fails the test if it
 * cannot fork). */
int tu_spawn(const char *cmd);
/* The text of PATH once it has at least n lines, or after ms milliseconds
 * (NULL if it still does not exist). malloc'd. */
char *tu_wait_lines(const char *path, int n, long ms);
/* The rows of a tournament's per-game CSV without its head lines (the
 * '#' metadata line and the column header) and without column drop
 * (0-based: 7 is a_seconds, the CPU time, the one field that differs
 * between runs), sorted, one a line: the games as a set, whatever order
 * they finished in. malloc'd; *n rows. */
char *tu_csv_rows(const char *path, int drop, int *n);

/* Parse and validate src (name in messages) into a new symbol table *syms;
 * fails the test on any error, or with no_warnings on any diagnostic. The
 * caller frees the program, then *syms, then src; and info. */
program_t *tu_gdl_load(src_t *src, const char *name, bool no_warnings, symtab_t **syms, gdl_info_t *info);

/* A rule text or file loaded with tu_gdl_load, and what it owns. */
typedef struct tu_rules {
    src_t *src;
    symtab_t *syms;
    program_t *prog;
    gdl_info_t info;
} tu_rules_t;
void tu_rules_text(const char *name, const char *text, tu_rules_t *l);
void tu_rules_file(const char *path, tu_rules_t *l);
void tu_rules_free(tu_rules_t *l);

#endif
