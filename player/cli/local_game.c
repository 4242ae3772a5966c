/* local_game.c - one local game between searchers (see local_game.h). */
#include "player/cli/local_game.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/rng.h"
#include "base/xalloc.h"
#include "player/cli/common.h"

static void local_print_state(const game_t *g, const game_state_t *s, FILE *out);

/* The seed of a seat's searcher. */
static uint64_t local_seat_seed(uint64_t game_seed, uint32_t seat, const search_spec_t *spec)
{
    return rng_derive(rng_derive(game_seed, seat), search_spec_seed(spec));
}

uint64_t local_hash_bytes(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static uint64_t local_hash(uint64_t h, const char *s) { return local_hash_bytes(h, s, strlen(s)); }

static void print_report(const game_t *g, uint32_t r, const search_report_t *rep, FILE *out)
{
    fprintf(out, "  %s: playouts=%llu nodes_peak=%llu bytes/node=%llu bytes_peak=%llu value=%.3f time=%.3fs cpu=%.3fs",
            game_role_name(g, r), (unsigned long long)rep->playouts, (unsigned long long)rep->nodes_peak,
            (unsigned long long)rep->bytes_per_node, (unsigned long long)rep->bytes_peak, rep->value, rep->seconds, rep->cpu_seconds);
    /* compete's tree reuse: the root's visits kept from earlier searches */
    if (rep->reused) fprintf(out, " reused=%llu", (unsigned long long)rep->reused);
    if (rep->recycled) fprintf(out, " recycled=%llu", (unsigned long long)rep->recycled);
    if (rep->capped) fprintf(out, " capped=%llu", (unsigned long long)rep->capped);
    if (rep->la_checks)
        fprintf(out, " lookahead=%llu/%llu", (unsigned long long)rep->la_proofs, (unsigned long long)rep->la_checks);
    if (rep->tt_stored || rep->tt_hits)
        fprintf(out, " tt=%llu/%llu", (unsigned long long)rep->tt_hits, (unsigned long long)rep->tt_stored);
    /* cache=on: tree steps into nodes whose state was cached (no reasoner call) */
    if (rep->cached_steps) fprintf(out, " cached=%llu", (unsigned long long)rep->cached_steps);
    /* a simulation's mean length in steps, of which in the tree: a search's
     * playouts per second beside `ggp bench`'s random games (issue 12, item 7) */
    if (rep->playouts && rep->steps)
        fprintf(out, " steps/playout=%.1f tree=%.1f", (double)rep->steps / (double)rep->playouts,
                (double)rep->tree_steps / (double)rep->playouts);
    bool any = false; /* playout=switch: how often each strategy was chosen (grave-spec §14.2) */
    for (uint32_t i = 0; i < SEARCH_MAX_STRATEGIES && search_strategy_name(i); i++)
        if (rep->strategy[i]) {
            fprintf(out, "%s%s=%llu", any ? "," : " strategies:", search_strategy_name(i),
                    (unsigned long long)rep->strategy[i]);
            any = true;
        }
    fputc('\n', out);
}

void local_game_play(const game_t *g, const search_spec_t *const *specs, uint64_t game_seed, uint32_t max_steps,
                     FILE *out, bool verbose, seat_totals_t *totals, local_game_t *res)
{
    if (!max_steps) max_steps = LOCAL_MAX_STEPS;
    uint32_t k = game_num_roles(g);
    memset(res, 0, sizeof *res);
    res->moves_hash = LOCAL_HASH_START;
    for (uint32_t r = 0; r < k && r < 64; r++) res->goals[r] = GAME_GOAL_NONE;
    if (totals) memset(totals, 0, k * sizeof *totals);
    if (k == 0 || k > 64) {
        snprintf(res->error, sizeof res->error, "cannot play a game with %u roles", k);
        return;
    }
    for (uint32_t r = 0; r < k; r++) { /* alpha-beta and NMCS play some games only */
        char why[120];
        if (!search_spec_check_game(specs[r], g, why, sizeof why)) {
            snprintf(res->error, sizeof res->error, "%s: %s", game_role_name(g, r), why);
            return;
        }
    }
    searcher_t **seat = xcalloc(k, sizeof *seat);
    for (uint32_t r = 0; r < k; r++) {
        seat[r] = searcher_new(g, r, specs[r]);
        searcher_reseed(seat[r], local_seat_seed(game_seed, r, specs[r]));
    }
    game_ctx_t *ctx = game_ctx_new(g);
    game_state_t *st = game_state_new(g);
    game_initial(ctx, st);
    game_ctx_set_state(ctx, st);
    move_id_t *joint = xcalloc(k, sizeof *joint);
    search_report_t *rep = xcalloc(k, sizeof *rep);
    while (!game_is_terminal(ctx)) {
        if (res->steps >= max_steps) {
            snprintf(res->error, sizeof res->error, "no terminal state after %u steps", max_steps);
            break;
        }
        game_state_copy(g, st, game_ctx_state(ctx));
        for (uint32_t r = 0; r < k; r++) {
            joint[r] = searcher_choose(seat[r], st, deadline_none(), NULL, &rep[r]);
            if (joint[r] == UINT32_MAX) {
                snprintf(res->error, sizeof res->error, "step %u: %s has no legal move", res->steps + 1,
                         game_role_name(g, r));
                goto done;
            }
            if (totals && rep[r].playouts) {
                seat_totals_t *t = &totals[r];
                t->searches++;
                t->playouts += rep[r].playouts;
                t->seconds += rep[r].seconds;
                if (rep[r].nodes_peak > t->nodes_peak) t->nodes_peak = rep[r].nodes_peak;
                if (rep[r].bytes_peak > t->bytes_peak) t->bytes_peak = rep[r].bytes_peak;
                t->bytes_per_node = rep[r].bytes_per_node;
            }
        }
        res->steps++;
        for (uint32_t r = 0; r < k; r++) {
            res->moves_hash = local_hash(res->moves_hash, game_move_name(g, r, joint[r], false));
            res->moves_hash = local_hash(res->moves_hash, r + 1 < k ? "," : ";");
        }
        if (out) {
            fprintf(out, "step %u:", res->steps);
            for (uint32_t r = 0; r < k; r++)
                fprintf(out, " %s=%s", game_role_name(g, r), game_move_name(g, r, joint[r], false));
            fputc('\n', out);
            if (verbose)
                for (uint32_t r = 0; r < k; r++)
                    if (rep[r].playouts) print_report(g, r, &rep[r], out);
        }
        game_ctx_play(ctx, joint);
    }
    if (game_is_terminal(ctx)) res->ok = true;
done:
    for (uint32_t r = 0; r < k; r++) res->goals[r] = game_goal(ctx, r);
    if (out && res->ok) local_print_state(g, game_ctx_state(ctx), out);
    for (uint32_t r = 0; r < k; r++) searcher_free(seat[r]);
    free(seat);
    free(joint);
    free(rep);
    game_state_free(st);
    game_ctx_free(ctx);
}

/* ---- board print ---------------------------------------------------------- */

/* A fluent (cell X Y C...) with atomic X and Y: X is the column and Y the
 * row, as in tic-tac-toe, connect four (cell column height piece) and chess
 * (cell file rank piece, or (cell file rank color piece)). The content is
 * the remaining atomic arguments joined by spaces ("white rook"), or "*"
 * when there are none (a lit cell of lights out). */
typedef struct cell {
    char x[32], y[32], m[64];
} cell_t;

typedef struct labels {
    const char **l;
    size_t n, cap;
} labels_t;

static int cmp_label(const void *a, const void *b)
{
    const char *s = *(const char *const *)a, *t = *(const char *const *)b;
    char *e1, *e2;
    long x = strtol(s, &e1, 10), y = strtol(t, &e2, 10);
    if (!*e1 && !*e2 && *s && *t) return (x > y) - (x < y);
    return strcmp(s, t);
}

static void label_add(labels_t *ls, const char *l)
{
    for (size_t j = 0; j < ls->n; j++)
        if (!strcmp(ls->l[j], l)) return;
    XVEC_RESERVE(&ls->l, &ls->cap, ls->n + 1);
    ls->l[ls->n++] = l;
}

/* Read the (cell X Y C...) forms of printed fluents. */
static size_t scan_cells(const char *text, cell_t **out)
{
    size_t n = 0, cap = 0;
    cell_t *cells = NULL;
    for (const char *p = text; (p = strchr(p, '(')) != NULL; p++) {
        const char *q = p + 1;
        if (strncasecmp(q, "cell ", 5)) continue;
        q += 5;
        cell_t c = {0};
        int nt = 0;
        bool atomic = true;
        size_t used = 0;
        while (*q && *q != ')') {
            while (*q == ' ') q++;
            if (*q == '(') {
                atomic = false;
                break;
            }
            size_t len = strcspn(q, " ()");
            if (!len) break;
            int l = (int)(len < 31 ? len : 31);
            if (nt == 0) snprintf(c.x, sizeof c.x, "%.*s", l, q);
            else if (nt == 1) snprintf(c.y, sizeof c.y, "%.*s", l, q);
            else if (used + 1 < sizeof c.m) {
                int w = snprintf(c.m + used, sizeof c.m - used, "%s%.*s", used ? " " : "", l, q);
                used = w < 0 ? used : used + (size_t)w < sizeof c.m ? used + (size_t)w : sizeof c.m - 1;
            }
            nt++;
            q += len;
        }
        if (!atomic || nt < 2 || *q != ')') continue;
        if (nt == 2) snprintf(c.m, sizeof c.m, "*");
        XVEC_RESERVE(&cells, &cap, n + 1);
        cells[n++] = c;
    }
    *out = cells;
    return n;
}

/* Sort labels; a board's coordinates are completed to a range, so that a
 * column or row that no fluent names (empty) is drawn too: numbers from 1
 * (or 0 when 0 is used) to the largest, up to 64; single letters from a to
 * the largest. names holds the texts of the completed labels. */
enum { LABELS_TEXT, LABELS_NUMBERS, LABELS_LETTERS };
static int complete_labels(labels_t *ls, char names[65][4])
{
    bool num = ls->n > 0, let = ls->n > 0;
    long lo = 1, hi = 0;
    char base = 0;
    int top = 0;
    for (size_t i = 0; i < ls->n; i++) {
        const char *l = ls->l[i];
        char *e;
        long v = strtol(l, &e, 10);
        if (!*l || *e || v < 0 || v > 64) num = false;
        else if (v > hi) hi = v;
        if (*l && !*e && v == 0) lo = 0;
        char b = l[0] >= 'a' && l[0] <= 'z' ? 'a' : l[0] >= 'A' && l[0] <= 'Z' ? 'A' : 0;
        if (!b || l[1] || (base && b != base)) {
            let = false;
        } else {
            base = b;
            if (l[0] - b + 1 > top) top = l[0] - b + 1;
        }
    }
    if (num || let) {
        ls->n = 0;
        for (long v = num ? lo : 0; v <= (num ? hi : top - 1); v++) {
            if (num) snprintf(names[v], 4, "%ld", v);
            else names[v][0] = (char)(base + v), names[v][1] = '\0';
            label_add(ls, names[v]);
        }
        return num ? LABELS_NUMBERS : LABELS_LETTERS;
    }
    qsort(ls->l, ls->n, sizeof *ls->l, cmp_label);
    return LABELS_TEXT;
}

static char *state_text(const game_t *g, const game_state_t *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    game_state_print(g, s, mem, false);
    fclose(mem);
    return buf;
}

/* The grid of s's cells, on the board that every fluent the game can hold
 * (game_all_fluents) or else its initial and this state span: column
 * labels on top, row labels on the left (numeric rows from the highest
 * down, so that row 1 is at the bottom), "." for a cell s does not hold. */
static void print_board(const game_t *g, const game_state_t *s, const char *text, FILE *out)
{
    cell_t *cells, *extent;
    size_t n = scan_cells(text, &cells);
    game_state_t *span = game_state_new(g);
    if (!game_all_fluents(g, span)) {
        game_ctx_t *c = game_ctx_new(g);
        game_initial(c, span);
        game_ctx_free(c);
    }
    char *span_text = state_text(g, span);
    size_t ne = scan_cells(span_text, &extent);
    labels_t xs = {0}, ys = {0};
    for (size_t i = 0; i < ne; i++) label_add(&xs, extent[i].x), label_add(&ys, extent[i].y);
    for (size_t i = 0; i < n; i++) label_add(&xs, cells[i].x), label_add(&ys, cells[i].y);
    char xnames[65][4], ynames[65][4];
    complete_labels(&xs, xnames);
    bool numeric_rows = complete_labels(&ys, ynames) == LABELS_NUMBERS;
    if (n >= 1 && xs.n * ys.n >= 2) {
        int w = 1, rw = 1;
        for (size_t i = 0; i < n; i++) w = (int)strlen(cells[i].m) > w ? (int)strlen(cells[i].m) : w;
        for (size_t i = 0; i < xs.n; i++) w = (int)strlen(xs.l[i]) > w ? (int)strlen(xs.l[i]) : w;
        for (size_t i = 0; i < ys.n; i++) rw = (int)strlen(ys.l[i]) > rw ? (int)strlen(ys.l[i]) : rw;
        fprintf(out, "  %*s ", rw, "");
        for (size_t i = 0; i < xs.n; i++)
            fprintf(out, i + 1 < xs.n ? "%-*s " : "%.*s\n", i + 1 < xs.n ? w : (int)strlen(xs.l[i]), xs.l[i]);
        for (size_t k = 0; k < ys.n; k++) {
            const char *y = ys.l[numeric_rows ? ys.n - 1 - k : k];
            fprintf(out, "  %*s ", rw, y);
            for (size_t i = 0; i < xs.n; i++) {
                const char *m = ".";
                for (size_t c = 0; c < n; c++)
                    if (!strcmp(cells[c].x, xs.l[i]) && !strcmp(cells[c].y, y)) m = cells[c].m;
                if (i + 1 < xs.n) fprintf(out, "%-*s ", w, m);
                else fprintf(out, "%s\n", m);
            }
        }
    }
    free(xs.l);
    free(ys.l);
    free(extent);
    free(span_text);
    game_state_free(span);
    free(cells);
}

/* Print a state as `game_state_print` does, then, if it has (cell X Y C...)
 * fluents, a grid of their contents C with X as columns and Y as rows,
 * labelled on top and on the left, over the whole board (every column and
 * row the game can use, empty ones too). */
static void local_print_state(const game_t *g, const game_state_t *s, FILE *out)
{
    char *text = state_text(g, s);
    fprintf(out, "state: %s\n", text);
    print_board(g, s, text, out);
    free(text);
}

/* ---- loading ---------------------------------------------------------------- */

game_t *local_load_game(const char *cmd, const char *path, const game_options_t *opt, gdl_loaded_t *l, int *rc)
{
    game_options_t o = *opt;
    o.quiet = true;
    return cli_game_open(cmd, path, &o, l, rc);
}

