/* arena.h - bump allocator that owns everything built for one parse or game.
 *
 * arena_alloc() returns 16-byte aligned memory; arena_alloc_align() packs
 * small nodes tighter (the AST of a 50 MB fact file is millions of 16-byte
 * nodes). An oversized request gets a block of its own (the design of
 * CPython's Python/pyarena.c). Nothing is freed individually: arena_free()
 * releases the whole arena at once, arena_reset() empties it for reuse as
 * scratch space. Allocation failure aborts the process with a message, as
 * every allocation in ggp does (xalloc.h). */
#ifndef GGP_BASE_ARENA_H
#define GGP_BASE_ARENA_H

#include <stddef.h>

typedef struct arena arena_t;

arena_t *arena_new(size_t block_size);
void arena_free(arena_t *a);
/* Zeroed memory of n bytes, aligned to 16. n == 0 returns a valid pointer. */
void *arena_alloc(arena_t *a, size_t n);
/* Zeroed memory of n bytes aligned to align (a power of two, at most 16). */
void *arena_alloc_align(arena_t *a, size_t n, size_t align);
/* Zeroed array of count elements of size bytes, with overflow checked. */
void *arena_calloc(arena_t *a, size_t count, size_t size);
/* A NUL-terminated copy of n bytes (byte-aligned: strings pack tightly). */
char *arena_strndup(arena_t *a, const char *s, size_t n);
/* Forget every allocation but keep one block of the default size, so that
 * a scratch arena reused per item does not go back to malloc. */
void arena_reset(arena_t *a);
/* Bytes obtained from the system so far (for memory reports). */
size_t arena_bytes(const arena_t *a);

#endif
