/* symbols.c - case-insensitive symbol interning (see symbols.h).
 *
 * Open addressing over FNV-1a hashes of the lowercase key; the table is
 * kept at most half full. Names are stored twice (spelling and key) in
 * separately malloc'd strings: tables are small (thousands of names). */
#include "symbols.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

typedef struct {
    char *spelling;
    char *key;
    uint32_t hash;
} sym_entry_t;

struct symtab {
    sym_entry_t *syms; /* by symbol id */
    size_t n, cap;
    uint32_t *slots; /* symbol id, 0 = empty */
    size_t n_slots;  /* power of two */
};

static uint32_t hash_folded(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint32_t)tolower((unsigned char)s[i]);
        h *= 16777619u;
    }
    return h;
}

static bool key_equal(const char *key, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (key[i] == '\0' || key[i] != (char)tolower((unsigned char)s[i])) return false;
    return key[n] == '\0';
}

static void rehash(symtab_t *st, size_t n_slots)
{
    free(st->slots);
    st->slots = xcalloc(n_slots, sizeof *st->slots);
    st->n_slots = n_slots;
    for (size_t id = 1; id < st->n; id++) {
        size_t i = st->syms[id].hash & (n_slots - 1);
        while (st->slots[i]) i = (i + 1) & (n_slots - 1);
        st->slots[i] = (uint32_t)id;
    }
}

symtab_t *symtab_new(void)
{
    static const char *const keywords[] = {
        [SYM_ROLE] = "role",   [SYM_INIT] = "init",         [SYM_TRUE] = "true",
        [SYM_DOES] = "does",   [SYM_NEXT] = "next",         [SYM_LEGAL] = "legal",
        [SYM_GOAL] = "goal",   [SYM_TERMINAL] = "terminal", [SYM_BASE] = "base",
        [SYM_INPUT] = "input", [SYM_DISTINCT] = "distinct", [SYM_NOT] = "not",
        [SYM_OR] = "or",       [SYM_IMPLIES] = "<=",
    };
    symtab_t *st = xcalloc(1, sizeof *st);
    st->cap = 256;
    st->syms = xcalloc(st->cap, sizeof *st->syms);
    st->n = 1; /* id 0 is SYM_NONE */
    rehash(st, 512);
    for (sym_t k = SYM_ROLE; k < SYM_FIRST_USER; k++) symtab_intern(st, keywords[k], strlen(keywords[k]));
    return st;
}

void symtab_free(symtab_t *st)
{
    if (!st) return;
    for (size_t i = 1; i < st->n; i++) {
        free(st->syms[i].spelling);
        free(st->syms[i].key);
    }
    free(st->syms);
    free(st->slots);
    free(st);
}

sym_t symtab_lookup(const symtab_t *st, const char *s, size_t n)
{
    uint32_t h = hash_folded(s, n);
    for (size_t i = h & (st->n_slots - 1);; i = (i + 1) & (st->n_slots - 1)) {
        uint32_t id = st->slots[i];
        if (!id) return SYM_NONE;
        if (st->syms[id].hash == h && key_equal(st->syms[id].key, s, n)) return id;
    }
}

sym_t symtab_intern(symtab_t *st, const char *s, size_t n)
{
    sym_t id = symtab_lookup(st, s, n);
    if (id) return id;
    XVEC_RESERVE(&st->syms, &st->cap, st->n + 1);
    sym_entry_t *e = &st->syms[st->n];
    e->spelling = xstrndup(s, n);
    e->key = xstrndup(s, n);
    for (size_t i = 0; i < n; i++) e->key[i] = (char)tolower((unsigned char)e->key[i]);
    e->hash = hash_folded(s, n);
    id = (sym_t)st->n++;
    if (st->n * 2 > st->n_slots) {
        rehash(st, st->n_slots * 2);
    } else {
        size_t i = e->hash & (st->n_slots - 1);
        while (st->slots[i]) i = (i + 1) & (st->n_slots - 1);
        st->slots[i] = id;
    }
    return id;
}

const char *symtab_spelling(const symtab_t *st, sym_t s) { return s < st->n ? st->syms[s].spelling : "?"; }
const char *symtab_key(const symtab_t *st, sym_t s) { return s < st->n ? st->syms[s].key : "?"; }
size_t symtab_count(const symtab_t *st) { return st->n; }
bool symtab_is_var(const symtab_t *st, sym_t s) { return s < st->n && s && st->syms[s].key[0] == '?'; }

bool symtab_int_value(const symtab_t *st, sym_t s, long *out)
{
    if (s == SYM_NONE || s >= st->n) return false;
    const char *k = st->syms[s].key;
    const char *p = k + (k[0] == '-');
    if (!*p) return false;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9') return false;
    errno = 0;
    long v = strtol(k, NULL, 10);
    if (errno) return false;
    *out = v;
    return true;
}
