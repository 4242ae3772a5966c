/* cmd_tournament.c - `ggp tournament`: searcher A against searcher B over
 * many local games, seats rotating, with the score and its Agresti-Coull
 * interval (grave-spec §11.1), optional parallel games, CSV, and a sweep of
 * one key of A's spec drawn as an SVG plot (like [S] Figure 3).
 *
 * Game k uses seed rng_derive(S, k) and puts A in seat k mod n (B in every
 * other seat), so any game can be replayed alone with `ggp play`.
 *
 * The per-game CSV (tourn_rec.h) gets one row per game as soon as the game
 * ends (flushed and synced), so a killed run keeps every finished game,
 * and --resume plays only the games missing from it: the same game numbers
 * with the same seeds, hence the same result as an uninterrupted run.
 * --shard I/N plays only the games k with k mod N = I (of every point of
 * a sweep), with the seeds they have in the whole run; `ggp results merge`
 * combines the shards' CSVs into the outputs of the unsharded run. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/local_game.h"
#include "player/cli/outfile.h"
#include "player/cli/progress.h"
#include "player/cli/tourn_play.h"
#include "player/cli/tourn_rec.h"
#include "player/cli/tourn_report.h"

static const char tournament_help[] =
    "usage: ggp tournament FILE.kif --a SPEC --b SPEC --games N [--jobs J] [--seed S]\n"
    "                      [--csv FILE [--resume]] [--shard I/N] [--sweep KEY=V1,V2,...]\n"
    "                      [--plot FILE.svg] [--verbose] [--quiet] [--progress-every SEC]\n"
    "                      [--max-steps N] [--engine auto|propnet|rules] [--load-ms MS]\n"
    "                      [--memory MB]\n"
    "\n"
    "Play N games of searcher A against searcher B (specs as in 'ggp players').\n"
    "Game k (from 0) has seed rng_derive(S, k); A takes seat k mod n of the n roles\n"
    "and B every other seat. A wins a game if its goal is strictly greater than\n"
    "every B seat's, draws if equal to the best of them, and loses otherwise; the\n"
    "score is (wins + draws/2) / games with an Agresti-Coull 95% interval. The last\n"
    "line is 'result games=N wins=W draws=D losses=L score=S ci_low=.. ci_high=..'.\n"
    "\n"
    "  --a SPEC, --b SPEC   the two searchers\n"
    "  --games N            number of games (of each point of a sweep)\n"
    "  --jobs J             games played in parallel (threads; default 1)\n"
    "  --seed S             base seed (default 1)\n"
    "  --csv FILE           one row per game, written as each game ends (with --sweep\n"
    "                       and no --shard: one row per point, written at the end);\n"
    "                       removed or replaced meanwhile (a checkout), it is written\n"
    "                       again with every game so far, unless another run holds\n"
    "                       the new file\n"
    "  --resume             keep the games already in the per-game CSV (of a killed run\n"
    "                       with the same FILE, --a, --b, --seed, --shard, --max-steps\n"
    "                       and engine) and play only the others; a CSV another run\n"
    "                       holds is refused (one run per CSV)\n"
    "  --shard I/N          play only the games k with k mod N = I (0 <= I < N), with\n"
    "                       the seeds they have in the whole run; needs --csv (per game,\n"
    "                       also with --sweep). 'ggp results merge' combines the shards\n"
    "  --sweep KEY=V1,...   repeat the tournament with KEY=V of A's spec for each V\n"
    "  --plot FILE.svg      with --sweep: score and interval against the swept value\n"
    "  --max-steps N        a game not ended after N joint moves fails (default 100000;\n"
    "                       recorded in the per-game CSV)\n"
    "  --verbose            list every game with the command that replays it\n"
    "  --quiet              no progress\n"
    "  --progress-every SEC when stderr is not a terminal, a progress line (games done,\n"
    "                       elapsed, estimated time left) every SEC seconds (default 30);\n"
    "                       on a terminal a progress bar\n"
    "  --engine E           reasoner: auto (default), propnet or rules\n"
    "  --load-ms MS         load budget: past it the load fails naming the\n"
    "                       relation it was computing (default: none)\n"
    "  --memory MB          memory budget of loading (default 2048)\n"
    "\n"
    "exit status: 0 done, 1 invalid rules or games that could not end, 2 usage or I/O error\n";

static void put_quoted(const char *s, FILE *out)
{
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", out);
        else fputc(*s, out);
    }
    fputc('\'', out);
}

/* The finished games of point p, each with the command that replays it. */
static void print_games(const trec_t *r, size_t p, const char *file, FILE *out)
{
    static const char *names[] = {"loss", "draw", "win", "failed"};
    for (uint32_t k = 0; k < r->m.games; k++) {
        const trec_game_t *g = &r->games[p * r->m.games + k];
        if (!g->done) continue;
        fprintf(out, "game %u: seed=%" PRIu64 " A=%s goals", k, g->seed, r->role[g->a_seat]);
        for (uint32_t s = 0; s < r->m.n_roles; s++) fprintf(out, " %s=%d", r->role[s], g->goals[s]);
        fprintf(out, " %s", names[g->outcome + 1]);
        if (g->outcome == TREC_FAILED) fprintf(out, " (%s)", g->error);
        fputs("\n  replay: ggp play ", out);
        put_quoted(file, out);
        for (uint32_t s = 0; s < r->m.n_roles; s++) {
            fputs(" --player ", out);
            put_quoted(s == g->a_seat ? r->a_texts[p] : r->b_texts[p], out);
        }
        fprintf(out, " --seed %" PRIu64, g->seed);
        if (r->m.max_steps && r->m.max_steps != LOCAL_MAX_STEPS) fprintf(out, " --max-steps %u", r->m.max_steps);
        /* the engine that played: another one plays other games from the seed */
        if (r->m.engine && (!strcmp(r->m.engine, "propnet") || !strcmp(r->m.engine, "rules")))
            fprintf(out, " --engine %s", r->m.engine);
        fputs(" --verbose\n", out);
    }
}

