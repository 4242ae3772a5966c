/* spin.h - a test-and-test-and-set spin lock that yields the CPU when it
 * has spun long enough.
 *
 * Tree-parallel search (search/engine.c, issue 12) takes a lock per tree
 * level and per node backed up: tens of millions a minute, almost never
 * contended, each held for well under a microsecond. pthread_spin_lock is as
 * cheap uncontended but spins forever when the holder was preempted (a
 * loaded machine, a CPU quota below the thread count): a whole time slice
 * burnt per collision. An adaptive mutex sleeps in the kernel and measured
 * slower than one thread. This lock spins with the CPU's pause hint for a
 * while (a holder that runs releases it within that), then calls
 * sched_yield so that a preempted holder can run. Acquire and release order
 * make it a lock for ThreadSanitizer too. */
#ifndef GGP_BASE_SPIN_H
#define GGP_BASE_SPIN_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

typedef uint32_t spin_t; /* 0: free; zero-initialised storage is a free lock */

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline bool spin_try(spin_t *l)
{
    return !__atomic_load_n(l, __ATOMIC_RELAXED) && !__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE);
}

static inline void spin_lock(spin_t *l)
{
    for (uint32_t n = 0; !spin_try(l); n++) {
        if (n < 2000) spin_pause(); /* ~tens of microseconds */
        else sched_yield();
    }
}

static inline void spin_unlock(spin_t *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

#endif
