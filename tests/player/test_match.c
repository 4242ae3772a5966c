/* test_match.c - end to end over loopback: `ggp match` driving `ggp serve`
 * processes through whole ticTacToe matches; players that never answer,
 * answer garbage or crash mid-match (the match completes, with TO, IL and
 * CE in the record, §5.4); a rules defect met during a match (aborted
 * cleanly, §5.7); and `ggp serve` against a real game in Dresden's
 * upper case and with rules that do not load. Players that are not there
 * (an error before the match), HTTP 500 replies (CE), UTF-8 kept in the
 * record, the record rewritten after every step (a kill -9 leaves it
 * whole) and write errors (exit 2); a closed stdout, a record folder gone
 * for a while, a player whose connections never complete, --out to a
 * device, a NUL in a reply. */
#include "testutil.h"

#include <ctype.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procs.h"

static const char *tmp_path(const char *name)
{
    static char ring[8][320];
    static int next;
    char *p = ring[next++ % 8];
    snprintf(p, sizeof ring[0], "%s/%s", procs_tmpdir(), name);
    return p;
}

/* ticTacToe from the project's games/ or the shared corpus, or NULL. */
static const char *tictactoe(void)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/games/tictactoe.kif", GGP_SOURCE_DIR);
    if (access(path, R_OK) == 0) return path;
    const char *g = tu_shared("games");
    if (!g) return NULL;
    snprintf(path, sizeof path, "%s/ticTacToe.kif", g);
    return access(path, R_OK) == 0 ? path : NULL;
}

/* Run `ggp match` (bounded by `timeout`); returns its exit status and
 * output in *out. */
/* --out of run_match when set, else rec.json in the test's folder */
static char record_path[400];

static int run_match(const char *game, const char *opts, const char *url1, const char *url2, char **out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "timeout 120 %s match %s %s --out %s %s %s", GGP_BIN, game, opts,
             record_path[0] ? record_path : tmp_path("rec.json"), url1, url2 ? url2 : "");
    return tu_run(cmd, out);
}

static const char *last_line(const char *text)
{
    static char line[512];
    size_t n = strlen(text);
    while (n && text[n - 1] == '\n') n--;
    size_t s = n;
    while (s && text[s - 1] != '\n') s--;
    snprintf(line, sizeof line, "%.*s", (int)(n - s), text + s);
    return line;
}

/* Check the record's shape (§5.7), its clocks `clock` seconds each, and
 * return the errors of role r as one string "e0|e1|...". */
static char *record_errors_clock(int r, int clock, int *n_states, bool *completed)
{
    char *json = tu_read_file(tmp_path("rec.json"));
    assert_non_null(json);
    char **states, **moves, **errors;
    int srows, mrows, erows;
    int ns = json_strings(json, "states", &states, &srows);
    int nm = json_strings(json, "moves", &moves, &mrows);
    int ne = json_strings(json, "errors", &errors, &erows);
    assert_true(ns >= 1);
    assert_int_equal(erows, ns);       /* errors: one row per state */
    assert_int_equal(ne, 2 * ns);      /* two roles */
    assert_int_equal(nm, 2 * (ns - 1)); /* one joint move per step */
    assert_non_null(strstr(json, "\"matchId\":\"ggp."));
    assert_non_null(strstr(json, "\"randomToken\":\""));
    char clocks[80];
    snprintf(clocks, sizeof clocks, "\"startClock\":%d,\"playClock\":%d,\"previewClock\":-1", clock, clock);
    assert_non_null(strstr(json, clocks));
    assert_non_null(strstr(json, "\"stateTimes\":["));
    assert_non_null(strstr(json, "\"playerNamesFromHost\":["));
    assert_non_null(strstr(json, "\"scrambled\":false"));
    *completed = strstr(json, "\"isCompleted\":true") != NULL;
    assert_true(*completed == (strstr(json, "\"goalValues\":[") != NULL));
    size_t len = 1;
    for (int i = 0; i < ns; i++) len += strlen(errors[2 * i + r]) + 1;
    char *out = calloc(1, len);
    for (int i = 0; i < ns; i++) {
        if (i) strcat(out, "|");
        strcat(out, errors[2 * i + r]);
    }
    *n_states = ns;
    json_strings_free(states, ns);
    json_strings_free(moves, nm);
    json_strings_free(errors, ne);
    free(json);
    return out;
}

static char *record_errors(int r, int *n_states, bool *completed) { return record_errors_clock(r, 1, n_states, completed); }

