/* rng.h - seeded pseudo-random numbers, always passed explicitly.
 *
 * xoshiro256** (Blackman & Vigna, "Scrambled linear pseudorandom number
 * generators", 2018), seeded through splitmix64. There is no global state:
 * every searcher, playout thread and tournament game owns an rng_t, which is
 * what makes "same seed and budget give the same moves" hold. */
#ifndef GGP_BASE_RNG_H
#define GGP_BASE_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t s[4];
} rng_t;

void rng_seed(rng_t *r, uint64_t seed);
uint64_t rng_next(rng_t *r);
/* Uniform integer in [0, n); n must be > 0. Unbiased (Lemire's method). */
uint32_t rng_below(rng_t *r, uint32_t n);
/* Uniform double in [0, 1). */
double rng_double(rng_t *r);
/* Derive an independent seed from a base seed and an index (for games k of
 * a tournament, threads of a search, ...). */
uint64_t rng_derive(uint64_t base, uint64_t index);

#endif
