/* cmd_tournament.c - `ggp tournament`: searcher A against searcher B over
 * many local games, seats rotating, with the score and its Agresti-Coull
 * interval (grave-spec §11.1), optional parallel games, CSV, and a sweep of
 * one key of A's spec drawn as an SVG plot (like [S] Figure 3).
 *
 * Game k uses seed rng_derive(S, k) and puts A in seat k mod n (B in every
 * other seat), so any game can be replayed alone with `ggp play`.
 *
 * Without --sweep the CSV gets one row per game as soon as the game ends
 * (flushed and synced), so a killed run keeps every finished game, and
 * --resume plays only the games missing from it: the same game numbers
 * with the same seeds, hence the same result as an uninterrupted run. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/rng.h"
#include "base/xalloc.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/games_csv.h"
#include "player/cli/local_game.h"
#include "player/cli/outfile.h"
#include "player/cli/trace_io.h"

static const char tournament_help[] =
    "usage: ggp tournament FILE.kif --a SPEC --b SPEC --games N [--jobs J] [--seed S]\n"
    "                      [--csv FILE [--resume]] [--sweep KEY=V1,V2,...] [--plot FILE.svg]\n"
    "                      [--verbose] [--quiet] [--engine auto|propnet|rules]\n"
    "\n"
    "Play N games of searcher A against searcher B (specs as in 'ggp players').\n"
    "Game k (from 0) has seed rng_derive(S, k); A takes seat k mod n of the n roles\n"
    "and B every other seat. A wins a game if its goal is strictly greater than\n"
    "every B seat's, draws if equal to the best of them, and loses otherwise; the\n"
    "score is (wins + draws/2) / games with an Agresti-Coull 95% interval. The last\n"
    "line is 'result games=N wins=W draws=D losses=L score=S ci_low=.. ci_high=..'.\n"
    "\n"
    "  --a SPEC, --b SPEC   the two searchers\n"
    "  --games N            number of games\n"
    "  --jobs J             games played in parallel (threads; default 1)\n"
    "  --seed S             base seed (default 1)\n"
    "  --csv FILE           one row per game, written as each game ends (with --sweep:\n"
    "                       one row per point, written at the end)\n"
    "  --resume             keep the games already in the CSV (of a killed run with the\n"
    "                       same FILE, --a, --b and --seed) and play only the others\n"
    "  --sweep KEY=V1,...   repeat the tournament with KEY=V of A's spec for each V\n"
    "  --plot FILE.svg      with --sweep: score and interval against the swept value\n"
    "  --verbose            list every game with the command that replays it\n"
    "  --quiet              no progress bar\n"
    "  --engine E           reasoner: auto (default), propnet or rules\n"
    "\n"
    "exit status: 0 done, 1 invalid rules or games that could not end, 2 usage or I/O error\n";

typedef struct game_result {
    uint64_t seed;
    uint32_t a_seat;
    int goals[64];
    int outcome; /* 1 win, 0 draw, -1 loss, 2 failed */
    seat_totals_t a;
    char error[160];
} game_result_t;

typedef struct point {
    const char *a_text;     /* A's spec text for this point */
    const char *value;      /* swept value, or NULL */
    search_spec_t *a_spec;
    uint32_t wins, draws, losses, failed;
    double score, lo, hi;
    seat_totals_t a;        /* summed over games (peaks: max) */
} point_t;

typedef struct tourn {
    const game_t *g;
    const char *a_text, *b_text; /* in every CSV row, checked by --resume */
    uint32_t k;
    const search_spec_t *a, *b;
    uint32_t games;
    uint64_t seed;
    game_result_t *res;
    uint32_t *todo, n_todo; /* the games to play: todo[next...] */
    atomic_uint next;
    atomic_bool stop;       /* a CSV row could not be written */
    FILE *csv;              /* per-game rows, or NULL */
    const char *csv_path;
    pthread_mutex_t mu;
    uint32_t done, w, d, l;
    bool progress;
    const char *label;
} tourn_t;