/* "goals xplayer=V oplayer=W" with V + W = 100 (win, loss or draw). */
static void check_goals(const char *out)
{
    int v, w;
    if (sscanf(last_line(out), "goals xplayer=%d oplayer=%d", &v, &w) != 2) fail_msg("last line: %s", last_line(out));
    assert_int_equal(v + w, 100);
}

static void test_full_match_between_two_players(void **state)
{
    (void)state;
    const char *game = tictactoe();
    procs_require_manager();
    if (!game) {
        printf("note: no ticTacToe game; skipping\n");
        skip();
    }
    serve_proc_t x, o;
    /* one player on each reasoner: the match is the same game to both */
    const char *extra[] = {"--margin-ms", "700", "--name", "px", "--engine", "rules", NULL};
    const char *extra2[] = {"--margin-ms", "700", "--name", "po", "--engine", "propnet", "--ground-ms", "2000", NULL};
    assert_true(serve_start(&x, tmp_path("x.log"), extra));
    assert_true(serve_start(&o, tmp_path("o.log"), extra2));
    char *out;
    /* 2 s clocks: 1.3 s to answer after the margin. At 1 s a player starved
     * of CPU (sanitizers, a loaded CI machine) had not computed the state in
     * its 300 ms and answered its guess, an illegal move the test reports. */
    int rc = run_match(game, "--startclock 2 --playclock 2 --grace-ms 500", x.url, o.url, &out);
    if (rc != 0) fail_msg("ggp match failed (%d):\n%s", rc, out);
    check_goals(out);
    int ns;
    bool completed;
    for (int r = 0; r < 2; r++) {
        char *errs = record_errors_clock(r, 2, &ns, &completed);
        for (char *p = errs; *p; p++)
            if (*p != '|') fail_msg("role %d had errors: %s", r, errs);
        free(errs);
    }
    assert_true(completed);
    assert_true(ns >= 6 && ns <= 10); /* ticTacToe: 5 to 9 moves */
    /* a line per step, as played: "step N: xplayer=MOVE oplayer=MOVE" */
    for (int n = 1; n < ns; n++) {
        char want[32];
        snprintf(want, sizeof want, "step %d: ", n);
        const char *line = strstr(out, want);
        if (!line) fail_msg("no line '%s' in:\n%s", want, out);
        assert_non_null(strstr(line, " xplayer="));
        assert_null(strstr(line, "( "));
    }
    char beyond[32];
    snprintf(beyond, sizeof beyond, "step %d: ", ns);
    assert_null(strstr(out, beyond));
    char *json = tu_read_file(tmp_path("rec.json"));
    assert_non_null(strstr(json, "\"playerNamesFromHost\":[\"px\",\"po\"]"));
    free(json);
    /* Each player saw START, one PLAY per step, STOP: one log line each. */
    assert_int_equal(count_lines_with(x.log_path, "kind=start status=200"), 1);
    assert_int_equal(count_lines_with(x.log_path, "kind=play status=200"), ns - 1);
    assert_int_equal(count_lines_with(o.log_path, "kind=stop status=200 "), 1);
    assert_int_equal(count_lines_with(o.log_path, "reply=\"done\""), 1);
    free(out);
    procs_reap(x.pid);
    procs_reap(o.pid);
}

static void test_silent_and_garbage_players(void **state)
{
    (void)state;
    const char *game = tictactoe();
    procs_require_manager();
    if (!game) {
        printf("note: no ticTacToe game; skipping\n");
        skip();
    }
    fake_player_t silent, garbage;
    assert_true(fake_start(&silent, FAKE_SILENT));
    assert_true(fake_start(&garbage, FAKE_GARBAGE));
    char *out;
    int rc = run_match(game, "--startclock 1 --playclock 1 --grace-ms 100", silent.url, garbage.url, &out);
    fake_stop(&silent);
    fake_stop(&garbage);
    if (rc != 0) fail_msg("ggp match failed (%d):\n%s", rc, out);
    check_goals(out);
    int ns;
    bool completed;
    char *xe = record_errors(0, &ns, &completed);
    char *oe = record_errors(1, &ns, &completed);
    assert_true(completed);
    /* The silent player timed out on START and every PLAY; the garbage
     * player's START reply is ignored and its moves are IL (§5.4). */
    for (int i = 0; i < ns; i++) {
        char *xs = strtok(i ? NULL : xe, "|");
        assert_string_equal(xs, "TO");
    }
    char *save;
    char *tok = strtok_r(oe, "|", &save);
    assert_string_equal(tok, "IL ( bogus move");
    int il = 1;
    while ((tok = strtok_r(NULL, "|", &save))) {
        assert_string_equal(tok, "IL ( bogus move");
        il++;
    }
    /* errors[0] of the garbage player is "" (START answered), so strtok
     * skipped it: ns - 1 IL entries. */
    assert_int_equal(il, ns - 1);
    assert_true(atomic_load(&silent.requests) >= ns + 1);
    /* the step lines mark the substitutes */
    const char *step1 = strstr(out, "step 1: xplayer=");
    assert_non_null(step1);
    assert_non_null(strstr(step1, " [TO] oplayer="));
    assert_true(!strncmp(strchr(step1, '\n') - 5, " [IL]", 5));
    free(xe);
    free(oe);
    free(out);
}

