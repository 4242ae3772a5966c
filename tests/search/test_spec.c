/* test_spec.c - player spec strings, the variants table, budgets derived
 * from N and lambda (grave-spec §1) and the Agresti-Coull interval (§15.7). */
#include "testutil.h"

#include <math.h>
#include <unistd.h>

#include "search/search_internal.h"

static char err[512];

static search_spec_t *parse(const char *text)
{
    err[0] = 0;
    return search_spec_parse(text, err, sizeof err);
}

static char *printed(const search_spec_t *s)
{
    static char buf[1024];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    search_spec_print(s, f);
    fclose(f);
    return buf;
}

static void test_defaults_every_variant(void **state)
{
    (void)state;
    for (size_t i = 0; i < search_n_variants; i++) {
        const variant_t *v = &search_variants[i];
        search_spec_t *s = parse(v->name);
        assert_non_null(s);
        assert_ptr_equal(s->v, v);
        assert_false(search_spec_is_timed(s));
        /* the canonical text parses back to the same spec */
        char text[1024];
        snprintf(text, sizeof text, "%s", printed(s));
        assert_int_equal(strncmp(text, v->name, strlen(v->name)), 0);
        search_spec_t *t = parse(text);
        if (!t) fail_msg("%s: %s", text, err);
        assert_string_equal(printed(t), text);
        assert_memory_equal(&t->v, &s->v, sizeof s->v);
        assert_int_equal(t->nodes, s->nodes);
        assert_int_equal(t->ptop, s->ptop);
        assert_int_equal(t->psec, s->psec);
        search_spec_free(t);
        search_spec_free(s);
    }
}

static void test_values(void **state)
{
    (void)state;
    search_spec_t *s = parse("grave2:nodes=240,lambda=0.4,bias=0.001,ref=50,eps=0.1,decay=0.6,mast=off,seed=99,share=off");
    if (!s) fail_msg("%s", err);
    assert_int_equal(s->nodes, 240);
    assert_float_equal(s->lambda, 0.4, 1e-12);
    assert_float_equal(s->bias, 0.001, 1e-12);
    assert_float_equal(s->ref, 50, 1e-12);
    assert_false(s->mast);
    assert_false(s->share);
    assert_int_equal(search_spec_seed(s), 99);
    budget_t b;
    spec_budget(s, &b);
    assert_int_equal(b.n_sec, 96); /* round(0.4 * 240) */
    assert_int_equal(b.n_top, 144);
    assert_int_equal(b.p_top * b.p_sec, 13824); /* spec §1 table */
    search_spec_free(s);

    s = parse("grave:ref=inf,seconds=0.5");
    assert_non_null(s);
    assert_true(isinf(s->ref));
    assert_true(search_spec_is_timed(s));
    assert_non_null(strstr(printed(s), "ref=inf"));
    assert_non_null(strstr(printed(s), "seconds=0.5"));
    assert_null(strstr(printed(s), "playouts"));
    search_spec_free(s);

    /* exploration: UCT's default constant; GRAVE has none unless asked */
    s = parse("uct");
    assert_float_equal(s->c, sqrt(0.5), 1e-12);
    search_spec_free(s);
    s = parse("graver2");
    assert_true(s->c == 0);
    search_spec_free(s);
    s = parse("grave:c=0.2");
    assert_float_equal(s->c, 0.2, 1e-12);
    search_spec_free(s);

    /* a later key wins (sweeps append to a spec) */
    s = parse("uct:playouts=10,c=2,playouts=30");
    assert_non_null(s);
    assert_int_equal(s->playouts, 30);
    assert_float_equal(s->c, 2, 1e-12);
    search_spec_free(s);
}

