/* cmd_roundrobin.c - `ggp roundrobin`: every pair of the given searchers
 * plays G games, seats swapped each game, and a table of each method's
 * score over all its games with its Agresti-Coull interval and its mean
 * time per game (the columns of [M]'s Tables 1-2, grave-spec §14.1).
 *
 * Pairs (i, j), i < j, are numbered in order; game g of pair p is game
 * p*G + g of the run, with seed rng_derive(S, p*G + g); player i takes seat
 * g mod n of the n roles and j every other seat, so any game replays alone
 * with `ggp play`. The per-game CSV (tourn_rec.h, the tournament's) is
 * appended and synced as each game ends, and --resume plays only the games
 * missing from it. --shard I/N plays only the games k with k mod N = I, with
 * the seeds they have in the whole run; `ggp results merge` combines the
 * shards' CSVs into the table of the unsharded run. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/local_game.h"
#include "player/cli/outfile.h"
#include "player/cli/tourn_play.h"
#include "player/cli/tourn_rec.h"
#include "player/cli/tourn_report.h"

static const char roundrobin_help[] =
    "usage: ggp roundrobin FILE.kif --player SPEC --player SPEC [--player SPEC ...]\n"
    "                      --games-per-pair G [--jobs J] [--seed S] [--csv FILE [--resume]]\n"
    "                      [--shard I/N] [--plot FILE.svg] [--max-steps N] [--quiet]\n"
    "                      [--engine auto|propnet|rules] [--load-ms MS] [--memory MB]\n"
    "\n"
    "Every pair of the searchers plays G games (specs as in 'ggp players'), seats\n"
    "swapped each game. A method scores 1 for a win (a goal above every other\n"
    "seat's), 1/2 for a draw; the table gives each method's score over all its\n"
    "games with an Agresti-Coull 95% interval and its mean search time per game,\n"
    "then the score of each row against each column, and a line per method:\n"
    "'result method=J games=N score=S ci_low=.. ci_high=.. seconds_per_game=T'.\n"
    "Pairs (i, j), i < j, are in order; game g of pair p is game k = p*G + g of\n"
    "the run, with seed rng_derive(S, k); player i takes seat g mod n of the n\n"
    "roles and j every other seat.\n"
    "\n"
    "  --player SPEC          a method (at least two)\n"
    "  --games-per-pair G     games of each pair\n"
    "  --jobs J               games played in parallel (threads; default 1)\n"
    "  --seed S               base seed (default 1)\n"
    "  --csv FILE             one row per game, written as each game ends; its first\n"
    "                         line records the run (players, G, seed, shard, step\n"
    "                         limit); removed or replaced meanwhile (a checkout),\n"
    "                         it is written again with every game so far, unless\n"
    "                         another run holds the new file\n"
    "  --resume               keep the games already in the CSV (of a killed run with\n"
    "                         the same FILE, players, G, --seed, --shard,\n"
    "                         --max-steps and engine) and play only the others;\n"
    "                         a CSV another run holds is refused\n"
    "  --shard I/N            play only the games k with k mod N = I (0 <= I < N),\n"
    "                         with the seeds they have in the whole run; needs\n"
    "                         --csv. 'ggp results merge' combines the shards into\n"
    "                         the table of the unsharded run\n"
    "  --plot FILE.svg        each method's score and interval as bars\n"
    "  --max-steps N          a game not ended after N joint moves fails (default\n"
    "                         100000; recorded in the per-game CSV)\n"
    "  --quiet                no progress bar\n"
    "  --engine E             reasoner: auto (default), propnet or rules\n"
    "  --load-ms MS           load budget: past it the load fails naming the\n"
    "                         relation it was computing (default: none)\n"
    "  --memory MB            memory budget of loading (default 2048)\n"
    "\n"
    "exit status: 0 done, 1 invalid rules or games that could not end, 2 usage or I/O error\n";

typedef struct opts {
    const char *file, *csv, *plot;
    const char **texts; /* the players' specs */
    uint32_t n;
    uint64_t per_pair, jobs, seed, max_steps;
    uint32_t shard, shards;
    bool quiet, resume, sharded;
    game_options_t load;
} opts_t;

/* The options into *o; false with *rc to return (o->texts to free). */
static bool parse_opts(int argc, char **argv, opts_t *o, int *rc)
{
    cli_list_t players = {0};
    tplay_shard_t sh = {0};
    const cli_opt_t opts[] = {
        CLI_OPT_FLAG("--quiet", "-q", &o->quiet),
        CLI_OPT_FLAG("--resume", NULL, &o->resume),
        CLI_OPT_LIST("--player", &players),
        CLI_OPT_U64("--games-per-pair", &o->per_pair, 1, TREC_MAX_GAMES),
        CLI_OPT_U64("--jobs", &o->jobs, 1, 256),
        CLI_OPT_U64("--seed", &o->seed, 0, UINT64_MAX),
        CLI_OPT_U64("--max-steps", &o->max_steps, 1, 100000000),
        CLI_OPT_FN("--shard", tplay_shard_opt, &sh),
        CLI_OPT_STR("--csv", &o->csv),
        CLI_OPT_STR("--plot", &o->plot),
        CLI_OPT_ENGINE(&o->load.engine),
        CLI_OPT_BUDGETS(&o->load),
    };
    bool parsed =
        cli_opts_parse_file("roundrobin", roundrobin_help, opts, sizeof opts / sizeof opts[0], argc, argv, &o->file, rc);
    o->texts = players.v;
    o->n = (uint32_t)players.n;
    if (!parsed) return false;
    *rc = EXIT_USAGE;
    o->sharded = sh.shards != 0;
    if (o->sharded) o->shard = sh.shard, o->shards = sh.shards;
    const char *bad = NULL;
    uint64_t total = o->per_pair * ((uint64_t)o->n * (o->n ? o->n - 1 : 0) / 2);
    if (!o->file || o->n < 2 || !o->per_pair) bad = "FILE, two --player or more and --games-per-pair are required";
    else if (o->n > TREC_MAX_PLAYERS) bad = "more than 256 players";
    else if (total > TREC_MAX_GAMES) bad = "more than 1000000 games";
    else if (o->sharded && !o->csv)
        bad = "--shard needs --csv (the shard's games go to its CSV; 'ggp results merge' combines them)";
    else if (o->plot && o->sharded) bad = "--plot with --shard: plot the merged shards ('ggp results merge --plot')";
    else if (o->resume && !o->csv) bad = "--resume needs --csv (it continues a per-game CSV)";
    if (bad) {
        fprintf(stderr, "ggp roundrobin: %s\n", bad);
        if (!o->file || o->n < 2 || !o->per_pair) fputs(roundrobin_help, stderr);
        return false;
    }
    return true;
}

/* The specs, checked against the game; false (message printed) if one is
 * bad or does not suit it. */
static bool parse_specs(const opts_t *o, const game_t *g, search_spec_t **specs)
{
    for (uint32_t i = 0; i < o->n; i++) {
        char err[512];
        if (!(specs[i] = search_spec_parse(o->texts[i], err, sizeof err))) {
            fprintf(stderr, "ggp roundrobin: --player '%s': %s\n", o->texts[i], err);
            return false;
        }
    }
    if (game_num_roles(g) < 2 || game_num_roles(g) > TREC_MAX_ROLES) {
        fprintf(stderr, "ggp roundrobin: %s has %u roles; a round robin needs 2 to %d\n", o->file, game_num_roles(g),
                TREC_MAX_ROLES);
        return false;
    }
    for (uint32_t i = 0; i < o->n; i++) {
        char why[160];
        if (!search_spec_check_game(specs[i], g, why, sizeof why)) {
            fprintf(stderr, "ggp roundrobin: --player '%s': %s\n", o->texts[i], why);
            return false;
        }
    }
    return true;
}

