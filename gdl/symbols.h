/* symbols.h - interned names of a game description.
 *
 * GDL names are matched case-insensitively: the key of a symbol is its
 * lowercase form, and the first spelling seen is kept for output, because a
 * reply to a case-sensitive game manager must use the description's own
 * spelling (shared/docs/gdl-protocol.md §1.3 and §5.6). Dresden's manager
 * upper-cases whole messages, and four corpus games misspell one name with
 * two cases; folding repairs both.
 *
 * Symbols are dense integers; the GDL keywords have fixed ids below so that
 * code can switch on them. A symtab is not thread-safe for interning; reads
 * of existing symbols may run concurrently with nothing else writing. */
#ifndef GGP_GDL_SYMBOLS_H
#define GGP_GDL_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t sym_t;

enum {
    SYM_NONE = 0,
    SYM_ROLE,
    SYM_INIT,
    SYM_TRUE,
    SYM_DOES,
    SYM_NEXT,
    SYM_LEGAL,
    SYM_GOAL,
    SYM_TERMINAL,
    SYM_BASE,
    SYM_INPUT,
    SYM_DISTINCT,
    SYM_NOT,
    SYM_OR,
    SYM_IMPLIES, /* "<=" */
    SYM_FIRST_USER
};

typedef struct symtab symtab_t;

symtab_t *symtab_new(void);
void symtab_free(symtab_t *st);
/* The symbol for a name (created if new); matching ignores ASCII case. */
sym_t symtab_intern(symtab_t *st, const char *s, size_t n);
/* The symbol for a name, or SYM_NONE if it was never interned. */
sym_t symtab_lookup(const symtab_t *st, const char *s, size_t n);
/* First spelling seen (for output to the outside world). */
const char *symtab_spelling(const symtab_t *st, sym_t s);
/* Lowercase canonical form (for traces, sorting, comparisons). */
const char *symtab_key(const symtab_t *st, sym_t s);
size_t symtab_count(const symtab_t *st);
/* Variables are names starting with '?'. */
bool symtab_is_var(const symtab_t *st, sym_t s);
/* If the name is a decimal integer (optional leading '-'), store it in *out. */
bool symtab_int_value(const symtab_t *st, sym_t s, long *out);

#endif