typedef struct opts {
    const char *file, *csv, *plot;
    trec_meta_t m;
    uint64_t jobs, every;
    bool verbose, quiet, resume, sharded;
    engine_kind_t engine;
    game_options_t load; /* --load-ms, --memory */
} opts_t;

/* The options into *o; false with *rc to return. */
static bool parse_opts(int argc, char **argv, opts_t *o, int *rc)
{
    uint64_t games = 0, max_steps = LOCAL_MAX_STEPS;
    const char *a = o->m.a, *b = o->m.b, *sweep = o->m.sweep;
    tplay_shard_t sh = {0};
    const cli_opt_t opts[] = {
        CLI_OPT_FLAG("--verbose", "-v", &o->verbose),
        CLI_OPT_FLAG("--quiet", "-q", &o->quiet),
        CLI_OPT_FLAG("--resume", NULL, &o->resume),
        CLI_OPT_STR("--a", &a),
        CLI_OPT_STR("--b", &b),
        CLI_OPT_U64("--games", &games, 1, 1000000),
        CLI_OPT_U64("--max-steps", &max_steps, 1, 100000000),
        CLI_OPT_U64("--jobs", &o->jobs, 1, 256),
        CLI_OPT_U64("--seed", &o->m.seed, 0, UINT64_MAX),
        CLI_OPT_FN("--shard", tplay_shard_opt, &sh),
        CLI_OPT_U64("--progress-every", &o->every, 0, 86400),
        CLI_OPT_STR("--csv", &o->csv),
        CLI_OPT_STR("--plot", &o->plot),
        CLI_OPT_STR("--sweep", &sweep),
        CLI_OPT_ENGINE(&o->engine),
        CLI_OPT_BUDGETS(&o->load),
    };
    if (!cli_opts_parse_file("tournament", tournament_help, opts, sizeof opts / sizeof opts[0], argc, argv, &o->file,
                             rc))
        return false;
    /* The record's metadata holds char * (a record read back owns its
     * strings); these are argv's, which are char * too. */
    o->m.a = (char *)a, o->m.b = (char *)b, o->m.sweep = (char *)sweep;
    *rc = EXIT_USAGE;
    o->sharded = sh.shards != 0;
    if (o->sharded) o->m.shard = sh.shard, o->m.shards = sh.shards;
    o->m.games = (uint32_t)games;
    o->m.max_steps = (uint32_t)max_steps;
    const char *bad = NULL;
    if (!o->file || !o->m.a || !o->m.b || !games) bad = "FILE, --a, --b and --games are required";
    else if (o->plot && !*o->m.sweep) bad = "--plot needs --sweep (the plot is score against the swept value)";
    else if (o->plot && o->sharded) bad = "--plot with --shard: plot the merged shards ('ggp results merge --plot')";
    else if (o->sharded && !o->csv)
        bad = "--shard needs --csv (the shard's games go to its CSV; 'ggp results merge' combines them)";
    else if (o->resume && (!o->csv || (*o->m.sweep && !o->sharded)))
        bad = "--resume needs --csv and no --sweep, or --shard (it continues a per-game CSV)";
    if (bad) {
        fprintf(stderr, "ggp tournament: %s\n", bad);
        if (!o->file || !o->m.a || !o->m.b || !games) fputs(tournament_help, stderr);
        return false;
    }
    return true;
}