static void test_player_crashes_mid_match(void **state)
{
    (void)state;
    const char *game = tictactoe();
    procs_require_manager();
    if (!game) {
        printf("note: no ticTacToe game; skipping\n");
        skip();
    }
    serve_proc_t x, o;
    const char *extra[] = {"--margin-ms", "600", NULL};
    assert_true(serve_start(&x, tmp_path("cx.log"), extra));
    assert_true(serve_start(&o, tmp_path("co.log"), extra));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "timeout 120 %s match %s --startclock 1 --playclock 1 --grace-ms 300 --out %s %s %s",
             GGP_BIN, game, tmp_path("rec.json"), x.url, o.url);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    /* Kill oplayer once it has answered three PLAYs (bounded wait): a log
     * line is written before its reply is sent, but the third PLAY only
     * comes once the manager has the second reply, so at least two PLAYs
     * are answered in the record whenever the kill lands. */
    for (int i = 0; i < 1500 && count_lines_with(o.log_path, "kind=play status=200") < 3; i++) tu_sleep_ms(10);
    assert_true(count_lines_with(o.log_path, "kind=play status=200") >= 3);
    kill(o.pid, SIGKILL);
    procs_reap(o.pid);
    char out[4096];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail_msg("ggp match failed:\n%s", out);
    check_goals(out);
    int ns;
    bool completed;
    char *oe = record_errors(1, &ns, &completed);
    assert_true(completed);
    /* "" for START and the answered moves, then CE to the end. */
    int answered = 0, ce = 0;
    bool seen_ce = false;
    for (char *q = oe;; q++) {
        char *bar = strchr(q, '|');
        size_t l = bar ? (size_t)(bar - q) : strlen(q);
        if (l == 0) {
            assert_false(seen_ce);
            answered++;
        } else {
            assert_true(l == 2 && !strncmp(q, "CE", 2));
            seen_ce = true;
            ce++;
        }
        if (!bar) break;
        q = bar;
    }
    assert_true(answered >= 3); /* START and at least two PLAYs */
    assert_true(ce >= 1);
    assert_int_equal(answered + ce, ns);
    free(oe);
    procs_reap(x.pid);
}

/* A game with a defect: after one step, role b has no legal move. */
static const char defect_game[] = "(role a) (role b)\n"
                                  "(init (s 0))\n"
                                  "(<= (legal a go) (true (s 0)))\n"
                                  "(<= (legal a go) (true (s 1)))\n"
                                  "(<= (legal b go) (true (s 0)))\n"
                                  "(<= (next (s 1)) (true (s 0)))\n"
                                  "(<= (next (s 2)) (true (s 1)))\n"
                                  "(<= terminal (true (s 2)))\n"
                                  "(goal a 50) (goal b 50)\n";

/* And one whose final state has no goal value for b. */
static const char nogoal_game[] = "(role a) (role b)\n"
                                  "(init (s 0))\n"
                                  "(<= (legal ?r go) (role ?r))\n"
                                  "(<= (next (s 1)) (true (s 0)))\n"
                                  "(<= terminal (true (s 1)))\n"
                                  "(<= (goal a 100) (true (s 1)))\n"
                                  "(<= (goal b 0) (true (s 0)))\n";

