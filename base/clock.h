/* clock.h - monotonic and CPU clocks, and deadlines.
 *
 * Search budgets in seconds, the player's reply deadline and the benchmarks
 * all read these. CPU time is per thread so that `ggp bench` can report
 * playouts per CPU-second of the benchmarking thread (shared/docs/anchors.md). */
#ifndef GGP_BASE_CLOCK_H
#define GGP_BASE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* Nanoseconds on the monotonic clock. */
uint64_t clock_now_ns(void);
/* CPU nanoseconds used by the calling thread / the whole process. */
uint64_t clock_thread_cpu_ns(void);
uint64_t clock_process_cpu_ns(void);
/* Wall-clock milliseconds since the epoch (for match records). */
int64_t clock_epoch_ms(void);

/* A point on the monotonic clock; 0 means "no deadline". */
typedef struct deadline {
    uint64_t at_ns;
} deadline_t;

static inline deadline_t deadline_none(void) { return (deadline_t){0}; }
deadline_t deadline_in_ms(uint64_t ms);
deadline_t deadline_at_ns(uint64_t at_ns);
bool deadline_passed(deadline_t d);
/* Milliseconds left (0 when passed, UINT64_MAX when none). */
uint64_t deadline_left_ms(deadline_t d);

#endif
