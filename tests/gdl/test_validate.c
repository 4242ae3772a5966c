/* test_validate.c - gdl_validate(): golden diagnostics of `ggp check` for
 * malformed and invalid descriptions (tests/gdl/bad/NAME.kif with the exact
 * expected stderr in NAME.err), and in-process checks of valid and invalid
 * descriptions (counts, roles, stratification at rule level, safety with
 * `or`, renaming apart, warnings), and `ggp check`'s options. */
#include "testutil.h"

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdl/load.h"
#include "gdl_check.h"

#define BAD_DIR "tests/gdl/bad"

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Names (without .kif) of the golden inputs, sorted. */
static size_t bad_inputs(char ***out)
{
    DIR *dir = opendir(GGP_SOURCE_DIR "/" BAD_DIR);
    assert_non_null(dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".kif")) continue;
        if (n == cap) names = realloc(names, (cap = cap ? cap * 2 : 32) * sizeof *names);
        names[n++] = strndup(e->d_name, len - 4);
    }
    closedir(dir);
    qsort(names, n, sizeof *names, str_cmp);
    *out = names;
    return n;
}

/* Run `ggp check` on one file from the source tree; stderr into *err. */
static int run_check_stderr(const char *rel, char **err)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' check '%s' 2>&1 >/dev/null", GGP_SOURCE_DIR, GGP_BIN, rel);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 4096, len = 0, got;
    char *buf = malloc(cap);
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0)
        if ((len += got) + 1 >= cap) buf = realloc(buf, cap *= 2);
    buf[len] = '\0';
    int st = pclose(p);
    *err = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Every tests/gdl/bad/NAME.kif: `ggp check` exits 1 and prints exactly
 * NAME.err on stderr. GGP_UPDATE_GOLDEN=1 rewrites the .err files instead
 * (review the diff before committing). */
static void test_golden_diagnostics(void **state)
{
    (void)state;
    char **names;
    size_t n = bad_inputs(&names);
    assert_true(n >= 20);
    bool update = getenv("GGP_UPDATE_GOLDEN") && !strcmp(getenv("GGP_UPDATE_GOLDEN"), "1");
    unsigned failures = 0;
    for (size_t i = 0; i < n; i++) {
        char rel[512], golden_path[1024];
        snprintf(rel, sizeof rel, BAD_DIR "/%s.kif", names[i]);
        snprintf(golden_path, sizeof golden_path, GGP_SOURCE_DIR "/" BAD_DIR "/%s.err", names[i]);
        char *err;
        int rc = run_check_stderr(rel, &err);
        if (update) {
            FILE *f = fopen(golden_path, "w");
            assert_non_null(f);
            fputs(err, f);
            fclose(f);
            printf("note: rewrote %s\n", golden_path);
        }
        char *golden = tu_read_file(golden_path);
        if (!golden) {
            printf("FAIL %s: no golden file %s\n", names[i], golden_path);
            failures++;
        } else if (strcmp(err, golden) != 0) {
            printf("FAIL %s: stderr differs from %s\n--- expected\n%s--- got\n%s---\n", names[i], golden_path, golden,
                   err);
            failures++;
        }
        if (rc != 1) {
            printf("FAIL %s: exit status %d, expected 1\n", names[i], rc);
            failures++;
        }
        free(golden);
        free(err);
        free(names[i]);
    }
    free(names);
    assert_int_equal(failures, 0);
    /* the texts were compared with what was just written: only the exit
     * statuses were checked, so the run says it skipped the comparison */
    if (update) skip();
}

/* A small valid game touching base/input, `or`-free negation, GDL-II names
 * (`sees`, role `random`) and goal defined through `not goal`. */
static const char valid_game[] =
    "(role white)\n"
    "(role black)\n"
    "(role random)\n"
    "(init (cell 1 b))\n"
    "(init (control white))\n"
    "(base (cell 1 b))\n"
    "(base (cell 1 x))\n"
    "(<= (base (control ?r)) (role ?r))\n"
    "(<= (input ?r (mark 1)) (role ?r))\n"
    "(<= (input ?r noop) (role ?r))\n"
    "(<= (legal ?r (mark 1)) (true (cell 1 b)) (true (control ?r)))\n"
    "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))\n"
    "(<= (next (cell 1 x)) (does ?r (mark 1)))\n"
    "(<= (next (control ?r)) (true (control ?r)))\n"
    "(<= (sees ?r (mark 1)) (role ?r) (does ?r (mark 1)))\n"
    "(<= terminal (true (cell 1 x)))\n"
    "(<= (goal white 100) (true (cell 1 x)))\n"
    "(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))\n";