static void test_rules_defects_abort_cleanly(void **state)
{
    (void)state;
    procs_require_manager();
    const char *games[] = {defect_game, nogoal_game};
    const char *reasons[] = {"aborted: defect of the rules: role b has no legal move in state 1",
                             "aborted: defect of the rules: no goal value for role b in the final state"};
    for (int i = 0; i < 2; i++) {
        const char *path = tmp_path(i ? "nogoal.kif" : "defect.kif");
        FILE *f = fopen(path, "w");
        fputs(games[i], f);
        fclose(f);
        fake_player_t a, b;
        assert_true(fake_start(&a, FAKE_GARBAGE));
        assert_true(fake_start(&b, FAKE_GARBAGE));
        char *out;
        int rc = run_match(path, "--startclock 1 --playclock 1 --grace-ms 100", a.url, b.url, &out);
        fake_stop(&a);
        fake_stop(&b);
        if (rc != 1) fail_msg("exit %d:\n%s", rc, out);
        assert_string_equal(last_line(out), reasons[i]);
        char *json = tu_read_file(tmp_path("rec.json"));
        assert_non_null(strstr(json, "\"isCompleted\":false,\"isAborted\":true"));
        assert_non_null(strstr(json, "\"abortReason\":\"defect of the rules"));
        assert_null(strstr(json, "goalValues"));
        free(json);
        free(out);
        int ns;
        bool completed;
        char *e = record_errors(0, &ns, &completed);
        assert_false(completed);
        assert_int_equal(ns, 2);
        free(e);
    }
}

/* START in Dresden's upper case: the reply is a legal move written in the
 * message's own vocabulary. */
static void test_serve_real_game_uppercase(void **state)
{
    (void)state;
    const char *game = tictactoe();
    if (!game) {
        printf("note: no ticTacToe game; skipping\n");
        skip();
    }
    serve_proc_t s;
    const char *extra[] = {"--margin-ms", "800", NULL};
    assert_true(serve_start(&s, tmp_path("up.log"), extra));
    char *rules = tu_read_file(game);
    /* Strip comments, upper-case everything, one line. */
    size_t n = strlen(rules);
    char *body = malloc(n + 128);
    size_t k = (size_t)sprintf(body, "(START UP.1 OPLAYER (");
    bool comment = false;
    for (size_t i = 0; i < n; i++) {
        char c = rules[i];
        if (c == ';') comment = true;
        if (c == '\n') comment = false, c = ' ';
        if (!comment) body[k++] = (char)toupper((unsigned char)c);
    }
    /* A start clock of 3 s: rules that load after the reply (slow CI
     * machines) would make the first moves guesses; the guess while loading
     * is tested in test_session. */
    k += (size_t)sprintf(body + k, ") 3 1)");
    free(rules);
    bool eof;
    char *r = raw_post(s.port, "1.0", body, 10000, &eof);
    free(body);
    assert_string_equal(raw_body(r), "ready");
    free(r);
    r = raw_post(s.port, "1.0", "(PLAY UP.1 NIL)", 10000, &eof);
    assert_string_equal(raw_body(r), "NOOP"); /* oplayer waits first */
    free(r);
    r = raw_post(s.port, "1.0", "(PLAY UP.1 ((MARK 2 2) NOOP))", 10000, &eof);
    const char *mv = raw_body(r);
    int a, b;
    if (sscanf(mv, "(MARK %d %d)", &a, &b) != 2 || (a == 2 && b == 2)) fail_msg("reply '%s'", mv);
    free(r);
    /* An illegal joint move is refused and the match goes on. */
    r = raw_post(s.port, "1.0", "(PLAY UP.1 (NOOP (MARK 2 2)))", 10000, &eof);
    assert_int_equal(raw_status(r), 400);
    free(r);
    r = raw_post(s.port, "1.0", "(ABORT UP.1)", 10000, &eof);
    assert_string_equal(raw_body(r), "done");
    free(r);
    procs_reap(s.pid);
}

static void test_serve_rules_that_do_not_load(void **state)
{
    (void)state;
    serve_proc_t s;
    assert_true(serve_start(&s, tmp_path("bad.log"), NULL));
    bool eof;
    /* `true` in a head is invalid GDL (§1.4). */
    char *r = raw_post(s.port, "1.0", "(start bad.1 a ((role a) (<= (true p) (role a)) (init p)) 1 1)", 10000, &eof);
    assert_string_equal(raw_body(r), "busy");
    free(r);
    r = raw_post(s.port, "1.0", "(play bad.1 nil)", 10000, &eof);
    assert_string_equal(raw_body(r), "busy");
    free(r);
    r = raw_post(s.port, "1.0", "(info)", 10000, &eof);
    assert_string_equal(raw_body(r), "((name ggp) (status busy))");
    free(r);
    r = raw_post(s.port, "1.0", "(stop bad.1 nil)", 10000, &eof);
    assert_string_equal(raw_body(r), "done");
    free(r);
    /* The diagnostics are in the log, with a location. The log goes
     * through a queue (player/proto/logq.h) that its own thread writes:
     * on a loaded machine the lines may come after the reply (seen once
     * in CI), so they are waited for. */
    for (int i = 0; i < 1500 && (count_lines_with(s.log_path, "<message>:1:") < 1 ||
                                 count_lines_with(s.log_path, "rules not loaded") < 1);
         i++)
        tu_sleep_ms(10);
    assert_true(count_lines_with(s.log_path, "<message>:1:") >= 1);
    assert_int_equal(count_lines_with(s.log_path, "rules not loaded"), 1);
    procs_reap(s.pid);
}

