/* tourn_report.c - results, points CSV and plot of a tournament (see
 * tourn_report.h). */
#include "player/cli/tourn_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "player/cli/outfile.h"
#include "search/search.h"

void trep_summarize(const trec_t *r, size_t p, const trec_meta_t *shard, trep_point_t *pt)
{
    memset(pt, 0, sizeof *pt);
    for (uint32_t k = 0; k < r->m.games; k++) {
        if (!trec_in_shard(r, shard, p * r->m.games + k)) continue;
        const trec_game_t *g = &r->games[p * r->m.games + k];
        if (!g->done) {
            pt->missing++;
            continue;
        }
        switch (g->outcome) {
        case TREC_WIN: pt->wins++; break;
        case TREC_DRAW: pt->draws++; break;
        case TREC_LOSS: pt->losses++; break;
        default: pt->failed++; break;
        }
        pt->a.searches += g->a.searches;
        pt->a.playouts += g->a.playouts;
        pt->a.seconds += g->a.seconds;
        if (g->a.nodes_peak > pt->a.nodes_peak) pt->a.nodes_peak = g->a.nodes_peak;
        if (g->a.bytes_peak > pt->a.bytes_peak) pt->a.bytes_peak = g->a.bytes_peak;
        if (g->a.bytes_per_node) pt->a.bytes_per_node = g->a.bytes_per_node;
    }
    uint32_t n = pt->wins + pt->draws + pt->losses;
    double x = pt->wins + pt->draws / 2.0;
    pt->score = n ? x / n : 0;
    search_agresti_coull(x, n, &pt->lo, &pt->hi);
}

void trep_print_result(const trec_t *r, size_t p, const trep_point_t *pt, FILE *out)
{
    fputs("result", out);
    if (r->values) fprintf(out, " %s=%s", r->key, r->values[p]);
    fprintf(out, " games=%u wins=%u draws=%u losses=%u score=%.4f ci_low=%.4f ci_high=%.4f",
            pt->wins + pt->draws + pt->losses, pt->wins, pt->draws, pt->losses, pt->score, pt->lo, pt->hi);
    if (pt->failed) fprintf(out, " failed=%u", pt->failed);
    if (pt->missing) fprintf(out, " missing=%u", pt->missing);
    fputc('\n', out);
}

/* The CSV of the points of a sweep (one row per swept value). */
static void trep_points_csv(const trec_t *r, const trep_point_t *pts, FILE *out)
{
    fputs("key,value,games,wins,draws,losses,failed,score,ci_low,ci_high,a_playouts_per_move,a_seconds_per_move,"
          "a_nodes_peak,a_bytes_peak,a_bytes_per_node,a_spec,b_spec\n",
          out);
    for (size_t i = 0; i < r->n_pts; i++) {
        const trep_point_t *p = &pts[i];
        double moves = p->a.searches ? (double)p->a.searches : 1;
        fprintf(out, "%s,%s,%u,%u,%u,%u,%u,%.4f,%.4f,%.4f,%.1f,%.5f,%llu,%llu,%llu,", r->key, r->values[i],
                p->wins + p->draws + p->losses, p->wins, p->draws, p->losses, p->failed, p->score, p->lo, p->hi,
                p->a.playouts / moves, p->a.seconds / moves, (unsigned long long)p->a.nodes_peak,
                (unsigned long long)p->a.bytes_peak, (unsigned long long)p->a.bytes_per_node);
        trec_csv_field(r->a_texts[i], true, out);
        fputc(',', out);
        trec_csv_field(r->m.b, true, out);
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
static void trep_svg_plot(const trec_t *r, const trep_point_t *pts, FILE *out)
{
    const size_t n = r->n_pts;
    const char *key = r->key, *a_text = r->m.a, *b_text = r->m.b, *const *values = (const char *const *)r->values;
    const uint32_t games = r->m.games;
    const double W = 720, H = 440, L = 70, R = 30, T = 50, B = 60;
    bool numeric = true, logx = true;
    double xmin = 0, xmax = 0;
    for (size_t i = 0; i < n; i++) {
        char *end;
        double v = strtod(values[i], &end);
        if (*end || end == values[i]) numeric = false;
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
        fprintf(out, "%s%.1f,%.1f", i ? " " : "", SX(xval(values[i], i, numeric, logx)), SY(pts[i].score));
    }
    fputs("\"/>\n", out);
    for (size_t i = 0; i < n; i++) {
        double x = SX(xval(values[i], i, numeric, logx));
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\"/>\n", x, SY(pts[i].lo), x,
                SY(pts[i].hi));
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\"/>\n", x - 4,
                SY(pts[i].lo), x + 4, SY(pts[i].lo));
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\"/>\n", x - 4,
                SY(pts[i].hi), x + 4, SY(pts[i].hi));
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#c0392b\"><title>%s=%s: %.3f [%.3f, %.3f]</title>"
                     "</circle>\n", x, SY(pts[i].score), key, values[i], pts[i].score, pts[i].lo, pts[i].hi);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, T + ph + 18);
        xml_text(values[i], out);
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

bool trep_write_points(const trec_t *r, const trep_point_t *pts, out_file_t *csv, out_file_t *plot)
{
    bool ok = true;
    if (csv->f) {
        trep_points_csv(r, pts, csv->f);
        ok = out_file_commit(csv);
    }
    if (ok && plot->f) {
        trep_svg_plot(r, pts, plot->f);
        ok = out_file_commit(plot);
    }
    out_file_discard(csv);
    out_file_discard(plot);
    return ok;
}

/* ---- round robins ------------------------------------------------------------ */

