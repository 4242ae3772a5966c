/* common.h - helpers shared by the `ggp` subcommands: loading a game from a
 * file with diagnostics, option parsing helpers and exit codes. */
#ifndef GGP_PLAYER_CLI_COMMON_H
#define GGP_PLAYER_CLI_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "gdl/ast.h"
#include "gdl/symbols.h"
#include "gdl/validate.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* A rule file read, parsed and validated: everything the compiler needs. */
typedef struct loaded {
    src_t *src;
    symtab_t *syms;
    program_t *prog;
    gdl_info_t info;
    unsigned errors; /* parse + validation errors */
    double load_ms;  /* read + parse + validate */
} loaded_t;

/* Load and validate a file, reporting to d. Returns false on an I/O error
 * (message printed, nothing to free); otherwise true, with l->errors set. */
bool load_rules(const char *path, diag_t *d, loaded_t *l);
void loaded_free(loaded_t *l);

/* Parse an unsigned integer option value; prints "ggp CMD: bad value for
 * OPT: ..." and returns false on error. */
bool parse_u64(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
bool parse_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out);

#endif