static void progress_draw(const tourn_t *t)
{
    const int width = 30;
    int fill = (int)((uint64_t)t->done * width / (t->games ? t->games : 1));
    fprintf(stderr, "\r%s[", t->label);
    for (int i = 0; i < width; i++) fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %u/%u  W %u D %u L %u", t->done, t->games, t->w, t->d, t->l);
    if (t->done == t->games) fputc('\n', stderr);
    fflush(stderr);
}

static void play_one(tourn_t *t, uint32_t i)
{
    game_result_t *r = &t->res[i];
    const search_spec_t *specs[64];
    r->a_seat = i % t->k;
    r->seed = rng_derive(t->seed, i);
    for (uint32_t s = 0; s < t->k; s++) specs[s] = s == r->a_seat ? t->a : t->b;
    seat_totals_t tot[64];
    local_game_t lg;
    local_game_play(t->g, specs, r->seed, NULL, false, tot, &lg);
    memcpy(r->goals, lg.goals, sizeof r->goals);
    r->a = tot[r->a_seat];
    r->outcome = local_outcome(&lg, t->k, r->a_seat);
    if (!lg.ok) snprintf(r->error, sizeof r->error, "%s", lg.error);
}

static void csv_row(const tourn_t *t, uint32_t i, FILE *out);

static void *worker(void *arg)
{
    tourn_t *t = arg;
    while (!atomic_load(&t->stop)) {
        unsigned k = atomic_fetch_add(&t->next, 1);
        if (k >= t->n_todo) break;
        uint32_t i = t->todo[k];
        play_one(t, i);
        pthread_mutex_lock(&t->mu);
        /* Appended and synced at once: a kill loses no finished game. */
        if (t->csv) {
            csv_row(t, i, t->csv);
            if (!out_stream_sync(t->csv, "tournament", t->csv_path)) {
                atomic_store(&t->stop, true);
                t->csv = NULL; /* reported once; closed by the caller */
            }
        }
        t->done++;
        int o = t->res[i].outcome;
        if (o == 1) t->w++;
        else if (o == 0) t->d++;
        else if (o == -1) t->l++;
        if (t->progress) progress_draw(t);
        pthread_mutex_unlock(&t->mu);
    }
    return NULL;
}

/* Every game to play, none done. */
static void point_reset(tourn_t *t)
{
    t->done = t->w = t->d = t->l = 0;
    memset(t->res, 0, t->games * sizeof *t->res);
    t->n_todo = t->games;
    for (uint32_t i = 0; i < t->games; i++) t->todo[i] = i;
}

static void run_point(tourn_t *t, uint32_t jobs, point_t *pt)
{
    t->a = pt->a_spec;
    atomic_store(&t->next, 0);
    if (t->progress) progress_draw(t);
    pthread_t *tid = xcalloc(jobs, sizeof *tid);
    uint32_t started = 0;
    for (uint32_t j = 1; j < jobs; j++)
        if (pthread_create(&tid[started], NULL, worker, t) == 0) started++;
    worker(t);
    for (uint32_t j = 0; j < started; j++) pthread_join(tid[j], NULL);
    free(tid);
    memset(&pt->a, 0, sizeof pt->a);
    pt->wins = pt->draws = pt->losses = pt->failed = 0;
    for (uint32_t i = 0; i < t->games; i++) {
        game_result_t *r = &t->res[i];
        switch (r->outcome) {
        case 1: pt->wins++; break;
        case 0: pt->draws++; break;
        case -1: pt->losses++; break;
        default: pt->failed++; break;
        }
        pt->a.searches += r->a.searches;
        pt->a.playouts += r->a.playouts;
        pt->a.seconds += r->a.seconds;
        if (r->a.nodes_peak > pt->a.nodes_peak) pt->a.nodes_peak = r->a.nodes_peak;
        if (r->a.bytes_peak > pt->a.bytes_peak) pt->a.bytes_peak = r->a.bytes_peak;
        if (r->a.bytes_per_node) pt->a.bytes_per_node = r->a.bytes_per_node;
    }
    uint32_t n = pt->wins + pt->draws + pt->losses;
    double x = pt->wins + pt->draws / 2.0;
    pt->score = n ? x / n : 0;
    search_agresti_coull(x, n, &pt->lo, &pt->hi);
}

