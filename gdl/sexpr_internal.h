/* sexpr_internal.h - shared between the generated scanner and parser only. */
#ifndef GGP_GDL_SEXPR_INTERNAL_H
#define GGP_GDL_SEXPR_INTERNAL_H

#include "gdl/sexpr.h"

/* Byte-offset locations, turned into line:col only when reported. */
typedef struct sx_loc {
    uint32_t start, end;
} sx_loc_t;

typedef struct sx_cell {
    sexpr_t *x;
    struct sx_cell *next;
} sx_cell_t;

typedef struct sx_items {
    sx_cell_t *head, *tail;
    uint32_t n;
} sx_items_t;

/* State shared by scanner and parser for one parse. */
typedef struct sx_state {
    arena_t *arena;
    symtab_t *syms;
    src_t *src;
    diag_t *diag;
    unsigned errors;
    /* scanner */
    size_t pos;            /* current byte offset */
    uint32_t *open;        /* offsets of unclosed '(' */
    size_t depth, open_cap;
    size_t pending_close;  /* synthetic ')' still to emit at end of input */
    bool eof_reported;
    /* parser */
    sx_items_t top;
} sx_state_t;

void sx_error_at(sx_state_t *s, uint32_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
