/* ast.h - the abstract syntax of a GDL description.
 *
 * Built from s-expressions by gdl_build() (ast.c), owned by the program's
 * arena. Sentences and terms share one type: a sentence is a term whose
 * symbol is a relation name. `(f)` with no arguments is normalised to the
 * constant `f`, for sentences and terms alike (as GGP-Base's GdlCleaner
 * does; shared/docs/gdl-protocol.md §1.2). Every node keeps the byte offset
 * of its source text for diagnostics. */
#ifndef GGP_GDL_AST_H
#define GGP_GDL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/diag.h"
#include "gdl/sexpr.h"
#include "gdl/symbols.h"

typedef enum { TERM_CONST, TERM_VAR, TERM_FN } term_kind_t;

/* 16 bytes and the argument pointers inline: a rule file can hold
 * millions of facts, and their terms are most of the front end's memory. */
typedef struct term {
    term_kind_t kind;
    sym_t sym;      /* name of the constant, variable or function */
    uint32_t arity; /* TERM_FN: number of arguments (>= 1); else 0 */
    uint32_t off;
    struct term *args[]; /* TERM_FN: arity arguments */
} term_t;

typedef enum {
    LIT_ATOM,     /* a sentence */
    LIT_NOT,      /* (not sentence) */
    LIT_DISTINCT, /* (distinct t1 t2) */
    LIT_EQUAL,    /* (not (distinct t1 t2)), accepted as GGP-Base's cleaner does */
    LIT_OR        /* (or lit...) */
} lit_kind_t;

typedef struct lit {
    lit_kind_t kind;
    uint32_t off;
    term_t *atom;          /* LIT_ATOM, LIT_NOT */
    term_t *lhs, *rhs;     /* LIT_DISTINCT, LIT_EQUAL */
    uint32_t n_disj;       /* LIT_OR */
    struct lit **disj;
} lit_t;

typedef struct rule {
    term_t *head;
    uint32_t n_body; /* 0 for a fact */
    uint32_t off;
    lit_t *body[]; /* n_body literals, inline (a fact is 16 bytes) */
} rule_t;

typedef struct program {
    arena_t *arena;  /* owns every node */
    symtab_t *syms;  /* not owned */
    src_t *src;      /* not owned */
    rule_t **rules;  /* in source order (nodes 8-byte aligned) */
    size_t n_rules, cap_rules;
} program_t;

/* Build the AST from parsed forms; reports shape errors (a list that does
 * not start with a name, `<=` inside a rule, `not` with two arguments, a
 * variable as a fact, ...) and returns the number of errors. */
unsigned gdl_build(program_t *p, sexpr_t **forms, size_t n, diag_t *d);

/* Read, parse and build a whole file or text. Returns NULL only when the
 * input could not be read at all; otherwise *errors counts the reported
 * errors and the program holds what could be built. The caller frees with
 * program_free() and keeps src alive as long as the program. */
program_t *gdl_parse_src(src_t *src, symtab_t *st, diag_t *d, unsigned *errors);

void program_free(program_t *p);

/* Sentence name and arity (0 for a constant sentence). */
static inline sym_t term_name(const term_t *t) { return t->sym; }
static inline uint32_t term_arity(const term_t *t) { return t->kind == TERM_FN ? t->arity : 0; }
bool term_is_ground(const term_t *t);

#endif
