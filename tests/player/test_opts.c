/* test_opts.c - the option parser of the ggp commands (player/cli/opts.h):
 * values of every kind, repeated options, "--", and the usage errors (a
 * missing value, a bad number, an unknown option, an unexpected argument),
 * each naming the option and the value; then every command through the
 * built program, which rejects the same errors with exit status 2 and the
 * option's name. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "player/cli/common.h"
#include "player/cli/opts.h"

static const char help[] = "usage: ggp t [--seed S] [--seconds S] [--name N] [--player P] [--quiet] [--odd V]\n";

/* What a parse gave: the values of the table below, the positionals, the
 * status and what went to stdout and stderr. */
typedef struct parsed {
    bool ok, quiet;
    int rc;
    uint64_t seed;
    double seconds;
    const char *name;
    cli_list_t players, pos;
    char out[4096], err[4096];
    const char *odd_opt; /* the option name CLI_FN was given */
} parsed_t;

/* A CLI_FN: takes "odd" numbers only, remembering the name it was called
 * with so that the test sees the parser pass it. */
static bool odd_opt(const char *cmd, const char *opt, const char *val, void *out)
{
    parsed_t *p = out;
    p->odd_opt = opt;
    if (strcmp(val, "1") && strcmp(val, "3")) {
        fprintf(stderr, "ggp %s: bad value for %s: '%s' (expected 1 or 3)\n", cmd, opt, val);
        return false;
    }
    return true;
}

