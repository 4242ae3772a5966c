/* xalloc.c - allocation wrappers that abort on exhaustion (see xalloc.h). */
#include "xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
    fprintf(stderr, "ggp: fatal: out of memory (%zu bytes)\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) oom(count * size);
    return p;
}

void *xaligned_calloc(size_t align, size_t count, size_t size)
{
    if (size && count > (SIZE_MAX - align) / size) oom(SIZE_MAX); /* the rounding below adds up to align - 1 */
    size_t n = count && size ? count * size : 1;
    n = (n + align - 1) & ~(align - 1); /* aligned_alloc wants a multiple */
    void *p = aligned_alloc(align, n);
    if (!p) oom(n);
    memset(p, 0, n);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) oom(n);
    return q;
}

void *xreallocarray(void *p, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) oom(SIZE_MAX);
    return xrealloc(p, count * size);
}

char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }
