/* test_go.c - the native Go (games/go/go.h) on hand-made positions:
 * captures, suicide, positional superko against the simple ko rule, eyes
 * in playouts, area scoring with komi, two passes and the move cap; and
 * the registry's names and errors. */
#include "testutil.h"

#include "games/go/go.h"
#include "games/registry.h"

typedef struct go_t {
    game_t *g;
    game_ctx_t *c;
    game_state_t *s;
} go_t;

static void go_open(go_t *t, const char *spec)
{
    char err[256];
    t->g = native_game_open(spec, err, sizeof err);
    if (!t->g) fail_msg("%s: %s", spec, err);
    t->c = game_ctx_new(t->g);
    t->s = game_state_new(t->g);
}

/* rows[0] is y = 1 */
static void go_setup(go_t *t, const char *const *rows, bool white)
{
    assert_true(go_state_from_rows(t->g, rows, white, t->s));
    game_ctx_set_state(t->c, t->s);
}

static void go_close(go_t *t)
{
    game_state_free(t->s);
    game_ctx_free(t->c);
    game_free(t->g);
}

static bool is_legal(go_t *t, uint32_t role, const char *text)
{
    move_id_t m;
    return game_move_from_text(t->c, role, text, strlen(text), &m);
}

/* Play text for the mover (the other plays noop). */
static void play(go_t *t, const char *text)
{
    move_id_t joint[2];
    uint32_t mover = 0;
    const move_id_t *ms;
    if (game_legal(t->c, 0, &ms) == 1 && !strcmp(game_move_name(t->g, 0, ms[0], true), "noop")) mover = 1;
    if (!game_move_from_text(t->c, mover, text, strlen(text), &joint[mover])) fail_msg("%s is not legal", text);
    assert_true(game_move_from_text(t->c, 1 - mover, "noop", 4, &joint[1 - mover]));
    game_ctx_play(t->c, joint);
}

static char *state_text(go_t *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    game_state_print(t->g, game_ctx_state(t->c), f, true);
    fclose(f);
    return buf;
}

static bool has_fluent(go_t *t, const char *fluent)
{
    char *s = state_text(t);
    bool yes = strstr(s, fluent) != NULL;
    free(s);
    return yes;
}

static void test_roles_moves_and_names(void **state)
{
    (void)state;
    go_t t;
    go_open(&t, "go9");
    assert_int_equal(game_num_roles(t.g), 2);
    assert_string_equal(game_role_name(t.g, 0), "black");
    assert_int_equal(game_num_moves(t.g, 0), 83); /* 81 points, pass (82 AMAF keys), noop */
    assert_true(game_moves_enumerable(t.g));
    assert_int_equal(game_engine(t.g), ENGINE_NATIVE);
    assert_true(game_history_ordered(t.g)); /* its playout candidates: the search replays moves */
    assert_string_equal(game_move_name(t.g, 0, 81, true), "pass");
    game_state_t *all = game_state_new(t.g);
    uint32_t f[256];
    assert_true(game_all_fluents(t.g, all));
    assert_int_equal(game_state_fluents(t.g, all, f, 256), 2 * 81 + 2); /* every cell twice, control, step */
    char text[64];
    game_fluent_text(t.g, f[2 * 80 + 1], text, sizeof text);
    assert_string_equal(text, "(cell 9 9 white)");
    game_state_free(all);
    assert_string_equal(game_move_name(t.g, 0, 9 + 2, true), "(play 3 2)");
    const move_id_t *ms;
    assert_int_equal(game_legal(t.c, 0, &ms), 82);
    assert_int_equal(game_legal(t.c, 1, &ms), 1);
    assert_true(is_legal(&t, 0, " ( PLAY  9 9 ) "));
    assert_true(is_legal(&t, 0, "(pass)"));
    assert_false(is_legal(&t, 0, "(play 10 1)"));
    assert_false(is_legal(&t, 0, "(play 0 1)"));
    assert_false(is_legal(&t, 0, "(play 1)"));
    assert_false(is_legal(&t, 0, "noop"));
    assert_false(is_legal(&t, 1, "(play 1 1)"));
    go_close(&t);

    char err[256];
    const char *bad[] = {"go4", "go20", "go9:komi=x", "go9:komi=7.25", "go9:ko=none", "go9:size=3", "go9:cap=0",
                         "go9:komi"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        game_t *g = native_game_open(bad[i], err, sizeof err);
        if (g) fail_msg("%s opened", bad[i]);
        assert_non_null(strstr(err, bad[i]));
    }
    assert_true(native_game_named("go9"));
    assert_false(native_game_named("games/go9"));
    assert_false(native_game_named("go.kif"));
    assert_false(native_game_named("go5.kif"));
    assert_false(native_game_named("go9x"));
    assert_true(native_game_named("go9:komi=6.5"));
    assert_false(native_game_named("tictactoe"));
    for (unsigned n = GO_MIN_SIZE; n <= GO_MAX_SIZE; n++) {
        char name[16];
        snprintf(name, sizeof name, "go%u", n);
        game_t *g = native_game_open(name, err, sizeof err);
        assert_non_null(g);
        assert_int_equal(game_num_moves(g, 1), n * n + 2);
        game_free(g);
    }
}

