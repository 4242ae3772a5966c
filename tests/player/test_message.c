/* test_message.c - parsing GGP messages: every kind, any case and spacing,
 * comments, NIL in any spelling, exact match ids, and a one-line reason for
 * each kind of malformed message (shared/docs/gdl-protocol.md §5.2, §6). */
#include "testutil.h"

#include "player/proto/message.h"

static ggp_msg_t parse_ok(const char *text)
{
    ggp_msg_t m;
    char err[256] = "";
    bool ok = ggp_msg_parse(text, strlen(text), &m, err, sizeof err);
    if (!ok) fail_msg("'%s' refused: %s", text, err);
    return m;
}

/* The reason for refusing text (static buffer). */
static const char *parse_err(const char *text, size_t len)
{
    static char err[256];
    ggp_msg_t m;
    err[0] = '\0';
    if (ggp_msg_parse(text, len, &m, err, sizeof err)) {
        ggp_msg_free(&m);
        fail_msg("'%.*s' accepted", (int)len, text);
    }
    assert_true(err[0] != '\0');
    assert_null(strchr(err, '\n'));
    return err;
}

static void test_info_ping_preview(void **state)
{
    (void)state;
    ggp_msg_t m = parse_ok("(info)");
    assert_int_equal(m.kind, MSG_INFO);
    assert_null(m.match_id);
    ggp_msg_free(&m);
    m = parse_ok("  ( INFO )\r\n");
    assert_int_equal(m.kind, MSG_INFO);
    ggp_msg_free(&m);
    m = parse_ok("(Ping)");
    assert_int_equal(m.kind, MSG_PING);
    ggp_msg_free(&m);
    m = parse_ok("(preview ((role a) (<= terminal (true done))) 30)");
    assert_int_equal(m.kind, MSG_PREVIEW);
    assert_int_equal(m.start_clock, 30);
    assert_int_equal(m.rules->n, 2);
    ggp_msg_free(&m);
}

static void test_start(void **state)
{
    (void)state;
    ggp_msg_t m = parse_ok("( START tiltyard.ticTacToe.1700000000 xPlayer (( role xPlayer ) ( role oplayer )\n"
                           " ; a comment (with a paren\n ( init ( cell 1 1 b ) ) ) 30 10 )");
    assert_int_equal(m.kind, MSG_START);
    assert_string_equal(m.match_id, "tiltyard.ticTacToe.1700000000");
    assert_string_equal(m.role, "xPlayer");
    assert_int_equal(m.start_clock, 30);
    assert_int_equal(m.play_clock, 10);
    assert_non_null(m.rules);
    assert_int_equal(m.rules->n, 3);
    /* The rules keep their first spelling for replies (§1.3). */
    char *t = ggp_sx_text(m.syms, m.rules->items[0], false);
    assert_string_equal(t, "(role xPlayer)");
    free(t);
    t = ggp_sx_text(m.syms, m.rules->items[2], true);
    assert_string_equal(t, "( init ( cell 1 1 b ) )");
    free(t);
    ggp_msg_free(&m);
}

static void test_dresden_uppercase(void **state)
{
    (void)state;
    ggp_msg_t m = parse_ok("(START MATCH.1 XPLAYER ((ROLE XPLAYER) (ROLE OPLAYER)) 10 5)");
    assert_int_equal(m.kind, MSG_START);
    assert_string_equal(m.match_id, "MATCH.1");
    assert_string_equal(m.role, "XPLAYER");
    ggp_msg_free(&m);
    m = parse_ok("(PLAY MATCH.1 ((MARK 1 1) NOOP))");
    assert_int_equal(m.kind, MSG_PLAY);
    assert_false(m.moves_nil);
    assert_int_equal(m.n_moves, 2);
    assert_string_equal(m.moves[0], "(MARK 1 1)");
    assert_string_equal(m.moves[1], "NOOP");
    ggp_msg_free(&m);
}

static void test_play_stop_abort(void **state)
{
    (void)state;
    /* NIL in any spelling, and any atom, means "no moves" (§5.2). */
    const char *nils[] = {"(play m1 nil)", "(PLAY m1 NIL)", "( play m1 Nil )", "(play m1 none)"};
    for (size_t i = 0; i < sizeof nils / sizeof *nils; i++) {
        ggp_msg_t m = parse_ok(nils[i]);
        assert_int_equal(m.kind, MSG_PLAY);
        assert_true(m.moves_nil);
        assert_int_equal(m.n_moves, 0);
        assert_string_equal(m.match_id, "m1");
        ggp_msg_free(&m);
    }
    ggp_msg_t m = parse_ok("( PLAY m1 (( mark 1 1 )\tnoop ) )");
    assert_int_equal(m.n_moves, 2);
    assert_string_equal(m.moves[0], "(mark 1 1)");
    assert_string_equal(m.moves[1], "noop");
    ggp_msg_free(&m);
    m = parse_ok("(stop m.2 ((push red) wait))");
    assert_int_equal(m.kind, MSG_STOP);
    assert_string_equal(m.match_id, "m.2");
    assert_int_equal(m.n_moves, 2);
    assert_string_equal(m.moves[0], "(push red)");
    ggp_msg_free(&m);
    m = parse_ok("(stop m.2 nil)");
    assert_true(m.moves_nil);
    ggp_msg_free(&m);
    m = parse_ok("(abort Some.Match-ID_42)");
    assert_int_equal(m.kind, MSG_ABORT);
    /* Ids are kept exactly, case and all. */
    assert_string_equal(m.match_id, "Some.Match-ID_42");
    ggp_msg_free(&m);
    /* A single-role game: a one-element list. */
    m = parse_ok("(play m1 (noop))");
    assert_false(m.moves_nil);
    assert_int_equal(m.n_moves, 1);
    ggp_msg_free(&m);
    /* An empty list is a list of zero moves, not NIL. */
    m = parse_ok("(play m1 ())");
    assert_false(m.moves_nil);
    assert_int_equal(m.n_moves, 0);
    ggp_msg_free(&m);
}

