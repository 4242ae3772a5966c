/* cmd_bench.c - `ggp bench FILE.kif`: random playouts per second of the
 * reasoner, the figure the anchors compare (shared/docs/anchors.md: one
 * thread, uniform random legal moves from the initial state to a terminal
 * state, then every goal read; per CPU-second of the benchmarking thread). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/rng.h"
#include "base/xalloc.h"
#include "games/registry.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/trace_io.h"
#include "reasoner/game.h"

static const char bench_help[] =
    "usage: ggp bench FILE.kif [--seconds S] [--load-ms MS] [--threads T] [--seed N]\n"
    "                 [--lanes] [--engine propnet|rules|auto] [--ground-ms MS]\n"
    "                 [--eliminate-after N] [--memory MB] [--quiet]\n"
    "\n"
    "Measure the reasoner: random playouts from the initial state (a uniformly\n"
    "random legal move for every role at every step, then every goal read),\n"
    "after a warm-up of a tenth of the time, for S seconds on T threads, each\n"
    "with its own context and seed. The last line is\n"
    "  bench game=NAME engine=E load_ms=.. playouts=.. playouts_per_sec=..\n"
    "        playouts_per_cpu_sec=.. mean_depth=.. props=.. gates=.. rss_kb=..\n"
    "        first_playout_ms=.. ground_tries=.. lanes=..\n"
    "(one line). load_ms is the time to the engine measured: parse + validate +\n"
    "its compilation (for the propnet: ground + build; ground_tries counts its\n"
    "groundings: one more per relation found too big to compute in full and\n"
    "per rule rewritten, 0 for the rules engine). first_playout_ms is the\n"
    "time from the start of loading to the end of the first playout: with\n"
    "engine auto the propnet is grounded on a thread of its own while the\n"
    "rules engine plays (as `ggp serve` does), and the measured playouts use\n"
    "the propnet if it comes within its budget.\n"
    "playouts_per_cpu_sec divides by the CPU time of the playout threads.\n"
    "lanes is how many playouts a thread runs side by side: 1, or with\n"
    "--lanes on the propnet 256 (the same playouts, one bit of a word each,\n"
    "in batches of 1024: first_playout_ms is then the first batch's end;\n"
    "the search still plays one at a time).\n"
    "\n"
    "  --seconds S       time of the whole run (default 5): loading, within\n"
    "                    --load-ms if given, then measuring for what is left\n"
    "                    (a tenth of S at least)\n"
    "  --load-ms MS      load budget (default S): the propnet is waited for\n"
    "                    that long at most; the rules engine fails past it\n"
    CLI_HELP_LOAD_OPTIONS
    "  --threads T       playout threads (default 1)\n"
    "  --seed N          base seed (default 1)\n"
    "  --lanes           playouts side by side where the engine can\n"
    "                    (game_playouts); one by one where it cannot\n"
    "  --quiet           do not report which engine was chosen\n"
    "\n"
    "exit status: 0 done, 1 invalid rules or a playout that cannot go on,\n"
    "2 usage or I/O error\n";

/* A playout longer than this is cut (grave-spec §2.3 playout cap). */
#define BENCH_MAX_PLIES 10000

typedef struct worker {
    const game_t *g;
    uint64_t seed;
    uint64_t warm_ns, run_ns;
    uint64_t playouts, plies, capped, stuck;
    uint64_t cpu_ns;
    uint64_t t0_ns, first_ns; /* load start; end of this thread's first playout (0: none) */
    bool lanes;               /* --lanes: game_playouts, where the engine has it */
    pthread_t thread;
} worker_t;

/* One playout from s0; returns the plies played, or UINT64_MAX when a role
 * has no legal move (a defect of the rules). With a watch, the playout
 * stops (returning UINT64_MAX - 1) at the first ply where it says so. */
typedef struct watch {
    bool (*stop)(struct watch *w);
} watch_t;