static void test_captures(void **state)
{
    (void)state;
    go_t t;
    go_open(&t, "go5");
    /* a group of two in atari, and a white stone beside with two liberties */
    const char *rows[] = {
        ".X...",
        "XOX..",
        "XOXXO",
        "X.XO.",
        ".....",
    };
    go_setup(&t, rows, false);
    play(&t, "(play 2 4)"); /* (2,2)-(2,3) has its last liberty at (2,4) */
    assert_false(has_fluent(&t, "(cell 2 2 white)"));
    assert_false(has_fluent(&t, "(cell 2 3 white)"));
    assert_true(has_fluent(&t, "(cell 2 4 black)"));
    assert_true(has_fluent(&t, "(cell 4 4 white)")); /* two liberties: stays */
    assert_true(has_fluent(&t, "(control white)"));
    /* the captured points are empty and legal again, for both */
    play(&t, "(play 2 2)");
    assert_true(has_fluent(&t, "(cell 2 2 white)"));
    go_close(&t);

    /* a capture that is the only way out for the capturer: the stone
     * would have no liberty but takes the last one of a neighbour */
    go_open(&t, "go5");
    const char *rows2[] = {
        ".OX..",
        "OX...",
        "X....",
        ".....",
        ".....",
    };
    go_setup(&t, rows2, false);
    assert_true(is_legal(&t, 0, "(play 1 1)")); /* captures (2,1) and (1,2) */
    play(&t, "(play 1 1)");
    assert_false(has_fluent(&t, "(cell 2 1 white)"));
    assert_false(has_fluent(&t, "(cell 1 2 white)"));
    assert_int_equal(go_area_diff(t.c), 25); /* all black's now */
    go_close(&t);
}

static void test_suicide_illegal(void **state)
{
    (void)state;
    go_t t;
    go_open(&t, "go5");
    const char *rows[] = {
        ".X...",
        "X.X..",
        ".X...",
        ".....",
        "....O",
    };
    go_setup(&t, rows, true);
    assert_false(is_legal(&t, 1, "(play 1 1)")); /* no liberty, captures nothing */
    assert_false(is_legal(&t, 1, "(play 2 2)"));
    assert_true(is_legal(&t, 1, "(play 3 3)"));
    const move_id_t *ms;
    uint32_t n = game_legal(t.c, 1, &ms);
    assert_int_equal(n, 25 - 5 - 2 + 1); /* empties minus the two suicides, and pass */
    for (uint32_t i = 0; i < n; i++) assert_true(strcmp(game_move_name(t.g, 1, ms[i], true), "(play 1 1)"));
    assert_true(is_legal(&t, 0, "noop")); /* black waits */
    go_close(&t);

    /* a group suicide: white's two stones' last liberty */
    go_open(&t, "go5");
    const char *rows2[] = {
        "O.X..",
        "XX...",
        ".....",
        ".....",
        ".....",
    };
    go_setup(&t, rows2, true);
    assert_false(is_legal(&t, 1, "(play 2 1)")); /* the two stones would have no liberty */
    assert_true(is_legal(&t, 0, "noop"));
    go_close(&t);
}

