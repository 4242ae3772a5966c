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

/* Read a whole file into a malloc'd string (NULL on error). */
char *tu_read_file(const char *path);

/* Parse and validate src (name in messages) into a new symbol table *syms;
 * fails the test on any error, or with no_warnings on any diagnostic. The
 * caller frees the program, then *syms, then src; and info. */
program_t *tu_gdl_load(src_t *src, const char *name, bool no_warnings, symtab_t **syms, gdl_info_t *info);

#endif