/* Play the record's games and report them; the exit status. */
static int play_and_report(const opts_t *o, const game_t *g, trec_t *rec, search_spec_t **specs)
{
    const search_spec_t **a_specs = xcalloc(rec->n_pts, sizeof *a_specs);
    const search_spec_t **b_specs = xcalloc(rec->n_pts, sizeof *b_specs);
    for (size_t p = 0; p < rec->n_pts; p++) {
        a_specs[p] = specs[rec->pair[2 * p]];
        b_specs[p] = specs[rec->pair[2 * p + 1]];
    }
    char label[64] = "";
    if (o->sharded) snprintf(label, sizeof label, "shard %u/%u: ", o->shard, o->shards);
    tplay_t t = {.g = g, .rec = rec, .a_specs = a_specs, .b_specs = b_specs, .cmd = "roundrobin",
                 .csv_path = o->csv};
    t.pr = (progress_t){.on = !o->quiet, .tty = isatty(STDERR_FILENO) == 1, .every_ns = 30000000000ull,
                        .label = label};
    int rc = EXIT_OK;
    out_file_t plot = {0};
    /* Output files are opened before the first game, so that a path that
     * cannot be written fails at once rather than after hours of play. */
    if (o->csv && !(t.csv = o->resume ? trec_csv_resume(rec, "roundrobin", o->csv)
                                      : trec_csv_start(rec, "roundrobin", o->csv)))
        rc = EXIT_USAGE;
    else if (o->plot && !out_file_open(&plot, "roundrobin", o->plot)) rc = EXIT_USAGE;
    if (rc == EXIT_OK) {
        tplay_plan(&t);
        if (o->resume && !o->quiet && t.pr.done)
            fprintf(stderr, "ggp roundrobin: resuming %s: %u of %u games done\n", o->csv, t.pr.done, t.pr.total);
        FILE *csv = t.csv;
        uint32_t failed, missing;
        if (!tplay_run(&t, (uint32_t)o->jobs)) rc = EXIT_USAGE; /* a row was not written: reported */
        else if (!trep_rr_report(rec, &rec->m, stdout, &plot, &failed, &missing)) rc = EXIT_USAGE;
        else if (failed) rc = EXIT_FAIL;
        if (rc != EXIT_USAGE && tplay_csv_lost(&t, o->csv)) rc = EXIT_USAGE;
        if (csv && !t.csv) fclose(csv); /* its write error is reported */
        else if (csv && !out_stream_check(csv, "roundrobin", o->csv, true) && rc != EXIT_USAGE) rc = EXIT_USAGE;
        t.csv = NULL;
    }
    if (t.csv) fclose(t.csv);
    out_file_discard(&plot);
    tplay_fini(&t);
    free(a_specs);
    free(b_specs);
    return rc;
}

int cmd_roundrobin(int argc, char **argv)
{
    opts_t o = {.jobs = 1, .seed = 1, .shards = 1, .load = {.engine = ENGINE_AUTO}};
    int rc;
    if (!parse_opts(argc, argv, &o, &rc)) {
        free(o.texts);
        return rc;
    }
    rc = EXIT_OK;
    gdl_loaded_t l;
    game_t *g = local_load_game("roundrobin", o.file, &o.load, &l, &rc);
    search_spec_t **specs = xcalloc(o.n, sizeof *specs);
    trec_t rec = {0};
    if (g && !parse_specs(&o, g, specs)) rc = EXIT_USAGE;
    if (g && rc == EXIT_OK) {
        trec_meta_t m = {.kind = TREC_ROUNDROBIN, .games = (uint32_t)o.per_pair, .seed = o.seed, .shard = o.shard,
                         .shards = o.shards, .n_players = o.n, .players = (char **)o.texts,
                         .max_steps = (uint32_t)o.max_steps};
        tplay_meta_of(&m, g, &l, o.file);
        char err[512];
        if (!trec_init(&rec, &m, err, sizeof err)) {
            fprintf(stderr, "ggp roundrobin: %s\n", err);
            rc = EXIT_USAGE;
        }
        free(m.roles);
    }
    if (g && rc == EXIT_OK) rc = play_and_report(&o, g, &rec, specs);
    trec_free(&rec);
    if (g) {
        game_free(g);
        gdl_loaded_free(&l);
    }
    for (uint32_t i = 0; i < o.n; i++) search_spec_free(specs[i]);
    free(specs);
    free(o.texts);
    return rc;
}