static void test_valid_counts_and_roles(void **state)
{
    (void)state;
    checked_t c;
    assert_int_equal(check_text(&c, valid_game), 0);
    assert_string_equal(check_diags(&c), "");
    assert_int_equal(c.info.n_roles, 3);
    assert_string_equal(symtab_spelling(c.st, c.info.roles[0]), "white");
    assert_string_equal(symtab_spelling(c.st, c.info.roles[1]), "black");
    assert_string_equal(symtab_spelling(c.st, c.info.roles[2]), "random");
    assert_int_equal(c.info.n_facts, 7);
    assert_int_equal(c.info.n_rules, 11);
    /* role init base input legal true next does sees terminal goal */
    assert_int_equal(c.info.n_relations, 11);
    /* cell control mark */
    assert_int_equal(c.info.n_functions, 3);
    assert_int_equal(c.info.n_ignored, 0);
    check_done(&c);
}

static void test_roles_keep_first_spelling(void **state)
{
    (void)state;
    checked_t c;
    assert_int_equal(check_text(&c, "(role xPlayer) (role OPLAYER)\n(<= (legal ?r noop) (role ?r))\n"
                                    "(<= (next done) (does xplayer noop))\n(<= terminal (true done))\n"
                                    "(goal XPLAYER 100) (goal oplayer 0) (init start)\n"),
                     0);
    assert_int_equal(c.info.n_roles, 2);
    assert_string_equal(symtab_spelling(c.st, c.info.roles[0]), "xPlayer");
    assert_string_equal(symtab_spelling(c.st, c.info.roles[1]), "OPLAYER");
    check_done(&c);
}

/* Shared preamble for the small cases below: a complete one-role game. */
#define GAME                                                                                            \
    "(role robot)\n(init (step 0))\n(succ 0 1)\n(<= (legal robot go) (true (step 0)))\n"                 \
    "(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))\n(<= terminal (true (step 1)))\n(goal robot 100)\n"

static void expect_ok(const char *text)
{
    checked_t c;
    unsigned e = check_text(&c, text);
    if (e) printf("unexpected errors for:\n%s\n%s", text, check_diags(&c));
    assert_int_equal(e, 0);
    check_done(&c);
}

/* Expect exactly n errors, the first message containing what. */
static void expect_errors(const char *text, unsigned n, const char *what)
{
    checked_t c;
    unsigned e = check_text(&c, text);
    const char *d = check_diags(&c);
    if (e != n || !strstr(d, what)) printf("for:\n%s\ngot %u errors:\n%s", text, e, d);
    assert_int_equal(e, n);
    assert_non_null(strstr(d, what));
    check_done(&c);
}

static void test_relation_and_function_namespaces(void **state)
{
    (void)state;
    /* `cell` is a relation of arity 1 and a function of arity 2 */
    checked_t c;
    assert_int_equal(check_text(&c, GAME "(cell 1)\n(<= (legal robot (go ?x)) (cell ?x) (true (cell ?x b)))\n"), 0);
    assert_int_equal(c.info.n_functions, 3); /* step, go, cell */
    check_done(&c);
    /* ... but each keeps one arity */
    expect_errors(GAME "(cell 1)\n(cell 1 2)\n", 1, "relation 'cell' has 2 arguments here but 1");
    expect_errors(GAME "(<= (legal robot (go 1)) (true (go 1 2)))\n", 1, "function 'go' has 2 arguments");
    /* constants and 0-ary relations: (f) is f, so they agree */
    expect_ok(GAME "(<= open (true (step 0)))\n(<= (legal robot wait) (open))\n");
}

static void test_stratification_is_rule_level(void **state)
{
    (void)state;
    /* goal defined as `not` another goal value: stratified per rule */
    expect_ok(GAME "(<= (goal robot 0) (not (goal robot 100)))\n");
    /* a relation negating itself on other constants is fine */
    expect_ok(GAME "(<= (p a) (succ 0 1) (not (p b)))\n(<= (p b) (succ 0 1))\n");
    /* a genuine negative self-loop is not */
    expect_errors(GAME "(<= (p ?x) (succ ?x ?y) (not (p ?y)))\n", 1, "p -> not p");
    /* heads are renamed apart before unifying: (p ?x a) meets (p b ?x) */
    expect_errors(GAME "(<= (p ?x a) (succ ?x ?y) (not (p 0 ?x)))\n", 1, "unstratified negation");
    /* renamed apart, (p (f ?x)) unifies with (p ?x) */
    expect_errors(GAME "(<= (p (f ?x)) (succ ?x ?y) (not (p ?x)))\n", 1, "unstratified negation");
    /* occurs check: (p ?x ?x) never unifies with (p ?y (f ?y)) */
    expect_ok(GAME "(<= (p ?x ?x) (succ ?x ?z) (succ ?y ?z) (not (p ?y (f ?y))))\n");
    /* a longer cycle through positive edges is named in full */
    expect_errors(GAME "(<= a (succ 0 1) (not b))\n(<= b c)\n(<= c a)\n", 1, "a -> not b -> c -> a");
    /* true and does never close a cycle */
    expect_ok(GAME "(<= (next (step 1)) (not (true (step 1))) (not (does robot go)))\n");
}

