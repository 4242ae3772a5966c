/* validate.h - static checks of a GDL description.
 *
 * What the GDL specification and GGP-Base's StaticValidator (Griddle)
 * require, with stratification checked at rule level so that the corpus
 * games whose goal is defined as `not` another goal value load
 * (shared/docs/gdl-protocol.md §2.4, §2.6). Each failure is a diagnostic
 * `file:line:col: error: ...` with the source line and a caret, at the
 * offending token; every problem of a description is reported in one run,
 * in source order.
 *
 * Checked (errors):
 *   - one arity per relation name and per function name (the two name
 *     spaces are separate: a name may be both, as in 10 corpus games),
 *     at most GDL_MAX_ARITY for a function;
 *   - keyword arities and placement (§1.4): role only as ground facts,
 *     true/does never in heads or facts, next/init/base/input never in
 *     bodies, keywords never function names, ground goal values 0..100;
 *   - role facts present, legal/goal/terminal defined;
 *   - no variables in facts; rule safety, with `or` binding a variable
 *     only when every disjunct does (§2.4.1);
 *   - stratified negation at rule level (§2.4.2);
 *   - the recursion restriction (§2.4.3, Griddle's original form);
 *   - init/base/input independent of true and does, legal/goal/terminal
 *     independent of does, even indirectly.
 * Warnings (not failures): an empty `or` (always false); no `init` (the
 * initial state is then empty, which GGP-Base's own test games and three
 * corpus games rely on); old Dresden `base` forms whose arity is not 1,
 * which are ignored as GGP-Base's GdlCleaner drops them.
 * `sees` and `random` (GDL-II, §4) are ordinary names. */
#ifndef GGP_GDL_VALIDATE_H
#define GGP_GDL_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "gdl/ast.h"

/* The most arguments a function term may have: the reasoner stores a term
 * as one run of words in a fixed-size chunk (reasoner/terms.h), so a wider
 * one is refused here, at its token, instead of failing later. */
#define GDL_MAX_ARITY 65535

typedef struct gdl_info {
    sym_t *roles;        /* role constants in description order */
    uint32_t n_roles;
    size_t n_rules;      /* top-level rules with a body */
    size_t n_facts;      /* top-level facts (and rules with an empty body) */
    size_t n_relations;  /* distinct relation names */
    size_t n_functions;  /* distinct function names (arity >= 1) */
    size_t n_ignored;    /* old Dresden `base` forms (arity != 1) skipped */
} gdl_info_t;

/* True for a top-level form the rest of the system must skip: an old
 * Dresden `base` fact or rule whose arity is not 1 (gdl-protocol §2.3). */
bool gdl_rule_is_ignored(const rule_t *r);

/* Check p; returns the number of errors reported to d (warnings are
 * reported but not counted). info (may be NULL) is filled as far as the
 * program allows; free it with gdl_info_free. */
unsigned gdl_validate(const program_t *p, diag_t *d, gdl_info_t *info);
void gdl_info_free(gdl_info_t *info);

#endif
