/* symbols.c - case-insensitive symbol interning (see symbols.h).
 *
 * Open addressing over FNV-1a hashes of the lowercase key, the table kept
 * at most three quarters full (a hit is then 2.5 probes on average, most
 * in one cache line: 4 slots a line). A slot holds the symbol id, its full hash and its
 * key, so a probe reads a string only when the hashes match and never the
 * entry: a fact file interns millions of atoms over hundreds of thousands
 * of names, and each lookup is then about two cache misses (the slot and
 * the key). Strings live in an arena
 * of the table, the key shares the spelling's bytes when the spelling is
 * already lowercase (most names). */
#include "symbols.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/xalloc.h"

typedef struct {
    const char *spelling;
    const char *key;
} sym_entry_t;

typedef struct {
    const char *key;
    uint32_t id; /* 0 = empty */
    uint32_t hash;
} slot_t;

struct symtab {
    sym_entry_t *syms; /* by symbol id */
    size_t n, cap;
    slot_t *slots;
    size_t n_slots; /* power of two */
    arena_t *strings;
    uint64_t *var_bits; /* bit per id: a variable (a small array that stays
                           in cache while every atom is asked) */
    size_t n_var_words, cap_var_words;
};

static char fold(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* FNV-1a of the folded bytes, finished by a multiply-xorshift so that the
 * table index (the low bits) depends on every byte. */
static uint32_t hash_folded(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint32_t)(unsigned char)fold(s[i]);
        h *= 16777619u;
    }
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    return h;
}

static bool key_equal(const char *key, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (key[i] == '\0' || key[i] != fold(s[i])) return false;
    return key[n] == '\0';
}

static void slot_put(slot_t *slots, size_t n_slots, const slot_t *sl)
{
    size_t i = sl->hash & (n_slots - 1);
    while (slots[i].id) i = (i + 1) & (n_slots - 1);
    slots[i] = *sl;
}

static void rehash(symtab_t *st, size_t n_slots)
{
    slot_t *slots = xcalloc(n_slots, sizeof *slots);
    for (size_t i = 0; i < st->n_slots; i++)
        if (st->slots[i].id) slot_put(slots, n_slots, &st->slots[i]);
    free(st->slots);
    st->slots = slots;
    st->n_slots = n_slots;
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
    st->strings = arena_new(1 << 14);
    rehash(st, 512);
    for (sym_t k = SYM_ROLE; k < SYM_FIRST_USER; k++) symtab_intern(st, keywords[k], strlen(keywords[k]));
    return st;
}

void symtab_free(symtab_t *st)
{
    if (!st) return;
    arena_free(st->strings);
    free(st->var_bits);
    free(st->syms);
    free(st->slots);
    free(st);
}

/* The id of a name of hash h, or SYM_NONE; *at is where to insert it. */
static sym_t find(const symtab_t *st, const char *s, size_t n, uint32_t h, size_t *at)
{
    size_t i = h & (st->n_slots - 1);
    for (;; i = (i + 1) & (st->n_slots - 1)) {
        const slot_t *sl = &st->slots[i];
        if (!sl->id) break;
        if (sl->hash == h && key_equal(sl->key, s, n)) return sl->id;
    }
    *at = i;
    return SYM_NONE;
}

sym_t symtab_lookup(const symtab_t *st, const char *s, size_t n)
{
    size_t at;
    return find(st, s, n, hash_folded(s, n), &at);
}

sym_t symtab_intern(symtab_t *st, const char *s, size_t n)
{
    uint32_t h = hash_folded(s, n);
    size_t at;
    sym_t id = find(st, s, n, h, &at);
    if (id) return id;
    XVEC_RESERVE(&st->syms, &st->cap, st->n + 1);
    sym_entry_t *e = &st->syms[st->n];
    char *spelling = arena_strndup(st->strings, s, n);
    e->spelling = spelling;
    e->key = spelling;
    for (size_t i = 0; i < n; i++) {
        if (fold(s[i]) != s[i]) {
            char *key = arena_strndup(st->strings, s, n);
            for (size_t j = i; j < n; j++) key[j] = fold(key[j]);
            e->key = key;
            break;
        }
    }
    id = (sym_t)st->n++;
    if (n > 0 && s[0] == '?') {
        XVEC_RESERVE(&st->var_bits, &st->cap_var_words, id / 64 + 1);
        /* words past the old size are fresh: clear them */
        for (size_t w = st->n_var_words; w <= id / 64; w++) st->var_bits[w] = 0;
        if (st->n_var_words <= id / 64) st->n_var_words = id / 64 + 1;
        st->var_bits[id / 64] |= (uint64_t)1 << (id % 64);
    }
    st->slots[at] = (slot_t){.key = e->key, .id = id, .hash = h};
    if (st->n * 4 > st->n_slots * 3) rehash(st, st->n_slots * 2);
    return id;
}

const char *symtab_spelling(const symtab_t *st, sym_t s) { return s < st->n ? st->syms[s].spelling : "?"; }
const char *symtab_key(const symtab_t *st, sym_t s) { return s < st->n ? st->syms[s].key : "?"; }
size_t symtab_count(const symtab_t *st) { return st->n; }
bool symtab_is_var(const symtab_t *st, sym_t s)
{
    return s / 64 < st->n_var_words && (st->var_bits[s / 64] >> (s % 64) & 1);
}

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