static void test_safety(void **state)
{
    (void)state;
    /* a variable bound in every disjunct is bound */
    expect_ok(GAME "(<= (legal robot (hop ?x)) (or (succ ?x 1) (succ 0 ?x)))\n");
    /* a disjunct may bind what only it uses */
    expect_ok(GAME "(<= (legal robot hop) (or (succ ?x 1) (true (step ?y))) (true (step 0)))\n");
    /* ... and may use what the rest of the body binds */
    expect_ok(GAME "(<= (legal robot (hop ?x)) (succ ?x ?y) (or (distinct ?y 1) (not (true (step ?x)))))\n");
    /* distinct and not before the literals binding them: order is free */
    expect_ok(GAME "(<= (legal robot (hop ?x)) (distinct ?x ?y) (not (true (step ?x))) (succ ?x ?y))\n");
    /* (not (distinct ...)) needs bound variables too */
    expect_errors(GAME "(<= (legal robot hop) (true (step ?x)) (not (distinct ?x ?y)))\n", 1,
                  "variable '?y' in 'distinct'");
    /* a disjunct's own `not` over a variable nothing binds */
    expect_errors(GAME "(<= (legal robot hop) (true (step 0)) (or (not (succ ?q 1)) (succ 0 1)))\n", 1,
                  "variable '?q' under 'not'");
    /* each unsafe variable once per rule, even when repeated */
    expect_errors(GAME "(<= (legal ?p ?p) (true (step 0)))\n", 1, "variable '?p' in the head");
}

static void test_dependencies(void **state)
{
    (void)state;
    /* init from static relations, even through recursion (test_case_5d) */
    expect_ok(GAME "(<= (init (s ?x)) (r ?x))\n(<= (r ?x) (succ ?x ?y))\n(<= (r ?x) (r ?y) (succ ?x ?y))\n");
    /* legal may depend on true, next on does */
    expect_ok(GAME "(<= (legal robot stay) (true (step ?x)) (succ ?x 1))\n");
    /* base and input may not depend on state or moves, even indirectly */
    expect_errors(GAME "(<= now (true (step 0)))\n(<= (base (x 1)) now)\n", 1,
                  "'base' must not depend on 'true', but 'now' does");
    expect_errors(GAME "(<= (input robot ?m) (does robot ?m))\n", 1, "'input' must not depend on 'does'");
    /* terminal and goal may not depend on does */
    expect_errors(GAME "(<= moved (does robot go))\n(<= terminal (not moved))\n", 1,
                  "'terminal' must not depend on 'does'");
    expect_errors(GAME "(<= (goal robot 0) (does robot go))\n", 1, "'goal' must not depend on 'does'");
}

static void test_keywords(void **state)
{
    (void)state;
    expect_errors(GAME "(true (step 0))\n", 1, "'true' cannot be a fact");
    expect_errors(GAME "(does robot go)\n", 1, "'does' cannot be a fact");
    expect_errors(GAME "(<= (legal robot wait) (init (step 0)))\n", 1, "'init' cannot appear in a rule body");
    expect_errors(GAME "(<= (legal robot wait) (not (base (step 0))))\n", 1, "'base' cannot appear in a rule body");
    expect_errors(GAME "(<= (legal robot wait) (or (input robot go) (succ 0 1)))\n", 1,
                  "'input' cannot appear in a rule body");
    expect_errors(GAME "(<= (terminal 1) (true (step 0)))\n", 1, "'terminal' takes 0 arguments, not 1");
    expect_errors(GAME "(<= (legal robot (goal 1 2)) (true (step 0)))\n", 1,
                  "'goal' is a GDL keyword and cannot be the name of a function");
    expect_errors(GAME "(role (team a))\n", 1, "a role must be a constant name");
    expect_errors(GAME "(goal robot win)\n", 1, "goal value must be an integer from 0 to 100, not 'win'");
    expect_errors(GAME "(goal robot -1)\n", 1, "not '-1'");
    /* computed goal values are fine; keywords as constants are fine */
    expect_ok(GAME "(score 50)\n(<= (goal robot ?v) (score ?v) (true (step 1)))\n(cell true)\n");
    /* GDL-II names are ordinary */
    expect_ok(GAME "(role random)\n(<= (legal random go) (true (step 0)))\n(<= (sees robot ?x) (true (step ?x)))\n");
}

