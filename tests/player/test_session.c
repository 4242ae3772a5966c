/* test_session.c - the player's match state machine without HTTP: message
 * kinds, one match at a time, unknown ids, rules that do not load, replies
 * before the clock even when the search overruns, a search thread that
 * leaves INFO and ABORT unblocked, stale searches stopped by a newer PLAY,
 * and one log line per request (shared/docs/gdl-protocol.md §5, §6). Uses
 * the stand-in engine of standin.h. */
#include "testutil.h"

#include <pthread.h>

#include "base/clock.h"
#include "player/proto/session.h"
#include "standin.h"

typedef struct fixture {
    standin_cfg_t cfg;
    match_engine_t engine;
    session_t *s;
    char *log_text;
    size_t log_len;
    FILE *log;
} fixture_t;

static fixture_t *fx_new_ponder(uint64_t margin_ms, bool ignore_stop, uint64_t overrun_ms, bool ponder)
{
    fixture_t *f = calloc(1, sizeof *f);
    f->cfg.ignore_stop = ignore_stop;
    f->cfg.overrun_ms = overrun_ms;
    standin_engine(&f->engine, &f->cfg);
    f->log = open_memstream(&f->log_text, &f->log_len);
    session_config_t sc = {
        .name = "tester", .margin_ms = margin_ms, .engine = &f->engine, .log = f->log, .seed = 7, .ponder = ponder};
    f->s = session_new(&sc);
    return f;
}

static fixture_t *fx_new(uint64_t margin_ms, bool ignore_stop, uint64_t overrun_ms)
{
    return fx_new_ponder(margin_ms, ignore_stop, overrun_ms, false);
}

/* A fixture whose stand-in search ends after 20 ms: for the tests of the
 * normal path, whose 3 s clocks leave a loaded sanitizer run seconds to
 * schedule the loader and the search, and still reply in tens of ms. */
static fixture_t *fx_quick(uint64_t margin_ms)
{
    fixture_t *f = fx_new(margin_ms, false, 0);
    atomic_store(&f->cfg.search_ms, 20);
    return f;
}

static void fx_free(fixture_t *f)
{
    session_free(f->s);
    fclose(f->log);
    free(f->log_text);
    free(f);
}

/* Send one message; returns the reply (static ring of buffers), the
 * status in *status and the milliseconds taken in *ms. */
static const char *ask_ms(fixture_t *f, const char *msg, int *status, double *ms)
{
    static char ring[8][512];
    static int next;
    char *reply = NULL;
    uint64_t t0 = clock_now_ns();
    int st = session_handle(f->s, msg, strlen(msg), t0, &reply);
    if (ms) *ms = (double)(clock_now_ns() - t0) / 1e6;
    if (status) *status = st;
    char *out = ring[next++ % 8];
    snprintf(out, sizeof ring[0], "%s", reply);
    free(reply);
    return out;
}

static const char *ask(fixture_t *f, const char *msg, int expect_status)
{
    int st;
    const char *r = ask_ms(f, msg, &st, NULL);
    if (st != expect_status) fail_msg("'%s' -> %d '%s', expected status %d", msg, st, r, expect_status);
    return r;
}

static bool legal_standin_move(const char *m)
{
    return !strcmp(m, "noop") || !strcmp(m, "(inc 1)") || !strcmp(m, "(inc 2)");
}

#define RULES2 "((role red) (role blue) (limit 4))"

static void test_full_flow(void **state)
{
    (void)state;
    fixture_t *f = fx_quick(800);
    assert_string_equal(ask(f, "(info)", 200), "((name tester) (status available))");
    assert_string_equal(ask(f, "(ping)", 200), "ready");
    assert_string_equal(ask(f, "(preview " RULES2 " 10)", 200), "ready");
    assert_int_equal(atomic_load(&f->cfg.loads), 0);
    double ms;
    int st;
    const char *r = ask_ms(f, "(start m.1 blue " RULES2 " 3 3)", &st, &ms);
    assert_int_equal(st, 200);
    assert_string_equal(r, "ready");
    /* The start clock was used for a search (metagaming), and the reply
     * came before the clock. */
    assert_int_equal(atomic_load(&f->cfg.searches), 1);
    assert_true(ms < 2200);
    assert_string_equal(ask(f, "(info)", 200), "((name tester) (status busy))");
    r = ask_ms(f, "(play m.1 nil)", &st, &ms);
    assert_int_equal(st, 200);
    assert_string_equal(r, "(inc 1)");
    assert_true(ms < 2200);
    assert_int_equal(atomic_load(&f->cfg.searches), 2);
    assert_string_equal(ask(f, "(play m.1 ((inc 1) noop))", 200), "(inc 1)");
    assert_string_equal(ask(f, "(play m.1 (noop (inc 1)))", 200), "(inc 1)");
    /* A joint move with the wrong number of moves is refused; the match
     * is unchanged and goes on. */
    r = ask(f, "(play m.1 ((inc 1)))", 400);
    assert_non_null(strstr(r, "1 moves for 2 roles"));
    r = ask(f, "(play m.1 ((inc 7) noop))", 400);
    assert_non_null(strstr(r, "not a legal move"));
    assert_string_equal(ask(f, "(stop m.1 ((inc 1) (inc 1)))", 200), "done");
    assert_string_equal(ask(f, "(info)", 200), "((name tester) (status available))");
    assert_string_equal(ask(f, "(play m.1 nil)", 404), "unknown match id 'm.1'");
    fflush(f->log);
    /* The replies were searched, not the fallback's random moves. */
    assert_non_null(strstr(f->log_text, "stand-in search from 1"));
    /* The STOP brought the count to 4: the final state. */
    assert_non_null(strstr(f->log_text, "final state after 3 steps, our goal 100"));
    fx_free(f);
}

