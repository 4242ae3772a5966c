/* test_sexpr.c - the KIF s-expression reader: tokens, comments, case
 * folding, locations and recovery from unbalanced parentheses. */
#include "testutil.h"

#include <string.h>

#include "gdl/sexpr.h"

typedef struct parsed {
    arena_t *a;
    symtab_t *st;
    src_t *src;
    tu_diag_t td;
    sexpr_t **forms;
    size_t n;
    unsigned errors;
} parsed_t;

static void parse(parsed_t *p, const char *text)
{
    p->a = arena_new(4096);
    p->st = symtab_new();
    p->src = src_new("t.kif", text, strlen(text));
    tu_diag_open(&p->td);
    p->errors = sx_parse(p->a, p->st, p->src, &p->td.d, &p->forms, &p->n);
}

static void done(parsed_t *p)
{
    tu_diag_close(&p->td);
    src_free(p->src);
    symtab_free(p->st);
    arena_free(p->a);
}

static char *print(parsed_t *p, size_t i)
{
    static char buf[1024];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    sx_print(f, p->st, p->forms[i]);
    fclose(f);
    return buf;
}

static void test_atoms_and_lists(void **state)
{
    (void)state;
    parsed_t p;
    parse(&p, "; comment (not a list\n(role xPlayer)\t(<= (legal ?P (mark ?x ?y)) (true (cell ?x ?y b)))\n"
              "(succ -1 0) (+ ++ index++ ?x++)");
    assert_int_equal(p.errors, 0);
    assert_int_equal(p.n, 4);
    assert_string_equal(print(&p, 0), "(role xplayer)");
    assert_string_equal(print(&p, 1), "(<= (legal ?p (mark ?x ?y)) (true (cell ?x ?y b)))");
    assert_string_equal(print(&p, 2), "(succ -1 0)");
    assert_string_equal(print(&p, 3), "(+ ++ index++ ?x++)");
    /* first spelling kept for output, key folded */
    sym_t s = symtab_lookup(p.st, "XPLAYER", 7);
    assert_int_not_equal(s, SYM_NONE);
    assert_string_equal(symtab_spelling(p.st, s), "xPlayer");
    assert_string_equal(symtab_key(p.st, s), "xplayer");
    /* keywords have fixed ids whatever their case */
    assert_int_equal(symtab_lookup(p.st, "ROLE", 4), SYM_ROLE);
    assert_int_equal(p.forms[1]->off, 37); /* after the comment line, the role form and a tab */
    done(&p);
}

static void test_locations(void **state)
{
    (void)state;
    parsed_t p;
    parse(&p, "(a b)\n  (c\n d)");
    assert_int_equal(p.errors, 0);
    assert_int_equal(p.n, 2);
    uint32_t line, col;
    src_locate(p.src, p.forms[1]->off, &line, &col);
    assert_int_equal(line, 2);
    assert_int_equal(col, 3);
    src_locate(p.src, p.forms[1]->items[1]->off, &line, &col);
    assert_int_equal(line, 3);
    assert_int_equal(col, 2);
    done(&p);
}

static void test_unmatched_close_recovers(void **state)
{
    (void)state;
    parsed_t p;
    parse(&p, "(a b))\n(c d) )");
    assert_int_equal(p.errors, 2);
    assert_int_equal(p.n, 2);
    const char *out = tu_diag_text(&p.td);
    assert_non_null(strstr(out, "t.kif:1:6: error: unmatched ')'"));
    assert_non_null(strstr(out, "t.kif:2:7: error: unmatched ')'"));
    assert_non_null(strstr(out, "    (a b))\n         ^\n"));
    done(&p);
}

static void test_unclosed_open(void **state)
{
    (void)state;
    parsed_t p;
    parse(&p, "(role x)\n(init (cell 1 1 b)\n(role y)");
    assert_int_equal(p.errors, 1);
    const char *out = tu_diag_text(&p.td);
    /* the innermost unclosed paren is the one on line 2 */
    assert_non_null(strstr(out, "t.kif:2:1: error: unclosed '('"));
    assert_int_equal(p.n, 2);
    done(&p);
}

static void test_stray_bytes(void **state)
{
    (void)state;
    parsed_t p;
    parse(&p, "(a \x01 b)\n; caf\xc3\xa9 in a comment is fine\n(c\x7f)");
    assert_int_equal(p.errors, 2);
    assert_non_null(strstr(tu_diag_text(&p.td), "t.kif:1:4: error: stray byte 0x01"));
    assert_int_equal(p.n, 2);
    assert_string_equal(print(&p, 0), "(a b)");
    done(&p);
}

static void test_deep_nesting_is_refused(void **state)
{
    (void)state;
    size_t depth = SX_MAX_DEPTH + 10;
    char *text = malloc(2 * depth + 2);
    memset(text, '(', depth);
    text[depth] = 'x';
    memset(text + depth + 1, ')', depth);
    text[2 * depth + 1] = '\0';
    parsed_t p;
    parse(&p, text);
    assert_true(p.errors >= 1);
    assert_non_null(strstr(tu_diag_text(&p.td), "nested deeper than"));
    done(&p);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atoms_and_lists),       cmocka_unit_test(test_locations),
        cmocka_unit_test(test_unmatched_close_recovers), cmocka_unit_test(test_unclosed_open),
        cmocka_unit_test(test_stray_bytes),           cmocka_unit_test(test_deep_nesting_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
