/* local_game.c - one local game between searchers (see local_game.h). */
#include "player/cli/local_game.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/rng.h"
#include "base/xalloc.h"
#include "player/cli/common.h"

uint64_t local_seat_seed(uint64_t game_seed, uint32_t seat, const search_spec_t *spec)
{
    return rng_derive(rng_derive(game_seed, seat), search_spec_seed(spec));
}

static void print_report(const game_t *g, uint32_t r, const search_report_t *rep, FILE *out)
{
    fprintf(out, "  %s: playouts=%llu nodes_peak=%llu bytes/node=%llu bytes_peak=%llu value=%.3f time=%.3fs",
            game_role_name(g, r), (unsigned long long)rep->playouts, (unsigned long long)rep->nodes_peak,
            (unsigned long long)rep->bytes_per_node, (unsigned long long)rep->bytes_peak, rep->value, rep->seconds);
    if (rep->recycled) fprintf(out, " recycled=%llu", (unsigned long long)rep->recycled);
    if (rep->capped) fprintf(out, " capped=%llu", (unsigned long long)rep->capped);
    bool any = false; /* playout=switch: how often each strategy was chosen (grave-spec §14.2) */
    for (uint32_t i = 0; i < SEARCH_MAX_STRATEGIES && search_strategy_name(i); i++)
        if (rep->strategy[i]) {
            fprintf(out, "%s%s=%llu", any ? "," : " strategies:", search_strategy_name(i),
                    (unsigned long long)rep->strategy[i]);
            any = true;
        }
    fputc('\n', out);
}

void local_game_play(const game_t *g, const search_spec_t *const *specs, uint64_t game_seed, FILE *out, bool verbose,
                     seat_totals_t *totals, local_game_t *res)
{
    uint32_t k = game_num_roles(g);
    memset(res, 0, sizeof *res);
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
    const uint32_t max_steps = 100000;
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

int local_outcome(const local_game_t *res, uint32_t k, uint32_t seat)
{
    if (!res->ok) return 2;
    int best = -1000;
    for (uint32_t s = 0; s < k; s++)
        if (s != seat && res->goals[s] > best) best = res->goals[s];
    int a = res->goals[seat];
    return a > best ? 1 : a == best ? 0 : -1;
}

/* ---- board print ---------------------------------------------------------- */

typedef struct cell {
    char x[32], y[32], m[32];
} cell_t;

static int cmp_label(const void *a, const void *b)
{
    const char *s = *(const char *const *)a, *t = *(const char *const *)b;
    char *e1, *e2;
    long x = strtol(s, &e1, 10), y = strtol(t, &e2, 10);
    if (!*e1 && !*e2 && *s && *t) return (x > y) - (x < y);
    return strcmp(s, t);
}

/* Distinct labels (x or y, chosen by off) of the cells, sorted. */
static size_t labels(const cell_t *c, size_t n, size_t off, const char **out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *l = (const char *)&c[i] + off;
        size_t j = 0;
        while (j < m && strcmp(out[j], l)) j++;
        if (j == m) out[m++] = l;
    }
    qsort(out, m, sizeof *out, cmp_label);
    return m;
}

/* Read "(cell A B C)" forms with three atomic arguments from printed text. */
static size_t scan_cells(const char *text, cell_t **out)
{
    size_t n = 0, cap = 0;
    cell_t *cells = NULL;
    for (const char *p = text; (p = strchr(p, '(')) != NULL; p++) {
        const char *q = p + 1;
        if (strncasecmp(q, "cell ", 5)) continue;
        q += 5;
        char tok[3][32];
        int nt = 0;
        bool atomic = true;
        while (*q && *q != ')' && nt <= 3) {
            while (*q == ' ') q++;
            if (*q == '(' ) { atomic = false; break; }
            size_t len = strcspn(q, " ()");
            if (!len) break;
            if (nt < 3) snprintf(tok[nt], sizeof tok[nt], "%.*s", (int)(len < 31 ? len : 31), q);
            nt++;
            q += len;
        }
        if (!atomic || nt != 3 || *q != ')') continue;
        XVEC_RESERVE(&cells, &cap, n + 1);
        memcpy(cells[n].x, tok[0], 32);
        memcpy(cells[n].y, tok[1], 32);
        memcpy(cells[n].m, tok[2], 32);
        n++;
    }
    *out = cells;
    return n;
}

/* When every label is a number from 1 to 64 (board coordinates), replace
 * them by "1" .. the largest (l has room for 64), written into *buf (freed
 * by the caller); returns the label count. Otherwise leaves them and *buf NULL. */
static size_t numeric_range(const char **l, size_t n, char **buf)
{
    long hi = 0;
    for (size_t i = 0; i < n; i++) {
        char *e;
        long v = strtol(l[i], &e, 10);
        if (!*l[i] || *e || v < 1 || v > 64) return n;
        if (v > hi) hi = v;
    }
    *buf = xcalloc((size_t)hi, 3);
    for (long v = 1; v <= hi; v++) {
        char *d = *buf + (v - 1) * 3; /* v <= 64: two digits at most */
        l[v - 1] = d;
        if (v >= 10) *d++ = (char)('0' + v / 10);
        *d++ = (char)('0' + v % 10);
        *d = '\0';
    }
    return (size_t)hi;
}

void local_print_state(const game_t *g, const game_state_t *s, FILE *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    game_state_print(g, s, mem, false);
    fclose(mem);
    fprintf(out, "state: %s\n", buf);
    cell_t *cells;
    size_t n = scan_cells(buf, &cells);
    if (n >= 2) {
        /* room for every cell's labels, or for a completed range (up to 64) */
        size_t room = n > 64 ? n : 64;
        const char **xs = xcalloc(room, sizeof *xs), **ys = xcalloc(room, sizeof *ys);
        size_t nx = labels(cells, n, offsetof(cell_t, x), xs), ny = labels(cells, n, offsetof(cell_t, y), ys);
        int w = 1;
        for (size_t i = 0; i < n; i++) {
            int l = (int)strlen(cells[i].m);
            if (l > w) w = l;
        }
        /* (cell X Y MARK): X is the column and Y the row, as in connect four
         * (cell column height) and chess (cell file rank); numeric rows are
         * printed from the highest down, so that row 1 is at the bottom. A
         * state holds only some cells (empty ones are often absent): numeric
         * labels are completed to the range from 1 to the largest. */
        char *xr = NULL, *yr = NULL;
        nx = numeric_range(xs, nx, &xr);
        ny = numeric_range(ys, ny, &yr);
        bool numeric = yr != NULL;
        for (size_t k = 0; k < ny; k++) {
            const char *y = ys[numeric ? ny - 1 - k : k];
            fputs("  ", out);
            for (size_t i = 0; i < nx; i++) {
                const char *m = ".";
                for (size_t c = 0; c < n; c++)
                    if (!strcmp(cells[c].x, xs[i]) && !strcmp(cells[c].y, y)) m = cells[c].m;
                fprintf(out, "%s%-*s", i ? " " : "", w, m);
            }
            fputc('\n', out);
        }
        free(xs);
        free(ys);
        free(xr);
        free(yr);
    }
    free(cells);
    free(buf);
}

/* ---- loading ---------------------------------------------------------------- */

game_t *local_load_game(const char *cmd, const char *path, engine_kind_t engine, loaded_t *l, int *rc)
{
    game_options_t opt = {.engine = engine, .quiet = true};
    return cli_game_open(cmd, path, &opt, l, rc);
}

