/* common.c - helpers shared by the subcommands (see common.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "player/cli/common.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <string.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "games/registry.h"

bool load_rules(const char *path, diag_t *d, gdl_loaded_t *l)
{
    const char *err = NULL;
    if (gdl_load_file(path, d, l, &err)) return true;
    fprintf(stderr, "ggp: cannot read %s: %s\n", path, err);
    return false;
}

/* ---------------------------------------------------------------------- */

bool cli_engine_parse(const char *cmd, const char *s, engine_kind_t *out)
{
    if (!game_engine_parse(s, out)) {
        fprintf(stderr, "ggp %s: bad value for --engine: '%s' (expected propnet, rules or auto)\n", cmd, s);
        return false;
    }
    return true;
}

bool cli_budget_parse(const char *cmd, const char *opt, const char *val, game_options_t *opts)
{
    uint64_t v = 0;
    bool mem = !strcmp(opt, "--memory");
    if (!parse_u64(cmd, opt, val, 1, mem ? 1u << 20 : UINT32_MAX, &v)) return false;
    if (mem) opts->ground_mb = opts->static_mb = (size_t)v;
    else opts->load_ms = v;
    return true;
}

bool cli_engine_opt(const char *cmd, const char *opt, const char *val, void *out)
{
    (void)opt; /* always --engine */
    return cli_engine_parse(cmd, val, out);
}

bool cli_budget_opt(const char *cmd, const char *opt, const char *val, void *out)
{
    return cli_budget_parse(cmd, opt, val, out);
}

bool cli_args_parse(const char *cmd, const char *help, int argc, char **argv, const cli_opt_t *extra, size_t n_extra,
                    game_options_t *opts, cli_list_t *files, int *rc)
{
    const cli_opt_t common[] = {
        CLI_OPT_FLAG("--quiet", "-q", &opts->quiet),
        CLI_OPT_ENGINE(&opts->engine),
        CLI_OPT_U64("--ground-ms", &opts->ground_ms, 1, UINT32_MAX),
        CLI_OPT_U64("--eliminate-after", &opts->eliminate_after, 1, UINT32_MAX),
        CLI_OPT_BUDGETS(opts),
    };
    size_t n_common = sizeof common / sizeof common[0];
    cli_opt_t *all = xcalloc(n_common + n_extra, sizeof *all);
    memcpy(all, common, sizeof common);
    if (n_extra) memcpy(all + n_common, extra, n_extra * sizeof *extra);
    bool ok = cli_opts_parse(cmd, help, all, n_common + n_extra, argc, argv, files, rc);
    free(all);
    return ok;
}

bool cli_opts_parse_file(const char *cmd, const char *help, const cli_opt_t *opts, size_t n_opts, int argc,
                         char **argv, const char **file, int *rc)
{
    cli_list_t args = {0};
    *file = NULL;
    if (!cli_opts_parse(cmd, help, opts, n_opts, argc, argv, &args, rc)) return false;
    if (args.n > 1) {
        fprintf(stderr, "ggp %s: more than one rule file ('%s', '%s')\n", cmd, args.v[0], args.v[1]);
        *rc = EXIT_USAGE;
    } else if (args.n == 1) {
        *file = args.v[0];
    }
    cli_list_free(&args);
    return *rc == EXIT_OK;
}

bool cli_rules_open(const char *cmd, const char *path, gdl_loaded_t *l, int *rc)
{
    diag_t d;
    diag_init(&d, stderr);
    d.max_errors = 20;
    if (!load_rules(path, &d, l)) {
        *rc = EXIT_USAGE;
        return false;
    }
    if (l->errors) {
        fprintf(stderr, "ggp %s: %s: invalid rules (%u error%s)\n", cmd, path, l->errors, l->errors == 1 ? "" : "s");
        gdl_loaded_free(l);
        *rc = EXIT_FAIL;
        return false;
    }
    return true;
}

/* A compile that takes longer than LOAD_NOTICE_MS says so on stderr, once
 * then every LOAD_NOTICE_EVERY_MS, each a whole line (no '\r': stderr may
 * be a log), and when it ends. */
#define LOAD_NOTICE_MS 2000
#define LOAD_NOTICE_EVERY_MS 10000

typedef struct load_watch {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done, said;
    const char *cmd, *path, *what;
    uint64_t t0;
    game_progress_t progress; /* what the compile says it is doing */
} load_watch_t;