/* The game for a `ggp match` test, or NULL (saying why) to skip. */
static const char *match_game(void)
{
    procs_require_manager();
    const char *game = tictactoe();
    if (!game) {
        printf("note: no ticTacToe game; skipping\n");
        skip();
    }
    return game;
}

/* A match between two fake players of the given kinds (1 s clocks, 100 ms
 * grace); returns ggp match's status, its output in *out. */
static int fake_match(const char *game, fake_kind_t kx, fake_kind_t ko, char urls[2][64], char **out)
{
    fake_player_t x, o;
    assert_true(fake_start(&x, kx));
    assert_true(fake_start(&o, ko));
    int rc = run_match(game, "--startclock 1 --playclock 1 --grace-ms 100 --quiet", x.url, o.url, out);
    fake_stop(&x);
    fake_stop(&o);
    memcpy(urls[0], x.url, 64);
    memcpy(urls[1], o.url, 64);
    return rc;
}

/* Two loopback ports with nothing listening: connections are refused. */
static void dead_urls(char url1[64], char url2[64])
{
    fake_player_t a, b;
    assert_true(fake_start(&a, FAKE_GARBAGE));
    assert_true(fake_start(&b, FAKE_GARBAGE));
    fake_stop(&a);
    fake_stop(&b);
    memcpy(url1, a.url, 64);
    memcpy(url2, b.url, 64);
}

static void test_players_not_there(void **state)
{
    (void)state;
    const char *game = match_game();
    if (!game) return;
    char u1[64], u2[64];
    dead_urls(u1, u2);
    char *out;
    int rc = run_match(game, "--startclock 1 --playclock 1 --grace-ms 100", u1, u2, &out);
    if (rc != 1) fail_msg("ggp match: status %d (want 1):\n%s", rc, out);
    char want[160];
    snprintf(want, sizeof want, "aborted: player %s (role xplayer) cannot be reached", u1);
    if (!strstr(out, want) || !strstr(out, u2) || strstr(out, "goals "))
        fail_msg("ggp match output lacks '%s' or %s:\n%s", want, u2, out);
    char *json = tu_read_file(tmp_path("rec.json"));
    assert_non_null(json);
    assert_non_null(strstr(json, "\"isCompleted\":false,\"isAborted\":true"));
    assert_non_null(strstr(json, "\"moves\":[]"));
    free(json);
    free(out);
}

static void test_http_500_is_ce(void **state)
{
    (void)state;
    const char *game = match_game();
    if (!game) return;
    char urls[2][64], *out;
    int rc = fake_match(game, FAKE_GARBAGE, FAKE_HTTP500, urls, &out);
    if (rc != 0) fail_msg("ggp match failed (%d):\n%s", rc, out);
    int ns;
    bool completed;
    char *oe = record_errors(1, &ns, &completed);
    assert_true(completed);
    /* START answered (""), then every PLAY a 500 with a legal "noop":
     * a failing server, not a move. */
    char want[512] = "";
    for (int i = 1; i < ns; i++) strcat(want, "|CE");
    assert_string_equal(oe, want);
    char line[200];
    snprintf(line, sizeof line, "errors: %s: %d CE\n", urls[1], ns - 1);
    if (!strstr(out, line)) fail_msg("no '%s' in:\n%s", line, out);
    snprintf(line, sizeof line, "errors: %s: %d IL\n", urls[0], ns - 1);
    if (!strstr(out, line)) fail_msg("no '%s' in:\n%s", line, out);
    assert_null(strstr(out, "step 1:")); /* --quiet */
    free(oe);
    free(out);
}

/* A match of fakes kx and ko completes and its record has want and not
 * unwanted. */
static void record_has(fake_kind_t kx, fake_kind_t ko, const char *want, const char *unwanted)
{
    const char *game = match_game();
    if (!game) return;
    char urls[2][64], *out;
    int rc = fake_match(game, kx, ko, urls, &out);
    if (rc != 0) fail_msg("ggp match failed (%d):\n%s", rc, out);
    char *json = tu_read_file(tmp_path("rec.json"));
    assert_non_null(json);
    if (!strstr(json, want) || strstr(json, unwanted)) fail_msg("record without '%s' or with '%s':\n%s", want, unwanted, json);
    free(json);
    free(out);
}