/* A PLAY sent again (a manager retrying a request whose reply it lost)
 * carries the joint move already applied. Where that move is no longer
 * legal (turns: red's (inc 1) again at blue's turn) it is not applied
 * twice and gets the reply the first got, with no search of its own; the
 * match goes on in step. Where it is legal again it is a move like any
 * other. (vary: the stand-in answers (inc 2) from an odd counter, so the
 * reply of the state before differs.) */
static void test_retried_play(void **state)
{
    (void)state;
    fixture_t *f = fx_quick(800);
    ask(f, "(start m.2 red ((role red) (role blue) (alternate) (vary) (limit 9)) 3 3)", 200);
    assert_string_equal(ask(f, "(play m.2 nil)", 200), "(inc 1)");
    assert_string_equal(ask(f, "(play m.2 ((inc 1) noop))", 200), "(inc 2)"); /* from 1 */
    int searches = atomic_load(&f->cfg.searches);
    assert_string_equal(ask(f, "(play m.2 ((inc 1) noop))", 200), "(inc 2)");
    assert_int_equal(atomic_load(&f->cfg.searches), searches);
    /* blue's turn still: the state took red's move once */
    assert_string_equal(ask(f, "(play m.2 (noop (inc 2)))", 200), "(inc 2)"); /* from 3 */
    /* not the last joint move applied, and illegal: refused as before */
    const char *r = ask(f, "(play m.2 ((inc 2) (inc 2)))", 400);
    assert_non_null(strstr(r, "not a legal move"));
    assert_string_equal(ask(f, "(stop m.2 ((inc 2) noop))", 200), "done");
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "the joint move applied last, sent again: the same reply"));
    /* 1 + 2 + 2 = 5 of 9 after three steps: nothing applied twice */
    assert_non_null(strstr(f->log_text, "stopped after 3 steps"));
    fx_free(f);

    /* without turns the same joint move twice is two steps */
    f = fx_quick(800);
    ask(f, "(start m.3 red ((role red) (role blue) (limit 9)) 3 3)", 200);
    ask(f, "(play m.3 nil)", 200);
    ask(f, "(play m.3 ((inc 1) noop))", 200);
    ask(f, "(play m.3 ((inc 1) noop))", 200);
    assert_string_equal(ask(f, "(stop m.3 ((inc 1) noop))", 200), "done");
    fflush(f->log);
    assert_null(strstr(f->log_text, "sent again"));
    assert_non_null(strstr(f->log_text, "after 3 steps"));
    fx_free(f);
}

typedef struct retry_arg {
    fixture_t *f;
    const char *msg;
    char reply[64];
    int status;
    double ms;
} retry_arg_t;

static void *retry_thread(void *p) /* ask_ms's ring of buffers is the main thread's */
{
    retry_arg_t *ra = p;
    char *reply = NULL;
    uint64_t t0 = clock_now_ns();
    ra->status = session_handle(ra->f->s, ra->msg, strlen(ra->msg), t0, &reply);
    ra->ms = (double)(clock_now_ns() - t0) / 1e6;
    snprintf(ra->reply, sizeof ra->reply, "%s", reply);
    free(reply);
    return NULL;
}

/* The same, sent again while the first is still searching: the second
 * waits for the first's reply (not the state before's, nor a move of its
 * own), and does not cut the first's search short. */
static void test_retried_play_in_flight(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0); /* searches run to the deadline: 1.5 s */
    ask(f, "(start m.4 red ((role red) (role blue) (alternate) (vary) (limit 9)) 2 2)", 200);
    assert_string_equal(ask(f, "(play m.4 nil)", 200), "(inc 1)");
    retry_arg_t first = {.f = f, .msg = "(play m.4 ((inc 1) noop))"};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, retry_thread, &first), 0);
    tu_sleep_ms(300); /* the first's step applied, its search running */
    int st;
    double ms;
    const char *r = ask_ms(f, "(play m.4 ((inc 1) noop))", &st, &ms);
    pthread_join(th, NULL);
    assert_int_equal(first.status, 200);
    assert_int_equal(st, 200);
    assert_string_equal(first.reply, "(inc 2)");
    assert_string_equal(r, "(inc 2)");
    assert_int_equal(atomic_load(&f->cfg.stopped), 0); /* the first searched to its deadline */
    assert_true(first.ms > 1000);
    fx_free(f);
}

