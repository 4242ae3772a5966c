/* test_clock.c - clocks and deadlines (base/clock.h): the monotonic clock
 * never goes back, a deadline passes when its time comes, and "none" never
 * passes. */
#include "testutil.h"

#include "base/clock.h"

static void test_monotonic(void **state)
{
    (void)state;
    uint64_t prev = clock_now_ns();
    for (int i = 0; i < 100000; i++) {
        uint64_t now = clock_now_ns();
        assert_true(now >= prev);
        prev = now;
    }
    uint64_t cpu = clock_thread_cpu_ns();
    volatile uint64_t x = 0;
    for (int i = 0; i < 1000000; i++) x += (uint64_t)i;
    assert_true(clock_thread_cpu_ns() >= cpu);
    assert_true(clock_process_cpu_ns() >= clock_thread_cpu_ns() / 2);
    assert_true(clock_epoch_ms() > 1600000000000LL); /* after 2020 */
}

static void test_deadlines(void **state)
{
    (void)state;
    deadline_t none = deadline_none();
    assert_false(deadline_passed(none));
    assert_true(deadline_left_ms(none) == UINT64_MAX);

    deadline_t far = deadline_in_ms(60000);
    assert_false(deadline_passed(far));
    uint64_t left = deadline_left_ms(far);
    assert_true(left <= 60000 && left > 50000);

    deadline_t past = deadline_at_ns(clock_now_ns());
    assert_true(deadline_passed(past));
    assert_true(deadline_left_ms(past) == 0);

    /* a short deadline passes by itself: poll for it, bounded */
    uint64_t t0 = clock_now_ns(); /* before the deadline: a preemption between can only lengthen the wait */
    deadline_t soon = deadline_in_ms(20);
    while (!deadline_passed(soon) && clock_now_ns() - t0 < 10000000000ULL) tu_sleep_ms(1);
    assert_true(deadline_passed(soon));
    assert_true(clock_now_ns() - t0 >= 19000000ULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_monotonic),
        cmocka_unit_test(test_deadlines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