static void test_budgets(void **state)
{
    (void)state;
    /* GRAVE^2 without recycling: P = (lambda - lambda^2) N^2 (spec §1 table) */
    static const struct { unsigned n; double lambda; unsigned top, sec; } rows[] = {
        {160, 0.2, 128, 32}, {200, 0.5, 100, 100}, {240, 0.5, 120, 120}, {400, 0.6, 160, 240}, {440, 0.8, 88, 352},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "grave2:nodes=%u,lambda=%g", rows[i].n, rows[i].lambda);
        search_spec_t *s = parse(text);
        assert_non_null(s);
        budget_t b;
        spec_budget(s, &b);
        assert_int_equal(b.n_top, rows[i].top);
        assert_int_equal(b.n_sec, rows[i].sec);
        assert_int_equal(b.p_top, rows[i].top);
        assert_int_equal(b.p_sec, rows[i].sec);
        double exact = (rows[i].lambda - rows[i].lambda * rows[i].lambda) * rows[i].n * rows[i].n;
        assert_float_equal((double)(b.p_top * b.p_sec), exact, 1e-6 * exact);
        search_spec_free(s);
    }
    /* GRAVER^2 headline configuration (spec §8) and its defaults */
    search_spec_t *s = parse("graver2");
    budget_t b;
    spec_budget(s, &b);
    assert_int_equal(b.n_top, 80);
    assert_int_equal(b.n_sec, 80);
    assert_int_equal(b.p_top, 160);
    assert_int_equal(b.p_sec, 80);
    search_spec_free(s);
    s = parse("graver2:nodes=100,ptop=7,psec=9");
    spec_budget(s, &b);
    assert_int_equal(b.p_top * b.p_sec, 63);
    search_spec_free(s);
    s = parse("graver:nodes=50,playouts=777");
    spec_budget(s, &b);
    assert_int_equal(b.n, 50);
    assert_int_equal(b.p, 777);
    search_spec_free(s);
}

static void expect_error(const char *text, const char *needle1, const char *needle2)
{
    search_spec_t *s = parse(text);
    if (s) fail_msg("'%s' parsed but should not", text);
    if (!strstr(err, needle1) || (needle2 && !strstr(err, needle2)))
        fail_msg("'%s': message '%s' lacks '%s'/'%s'", text, err, needle1, needle2 ? needle2 : "");
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("gravy", "unknown algorithm 'gravy'", "graver2");
    expect_error("", "unknown algorithm", NULL);
    expect_error("grave:foo=1", "unknown key 'foo'", "playouts");
    expect_error("grave:ptop=5", "inapplicable key 'ptop'", "bias");
    expect_error("uct:bias=0.1", "inapplicable key 'bias'", "c");
    expect_error("grave:bias=abc", "bad value for bias: 'abc'", "0 to 1000");
    expect_error("grave:bias=2000", "bad value for bias", "0 to 1000");
    expect_error("grave:playouts=0", "bad value for playouts: '0'", "1 to 1000000000");
    expect_error("grave:playouts=-5", "bad value for playouts", NULL);
    /* strtoull and strtod would skip the blank (" -1": 2^64 - 1) and read hex */
    expect_error("uct:seed= -1", "bad value for seed: ' -1'", NULL);
    expect_error("uct:playouts= 5", "bad value for playouts: ' 5'", NULL);
    expect_error("uct:c=0x10", "bad value for c: '0x10'", NULL);
    expect_error("compete:oppc=-0.5", "bad value for oppc: '-0.5'", NULL); /* -1 or a constant */
    expect_error("grave:playouts=", "bad value for playouts", NULL);
    expect_error("grave:mast=maybe", "bad value for mast", "on or off");
    expect_error("grave:amaf=hash", "bad value for amaf", "dense");
    expect_error("grave:eps=nan", "bad value for eps", NULL);
    expect_error("grave:playouts", "expected key=value", NULL);
    expect_error("grave2:nodes=3,lambda=0.1", "leaves a level empty", NULL);
    expect_error("grave2:nodes=10,lambda=1", "leaves a level empty", NULL);
    expect_error("grave:playouts=100,seconds=1", "not both", NULL);
    /* threads is a key where it means something: not of the node-budget
     * searchers, whose budget N root parallelism would split */
    expect_error("graver:threads=2", "inapplicable key 'threads' for graver", "seed");
    expect_error("uct2:threads=1", "inapplicable key 'threads' for uct2", NULL);
    expect_error("random:playouts=5", "inapplicable key 'playouts'", "seed");
    expect_error("grave:seed=18446744073709551616", "bad value for seed", NULL);
    search_spec_t *s;
    /* a table allocated whole: more than half the RAM is refused at once
     * (it aborted on out of memory at the first search) */
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    uint64_t half_mb = (uint64_t)pages / 2 * (uint64_t)size / (1024 * 1024);
    if (half_mb < 65536) {
        expect_error("ab:tt=65536", "tt=65536 MB is more than half this machine's RAM", NULL);
        expect_error("compete:tt=65536", "tt=65536 MB is more than half this machine's RAM", NULL);
    }
    /* so is a match row's memory bound past the RAM (its workers' tree is
     * allocated whole): refused with its value and the RAM, at the RAM
     * itself taken */
    uint64_t ram_mb = (uint64_t)pages * (uint64_t)size / (1024 * 1024);
    if (ram_mb + 1 <= 1048576) {
        char text[64], msg[128];
        snprintf(text, sizeof text, "compete:memory=%llu", (unsigned long long)(ram_mb + 1));
        snprintf(msg, sizeof msg, "compete: memory=%llu MB is more than this machine's RAM (%llu MB)",
                 (unsigned long long)(ram_mb + 1), (unsigned long long)ram_mb);
        expect_error(text, msg, NULL);
        snprintf(text, sizeof text, "compete:memory=%llu", (unsigned long long)ram_mb);
        s = parse(text);
        assert_non_null(s);
        search_spec_free(s);
    }
    s = parse("ab:tt=16");
    assert_non_null(s);
    search_spec_free(s);
    s = parse("grave:seed=18446744073709551615");
    assert_non_null(s);
    assert_int_equal(s->seed, UINT64_MAX);
    search_spec_free(s);
}