static void test_dresden_uppercase(void **state)
{
    (void)state;
    fixture_t *f = fx_quick(900);
    assert_string_equal(ask(f, "(START MATCH.7 BLUE ((ROLE RED) (ROLE BLUE)) 3 3)", 200), "ready");
    assert_string_equal(ask(f, "(PLAY MATCH.7 NIL)", 200), "(inc 1)");
    assert_string_equal(ask(f, "(PLAY MATCH.7 ((INC 1) NOOP))", 200), "(inc 1)");
    /* Ids compare exactly: the lowercase id is another match. */
    ask(f, "(play match.7 nil)", 404);
    assert_string_equal(ask(f, "(ABORT MATCH.7)", 200), "done");
    fx_free(f);
}

static void test_one_match_at_a_time(void **state)
{
    (void)state;
    fixture_t *f = fx_quick(950);
    assert_string_equal(ask(f, "(start m1 red " RULES2 " 3 3)", 200), "ready");
    assert_string_equal(ask(f, "(start m2 red " RULES2 " 3 3)", 200), "busy");
    /* A repeated START of the current match is harmless. */
    assert_string_equal(ask(f, "(start m1 red " RULES2 " 3 3)", 200), "ready");
    assert_int_equal(atomic_load(&f->cfg.loads), 1);
    assert_string_equal(ask(f, "(play m2 nil)", 404), "unknown match id 'm2'");
    ask(f, "(stop m2 nil)", 404);
    ask(f, "(abort m2)", 404);
    const char *r = ask(f, "(play m1", 400);
    assert_non_null(strstr(r, "malformed message"));
    r = ask(f, "(dance m1)", 400);
    assert_non_null(strstr(r, "unknown message 'dance'"));
    ask(f, "", 400);
    /* The match goes on after all that. */
    assert_true(legal_standin_move(ask(f, "(play m1 nil)", 200)));
    assert_true(legal_standin_move(ask(f, "(play m1 (noop noop))", 200)));
    assert_string_equal(ask(f, "(abort m1)", 200), "done");
    assert_string_equal(ask(f, "(start m2 red " RULES2 " 3 3)", 200), "ready");
    assert_string_equal(ask(f, "(abort m2)", 200), "done");
    fx_free(f);
}

static void test_rules_that_do_not_load(void **state)
{
    (void)state;
    fixture_t *f = fx_quick(900);
    assert_string_equal(ask(f, "(start bad.1 red ((role red) (broken)) 3 3)", 200), "busy");
    assert_string_equal(ask(f, "(info)", 200), "((name tester) (status busy))");
    assert_string_equal(ask(f, "(play bad.1 nil)", 200), "busy");
    assert_string_equal(ask(f, "(play bad.1 (noop))", 200), "busy");
    assert_string_equal(ask(f, "(stop bad.1 (noop))", 200), "done");
    assert_string_equal(ask(f, "(info)", 200), "((name tester) (status available))");
    /* A role the game does not have is a load failure too. */
    assert_string_equal(ask(f, "(start bad.2 green " RULES2 " 3 3)", 200), "busy");
    assert_string_equal(ask(f, "(abort bad.2)", 200), "done");
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "error: stand-in rules marked broken"));
    assert_non_null(strstr(f->log_text, "rules not loaded: stand-in rules marked broken"));
    assert_non_null(strstr(f->log_text, "'green' is not a role"));
    assert_int_equal(atomic_load(&f->cfg.searches), 0);
    /* A failed match does not hold the player against the next match. */
    assert_string_equal(ask(f, "(start bad.3 red ((role red) (broken)) 3 3)", 200), "busy");
    assert_string_equal(ask(f, "(start bad.3 red ((role red) (broken)) 3 3)", 200), "busy"); /* the same: no retry */
    assert_string_equal(ask(f, "(start ok.4 red " RULES2 " 3 3)", 200), "ready");
    assert_string_equal(ask(f, "(play bad.3 nil)", 404), "unknown match id 'bad.3'");
    assert_string_equal(ask(f, "(abort ok.4)", 200), "done");
    fx_free(f);
}

/* The search ignores its stop flag and its deadline by 1.5 s: the reply
 * is still sent before the clock, with a legal move drawn at arrival. */
static void test_search_overrun_falls_back(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, true, 1500);
    double ms;
    int st;
    assert_string_equal(ask(f, "(start m1 red " RULES2 " 0 1)", 200), "ready");
    const char *r = ask_ms(f, "(play m1 nil)", &st, &ms);
    assert_int_equal(st, 200);
    assert_true(legal_standin_move(r));
    assert_true(ms < 1000);
    /* The next PLAY comes while the search thread is still stuck: again
     * an answer in time. */
    r = ask_ms(f, "(play m1 (noop noop))", &st, &ms);
    assert_int_equal(st, 200);
    assert_true(legal_standin_move(r));
    assert_true(ms < 1000);
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "random legal move"));
    assert_string_equal(ask(f, "(abort m1)", 200), "done");
    fx_free(f); /* waits for the stuck search: bounded by its overrun */
}

