/* test_rng.c - the seeded generator (base/rng.h): the same seed gives the
 * same numbers on every machine (the moves of `ggp play --seed` rest on
 * it), rng_below stays in range and is uniform on a fixed seed. */
#include "testutil.h"

#include "base/rng.h"

/* xoshiro256** seeded by splitmix64 from 42, computed independently of
 * base/rng.c (the published algorithms). */
static void test_fixed_sequence(void **state)
{
    (void)state;
    static const uint64_t want[] = {0x15780b2e0c2ec716ULL, 0x6104d9866d113a7eULL, 0xae17533239e499a1ULL,
                                    0xecb8ad4703b360a1ULL};
    rng_t r;
    rng_seed(&r, 42);
    for (size_t i = 0; i < 4; i++) assert_true(rng_next(&r) == want[i]);
    assert_true(rng_derive(0, 7) == 0xbcf3bb3dfd956cc3ULL);
}

static void test_same_seed_same_numbers(void **state)
{
    (void)state;
    rng_t a, b, c;
    rng_seed(&a, 3);
    rng_seed(&b, 3);
    rng_seed(&c, 4);
    unsigned differ = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = rng_next(&a);
        assert_true(x == rng_next(&b));
        differ += x != rng_next(&c);
    }
    assert_true(differ > 990);
    assert_true(rng_derive(5, 1) != rng_derive(5, 2));
    assert_true(rng_derive(5, 1) != rng_derive(6, 1));
}

static void test_below_in_range(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 1);
    static const uint32_t ns[] = {1, 2, 3, 7, 1000, 0x80000001u, UINT32_MAX};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
        for (int i = 0; i < 10000; i++) assert_true(rng_below(&r, ns[k]) < ns[k]);
    for (int i = 0; i < 10000; i++) {
        double d = rng_double(&r);
        assert_true(d >= 0.0 && d < 1.0);
    }
}

/* 100000 draws over 10 values on a fixed seed: each count within 5 standard
 * deviations (about 475) of 10000; and every value of a small range comes up. */
static void test_below_uniform(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 2024);
    unsigned count[10] = {0};
    for (int i = 0; i < 100000; i++) count[rng_below(&r, 10)]++;
    for (int v = 0; v < 10; v++)
        if (count[v] < 9525 || count[v] > 10475) fail_msg("value %d came %u times in 100000", v, count[v]);
    /* a range that is not a power of two, near 2^32: the top half is hit as
     * often as the bottom */
    uint32_t n = 3000000000u;
    unsigned top = 0;
    for (int i = 0; i < 100000; i++) top += rng_below(&r, n) >= n / 2;
    assert_true(top > 48400 && top < 51600);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_sequence),
        cmocka_unit_test(test_same_seed_same_numbers),
        cmocka_unit_test(test_below_in_range),
        cmocka_unit_test(test_below_uniform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