static void test_missing_definitions(void **state)
{
    (void)state;
    checked_t c;
    assert_int_equal(check_text(&c, "(role r)\n(init a)\n"), 3);
    const char *d = check_diags(&c);
    /* at the file, line 1 column 1, as compilers do; no source line */
    assert_non_null(strstr(d, "t.kif:1:1: error: 'legal' is never defined: every game needs it\n"));
    assert_non_null(strstr(d, "t.kif:1:1: error: 'goal' is never defined"));
    assert_non_null(strstr(d, "t.kif:1:1: error: 'terminal' is never defined"));
    assert_null(strstr(d, "(role r)"));
    check_done(&c);
    /* no init: a warning, not an error (GGP-Base's test games rely on it) */
    assert_int_equal(check_text(&c, "(role r)\n(legal r a)\n(<= terminal (true a))\n(goal r 0)\n"), 0);
    assert_int_equal(c.td.d.warnings, 1);
    assert_non_null(strstr(check_diags(&c), "t.kif:1:1: warning: 'init' is never defined"));
    check_done(&c);
}

static void test_recovery_and_warnings(void **state)
{
    (void)state;
    checked_t c;
    /* a malformed `not` is one error, not two */
    assert_int_equal(check_text(&c, GAME "(<= (legal robot x) (not a b))\n"), 1);
    assert_null(strstr(check_diags(&c), "cannot be used as a constant"));
    check_done(&c);
    assert_int_equal(check_text(&c, GAME "(<= (legal robot x) (not (or)))\n"), 1);
    assert_non_null(strstr(check_diags(&c), "'not' must wrap a sentence, not 'or'"));
    check_done(&c);
    /* an empty `or` is legal but never true */
    assert_int_equal(check_text(&c, GAME "(<= (legal robot x) (true (step 0)) (or))\n"), 0);
    assert_int_equal(c.td.d.warnings, 1);
    assert_non_null(strstr(check_diags(&c), "t.kif:8:37: warning: empty 'or' is always false"));
    check_done(&c);
}

static void test_dresden_base_is_ignored(void **state)
{
    (void)state;
    checked_t c;
    assert_int_equal(check_text(&c, GAME "(base step 0)\n(base step 1)\n(base (step 0))\n"), 0);
    assert_int_equal(c.td.d.warnings, 1);
    assert_int_equal(c.info.n_ignored, 2);
    assert_int_equal(c.info.n_facts, 5); /* role, init, succ, goal and the arity-1 base */
    assert_non_null(strstr(check_diags(&c), "t.kif:8:1: warning: old-style 'base'"));
    assert_true(gdl_rule_is_ignored(c.p->rules[7]));
    assert_false(gdl_rule_is_ignored(c.p->rules[9]));
    check_done(&c);
}

static void test_recursion_restriction(void **state)
{
    (void)state;
    /* bound by a non-recursive literal (test_case_5e's left recursion) */
    expect_ok(GAME "(<= (lt ?x ?y) (succ ?x ?y))\n(<= (lt ?x ?y) (lt ?z ?y) (succ ?x ?z))\n");
    /* a function term built on the way down (test_case_5a) */
    expect_ok(GAME "(r 0 0)\n(q 0)\n(<= (r ?a (f ?a)) (r ?b ?a) (q ?b))\n");
    /* an argument of the head, as is */
    expect_ok(GAME "(<= (path ?x ?y) (succ ?x ?y))\n(<= (path ?x ?y) (succ ?x ?z) (path ?z ?y))\n");
    /* building terms without bound: rejected at the argument */
    expect_errors(GAME "(n 0)\n(<= (n (s ?x)) (n ?x))\n", 1, "argument '?x' of 'n'");
    /* mutual recursion counts too */
    expect_errors(GAME "(a 0)\n(<= (a (s ?x)) (b ?x))\n(<= (b ?x) (a ?x))\n", 1, "argument '?x' of 'b'");
}

/* 4,200 rules of one head, each using it: 17.6 million body-head matches
 * to make the rule graph (minutes and gigabytes at 40,000), refused with
 * an error at a rule once past 2^24; 2,000 of them are checked in full. */