static void print_result(const point_t *pt, const char *key, FILE *out)
{
    fputs("result", out);
    if (pt->value) fprintf(out, " %s=%s", key, pt->value);
    fprintf(out, " games=%u wins=%u draws=%u losses=%u score=%.4f ci_low=%.4f ci_high=%.4f",
            pt->wins + pt->draws + pt->losses, pt->wins, pt->draws, pt->losses, pt->score, pt->lo, pt->hi);
    if (pt->failed) fprintf(out, " failed=%u", pt->failed);
    fputc('\n', out);
}

/* Shell-quote for the replay command. */
static void put_quoted(const char *s, FILE *out)
{
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", out);
        else fputc(*s, out);
    }
    fputc('\'', out);
}

static void print_games(const tourn_t *t, const char *file, const char *a_text, const char *b_text, FILE *out)
{
    for (uint32_t i = 0; i < t->games; i++) {
        const game_result_t *r = &t->res[i];
        static const char *names[] = {"loss", "draw", "win", "failed"};
        fprintf(out, "game %u: seed=%llu A=%s goals", i, (unsigned long long)r->seed, game_role_name(t->g, r->a_seat));
        for (uint32_t s = 0; s < t->k; s++) fprintf(out, " %s=%d", game_role_name(t->g, s), r->goals[s]);
        fprintf(out, " %s", names[r->outcome + 1]);
        if (r->outcome == 2) fprintf(out, " (%s)", r->error);
        fputs("\n  replay: ggp play ", out);
        put_quoted(file, out);
        for (uint32_t s = 0; s < t->k; s++) {
            fputs(" --player ", out);
            put_quoted(s == r->a_seat ? a_text : b_text, out);
        }
        fprintf(out, " --seed %llu --verbose\n", (unsigned long long)r->seed);
    }
}

/* The per-game CSV: the first ten columns as before; a_seat and the two
 * specs let --resume check that a row belongs to this tournament. */
static const char csv_games_header[] = "game,seed,a_role,goals,outcome,a_searches,a_playouts,a_seconds,a_nodes_peak,"
                                       "a_bytes_peak,a_seat,a_spec,b_spec\n";
static const char *const outcome_names[] = {"loss", "draw", "win", "failed"};

static void csv_row(const tourn_t *t, uint32_t i, FILE *out)
{
    const game_result_t *r = &t->res[i];
    fprintf(out, "%u,%llu,%s,", i, (unsigned long long)r->seed, game_role_name(t->g, r->a_seat));
    for (uint32_t s = 0; s < t->k; s++) fprintf(out, "%s%s=%d", s ? ";" : "", game_role_name(t->g, s), r->goals[s]);
    fprintf(out, ",%s,%llu,%llu,%.4f,%llu,%llu,%u,", outcome_names[r->outcome + 1], (unsigned long long)r->a.searches,
            (unsigned long long)r->a.playouts, r->a.seconds, (unsigned long long)r->a.nodes_peak,
            (unsigned long long)r->a.bytes_peak, r->a_seat);
    csv_field(t->a_text, out);
    fputc(',', out);
    csv_field(t->b_text, out);
    fputc('\n', out);
}

/* One row of an earlier run into t->res; NULL or what is wrong with it. */
static const char *resume_row(tourn_t *t, char *line, bool *seen)
{
    char *f[14];
    if (csv_split(line, f, 13) != 13) return "not 13 columns";
    uint64_t game, seed, seat, v[4];
    if (!csv_u64(f[0], &game) || game >= t->games) return "game number out of range (another --games?)";
    if (seen[game]) return "a second row for this game";
    if (!csv_u64(f[1], &seed) || seed != rng_derive(t->seed, game)) return "another seed (another --seed?)";
    if (!csv_u64(f[10], &seat) || seat != game % t->k) return "A is not in seat game mod roles";
    if (strcmp(f[11], t->a_text) || strcmp(f[12], t->b_text)) return "other players (another --a or --b?)";
    game_result_t *r = &t->res[game];
    r->outcome = -2;
    for (int o = 0; o < 4; o++)
        if (!strcmp(f[4], outcome_names[o])) r->outcome = o - 1;
    if (r->outcome == -2) return "unknown outcome";
    char *save = NULL, *goal = strtok_r(f[3], ";", &save);
    for (uint32_t s = 0; s < t->k; s++, goal = strtok_r(NULL, ";", &save)) {
        char *eq = goal ? strrchr(goal, '=') : NULL;
        char *end;
        if (!eq) return "goals of another game (not one per role)";
        r->goals[s] = (int)strtol(eq + 1, &end, 10);
        if (*end || end == eq + 1) return "a goal that is not a number";
    }
    char *end;
    r->a.seconds = strtod(f[7], &end);
    if (*end || !csv_u64(f[5], &v[0]) || !csv_u64(f[6], &v[1]) || !csv_u64(f[8], &v[2]) || !csv_u64(f[9], &v[3]))
        return "a count that is not a number";
    r->a.searches = v[0];
    r->a.playouts = v[1];
    r->a.nodes_peak = v[2];
    r->a.bytes_peak = v[3];
    r->seed = seed;
    r->a_seat = (uint32_t)seat;
    if (r->outcome == 2) snprintf(r->error, sizeof r->error, "failed in the run resumed");
    seen[game] = true;
    return NULL;
}

