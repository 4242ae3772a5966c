/* test_arena.c - the bump allocator (base/arena.h): zeroed, 16-byte
 * aligned memory that stays valid until arena_free, oversized requests,
 * string copies and the byte count. */
#include "testutil.h"

#include <string.h>

#include "base/arena.h"

static void test_zeroed_aligned_and_kept(void **state)
{
    (void)state;
    arena_t *a = arena_new(0); /* the least block size */
    unsigned char *p[200];
    for (size_t i = 0; i < 200; i++) {
        size_t n = 1 + i * 7 % 53;
        p[i] = arena_alloc(a, n);
        assert_non_null(p[i]);
        assert_int_equal((uintptr_t)p[i] % 16, 0);
        for (size_t k = 0; k < n; k++) assert_int_equal(p[i][k], 0);
        memset(p[i], (int)(i & 0xff), n);
    }
    /* earlier allocations are untouched by later ones */
    for (size_t i = 0; i < 200; i++) assert_int_equal(p[i][0], i & 0xff);
    assert_non_null(arena_alloc(a, 0));
    arena_free(a);
    arena_free(NULL);
}

static void test_oversized_and_calloc(void **state)
{
    (void)state;
    arena_t *a = arena_new(4096);
    char *small = arena_alloc(a, 16);
    size_t before = arena_bytes(a);
    char *big = arena_alloc(a, 1 << 20);
    assert_true(arena_bytes(a) >= before + (1 << 20));
    big[(1 << 20) - 1] = 'x';
    /* the current block keeps serving small requests */
    char *small2 = arena_alloc(a, 16);
    assert_ptr_equal(small2, small + 16);
    int *v = arena_calloc(a, 1000, sizeof *v);
    for (int i = 0; i < 1000; i++) assert_int_equal(v[i], 0);
    arena_free(a);
}

static void test_strndup(void **state)
{
    (void)state;
    arena_t *a = arena_new(1024);
    char *s = arena_strndup(a, "propnet", 4);
    assert_string_equal(s, "prop");
    assert_string_equal(arena_strndup(a, "", 0), "");
    arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zeroed_aligned_and_kept),
        cmocka_unit_test(test_oversized_and_calloc),
        cmocka_unit_test(test_strndup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