/* Send two, return one: black captures two stones; white plays back into
 * one of the points; black passes; white's recapture of the one stone
 * would make the first board again. Positional superko forbids it, the
 * simple ko rule (no ko after a two-stone capture) allows it. */
static void superko_case(const char *spec, bool forbidden)
{
    go_t t;
    go_open(&t, spec);
    const char *rows[] = {
        "OO.O.",
        "XXO..",
        ".....",
        ".....",
        ".....",
    };
    go_setup(&t, rows, false);
    play(&t, "(play 3 1)");
    assert_false(has_fluent(&t, "(cell 1 1 white)"));
    assert_false(has_fluent(&t, "(cell 2 1 white)"));
    play(&t, "(play 1 1)");
    play(&t, "pass");
    if (is_legal(&t, 1, "(play 2 1)") == forbidden) fail_msg("%s: the repetition is %s", spec, forbidden ? "legal" : "illegal");
    if (!forbidden) {
        play(&t, "(play 2 1)");
        assert_false(has_fluent(&t, "(cell 3 1 black)"));
    }
    go_close(&t);
}

static void test_superko(void **state)
{
    (void)state;
    superko_case("go5", true);
    superko_case("go5:ko=simple", false);

    /* a plain ko: both rules forbid the immediate retake, both allow it
     * after a move elsewhere by each */
    const char *specs[] = {"go5", "go5:ko=simple"};
    for (int i = 0; i < 2; i++) {
        go_t t;
        go_open(&t, specs[i]);
        const char *rows[] = {
            ".XO..",
            "XO.O.",
            ".XO..",
            ".....",
            ".....",
        };
        go_setup(&t, rows, false);
        play(&t, "(play 3 2)"); /* takes (2,2) */
        assert_false(has_fluent(&t, "(cell 2 2 white)"));
        assert_int_equal(has_fluent(&t, "(ko 2 2)"), i == 1);
        assert_false(is_legal(&t, 1, "(play 2 2)"));
        play(&t, "(play 5 5)");
        play(&t, "(play 5 4)");
        assert_true(is_legal(&t, 1, "(play 2 2)"));
        play(&t, "(play 2 2)"); /* retakes (3,2) */
        assert_false(has_fluent(&t, "(cell 3 2 black)"));
        go_close(&t);
    }
}

