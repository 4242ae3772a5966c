/* cmd_roundrobin.c - `ggp roundrobin`: every pair of the given searchers
 * plays G games, seats swapped each game, and a table of each method's
 * score over all its games with its Agresti-Coull interval and its mean
 * time per game (the columns of [M]'s Tables 1-2, grave-spec §14.1).
 *
 * Pairs (i, j), i < j, are numbered in order; game g of pair p is game
 * p*G + g of the run, with seed rng_derive(S, p*G + g); player i takes seat
 * g mod n of the n roles and j every other seat, so any game replays alone
 * with `ggp play`. The per-game CSV is appended and synced as each game
 * ends, and --resume plays only the games missing from it (games_csv.h). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/rng.h"
#include "base/xalloc.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/games_csv.h"
#include "player/cli/local_game.h"
#include "player/cli/outfile.h"
#include "player/cli/progress.h"

static const char roundrobin_help[] =
    "usage: ggp roundrobin FILE.kif --player SPEC --player SPEC [--player SPEC ...]\n"
    "                      --games-per-pair G [--jobs J] [--seed S] [--csv FILE [--resume]]\n"
    "                      [--plot FILE.svg] [--quiet] [--engine auto|propnet|rules]\n"
    "                      [--load-ms MS] [--memory MB]\n"
    "\n"
    "Every pair of the searchers plays G games (specs as in 'ggp players'), seats\n"
    "swapped each game. A method scores 1 for a win (a goal above every other\n"
    "seat's), 1/2 for a draw; the table gives each method's score over all its\n"
    "games with an Agresti-Coull 95% interval and its mean search time per game,\n"
    "then the score of each row against each column.\n"
    "\n"
    "  --player SPEC          a method (at least two)\n"
    "  --games-per-pair G     games of each pair\n"
    "  --jobs J               games played in parallel (threads; default 1)\n"
    "  --seed S               base seed (default 1)\n"
    "  --csv FILE             one row per game, written as each game ends\n"
    "  --resume               keep the games already in the CSV and play the others\n"
    "  --plot FILE.svg        each method's score and interval as bars\n"
    "  --quiet                no progress bar\n"
    "  --engine E             reasoner: auto (default), propnet or rules\n"
    "  --load-ms MS           load budget: past it the load fails naming the\n"
    "                         relation it was computing (default: none)\n"
    "  --memory MB            memory budget of loading (default 2048)\n"
    "\n"
    "exit status: 0 done, 1 invalid rules or games that could not end, 2 usage or I/O error\n";

static const char rr_header[] = "game,seed,a,b,a_seat,goals,outcome,a_seconds,b_seconds,a_spec,b_spec\n";
static const char *const outcome_names[] = {"loss", "draw", "win", "failed"};

typedef struct rr_game {
    uint32_t a, b, a_seat;
    uint64_t seed;
    int goals[64];
    int outcome; /* for a: 1 win, 0 draw, -1 loss, 2 failed */
    double secs[2]; /* time a and b spent searching */
    char error[160];
} rr_game_t;

typedef struct rr {
    const game_t *g;
    uint32_t k, n;            /* roles, methods */
    const char **texts;
    search_spec_t **specs;
    uint32_t per_pair, games;
    uint64_t seed;
    rr_game_t *res;
    bool *seen;
    uint32_t *todo, n_todo;
    atomic_uint next;
    atomic_bool stop;
    FILE *csv;
    const char *csv_path;
    pthread_mutex_t mu;
    uint32_t done;
    progress_t pr;
} rr_t;

/* The pair and seats of game i. */
static void game_setup(const rr_t *t, uint32_t i, rr_game_t *r)
{
    uint32_t p = i / t->per_pair, g = i % t->per_pair;
    uint32_t a = 0;
    while (p >= t->n - 1 - a) { /* pairs in order: (0,1) (0,2) ... (1,2) ... */
        p -= t->n - 1 - a;
        a++;
    }
    r->a = a;
    r->b = a + 1 + p;
    r->a_seat = g % t->k;
    r->seed = rng_derive(t->seed, i);
}