/* Play, report and write the outputs; the exit status. */
static int run(tplay_t *t, const opts_t *o, out_file_t *points_csv, out_file_t *plot)
{
    trec_t *r = t->rec;
    if (!tplay_run(t, (uint32_t)o->jobs)) return EXIT_USAGE; /* a row was not written: reported */
    int rc = EXIT_OK;
    trep_point_t *pts = xcalloc(r->n_pts, sizeof *pts);
    for (size_t p = 0; p < r->n_pts; p++) {
        trep_summarize(r, p, &r->m, &pts[p]);
        if (o->verbose) print_games(r, p, o->file, stdout);
        trep_print_result(r, p, &pts[p], stdout);
        if (pts[p].failed) rc = EXIT_FAIL;
    }
    /* Failed games say why, --verbose or not: the first one's reason. */
    for (size_t i = 0; rc == EXIT_FAIL && !o->verbose && i < r->n_pts * r->m.games; i++) {
        const trec_game_t *g = &r->games[i];
        if (!g->done || g->outcome != TREC_FAILED) continue;
        uint32_t failed = 0;
        for (size_t p = 0; p < r->n_pts; p++) failed += pts[p].failed;
        fprintf(stderr, "ggp tournament: %u game%s failed, the first (game %zu) with: %s (--verbose lists them)\n",
                failed, failed == 1 ? "" : "s", i % r->m.games, g->error);
        break;
    }
    if (!trep_write_points(r, pts, points_csv, plot)) rc = EXIT_USAGE;
    if (tplay_csv_lost(t, o->csv)) rc = EXIT_USAGE;
    free(pts);
    return rc;
}

