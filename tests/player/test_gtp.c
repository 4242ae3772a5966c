/* test_gtp.c - `ggp gtp` (player/gtp/gtp.h): GTP version 2 transcripts fed
 * through the session from memory, checking each response: numeric ids
 * echoed, the protocol commands, boardsize / clear_board / play / genmove
 * (a legal vertex, the same one for the same seed), illegal moves, undo,
 * showboard, final_score with area scoring and komi, the clock, and input
 * that is not GTP (long lines, control bytes, huge numbers) answered with
 * an error, never a crash. Then the command line. */
#include "testutil.h"

#include <unistd.h>

#include "player/gtp/gtp.h"

/* The responses of a session (spec, game) to transcript: malloc'd. */
static char *session(const char *spec, const char *game, const char *transcript, size_t len)
{
    gtp_options_t o = {.spec = spec, .game = game, .seed = 1, .name = "ggp", .version = "test"};
    char err[256];
    gtp_t *g = gtp_new(&o, err, sizeof err);
    if (!g) fail_msg("gtp_new: %s", err);
    FILE *in = fmemopen((void *)transcript, len, "r");
    assert_non_null(in);
    char *text = NULL;
    size_t tl = 0;
    FILE *out = open_memstream(&text, &tl);
    assert_non_null(out);
    gtp_run(g, in, out);
    fclose(in);
    fclose(out);
    gtp_free(g);
    return text;
}

static char *run(const char *transcript) { return session("grave:playouts=200", "go9", transcript, strlen(transcript)); }

/* The i-th response (0-based) of text without its final empty line, into
 * buf; fails if there are fewer. */
static const char *response(const char *text, int i, char *buf, size_t len)
{
    const char *p = text;
    for (int k = 0; k < i; k++) {
        p = strstr(p, "\n\n");
        if (!p) fail_msg("fewer than %d responses in:\n%s", i + 1, text);
        p += 2;
    }
    const char *e = strstr(p, "\n\n");
    if (!e) fail_msg("response %d unterminated in:\n%s", i, text);
    snprintf(buf, len, "%.*s", (int)(e - p), p);
    return buf;
}

static int count_responses(const char *text)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, "\n\n")); p += 2) n++;
    return n;
}

#define EXPECT(text, i, want)                                                                                          \
    do {                                                                                                               \
        char b_[8192];                                                                                                 \
        assert_string_equal(response(text, i, b_, sizeof b_), want);                                                   \
    } while (0)

static void test_protocol_commands_and_ids(void **state)
{
    (void)state;
    char *t = run("1 protocol_version\n"
                  "name\n"
                  "22 version\n"
                  "known_command genmove\n"
                  "3 known_command fly\n"
                  "# a comment line gets no response\n"
                  "\n"
                  "   \t  \n"
                  "4 jump over\n"
                  "list_commands\n"
                  "5 quit\n"
                  "name\n");
    EXPECT(t, 0, "=1 2");
    EXPECT(t, 1, "= ggp");
    EXPECT(t, 2, "=22 test");
    EXPECT(t, 3, "= true");
    EXPECT(t, 4, "=3 false");
    EXPECT(t, 5, "?4 unknown command");
    char b[8192];
    response(t, 6, b, sizeof b);
    assert_non_null(strstr(b, "\ngenmove\n"));
    assert_non_null(strstr(b, "\nfinal_score\n"));
    EXPECT(t, 7, "=5 ");
    assert_int_equal(count_responses(t), 8); /* nothing after quit */
    free(t);
}