static void test_help_lists_everything(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    search_players_help(f);
    fclose(f);
    for (size_t i = 0; i < search_n_variants; i++) assert_non_null(strstr(buf, search_variants[i].name));
    const char *keys[] = {"playouts", "nodes", "lambda", "ptop", "psec", "bias", "ref", "c ", "eps", "decay",
                          "mast", "seconds", "seed", "threads"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strstr(buf, keys[i])) fail_msg("help lacks %s", keys[i]);
    assert_non_null(strstr(buf, "0.01")); /* bias default */
    free(buf);
}

static void test_agresti_coull(void **state)
{
    (void)state;
    double lo, hi;
    search_agresti_coull(250, 500, &lo, &hi); /* spec §15.7 */
    assert_float_equal(lo, 0.4563, 5e-5);
    assert_float_equal(hi, 0.5437, 5e-5);
    /* half-widths quoted in spec §11.1: 4.28 points at 40%, 4.01 at 30% */
    search_agresti_coull(200, 500, &lo, &hi);
    assert_float_equal((hi - lo) / 2, 0.0428, 5e-4);
    search_agresti_coull(150, 500, &lo, &hi);
    assert_float_equal((hi - lo) / 2, 0.0401, 5e-4);
    search_agresti_coull(0, 10, &lo, &hi);
    assert_true(lo == 0 && hi > 0 && hi < 0.35);
    search_agresti_coull(10, 10, &lo, &hi);
    assert_true(hi == 1 && lo > 0.65);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_every_variant), cmocka_unit_test(test_values),
        cmocka_unit_test(test_budgets),                cmocka_unit_test(test_errors),
        cmocka_unit_test(test_help_lists_everything),  cmocka_unit_test(test_agresti_coull),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