static void test_malformed(void **state)
{
    (void)state;
    assert_non_null(strstr(parse_err("", 0), "empty"));
    assert_non_null(strstr(parse_err("   ; only a comment\n", 20), "empty"));
    assert_non_null(strstr(parse_err("(info", 5), "unclosed"));
    assert_non_null(strstr(parse_err("(info))", 7), "unmatched"));
    assert_non_null(strstr(parse_err("(info) (info)", 13), "2 forms"));
    assert_non_null(strstr(parse_err("info", 4), "list"));
    assert_non_null(strstr(parse_err("((play) m1 nil)", 15), "list"));
    assert_non_null(strstr(parse_err("()", 2), "list"));
    assert_non_null(strstr(parse_err("(hello world)", 13), "unknown message 'hello'"));
    assert_non_null(strstr(parse_err("(play m1)", 9), "play takes 2 arguments, got 1"));
    assert_non_null(strstr(parse_err("(info extra)", 12), "info takes 0 arguments"));
    assert_non_null(strstr(parse_err("(abort)", 7), "abort takes 1 argument,"));
    assert_non_null(strstr(parse_err("(play (m1) nil)", 15), "match id"));
    assert_non_null(strstr(parse_err("(start m1 (x) ((role x)) 10 10)", 31), "role"));
    assert_non_null(strstr(parse_err("(start m1 x role 10 10)", 23), "rules must be a list"));
    assert_non_null(strstr(parse_err("(start m1 x ((role x)) ten 10)", 30), "start clock"));
    assert_non_null(strstr(parse_err("(start m1 x ((role x)) 10 -5)", 29), "out of range"));
    assert_non_null(strstr(parse_err("(start m1 x ((role x)) 10 99999999999999999999)", 47), "play clock"));
    assert_non_null(strstr(parse_err("(start m1 x ((role x)) 10 (10))", 31), "play clock"));
    assert_non_null(strstr(parse_err("(preview role 10)", 17), "list"));
    /* Control bytes and NULs are refused, not read past. */
    assert_non_null(strstr(parse_err("(info\0)", 7), "stray byte 0x00"));
    assert_non_null(strstr(parse_err("(in\x01" "fo)", 7), "stray byte 0x01"));
}

static void test_deep_and_large(void **state)
{
    (void)state;
    /* Nesting beyond the reader's limit is refused with a reason. */
    size_t depth = SX_MAX_DEPTH + 10;
    char *deep = malloc(2 * depth + 32);
    size_t k = 0;
    k += (size_t)sprintf(deep, "(play m1 ");
    for (size_t i = 0; i < depth; i++) deep[k++] = '(';
    deep[k++] = 'x';
    for (size_t i = 0; i < depth; i++) deep[k++] = ')';
    deep[k++] = ')';
    assert_non_null(strstr(parse_err(deep, k), "nested deeper"));
    free(deep);
    /* A long but valid move list parses. */
    size_t n = 20000;
    char *big = malloc(n * 12 + 64);
    k = (size_t)sprintf(big, "(play m1 (");
    for (size_t i = 0; i < n; i++) k += (size_t)sprintf(big + k, "(f %zu) ", i);
    k += (size_t)sprintf(big + k, "))");
    ggp_msg_t m;
    char err[256];
    assert_true(ggp_msg_parse(big, k, &m, err, sizeof err));
    assert_int_equal(m.n_moves, n);
    assert_string_equal(m.moves[n - 1], "(f 19999)");
    ggp_msg_free(&m);
    free(big);
}

static void test_take(void **state)
{
    (void)state;
    ggp_msg_t m = parse_ok("(start m1 r ((role r) (init x)) 5 5)");
    arena_t *a;
    symtab_t *st;
    src_t *src;
    const sexpr_t *rules = m.rules;
    ggp_msg_take(&m, &a, &st, &src);
    ggp_msg_free(&m);
    /* The rules outlive the message. */
    char *t = ggp_sx_text(st, rules, true);
    assert_string_equal(t, "( ( role r ) ( init x ) )");
    free(t);
    src_free(src);
    symtab_free(st);
    arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_info_ping_preview), cmocka_unit_test(test_start),
        cmocka_unit_test(test_dresden_uppercase), cmocka_unit_test(test_play_stop_abort),
        cmocka_unit_test(test_malformed),         cmocka_unit_test(test_deep_and_large),
        cmocka_unit_test(test_take),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