static void test_play_and_illegal_moves(void **state)
{
    (void)state;
    char *t = run("boardsize 9\n"
                  "clear_board\n"
                  "play b D4\n"
                  "play w d4\n"  /* occupied */
                  "play b D4\n"  /* occupied (white to move: a pass put in, then taken out) */
                  "play w J9\n"
                  "play w J9\n"  /* occupied (black to move) */
                  "play black pass\n"
                  "play white K1\n" /* off a 9x9 board */
                  "play b I3\n"     /* no column I */
                  "play green A1\n"
                  "play b\n"
                  "10 play w A1\n");
    EXPECT(t, 0, "= ");
    EXPECT(t, 1, "= ");
    EXPECT(t, 2, "= ");
    EXPECT(t, 3, "? illegal move");
    EXPECT(t, 4, "? illegal move");
    EXPECT(t, 5, "= ");
    EXPECT(t, 6, "? illegal move");
    EXPECT(t, 7, "= ");
    EXPECT(t, 8, "? syntax error (invalid vertex 'K1')");
    EXPECT(t, 9, "? syntax error (invalid vertex 'I3')");
    EXPECT(t, 10, "? syntax error");
    EXPECT(t, 11, "? syntax error");
    EXPECT(t, 12, "=10 ");
    free(t);
}

/* Suicide is illegal: a black stone at A1 with white on A2 and B1. */
static void test_suicide_is_illegal(void **state)
{
    (void)state;
    char *t = run("play b E5\nplay w A2\nplay b E6\nplay w B1\nplay b A1\n");
    EXPECT(t, 4, "? illegal move");
    free(t);
}

/* genmove answers a vertex of the board that was empty, and plays it. */
static void test_genmove_plays_a_legal_vertex(void **state)
{
    (void)state;
    char *t = run("boardsize 9\nclear_board\nplay b E5\n7 genmove w\n");
    char b[256];
    response(t, 3, b, sizeof b);
    assert_true(!strncmp(b, "=7 ", 3));
    const char *v = b + 3;
    char col;
    unsigned row;
    assert_int_equal(sscanf(v, "%c%u", &col, &row), 2);
    assert_true(col >= 'A' && col <= 'J' && col != 'I');
    assert_true(row >= 1 && row <= 9);
    assert_string_not_equal(v, "E5");
    /* the same session again: the same move; and it was played (occupied) */
    char tr[256];
    snprintf(tr, sizeof tr, "boardsize 9\nclear_board\nplay b E5\ngenmove w\nplay b %.8s\ngenmove b\ngenmove b\n", v);
    char *t2 = run(tr);
    char b2[256];
    response(t2, 3, b2, sizeof b2);
    assert_string_equal(b2 + 2, v);
    EXPECT(t2, 4, "? illegal move");
    response(t2, 5, b2, sizeof b2);
    assert_true(b2[0] == '=');
    /* black again (GTP 2 allows it: the turn is handed over): a vertex */
    char b3[256];
    response(t2, 6, b3, sizeof b3);
    assert_true(b3[0] == '=' && strcmp(b3, b2) != 0 && strcmp(b3, "= pass") != 0);
    free(t);
    free(t2);
}

/* genmove never fills an own eye: it passes instead. On 5x5 black's group
 * has two eyes (A5, A3) and is behind on the count; white has passed, and
 * every other black point is suicide. Passing loses at once, so every
 * searcher played an eye (compete, grave and uct all answered A5 or A3
 * before the rule), and white would then capture the group. */
static void test_genmove_does_not_fill_own_eye(void **state)
{
    (void)state;
    static const char *const specs[] = {"compete:playouts=300", "grave:playouts=300", "uct:playouts=300"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        static const char tr[] = "boardsize 5\nkomi 0.5\nclear_board\n"
                                 "play b pass\nplay w C5\nplay b pass\nplay w C4\nplay b pass\nplay w C3\n"
                                 "play b pass\nplay w C2\nplay b pass\nplay w C1\nplay b B5\nplay w D4\n"
                                 "play b A4\nplay w E4\nplay b B4\nplay w D2\nplay b B3\nplay w E2\n"
                                 "play b A2\nplay w E5\nplay b B2\nplay w E3\nplay b A1\nplay w E1\n"
                                 "play b B1\nplay w pass\nfinal_score\ngenmove b\nfinal_score\n";
        char *t = session(specs[i], "go5", tr, sizeof tr - 1);
        EXPECT(t, 29, "= W+5.5"); /* black 8 stones + 2 eyes, white 12 + 3, komi 0.5 */
        EXPECT(t, 30, "= pass");
        EXPECT(t, 31, "= W+5.5"); /* two passes: the game is over as it stands */
        free(t);
    }
}

