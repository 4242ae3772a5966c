/* cmd_serve.c - `ggp serve`: play matches over HTTP as a GGP player
 * (player/proto/server.h, session.h; shared/docs/gdl-protocol.md §5). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/outfile.h"
#include "player/proto/engine_gdl.h"
#include "player/proto/logq.h"
#include "player/proto/server.h"
#include "player/proto/session.h"

/* The log's queue: about 4,000 request lines (a line is at most about 700
 * bytes); past it lines are dropped and counted, never waited for. At
 * exit, what is queued gets this long to go out. */
#define SERVE_LOG_QUEUE_BYTES (1u << 20)
#define SERVE_LOG_WAIT_MS 1000

static const char serve_help[] =
    "usage: ggp serve [--port P] [--bind ADDR] [--player SPEC] [--margin-ms M]\n"
    "                 [--max-body BYTES] [--log FILE] [--name NAME] [--seed N]\n"
    "                 [--engine propnet|rules|auto] [--ground-ms MS] [--memory MB]\n"
    "                 [--load-ms MS]\n"
    "\n"
    "Play GGP matches over HTTP: answer the POSTed messages of a game manager\n"
    "(INFO, PREVIEW, START, PLAY, STOP, ABORT; any case, any path), one match at\n"
    "a time. START's rules are compiled and searched until the start clock;\n"
    "each PLAY is answered with the searched move before the play clock.\n"
    "Runs until interrupted (SIGINT or SIGTERM).\n"
    "\n"
    "  --port P          TCP port (default 9147; 0 picks a free one)\n"
    "  --bind ADDR       numeric address to listen on (default 0.0.0.0;\n"
    "                    '::' listens on IPv6 and IPv4)\n"
    "  --player SPEC     searcher, ALGO[:key=value,...] (default compete: the\n"
    "                    match player, with a solver, one tree for the match\n"
    "                    and pondering; see 'ggp players'); without playouts=\n"
    "                    it searches until the deadline, with playouts=N it\n"
    "                    stops at N playouts\n"
    "  --memory MB       bound of compete's tree (default half the RAM, at\n"
    "                    most 4096; never more than the RAM; the spec's\n"
    "                    memory= key wins). compete searches one shared\n"
    "                    tree on every core it may run on (its CPU affinity,\n"
    "                    within a cgroup CPU quota) unless its spec gives\n"
    "                    threads=; when given, also the memory budget of\n"
    "                    loading a game's rules\n"
    "  --margin-ms M     reply this many ms before the clock runs out, counted\n"
    "                    from the request's arrival (default 500)\n"
    "  --max-body BYTES  largest request accepted (default 8388608; over 64 KB\n"
    "                    only START and PREVIEW, two at a time)\n"
    "  --log FILE        append the request log here (default stderr); a log\n"
    "                    that stops taking data never delays a reply: past\n"
    "                    1 MB waiting, lines are dropped and counted\n"
    "  --name NAME       name reported by INFO (default ggp)\n"
    "  --seed N          seed of the fallback random moves (default 1)\n"
    "  --engine E        reasoner: propnet, rules or auto (default auto: the\n"
    "                    propositional network when grounding fits its budget)\n"
    "  --ground-ms MS    grounding budget (building the circuit may go on to\n"
    "                    1.5 x MS). START waits for grounding 40% of its start\n"
    "                    clock (at most 10 s); auto then plays with the rules\n"
    "                    engine while grounding goes on in the background\n"
    "                    (default budget 10000) and switches to the propnet at\n"
    "                    the first PLAY after it is ready; propnet's default\n"
    "                    budget is that wait\n"
    "  --load-ms MS      load budget of a START's rules (default: none):\n"
    "                    past it the load fails naming the relation\n"
    "\n"
    "Prints 'ggp serve: listening on ADDR:PORT' on stdout once ready.\n"
    "Log: one line per request: time, match, kind, HTTP status, ms, reply.\n"
    "\n"
    "exit status: 0 stopped by a signal, 2 usage error or cannot listen\n";

/* INFO's name is sent as one atom: no blanks, parentheses or ';'. */
static bool name_ok(const char *s)
{
    if (!*s || strlen(s) > 64) return false;
    for (; *s; s++)
        if (*s <= ' ' || *s == '(' || *s == ')' || *s == ';' || *s == 0x7f) return false;
    return true;
}

/* --name as a CLI_FN row of the option table. */
static bool name_opt(const char *cmd, const char *opt, const char *val, void *out)
{
    if (!name_ok(val)) {
        fprintf(stderr, "ggp %s: bad value for %s: '%s' (one word of at most 64 printable characters, no parentheses)\n",
                cmd, opt, val);
        return false;
    }
    *(const char **)out = val;
    return true;
}

