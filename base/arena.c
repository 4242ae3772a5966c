/* arena.c - bump allocator (see arena.h). */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define ARENA_ALIGN 16

typedef struct block {
    struct block *next;
    size_t used, size;
    _Alignas(ARENA_ALIGN) unsigned char data[];
} block_t;

struct arena {
    block_t *head;     /* current block; older blocks follow */
    size_t block_size; /* default size of a new block's data */
    size_t total;      /* bytes obtained from malloc */
};

static block_t *block_new(arena_t *a, size_t size)
{
    block_t *b = xmalloc(sizeof *b + size);
    b->next = NULL;
    b->used = 0;
    b->size = size;
    a->total += sizeof *b + size;
    return b;
}

arena_t *arena_new(size_t block_size)
{
    arena_t *a = xcalloc(1, sizeof *a);
    a->block_size = block_size < 1024 ? 1024 : block_size;
    a->head = block_new(a, a->block_size);
    return a;
}

void arena_free(arena_t *a)
{
    if (!a) return;
    for (block_t *b = a->head, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    free(a);
}

void arena_reset(arena_t *a)
{
    /* Keep the last default-size block (the first one allocated). */
    block_t *keep = NULL;
    for (block_t *b = a->head, *n; b; b = n) {
        n = b->next;
        if (!keep && !n && b->size == a->block_size) {
            keep = b;
            break;
        }
        a->total -= sizeof *b + b->size;
        free(b);
    }
    if (!keep) keep = block_new(a, a->block_size);
    keep->used = 0;
    keep->next = NULL;
    a->head = keep;
}

void *arena_alloc_align(arena_t *a, size_t n, size_t align)
{
    size_t mask = align - 1;
    block_t *b = a->head;
    size_t at = (b->used + mask) & ~mask;
    if (n > b->size || at > b->size - n) {
        size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
        if (need < n) need = SIZE_MAX; /* overflow: fail in xmalloc */
        if (need > a->block_size / 4) {
            /* Oversized: a block of its own, linked behind the current one so
             * that the current block keeps serving small requests. */
            block_t *big = block_new(a, need);
            big->next = b->next;
            b->next = big;
            big->used = need;
            memset(big->data, 0, need);
            return big->data;
        }
        b = block_new(a, a->block_size);
        b->next = a->head;
        a->head = b;
        at = 0;
    }
    void *p = b->data + at;
    b->used = at + n;
    memset(p, 0, n);
    return p;
}

void *arena_alloc(arena_t *a, size_t n) { return arena_alloc_align(a, n, ARENA_ALIGN); }

void *arena_calloc(arena_t *a, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) return arena_alloc(a, SIZE_MAX);
    return arena_alloc(a, count * size);
}

char *arena_strndup(arena_t *a, const char *s, size_t n)
{
    char *d = arena_alloc_align(a, n + 1, 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

size_t arena_bytes(const arena_t *a) { return a->total; }