static void test_record_keeps_utf8(void **state)
{
    (void)state;
    /* é as its two UTF-8 bytes; the stray 0xff as U+FFFD */
    record_has(FAKE_UTF8, FAKE_GARBAGE, "\"IL h\xc3\xa9llo\xef\xbf\xbd\"", "\\u00");
}

/* kill -9 in the middle of a match leaves the last complete record. */
static void test_record_survives_kill(void **state)
{
    (void)state;
    const char *game = match_game();
    if (!game) return;
    fake_player_t x, o;
    assert_true(fake_start(&x, FAKE_SILENT));
    assert_true(fake_start(&o, FAKE_SILENT));
    const char *rec = tmp_path("rec.json");
    unlink(rec); /* the record of an earlier test */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(GGP_BIN, GGP_BIN, "match", game, "--startclock", "1", "--playclock", "1", "--grace-ms", "100", "--out",
              rec, x.url, o.url, (char *)NULL);
        _exit(127);
    }
    /* Every PLAY times out (1.1 s): wait for two states, at most 20 s. */
    int ns = 0;
    for (int i = 0; i < 2000 && ns < 2; i++) {
        tu_sleep_ms(10);
        char *json = tu_read_file(rec);
        char **states;
        int rows;
        ns = json ? json_strings(json, "states", &states, &rows) : 0;
        if (ns > 0) json_strings_free(states, ns);
        free(json);
    }
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    fake_stop(&x);
    fake_stop(&o);
    assert_true(WIFSIGNALED(st));
    assert_true(ns >= 2);
    char *json = tu_read_file(rec);
    assert_non_null(json);
    size_t len = strlen(json);
    if (len < 2 || strcmp(json + len - 2, "}\n") || !strstr(json, "\"isCompleted\":false,\"isAborted\":false"))
        fail_msg("record after kill -9:\n%s", json);
    free(json);
    bool completed;
    char *xe = record_errors(0, &ns, &completed);
    assert_false(completed);
    assert_true(ns >= 2);
    free(xe);
}

static void test_record_write_error(void **state)
{
    (void)state;
    const char *game = match_game();
    if (!game) return;
    if (access("/dev/full", W_OK) != 0) {
        printf("note: no /dev/full; skipping\n");
        skip();
    }
    snprintf(record_path, sizeof record_path, "/dev/full");
    char urls[2][64], *out;
    int rc = fake_match(game, FAKE_GARBAGE, FAKE_GARBAGE, urls, &out);
    record_path[0] = '\0';
    if (rc != 2 || !strstr(out, "ggp match: cannot write /dev/full: No space left on device"))
        fail_msg("ggp match --out /dev/full: status %d (want 2):\n%s", rc, out);
    /* reported once, not at every step */
    const char *first = strstr(out, "cannot write");
    assert_null(strstr(first + 1, "cannot write"));
    free(out);
}

/* `ggp serve --log /dev/full`: a log that cannot be written is an error
 * at once, with its reason (it was found only when the player stopped,
 * if ever). */
static void test_serve_log_write_error(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0) {
        printf("note: no /dev/full; skipping\n");
        skip();
    }
    char cmd[600], *out;
    snprintf(cmd, sizeof cmd, "timeout 60 %s serve --port 0 --bind 127.0.0.1 --log /dev/full", GGP_BIN);
    int rc = tu_run(cmd, &out);
    if (rc != 2 || !strstr(out, "ggp serve: cannot write /dev/full: No space left on device"))
        fail_msg("ggp serve --log /dev/full: status %d (want 2):\n%s", rc, out);
    free(out);
}