/* --resume: take the finished games of an earlier run from the CSV into
 * t->res and leave in t->todo only the others. A last line without its
 * newline (killed while writing) is cut off: that game is played again.
 * Returns the CSV open for appending, or NULL (message printed). */
typedef struct resume_arg {
    tourn_t *t;
    bool *seen;
} resume_arg_t;

static const char *resume_line(char *line, void *arg)
{
    resume_arg_t *ra = arg;
    return resume_row(ra->t, line, ra->seen);
}

static FILE *csv_resume(tourn_t *t, const char *path, bool quiet)
{
    resume_arg_t ra = {t, xcalloc(t->games, sizeof *ra.seen)};
    FILE *f = csv_games_resume("tournament", path, csv_games_header, resume_line, &ra);
    if (f) {
        t->n_todo = 0;
        for (uint32_t i = 0; i < t->games; i++) {
            if (!ra.seen[i]) {
                t->todo[t->n_todo++] = i;
                continue;
            }
            int o = t->res[i].outcome;
            t->done++;
            t->w += o == 1;
            t->d += o == 0;
            t->l += o == -1;
        }
        if (!quiet && t->done)
            fprintf(stderr, "ggp tournament: resuming %s: %u of %u games done\n", path, t->done, t->games);
    }
    free(ra.seen);
    return f;
}

static void csv_points(const point_t *pts, size_t n, const char *key, const char *b_text, FILE *out)
{
    fputs("key,value,games,wins,draws,losses,failed,score,ci_low,ci_high,a_playouts_per_move,a_seconds_per_move,"
          "a_nodes_peak,a_bytes_peak,a_bytes_per_node,a_spec,b_spec\n",
          out);
    for (size_t i = 0; i < n; i++) {
        const point_t *p = &pts[i];
        double moves = p->a.searches ? (double)p->a.searches : 1;
        fprintf(out, "%s,%s,%u,%u,%u,%u,%u,%.4f,%.4f,%.4f,%.1f,%.5f,%llu,%llu,%llu,", key, p->value,
                p->wins + p->draws + p->losses, p->wins, p->draws, p->losses, p->failed, p->score, p->lo, p->hi,
                p->a.playouts / moves, p->a.seconds / moves, (unsigned long long)p->a.nodes_peak,
                (unsigned long long)p->a.bytes_peak, (unsigned long long)p->a.bytes_per_node);
        csv_field(p->a_text, out);
        fputc(',', out);
        csv_field(b_text, out);
        fputc('\n', out);
    }
}

static void xml_text(const char *s, FILE *out)
{
    for (; *s; s++) {
        if (*s == '&') fputs("&amp;", out);
        else if (*s == '<') fputs("&lt;", out);
        else if (*s == '>') fputs("&gt;", out);
        else fputc(*s, out);
    }
}

/* Where a swept value goes on the x axis (before scaling). */
static double xval(const char *value, size_t i, bool numeric, bool logx)
{
    if (!numeric) return (double)i;
    double v = strtod(value, NULL);
    return logx ? log10(v) : v;
}