/* Each method's games of the shard (points are pairs: A the first player,
 * B the second), and each pair's score for the row against the column. */
static void rr_tally(const trec_t *r, const trec_meta_t *shard, trep_method_t *m, double *px, double *pn)
{
    uint32_t n = r->m.n_players;
    for (size_t i = 0; i < r->n_pts * r->m.games; i++) {
        if (!trec_in_shard(r, shard, i)) continue;
        const trec_game_t *g = &r->games[i];
        size_t p = i / r->m.games;
        uint32_t a = r->pair[2 * p], b = r->pair[2 * p + 1];
        if (!g->done) {
            m[a].missing++;
            m[b].missing++;
            continue;
        }
        if (g->outcome == TREC_FAILED) {
            m[a].failed++;
            m[b].failed++;
            continue;
        }
        double xa = g->outcome == TREC_WIN ? 1 : g->outcome == TREC_DRAW ? 0.5 : 0;
        m[a].x += xa;
        m[b].x += 1 - xa;
        m[a].n++;
        m[b].n++;
        m[a].secs += g->a.seconds;
        m[b].secs += g->b_seconds;
        px[a * n + b] += xa;
        px[b * n + a] += 1 - xa;
        pn[a * n + b]++;
        pn[b * n + a]++;
    }
    for (uint32_t j = 0; j < n; j++) search_agresti_coull(m[j].x, m[j].n, &m[j].lo, &m[j].hi);
}

static void rr_table(const trec_t *r, const trep_method_t *m, const double *px, const double *pn, FILE *out)
{
    uint32_t n = r->m.n_players;
    const char *const *texts = (const char *const *)r->m.players;
    fprintf(out, "%-3s %-44s %6s %7s %17s %9s\n", "#", "method", "games", "win%", "95% CI", "s/game");
    for (uint32_t j = 0; j < n; j++)
        fprintf(out, "%-3u %-44.44s %6.0f %7.2f   [%5.1f, %5.1f] %9.3f%s\n", j + 1, texts[j], m[j].n,
                m[j].n ? 100 * m[j].x / m[j].n : 0, 100 * m[j].lo, 100 * m[j].hi, m[j].n ? m[j].secs / m[j].n : 0,
                m[j].failed ? " (some games failed)" : "");
    fputs("\nscore of the row against the column (%):\n   ", out);
    for (uint32_t j = 0; j < n; j++) fprintf(out, " %6u", j + 1);
    fputc('\n', out);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(out, "%-3u", i + 1);
        for (uint32_t j = 0; j < n; j++) {
            if (i == j || pn[i * n + j] == 0) fprintf(out, " %6s", "-");
            else fprintf(out, " %6.1f", 100 * px[i * n + j] / pn[i * n + j]);
        }
        fputc('\n', out);
    }
    for (uint32_t j = 0; j < n; j++) {
        fprintf(out, "result method=%u games=%.0f score=%.4f ci_low=%.4f ci_high=%.4f seconds_per_game=%.4f", j + 1,
                m[j].n, m[j].n ? m[j].x / m[j].n : 0, m[j].lo, m[j].hi, m[j].n ? m[j].secs / m[j].n : 0);
        if (m[j].missing) fprintf(out, " missing=%u", m[j].missing);
        fputc('\n', out);
    }
}

/* One horizontal bar per method (score), with its interval. */
static void rr_svg(const trec_t *r, const trep_method_t *m, FILE *out)
{
    uint32_t n = r->m.n_players;
    const double L = 330, W = 760, row = 26, T = 40, pw = W - L - 30;
    double H = T + row * n + 40;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
                 "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
    fprintf(out, "<text x=\"%.0f\" y=\"22\" text-anchor=\"middle\" font-size=\"13\">round robin: score over all games "
                 "(95%% Agresti-Coull), %u games per pair</text>\n", W / 2, r->m.games);
    for (int q = 0; q <= 4; q++) {
        double x = L + pw * q / 4;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ccc\"/>\n", x, T, x, T + row * n);
        fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%d%%</text>\n", x, T + row * n + 16, q * 25);
    }
    for (uint32_t j = 0; j < n; j++) {
        double y = T + row * j, s = m[j].n ? m[j].x / m[j].n : 0;
        fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", L - 6, y + 16);
        xml_text(r->m.players[j], out);
        fprintf(out, "</text>\n<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"#7f9bb8\"/>\n", L, y + 5,
                pw * s, row - 10);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n",
                L + pw * m[j].lo, y + row / 2, L + pw * m[j].hi, y + row / 2);
    }
    fputs("</svg>\n", out);
}

bool trep_rr_report(const trec_t *r, const trec_meta_t *shard, FILE *out, out_file_t *plot, uint32_t *failed,
                    uint32_t *missing)
{
    uint32_t n = r->m.n_players;
    trep_method_t *m = xcalloc(n, sizeof *m);
    double *px = xcalloc((size_t)n * n, sizeof *px), *pn = xcalloc((size_t)n * n, sizeof *pn);
    rr_tally(r, shard, m, px, pn);
    rr_table(r, m, px, pn, out);
    *failed = *missing = 0;
    for (uint32_t j = 0; j < n; j++) {
        *failed += m[j].failed;
        *missing += m[j].missing;
    }
    *failed /= 2; /* each game counted for both of its methods */
    *missing /= 2;
    bool ok = true;
    if (plot->f) {
        rr_svg(r, m, plot->f);
        ok = out_file_commit(plot);
    }
    out_file_discard(plot);
    free(m);
    free(px);
    free(pn);
    return ok;
}