/* Each size plays: genmove on 5x5 and 19x19 gives a vertex of that board. */
static void test_boardsizes(void **state)
{
    (void)state;
    char *t = run("boardsize 5\ngenmove b\nboardsize 19\nplay b T19\ngenmove w\nboardsize 4\nboardsize 20\n"
                  "boardsize 99999999999999999999\nboardsize -3\nplay w A1\n");
    char b[256];
    response(t, 1, b, sizeof b);
    assert_true(b[2] >= 'A' && b[2] <= 'E' && b[3] >= '1' && b[3] <= '5' && !b[4]);
    EXPECT(t, 3, "= ");
    response(t, 4, b, sizeof b);
    assert_true(b[0] == '=' && b[2] != 'p');
    EXPECT(t, 5, "? unacceptable size");
    EXPECT(t, 6, "? unacceptable size");
    EXPECT(t, 7, "? syntax error");
    EXPECT(t, 8, "? unacceptable size");
    /* the 19x19 game goes on: white again, the turn handed over; A1 is
     * empty unless white's genmove chose it */
    char w4[256];
    response(t, 4, w4, sizeof w4);
    response(t, 9, b, sizeof b);
    assert_int_equal(b[0], strcmp(w4 + 2, "A1") ? '=' : '?');
    free(t);
}

static void test_undo(void **state)
{
    (void)state;
    char *t = run("undo\nplay b C3\nplay w C4\nundo\nplay w C4\nundo\nundo\nplay b C3\nundo\nundo\n");
    EXPECT(t, 0, "? cannot undo");
    EXPECT(t, 3, "= ");
    EXPECT(t, 4, "= "); /* C4 is empty again */
    EXPECT(t, 7, "= ");
    EXPECT(t, 9, "? cannot undo");
    free(t);
}

static void test_showboard(void **state)
{
    (void)state;
    char *t = run("boardsize 5\nplay b A1\nplay w E5\nshowboard\n");
    char b[2048];
    response(t, 3, b, sizeof b);
    assert_true(!strncmp(b, "= \n", 3));
    assert_non_null(strstr(b, "\n 1 X . . . ."));
    assert_non_null(strstr(b, "\n 5 . . . . O"));
    assert_non_null(strstr(b, "   A B C D E"));
    assert_null(strstr(b, "\n\n"));
    free(t);
}

/* Area scoring: stones plus empty regions touching one colour, minus komi. */
static void test_final_score(void **state)
{
    (void)state;
    char *t = run("final_score\n"
                  "komi 0\nfinal_score\n"
                  "boardsize 5\nkomi 0.5\nplay b C3\nfinal_score\n"
                  "play w C4\nfinal_score\n"
                  "komi 2\nfinal_score\n"
                  "komi 0.3\nkomi nan\nkomi 1e999\nfinal_score\n");
    EXPECT(t, 0, "= W+7.5");
    EXPECT(t, 2, "= 0");
    EXPECT(t, 6, "= B+24.5");
    EXPECT(t, 8, "= W+0.5"); /* 1 - 1 stones, all empty points touch both */
    EXPECT(t, 9, "= ");     /* a new komi keeps the position */
    EXPECT(t, 10, "= W+2");
    char b[256];
    assert_true(response(t, 11, b, sizeof b)[0] == '?');
    assert_true(response(t, 12, b, sizeof b)[0] == '?');
    assert_true(response(t, 13, b, sizeof b)[0] == '?');
    EXPECT(t, 14, "= W+2");
    free(t);
}

/* Two passes end the game: no more moves; genmove passes. */
static void test_two_passes_end_the_game(void **state)
{
    (void)state;
    char *t = run("play b D4\nplay w pass\nplay b pass\nplay w A1\ngenmove w\nfinal_score\n");
    EXPECT(t, 3, "? illegal move (the game is over)");
    EXPECT(t, 4, "= pass");
    EXPECT(t, 5, "= B+73.5");
    free(t);
}

