/* xalloc.h - the single allocation choke point of ggp.
 *
 * Out of memory is not recoverable for a game player in the middle of a
 * search, so these abort with a message instead of returning NULL. Sizes are
 * checked for overflow before multiplying (as lmem.h does in Lua). */
#ifndef GGP_BASE_XALLOC_H
#define GGP_BASE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* Reallocate p to count elements of size bytes, overflow-checked. */
void *xreallocarray(void *p, size_t count, size_t size);
/* count zeroed elements of size bytes aligned to align (a power of two,
 * at least sizeof(void *)); freed with free(). For vector types whose
 * alignment malloc does not give (propnet_lanes.c's 32-byte words). */
void *xaligned_calloc(size_t align, size_t count, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grow a vector (*pv, *pcap) so that it holds at least need elements. */
#define XVEC_RESERVE(pv, pcap, need)                                        \
    do {                                                                    \
        if ((size_t)(need) > (size_t)*(pcap)) {                             \
            size_t xv_cap_ = *(pcap) ? (size_t)*(pcap) * 2 : 8;             \
            while (xv_cap_ < (size_t)(need)) xv_cap_ *= 2;                  \
            *(pv) = xreallocarray(*(pv), xv_cap_, sizeof **(pv));           \
            *(pcap) = xv_cap_;                                              \
        }                                                                   \
    } while (0)

#endif
