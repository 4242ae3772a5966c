/* cmd_results.c - `ggp results merge`: the per-game CSVs of the shards of a
 * tournament (`ggp tournament --shard I/N --csv FILE`) or of a round robin
 * (`ggp roundrobin --shard I/N --csv FILE`) combined into what the
 * unsharded run prints and writes: the same `result ...` lines (a round
 * robin's table too), the same per-game CSV (no sweep) or points CSV and
 * plot (sweep; a round robin's bar plot). Game k has the same seed in every
 * shard, so the merge equals the unsharded run game by game.
 *
 * The files are untrusted input: every line is checked (tourn_rec.h) and
 * an error names FILE:LINE. Files of other runs (command, rules, games,
 * seed, players, sweep, step limit) and a game found twice are refused. Shards not finished
 * give partial results, with their intervals and the count of games
 * missing. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/xalloc.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/outfile.h"
#include "player/cli/tourn_rec.h"
#include "player/cli/tourn_report.h"

static const char results_help[] =
    "usage: ggp results merge FILE.csv... [--csv OUT] [--plot FILE.svg] [--quiet]\n"
    "\n"
    "Combine the per-game CSVs of the shards of one tournament ('ggp tournament\n"
    "--shard I/N --csv FILE') or of one round robin ('ggp roundrobin --shard I/N\n"
    "--csv FILE'), any I and N, any order, and print what the unsharded run prints:\n"
    "a 'result ...' line (one per swept value; a round robin's table and one per\n"
    "method). Files of another run (command, rules, --games, --games-per-pair,\n"
    "--seed, --a, --b, --player, --sweep, --max-steps, engine) and a game found twice are\n"
    "refused, naming FILE:LINE. With games missing (shards not finished or not\n"
    "given) the result lines end with 'missing=M' and the missing games are listed\n"
    "on stderr, with A's games and score per seat when its seats are not yet equal\n"
    "in number (a tournament's shards of an N that is a multiple of the roles each\n"
    "hold one of A's seats).\n"
    "\n"
    "  --csv OUT        what the unsharded run's --csv holds: the per-game CSV (it can\n"
    "                   be continued with 'ggp tournament|roundrobin ... --csv OUT\n"
    "                   --resume'), or with --sweep the CSV of the points\n"
    "  --plot FILE.svg  with --sweep: score and interval against the swept value; of\n"
    "                   a round robin: each method's score and interval as bars\n"
    "  --quiet          no summary of the files on stderr\n"
    "\n"
    "exit status: 0 every game merged, 1 games missing or failed, 2 usage, I/O error\n"
    "or a file that is not a shard of the same tournament\n";

typedef struct merge {
    const char **files;
    size_t n_files;
    trec_t rec;
    uint32_t *from_file, *from_line; /* where each game was read (1-based file; 0: not) */
    bool quiet;
} merge_t;

/* Read one file into m->rec (set up from the first file's metadata).
 * Returns false (message printed) on any error. */