/* Rules so slow that the state is not computed by the reply's deadline
 * (issue 13 item 5): the reply is still on time, the last legal move known
 * (or a guess when none is known yet), and the moves are still applied in
 * order, so the next PLAY sees the right state. */
static void test_slow_rules_reply_on_time(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0);
    double ms;
    int st;
    assert_string_equal(ask(f, "(start m1 red ((role red) (limit 50)) 0 1)", 200), "ready");
    atomic_store(&f->cfg.legal_ms, 1500);
    const char *r = ask_ms(f, "(play m1 nil)", &st, &ms);
    assert_int_equal(st, 200);
    assert_string_equal(r, "noop");
    assert_true(ms < 1000);
    atomic_store(&f->cfg.legal_ms, 0);
    /* Let the step finish: the next reply is searched, and a legal move
     * of this state becomes known. */
    for (int i = 0; i < 3000 && atomic_load(&f->cfg.legals) < 1; i++) tu_sleep_ms(1);
    assert_int_equal(atomic_load(&f->cfg.legals), 1);
    r = ask_ms(f, "(play m1 (noop))", &st, &ms);
    assert_int_equal(st, 200);
    assert_true(legal_standin_move(r));
    atomic_store(&f->cfg.apply_ms, 1500);
    r = ask_ms(f, "(play m1 ((inc 2)))", &st, &ms);
    assert_int_equal(st, 200);
    assert_true(legal_standin_move(r));
    assert_true(ms < 1000);
    atomic_store(&f->cfg.apply_ms, 0);
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "no legal move known: a guess"));
    assert_non_null(strstr(f->log_text, "the last legal move known"));
    /* Every move was applied in order: STOP sees 0 + 0 + 2 + 1. */
    for (int i = 0; i < 3000 && atomic_load(&f->cfg.applies) < 2; i++) tu_sleep_ms(1);
    assert_int_equal(atomic_load(&f->cfg.applies), 2);
    assert_string_equal(ask(f, "(stop m1 ((inc 1)))", 200), "done");
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "stopped after 3 steps in a non-terminal state"));
    fx_free(f);
}

/* PLAYs that come while START's rules still load (START replied `ready`
 * on time): answered on time with a guess, and their joint moves applied
 * once the rules are in, before the next PLAY's. */
static void test_play_while_loading(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0);
    atomic_store(&f->cfg.load_ms, 2000);
    double ms;
    int st;
    assert_string_equal(ask_ms(f, "(start m1 red ((role red) (limit 50)) 1 1)", &st, &ms), "ready");
    assert_true(ms < 1000);
    assert_string_equal(ask_ms(f, "(play m1 nil)", &st, &ms), "noop");
    assert_int_equal(st, 200);
    assert_true(ms < 1000);
    assert_string_equal(ask_ms(f, "(play m1 ((inc 2)))", &st, &ms), "noop");
    assert_true(ms < 1000);
    for (int i = 0; i < 5000 && atomic_load(&f->cfg.loaded) < 1; i++) tu_sleep_ms(1);
    assert_int_equal(atomic_load(&f->cfg.loaded), 1);
    assert_true(legal_standin_move(ask(f, "(play m1 ((inc 1)))", 200)));
    for (int i = 0; i < 3000 && atomic_load(&f->cfg.applies) < 2; i++) tu_sleep_ms(1);
    assert_string_equal(ask(f, "(stop m1 ((inc 1)))", 200), "done");
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "rules still loading: a guess"));
    /* 2 (applied after the load) + 1 + 1: three joint moves, in order */
    assert_non_null(strstr(f->log_text, "stopped after 3 steps in a non-terminal state"));
    fx_free(f);
}

/* A START whose rules load past its reply leaves its loader thread running
 * (it installs the match and logs "loaded after the reply"): freeing the
 * session then waits for that thread to return, its log line included,
 * rather than only for the load (the use after free that ThreadSanitizer
 * found in CI, session 19). */
static void test_free_waits_for_late_loader(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0);
    atomic_store(&f->cfg.load_ms, 1500);
    int st;
    assert_string_equal(ask_ms(f, "(start m1 red ((role red) (limit 50)) 1 1)", &st, NULL), "ready");
    assert_int_equal(atomic_load(&f->cfg.loaded), 0); /* replied before the load ended */
    session_free(f->s);
    f->s = NULL;
    assert_int_equal(atomic_load(&f->cfg.loaded), 1);
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "loaded after the reply: ready"));
    fx_free(f);
}

/* The guess while the rules load is noop in the START's own spelling: a
 * case-sensitive manager would refuse "noop" in a match sent in Dresden's
 * upper case (shared/docs/gdl-protocol.md §5.2). */