static void test_usage_errors(void **state)
{
    (void)state;
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd, "%s serve --help", GGP_BIN);
    assert_int_equal(tu_run(cmd, &out), 0);
    assert_non_null(strstr(out, "usage: ggp serve"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s serve --port 70000", GGP_BIN);
    assert_int_equal(tu_run(cmd, &out), 2);
    free(out);
    snprintf(cmd, sizeof cmd, "%s serve --name 'a b'", GGP_BIN);
    assert_int_equal(tu_run(cmd, &out), 2);
    free(out);
    snprintf(cmd, sizeof cmd, "%s serve --engine magic", GGP_BIN);
    assert_int_equal(tu_run(cmd, &out), 2);
    assert_non_null(strstr(out, "bad value for --engine"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s serve --ground-ms 0", GGP_BIN);
    assert_int_equal(tu_run(cmd, &out), 2);
    free(out);
    snprintf(cmd, sizeof cmd, "%s serve --bind nowhere --port 0", GGP_BIN);
    assert_int_equal(tu_run(cmd, &out), 2);
    assert_non_null(strstr(out, "bad bind address"));
    free(out);
    procs_require_manager();
    const char *game = tictactoe();
    if (game) {
        snprintf(cmd, sizeof cmd, "%s match %s --startclock 1 --playclock 1 http://127.0.0.1:1/", GGP_BIN, game);
        assert_int_equal(tu_run(cmd, &out), 2);
        assert_non_null(strstr(out, "has 2 roles (xplayer oplayer) but 1 URL was given"));
        free(out);
        snprintf(cmd, sizeof cmd, "%s match %s --startclock 0 --playclock 1 http://127.0.0.1:1/ http://127.0.0.1:1/",
                 GGP_BIN, game);
        assert_int_equal(tu_run(cmd, &out), 2);
        assert_non_null(strstr(out, "bad value for --startclock: '0' (expected an integer from 1"));
        free(out);
    }
}

/* `ggp match … | head -c 1`: the reader of stdout goes after the first
 * byte. The step lines stop; the match and its record go on to the end
 * (SIGPIPE killed it after a step, the record left incomplete and the
 * players never told). SIGPIPE as a shell leaves it (this test ignores
 * it, and an ignored signal stays ignored across exec). */
static void test_closed_stdout(void **state)
{
    (void)state;
    const char *game = match_game();
    if (!game) return;
    fake_player_t x, o;
    assert_true(fake_start(&x, FAKE_GARBAGE));
    assert_true(fake_start(&o, FAKE_GARBAGE));
    char cmd[2048], *out;
    snprintf(cmd, sizeof cmd,
             "timeout 120 env --default-signal=PIPE %s match %s --startclock 1 --playclock 1 --grace-ms 100 --out %s %s %s "
             "| head -c 1 >/dev/null",
             GGP_BIN, game, tmp_path("rec.json"), x.url, o.url);
    int rc = tu_run(cmd, &out);
    fake_stop(&x);
    fake_stop(&o);
    if (rc != 0) fail_msg("ggp match | head: status %d:\n%s", rc, out);
    int ns;
    bool completed;
    char *xe = record_errors(0, &ns, &completed);
    assert_true(completed);
    assert_true(ns >= 6); /* ticTacToe: at least 5 moves */
    free(xe);
    free(out);
}

/* The record's folder goes away for two steps of the match and comes
 * back: the next records are written again, and the final one is the
 * completed match (the first failure used to stop every later write). */
static char away_dir[320], away_to[340];
static void move_folder(int request, void *arg)
{
    (void)arg;
    if (request == 2) assert_int_equal(rename(away_dir, away_to), 0);  /* the first PLAY */
    if (request == 4) assert_int_equal(rename(away_to, away_dir), 0);  /* the third */
}

static void test_record_written_again_after_a_failure(void **state)
{
    (void)state;
    const char *game = match_game();
    if (!game) return;
    snprintf(away_dir, sizeof away_dir, "%s", tmp_path("recdir"));
    snprintf(away_to, sizeof away_to, "%s.away", away_dir);
    assert_int_equal(mkdir(away_dir, 0700), 0);
    snprintf(record_path, sizeof record_path, "%s/rec.json", away_dir);
    fake_player_t x, o;
    assert_true(fake_start_hooked(&x, FAKE_GARBAGE, move_folder, NULL));
    assert_true(fake_start(&o, FAKE_GARBAGE));
    char *out;
    int rc = run_match(game, "--startclock 1 --playclock 1 --grace-ms 100 --quiet", x.url, o.url, &out);
    fake_stop(&x);
    fake_stop(&o);
    char *json = tu_read_file(record_path);
    record_path[0] = '\0';
    if (rc != 0) fail_msg("ggp match: status %d (want 0: the final record was written):\n%s", rc, out);
    const char *first = strstr(out, "cannot write");
    if (!first) fail_msg("no write error reported:\n%s", out);
    assert_null(strstr(first + 1, "cannot write")); /* once */
    assert_non_null(json);
    assert_non_null(strstr(json, "\"isCompleted\":true"));
    free(json);
    free(out);
}

/* A player whose listen queue is full: connections never complete (the
 * SYNs are dropped). That is a player that cannot be reached, as one
 * refusing connections is, not one that timed out: START aborts the
 * match (it went on with substitute moves, recorded as TO). */
static void test_unconnectable_player_aborts(void **state)
{
    (void)state;
    const char *game = match_game();
    if (!game) return;
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(lfd, 0), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &al), 0);
    /* fill the queue: connections that are never accepted */
    int held[8], n_held = 0;
    for (int i = 0; i < 8; i++) {
        int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        (void)connect(c, (struct sockaddr *)&a, sizeof a);
        held[n_held++] = c;
    }
    tu_sleep_ms(100);
    char full[64];
    snprintf(full, sizeof full, "http://127.0.0.1:%u/", (unsigned)ntohs(a.sin_port));
    fake_player_t o;
    assert_true(fake_start(&o, FAKE_GARBAGE));
    char *out;
    int rc = run_match(game, "--startclock 1 --playclock 1 --grace-ms 100 --connect-ms 300", full, o.url, &out);
    fake_stop(&o);
    for (int i = 0; i < n_held; i++) close(held[i]);
    close(lfd);
    char want[160];
    snprintf(want, sizeof want, "aborted: player %s (role xplayer) cannot be reached", full);
    if (rc != 1 || !strstr(out, want)) fail_msg("ggp match: status %d (want 1 and '%s'):\n%s", rc, want, out);
    free(out);
}

/* --out to a device or a pipe gets the final record only: one JSON
 * document, not one per step. */
static void test_record_to_a_device_once(void **state)
{
    (void)state;
    const char *game = match_game();
    if (!game) return;
    fake_player_t x, o;
    assert_true(fake_start(&x, FAKE_GARBAGE));
    assert_true(fake_start(&o, FAKE_GARBAGE));
    char cmd[2048], *out;
    snprintf(cmd, sizeof cmd,
             "timeout 120 %s match %s --startclock 1 --playclock 1 --grace-ms 100 --quiet --out /dev/stdout %s %s "
             "2>/dev/null",
             GGP_BIN, game, x.url, o.url);
    int rc = tu_run(cmd, &out);
    fake_stop(&x);
    fake_stop(&o);
    if (rc != 0) fail_msg("ggp match --out /dev/stdout: status %d:\n%s", rc, out);
    const char *first = strstr(out, "\"matchId\"");
    assert_non_null(first);
    assert_null(strstr(first + 1, "\"matchId\""));
    assert_non_null(strstr(out, "\"isCompleted\":true"));
    free(out);
}

/* A reply with a NUL byte: illegal, and recorded whole ("IL noop?junk"),
 * not cut at the NUL ("IL noop", a legal move recorded as illegal). */
static void test_reply_with_a_nul(void **state)
{
    (void)state;
    record_has(FAKE_GARBAGE, FAKE_NUL, "\"IL noop?junk\"", "\"IL noop\"");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_usage_errors, procs_reap_all),
        cmocka_unit_test_teardown(test_full_match_between_two_players, procs_reap_all),
        cmocka_unit_test_teardown(test_silent_and_garbage_players, procs_reap_all),
        cmocka_unit_test_teardown(test_player_crashes_mid_match, procs_reap_all),
        cmocka_unit_test_teardown(test_rules_defects_abort_cleanly, procs_reap_all),
        cmocka_unit_test_teardown(test_serve_real_game_uppercase, procs_reap_all),
        cmocka_unit_test_teardown(test_serve_rules_that_do_not_load, procs_reap_all),
        cmocka_unit_test_teardown(test_players_not_there, procs_reap_all),
        cmocka_unit_test_teardown(test_http_500_is_ce, procs_reap_all),
        cmocka_unit_test_teardown(test_record_keeps_utf8, procs_reap_all),
        cmocka_unit_test_teardown(test_record_survives_kill, procs_reap_all),
        cmocka_unit_test_teardown(test_record_write_error, procs_reap_all),
        cmocka_unit_test_teardown(test_serve_log_write_error, procs_reap_all),
        cmocka_unit_test_teardown(test_closed_stdout, procs_reap_all),
        cmocka_unit_test_teardown(test_record_written_again_after_a_failure, procs_reap_all),
        cmocka_unit_test_teardown(test_unconnectable_player_aborts, procs_reap_all),
        cmocka_unit_test_teardown(test_record_to_a_device_once, procs_reap_all),
        cmocka_unit_test_teardown(test_reply_with_a_nul, procs_reap_all),
    };
    return cmocka_run_group_tests(tests, procs_make_tmpdir, procs_remove_tmpdir);
}