static bool merge_file(merge_t *m, size_t fi)
{
    const char *path = m->files[fi];
    trec_file_t f;
    char err[1024];
    if (!trec_file_open(&f, path, err, sizeof err)) {
        fprintf(stderr, "ggp results: %s\n", err);
        return false;
    }
    bool ok = true;
    if (fi == 0) {
        trec_meta_t whole = f.m;
        whole.shard = 0;
        whole.shards = 1;
        if (!trec_init(&m->rec, &whole, err, sizeof err)) {
            fprintf(stderr, "ggp results: %s:1: %s\n", path, err);
            trec_file_close(&f);
            return false;
        }
        size_t n = m->rec.n_pts * m->rec.m.games;
        m->from_file = xcalloc(n, sizeof *m->from_file);
        m->from_line = xcalloc(n, sizeof *m->from_line);
    } else {
        const char *differs = trec_meta_differs(&m->rec.m, &f.m, false);
        if (differs) {
            fprintf(stderr, "ggp results: %s:1: %s than %s\n", path, differs, m->files[0]);
            ok = false;
        }
    }
    trec_game_t g;
    size_t i;
    uint32_t rows = 0;
    for (int got; ok && (got = trec_file_next(&f, &m->rec, &i, &g, err, sizeof err)) != 0;) {
        ok = got > 0 && !m->rec.games[i].done;
        if (got < 0) {
            fprintf(stderr, "ggp results: %s\n", err);
        } else if (!ok) {
            fprintf(stderr, "ggp results: %s:%u: game %u", path, f.line, trec_number(&m->rec, i));
            if (m->rec.values) fprintf(stderr, " of %s=%s", m->rec.key, m->rec.values[i / m->rec.m.games]);
            fprintf(stderr, " is also at %s:%u (a shard given twice, or shards of another N?)\n",
                    m->files[m->from_file[i] - 1], m->from_line[i]);
        } else {
            m->rec.games[i] = g;
            m->from_file[i] = (uint32_t)fi + 1;
            m->from_line[i] = f.line;
            rows++;
        }
    }
    if (ok && !m->quiet)
        fprintf(stderr, "ggp results: %s: shard %u/%u: %u of %u games%s\n", path, f.m.shard, f.m.shards, rows,
                f.m.shard_games, rows < f.m.shard_games ? " (unfinished)" : "");
    trec_file_close(&f);
    return ok;
}

/* The games missing, on stderr (the first few of them). */
static void print_missing(const merge_t *m, uint32_t missing)
{
    const trec_t *r = &m->rec;
    fprintf(stderr, "ggp results: %u of %zu games missing:", missing, r->n_pts * r->m.games);
    uint32_t shown = 0;
    for (size_t i = 0; i < r->n_pts * r->m.games && shown < 20; i++) {
        if (r->games[i].done) continue;
        fputc(' ', stderr);
        if (r->values) fprintf(stderr, "%s=%s:", r->key, r->values[i / r->m.games]);
        fprintf(stderr, "%u", trec_number(r, i));
        shown++;
    }
    fputs(shown < missing ? " ...\n" : "\n", stderr);
}

/* A's seats in the games of point p merged so far, on stderr when they
 * are unequal. Seats alternate game by game (A in seat k mod n), so a
 * finished run is balanced; a partial merge need not be: with --shard I/N
 * and N a multiple of the number of roles every shard holds one seat of
 * A's only, and the first player's advantage then shows as A's strength. */
static void print_seats(const trec_t *r, size_t p)
{
    uint32_t n = r->m.n_roles, cnt[TREC_MAX_ROLES] = {0};
    double pts[TREC_MAX_ROLES] = {0};
    for (uint32_t k = 0; k < r->m.games; k++) {
        const trec_game_t *g = &r->games[p * r->m.games + k];
        if (!g->done || g->outcome == TREC_FAILED || g->a_seat >= n) continue;
        cnt[g->a_seat]++;
        pts[g->a_seat] += g->outcome == TREC_WIN ? 1 : g->outcome == TREC_DRAW ? 0.5 : 0;
    }
    bool equal = true;
    for (uint32_t s = 1; s < n; s++) equal = equal && cnt[s] == cnt[0];
    if (equal) return;
    fputs("ggp results: ", stderr);
    if (r->values) fprintf(stderr, "%s=%s: ", r->key, r->values[p]);
    fputs("A's seats in these games:", stderr);
    for (uint32_t s = 0; s < n; s++) {
        fprintf(stderr, " %s %u", r->role[s], cnt[s]);
        if (cnt[s]) fprintf(stderr, " (score %.3f)", pts[s] / cnt[s]);
        fputc(s + 1 < n ? ',' : ';', stderr);
    }
    fputs(" unequal, so the score leans on the seats until the missing games are in\n", stderr);
}

/* The merged per-game CSV: the unsharded run's, rows in game order. */
static bool write_games(const trec_t *r, out_file_t *o)
{
    trec_write_games(r, o->f);
    return out_file_commit(o);
}