/* The stones ('X', 'O') of a showboard response: the column letters skip
 * both. */
static int stones(const char *board, char c)
{
    int n = 0;
    for (const char *p = board; *p; p++) n += *p == c;
    return n;
}

/* GTP 2 §6.3.3: moves of one colour in succession are legal (handicap
 * stones). The turn is handed over with the board as it is, not by a pass:
 * undo takes it back with the move, a new komi replays it, and a pass out
 * of turn does not end the game. */
static void test_same_colour_in_succession(void **state)
{
    (void)state;
    char *t = run("boardsize 9\nplay b C3\nplay b G7\nplay b C7\nshowboard\nplay w E5\nundo\nundo\n"
                  "showboard\nplay w C7\nkomi 0.5\nshowboard\nundo\nundo\nshowboard\n"
                  "play b G7\nplay w C7\ngenmove w\nundo\nshowboard\ngenmove w\n"
                  "play b D4\nplay b pass\nplay b E4\nplay w pass\nplay w pass\nplay b pass\n"
                  "genmove w\nplay b A1\n");
    for (int i = 0; i <= 3; i++) EXPECT(t, i, "= ");
    char b[2048];
    response(t, 4, b, sizeof b);
    assert_non_null(strstr(b, "\n 7 . . X . . . X . ."));
    assert_non_null(strstr(b, "\n 3 . . X . . . . . ."));
    EXPECT(t, 5, "= ");
    EXPECT(t, 6, "= "); /* takes back E5 */
    EXPECT(t, 7, "= "); /* takes back C7 and the turn handed to black before it */
    response(t, 8, b, sizeof b);
    assert_non_null(strstr(b, "\n 7 . . . . . . X . ."));
    EXPECT(t, 9, "= "); /* white to move after G7: C7 is empty again */
    EXPECT(t, 10, "= ");
    response(t, 11, b, sizeof b); /* a new komi replays the moves and the turn handed over */
    assert_non_null(strstr(b, "\n 7 . . O . . . X . ."));
    EXPECT(t, 12, "= ");
    EXPECT(t, 13, "= "); /* G7 and the turn before it, replayed as such */
    response(t, 14, b, sizeof b);
    assert_true(stones(b, 'X') == 1 && stones(b, 'O') == 0);
    EXPECT(t, 15, "= ");
    EXPECT(t, 16, "= ");
    response(t, 17, b, sizeof b); /* white again */
    assert_true(b[0] == '=');
    EXPECT(t, 18, "= "); /* takes back white's genmove and the turn handed over */
    response(t, 19, b, sizeof b);
    assert_true(stones(b, 'X') == 2 && stones(b, 'O') == 1);
    assert_true(response(t, 20, b, sizeof b)[0] == '=');
    EXPECT(t, 21, "= ");
    EXPECT(t, 22, "= "); /* out of turn: not the game's end */
    EXPECT(t, 23, "= ");
    EXPECT(t, 24, "= ");
    EXPECT(t, 25, "= "); /* white's second pass alone does not end it either */
    EXPECT(t, 26, "= "); /* black's pass after white's: the end */
    EXPECT(t, 27, "= pass");
    EXPECT(t, 28, "? illegal move (the game is over)");
    free(t);
}

static void test_clock(void **state)
{
    (void)state;
    /* no budget in the spec: the clock's (a few tenths of a second here) */
    const char *tr = "time_settings 3 0 0\ngenmove b\ntime_left w 1 0\ngenmove w\ntime_settings 0 1 2\ngenmove b\n"
                     "time_settings x 1 2\ntime_left g 1 1\n";
    char *t = session("grave", "go9", tr, strlen(tr));
    char b[256];
    for (int i = 0; i < 6; i++) assert_true(response(t, i, b, sizeof b)[0] == '=');
    EXPECT(t, 6, "? syntax error");
    EXPECT(t, 7, "? syntax error");
    free(t);
}