static void test_guess_while_loading_upper_case(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0);
    atomic_store(&f->cfg.load_ms, 2000);
    assert_string_equal(ask(f, "(START M1 RED ((ROLE RED) (LIMIT 50) (LEGAL RED NOOP)) 1 1)", 200), "ready");
    assert_string_equal(ask(f, "(PLAY M1 NIL)", 200), "NOOP");
    for (int i = 0; i < 5000 && atomic_load(&f->cfg.loaded) < 1; i++) tu_sleep_ms(1);
    assert_string_equal(ask(f, "(ABORT M1)", 200), "done");
    fx_free(f);
}

typedef struct async_ask {
    fixture_t *f;
    const char *msg;
    char reply[256];
    int status;
    atomic_bool finished;
    uint64_t end_ns;
} async_ask_t;

static void *ask_thread(void *arg)
{
    async_ask_t *a = arg;
    char *reply = NULL;
    a->status = session_handle(a->f->s, a->msg, strlen(a->msg), clock_now_ns(), &reply);
    snprintf(a->reply, sizeof a->reply, "%s", reply);
    free(reply);
    a->end_ns = clock_now_ns();
    atomic_store(&a->finished, true);
    return NULL;
}

static void wait_searches(fixture_t *f, int n)
{
    for (int i = 0; i < 2000 && atomic_load(&f->cfg.searches) < n; i++) tu_sleep_ms(1);
    assert_true(atomic_load(&f->cfg.searches) >= n);
}

/* Start a match; its first PLAY then waits for its search on a thread of
 * its own (*t: join it). */
static void play_while_searching(fixture_t *f, const char *start, async_ask_t *a, pthread_t *t)
{
    assert_string_equal(ask(f, start, 200), "ready");
    *a = (async_ask_t){.f = f, .msg = "(play m1 nil)"};
    pthread_create(t, NULL, ask_thread, a);
    wait_searches(f, 1);
}

static void test_info_and_abort_while_searching(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0);
    async_ask_t a;
    pthread_t t;
    play_while_searching(f, "(start m1 red " RULES2 " 0 5)", &a, &t);
    /* The PLAY has 4.5 s; INFO is answered while it searches. */
    assert_string_equal(ask(f, "(info)", 200), "((name tester) (status busy))");
    assert_false(atomic_load(&a.finished));
    /* ABORT is answered at once and stops the search. */
    assert_string_equal(ask(f, "(abort m1)", 200), "done");
    pthread_join(t, NULL);
    assert_int_equal(a.status, 200);
    assert_true(legal_standin_move(a.reply));
    assert_int_equal(atomic_load(&f->cfg.stopped), 1);
    assert_string_equal(ask(f, "(info)", 200), "((name tester) (status available))");
    fx_free(f);
}

/* Shutting down (a signal to ggp serve): a PLAY waiting for its search
 * is answered at once, with a legal move, and the session frees. */
static void test_close_answers_waiting_requests(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0);
    async_ask_t a;
    pthread_t t;
    play_while_searching(f, "(start m1 red " RULES2 " 0 30)", &a, &t);
    uint64_t t0 = clock_now_ns();
    session_close(f->s);
    pthread_join(t, NULL);
    assert_int_equal(a.status, 200);
    assert_true(legal_standin_move(a.reply));
    assert_true(a.end_ns - t0 < 5000000000ULL); /* its clock had 29.5 s left */
    assert_true(session_free_within(f->s, 5000));
    f->s = NULL;
    fx_free(f);
}

/* After a manager-side timeout the next PLAY can arrive while the old
 * search still runs: it must be stopped, and the new moves applied (§5.4). */
static void test_newer_play_stops_stale_search(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0);
    assert_string_equal(ask(f, "(start m1 red ((role red) (limit 10)) 0 5)", 200), "ready");
    async_ask_t a = {.f = f, .msg = "(play m1 nil)"};
    pthread_t t;
    pthread_create(&t, NULL, ask_thread, &a);
    wait_searches(f, 1);
    async_ask_t b = {.f = f, .msg = "(play m1 ((inc 2)))"};
    pthread_t u;
    pthread_create(&u, NULL, ask_thread, &b);
    pthread_join(t, NULL);
    /* The stale PLAY ended because its search was stopped, long before
     * the newer one (which searches for its full 4.5 s unless stopped). */
    assert_int_equal(atomic_load(&f->cfg.stopped), 1);
    assert_false(atomic_load(&b.finished));
    assert_true(legal_standin_move(a.reply));
    wait_searches(f, 2);
    assert_string_equal(ask(f, "(stop m1 ((inc 1)))", 200), "done");
    pthread_join(u, NULL);
    assert_int_equal(b.status, 200);
    fflush(f->log);
    /* The newer search started from the state after (inc 2). */
    assert_non_null(strstr(f->log_text, "stand-in search from 2"));
    assert_non_null(strstr(f->log_text, "stopped after 2 steps in a non-terminal state"));
    fx_free(f);
}

/* With pondering on, a ponder starts after each reply (searches counts it).
 * Returns the searches so far once the one after START has begun. */
