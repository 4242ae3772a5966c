/* terms.c - hash-consed ground terms (see terms.h). */
#include "reasoner/terms.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static uint32_t hash_term(sym_t f, uint32_t arity, const tid_t *args)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)f << 8) ^ arity;
    for (uint32_t i = 0; i < arity; i++) {
        h ^= args[i];
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    h *= 0xc4ceb9fe1a85ec53ULL;
    return (uint32_t)(h ^ (h >> 29));
}

static bool same_term(const term_store_t *ts, tid_t t, sym_t f, uint32_t arity, const tid_t *args)
{
    const uint32_t *w = ts_words(ts, t);
    return w[0] == f && w[1] == arity && (arity == 0 || memcmp(w + 2, args, arity * sizeof *args) == 0);
}

term_store_t *ts_new(void)
{
    term_store_t *ts = xcalloc(1, sizeof *ts);
    ts->chunks[0] = xmalloc(TS_CHUNK_WORDS * sizeof(uint32_t));
    ts->n_chunks = 1;
    ts->max_chunks = TS_MAX_CHUNKS;
    ts->top = 1; /* word 0 of chunk 0 is never a term, so id 0 means none */
    ts->n_slots = 1024;
    ts->slots = xcalloc(ts->n_slots, sizeof *ts->slots);
    pthread_mutex_init(&ts->lock, NULL);
    return ts;
}

void ts_free(term_store_t *ts)
{
    if (!ts) return;
    for (uint32_t i = 0; i < ts->n_chunks; i++) free(ts->chunks[i]);
    free(ts->slots);
    pthread_mutex_destroy(&ts->lock);
    free(ts);
}

static uint32_t *find_slot(term_store_t *ts, sym_t f, uint32_t arity, const tid_t *args, uint32_t h)
{
    uint32_t mask = ts->n_slots - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        uint32_t t = ts->slots[i];
        if (!t || same_term(ts, t, f, arity, args)) return &ts->slots[i];
    }
}

static void grow_slots(term_store_t *ts)
{
    uint32_t old_n = ts->n_slots;
    uint32_t *old = ts->slots;
    ts->n_slots *= 2;
    ts->slots = xcalloc(ts->n_slots, sizeof *ts->slots);
    for (uint32_t i = 0; i < old_n; i++) {
        tid_t t = old[i];
        if (!t) continue;
        const uint32_t *w = ts_words(ts, t);
        uint32_t mask = ts->n_slots - 1, j = hash_term(w[0], w[1], w + 2) & mask;
        while (ts->slots[j]) j = (j + 1) & mask;
        ts->slots[j] = t;
    }
    free(old);
}

tid_t ts_lookup(term_store_t *ts, sym_t f, uint32_t arity, const tid_t *args)
{
    uint32_t h = hash_term(f, arity, args);
    pthread_mutex_lock(&ts->lock);
    tid_t t = *find_slot(ts, f, arity, args, h);
    pthread_mutex_unlock(&ts->lock);
    return t;
}

tid_t ts_intern(term_store_t *ts, sym_t f, uint32_t arity, const tid_t *args)
{
    uint32_t h = hash_term(f, arity, args);
    pthread_mutex_lock(&ts->lock);
    uint32_t *slot = find_slot(ts, f, arity, args, h);
    tid_t t = *slot;
    if (!t) {
        uint32_t need = 2 + arity;
        if (arity > TS_MAX_ARITY || (ts->top + need > TS_CHUNK_WORDS && ts->n_chunks == ts->max_chunks)) {
            ts->full = true; /* the callers report it (terms.h) */
            pthread_mutex_unlock(&ts->lock);
            return 0;
        }
        if (ts->top + need > TS_CHUNK_WORDS) {
            ts->chunks[ts->n_chunks++] = xmalloc(TS_CHUNK_WORDS * sizeof(uint32_t));
            ts->top = 0;
        }
        uint32_t *w = ts->chunks[ts->n_chunks - 1] + ts->top;
        w[0] = f;
        w[1] = arity;
        if (arity) memcpy(w + 2, args, arity * sizeof *args);
        t = ((ts->n_chunks - 1) << TS_CHUNK_BITS) | ts->top;
        ts->top += need;
        *slot = t;
        if (++ts->n_terms * 2 > ts->n_slots) grow_slots(ts);
    }
    pthread_mutex_unlock(&ts->lock);
    return t;
}

/* Print a term: canonical (lowercase keys) or in the rules' spelling. */
static void ts_print(const term_store_t *ts, const symtab_t *st, tid_t t, FILE *out, bool canonical)
{
    const uint32_t *w = ts_words(ts, t);
    const char *name = canonical ? symtab_key(st, w[0]) : symtab_spelling(st, w[0]);
    if (w[1] == 0) {
        fputs(name, out);
        return;
    }
    fputc('(', out);
    fputs(name, out);
    for (uint32_t i = 0; i < w[1]; i++) {
        fputc(' ', out);
        ts_print(ts, st, w[2 + i], out, canonical);
    }
    fputc(')', out);
}

char *ts_to_string(const term_store_t *ts, const symtab_t *st, tid_t t, bool canonical)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ts_print(ts, st, t, f, canonical);
    fclose(f);
    return buf;
}