static void *load_watch_main(void *arg)
{
    load_watch_t *w = arg;
    pthread_mutex_lock(&w->mu);
    uint64_t wait_ms = LOAD_NOTICE_MS;
    while (!w->done) {
        uint64_t at = w->t0 + wait_ms * 1000000ull;
        struct timespec ts = {(time_t)(at / 1000000000ull), (long)(at % 1000000000ull)};
        if (pthread_cond_timedwait(&w->cv, &w->mu, &ts) == ETIMEDOUT && !w->done) {
            const char *stage = atomic_load(&w->progress.stage), *rel = atomic_load(&w->progress.rel);
            char rel_at[200] = "";
            if (rel) snprintf(rel_at, sizeof rel_at, ", relation '%s/%u'", rel, atomic_load(&w->progress.arity));
            fprintf(stderr, "ggp %s: loading %s: %s%s (%.1f s)\n", w->cmd, w->path, stage ? stage : w->what, rel_at,
                    (double)(clock_now_ns() - w->t0) / 1e9);
            fflush(stderr);
            w->said = true;
            wait_ms += LOAD_NOTICE_EVERY_MS;
        }
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* A native game (games/registry.h) in place of a rule file: l holds only
 * the name as its source text (what a record hashes as "the rules"). */
static game_t *native_open(const char *cmd, const char *spec, gdl_loaded_t *l, int *rc)
{
    *l = (gdl_loaded_t){0};
    char err[300];
    game_t *g = native_game_open(spec, err, sizeof err);
    if (!g) {
        fprintf(stderr, "ggp %s: %s\n", cmd, err);
        *rc = EXIT_USAGE;
        return NULL;
    }
    l->src = src_new(spec, spec, strlen(spec));
    return g;
}

game_t *cli_game_open(const char *cmd, const char *path, const game_options_t *opts, gdl_loaded_t *l, int *rc)
{
    if (native_game_named(path)) return native_open(cmd, path, l, rc);
    static const char *doing[] = {"grounding the rules (the rules engine takes over past the grounding budget)",
                                  "grounding the rules into a propositional network",
                                  "computing the static relations of the rules"};
    if (!cli_rules_open(cmd, path, l, rc)) return NULL;
    diag_t d;
    diag_init(&d, stderr);
    d.max_errors = 20;
    load_watch_t w = {.cmd = cmd, .path = path, .what = doing[opts->engine], .t0 = clock_now_ns()};
    game_options_t o = *opts;
    o.progress = &w.progress;
    pthread_mutex_init(&w.mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w.cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_t th;
    bool watching = pthread_create(&th, NULL, load_watch_main, &w) == 0;
    game_t *g = game_compile(l->prog, &o, &d);
    if (watching) {
        pthread_mutex_lock(&w.mu);
        w.done = true;
        pthread_cond_signal(&w.cv);
        pthread_mutex_unlock(&w.mu);
        pthread_join(th, NULL);
    }
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    if (w.said) {
        game_stats_t st;
        if (g) game_get_stats(g, &st);
        fprintf(stderr, "ggp %s: loading %s: %s after %.1f s%s%s\n", cmd, path, g ? "done" : "failed",
                (double)(clock_now_ns() - w.t0) / 1e9, g ? ", engine " : "", g ? st.engine : "");
    }
    if (!g) {
        fprintf(stderr, "ggp %s: %s: the game does not compile with engine %s\n", cmd, path,
                game_engine_name(opts->engine));
        gdl_loaded_free(l);
        *rc = EXIT_FAIL;
    }
    return g;
}

/* ---- cores ------------------------------------------------------------ */

uint32_t cpu_quota_cores(const char *text)
{
    char q[32];
    unsigned long long period;
    if (!text || sscanf(text, "%31s %llu", q, &period) != 2 || period == 0 || strcmp(q, "max") == 0) return 0;
    char *end;
    errno = 0;
    long long quota = strtoll(q, &end, 10);
    if (errno || *end || quota <= 0) return 0; /* v1 writes -1 for "no quota" */
    unsigned long long cores = (unsigned long long)quota / period;
    return cores < 1 ? 1 : cores > UINT32_MAX ? UINT32_MAX : (uint32_t)cores;
}

static bool read_small(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = 0;
    return n > 0;
}

/* The quota of this process's cgroup (v2: /proc/self/cgroup's "0::PATH",
 * then the namespace root a container sees; v1: cfs quota and period). */
static uint32_t cgroup_quota_cores(void)
{
    char buf[4096], path[4224]; /* hybrid hierarchies list a line per v1 controller */
    if (read_small("/proc/self/cgroup", buf, sizeof buf)) {
        char *p = buf;
        while (p && strncmp(p, "0::", 3)) /* the v2 line, at a line's start */
            if ((p = strchr(p, '\n'))) p++;
        if (p) {
            p += 3;
            p[strcspn(p, "\n")] = 0;
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", strcmp(p, "/") ? p : "");
            if (read_small(path, buf, sizeof buf)) return cpu_quota_cores(buf);
        }
    }
    if (read_small("/sys/fs/cgroup/cpu.max", buf, sizeof buf)) return cpu_quota_cores(buf);
    char quota[64], period[64];
    if (read_small("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", quota, sizeof quota) &&
        read_small("/sys/fs/cgroup/cpu/cpu.cfs_period_us", period, sizeof period)) {
        quota[strcspn(quota, "\n")] = 0;
        snprintf(buf, sizeof buf, "%s %s", quota, period);
        return cpu_quota_cores(buf);
    }
    return 0;
}

uint32_t cpu_usable_cores(void)
{
    cpu_set_t set;
    long cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t n = cores > 0 ? (uint32_t)cores : 1, quota = cgroup_quota_cores();
    return quota && quota < n ? quota : n;
}