static int start_pondering(fixture_t *f)
{
    assert_string_equal(ask(f, "(start m1 red ((role red) (limit 10)) 0 5)", 200), "ready");
    wait_searches(f, 1);
    tu_sleep_ms(100); /* a metagame search, if any, and its ponder */
    return atomic_load(&f->cfg.searches);
}

/* A PLAY waiting for its search when ABORT ends the match replies, and
 * posts no ponder on the released match (it searched it, on every core,
 * for up to 2 play clocks + 10 s while the next match loaded). */
static void test_no_ponder_after_abort(void **state)
{
    (void)state;
    fixture_t *f = fx_new_ponder(500, false, 0, true);
    int n0 = start_pondering(f);
    async_ask_t a = {.f = f, .msg = "(play m1 nil)"};
    pthread_t t;
    pthread_create(&t, NULL, ask_thread, &a);
    wait_searches(f, n0 + 1);
    assert_string_equal(ask(f, "(abort m1)", 200), "done");
    pthread_join(t, NULL);
    assert_int_equal(a.status, 200);
    tu_sleep_ms(500);
    assert_int_equal(atomic_load(&f->cfg.searches), n0 + 1);
    assert_string_equal(ask(f, "(info)", 200), "((name tester) (status available))");
    fx_free(f);
}

/* A stale PLAY overtaken by a newer one (a manager-side timeout) posts no
 * ponder behind the newer PLAY's step: that ponder cancelled the newer
 * PLAY's search, which then answered a random move at once. */
static void test_no_ponder_over_newer_play(void **state)
{
    (void)state;
    fixture_t *f = fx_new_ponder(500, false, 0, true);
    int n0 = start_pondering(f);
    async_ask_t a = {.f = f, .msg = "(play m1 nil)"};
    pthread_t t;
    pthread_create(&t, NULL, ask_thread, &a);
    wait_searches(f, n0 + 1);
    async_ask_t b = {.f = f, .msg = "(play m1 ((inc 2)))"};
    pthread_t u;
    pthread_create(&u, NULL, ask_thread, &b);
    pthread_join(t, NULL);
    wait_searches(f, n0 + 2);
    tu_sleep_ms(500);
    /* the newer PLAY still searches (4.5 s), and nothing else was posted */
    assert_false(atomic_load(&b.finished));
    assert_int_equal(atomic_load(&f->cfg.searches), n0 + 2);
    assert_string_equal(ask(f, "(stop m1 ((inc 1)))", 200), "done");
    pthread_join(u, NULL);
    assert_int_equal(b.status, 200);
    assert_true(legal_standin_move(b.reply));
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "stand-in search from 2"));
    assert_null(strstr(f->log_text, "search found no move"));
    fx_free(f);
}

/* ABORT (or STOP) of a match whose START replied while its rules still
 * load: answered at once, the player is free for the next START at once
 * (it was `busy` until the match counted as abandoned, then until the load
 * ended), and the loader drops the match rather than install it over the
 * next one. */
static void test_abort_while_loading(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0);
    /* 4 s: the ABORT comes about 1 s in (START and the PLAY each wait
     * 0.5 s), and the next match is in well before the load ends even on
     * a loaded machine */
    atomic_store(&f->cfg.load_ms, 4000);
    double ms;
    int st;
    assert_string_equal(ask_ms(f, "(start m1 red ((role red) (limit 50)) 1 1)", &st, &ms), "ready");
    assert_true(ms < 1000);
    assert_string_equal(ask_ms(f, "(play m1 nil)", &st, &ms), "noop");
    assert_string_equal(ask_ms(f, "(play m1 ((inc 2)))", &st, &ms), "noop"); /* kept for the load: dropped */
    assert_string_equal(ask_ms(f, "(abort m1)", &st, &ms), "done");
    assert_int_equal(st, 200);
    assert_true(ms < 400);
    assert_string_equal(ask(f, "(info)", 200), "((name tester) (status available))");
    assert_string_equal(ask(f, "(play m1 nil)", 404), "unknown match id 'm1'");
    /* the next match while m1's rules still load */
    atomic_store(&f->cfg.load_ms, 0);
    assert_string_equal(ask(f, "(start m2 red ((role red) (limit 50)) 1 1)", 200), "ready");
    if (atomic_load(&f->cfg.loaded) != 1) skip(); /* m1's load ended first: a machine too loaded to tell */
    assert_string_equal(ask(f, "(info)", 200), "((name tester) (status busy))");
    assert_true(legal_standin_move(ask(f, "(play m2 nil)", 200)));
    /* m1's load ends: m2 stays the match */
    for (int i = 0; i < 8000 && atomic_load(&f->cfg.loaded) < 2; i++) tu_sleep_ms(1);
    assert_int_equal(atomic_load(&f->cfg.loaded), 2);
    for (int i = 0; i < 2000; i++) { /* the loader logs after its load */
        fflush(f->log);
        if (strstr(f->log_text, "the match was stopped while its rules loaded")) break;
        tu_sleep_ms(1);
    }
    assert_true(legal_standin_move(ask(f, "(play m2 ((inc 1)))", 200)));
    assert_string_equal(ask(f, "(play m1 nil)", 404), "unknown match id 'm1'");
    assert_string_equal(ask(f, "(stop m2 ((inc 1)))", 200), "done");
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "ended while its rules were loading"));
    assert_non_null(strstr(f->log_text, "the match was stopped while its rules loaded"));
    assert_non_null(strstr(f->log_text, "stopped after 2 steps in a non-terminal state"));
    assert_int_equal(atomic_load(&f->cfg.applies), 2); /* m2's two: m1's early moves were dropped */
    fx_free(f);
}

