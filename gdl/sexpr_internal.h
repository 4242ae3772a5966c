/* sexpr_internal.h - shared between the generated scanner and parser only. */
#ifndef GGP_GDL_SEXPR_INTERNAL_H
#define GGP_GDL_SEXPR_INTERNAL_H

#include "gdl/sexpr.h"

/* Byte-offset locations, turned into line:col only when reported. */
typedef struct sx_loc {
    uint32_t start, end;
} sx_loc_t;

/* An atom as the scanner returns it: a value, not a node, so that a
 * lookahead token read before the parser hands a form over holds no
 * memory of the scratch arena that is then reset. */
typedef struct sx_atom {
    sym_t sym;
    uint32_t off, end;
} sx_atom_t;

/* State shared by scanner and parser for one parse. */
typedef struct sx_state {
    arena_t *arena; /* nodes; reset after each form when streaming */
    symtab_t *syms;
    src_t *src;
    diag_t *diag;
    unsigned errors;
    /* scanner */
    size_t pos;            /* current byte offset */
    size_t in_pos;         /* bytes of src handed to the scanner's buffer */
    uint32_t *open;        /* offsets of unclosed '(' */
    size_t depth, open_cap;
    bool eof_reported;
    /* parser: the items of every open list, innermost last, and (when not
     * streaming) the top-level forms below them */
    sexpr_t **stk;
    size_t n_stk, cap_stk;
    size_t n_top;
    sx_form_fn each; /* streaming: called per top-level form */
    void *each_ctx;
} sx_state_t;

void sx_error_at(sx_state_t *s, uint32_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
