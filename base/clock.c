/* clock.c - clocks and deadlines (see clock.h). */
#include "clock.h"

#include <time.h>

static uint64_t read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t clock_now_ns(void) { return read_clock(CLOCK_MONOTONIC); }
uint64_t clock_thread_cpu_ns(void) { return read_clock(CLOCK_THREAD_CPUTIME_ID); }
uint64_t clock_process_cpu_ns(void) { return read_clock(CLOCK_PROCESS_CPUTIME_ID); }
int64_t clock_epoch_ms(void) { return (int64_t)(read_clock(CLOCK_REALTIME) / 1000000ULL); }

deadline_t deadline_in_ms(uint64_t ms) { return (deadline_t){clock_now_ns() + ms * 1000000ULL}; }
deadline_t deadline_at_ns(uint64_t at_ns) { return (deadline_t){at_ns}; }

bool deadline_passed(deadline_t d) { return d.at_ns != 0 && clock_now_ns() >= d.at_ns; }

uint64_t deadline_left_ms(deadline_t d)
{
    if (d.at_ns == 0) return UINT64_MAX;
    uint64_t now = clock_now_ns();
    return now >= d.at_ns ? 0 : (d.at_ns - now) / 1000000ULL;
}