/* A match whose freeing is slow (a tree of gigabytes, a grounding thread
 * to join): STOP, ABORT and the next START reply without waiting for it,
 * and freeing the session waits for it. */
static void test_slow_free_delays_no_reply(void **state)
{
    (void)state;
    fixture_t *f = fx_quick(500);
    atomic_store(&f->cfg.free_ms, 1500);
    double ms;
    int st;
    assert_string_equal(ask(f, "(start m1 red ((role red) (limit 50)) 1 1)", 200), "ready");
    assert_string_equal(ask_ms(f, "(abort m1)", &st, &ms), "done");
    assert_true(ms < 1000);
    assert_string_equal(ask_ms(f, "(start m2 red ((role red) (limit 50)) 1 1)", &st, &ms), "ready");
    assert_true(ms < 1000);
    assert_string_equal(ask_ms(f, "(stop m2 nil)", &st, &ms), "done");
    assert_true(ms < 1000);
    session_free(f->s); /* waits for both */
    f->s = NULL;
    assert_int_equal(atomic_load(&f->cfg.freed), 2);
    fx_free(f);
}

/* START and ABORT in turn while rules load: a stopped load runs on to its
 * end, so one may overlap the next match's and no more (`busy` then). */
static void test_stopped_loads_do_not_pile_up(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0);
    atomic_store(&f->cfg.load_ms, 3000);
    assert_string_equal(ask(f, "(start m1 red ((role red) (limit 50)) 1 1)", 200), "ready");
    assert_string_equal(ask(f, "(abort m1)", 200), "done");
    assert_string_equal(ask(f, "(start m2 red ((role red) (limit 50)) 1 1)", 200), "ready");
    assert_string_equal(ask(f, "(abort m2)", 200), "done");
    const char *r = ask(f, "(start m3 red ((role red) (limit 50)) 1 1)", 200);
    if (atomic_load(&f->cfg.loaded) > 0) skip(); /* a machine too loaded to tell */
    assert_string_equal(r, "busy");
    atomic_store(&f->cfg.load_ms, 0);
    for (int i = 0; i < 8000 && atomic_load(&f->cfg.loaded) < 2; i++) tu_sleep_ms(1);
    assert_int_equal(atomic_load(&f->cfg.loaded), 2);
    for (int i = 0; i < 2000; i++) { /* both loader threads return */
        r = ask(f, "(start m4 red ((role red) (limit 50)) 1 1)", 200);
        if (!strcmp(r, "ready")) break;
        tu_sleep_ms(1);
    }
    assert_string_equal(r, "ready");
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "still loading stopped matches' rules"));
    assert_string_equal(ask(f, "(abort m4)", 200), "done");
    fx_free(f);
}

/* A match ABORTed while its moves wait behind a slow one: its queued
 * moves are dropped, not applied ahead of the next match's steps (each
 * could take seconds of slow rules while the next match waited). */
static void test_released_match_steps_dropped(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0);
    assert_string_equal(ask(f, "(start m1 red ((role red) (limit 50)) 1 1)", 200), "ready");
    assert_true(legal_standin_move(ask(f, "(play m1 nil)", 200)));
    atomic_store(&f->cfg.apply_ms, 3000); /* 2 s of slack for the next two requests */
    ask(f, "(play m1 ((inc 1)))", 200); /* applying past the reply */
    atomic_store(&f->cfg.apply_ms, 0);
    ask(f, "(play m1 ((inc 2)))", 200); /* queued behind it */
    assert_string_equal(ask(f, "(abort m1)", 200), "done");
    assert_string_equal(ask(f, "(start m2 red ((role red) (limit 50)) 1 1)", 200), "ready");
    assert_true(legal_standin_move(ask(f, "(play m2 nil)", 200)));
    for (int i = 0; i < 5000 && atomic_load(&f->cfg.applies) < 1; i++) tu_sleep_ms(1); /* m1's first move */
    assert_string_equal(ask(f, "(stop m2 ((inc 1)))", 200), "done");
    fflush(f->log);
    assert_non_null(strstr(f->log_text, "stopped after 1 steps in a non-terminal state"));
    /* m1's first move and m2's: m1's second was dropped */
    assert_int_equal(atomic_load(&f->cfg.applies), 2);
    fx_free(f);
}

/* A match whose rules load past the START's reply counts its silence from
 * the install: it was counted from the START, so a load longer than the
 * abandon limit released the match as it came. Here 2 s of load, and an
 * INFO "from the future" 14 s after the START (limit 2 x 1 + 10 + 1 s). */
