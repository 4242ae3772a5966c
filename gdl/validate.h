/* validate.h - static checks of a GDL description.
 *
 * What the GDL specification and GGP-Base's StaticValidator (Griddle)
 * require, with stratification checked at rule level so that the corpus
 * games whose goal is defined as `not` another goal value load
 * (shared/docs/gdl-protocol.md §2.4, §2.6). Each failure is a diagnostic
 * `file:line:col: error: ...` with the source line and a caret. */
#ifndef GGP_GDL_VALIDATE_H
#define GGP_GDL_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "gdl/ast.h"

typedef struct gdl_info {
    sym_t *roles;        /* role constants in description order */
    uint32_t n_roles;
    size_t n_rules;      /* top-level rules with a body */
    size_t n_facts;      /* top-level facts */
    size_t n_relations;  /* distinct relation names */
    size_t n_functions;  /* distinct function names */
} gdl_info_t;

/* Check p; returns the number of errors reported to d. info (may be NULL)
 * is filled as far as the program allows; free it with gdl_info_free. */
unsigned gdl_validate(const program_t *p, diag_t *d, gdl_info_t *info);
void gdl_info_free(gdl_info_t *info);

#endif