static void test_eyes_not_filled_in_playouts(void **state)
{
    (void)state;
    go_t t;
    go_open(&t, "go5");
    const char *rows[] = {
        ".XXXX",
        "XXXXX",
        "XX.XX",
        "XXXXX",
        ".....",
    };
    go_setup(&t, rows, false);
    rng_t rng;
    rng_seed(&rng, 42);
    unsigned seen[5] = {0};
    for (int i = 0; i < 500; i++) {
        move_id_t m;
        bool decides;
        assert_true(game_playout_move(t.c, 0, &rng, &m, &decides));
        assert_true(decides);
        const char *name = game_move_name(t.g, 0, m, true);
        unsigned x, y;
        if (sscanf(name, "(play %u %u)", &x, &y) != 2 || y != 5) fail_msg("the playout played %s", name);
        seen[x - 1]++;
    }
    for (int x = 0; x < 5; x++) assert_true(seen[x] > 0);
    /* the list form (MAST's playouts): row 5, not the eyes; the tree's
     * list keeps them */
    const move_id_t *pl;
    assert_int_equal(game_playout_legal(t.c, 0, &pl), 5);
    for (int i = 0; i < 5; i++) assert_int_equal(pl[i], 20 + i);
    assert_int_equal(game_legal(t.c, 0, &pl), 5 + 2 + 1);
    /* white's turn: the noop, no choice */
    move_id_t m;
    bool decides;
    assert_true(game_playout_move(t.c, 1, &rng, &m, &decides));
    assert_string_equal(game_move_name(t.g, 1, m, true), "noop");
    assert_false(decides);
    go_close(&t);

    /* only eyes left: black passes (a choice: filling one is legal); white
     * has no legal point (suicide everywhere): pass, no choice */
    go_open(&t, "go5");
    const char *rows2[] = {
        ".XXXX",
        "XXXXX",
        "XX.XX",
        "XXXXX",
        "XXXX.",
    };
    go_setup(&t, rows2, false);
    for (int i = 0; i < 50; i++) {
        assert_true(game_playout_move(t.c, 0, &rng, &m, &decides));
        assert_string_equal(game_move_name(t.g, 0, m, true), "pass");
        assert_true(decides);
    }
    const move_id_t *ms;
    assert_int_equal(game_legal(t.c, 0, &ms), 4); /* the three eyes and pass: the tree keeps them */
    assert_int_equal(game_playout_legal(t.c, 0, &ms), 1);
    assert_string_equal(game_move_name(t.g, 0, ms[0], true), "pass");
    go_setup(&t, rows2, true);
    assert_true(game_playout_move(t.c, 1, &rng, &m, &decides));
    assert_string_equal(game_move_name(t.g, 1, m, true), "pass");
    assert_false(decides);
    assert_int_equal(game_legal(t.c, 1, &ms), 1);
    go_close(&t);

    /* a false eye (two opponent diagonals) is a point like any other */
    go_open(&t, "go5");
    const char *rows4[] = {
        ".....",
        ".OXO.",
        ".X.X.",
        ".OXO.",
        ".....",
    };
    go_setup(&t, rows4, false);
    unsigned centre = 0;
    for (int i = 0; i < 400; i++) {
        assert_true(game_playout_move(t.c, 0, &rng, &m, &decides));
        centre += !strcmp(game_move_name(t.g, 0, m, true), "(play 3 3)");
    }
    assert_true(centre > 0);
    go_close(&t);
}

/* go_fills_own_eye, the rule ggp gtp's genmove keeps to: a legal move on
 * an own eye by the playout's rule (centre: at most one opposing diagonal;
 * edge and corner: none); not a false eye, not the opponent's point, not
 * pass, not for the role that is not to move. */
