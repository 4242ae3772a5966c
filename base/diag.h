/* diag.h - source texts and the diagnostics sink.
 *
 * Every location in ggp is a byte offset into a src_t; line and column are
 * computed only when a message is printed (the jq locfile design). A
 * diagnostic prints as
 *
 *     file:line:col: error: message
 *         the source line
 *             ^
 *
 * The sink writes to a FILE (stderr, a log, or an in-memory stream in tests)
 * and counts errors, so a parser can report many errors in one run. */
#ifndef GGP_BASE_DIAG_H
#define GGP_BASE_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct src {
    char *name;           /* file name or "<message>" */
    char *text;           /* NUL-terminated copy of the bytes */
    size_t len;           /* bytes, not counting the NUL */
    uint32_t *line_start; /* offsets of line starts, built on first use */
    uint32_t n_lines;
} src_t;

/* A copy of the given bytes; name is copied too. Sources larger than 4 GiB
 * are refused by the readers before they get here. */
src_t *src_new(const char *name, const char *text, size_t len);
/* Read a whole file. On failure returns NULL and sets *err to a static
 * description (strerror). */
src_t *src_read_file(const char *path, const char **err);
/* The same for a text (rules, traces): a NUL byte fails the read as soon
 * as it is read, "not a text file". */
src_t *src_read_text_file(const char *path, const char **err);
void src_free(src_t *s);
/* 1-based line and column of a byte offset (column counts bytes). */
void src_locate(src_t *s, uint32_t off, uint32_t *line, uint32_t *col);

typedef enum { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR } diag_level_t;

typedef struct diag {
    FILE *out;        /* where messages go; NULL to count only */
    unsigned errors;
    unsigned warnings;
    unsigned max_errors; /* stop printing after this many (0 = no limit) */
    bool show_source;    /* print the source line and caret (default on) */
} diag_t;

void diag_init(diag_t *d, FILE *out);
/* Report at a location (src may be NULL for a location-less message). */
void diag_report(diag_t *d, diag_level_t level, src_t *src, uint32_t off,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A problem of the whole file (something missing, not something written):
 * located at line 1, column 1 as compilers do, so that editors and CI
 * still attach it to the file, and without a source line. src may be
 * NULL (then "ggp: error: ..."). */
void diag_report_file(diag_t *d, diag_level_t level, src_t *src, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define diag_error(d, src, off, ...) diag_report((d), DIAG_ERROR, (src), (off), __VA_ARGS__)
#define diag_warning(d, src, off, ...) diag_report((d), DIAG_WARNING, (src), (off), __VA_ARGS__)
#define diag_note(d, src, off, ...) diag_report((d), DIAG_NOTE, (src), (off), __VA_ARGS__)

#endif