static void play_game(rr_t *t, uint32_t i)
{
    rr_game_t *r = &t->res[i];
    game_setup(t, i, r);
    const search_spec_t *specs[64];
    for (uint32_t s = 0; s < t->k; s++) specs[s] = t->specs[s == r->a_seat ? r->a : r->b];
    seat_totals_t tot[64];
    local_game_t lg;
    local_game_play(t->g, specs, r->seed, NULL, false, tot, &lg);
    memcpy(r->goals, lg.goals, sizeof r->goals);
    r->outcome = local_outcome(&lg, t->k, r->a_seat);
    if (!lg.ok) snprintf(r->error, sizeof r->error, "%s", lg.error);
    r->secs[0] = tot[r->a_seat].seconds;
    r->secs[1] = 0;
    for (uint32_t s = 0; s < t->k; s++)
        if (s != r->a_seat) r->secs[1] += tot[s].seconds;
}

static void csv_row(const rr_t *t, uint32_t i, FILE *out)
{
    const rr_game_t *r = &t->res[i];
    fprintf(out, "%u,%llu,%u,%u,%u,", i, (unsigned long long)r->seed, r->a, r->b, r->a_seat);
    for (uint32_t s = 0; s < t->k; s++) fprintf(out, "%s%s=%d", s ? ";" : "", game_role_name(t->g, s), r->goals[s]);
    fprintf(out, ",%s,%.4f,%.4f,", outcome_names[r->outcome + 1], r->secs[0], r->secs[1]);
    csv_field(t->texts[r->a], out);
    fputc(',', out);
    csv_field(t->texts[r->b], out);
    fputc('\n', out);
}

/* One row of an earlier run; NULL or what is wrong with it. */
static const char *resume_row(char *line, void *arg)
{
    rr_t *t = arg;
    char *f[12];
    if (csv_split(line, f, 11) != 11) return "not 11 columns";
    uint64_t game, seed, a, b, seat;
    if (!csv_u64(f[0], &game) || game >= t->games) return "game number out of range (another --games-per-pair?)";
    if (t->seen[game]) return "a second row for this game";
    rr_game_t *r = &t->res[game];
    game_setup(t, (uint32_t)game, r);
    if (!csv_u64(f[1], &seed) || seed != r->seed) return "another seed (another --seed?)";
    if (!csv_u64(f[2], &a) || !csv_u64(f[3], &b) || !csv_u64(f[4], &seat) || a != r->a || b != r->b ||
        seat != r->a_seat)
        return "another pair or seat for this game (other --player options?)";
    if (strcmp(f[9], t->texts[r->a]) || strcmp(f[10], t->texts[r->b])) return "other players (other --player options?)";
    r->outcome = -2;
    for (int o = 0; o < 4; o++)
        if (!strcmp(f[6], outcome_names[o])) r->outcome = o - 1;
    if (r->outcome == -2) return "unknown outcome";
    char *end;
    r->secs[0] = strtod(f[7], &end);
    if (*end) return "a time that is not a number";
    r->secs[1] = strtod(f[8], &end);
    if (*end) return "a time that is not a number";
    if (r->outcome == 2) snprintf(r->error, sizeof r->error, "failed in the run resumed");
    t->seen[game] = true;
    return NULL;
}

static void *worker(void *arg)
{
    rr_t *t = arg;
    for (;;) {
        unsigned k = atomic_fetch_add(&t->next, 1);
        if (k >= t->n_todo || atomic_load(&t->stop)) break;
        play_game(t, t->todo[k]);
        pthread_mutex_lock(&t->mu);
        if (t->csv) { /* appended and synced at once: a kill loses no finished game */
            csv_row(t, t->todo[k], t->csv);
            if (!out_stream_sync(t->csv, "roundrobin", t->csv_path)) {
                atomic_store(&t->stop, true);
                t->csv = NULL;
            }
        }
        t->done++;
        t->pr.done = t->done;
        if (t->pr.on) progress_draw(&t->pr);
        pthread_mutex_unlock(&t->mu);
    }
    return NULL;
}