int cmd_tournament(int argc, char **argv)
{
    opts_t o = {.jobs = 1, .every = 30, .engine = ENGINE_AUTO, .m = {.seed = 1, .shards = 1, .sweep = ""}};
    int rc;
    if (!parse_opts(argc, argv, &o, &rc)) return rc;
    rc = EXIT_OK;
    gdl_loaded_t l;
    o.load.engine = o.engine;
    game_t *g = local_load_game("tournament", o.file, &o.load, &l, &rc);
    if (!g) return rc;
    trec_t rec = {0};
    char err[512];
    if (game_num_roles(g) < 2) {
        fprintf(stderr, "ggp tournament: %s has %u role; a tournament needs at least 2\n", o.file, game_num_roles(g));
        rc = EXIT_USAGE;
    } else if (game_num_roles(g) > TREC_MAX_ROLES) {
        fprintf(stderr, "ggp tournament: %s has more than %d roles\n", o.file, TREC_MAX_ROLES);
        rc = EXIT_USAGE;
    } else {
        tplay_meta_of(&o.m, g, &l, o.file);
        if (!trec_init(&rec, &o.m, err, sizeof err)) {
            fprintf(stderr, "ggp tournament: %s\n", err);
            rc = EXIT_USAGE;
        }
        free(o.m.roles);
    }
    search_spec_t **a_specs = xcalloc(rec.n_pts ? rec.n_pts : 1, sizeof *a_specs);
    const search_spec_t **b_specs = xcalloc(rec.n_pts ? rec.n_pts : 1, sizeof *b_specs);
    search_spec_t *b_spec = NULL;
    for (size_t p = 0; rc == EXIT_OK && p < rec.n_pts; p++)
        if (!(a_specs[p] = search_spec_parse(rec.a_texts[p], err, sizeof err))) {
            fprintf(stderr, "ggp tournament: --a '%s': %s\n", rec.a_texts[p], err);
            rc = EXIT_USAGE;
        }
    if (rc == EXIT_OK && !(b_spec = search_spec_parse(o.m.b, err, sizeof err))) {
        fprintf(stderr, "ggp tournament: --b '%s': %s\n", o.m.b, err);
        rc = EXIT_USAGE;
    }
    for (size_t p = 0; p < rec.n_pts; p++) b_specs[p] = b_spec;
    tplay_t t = {.g = g, .rec = &rec, .a_specs = (const search_spec_t *const *)a_specs, .b_specs = b_specs,
                 .cmd = "tournament", .csv_path = o.csv};
    t.pr = (progress_t){.on = !o.quiet,
                        .tty = isatty(STDERR_FILENO) == 1,
                        .wdl = true,
                        .every_ns = o.every * 1000000000ull};
    char label[64] = "";
    if (o.sharded) snprintf(label, sizeof label, "shard %u/%u: ", rec.m.shard, rec.m.shards);
    t.pr.label = label;
    /* Output files are opened before the first game, so that a path that
     * cannot be written fails at once rather than after hours of play. */
    out_file_t points_csv = {0}, plot = {0};
    bool per_game = o.csv && (!*o.m.sweep || o.sharded);
    if (rc == EXIT_OK) {
        if (per_game && !(t.csv = o.resume ? trec_csv_resume(&rec, "tournament", o.csv)
                                           : trec_csv_start(&rec, "tournament", o.csv)))
            rc = EXIT_USAGE;
        else if (o.csv && !per_game && !out_file_open(&points_csv, "tournament", o.csv)) rc = EXIT_USAGE;
        else if (o.plot && !out_file_open(&plot, "tournament", o.plot)) rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK) {
        tplay_plan(&t);
        if (o.resume && !o.quiet && t.pr.done)
            fprintf(stderr, "ggp tournament: resuming %s: %u of %u games done\n", o.csv, t.pr.done, t.pr.total);
        FILE *csv = t.csv;
        rc = run(&t, &o, &points_csv, &plot);
        if (csv && atomic_load(&t.stop)) fclose(csv); /* its error is reported */
        else if (csv && !out_stream_check(csv, "tournament", o.csv, true)) rc = EXIT_USAGE;
        t.csv = NULL;
    }
    if (t.csv) fclose(t.csv);
    out_file_discard(&points_csv);
    out_file_discard(&plot);
    tplay_fini(&t);
    free(b_specs);
    for (size_t p = 0; p < rec.n_pts; p++) search_spec_free(a_specs[p]);
    free(a_specs);
    search_spec_free(b_spec);
    trec_free(&rec);
    game_free(g);
    gdl_loaded_free(&l);
    return rc;
}