static void test_fills_own_eye(void **state)
{
    (void)state;
    go_t t;
    go_open(&t, "go5");
    const char *rows[] = {
        /* y = 1 */ ".X.XO",
        /* y = 2 */ "XXXOO",
        /* y = 3 */ "X.XO.",
        /* y = 4 */ "XXOO.",
        /* y = 5 */ ".XO..",
    };
    go_setup(&t, rows, false);
    static const struct {
        const char *move;
        bool fills;
    } cases[] = {
        {"(play 1 1)", true},  /* a corner eye, no opposing diagonal */
        {"(play 2 3)", true},  /* a centre eye, one opposing diagonal (3,4) */
        {"(play 3 1)", false}, /* an edge point with an opposing diagonal (4,2): a false eye */
        {"(play 1 5)", true},  /* a corner eye, its diagonal (2,4) black */
        {"(play 5 3)", false}, /* white's point */
        {"pass", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        move_id_t m;
        if (!game_move_from_text(t.c, 0, cases[i].move, strlen(cases[i].move), &m)) fail_msg("%s", cases[i].move);
        if (go_fills_own_eye(t.c, 0, m) != cases[i].fills) fail_msg("%s: expected %d", cases[i].move, cases[i].fills);
    }
    assert_false(go_fills_own_eye(t.c, 1, 0)); /* white is not to move */
    go_close(&t);
}

static void test_scoring_with_komi(void **state)
{
    (void)state;
    const char *rows[] = {
        "X.XO.",
        "XXXOO",
        "XXXO.",
        "..XOO",
        "XXXOO",
    };
    /* black 12 stones + 3 points, white 8 + 2: 15 - 10 = 5 */
    static const struct { const char *spec; int black; } cases[] = {
        {"go5", 0}, {"go5:komi=4.5", 100}, {"go5:komi=5", 50}, {"go5:komi=5.5", 0}, {"go5:komi=-3", 100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        go_t t;
        go_open(&t, cases[i].spec);
        go_setup(&t, rows, false);
        assert_int_equal(go_area_diff(t.c), 5);
        assert_int_equal(game_goal(t.c, 0), cases[i].black);
        assert_int_equal(game_goal(t.c, 1), 100 - cases[i].black);
        go_close(&t);
    }
    /* dame: a region touching both colours is nobody's */
    go_t t;
    go_open(&t, "go5:komi=0");
    const char *dame[] = {"X...O", "X...O", "X...O", "X...O", "XX.OO"};
    go_setup(&t, dame, false);
    assert_int_equal(go_area_diff(t.c), 0);
    assert_int_equal(game_goal(t.c, 0), 50);
    assert_int_equal(game_goal(t.c, 1), 50);
    go_close(&t);
}

static void test_two_passes_and_cap(void **state)
{
    (void)state;
    go_t t;
    go_open(&t, "go9");
    play(&t, "pass");
    assert_false(game_is_terminal(t.c));
    assert_true(has_fluent(&t, "(passes 1)"));
    play(&t, "(play 5 5)"); /* a move between: the count starts again */
    assert_false(has_fluent(&t, "(passes"));
    play(&t, "pass");
    play(&t, "pass");
    assert_true(game_is_terminal(t.c));
    assert_true(has_fluent(&t, "(passes 2)"));
    assert_int_equal(go_area_diff(t.c), -81); /* white's one stone has it all */
    assert_int_equal(game_goal(t.c, 0), 0);
    assert_int_equal(game_goal(t.c, 1), 100);
    go_close(&t);

    go_open(&t, "go5");
    play(&t, "pass");
    play(&t, "pass");
    assert_true(game_is_terminal(t.c));
    assert_int_equal(game_goal(t.c, 0), 0); /* komi 7.5 on an empty board */
    assert_int_equal(game_goal(t.c, 1), 100);
    go_close(&t);

    /* the cap: 3 x 25 plies by default, cap=N otherwise */
    go_open(&t, "go5:cap=3");
    play(&t, "(play 1 1)");
    play(&t, "(play 2 2)");
    assert_false(game_is_terminal(t.c));
    play(&t, "(play 3 3)");
    assert_true(game_is_terminal(t.c));
    assert_true(has_fluent(&t, "(step 3)"));
    go_close(&t);
    go_open(&t, "go5");
    rng_t rng;
    rng_seed(&rng, 7);
    move_id_t joint[2];
    uint32_t plies = 0;
    while (!game_is_terminal(t.c)) { /* uniform over every legal move: no eye rule, long games */
        for (uint32_t r = 0; r < 2; r++) {
            const move_id_t *ms;
            uint32_t n = game_legal(t.c, r, &ms);
            joint[r] = ms[rng_below(&rng, n)];
        }
        game_ctx_play(t.c, joint);
        plies++;
    }
    assert_true(plies <= 75);
    go_close(&t);
}

/* go_state_give_turn (GTP's moves of one colour in succession): the other
 * colour moves, the board and plies stay, the passes in a row start again
 * and a simple-ko point lapses. */
static void test_give_turn(void **state)
{
    (void)state;
    go_t t;
    go_open(&t, "go9");
    play(&t, "(play 3 3)");
    play(&t, "pass");                                  /* white passes: (passes 1) */
    game_state_copy(t.g, t.s, game_ctx_state(t.c));
    assert_true(go_state_give_turn(t.g, t.s));         /* white again */
    game_ctx_set_state(t.c, t.s);
    assert_true(has_fluent(&t, "(control white)"));
    assert_false(has_fluent(&t, "(passes"));
    assert_true(has_fluent(&t, "(cell 3 3 black)") && has_fluent(&t, "(step 2)"));
    assert_false(is_legal(&t, 1, "(play 3 3)"));
    play(&t, "pass"); /* white's second pass alone: not the end */
    assert_false(game_is_terminal(t.c));
    play(&t, "pass"); /* black's after it: the end */
    assert_true(game_is_terminal(t.c));
    go_close(&t);

    /* simple ko: after white's capture black may not retake at once;
     * handing the turn over (twice: black to move again) lapses the point */
    go_open(&t, "go5:ko=simple");
    const char *rows[] = {
        ".XO..",
        "XO...",
        ".....",
        ".....",
        ".....",
    };
    go_setup(&t, rows, true);
    play(&t, "(play 1 1)"); /* white captures the black stone at (2, 1) */
    assert_true(has_fluent(&t, "(ko 2 1)"));
    assert_false(is_legal(&t, 0, "(play 2 1)"));
    game_state_copy(t.g, t.s, game_ctx_state(t.c));
    assert_true(go_state_give_turn(t.g, t.s)); /* white to move */
    assert_true(go_state_give_turn(t.g, t.s)); /* black again */
    game_ctx_set_state(t.c, t.s);
    assert_false(has_fluent(&t, "(ko "));
    assert_true(is_legal(&t, 0, "(play 2 1)"));
    go_close(&t);
}

/* next into another state and play in place give the same states, and a
 * context set to a state reads it back to the same legal moves. */
static void test_next_and_play_agree(void **state)
{
    (void)state;
    go_t t;
    go_open(&t, "go7");
    game_ctx_t *c2 = game_ctx_new(t.g);
    game_state_t *a = game_state_new(t.g), *s0 = game_state_new(t.g);
    game_initial(t.c, s0);
    rng_t rng;
    rng_seed(&rng, 11);
    for (int game = 0; game < 20; game++) {
        game_ctx_set_state(t.c, s0);
        while (!game_is_terminal(t.c)) {
            move_id_t joint[2];
            bool d;
            for (uint32_t r = 0; r < 2; r++) assert_true(game_playout_move(t.c, r, &rng, &joint[r], &d));
            game_next(t.c, joint, a);
            game_ctx_play(t.c, joint);
            assert_true(game_state_equal(t.g, a, game_ctx_state(t.c)));
            game_ctx_set_state(c2, a);
            const move_id_t *m1, *m2;
            for (uint32_t r = 0; r < 2; r++) {
                uint32_t n1 = game_legal(t.c, r, &m1), n2 = game_legal(c2, r, &m2);
                assert_int_equal(n1, n2);
                assert_memory_equal(m1, m2, n1 * sizeof *m1);
            }
            assert_int_equal(go_area_diff(t.c), go_area_diff(c2));
        }
    }
    game_state_free(a);
    game_state_free(s0);
    game_ctx_free(c2);
    go_close(&t);
}

/* The board of a state as one character a point, from its fluents. */
static void board_of(const game_t *g, const game_state_t *s, char *out, uint32_t points)
{
    uint32_t f[512];
    uint32_t n = game_state_fluents(g, s, f, 512);
    memset(out, '.', points);
    out[points] = '\0';
    for (uint32_t i = 0; i < n && i < 512; i++)
        if (f[i] < 2 * points) out[f[i] / 2] = f[i] % 2 ? 'O' : 'X';
}

/* Positional superko over uniform random games (captures are frequent on
 * 5x5): no legal move ever makes a board the game has had, checked
 * against the list of boards kept here as text; every move it allows the
 * simple ko rule allows too, and every ko that rule marks is kept out by
 * the history's hashes alone (the positional game has no ko point). */
static void test_superko_random_games(void **state)
{
    (void)state;
    go_t t, k; /* the same games under the simple ko rule, for comparison */
    go_open(&t, "go5");
    go_open(&k, "go5:ko=simple");
    game_state_t *next = game_state_new(t.g), *s0 = game_state_new(t.g), *k0 = game_state_new(k.g);
    game_initial(t.c, s0);
    game_initial(k.c, k0);
    rng_t rng;
    rng_seed(&rng, 2024);
    static char hist[80][26];
    unsigned kept_out = 0, checked = 0, ko_by_hash = 0;
    for (int game = 0; game < 60; game++) {
        game_ctx_set_state(t.c, s0);
        game_ctx_set_state(k.c, k0);
        uint32_t nh = 0;
        board_of(t.g, s0, hist[nh++], 25);
        while (!game_is_terminal(t.c)) {
            uint32_t mover = 0;
            const move_id_t *ms, *ks;
            if (game_legal(t.c, 0, &ms) == 1 && ms[0] == 26) mover = 1;
            uint32_t n = game_legal(t.c, mover, &ms), kn = game_legal(k.c, mover, &ks);
            move_id_t joint[2];
            joint[1 - mover] = 26;
            for (uint32_t i = 0; i < n; i++) {
                joint[mover] = ms[i];
                if (ms[i] == 25) continue; /* pass: the same board, allowed */
                game_next(t.c, joint, next);
                char b[26];
                board_of(t.g, next, b, 25);
                for (uint32_t h = 0; h < nh; h++)
                    if (!strcmp(b, hist[h])) fail_msg("game %d: a legal move repeats board %s", game, b);
                checked++;
            }
            /* superko forbids a superset of what simple ko does here:
             * every move it allows, the simple rule allows too */
            uint32_t j = 0;
            for (uint32_t i = 0; i < n; i++) {
                while (j < kn && ks[j] < ms[i]) j++;
                assert_true(j < kn && ks[j] == ms[i]);
            }
            kept_out += kn - n;
            /* a ko: the simple rule names the point; superko's hash set
             * must keep the retake out by itself */
            uint32_t f[64], nf = game_state_fluents(k.g, game_ctx_state(k.c), f, 64);
            for (uint32_t i = 0; i < nf && i < 64; i++)
                if (f[i] >= 2 * 25 + 4 && f[i] < 3 * 25 + 4) {
                    for (uint32_t m = 0; m < n; m++) assert_int_not_equal(ms[m], f[i] - 54);
                    ko_by_hash++;
                }
            joint[mover] = ms[rng_below(&rng, n)];
            game_ctx_play(t.c, joint);
            game_ctx_play(k.c, joint);
            char b[26];
            board_of(t.g, game_ctx_state(t.c), b, 25);
            if (joint[mover] != 25) memcpy(hist[nh++], b, 26);
        }
    }
    printf("superko: %u moves checked, %u kos kept out by the hashes, %u moves beyond the simple rule\n", checked,
           ko_by_hash, kept_out);
    assert_true(ko_by_hash > 0);
    game_state_free(next);
    game_state_free(s0);
    game_state_free(k0);
    go_close(&t);
    go_close(&k);
}

/* The playout list in two parts (game_playout_cands, game_playout_accepts):
 * over random games on 5x5 (captures, superko) and 9x9, at every state and
 * for both roles, the candidates the test accepts are the playout list,
 * or the list is pass alone when it accepts none; the role not to move has
 * no candidates. */
static void cands_agree(const char *spec, int games, uint64_t seed)
{
    go_t t;
    go_open(&t, spec);
    game_state_t *s0 = game_state_new(t.g);
    game_initial(t.c, s0);
    rng_t rng;
    rng_seed(&rng, seed);
    unsigned refused = 0, states = 0;
    for (int game = 0; game < games; game++) {
        game_ctx_set_state(t.c, s0);
        while (!game_is_terminal(t.c)) {
            move_id_t joint[2];
            for (uint32_t r = 0; r < 2; r++) {
                const move_id_t *pl, *cs;
                uint32_t npl = game_playout_legal(t.c, r, &pl);
                move_id_t want[512];
                assert_true(npl <= 512);
                memcpy(want, pl, npl * sizeof *pl);
                uint32_t nc = game_playout_cands(t.c, r, &cs), na = 0;
                move_id_t acc[512];
                for (uint32_t i = 0; i < nc; i++) {
                    if (game_playout_accepts(t.c, r, cs[i])) acc[na++] = cs[i];
                    else refused++;
                }
                for (uint32_t i = 1; i < na; i++) /* the list is sorted by id: so the accepted */
                    for (uint32_t j = i; j > 0 && acc[j - 1] > acc[j]; j--) {
                        move_id_t x = acc[j];
                        acc[j] = acc[j - 1];
                        acc[j - 1] = x;
                    }
                if (na) {
                    assert_int_equal(na, npl);
                    assert_memory_equal(acc, want, na * sizeof *acc);
                } else {
                    assert_int_equal(npl, 1);
                    const char *name = game_move_name(t.g, r, want[0], true);
                    if (strcmp(name, "pass") && strcmp(name, "noop")) fail_msg("%s: alone in the list: %s", spec, name);
                }
                bool decides;
                assert_true(game_playout_move(t.c, r, &rng, &joint[r], &decides));
            }
            states++;
            game_ctx_play(t.c, joint);
        }
    }
    printf("%s: %u states, %u candidates refused\n", spec, states, refused);
    assert_true(refused > 0); /* eyes, suicide, ko or superko came up */
    game_state_free(s0);
    go_close(&t);
}

static void test_playout_cands(void **state)
{
    (void)state;
    cands_agree("go5", 40, 7);
    cands_agree("go9", 4, 8);
}

/* The commands take native names where they take rule files. */
static void test_commands(void **state)
{
    (void)state;
    tu_ggp_expect(NULL, 0, "go5..go19", "games");
    tu_ggp_expect(NULL, 0, "goals black=", "play go5 --quiet --seed 3 --player random --player mc:playouts=20,mast=off");
    tu_ggp_expect(NULL, 0, "engine=native", "bench go9:komi=6.5 --seconds 0.3");
    /* 81 x (80 + pass) after a stone, 82 after a pass; pass, pass ends */
    tu_ggp_expect(NULL, 0, "depth 2: paths=6643 states=6643 terminals=1", "perft go9 --depth 2");
    tu_ggp_expect(NULL, 0, "roles: black white", "check go13");
    tu_ggp_expect(NULL, 0, "result games=2", "tournament go5 --games 2 --a random --b mc:playouts=10 --quiet");
    /* bad names and options: a usage error that says what is wrong */
    tu_ggp_expect(NULL, 2, "expected go5 to go19", "play go4 --player random --player random");
    tu_ggp_expect(NULL, 2, "bad komi 'abc'", "bench go9:komi=abc");
    tu_ggp_expect(NULL, 2, "unknown option 'superko=1'", "trace go9:superko=1");
    tu_ggp_expect(NULL, 2, "bad ko rule", "perft go9:ko=situational --depth 1");
    tu_ggp_expect(NULL, 2, "cannot read go9x", "perft go9x --depth 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roles_moves_and_names),
        cmocka_unit_test(test_captures),
        cmocka_unit_test(test_suicide_illegal),
        cmocka_unit_test(test_superko),
        cmocka_unit_test(test_eyes_not_filled_in_playouts),
        cmocka_unit_test(test_fills_own_eye),
        cmocka_unit_test(test_scoring_with_komi),
        cmocka_unit_test(test_two_passes_and_cap),
        cmocka_unit_test(test_give_turn),
        cmocka_unit_test(test_next_and_play_agree),
        cmocka_unit_test(test_superko_random_games),
        cmocka_unit_test(test_playout_cands),
        cmocka_unit_test(test_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