/* Input that is not GTP gets an error response, and the session goes on. */
static void test_hostile_input(void **state)
{
    (void)state;
    size_t n = 3 * GTP_MAX_LINE;
    const char tail[] = "\n1 play b\x01\x02 C3\r\n\x7f\xff\xfe garbage \0 here\nplay\n2 play w A1 extra words\nname";
    char *tr = malloc(n + sizeof tail);
    memset(tr, 'x', n);
    memcpy(tr + n, tail, sizeof tail - 1);
    size_t len = n + sizeof tail - 1;
    char *t = session("random", "go9", tr, len);
    EXPECT(t, 0, "? line too long");
    EXPECT(t, 1, "=1 ");
    EXPECT(t, 2, "? unknown command");
    EXPECT(t, 3, "? syntax error");
    EXPECT(t, 4, "=2 ");
    EXPECT(t, 5, "= ggp"); /* the last line has no newline */
    free(t);
    free(tr);
}

/* A line longer than the limit whose command starts past the part kept
 * (blanks or control bytes first) is answered too: a controller waits for
 * an answer to every command. A long line of blanks alone is no command. */
static void test_long_blank_prefix(void **state)
{
    (void)state;
    size_t n = 2 * GTP_MAX_LINE;
    char *tr = malloc(3 * n + 64);
    size_t len = 0;
    memset(tr + len, ' ', n);
    len += n;
    len += (size_t)sprintf(tr + len, "name\n");
    memset(tr + len, '\0', n);
    len += n;
    len += (size_t)sprintf(tr + len, "1 protocol_version\n");
    memset(tr + len, ' ', n);
    len += n;
    len += (size_t)sprintf(tr + len, "\n2 name\n");
    char *t = session("random", "go9", tr, len);
    EXPECT(t, 0, "? line too long");
    EXPECT(t, 1, "? line too long");
    EXPECT(t, 2, "=2 ggp");
    assert_int_equal(count_responses(t), 3);
    free(t);
    free(tr);
    /* exactly the limit, then CRLF: the CR is not the line's */
    char line[GTP_MAX_LINE + 3];
    memset(line, ' ', GTP_MAX_LINE);
    memcpy(line, "name", 4);
    memcpy(line + GTP_MAX_LINE, "\r\n", 3);
    t = session("random", "go9", line, GTP_MAX_LINE + 2);
    EXPECT(t, 0, "= ggp");
    free(t);
}

/* After the game has ended, passes (genmove's answer, or played) are
 * moves of the record: undo takes back that pass, not the move before
 * it, so the controller's board and ours stay the same. */
static void test_passes_after_the_end(void **state)
{
    (void)state;
    char *t = run("play b D4\nplay w E5\nplay b pass\nplay w pass\ngenmove b\nundo\nundo\nshowboard\n"
                  "play w pass\nundo\nundo\nundo\nshowboard\n");
    EXPECT(t, 4, "= pass"); /* the game is over */
    EXPECT(t, 5, "= ");     /* black's pass after the end */
    EXPECT(t, 6, "= ");     /* white's second pass: the game goes on */
    char b[8192];
    const char *board = response(t, 7, b, sizeof b);
    assert_int_equal(stones(board, 'X'), 1); /* D4 and E5 still there */
    assert_int_equal(stones(board, 'O'), 1);
    EXPECT(t, 8, "= ");  /* white passes: two passes again, the end */
    EXPECT(t, 9, "= ");  /* that pass */
    EXPECT(t, 10, "= "); /* black's pass */
    EXPECT(t, 11, "= "); /* white's E5 */
    board = response(t, 12, b, sizeof b);
    assert_int_equal(stones(board, 'X'), 1);
    assert_int_equal(stones(board, 'O'), 0);
    free(t);
}

/* bench/gtp_referee.py (bench/gnugo.sh's referee) against an engine
 * that answers everything but genmove, which it never answers: each game
 * is that engine's forfeit after --timeout, the engine is started again,
 * and the match ends with its result line (it used to wait forever). */