/* Score with 95% interval bars against the swept value; the shaded band is
 * the interval of an even score at this number of games ("equal strength",
 * [S] Figure 3). Numeric values are placed to scale, others evenly. */
static void svg_plot(const point_t *pts, size_t n, const char *key, const char *a_text, const char *b_text,
                     uint32_t games, FILE *out)
{
    const double W = 720, H = 440, L = 70, R = 30, T = 50, B = 60;
    bool numeric = true, logx = true;
    double xmin = 0, xmax = 0;
    for (size_t i = 0; i < n; i++) {
        char *end;
        double v = strtod(pts[i].value, &end);
        if (*end || end == pts[i].value) numeric = false;
        if (!(v > 0)) logx = false;
        if (i == 0 || v < xmin) xmin = v;
        if (i == 0 || v > xmax) xmax = v;
    }
    /* positive values spanning more than a decade go on a log scale, as
     * node budgets do in [S] Figure 4 */
    logx = numeric && logx && xmax > 10 * xmin;
    if (logx) {
        xmin = log10(xmin);
        xmax = log10(xmax);
    }
    if (!numeric || xmax == xmin) {
        numeric = false;
        logx = false;
        xmin = -0.5;
        xmax = n - 0.5;
    } else {
        double pad = (xmax - xmin) * 0.05;
        xmin -= pad;
        xmax += pad;
    }
    double pw = W - L - R, ph = H - T - B;
#define SX(x) (L + ((x) - xmin) / (xmax - xmin) * pw)
#define SY(y) (T + (1 - (y)) * ph)
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
                 "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
    double elo, ehi;
    search_agresti_coull(games / 2.0, games, &elo, &ehi);
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#dde6f0\"/>\n", L, SY(ehi), pw,
            SY(elo) - SY(ehi));
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#7f9bb8\" stroke-dasharray=\"4 3\"/>\n",
            L, SY(0.5), L + pw, SY(0.5));
    for (int i = 0; i <= 4; i++) {
        double y = i / 4.0;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", L - 5, SY(y), L, SY(y));
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f%%</text>\n", L - 8, SY(y) + 4, y * 100);
    }
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n", L, T,
            pw, ph);
    fputs("<polyline fill=\"none\" stroke=\"#c0392b\" stroke-width=\"1.5\" points=\"", out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s%.1f,%.1f", i ? " " : "", SX(xval(pts[i].value, i, numeric, logx)), SY(pts[i].score));
    }
    fputs("\"/>\n", out);
    for (size_t i = 0; i < n; i++) {
        double x = SX(xval(pts[i].value, i, numeric, logx));
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\"/>\n", x, SY(pts[i].lo), x,
                SY(pts[i].hi));
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\"/>\n", x - 4,
                SY(pts[i].lo), x + 4, SY(pts[i].lo));
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\"/>\n", x - 4,
                SY(pts[i].hi), x + 4, SY(pts[i].hi));
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#c0392b\"><title>%s=%s: %.3f [%.3f, %.3f]</title>"
                     "</circle>\n", x, SY(pts[i].score), key, pts[i].value, pts[i].score, pts[i].lo, pts[i].hi);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, T + ph + 18);
        xml_text(pts[i].value, out);
        fputs("</text>\n", out);
    }
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", L + pw / 2, H - 15);
    xml_text(key, out);
    if (logx) fputs(" (log scale)", out);
    fprintf(out, "</text>\n<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">score of A "
                 "(95%% Agresti-Coull)</text>\n", T + ph / 2, T + ph / 2);
    fprintf(out, "<text x=\"%.1f\" y=\"22\" text-anchor=\"middle\" font-size=\"13\">A = ", W / 2);
    xml_text(a_text, out);
    fputs(" [", out);
    xml_text(key, out);
    fputs(" swept] vs B = ", out);
    xml_text(b_text, out);
    fprintf(out, "</text>\n<text x=\"%.1f\" y=\"38\" text-anchor=\"middle\" fill=\"#555\">%u games per point; band: "
                 "interval of an even score</text>\n</svg>\n", W / 2, games);
#undef SX
#undef SY
}