/* Each connection is a descriptor: take what the hard limit allows (up to
 * 8192), so that hundreds of idle or hostile clients fit beside the game
 * manager; the server lowers its connection limit to what is there. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    rlim_t want = rl.rlim_max < 8192 ? rl.rlim_max : 8192;
    if (rl.rlim_cur >= want) return;
    rl.rlim_cur = want;
    setrlimit(RLIMIT_NOFILE, &rl);
}

int cmd_serve(int argc, char **argv)
{
    const char *bind = "0.0.0.0", *spec_text = "compete", *log_path = NULL, *name = "ggp";
    uint64_t port = 9147, margin = 500, max_body = 8u << 20, seed = 1, ground_ms = 0, memory_mb = 0,
             load_ms = 0;
    engine_kind_t engine_kind = ENGINE_AUTO;
    const cli_opt_t opts[] = {
        CLI_OPT_U64("--port", &port, 0, 65535),
        CLI_OPT_STR("--bind", &bind),
        CLI_OPT_STR("--player", &spec_text),
        CLI_OPT_U64("--margin-ms", &margin, 0, 3600000),
        CLI_OPT_U64("--max-body", &max_body, 64, (uint64_t)1 << 31),
        CLI_OPT_STR("--log", &log_path),
        CLI_OPT_FN("--name", name_opt, &name),
        CLI_OPT_U64("--seed", &seed, 0, UINT64_MAX),
        CLI_OPT_ENGINE(&engine_kind),
        CLI_OPT_U64("--ground-ms", &ground_ms, 1, UINT32_MAX),
        CLI_OPT_U64("--memory", &memory_mb, 1, 1048576),
        CLI_OPT_U64("--load-ms", &load_ms, 1, UINT32_MAX),
    };
    int rc;
    if (!cli_opts_parse("serve", serve_help, opts, sizeof opts / sizeof opts[0], argc, argv, NULL, &rc)) return rc;
    if (!*bind) { /* the server reads "" as its default; a user who typed it meant something else */
        fprintf(stderr, "ggp serve: bad value for --bind: '' (expected a numeric IPv4 or IPv6 address)\n");
        return EXIT_USAGE;
    }
    /* compete's workers allocate their tree whole at START: a bound past
     * the RAM aborted the server in the middle of its first match */
    uint64_t ram_mb = search_ram_mb();
    if (ram_mb && memory_mb > ram_mb) {
        fprintf(stderr, "ggp serve: bad value for --memory: %llu MB is more than this machine's RAM (%llu MB)\n",
                (unsigned long long)memory_mb, (unsigned long long)ram_mb);
        return EXIT_USAGE;
    }
    char err[256];
    search_spec_t *spec = search_spec_parse(spec_text, err, sizeof err);
    if (!spec) {
        fprintf(stderr, "ggp serve: bad --player '%s': %s\n", spec_text, err);
        return EXIT_USAGE;
    }
    /* A spec without a budget searches until the deadline: give it an
     * unbounded time budget. An explicit playouts= budget is kept (it
     * then refuses seconds=), and the deadline still caps it. */
    if (!search_spec_is_timed(spec)) {
        size_t n = strlen(spec_text) + 32;
        char *timed = xmalloc(n);
        snprintf(timed, n, "%s%sseconds=86400", spec_text, strchr(spec_text, ':') ? "," : ":");
        search_spec_t *t = search_spec_parse(timed, err, sizeof err);
        free(timed);
        if (t) {
            search_spec_free(spec);
            spec = t;
        }
    }
    if (memory_mb) (void)search_spec_set_memory(spec, memory_mb); /* only match players have a bound */
    /* a match player searches on every core it may run on (taskset, cgroup
     * cpusets, a CPU quota) unless threads= says otherwise */
    (void)search_spec_set_threads(spec, cpu_usable_cores());
    /* compete, bounded alike: what plays a game the player's searcher
     * cannot (alpha-beta on three roles, NMCS on two, nodes= past the RAM):
     * a START refused is a match lost */
    search_spec_t *fallback = search_spec_parse("compete", err, sizeof err);
    if (fallback && memory_mb) (void)search_spec_set_memory(fallback, memory_mb);
    if (fallback) (void)search_spec_set_threads(fallback, cpu_usable_cores());
    FILE *log = stderr;
    if (log_path && !(log = fopen(log_path, "a"))) {
        fprintf(stderr, "ggp serve: cannot write %s: %s\n", log_path, strerror(errno));
        search_spec_free(spec);
        search_spec_free(fallback);
        return EXIT_USAGE;
    }
    /* A line reaches the file as soon as it is written: a killed player
     * keeps its log to the last request. */
    if (log != stderr) setvbuf(log, NULL, _IOLBF, 0);

    /* Signals are taken by sigwait below; every thread started from here
     * on inherits the mask, so none of them is interrupted. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* --memory bounds loading a game too (grounding, static relations). */
    gdl_engine_config_t ec = {.spec = spec,
                              .fallback = fallback,
                              .game_options = {.engine = engine_kind,
                                               .ground_ms = ground_ms,
                                               .ground_mb = (size_t)memory_mb,
                                               .static_mb = (size_t)memory_mb,
                                               .load_ms = load_ms}};
    match_engine_t engine;
    engine_gdl_init(&engine, &ec);
    /* Everything logged while serving goes through a queue: a log that
     * stops taking data (a paused terminal, a stalled pipe) must not hold
     * replies past their clocks (player/proto/logq.h). */
    logq_t *lq = logq_open(log, SERVE_LOG_QUEUE_BYTES);
    FILE *slog = lq ? logq_stream(lq) : log;
    session_config_t sc = {.name = name,
                           .margin_ms = margin,
                           .engine = &engine,
                           .log = slog,
                           .seed = seed,
                           .ponder = search_spec_ponders(spec)};
    session_t *session = session_new(&sc);
    raise_fd_limit();
    server_config_t cfg = {.bind = bind, .port = (uint16_t)port, .max_body = (size_t)max_body, .session = session};
    server_t *sv = server_start(&cfg, err, sizeof err);
    if (!sv) {
        fprintf(stderr, "ggp serve: %s\n", err);
        session_free(session);
        if (lq && !logq_close(lq, SERVE_LOG_WAIT_MS, NULL)) return EXIT_USAGE; /* its thread still writes to log */
        search_spec_free(spec);
        search_spec_free(fallback);
        if (log != stderr) fclose(log);
        return EXIT_USAGE;
    }
    /* The log's first line, flushed now: a log that cannot be written
     * (full disk) fails here, with its reason, not after the matches. */
    if (log != stderr) {
        fprintf(log, "ggp serve: listening on %s:%u\n", bind, (unsigned)server_port(sv));
        if (!out_stream_check(log, "serve", log_path, false)) {
            server_stop(sv);
            session_free(session);
            if (lq && !logq_close(lq, SERVE_LOG_WAIT_MS, NULL)) return EXIT_USAGE; /* its thread still writes to log */
            search_spec_free(spec);
            search_spec_free(fallback);
            fclose(log);
            return EXIT_USAGE;
        }
    }
    printf("ggp serve: listening on %s:%u\n", bind, (unsigned)server_port(sv));
    fflush(stdout);
    int sig = 0;
    sigwait(&sigs, &sig);
    fprintf(slog, "ggp serve: stopping on signal %d\n", sig);
    fflush(slog);
    /* Promptly (issue 13 item 5): requests waiting for a search or a load
     * are answered now, and a load still compiling is not waited for
     * beyond a second. */
    session_close(session);
    server_stop(sv);
    bool freed = session_free_within(session, 1000);
    if (!freed) fprintf(slog, "ggp serve: exiting while rules are still loading\n");
    /* A load still running may log yet: then the stream stays open and
     * only what is queued goes out. A log still blocked is left behind. */
    int werr = 0;
    bool drained = !lq || (freed ? logq_close(lq, SERVE_LOG_WAIT_MS, &werr) : logq_flush(lq, SERVE_LOG_WAIT_MS));
    if (!freed) {
        /* The load still compiling reads the session, the engine and
         * the specs, which live in this frame and its allocations: the
         * process ends here, before any of them goes (returning, or
         * freeing the specs, left it reading freed memory as the
         * process exited). What was written is flushed first. */
        fflush(NULL);
        _exit(out_stream_check(stdout, "serve", "stdout", false) ? EXIT_OK : EXIT_USAGE);
    }
    search_spec_free(spec);
    search_spec_free(fallback);
    if (werr) { /* the queue wrote to the log's descriptor: its FILE does not know */
        fprintf(stderr, "ggp serve: %s: %s\n", log_path ? log_path : "the log", strerror(werr));
        return EXIT_USAGE;
    }
    if (!drained) return EXIT_OK; /* its thread may still write to log: no check, no close */
    if (log != stderr && freed && !out_stream_check(log, "serve", log_path, true)) return EXIT_USAGE;
    return EXIT_OK;
}
