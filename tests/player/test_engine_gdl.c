/* test_engine_gdl.c - the match engine of `ggp serve` (player/proto/
 * engine_gdl.h) with engine auto: when START does not wait for grounding,
 * the match starts on the rules engine and changes to the propositional
 * network at a PLAY once grounding is done, in the same state (the moves so
 * far replayed), and keeps answering with legal moves; what searches report
 * names the engine they ran on. */
#include "testutil.h"


#include "base/clock.h"
#include "base/xalloc.h"
#include "player/proto/engine_gdl.h"
#include "player/proto/message.h"

/* "(start ID ROLE (RULES) 10 1)" for a bundled game, parsed. */
static void start_msg(const char *game, const char *role, ggp_msg_t *msg)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/games/%s.kif", GGP_SOURCE_DIR, game);
    char *rules = tu_read_file(path);
    assert_non_null(rules);
    size_t n = strlen(rules) + 256;
    char *body = xmalloc(n);
    snprintf(body, n, "(start m1 %s (%s) 10 1)", role, rules);
    char err[256];
    if (!ggp_msg_parse(body, strlen(body), msg, err, sizeof err)) fail_msg("START does not parse: %s", err);
    free(body);
    free(rules);
}

/* Search briefly; the move must be legal now, and the info names the engine. */
static const char *search_engine(const match_engine_t *e, engine_match_t *m, char *info, size_t len)
{
    void *snap = e->snapshot(m);
    atomic_bool stop;
    atomic_init(&stop, false);
    const char *mv = e->choose(m, snap, deadline_in_ms(50), &stop, info, len);
    e->snapshot_free(m, snap);
    assert_non_null(mv);
    return strstr(info, "propnet") ? "propnet" : strstr(info, "rules") ? "rules" : "?";
}

/* A match of tic-tac-toe as ROLE, engine auto, START not waiting. */
typedef struct fixture {
    search_spec_t *spec;
    gdl_engine_config_t cfg;
    match_engine_t e;
    engine_match_t *m;
} fixture_t;

static void fixture_open(fixture_t *f, const char *role)
{
    char err[256];
    f->spec = search_spec_parse("uct:seconds=0.05", err, sizeof err);
    assert_non_null(f->spec);
    f->cfg = (gdl_engine_config_t){.spec = f->spec, .game_options = {.engine = ENGINE_AUTO}, .start_wait_ms = GDL_NO_WAIT};
    engine_gdl_init(&f->e, &f->cfg);
    ggp_msg_t start;
    start_msg("tictactoe", role, &start);
    f->m = f->e.load(&f->cfg, &start, NULL, err, sizeof err);
    ggp_msg_free(&start);
    if (!f->m) fail_msg("START fails: %s", err);
}

static void fixture_close(fixture_t *f)
{
    f->e.free(f->m);
    search_spec_free(f->spec);
}

static void test_auto_changes_to_the_propnet_at_a_play(void **state)
{
    (void)state;
    char err[256];
    fixture_t f;
    fixture_open(&f, "xplayer");
    const match_engine_t *ep = &f.e;
    engine_match_t *m = f.m;

    char info[256];
    /* START did not wait: the rules engine answers first. */
    assert_string_equal(search_engine(ep, m, info, sizeof info), "rules");
    /* Wait for the background grounding of tic-tac-toe (milliseconds),
     * then play: x takes 1 1 and 2 2, o takes 1 2 and 2 1. */
    assert_true(engine_gdl_grounding_wait(m, 30000));
    /* A search's snapshot of the rules engine outlives the change: its
     * searcher stays while the snapshot does, and goes at the next PLAY
     * after (its tree could take the whole memory bound: two were kept) */
    void *held = ep->snapshot(m);
    char *const plays[][2] = {{"(mark 1 1)", "noop"}, {"noop", "(mark 1 2)"}, {"(mark 2 2)", "noop"}, {"noop", "(mark 2 1)"}};
    for (size_t k = 0; k < 4; k++) {
        if (!ep->apply(m, plays[k], 2, err, sizeof err)) fail_msg("PLAY %zu refused: %s", k, err);
        assert_string_equal(search_engine(ep, m, info, sizeof info), "propnet");
        assert_int_equal(engine_gdl_old_searchers(m), k == 0 ? 1 : 0);
        if (k == 0) ep->snapshot_free(m, held);
    }
    /* The propnet is in the same state: x is to move (o's move is
     * refused), and (mark 3 3) wins for x. */
    assert_false(ep->is_terminal(m));
    char *const o_move[2] = {"noop", "(mark 3 1)"};
    assert_false(ep->apply(m, o_move, 2, err, sizeof err));
    char *const win[2] = {"(mark 3 3)", "noop"};
    if (!ep->apply(m, win, 2, err, sizeof err)) fail_msg("winning move refused: %s", err);
    assert_true(ep->is_terminal(m));
    assert_int_equal(ep->goal(m), 100);
    fixture_close(&f);
}

/* A move that is not legal is refused by either engine, and the history
 * that the propnet replays holds only accepted moves. */