int cmd_tournament(int argc, char **argv)
{
    const char *file = NULL, *a_text = NULL, *b_text = NULL, *csv = NULL, *plot = NULL, *sweep = NULL;
    uint64_t games = 0, jobs = 1, seed = 1;
    bool verbose = false, quiet = false, resume = false;
    engine_kind_t engine = ENGINE_AUTO;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool v = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(tournament_help, stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
            verbose = true;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = true;
        } else if (!strcmp(a, "--resume")) {
            resume = true;
        } else if (!strcmp(a, "--a") && v) {
            a_text = argv[++i];
        } else if (!strcmp(a, "--b") && v) {
            b_text = argv[++i];
        } else if (!strcmp(a, "--games") && v) {
            if (!parse_u64("tournament", "--games", argv[++i], 1, 1000000, &games)) return EXIT_USAGE;
        } else if (!strcmp(a, "--jobs") && v) {
            if (!parse_u64("tournament", "--jobs", argv[++i], 1, 256, &jobs)) return EXIT_USAGE;
        } else if (!strcmp(a, "--seed") && v) {
            if (!parse_u64("tournament", "--seed", argv[++i], 0, UINT64_MAX, &seed)) return EXIT_USAGE;
        } else if (!strcmp(a, "--csv") && v) {
            csv = argv[++i];
        } else if (!strcmp(a, "--plot") && v) {
            plot = argv[++i];
        } else if (!strcmp(a, "--sweep") && v) {
            sweep = argv[++i];
        } else if (!strcmp(a, "--engine") && v) {
            if (!cli_engine_parse("tournament", argv[++i], &engine)) return EXIT_USAGE;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "ggp tournament: unknown option or missing value: '%s'\n%s", a, tournament_help);
            return EXIT_USAGE;
        } else if (file) {
            fprintf(stderr, "ggp tournament: more than one rule file ('%s', '%s')\n", file, a);
            return EXIT_USAGE;
        } else {
            file = a;
        }
    }
    if (!file || !a_text || !b_text || !games) {
        fprintf(stderr, "ggp tournament: FILE, --a, --b and --games are required\n%s", tournament_help);
        return EXIT_USAGE;
    }
    if (plot && !sweep) {
        fputs("ggp tournament: --plot needs --sweep (the plot is score against the swept value)\n", stderr);
        return EXIT_USAGE;
    }
    if (resume && (!csv || sweep)) {
        fputs("ggp tournament: --resume needs --csv and no --sweep (it continues a per-game CSV)\n", stderr);
        return EXIT_USAGE;
    }

    /* The points: A's spec text for each swept value (or A alone). */
    char key[64] = "";
    size_t n_pts = 1;
    point_t *pts = NULL;
    char **texts = NULL, *values = NULL;
    int rc = EXIT_OK;
    char err[512];
    if (sweep) {
        const char *eq = strchr(sweep, '=');
        if (!eq || eq == sweep || (size_t)(eq - sweep) >= sizeof key || !eq[1]) {
            fprintf(stderr, "ggp tournament: bad value for --sweep: '%s' (expected KEY=V1,V2,...)\n", sweep);
            return EXIT_USAGE;
        }
        memcpy(key, sweep, (size_t)(eq - sweep));
        values = xstrdup(eq + 1);
        n_pts = 1;
        for (const char *p = values; *p; p++) n_pts += *p == ',';
    }
    pts = xcalloc(n_pts, sizeof *pts);
    texts = xcalloc(n_pts, sizeof *texts);
    char *save = NULL, *tok = values ? strtok_r(values, ",", &save) : NULL;
    for (size_t i = 0; i < n_pts; i++) {
        if (sweep) {
            if (!tok) {
                fprintf(stderr, "ggp tournament: --sweep has an empty value\n");
                rc = EXIT_USAGE;
                n_pts = i;
                break;
            }
            size_t len = strlen(a_text) + strlen(key) + strlen(tok) + 3;
            texts[i] = xmalloc(len);
            snprintf(texts[i], len, "%s%s%s=%s", a_text, strchr(a_text, ':') ? "," : ":", key, tok);
            pts[i].value = tok;
            tok = strtok_r(NULL, ",", &save);
        } else {
            texts[i] = xstrdup(a_text);
        }
        pts[i].a_text = texts[i];
        pts[i].a_spec = search_spec_parse(texts[i], err, sizeof err);
        if (!pts[i].a_spec) {
            fprintf(stderr, "ggp tournament: --a '%s': %s\n", texts[i], err);
            rc = EXIT_USAGE;
        }
    }
    search_spec_t *b_spec = search_spec_parse(b_text, err, sizeof err);
    if (!b_spec) {
        fprintf(stderr, "ggp tournament: --b '%s': %s\n", b_text, err);
        rc = EXIT_USAGE;
    }
    loaded_t l;
    game_t *g = rc == EXIT_OK ? local_load_game("tournament", file, engine, &l, &rc) : NULL;
    if (g && game_num_roles(g) < 2) {
        fprintf(stderr, "ggp tournament: %s has %u role; a tournament needs at least 2\n", file, game_num_roles(g));
        rc = EXIT_USAGE;
    } else if (g && game_num_roles(g) > 64) {
        fprintf(stderr, "ggp tournament: %s has more than 64 roles\n", file);
        rc = EXIT_USAGE;
    }
    /* Output files are opened before the first game, so that a path that
     * cannot be written fails at once rather than after hours of play. */
    tourn_t t = {.g = g, .k = g ? game_num_roles(g) : 0, .b = b_spec, .games = (uint32_t)games, .seed = seed,
                 .progress = !quiet, .label = "", .a_text = a_text, .b_text = b_text, .csv_path = csv};
    t.res = xcalloc(t.games, sizeof *t.res);
    t.todo = xcalloc(t.games, sizeof *t.todo);
    point_reset(&t);
    out_file_t csv_file = {0}, plot_file = {0};
    FILE *csv_games = NULL;
    if (rc == EXIT_OK && csv) {
        bool ok = sweep ? out_file_open(&csv_file, "tournament", csv)
                        : (csv_games = resume ? csv_resume(&t, csv, quiet) : csv_games_start("tournament", csv, csv_games_header)) != NULL;
        if (!ok) rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && plot && !out_file_open(&plot_file, "tournament", plot)) rc = EXIT_USAGE;
    if (rc == EXIT_OK) {
        t.csv = csv_games;
        pthread_mutex_init(&t.mu, NULL);
        uint32_t j = jobs > games ? (uint32_t)games : (uint32_t)jobs;
        char label[96];
        for (size_t i = 0; i < n_pts && !atomic_load(&t.stop); i++) {
            if (sweep) {
                snprintf(label, sizeof label, "%s=%s ", key, pts[i].value);
                t.label = label;
                point_reset(&t);
            }
            run_point(&t, j, &pts[i]);
            if (atomic_load(&t.stop)) break; /* a row was not written: reported */
            if (verbose) print_games(&t, file, pts[i].a_text, b_text, stdout);
            if (sweep) print_result(&pts[i], key, stdout);
            if (pts[i].failed) rc = EXIT_FAIL;
        }
        if (atomic_load(&t.stop)) rc = EXIT_USAGE;
        if (csv_file.f && rc != EXIT_USAGE) {
            csv_points(pts, n_pts, key, b_text, csv_file.f);
            if (!out_file_commit(&csv_file)) rc = EXIT_USAGE;
        }
        if (plot_file.f && rc != EXIT_USAGE) {
            svg_plot(pts, n_pts, key, a_text, b_text, t.games, plot_file.f);
            if (!out_file_commit(&plot_file)) rc = EXIT_USAGE;
        }
        if (!sweep && !atomic_load(&t.stop)) print_result(&pts[0], key, stdout);
        pthread_mutex_destroy(&t.mu);
    }
    out_file_discard(&csv_file);
    out_file_discard(&plot_file);
    if (csv_games && atomic_load(&t.stop)) fclose(csv_games); /* its error is reported */
    else if (csv_games && !out_stream_check(csv_games, "tournament", csv, true)) rc = EXIT_USAGE;
    free(t.res);
    free(t.todo);
    if (g) {
        game_free(g);
        loaded_free(&l);
    }
    for (size_t i = 0; i < n_pts; i++) {
        search_spec_free(pts[i].a_spec);
        free(texts[i]);
    }
    search_spec_free(b_spec);
    free(texts);
    free(pts);
    free(values);
    return rc;
}