static uint64_t playout(game_ctx_t *c, const game_state_t *s0, rng_t *rng, move_id_t *joint, uint32_t nr, bool *capped,
                        watch_t *watch)
{
    game_ctx_set_state(c, s0);
    uint64_t plies = 0;
    *capped = false;
    while (!game_is_terminal(c)) {
        if (plies == BENCH_MAX_PLIES) {
            *capped = true;
            break;
        }
        if (watch && watch->stop(watch)) return UINT64_MAX - 1;
        for (uint32_t r = 0; r < nr; r++) {
            /* the search's random playout: the game's own policy where it
             * has one (game.h), else uniform over the legal moves */
            bool decides;
            if (game_playout_move(c, r, rng, &joint[r], &decides)) continue;
            const move_id_t *m;
            uint32_t n = game_legal(c, r, &m);
            if (!n) return UINT64_MAX;
            joint[r] = m[n == 1 ? 0 : rng_below(rng, n)];
        }
        game_ctx_play(c, joint);
        plies++;
    }
    for (uint32_t r = 0; r < nr; r++) (void)game_goal(c, r);
    return plies;
}

static void lanes_done(void *ud, const int *goals, uint32_t plies, int how, const move_id_t *moves)
{
    (void)goals, (void)moves;
    worker_t *w = ud;
    if (how == GAME_PLAYOUT_STUCK) {
        w->stuck++;
        return;
    }
    w->playouts++;
    w->plies += plies;
    w->capped += how == GAME_PLAYOUT_CAPPED;
}

/* --lanes: playouts side by side, a batch at a time (the clock is read
 * between batches); false when the engine has no such form. */
#define LANES_BATCH 1024
static bool work_lanes(worker_t *w, game_ctx_t *c, const game_state_t *s0, rng_t *rng)
{
    uint64_t end_warm = clock_now_ns() + w->warm_ns;
    do {
        if (!game_playouts(c, s0, LANES_BATCH, BENCH_MAX_PLIES, rng, 0, lanes_done, w)) return false;
        if (!w->first_ns) w->first_ns = clock_now_ns() - w->t0_ns;
    } while (!w->stuck && clock_now_ns() < end_warm);
    w->playouts = w->plies = w->capped = 0;
    uint64_t cpu0 = clock_thread_cpu_ns(), end = clock_now_ns() + w->run_ns;
    while (!w->stuck && clock_now_ns() < end) game_playouts(c, s0, LANES_BATCH, BENCH_MAX_PLIES, rng, 0, lanes_done, w);
    w->cpu_ns = clock_thread_cpu_ns() - cpu0;
    return true;
}

static void *work(void *arg)
{
    worker_t *w = arg;
    game_ctx_t *c = game_ctx_new(w->g);
    game_state_t *s0 = game_state_new(w->g);
    game_initial(c, s0);
    uint32_t nr = game_num_roles(w->g);
    move_id_t *joint = xcalloc(nr ? nr : 1, sizeof *joint);
    rng_t rng;
    rng_seed(&rng, w->seed);
    bool capped;
    if (w->lanes && work_lanes(w, c, s0, &rng)) goto done;
    w->lanes = false;
    uint64_t end_warm = clock_now_ns() + w->warm_ns;
    do {
        if (playout(c, s0, &rng, joint, nr, &capped, NULL) == UINT64_MAX) {
            w->stuck++;
            break;
        }
        /* Start-up as a user sees it: rules file to a finished playout. */
        if (!w->first_ns) w->first_ns = clock_now_ns() - w->t0_ns;
    } while (clock_now_ns() < end_warm);
    uint64_t cpu0 = clock_thread_cpu_ns(), end = clock_now_ns() + w->run_ns;
    while (!w->stuck && clock_now_ns() < end) {
        uint64_t n = playout(c, s0, &rng, joint, nr, &capped, NULL);
        if (n == UINT64_MAX) {
            w->stuck++;
            break;
        }
        w->playouts++;
        w->plies += n;
        w->capped += capped;
    }
    w->cpu_ns = clock_thread_cpu_ns() - cpu0;
done:
    free(joint);
    game_state_free(s0);
    game_ctx_free(c);
    return NULL;
}

/* ENGINE_AUTO as a player meets it (game.h, game_grounding_start): the
 * propnet is grounded on a thread of its own while the rules engine plays
 * the first playout, given up if the propnet comes first; the measurement
 * then runs on the propnet if it came, else on the rules engine. Sets
 * *first_ns (0: no first playout yet) and *load_ms (to the engine that is
 * measured). */