static void test_refused_moves_are_not_replayed(void **state)
{
    (void)state;
    char err[256];
    fixture_t f;
    fixture_open(&f, "oplayer");
    const match_engine_t *ep = &f.e;
    engine_match_t *m = f.m;
    char *const bad[2] = {"(mark 9 9)", "noop"};
    assert_false(ep->apply(m, bad, 2, err, sizeof err));
    assert_non_null(strstr(err, "not a legal move"));
    char *const good[2] = {"(mark 2 2)", "noop"};
    assert_true(ep->apply(m, good, 2, err, sizeof err));
    assert_true(engine_gdl_grounding_wait(m, 30000));
    char *const next[2] = {"noop", "(mark 1 1)"};
    assert_true(ep->apply(m, next, 2, err, sizeof err));
    char info[256];
    assert_string_equal(search_engine(ep, m, info, sizeof info), "propnet");
    /* (mark 2 2) and (mark 1 1) are taken on the engine in use now */
    char *const taken[2] = {"(mark 2 2)", "noop"};
    assert_false(ep->apply(m, taken, 2, err, sizeof err));
    fixture_close(&f);
}

/* Rules in a START are untrusted: a function term wider than the reasoner
 * takes is refused with its location, not an abort of the player. */
static void test_start_with_too_wide_a_term_is_refused(void **state)
{
    (void)state;
    char err[512];
    size_t n = GDL_MAX_ARITY + 1, cap = 2 * n + 512, len = 0;
    char *body = xmalloc(cap);
    len += (size_t)snprintf(body, cap, "(start m1 a ((role a) (init (p");
    for (size_t i = 0; i < n; i++) body[len++] = ' ', body[len++] = 'x';
    snprintf(body + len, cap - len, ")) (legal a noop) (<= terminal (true done)) (goal a 100)) 10 1)");
    ggp_msg_t start;
    if (!ggp_msg_parse(body, strlen(body), &start, err, sizeof err)) fail_msg("START does not parse: %s", err);
    free(body);
    search_spec_t *spec = search_spec_parse("uct:seconds=0.05", err, sizeof err);
    gdl_engine_config_t cfg = {.spec = spec, .game_options = {.engine = ENGINE_AUTO}, .start_wait_ms = GDL_NO_WAIT};
    match_engine_t e;
    engine_gdl_init(&e, &cfg);
    char *log_text = NULL;
    size_t log_len = 0;
    FILE *log = open_memstream(&log_text, &log_len);
    assert_null(e.load(&cfg, &start, log, err, sizeof err));
    fclose(log);
    printf("err: %s\nlog: %.300s\n", err, log_text);
    assert_non_null(strstr(log_text, "<message>:1:29: error: function 'p' has 65536 arguments: at most 65535 are supported"));
    ggp_msg_free(&start);
    free(log_text);
    search_spec_free(spec);
}

/* `ggp serve --player nmcs` (one-player games only) gets a START of
 * tic-tac-toe: the searcher would read past its arrays (the server
 * crashed); the match is played by the fallback, compete, with a line in
 * the log, or START fails when there is none. */
static void test_searcher_that_cannot_play_the_game(void **state)
{
    (void)state;
    char err[512];
    search_spec_t *spec = search_spec_parse("nmcs:seconds=0.05", err, sizeof err);
    search_spec_t *fb = search_spec_parse("compete:seconds=0.05,threads=1", err, sizeof err);
    assert_non_null(spec);
    assert_non_null(fb);
    for (int with = 0; with < 2; with++) {
        gdl_engine_config_t cfg = {.spec = spec,
                                   .fallback = with ? fb : NULL,
                                   .game_options = {.engine = ENGINE_AUTO},
                                   .start_wait_ms = GDL_NO_WAIT};
        match_engine_t e;
        engine_gdl_init(&e, &cfg);
        ggp_msg_t start;
        start_msg("tictactoe", "xplayer", &start);
        char *log_text = NULL;
        size_t log_len = 0;
        FILE *log = open_memstream(&log_text, &log_len);
        engine_match_t *m = e.load(&cfg, &start, log, err, sizeof err);
        fflush(log); /* open until the match is freed: it logs the change of engine */
        ggp_msg_free(&start);
        if (!with) {
            assert_null(m);
            assert_non_null(strstr(err, "the player cannot play this game: nmcs"));
        } else {
            if (!m) fail_msg("START fails: %s", err);
            assert_non_null(strstr(log_text, "compete plays it"));
            char info[256];
            search_engine(&e, m, info, sizeof info); /* a legal move */
            char *const moves[2] = {"(mark 1 1)", "noop"};
            assert_true(e.apply(m, moves, 2, err, sizeof err));
            assert_true(engine_gdl_grounding_wait(m, 20000));
            char *const moves2[2] = {"noop", "(mark 2 2)"};
            assert_true(e.apply(m, moves2, 2, err, sizeof err)); /* the propnet taken: a new searcher, compete's */
            search_engine(&e, m, info, sizeof info);
            e.free(m);
        }
        fclose(log);
        free(log_text);
    }
    search_spec_free(fb);
    search_spec_free(spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_changes_to_the_propnet_at_a_play),
        cmocka_unit_test(test_refused_moves_are_not_replayed),
        cmocka_unit_test(test_start_with_too_wide_a_term_is_refused),
        cmocka_unit_test(test_searcher_that_cannot_play_the_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