/* A round robin's table, result lines, plot and per-game CSV. */
static int merge_rr(const merge_t *m, const char *csv, const char *plot)
{
    const trec_t *r = &m->rec;
    out_file_t csv_file = {0}, plot_file = {0};
    if ((csv && !out_file_open(&csv_file, "results", csv)) || (plot && !out_file_open(&plot_file, "results", plot))) {
        out_file_discard(&csv_file);
        return EXIT_USAGE;
    }
    uint32_t failed, missing;
    int rc = EXIT_OK;
    if (!trep_rr_report(r, &r->m, stdout, &plot_file, &failed, &missing)) rc = EXIT_USAGE;
    else if (failed || missing) rc = EXIT_FAIL;
    if (missing) print_missing(m, missing);
    if (csv && !write_games(r, &csv_file)) rc = EXIT_USAGE;
    out_file_discard(&csv_file);
    out_file_discard(&plot_file);
    return rc;
}

static int merge_run(merge_t *m, const char *csv, const char *plot)
{
    for (size_t fi = 0; fi < m->n_files; fi++)
        if (!merge_file(m, fi)) return EXIT_USAGE;
    trec_t *r = &m->rec;
    if (r->m.kind == TREC_ROUNDROBIN) return merge_rr(m, csv, plot);
    if (plot && !r->values) {
        fputs("ggp results: --plot needs a tournament with --sweep (the plot is score against the swept value)\n",
              stderr);
        return EXIT_USAGE;
    }
    out_file_t csv_file = {0}, plot_file = {0};
    if ((csv && !out_file_open(&csv_file, "results", csv)) || (plot && !out_file_open(&plot_file, "results", plot))) {
        out_file_discard(&csv_file);
        return EXIT_USAGE;
    }
    int rc = EXIT_OK;
    uint32_t missing = 0;
    trep_point_t *pts = xcalloc(r->n_pts, sizeof *pts);
    for (size_t p = 0; p < r->n_pts; p++) {
        trep_summarize(r, p, &r->m, &pts[p]);
        trep_print_result(r, p, &pts[p], stdout);
        missing += pts[p].missing;
        if (pts[p].missing) print_seats(r, p);
        if (pts[p].failed || pts[p].missing) rc = EXIT_FAIL;
    }
    if (missing) print_missing(m, missing);
    bool ok = r->values ? trep_write_points(r, pts, &csv_file, &plot_file) : !csv || write_games(r, &csv_file);
    if (!ok) rc = EXIT_USAGE;
    out_file_discard(&csv_file);
    out_file_discard(&plot_file);
    free(pts);
    return rc;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cmd_results(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(results_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "merge")) {
        fprintf(stderr, "ggp results: unknown subcommand '%s' (expected 'merge')\n%s", argv[1], results_help);
        return EXIT_USAGE;
    }
    merge_t m = {0};
    const char *csv = NULL, *plot = NULL;
    cli_list_t files = {0};
    const cli_opt_t opts[] = {CLI_OPT_FLAG("--quiet", "-q", &m.quiet), CLI_OPT_STR("--csv", &csv),
                              CLI_OPT_STR("--plot", &plot)};
    int rc;
    /* argv + 1: the options follow "merge", which stands as argv[0]. */
    if (!cli_opts_parse("results", results_help, opts, 3, argc - 1, argv + 1, &files, &rc)) return rc;
    m.files = files.v;
    m.n_files = files.n;
    if (!m.n_files) {
        fprintf(stderr, "ggp results: merge needs at least one FILE.csv\n%s", results_help);
        rc = EXIT_USAGE;
    }
    /* Nothing is lost: an output onto one of the shards it merges would
     * replace that shard by the merge (same file: same device and inode,
     * whatever the path's spelling). */
    for (size_t i = 0; rc == EXIT_OK && i < m.n_files; i++)
        for (int o = 0; o < 2 && rc == EXIT_OK; o++) {
            const char *out = o ? plot : csv;
            if (out && same_file(out, m.files[i])) {
                fprintf(stderr, "ggp results: %s %s is the input %s: write the merge elsewhere\n", o ? "--plot" : "--csv", out,
                        m.files[i]);
                rc = EXIT_USAGE;
            }
        }
    if (rc == EXIT_OK) rc = merge_run(&m, csv, plot);
    trec_free(&m.rec);
    free(m.from_file);
    free(m.from_line);
    free(m.files);
    return rc;
}