typedef struct auto_watch {
    watch_t w;
    game_grounding_t *gg;
    grounding_status_t st;
    game_t *pn;
    char reason[160];
    uint64_t until_ns; /* end of the load budget: the first playout stops there */
} auto_watch_t;

static bool propnet_came(watch_t *w)
{
    auto_watch_t *a = (auto_watch_t *)w;
    if (a->st == GROUNDING_RUNNING) a->st = game_grounding_take(a->gg, 0, &a->pn, a->reason, sizeof a->reason);
    return a->st == GROUNDING_READY || clock_now_ns() > a->until_ns;
}

static game_t *open_auto(const char *file, const game_options_t *opts, gdl_loaded_t *l, uint64_t t0, uint64_t seed,
                         uint64_t *first_ns, double *load_ms, int *rc)
{
    if (!cli_rules_open("bench", file, l, rc)) return NULL;
    auto_watch_t a = {.w = {.stop = propnet_came},
                      .gg = game_grounding_start(l->prog, opts),
                      .until_ns = t0 + opts->load_ms * 1000000ull};
    game_t *rules = NULL;
    if (!propnet_came(&a.w)) {
        game_options_t ro = *opts;
        ro.engine = ENGINE_RULES;
        diag_t d;
        diag_init(&d, stderr);
        d.max_errors = 20;
        rules = game_compile(l->prog, &ro, &d);
    }
    uint64_t rules_ns = clock_now_ns();
    if (rules && !propnet_came(&a.w)) {
        game_ctx_t *c = game_ctx_new(rules);
        game_state_t *s0 = game_state_new(rules);
        game_initial(c, s0);
        uint32_t nr = game_num_roles(rules);
        move_id_t *joint = xcalloc(nr ? nr : 1, sizeof *joint);
        rng_t rng;
        rng_seed(&rng, rng_derive(seed, UINT64_MAX));
        bool capped;
        if (playout(c, s0, &rng, joint, nr, &capped, &a.w) < UINT64_MAX - 1) *first_ns = clock_now_ns() - t0;
        free(joint);
        game_state_free(s0);
        game_ctx_free(c);
    }
    /* The propnet is waited for until the load budget runs out (--load-ms,
     * else --seconds), no longer. */
    uint64_t load_end = a.until_ns, now = clock_now_ns();
    if (a.st == GROUNDING_RUNNING)
        a.st = game_grounding_take(a.gg, now < load_end ? (load_end - now) / 1000000ull : 0, &a.pn, a.reason,
                                   sizeof a.reason);
    if (a.st == GROUNDING_RUNNING)
        snprintf(a.reason, sizeof a.reason, "grounding takes longer than the load budget of %llu ms",
                 (unsigned long long)opts->load_ms);
    uint64_t end_ns = clock_now_ns();
    game_grounding_free(a.gg);
    if (a.pn) {
        game_free(rules);
        *load_ms = (double)(end_ns - t0) / 1e6;
        return a.pn;
    }
    if (!rules) {
        fprintf(stderr, "ggp bench: %s: the game does not compile with engine auto\n", file);
        gdl_loaded_free(l);
        *rc = EXIT_FAIL;
        return NULL;
    }
    if (!opts->quiet) fprintf(stderr, "ggp: note: falling back to the rules engine: %s\n", a.reason);
    *load_ms = (double)(rules_ns - t0) / 1e6;
    return rules;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

int cmd_bench(int argc, char **argv)
{
    game_options_t opts = {.engine = ENGINE_AUTO};
    uint64_t threads = 1, seed = 1;
    double seconds = 5;
    bool lanes = false;
    const cli_opt_t own[] = {CLI_OPT_DOUBLE("--seconds", &seconds, 0.01, 86400),
                             CLI_OPT_U64("--threads", &threads, 1, 256), CLI_OPT_U64("--seed", &seed, 0, UINT64_MAX),
                             CLI_OPT_FLAG("--lanes", NULL, &lanes)};
    cli_list_t files = {0};
    int rc;
    if (!cli_args_parse("bench", bench_help, argc, argv, own, 4, &opts, &files, &rc)) return rc;
    const char *file = files.n ? files.v[0] : NULL;
    size_t n_files = files.n;
    cli_list_free(&files);
    if (n_files != 1) {
        fprintf(stderr, "ggp bench: expected one rule file\n%s", bench_help);
        return EXIT_USAGE;
    }
    uint64_t t0 = clock_now_ns(), first_ns = 0;
    /* --seconds bounds the whole run: loading gets it all unless --load-ms
     * says otherwise, the measurement what is left (a tenth at least). */
    if (!opts.load_ms) opts.load_ms = (uint64_t)(seconds * 1000) ? (uint64_t)(seconds * 1000) : 1;
    gdl_loaded_t l;
    double load_ms = 0;
    bool native = native_game_named(file);
    game_t *g = opts.engine == ENGINE_AUTO && !native ? open_auto(file, &opts, &l, t0, seed, &first_ns, &load_ms, &rc)
                                           : cli_game_open("bench", file, &opts, &l, &rc);
    if (!g) return rc;
    if (opts.engine != ENGINE_AUTO || native) load_ms = (double)(clock_now_ns() - t0) / 1e6;
    game_stats_t st;
    game_get_stats(g, &st);

    worker_t *w = xcalloc(threads, sizeof *w);
    uint64_t run_ns = (uint64_t)(seconds * 1e9), spent_ns = clock_now_ns() - t0;
    run_ns = spent_ns + run_ns / 10 < run_ns ? run_ns - spent_ns : run_ns / 10;
    for (uint64_t i = 0; i < threads; i++) {
        w[i] = (worker_t){
            .g = g, .seed = rng_derive(seed, i), .warm_ns = run_ns / 10, .run_ns = run_ns, .t0_ns = t0, .lanes = lanes};
        pthread_create(&w[i].thread, NULL, work, &w[i]);
    }
    uint64_t playouts = 0, plies = 0, capped = 0, stuck = 0, cpu_ns = 0;
    bool side_by_side = lanes;
    for (uint64_t i = 0; i < threads; i++) {
        pthread_join(w[i].thread, NULL);
        side_by_side = side_by_side && w[i].lanes;
        playouts += w[i].playouts;
        plies += w[i].plies;
        capped += w[i].capped;
        stuck += w[i].stuck;
        cpu_ns += w[i].cpu_ns;
        if (w[i].first_ns && (!first_ns || w[i].first_ns < first_ns)) first_ns = w[i].first_ns;
    }
    free(w);
    if (lanes && !side_by_side && !opts.quiet)
        fprintf(stderr, "ggp bench: note: the %s engine plays its playouts one by one (--lanes: the propnet's)\n", st.engine);
    if (stuck) fprintf(stderr, "ggp bench: note: a playout met a state where a role has no legal move (a defect of the rules)\n");
    if (capped) fprintf(stderr, "ggp bench: note: %llu playout%s cut at %d plies\n", (unsigned long long)capped,
                        capped == 1 ? " was" : "s were", BENCH_MAX_PLIES);
    const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    int name_len = (int)strlen(name);
    if (name_len > 4 && !strcmp(name + name_len - 4, ".kif")) name_len -= 4;
    printf("bench game=%.*s engine=%s load_ms=%.1f playouts=%llu playouts_per_sec=%.0f playouts_per_cpu_sec=%.0f "
           "mean_depth=%.1f props=%zu gates=%zu rss_kb=%ld first_playout_ms=%.1f ground_tries=%u lanes=%d\n",
           name_len, name, st.engine, load_ms, (unsigned long long)playouts, (double)playouts / seconds,
           cpu_ns ? (double)playouts / ((double)cpu_ns / 1e9) : 0.0, playouts ? (double)plies / (double)playouts : 0.0,
           st.props, st.gates, rss_kb(), (double)first_ns / 1e6, st.ground_tries, side_by_side ? GAME_PLAYOUT_LANES : 1);
    game_free(g);
    gdl_loaded_free(&l);
    return stuck && !playouts ? EXIT_FAIL : EXIT_OK;
}