static void test_too_many_rule_matches(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        int n = k ? 4200 : 2000;
        const char *rule = "(<= (p ?x) (succ ?x 1) (p ?x))\n";
        size_t cap = strlen(GAME) + (size_t)n * strlen(rule) + 64;
        char *text = malloc(cap), *t = text + sprintf(text, "%s", GAME "(<= (legal robot q) (p 1))\n");
        for (int i = 0; i < n; i++) t += sprintf(t, "%s", rule);
        if (k) expect_errors(text, 1, "error: the rules use 'p' in too many ways to check (more than 16777216");
        else expect_ok(text);
        free(text);
    }
}

static void test_diagnostics_in_source_order(void **state)
{
    (void)state;
    checked_t c;
    /* the stratification error (found late) comes before the arity error */
    assert_int_equal(check_text(&c, GAME "(<= p (succ 0 1) (not p))\n(succ 1 2 3)\n"), 2);
    const char *d = check_diags(&c);
    const char *a = strstr(d, "t.kif:8:18: error: unstratified negation");
    const char *b = strstr(d, "t.kif:9:1: error: relation 'succ'");
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a < b);
    check_done(&c);
}

/* `ggp check FILE --quiet`: options after the file, as every other
 * command takes them; after "--" an option-like name is a file. */
static void test_check_options_anywhere(void **state)
{
    (void)state;
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' check games/tictactoe.kif --quiet", GGP_SOURCE_DIR, GGP_BIN);
    int rc = tu_run(cmd, &out);
    if (rc != 0 || strcmp(out, "games/tictactoe.kif: ok\n")) fail_msg("ggp check FILE --quiet: %d\n%s", rc, out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' check games/tictactoe.kif -- --quiet", GGP_SOURCE_DIR, GGP_BIN);
    rc = tu_run(cmd, &out);
    if (rc != 2 || !strstr(out, "cannot read --quiet")) fail_msg("ggp check FILE -- --quiet: %d\n%s", rc, out);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' check games/tictactoe.kif --bogus", GGP_BIN);
    rc = tu_run(cmd, &out);
    if (rc != 2 || !strstr(out, "unknown option '--bogus'")) fail_msg("ggp check FILE --bogus: %d\n%s", rc, out);
    free(out);
}

/* gdl/load.c, the one loader of every command, test, fuzzer and bench:
 * from text and from a file, errors counted and reported, I/O errors said. */
static void test_loader(void **state)
{
    (void)state;
    tu_diag_t td;
    tu_diag_open(&td);
    gdl_loaded_t l;
    const char *ok = "(role a) (role b) (init (p)) (<= (legal ?r x) (role ?r)) (<= (next (p)) (true (p)))\n"
                     "(<= terminal (true (p))) (<= (goal ?r 50) (role ?r))";
    gdl_load_text("m.kif", ok, strlen(ok), &td.d, &l);
    assert_int_equal(l.errors, 0);
    assert_int_equal(l.info.n_roles, 2);
    assert_string_equal(symtab_spelling(l.syms, l.info.roles[1]), "b");
    gdl_loaded_free(&l);
    const char *bad = "(role a)\n(<= (legal a ?x) (true (q ?y)))";
    gdl_load_text("m.kif", bad, strlen(bad), &td.d, &l);
    assert_true(l.errors > 0);
    if (!strstr(tu_diag_text(&td), "m.kif:2:")) fail_msg("no location in: %s", tu_diag_text(&td));
    gdl_loaded_free(&l);
    const char *err = NULL;
    assert_false(gdl_load_file("/nonexistent/x.kif", &td.d, &l, &err));
    assert_non_null(err);
    tu_diag_close(&td);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_diagnostics),
        cmocka_unit_test(test_loader),
        cmocka_unit_test(test_valid_counts_and_roles),
        cmocka_unit_test(test_roles_keep_first_spelling),
        cmocka_unit_test(test_relation_and_function_namespaces),
        cmocka_unit_test(test_stratification_is_rule_level),
        cmocka_unit_test(test_safety),
        cmocka_unit_test(test_dependencies),
        cmocka_unit_test(test_keywords),
        cmocka_unit_test(test_missing_definitions),
        cmocka_unit_test(test_recovery_and_warnings),
        cmocka_unit_test(test_dresden_base_is_ignored),
        cmocka_unit_test(test_recursion_restriction),
        cmocka_unit_test(test_too_many_rule_matches),
        cmocka_unit_test(test_diagnostics_in_source_order),
        cmocka_unit_test(test_check_options_anywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