/* Read what fd's redirection to f caught, then put fd back. */
static void catch_end(FILE *f, int fd, int saved, char *buf, size_t cap)
{
    fflush(fd == 1 ? stdout : stderr);
    dup2(saved, fd);
    close(saved);
    rewind(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Parse the NULL-terminated arguments (after the command name "t"), with
 * positionals taken or not. */
static void parse(parsed_t *p, bool positionals, const char *const *args)
{
    *p = (parsed_t){.seed = 1, .seconds = 5};
    const cli_opt_t opts[] = {
        CLI_OPT_U64("--seed", &p->seed, 0, 1000),   CLI_OPT_DOUBLE("--seconds", &p->seconds, 0.01, 86400),
        CLI_OPT_STR("--name", &p->name),           CLI_OPT_LIST("--player", &p->players),
        CLI_OPT_FLAG("--quiet", "-q", &p->quiet), CLI_OPT_FN("--odd", odd_opt, p),
    };
    char *argv[32] = {"t"};
    int argc = 1;
    while (args[argc - 1]) {
        assert_true(argc < 31);
        argv[argc] = (char *)args[argc - 1]; /* the parser never writes to argv */
        argc++;
    }
    FILE *fo = tmpfile(), *fe = tmpfile();
    assert_non_null(fo);
    assert_non_null(fe);
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    dup2(fileno(fo), 1);
    dup2(fileno(fe), 2);
    p->ok = cli_opts_parse("t", help, opts, sizeof opts / sizeof opts[0], argc, argv, positionals ? &p->pos : NULL,
                           &p->rc);
    catch_end(fo, 1, so, p->out, sizeof p->out);
    catch_end(fe, 2, se, p->err, sizeof p->err);
}

static void parsed_free(parsed_t *p)
{
    cli_list_free(&p->players);
    cli_list_free(&p->pos);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A usage error: false, status 2, the message on stderr, nothing left to
 * free; help on stderr after a syntax error only. */
static void expect_usage(bool positionals, const char *const *args, const char *msg, bool with_help)
{
    parsed_t p;
    parse(&p, positionals, args);
    if (p.ok || p.rc != EXIT_USAGE || !strstr(p.err, msg))
        fail_msg("expected status 2 and '%s'; got ok=%d rc=%d, stderr:\n%s", msg, p.ok, p.rc, p.err);
    assert_int_equal(strstr(p.err, "usage: ggp t") != NULL, with_help);
    assert_string_equal(p.out, "");
    assert_null(p.pos.v); /* freed on failure */
    parsed_free(&p);
}

static void test_values(void **state)
{
    (void)state;
    parsed_t p;
    parse(&p, true,
          ARGS("a.kif", "--seed", "7", "--seconds", "0.5", "-q", "--name", "-x", "-", "--odd", "3", "--", "--seed"));
    assert_true(p.ok);
    assert_int_equal(p.rc, EXIT_OK);
    assert_int_equal(p.seed, 7);
    assert_float_equal(p.seconds, 0.5, 0);
    assert_true(p.quiet);
    assert_string_equal(p.name, "-x"); /* a value is taken as it is, even with a '-' */
    assert_string_equal(p.odd_opt, "--odd");
    /* "-" is positional; after "--" everything is */
    assert_int_equal(p.pos.n, 3);
    assert_string_equal(p.pos.v[0], "a.kif");
    assert_string_equal(p.pos.v[1], "-");
    assert_string_equal(p.pos.v[2], "--seed");
    assert_string_equal(p.err, "");
    parsed_free(&p);

    /* defaults stay when an option is not given */
    parse(&p, false, ARGS("--quiet"));
    assert_true(p.ok);
    assert_int_equal(p.seed, 1);
    assert_float_equal(p.seconds, 5, 0);
    assert_null(p.name);
    parsed_free(&p);
}

static void test_repeated(void **state)
{
    (void)state;
    parsed_t p;
    parse(&p, false, ARGS("--player", "grave", "--seed", "3", "--player", "uct", "--seed", "4", "--player", "mc"));
    assert_true(p.ok);
    assert_int_equal(p.players.n, 3); /* a list accumulates, in order */
    assert_string_equal(p.players.v[0], "grave");
    assert_string_equal(p.players.v[1], "uct");
    assert_string_equal(p.players.v[2], "mc");
    assert_int_equal(p.seed, 4); /* a value: the last one counts */
    parsed_free(&p);
}

static void test_help(void **state)
{
    (void)state;
    parsed_t p;
    parse(&p, true, ARGS("a.kif", "--help", "--bogus"));
    assert_false(p.ok);
    assert_int_equal(p.rc, EXIT_OK);
    assert_string_equal(p.out, help);
    assert_string_equal(p.err, "");
    assert_null(p.pos.v);
    parsed_free(&p);
    parse(&p, false, ARGS("-h"));
    assert_false(p.ok);
    assert_int_equal(p.rc, EXIT_OK);
    assert_string_equal(p.out, help);
    parsed_free(&p);
}

static void test_missing_value(void **state)
{
    (void)state;
    expect_usage(true, ARGS("a.kif", "--seed"), "ggp t: missing value for --seed\n", true);
    expect_usage(true, ARGS("--player", "x", "--player"), "ggp t: missing value for --player\n", true);
    expect_usage(false, ARGS("--odd"), "ggp t: missing value for --odd\n", true);
}

static void test_bad_number(void **state)
{
    (void)state;
    expect_usage(true, ARGS("a.kif", "--seed", "x"), "ggp t: bad value for --seed: 'x' (expected an integer from 0 to 1000)",
                 false);
    expect_usage(false, ARGS("--seed", "-1"), "bad value for --seed: '-1'", false);
    expect_usage(false, ARGS("--seed", "1001"), "bad value for --seed: '1001'", false);
    expect_usage(false, ARGS("--seed", ""), "bad value for --seed: ''", false);
    expect_usage(false, ARGS("--seed", "2x"), "bad value for --seed: '2x'", false);
    expect_usage(false, ARGS("--seconds", "nan"), "bad value for --seconds: 'nan' (expected a number from 0.01", false);
    expect_usage(false, ARGS("--seconds", "0"), "bad value for --seconds: '0'", false);
    expect_usage(false, ARGS("--odd", "2"), "ggp t: bad value for --odd: '2' (expected 1 or 3)", false);
    /* the first error stops the parse: the second is not reported */
    parsed_t p;
    parse(&p, false, ARGS("--seed", "x", "--bogus"));
    assert_false(p.ok);
    assert_int_equal(p.rc, 2);
    assert_non_null(strstr(p.err, "bad value for --seed: 'x'"));
    assert_null(strstr(p.err, "--bogus"));
    parsed_free(&p);
}

static void test_unknown(void **state)
{
    (void)state;
    expect_usage(true, ARGS("a.kif", "--bogus"), "ggp t: unknown option '--bogus'\n", true);
    expect_usage(true, ARGS("--seed=3"), "unknown option '--seed=3'", true); /* one syntax: --opt VALUE */
    expect_usage(true, ARGS("-x"), "unknown option '-x'", true);
    expect_usage(false, ARGS("--quiet", "a.kif"), "ggp t: unexpected argument 'a.kif'\n", true);
}

/* --- every command, through the program ------------------------------- */

/* `ggp ARGS` exits 2 with the message. */
#define USAGE(msg, ...) tu_ggp_expect(NULL, 2, msg, __VA_ARGS__)

static void test_commands(void **state)
{
    (void)state;
    const char *g = "games/tictactoe.kif";
    /* an unknown option in each (with a rule file where one is taken),
     * then a missing value and a bad number in each that has values */
    static const char *const cmds[][2] = {
        {"check", "f"}, {"play", "f"},  {"tournament", "f"}, {"roundrobin", "f"}, {"bench", "f"},
        {"perft", "f"}, {"replay", "f"}, {"trace", "f"},     {"results merge", "f"}, {"serve", ""},
        {"gtp", ""},    {"games", ""},  {"players", ""},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        const char *file = *cmds[i][1] ? g : "";
        USAGE("unknown option '--bogus'", "%s %s --bogus", cmds[i][0], file);
        USAGE("usage: ggp", "%s %s --bogus", cmds[i][0], file); /* then the help */
    }
    USAGE("ggp play: bad value for --seed: 'x'", "play %s --player random --player random --seed x", g);
    USAGE("ggp play: missing value for --player", "play %s --player random --player", g);
    USAGE("ggp play: bad value for --engine: 'fast'", "play %s --engine fast", g);
    USAGE("ggp play: bad value for --memory: '0'", "play %s --memory 0", g);
    USAGE("ggp play: more than one rule file", "play %s %s", g, g);
    USAGE("ggp tournament: bad value for --games: '-2'", "tournament %s --a random --b random --games -2", g);
    USAGE("ggp tournament: missing value for --sweep", "tournament %s --a random --b random --games 2 --sweep", g);
    USAGE("ggp tournament: bad value for --shard: '3/2'", "tournament %s --a random --b random --games 2 --shard 3/2", g);
    USAGE("ggp roundrobin: bad value for --games-per-pair: '0'",
          "roundrobin %s --player random --player mc --games-per-pair 0", g);
    USAGE("ggp roundrobin: bad value for --jobs: '1.5'", "roundrobin %s --player random --player mc --jobs 1.5", g);
    USAGE("ggp serve: bad value for --port: '70000'", "serve --port 70000");
    USAGE("ggp serve: bad value for --name: 'a(b'", "serve --name 'a(b'");
    USAGE("ggp serve: missing value for --log", "serve --log");
    USAGE("ggp serve: unexpected argument 'x'", "serve x");
    USAGE("ggp serve: bad value for --bind: ''", "serve --bind ''");
    /* a memory bound past the RAM: compete's shared tree is allocated whole
     * at START, where it aborted the server (and a local game at its first
     * search) */
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    unsigned long long over = (unsigned long long)pages * (unsigned long long)psize / (1024 * 1024) + 1;
    if (pages > 0 && psize > 0 && over <= 1048576) {
        /* (a bad --player after it: without the check serve exits there) */
        USAGE("ggp serve: bad value for --memory:", "serve --memory %llu --player bogus", over);
        USAGE("MB is more than this machine's RAM", "serve --memory %llu --player bogus", over);
        USAGE("compete: memory=", "play %s --player compete:memory=%llu,playouts=10 --player random", g, over);
        USAGE("MB is more than this machine's RAM", "play %s --player compete:memory=%llu,playouts=10 --player random", g,
              over);
    }
    USAGE("ggp gtp: bad value for --seed: 'y'", "gtp --player random --seed y");
    USAGE("ggp gtp: missing value for --game", "gtp --player random --game");
    USAGE("ggp bench: bad value for --seconds: 'x'", "bench %s --seconds x", g);
    USAGE("ggp bench: bad value for --threads: '0'", "bench %s --threads 0", g);
    USAGE("ggp perft: missing value for --depth", "perft %s --depth", g);
    USAGE("ggp perft: bad value for --depth: '65'", "perft %s --depth 65", g);
    USAGE("ggp replay: bad value for --time-limit: 'soon'", "replay %s t.trace --time-limit soon", g);
    USAGE("ggp trace: bad value for --max-steps: '-1'", "trace %s --max-steps -1", g);
    USAGE("ggp results: missing value for --csv", "results merge r.csv --csv");
    USAGE("ggp games: unexpected argument 'x'", "games x");
    USAGE("ggp players: unexpected argument 'x'", "players x");
    /* games that fail say why without --verbose (exit 1) */
    tu_ggp_expect(NULL, 1, "2 games failed, the first (game 0) with: left: ab (alpha-beta) needs players that take turns",
                  "tournament %s --a ab:depth=2 --b random --games 2", GGP_SOURCE_DIR "/games/simultaneous_rps.kif");
    /* what the parser takes still runs: "--" and a flag's alias */
    tu_ggp_expect(NULL, 0, "depth 1: paths=9", "perft -q --depth 1 -- %s", g);
    tu_ggp_expect(NULL, 0, "goals", "play %s -q --player random --player random --seed 2", g);
}

/* The match manager is optional (built only with libcurl): without it
 * the test says it skipped rather than pass silently. */
static void test_match_options(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = tu_run(GGP_BIN " match --help", &out);
    free(out);
    if (rc != 0) {
        print_message("ggp match is not built (no libcurl): skipping its options\n");
        skip();
    }
    const char *g = "games/tictactoe.kif";
    USAGE("ggp match: bad value for --playclock: '0'", "match %s --startclock 1 --playclock 0 http://x", g);
    USAGE("ggp match: missing value for --out", "match %s --out", g);
    USAGE("ggp match: unknown option '--bogus'", "match %s --bogus", g);
    USAGE("ggp match: bad value for --engine: 'fast'", "match %s --engine fast --startclock 1 --playclock 1 http://x", g);
}

/* serve's default threads= under a CPU quota (cgroup v2 cpu.max, v1). */
static void test_cpu_quota(void **state)
{
    (void)state;
    assert_int_equal(cpu_quota_cores("max 100000\n"), 0);
    assert_int_equal(cpu_quota_cores("100000 100000\n"), 1);
    assert_int_equal(cpu_quota_cores("250000 100000"), 2);
    assert_int_equal(cpu_quota_cores("50000 100000"), 1); /* half a core: one thread */
    assert_int_equal(cpu_quota_cores("-1 100000"), 0);    /* v1: no quota */
    assert_int_equal(cpu_quota_cores("100000 0"), 0);
    assert_int_equal(cpu_quota_cores("abc 100000"), 0);
    assert_int_equal(cpu_quota_cores(""), 0);
    assert_int_equal(cpu_quota_cores(NULL), 0);
    uint32_t n = cpu_usable_cores();
    assert_true(n >= 1);
    assert_true(n <= (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),        cmocka_unit_test(test_repeated), cmocka_unit_test(test_help),
        cmocka_unit_test(test_missing_value), cmocka_unit_test(test_bad_number), cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_commands),      cmocka_unit_test(test_cpu_quota),
        cmocka_unit_test(test_match_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