static void test_late_install_not_abandoned(void **state)
{
    (void)state;
    fixture_t *f = fx_new(500, false, 0);
    atomic_store(&f->cfg.load_ms, 2000);
    uint64_t t0 = clock_now_ns();
    assert_string_equal(ask(f, "(start m1 red ((role red) (limit 50)) 1 1)", 200), "ready");
    for (int i = 0; i < 5000 && atomic_load(&f->cfg.loaded) < 1; i++) tu_sleep_ms(1);
    assert_int_equal(atomic_load(&f->cfg.loaded), 1);
    uint64_t installed = clock_now_ns();
    if (installed - t0 > 4000000000ULL) skip(); /* a machine too loaded to tell */
    char *r;
    session_handle(f->s, "(info)", 6, t0 + 14000000000ULL, &r);
    assert_string_equal(r, "((name tester) (status busy))");
    free(r);
    session_handle(f->s, "(info)", 6, installed + 14000000000ULL, &r);
    assert_string_equal(r, "((name tester) (status available))");
    free(r);
    atomic_store(&f->cfg.load_ms, 0);
    fx_free(f);
}

/* INFO "from the future": a match whose manager went silent is released
 * after twice the play clock plus 10 s (plus the start clock before the
 * first PLAY). */
static void test_abandoned_match(void **state)
{
    (void)state;
    fixture_t *f = fx_new(950, false, 0);
    const uint64_t s = 1000000000ULL;
    uint64_t t0 = clock_now_ns();
    assert_string_equal(ask(f, "(start m1 red " RULES2 " 3 1)", 200), "ready");
    char *r;
    session_handle(f->s, "(info)", 6, t0 + 14 * s, &r);
    assert_string_equal(r, "((name tester) (status busy))"); /* 2 + 10 + 3 s not yet over */
    free(r);
    session_handle(f->s, "(info)", 6, t0 + 16 * s, &r);
    assert_string_equal(r, "((name tester) (status available))");
    free(r);
    uint64_t t1 = clock_now_ns();
    ask(f, "(play m1 nil)", 200);
    session_handle(f->s, "(info)", 6, t1 + 11 * s, &r);
    assert_string_equal(r, "((name tester) (status busy))");
    free(r);
    session_handle(f->s, "(info)", 6, t1 + 13 * s, &r);
    assert_string_equal(r, "((name tester) (status available))");
    free(r);
    fx_free(f);
}

static void test_one_log_line_per_request(void **state)
{
    (void)state;
    fixture_t *f = fx_quick(950);
    ask(f, "(info)", 200);
    ask(f, "(start m.log red " RULES2 " 3 3)", 200);
    ask(f, "(play m.log nil)", 200);
    ask(f, "(play m.nope nil)", 404);
    ask(f, "(garbage", 400);
    ask(f, "(abort m.log)", 200);
    fflush(f->log);
    int lines = 0;
    for (const char *p = f->log_text; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 6);
    assert_non_null(strstr(f->log_text, "match=- kind=info status=200"));
    assert_non_null(strstr(f->log_text, "match=m.log kind=start status=200"));
    assert_non_null(strstr(f->log_text, "match=m.log kind=play status=200"));
    assert_non_null(strstr(f->log_text, "reply=\"(inc 1)\""));
    assert_non_null(strstr(f->log_text, "match=m.nope kind=play status=404"));
    assert_non_null(strstr(f->log_text, "kind=? status=400"));
    assert_non_null(strstr(f->log_text, "kind=abort status=200 ms="));
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_flow),
        cmocka_unit_test(test_retried_play),
        cmocka_unit_test(test_retried_play_in_flight),
        cmocka_unit_test(test_dresden_uppercase),
        cmocka_unit_test(test_one_match_at_a_time),
        cmocka_unit_test(test_rules_that_do_not_load),
        cmocka_unit_test(test_search_overrun_falls_back),
        cmocka_unit_test(test_slow_rules_reply_on_time),
        cmocka_unit_test(test_released_match_steps_dropped),
        cmocka_unit_test(test_slow_free_delays_no_reply),
        cmocka_unit_test(test_stopped_loads_do_not_pile_up),
        cmocka_unit_test(test_late_install_not_abandoned),
        cmocka_unit_test(test_free_waits_for_late_loader),
        cmocka_unit_test(test_play_while_loading),
        cmocka_unit_test(test_guess_while_loading_upper_case),
        cmocka_unit_test(test_info_and_abort_while_searching),
        cmocka_unit_test(test_close_answers_waiting_requests),
        cmocka_unit_test(test_newer_play_stops_stale_search),
        cmocka_unit_test(test_abandoned_match),
        cmocka_unit_test(test_no_ponder_after_abort),
        cmocka_unit_test(test_no_ponder_over_newer_play),
        cmocka_unit_test(test_abort_while_loading),
        cmocka_unit_test(test_one_log_line_per_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
