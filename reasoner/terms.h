/* terms.h - hash-consed ground terms.
 *
 * Every ground term the reasoner meets (constants, function terms such as
 * (cell 1 1 b), moves, fluents) is interned once and named by a small
 * integer, so equality is integer comparison and tuples of terms are arrays
 * of integers. A term is stored as the words [functor, arity, args...] in a
 * chunked heap whose chunks never move: a term id can be read by any thread
 * without locking once it has been handed out. Interning takes a mutex,
 * because the rules engine creates terms while playing, possibly on several
 * threads (the propnet creates none after compilation). */
#ifndef GGP_REASONER_TERMS_H
#define GGP_REASONER_TERMS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gdl/symbols.h"

typedef uint32_t tid_t; /* 0 is "no term" */

#define TS_CHUNK_BITS 20
#define TS_CHUNK_WORDS (1u << TS_CHUNK_BITS)
#define TS_MAX_CHUNKS 4095
/* Widest term: validation refuses wider function terms (GDL_MAX_ARITY). */
#define TS_MAX_ARITY 65535
_Static_assert(2 + TS_MAX_ARITY <= TS_CHUNK_WORDS, "a term fits in a chunk");

typedef struct term_store {
    uint32_t *chunks[TS_MAX_CHUNKS]; /* heap; chunks never move */
    uint32_t n_chunks;
    uint32_t top;    /* next free word in the last chunk */
    uint32_t *slots; /* open addressing table of term ids (0 = empty) */
    uint32_t n_slots, n_terms;
    uint32_t max_chunks; /* TS_MAX_CHUNKS; smaller in tests */
    bool full;           /* an intern failed: store full or term too wide */
    pthread_mutex_t lock;
} term_store_t;

term_store_t *ts_new(void);
void ts_free(term_store_t *ts);

/* Intern a term (arity 0 for a constant). Returns 0, and sets full for
 * good, when the store is full (TS_MAX_CHUNKS chunks: 16 GiB of terms) or
 * the term has more than TS_MAX_ARITY arguments: the evaluator then stops
 * as past its budget and the engine says why (never an abort: the terms
 * come from rules sent by a game manager). */
tid_t ts_intern(term_store_t *ts, sym_t functor, uint32_t arity, const tid_t *args);
/* The id of a term if it was interned, else 0 (never creates). */
tid_t ts_lookup(term_store_t *ts, sym_t functor, uint32_t arity, const tid_t *args);
static inline tid_t ts_const(term_store_t *ts, sym_t s) { return ts_intern(ts, s, 0, NULL); }

static inline const uint32_t *ts_words(const term_store_t *ts, tid_t t)
{
    return ts->chunks[t >> TS_CHUNK_BITS] + (t & (TS_CHUNK_WORDS - 1));
}
static inline sym_t ts_functor(const term_store_t *ts, tid_t t) { return ts_words(ts, t)[0]; }
static inline uint32_t ts_arity(const term_store_t *ts, tid_t t) { return ts_words(ts, t)[1]; }
static inline const tid_t *ts_args(const term_store_t *ts, tid_t t) { return ts_words(ts, t) + 2; }

/* Print into a malloc'd string. */
char *ts_to_string(const term_store_t *ts, const symtab_t *st, tid_t t, bool canonical);

#endif
