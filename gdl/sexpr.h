/* sexpr.h - the KIF s-expression reader shared by rule files and protocol
 * messages.
 *
 * A reentrant Flex scanner and a pure Bison parser (sexpr_lexer.l,
 * sexpr_parser.y) turn text into atoms and lists; nothing GDL-specific
 * happens here, so the same reader parses `.kif` files and GGP messages
 * (`(play m1 ((mark 1 1) noop))`). Tokens are `(`, `)` and atoms: any run of
 * bytes other than whitespace, parentheses and `;` (which starts a comment
 * to the end of the line), as in GGP-Base and Griddle
 * (shared/docs/gdl-protocol.md §1.1). Control bytes outside comments are
 * errors. Unbalanced parentheses are reported at the offending paren and
 * parsing goes on, so one run reports every problem. */
#ifndef GGP_GDL_SEXPR_H
#define GGP_GDL_SEXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/diag.h"
#include "gdl/symbols.h"

typedef struct sexpr {
    bool is_list;
    uint32_t off; /* byte offset of the atom or of the opening paren */
    uint32_t end; /* byte offset just past the atom or closing paren */
    sym_t sym;    /* atoms: the interned name */
    uint32_t n;   /* lists: number of items */
    struct sexpr **items;
    bool unclosed; /* lists: closed by the reader at the end of input, after
                      it reported the unclosed '(' */
} sexpr_t;

/* Lists nested deeper than this are refused (untrusted input). */
#define SX_MAX_DEPTH 4096

/* Parse every top-level form of src. Forms and atoms go into the arena,
 * names into st. Returns the number of errors reported to d (0 = success);
 * *forms and *n are set even on error (to what could be read). */
unsigned sx_parse(arena_t *a, symtab_t *st, src_t *src, diag_t *d, sexpr_t ***forms, size_t *n);

/* Called with each top-level form as soon as it is read, in order. */
typedef void (*sx_form_fn)(void *ctx, const sexpr_t *form);

/* Like sx_parse, but hands each top-level form to fn and then resets the
 * scratch arena: reading a file takes the memory of its largest form, not
 * of all of them (a rule file of millions of facts). The form and
 * everything it points to are valid only during the call. Reader errors
 * are reported as they are met, so they interleave in source order with
 * what fn reports. Returns the number of reader errors. */
unsigned sx_parse_each(arena_t *scratch, symtab_t *st, src_t *src, diag_t *d, sx_form_fn fn, void *ctx);

/* Print in canonical form: lowercase keys, one space between items. */
void sx_print(FILE *out, const symtab_t *st, const sexpr_t *x);

#endif