/* Per method: score, interval, time. */
typedef struct method {
    double x, n, secs, lo, hi;
    uint32_t failed;
} method_t;

static void tally(const rr_t *t, method_t *m, double *pair_x, double *pair_n)
{
    memset(m, 0, t->n * sizeof *m);
    for (uint32_t i = 0; i < t->games; i++) {
        const rr_game_t *r = &t->res[i];
        if (r->outcome == 2) {
            m[r->a].failed++;
            m[r->b].failed++;
            continue;
        }
        double xa = r->outcome == 1 ? 1 : r->outcome == 0 ? 0.5 : 0;
        m[r->a].x += xa;
        m[r->b].x += 1 - xa;
        m[r->a].n++;
        m[r->b].n++;
        m[r->a].secs += r->secs[0];
        m[r->b].secs += r->secs[1];
        pair_x[r->a * t->n + r->b] += xa;
        pair_x[r->b * t->n + r->a] += 1 - xa;
        pair_n[r->a * t->n + r->b]++;
        pair_n[r->b * t->n + r->a]++;
    }
    for (uint32_t j = 0; j < t->n; j++) search_agresti_coull(m[j].x, m[j].n, &m[j].lo, &m[j].hi);
}

static void print_table(const rr_t *t, const method_t *m, const double *px, const double *pn, FILE *out)
{
    fprintf(out, "%-3s %-44s %6s %7s %17s %9s\n", "#", "method", "games", "win%", "95% CI", "s/game");
    for (uint32_t j = 0; j < t->n; j++)
        fprintf(out, "%-3u %-44.44s %6.0f %7.2f   [%5.1f, %5.1f] %9.3f%s\n", j + 1, t->texts[j], m[j].n,
                m[j].n ? 100 * m[j].x / m[j].n : 0, 100 * m[j].lo, 100 * m[j].hi, m[j].n ? m[j].secs / m[j].n : 0,
                m[j].failed ? " (some games failed)" : "");
    fputs("\nscore of the row against the column (%):\n   ", out);
    for (uint32_t j = 0; j < t->n; j++) fprintf(out, " %6u", j + 1);
    fputc('\n', out);
    for (uint32_t i = 0; i < t->n; i++) {
        fprintf(out, "%-3u", i + 1);
        for (uint32_t j = 0; j < t->n; j++) {
            if (i == j || pn[i * t->n + j] == 0) fprintf(out, " %6s", "-");
            else fprintf(out, " %6.1f", 100 * px[i * t->n + j] / pn[i * t->n + j]);
        }
        fputc('\n', out);
    }
    for (uint32_t j = 0; j < t->n; j++)
        fprintf(out, "result method=%u games=%.0f score=%.4f ci_low=%.4f ci_high=%.4f seconds_per_game=%.4f\n", j + 1,
                m[j].n, m[j].n ? m[j].x / m[j].n : 0, m[j].lo, m[j].hi, m[j].n ? m[j].secs / m[j].n : 0);
}

static void xml_text(const char *s, FILE *out)
{
    for (; *s; s++) {
        if (*s == '&') fputs("&amp;", out);
        else if (*s == '<') fputs("&lt;", out);
        else fputc(*s, out);
    }
}

/* One horizontal bar per method (score), with its interval. */
static void svg_bars(const rr_t *t, const method_t *m, FILE *out)
{
    const double L = 330, W = 760, row = 26, T = 40, pw = W - L - 30;
    double H = T + row * t->n + 40;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
                 "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
    fprintf(out, "<text x=\"%.0f\" y=\"22\" text-anchor=\"middle\" font-size=\"13\">round robin: score over all games "
                 "(95%% Agresti-Coull), %u games per pair</text>\n", W / 2, t->per_pair);
    for (int q = 0; q <= 4; q++) {
        double x = L + pw * q / 4;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ccc\"/>\n", x, T, x, T + row * t->n);
        fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%d%%</text>\n", x, T + row * t->n + 16, q * 25);
    }
    for (uint32_t j = 0; j < t->n; j++) {
        double y = T + row * j, s = m[j].n ? m[j].x / m[j].n : 0;
        fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", L - 6, y + 16);
        xml_text(t->texts[j], out);
        fprintf(out, "</text>\n<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"#7f9bb8\"/>\n", L, y + 5,
                pw * s, row - 10);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n",
                L + pw * m[j].lo, y + row / 2, L + pw * m[j].hi, y + row / 2);
    }
    fputs("</svg>\n", out);
}

