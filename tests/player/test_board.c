/* test_board.c - the board `ggp play` draws under the final state: every
 * column and row of a (cell X Y C...) board, empty ones too, with column
 * labels on top and row labels on the left, and cells with several content
 * arguments (chess's (cell FILE RANK COLOR PIECE)) as a grid too. With
 * tests/player/board_*.kif on both engines, and with ticTacToe, connectFour
 * and speedChess from the shared corpus when it is there. */
#include "testutil.h"

#include <unistd.h>

/* stdout of `ggp play FILE --player random ...` (n players, engine E), the
 * lines after "state: " up to "goals"; fails if the game does not end. */
static char *board_of(const char *file, int n_players, const char *engine)
{
    char cmd[2048], *out;
    int len = snprintf(cmd, sizeof cmd, "'%s' play '%s' --engine %s", GGP_BIN, file, engine);
    for (int i = 0; i < n_players; i++) len += snprintf(cmd + len, sizeof cmd - (size_t)len, " --player random");
    snprintf(cmd + len, sizeof cmd - (size_t)len, " 2>/dev/null");
    int rc = tu_run(cmd, &out);
    if (rc != 0) fail_msg("%s: exit %d\n%s", cmd, rc, out);
    char *s = strstr(out, "\nstate: "), *g = strstr(out, "\ngoals ");
    assert_non_null(s);
    assert_non_null(g);
    s = strchr(s + 1, '\n') + 1;
    char *board = strndup(s, (size_t)(g + 1 - s));
    free(out);
    printf("%s:\n%s", file, board);
    return board;
}

/* The first line's labels, space-separated, must be want. */
static void expect_header(const char *board, const char *want)
{
    char got[512] = "";
    size_t used = 0;
    const char *end = strchr(board, '\n');
    for (const char *p = board; p < end;) {
        while (p < end && *p == ' ') p++;
        size_t l = strcspn(p, " \n");
        if (!l) break;
        used += (size_t)snprintf(got + used, sizeof got - used, "%s%.*s", used ? " " : "", (int)l, p);
        p += l;
    }
    assert_string_equal(got, want);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static void test_empty_columns_are_drawn(void **state)
{
    (void)state;
    const char *engines[] = {"rules", "propnet"};
    for (int e = 0; e < 2; e++) {
        char *b = board_of(GGP_SOURCE_DIR "/tests/player/board_drop.kif", 1, engines[e]);
        /* one piece in one of four columns: the other three are drawn empty */
        expect_header(b, "1 2 3 4");
        assert_int_equal(count_lines(b), 2);
        const char *row = strchr(b, '\n') + 1;
        assert_true(!strncmp(row, "  1 ", 4));
        size_t dots = 0, pieces = 0;
        for (const char *p = row + 4; *p != '\n'; p++) dots += *p == '.', pieces += *p == 'p';
        assert_int_equal(dots, 3);
        assert_int_equal(pieces, 1);
        free(b);
    }
}

static void test_cells_with_several_arguments(void **state)
{
    (void)state;
    const char *engines[] = {"rules", "propnet"};
    for (int e = 0; e < 2; e++) {
        char *b = board_of(GGP_SOURCE_DIR "/tests/player/board_pieces.kif", 1, engines[e]);
        assert_string_equal(b, "    a          b          c\n"
                               "  3 .          .          black king\n"
                               "  2 .          white rook .\n"
                               "  1 white king .          .\n");
        free(b);
    }
}

static void test_corpus_boards(void **state)
{
    (void)state;
    const char *dir = tu_shared_or_skip("games");
    /* every column of connectFour's board, however few pieces were dropped;
     * speedChess's (cell FILE RANK COLOR PIECE) */
    const struct {
        const char *game, *engine, *header;
        size_t lines;
    } cases[] = {
        {"ticTacToe", "auto", "1 2 3", 4},
        {"connectFour", "auto", "1 2 3 4 5 6 7 8", 7},
        {"speedChess", "rules", "a b c d e f g h", 9},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.kif", dir, cases[i].game);
        if (access(path, R_OK) != 0) {
            printf("note: %s is absent\n", path);
            continue;
        }
        char *b = board_of(path, 2, cases[i].engine);
        expect_header(b, cases[i].header);
        assert_int_equal(count_lines(b), cases[i].lines);
        char last_row[16];
        snprintf(last_row, sizeof last_row, "\n  %zu ", cases[i].lines - 1);
        assert_non_null(strstr(b, last_row)); /* the top row: the highest rank */
        assert_non_null(strstr(b, "\n  1 "));
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_columns_are_drawn),
        cmocka_unit_test(test_cells_with_several_arguments),
        cmocka_unit_test(test_corpus_boards),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