static void test_referee_silent_engine(void **state)
{
    (void)state;
    if (tu_run("python3 -c 'import select'", NULL) != 0) {
        printf("note: no python3; skipping\n");
        skip();
    }
    char stub[] = "/tmp/ggp_test_gtp_stub_XXXXXX";
    int fd = mkstemp(stub);
    assert_true(fd >= 0);
    const char code[] = "import sys, time\n"
                        "for line in sys.stdin:\n"
                        "    if line.split()[:1] == ['genmove']:\n"
                        "        time.sleep(3600)\n"
                        "    print('= \\n', flush=True)\n";
    assert_int_equal(write(fd, code, sizeof code - 1), (ssize_t)(sizeof code - 1));
    close(fd);
    char cmd[2048], *out;
    snprintf(cmd, sizeof cmd,
             "timeout 120 python3 %s/bench/gtp_referee.py --games 2 --size 5 --timeout 1 "
             "--a '%s gtp --player random --game go5' --b 'python3 %s' --scorer a",
             GGP_SOURCE_DIR, GGP_BIN, stub);
    int rc = tu_run(cmd, &out);
    unlink(stub);
    if (rc != 0) fail_msg("referee: status %d:\n%s", rc, out);
    /* game 0: A black, B (white) silent at its first genmove; game 1: B black */
    assert_non_null(strstr(out, "game 0: A=black B+forfeit"));
    assert_non_null(strstr(out, "game 1: A=white W+forfeit"));
    assert_non_null(strstr(out, "no answer in 1 s"));
    assert_non_null(strstr(out, "result A="));
    assert_non_null(strstr(out, "A_score=2.0"));
    free(out);
}

static void test_bad_options(void **state)
{
    (void)state;
    char err[256];
    const char *games[] = {"hex7", "go4", "go20", "go9x", "go9:komi=0.3", "go9:fly=1", "go"};
    for (size_t i = 0; i < sizeof games / sizeof *games; i++) {
        gtp_options_t o = {.spec = "grave", .game = games[i]};
        assert_null(gtp_new(&o, err, sizeof err));
        assert_true(err[0] != '\0');
    }
    gtp_options_t o = {.spec = "grave:fly=1"};
    assert_null(gtp_new(&o, err, sizeof err));
    const char *tr = "final_score\n";
    char *t = session("uct:playouts=10", "go13:komi=6.5", tr, strlen(tr));
    EXPECT(t, 0, "= W+6.5");
    free(t);
}

static void test_command_line(void **state)
{
    (void)state;
    tu_ggp_expect(NULL, 0, "Go Text Protocol", "gtp --help");
    tu_ggp_expect(NULL, 2, "no --player", "gtp");
    tu_ggp_expect(NULL, 2, "not a Go game", "gtp --player grave --game tictactoe");
    tu_ggp_expect(NULL, 0, NULL, "gtp --player random < /dev/null");
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd, "printf '3 protocol_version\\nquit\\n' | '%s' gtp --player random", GGP_BIN);
    assert_int_equal(tu_run(cmd, &out), 0);
    assert_string_equal(out, "=3 2\n\n= \n\n");
    free(out);
    tu_ggp_expect(NULL, 0, "gtp", "--help");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_protocol_commands_and_ids),
        cmocka_unit_test(test_play_and_illegal_moves),
        cmocka_unit_test(test_suicide_is_illegal),
        cmocka_unit_test(test_same_colour_in_succession),
        cmocka_unit_test(test_genmove_plays_a_legal_vertex),
        cmocka_unit_test(test_genmove_does_not_fill_own_eye),
        cmocka_unit_test(test_boardsizes),
        cmocka_unit_test(test_undo),
        cmocka_unit_test(test_showboard),
        cmocka_unit_test(test_final_score),
        cmocka_unit_test(test_two_passes_end_the_game),
        cmocka_unit_test(test_clock),
        cmocka_unit_test(test_hostile_input),
        cmocka_unit_test(test_long_blank_prefix),
        cmocka_unit_test(test_passes_after_the_end),
        cmocka_unit_test(test_referee_silent_engine),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_command_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