int cmd_roundrobin(int argc, char **argv)
{
    const char *file = NULL, *csv = NULL, *plot = NULL;
    const char **texts = xcalloc((size_t)argc + 1, sizeof *texts);
    uint32_t n = 0;
    uint64_t per_pair = 0, jobs = 1, seed = 1;
    bool quiet = false, resume = false;
    game_options_t gopt = {.engine = ENGINE_AUTO};
    int rc = EXIT_OK;
    for (int i = 1; i < argc && rc == EXIT_OK; i++) {
        const char *a = argv[i];
        bool v = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(roundrobin_help, stdout);
            free(texts);
            return EXIT_OK;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = true;
        } else if (!strcmp(a, "--resume")) {
            resume = true;
        } else if (!strcmp(a, "--player") && v) {
            texts[n++] = argv[++i];
        } else if (!strcmp(a, "--games-per-pair") && v) {
            if (!parse_u64("roundrobin", "--games-per-pair", argv[++i], 1, 1000000, &per_pair)) rc = EXIT_USAGE;
        } else if (!strcmp(a, "--jobs") && v) {
            if (!parse_u64("roundrobin", "--jobs", argv[++i], 1, 256, &jobs)) rc = EXIT_USAGE;
        } else if (!strcmp(a, "--seed") && v) {
            if (!parse_u64("roundrobin", "--seed", argv[++i], 0, UINT64_MAX, &seed)) rc = EXIT_USAGE;
        } else if (!strcmp(a, "--csv") && v) {
            csv = argv[++i];
        } else if (!strcmp(a, "--plot") && v) {
            plot = argv[++i];
        } else if (!strcmp(a, "--engine") && v) {
            if (!cli_engine_parse("roundrobin", argv[++i], &gopt.engine)) rc = EXIT_USAGE;
        } else if ((!strcmp(a, "--load-ms") || !strcmp(a, "--memory")) && v) {
            if (!cli_budget_parse("roundrobin", a, argv[++i], &gopt)) rc = EXIT_USAGE;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "ggp roundrobin: unknown option or missing value: '%s'\n%s", a, roundrobin_help);
            rc = EXIT_USAGE;
        } else if (file) {
            fprintf(stderr, "ggp roundrobin: more than one rule file ('%s', '%s')\n", file, a);
            rc = EXIT_USAGE;
        } else {
            file = a;
        }
    }
    if (rc == EXIT_OK && (!file || n < 2 || !per_pair)) {
        fprintf(stderr, "ggp roundrobin: FILE, two --player or more and --games-per-pair are required\n%s",
                roundrobin_help);
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && resume && !csv) {
        fputs("ggp roundrobin: --resume needs --csv (it continues a per-game CSV)\n", stderr);
        rc = EXIT_USAGE;
    }
    uint64_t total = per_pair * ((uint64_t)n * (n - 1) / 2);
    if (rc == EXIT_OK && total > 10000000) {
        fputs("ggp roundrobin: more than 10,000,000 games\n", stderr);
        rc = EXIT_USAGE;
    }
    search_spec_t **specs = xcalloc(n ? n : 1, sizeof *specs);
    for (uint32_t i = 0; i < n && rc == EXIT_OK; i++) {
        char err[512];
        if (!(specs[i] = search_spec_parse(texts[i], err, sizeof err))) {
            fprintf(stderr, "ggp roundrobin: --player '%s': %s\n", texts[i], err);
            rc = EXIT_USAGE;
        }
    }
    loaded_t l;
    game_t *g = rc == EXIT_OK ? local_load_game("roundrobin", file, &gopt, &l, &rc) : NULL;
    if (g && (game_num_roles(g) < 2 || game_num_roles(g) > 64)) {
        fprintf(stderr, "ggp roundrobin: %s has %u roles; a round robin needs 2 to 64\n", file, game_num_roles(g));
        rc = EXIT_USAGE;
    }
    for (uint32_t i = 0; g && i < n && rc == EXIT_OK; i++) {
        char why[160];
        if (!search_spec_check_game(specs[i], g, why, sizeof why)) {
            fprintf(stderr, "ggp roundrobin: --player '%s': %s\n", texts[i], why);
            rc = EXIT_USAGE;
        }
    }
    rr_t t = {.g = g, .k = g ? game_num_roles(g) : 0, .n = n, .texts = texts, .specs = specs,
              .per_pair = (uint32_t)per_pair, .games = (uint32_t)total, .seed = seed, .csv_path = csv};
    t.res = xcalloc(t.games ? t.games : 1, sizeof *t.res);
    t.seen = xcalloc(t.games ? t.games : 1, sizeof *t.seen);
    t.todo = xcalloc(t.games ? t.games : 1, sizeof *t.todo);
    out_file_t plot_file = {0};
    if (rc == EXIT_OK && csv) {
        t.csv = resume ? csv_games_resume("roundrobin", csv, rr_header, resume_row, &t)
                       : csv_games_start("roundrobin", csv, rr_header);
        if (!t.csv) rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && plot && !out_file_open(&plot_file, "roundrobin", plot)) rc = EXIT_USAGE;
    if (rc == EXIT_OK) {
        for (uint32_t i = 0; i < t.games; i++)
            if (!t.seen[i]) t.todo[t.n_todo++] = i;
            else t.done++;
        if (resume && t.done && !quiet)
            fprintf(stderr, "ggp roundrobin: resuming %s: %u of %u games done\n", csv, t.done, t.games);
        t.pr = (progress_t){.on = !quiet, .tty = isatty(STDERR_FILENO) == 1, .every_ns = 30000000000ull,
                            .start_ns = clock_now_ns(), .total = t.games, .done = t.done, .resumed = t.done,
                            .cmd = "roundrobin"};
        t.pr.last_ns = t.pr.start_ns;
        pthread_mutex_init(&t.mu, NULL);
        uint32_t j = jobs > t.n_todo ? (t.n_todo ? t.n_todo : 1) : (uint32_t)jobs;
        pthread_t *tid = xcalloc(j, sizeof *tid);
        uint32_t started = 0;
        for (uint32_t w = 1; w < j; w++)
            if (pthread_create(&tid[started], NULL, worker, &t) == 0) started++;
        worker(&t);
        for (uint32_t w = 0; w < started; w++) pthread_join(tid[w], NULL);
        free(tid);
        pthread_mutex_destroy(&t.mu);
        if (atomic_load(&t.stop)) {
            rc = EXIT_USAGE; /* a CSV row could not be written: reported */
        } else {
            method_t *m = xcalloc(n, sizeof *m);
            double *px = xcalloc((size_t)n * n, sizeof *px), *pn = xcalloc((size_t)n * n, sizeof *pn);
            tally(&t, m, px, pn);
            print_table(&t, m, px, pn, stdout);
            for (uint32_t i = 0; i < n; i++)
                if (m[i].failed) rc = EXIT_FAIL;
            if (plot_file.f) {
                svg_bars(&t, m, plot_file.f);
                if (!out_file_commit(&plot_file)) rc = EXIT_USAGE;
            }
            free(m);
            free(px);
            free(pn);
        }
    }
    out_file_discard(&plot_file);
    if (t.csv && !out_stream_check(t.csv, "roundrobin", csv, true)) rc = EXIT_USAGE;
    free(t.res);
    free(t.seen);
    free(t.todo);
    if (g) {
        game_free(g);
        loaded_free(&l);
    }
    for (uint32_t i = 0; i < n; i++) search_spec_free(specs[i]);
    free(specs);
    free(texts);
    return rc;
}
