/* load.h - a rule file read, parsed and validated: what every user of the
 * rules (the compiler, the commands, the tests, bench, the fuzzers) starts
 * from. Diagnostics go to the caller's sink; nothing is printed here. */
#ifndef GGP_GDL_LOAD_H
#define GGP_GDL_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "gdl/ast.h"
#include "gdl/symbols.h"
#include "gdl/validate.h"

typedef struct gdl_loaded {
    src_t *src;
    symtab_t *syms;
    program_t *prog;
    gdl_info_t info;
    unsigned errors; /* parse + validation errors, reported to the sink */
    double load_ms;  /* read + parse + validate */
} gdl_loaded_t;

/* Read, parse and validate the file at path. Returns false on an I/O error
 * (*err says why; nothing to free); otherwise true, with l->errors set. */
bool gdl_load_file(const char *path, diag_t *d, gdl_loaded_t *l, const char **err);
/* The same from text in memory (len bytes, copied), named name in
 * diagnostics. */
void gdl_load_text(const char *name, const char *text, size_t len, diag_t *d, gdl_loaded_t *l);
void gdl_loaded_free(gdl_loaded_t *l);

#endif
