/* gtp.c - the Go Text Protocol session (gtp.h), through reasoner/game.h.
 *
 * The session keeps the states of the game played so far (the current one
 * last) and the moves that made them, so that undo drops the last move (and
 * the turn given before it, turn_to) and a new komi (a new game: komi is
 * part of the rules) replays the moves. */
#include "player/gtp/gtp.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/clock.h"
#include "base/rng.h"
#include "base/xalloc.h"
#include "games/go/go.h"
#include "games/registry.h"
#include "reasoner/game.h"
#include "search/search.h"

enum { BLACK = 0, WHITE = 1 };
/* movers[i]: hist[i + 1] is hist[i] with the turn given to the colour
 * (turn_to), no move; or (OVER) hist[i] again: the colour's pass after
 * the game ended (GTP 2 has no end of game: a controller may ask for or
 * send passes after it, and undo them) */
enum { TURNED = 0x80, OVER = 0x40 };

struct gtp {
    char *spec_text, *opts, *name, *version;
    search_spec_t *spec;       /* as given */
    search_spec_t *spec_timed; /* with seconds=: when the clock sets the budget; or NULL */
    bool spec_has_budget;      /* playouts=, nodes=, seconds= ... given */
    uint64_t seed;
    uint64_t games; /* games opened so far (boardsize, clear_board, komi) */
    FILE *log;
    uint32_t size;
    double komi;
    game_t *game;
    game_ctx_t *ctx;
    uint32_t role[2];
    searcher_t *seat[2], *seat_timed[2];
    game_state_t **hist; /* n_hist states, the current one last */
    move_id_t *moves;    /* moves[i] led from hist[i] to hist[i + 1] */
    uint8_t *movers;     /* who played moves[i]: a colour, | TURNED for a turn given (turn_to), | OVER */
    size_t n_hist, cap_hist;
    /* time_settings and time_left (seconds) */
    bool tc;
    double main_time, byo_time;
    long byo_stones;
    bool left_set[2];
    double left[2];
    long stones[2];
};

static const char *const known[] = {
    "protocol_version", "name",      "version", "known_command", "list_commands", "quit",       "boardsize",
    "clear_board",      "komi",      "play",    "genmove",       "undo",          "showboard",  "final_score",
    "time_settings",    "time_left", NULL,
};

/* ---- game ---- */

static void seats_free(gtp_t *g)
{
    for (int c = 0; c < 2; c++) {
        searcher_free(g->seat[c]);
        searcher_free(g->seat_timed[c]);
        g->seat[c] = g->seat_timed[c] = NULL;
    }
}

static void hist_clear(gtp_t *g)
{
    for (size_t i = 0; i < g->n_hist; i++) game_state_free(g->hist[i]);
    g->n_hist = 0;
}

static void game_drop(gtp_t *g)
{
    seats_free(g);
    hist_clear(g);
    if (g->ctx) game_ctx_free(g->ctx);
    if (g->game) game_free(g->game);
    g->ctx = NULL;
    g->game = NULL;
}

static void hist_push(gtp_t *g, game_state_t *s)
{
    if (g->n_hist == g->cap_hist) {
        g->cap_hist = g->cap_hist ? 2 * g->cap_hist : 64;
        g->hist = xrealloc(g->hist, g->cap_hist * sizeof *g->hist);
        g->moves = xrealloc(g->moves, g->cap_hist * sizeof *g->moves);
        g->movers = xrealloc(g->movers, g->cap_hist * sizeof *g->movers);
    }
    g->hist[g->n_hist++] = s;
}

static const game_state_t *cur(const gtp_t *g) { return g->hist[g->n_hist - 1]; }

static uint64_t seat_seed(const gtp_t *g, int c, const search_spec_t *spec)
{
    return rng_derive(rng_derive(rng_derive(g->seed, g->games), (uint64_t)c), search_spec_seed(spec));
}

/* A game of size and komi with the session's options; false with why in
 * err (the session unchanged). The board is cleared. */
static bool game_open(gtp_t *g, uint32_t size, double komi, char *err, size_t elen)
{
    char name[512];
    /* a move cap well past real games: the game ends at two passes */
    int n = snprintf(name, sizeof name, "go%u:cap=%u%s%s,komi=%g", size, 6 * size * size, *g->opts ? "," : "", g->opts,
                     komi);
    if (n < 0 || (size_t)n >= sizeof name) {
        snprintf(err, elen, "game options too long");
        return false;
    }
    game_t *game = native_game_open(name, err, elen);
    if (!game) return false;
    int rb = game_role_index(game, "black"), rw = game_role_index(game, "white");
    if (rb < 0 || rw < 0 || game_num_roles(game) != 2) {
        snprintf(err, elen, "%s is not Go (roles black and white)", name);
        game_free(game);
        return false;
    }
    if (!search_spec_check_game(g->spec, game, err, elen)) {
        game_free(game);
        return false;
    }
    game_drop(g);
    g->games++;
    g->game = game;
    g->size = size;
    g->komi = komi;
    g->role[BLACK] = (uint32_t)rb;
    g->role[WHITE] = (uint32_t)rw;
    g->ctx = game_ctx_new(game);
    game_state_t *s = game_state_new(game);
    game_initial(g->ctx, s);
    hist_push(g, s);
    for (int c = 0; c < 2; c++) {
        g->seat[c] = searcher_new(game, g->role[c], g->spec);
        searcher_reseed(g->seat[c], seat_seed(g, c, g->spec));
        if (g->spec_timed) {
            g->seat_timed[c] = searcher_new(game, g->role[c], g->spec_timed);
            searcher_reseed(g->seat_timed[c], seat_seed(g, c, g->spec_timed));
        }
    }
    return true;
}

/* The colour to move in the current state, or -1 when the game is over. */
static int to_move(gtp_t *g)
{
    game_ctx_set_state(g->ctx, cur(g));
    if (game_is_terminal(g->ctx)) return -1;
    for (int c = 0; c < 2; c++) {
        const move_id_t *m;
        uint32_t n = game_legal(g->ctx, g->role[c], &m);
        if (n > 1 || (n == 1 && strcmp(game_move_name(g->game, g->role[c], m[0], true), "noop"))) return c;
    }
    return -1;
}

/* Colour c (to move) plays m. */
static void play_move(gtp_t *g, int c, move_id_t m)
{
    game_ctx_set_state(g->ctx, cur(g));
    const move_id_t *other;
    uint32_t n = game_legal(g->ctx, g->role[1 - c], &other);
    move_id_t joint[2];
    joint[g->role[c]] = m;
    joint[g->role[1 - c]] = n ? other[0] : 0;
    game_state_t *s = game_state_new(g->game);
    game_next(g->ctx, joint, s);
    g->moves[g->n_hist - 1] = m;
    g->movers[g->n_hist - 1] = (uint8_t)c;
    hist_push(g, s);
}

/* Push the current state with the turn given to the other colour, as
 * colour c's (TURNED) entry. */
static void give_turn(gtp_t *g, int c)
{
    game_state_t *s = game_state_new(g->game);
    game_state_copy(g->game, s, cur(g));
    go_state_give_turn(g->game, s); /* the session's game is Go (game_open) */
    g->moves[g->n_hist - 1] = UINT32_MAX;
    g->movers[g->n_hist - 1] = (uint8_t)(c | TURNED);
    hist_push(g, s);
}

/* Colour c passes after the game ended: an entry of its own, the state
 * unchanged, so that undo takes back this pass and not the move before. */
static void pass_after_end(gtp_t *g, int c)
{
    game_state_t *s = game_state_new(g->game);
    game_state_copy(g->game, s, cur(g));
    g->moves[g->n_hist - 1] = UINT32_MAX;
    g->movers[g->n_hist - 1] = (uint8_t)(c | OVER);
    hist_push(g, s);
}

/* Give the turn to colour c, or false with why. GTP 2 (§6.3.3, play and
 * genmove) allows moves of one colour in succession, as handicap stones
 * are placed; the game alternates, so the turn is handed over with the
 * board as it is (go_state_give_turn; a pass put in instead would count
 * toward the two that end the game), and undo takes it back with the
 * move after it. */
static bool turn_to(gtp_t *g, int c, const char **why)
{
    int mover = to_move(g);
    if (mover == c) return true;
    if (mover < 0) {
        *why = "the game is over";
        return false;
    }
    give_turn(g, c);
    return true;
}

/* Drop the turn turn_to just gave (the move after it was refused). */
static void untake_turn(gtp_t *g, size_t n_before)
{
    while (g->n_hist > n_before) game_state_free(g->hist[--g->n_hist]);
}

/* Take back the last move, and the turn given before it. */
static void take_back(gtp_t *g)
{
    game_state_free(g->hist[--g->n_hist]);
    if (g->n_hist >= 2 && (g->movers[g->n_hist - 2] & TURNED)) game_state_free(g->hist[--g->n_hist]);
}

/* ---- vertices ---- */

static bool parse_colour(const char *t, int *c)
{
    if (!strcasecmp(t, "b") || !strcasecmp(t, "black")) *c = BLACK;
    else if (!strcasecmp(t, "w") || !strcasecmp(t, "white")) *c = WHITE;
    else return false;
    return true;
}

/* A vertex (or pass) as the game's move text; false if it is not one on
 * this board. */
static bool vertex_to_text(const gtp_t *g, const char *t, char *buf, size_t len)
{
    if (!strcasecmp(t, "pass")) {
        snprintf(buf, len, "pass");
        return true;
    }
    char col = (char)toupper((unsigned char)t[0]);
    if (col < 'A' || col > 'Z' || col == 'I') return false;
    uint32_t x = (uint32_t)(col - 'A') + (col > 'I' ? 0 : 1);
    uint32_t y = 0;
    size_t nd = strlen(t + 1);
    if (nd < 1 || nd > 2 || t[1] == '0') return false;
    for (size_t i = 1; t[i]; i++) {
        if (!isdigit((unsigned char)t[i])) return false;
        y = y * 10 + (uint32_t)(t[i] - '0');
    }
    if (x > g->size || y < 1 || y > g->size) return false;
    snprintf(buf, len, "(play %u %u)", x, y);
    return true;
}

static char column_letter(uint32_t x) { return (char)('A' + x - 1 + (x >= 9 ? 1 : 0)); }

/* The GTP vertex of move m of colour c. */
static void move_to_vertex(const gtp_t *g, int c, move_id_t m, char *buf, size_t len)
{
    const char *t = game_move_name(g->game, g->role[c], m, true);
    unsigned x, y;
    if (sscanf(t, "(play %u %u)", &x, &y) == 2 && x >= 1 && x <= g->size && y >= 1 && y <= g->size)
        snprintf(buf, len, "%c%u", column_letter(x), y);
    else snprintf(buf, len, "pass");
}

/* ---- board and score ---- */

/* The current board from the state's (cell X Y COLOUR) fluents: board[(y -
 * 1) * size + x - 1] is 0 empty, 1 black, 2 white. */
static void read_board(const gtp_t *g, uint8_t *board)
{
    uint32_t pts = g->size * g->size, cap = pts + 64;
    memset(board, 0, pts);
    uint32_t *ids = xcalloc(cap, sizeof *ids);
    uint32_t n = game_state_fluents(g->game, cur(g), ids, cap);
    if (n > cap) n = cap;
    for (uint32_t i = 0; i < n; i++) {
        char t[64], colour[16];
        unsigned x, y;
        game_fluent_text(g->game, ids[i], t, sizeof t);
        if (sscanf(t, "(cell %u %u %15[a-z])", &x, &y, colour) != 3 || x < 1 || x > g->size || y < 1 || y > g->size)
            continue;
        board[(y - 1) * g->size + x - 1] = !strcmp(colour, "black") ? 1 : !strcmp(colour, "white") ? 2 : 0;
    }
    free(ids);
}

/* ---- responses ---- */

typedef struct reply {
    bool ok;
    char text[8192];
} reply_t;

static bool say(reply_t *r, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool say(reply_t *r, bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text, sizeof r->text, fmt, ap);
    va_end(ap);
    r->ok = ok;
    return true;
}

static void showboard(const gtp_t *g, reply_t *r)
{
    uint32_t n = g->size;
    uint8_t b[19 * 19];
    read_board(g, b);
    size_t u = 0;
    char *t = r->text;
    size_t cap = sizeof r->text;
    u += (size_t)snprintf(t + u, cap - u, "\n  ");
    for (uint32_t x = 1; x <= n; x++) u += (size_t)snprintf(t + u, cap - u, " %c", column_letter(x));
    for (uint32_t y = n; y >= 1; y--) {
        u += (size_t)snprintf(t + u, cap - u, "\n%2u", y);
        for (uint32_t x = 1; x <= n; x++) u += (size_t)snprintf(t + u, cap - u, " %c", ".XO"[b[(y - 1) * n + x - 1]]);
        u += (size_t)snprintf(t + u, cap - u, " %-2u", y);
    }
    u += (size_t)snprintf(t + u, cap - u, "\n  ");
    for (uint32_t x = 1; x <= n; x++) u += (size_t)snprintf(t + u, cap - u, " %c", column_letter(x));
    r->ok = true;
}

/* ---- time ---- */

/* Milliseconds for colour c's next move from the clock, or 0: no limit. */
static uint64_t budget_ms(gtp_t *g, int c)
{
    if (!g->tc || (g->byo_time > 0 && g->byo_stones == 0) || (g->main_time <= 0 && g->byo_time <= 0)) return 0;
    double left = g->left_set[c] ? g->left[c] : g->main_time;
    long stones = g->left_set[c] ? g->stones[c] : 0;
    double t;
    if (stones > 0) t = left / (double)stones;
    else {
        if (left <= 0 && g->byo_stones > 0) {
            left = g->byo_time;
            stones = g->byo_stones;
            t = left / (double)stones;
        } else {
            /* the empty points left over three: moves this side still plays, roughly */
            uint8_t b[19 * 19];
            read_board(g, b);
            uint32_t empty = 0;
            for (uint32_t p = 0; p < g->size * g->size; p++) empty += !b[p];
            double to_go = empty / 3.0 < 8 ? 8 : empty / 3.0;
            t = left / to_go;
            if (g->byo_time > 0 && g->byo_stones > 0) t += g->byo_time / (double)g->byo_stones;
        }
    }
    t = t * 0.85 - 0.05;
    if (t < 0.01) t = 0.01;
    return (uint64_t)(t * 1000);
}

/* What a move of seconds s did to colour c's clock, until time_left says. */
static void clock_spend(gtp_t *g, int c, double s)
{
    if (!g->tc) return;
    if (!g->left_set[c]) {
        g->left_set[c] = true;
        g->left[c] = g->main_time;
        g->stones[c] = 0;
    }
    g->left[c] -= s;
    if (g->stones[c] > 0 && --g->stones[c] == 0) {
        g->left[c] = g->byo_time;
        g->stones[c] = g->byo_stones;
    } else if (g->stones[c] == 0 && g->left[c] <= 0 && g->byo_stones > 0) {
        g->left[c] = g->byo_time;
        g->stones[c] = g->byo_stones;
    }
}

/* ---- commands ---- */

static bool parse_long(const char *t, long lo, long hi, long *out)
{
    if (!t || !*t) return false;
    errno = 0;
    char *end;
    long v = strtol(t, &end, 10);
    if (*end || errno || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_real(const char *t, double lo, double hi, double *out)
{
    if (!t || !*t) return false;
    errno = 0;
    char *end;
    double v = strtod(t, &end);
    if (*end || errno || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static void cmd_genmove(gtp_t *g, int c, reply_t *r)
{
    if (to_move(g) < 0) { /* the game is over: a pass, recorded (undo takes it back) */
        pass_after_end(g, c);
        say(r, true, "pass");
        return;
    }
    size_t n_before = g->n_hist;
    const char *why = NULL;
    if (!turn_to(g, c, &why)) {
        say(r, false, "%s", why);
        return;
    }
    uint64_t ms = budget_ms(g, c);
    bool timed = ms && !g->spec_has_budget && g->seat_timed[c];
    searcher_t *s = timed ? g->seat_timed[c] : g->seat[c];
    search_report_t rep;
    memset(&rep, 0, sizeof rep);
    uint64_t t0 = clock_now_ns();
    move_id_t m = searcher_choose(s, cur(g), ms ? deadline_in_ms(ms) : deadline_none(), NULL, &rep);
    double secs = (double)(clock_now_ns() - t0) / 1e9;
    if (m == UINT32_MAX) {
        untake_turn(g, n_before);
        say(r, false, "no legal move");
        return;
    }
    /* Never fill one's own eye: pass instead. The tree keeps every legal
     * move (the rules allow eye filling), and once a game is lost, or lost
     * by the count as it stands after the opponent has passed, every move
     * looks alike to it (the solver never passes into a proven loss while
     * another move is left): it then filled its own eyes and put its
     * groups in atari (bench/results/go.md). Filling an own eye gains no
     * point under area scoring (the point is the owner's already,
     * Tromp-Taylor) and takes a liberty from the group; Go programs'
     * playouts forbid it for that reason (Bruegmann 1993, "Monte Carlo
     * Go"; Gelly et al. 2006, INRIA RR-6062, MoGo), and games/go/go.c's
     * playouts do. The eye is the playouts' rule of thumb, so the rare
     * position where a fill is right (some ko and seki) is given up, as
     * the playouts give it up; such a fill never saves a group in atari
     * (go.c, go_fills_own_eye). */
    game_ctx_set_state(g->ctx, cur(g));
    bool eye = go_fills_own_eye(g->ctx, g->role[c], m);
    move_id_t pass;
    if (eye && game_move_from_text(g->ctx, g->role[c], "pass", 4, &pass)) m = pass;
    char v[16];
    move_to_vertex(g, c, m, v, sizeof v);
    if (g->log)
        fprintf(g->log, "genmove %s: %s%s  playouts %llu  value %.3f  %.2fs  budget %s\n", c == BLACK ? "b" : "w", v,
                eye ? " (not filling an own eye)" : "", (unsigned long long)rep.playouts, rep.value, secs,
                ms ? "clock" : "spec");
    play_move(g, c, m);
    clock_spend(g, c, secs);
    say(r, true, "%s", v);
}

static void cmd_play(gtp_t *g, int c, const char *vertex, reply_t *r)
{
    char text[32];
    if (!vertex_to_text(g, vertex, text, sizeof text)) {
        say(r, false, "syntax error (invalid vertex '%.16s')", vertex);
        return;
    }
    size_t n_before = g->n_hist;
    const char *why = NULL;
    move_id_t m;
    if (!strcmp(text, "pass") && to_move(g) < 0) { /* a pass after the end, as genmove answers */
        pass_after_end(g, c);
        say(r, true, "%s", "");
        return;
    }
    if (!turn_to(g, c, &why)) {
        say(r, false, "illegal move (%s)", why);
        return;
    }
    game_ctx_set_state(g->ctx, cur(g));
    if (!game_move_from_text(g->ctx, g->role[c], text, strlen(text), &m)) {
        untake_turn(g, n_before);
        say(r, false, "illegal move");
        return;
    }
    play_move(g, c, m);
    say(r, true, "%s", "");
}

/* A new game of size and komi, replaying the moves so far if keep. */
static bool regame(gtp_t *g, uint32_t size, double komi, bool keep, reply_t *r, const char *what)
{
    size_t n = keep ? g->n_hist - 1 : 0;
    move_id_t *moves = xcalloc(n + 1, sizeof *moves);
    uint8_t *movers = xcalloc(n + 1, 1);
    memcpy(moves, g->moves, n * sizeof *moves);
    memcpy(movers, g->movers, n);
    char err[256];
    bool ok = game_open(g, size, komi, err, sizeof err);
    if (!ok) say(r, false, "%s (%s)", what, err);
    else
        for (size_t i = 0; i < n; i++) {
            if (movers[i] & TURNED) give_turn(g, movers[i] & 1);
            else if (movers[i] & OVER) pass_after_end(g, movers[i] & 1);
            else play_move(g, movers[i] & 1, moves[i]);
        }
    free(moves);
    free(movers);
    return ok;
}

static void final_score(const gtp_t *g, reply_t *r)
{
    game_ctx_set_state(g->ctx, cur(g));
    double d = go_area_diff(g->ctx) - g->komi; /* the game's own count (games/go) */
    if (d > 0) say(r, true, "B+%g", d);
    else if (d < 0) say(r, true, "W+%g", -d);
    else say(r, true, "0");
}

/* Run command argv[0] with its argc - 1 arguments; false after quit. */
static bool dispatch(gtp_t *g, int argc, char **argv, reply_t *r)
{
    const char *c = argv[0];
    int colour;
    long a, b, s;
    double k;
    if (!strcmp(c, "protocol_version")) say(r, true, "2");
    else if (!strcmp(c, "name")) say(r, true, "%s", g->name);
    else if (!strcmp(c, "version")) say(r, true, "%s", g->version);
    else if (!strcmp(c, "known_command")) {
        bool found = false;
        for (int i = 0; known[i] && argc > 1; i++) found |= !strcmp(known[i], argv[1]);
        say(r, true, "%s", found ? "true" : "false");
    } else if (!strcmp(c, "list_commands")) {
        size_t u = 0;
        for (int i = 0; known[i]; i++) u += (size_t)snprintf(r->text + u, sizeof r->text - u, "%s%s", i ? "\n" : "", known[i]);
        r->ok = true;
    } else if (!strcmp(c, "quit")) {
        say(r, true, "%s", "");
        return false;
    } else if (!strcmp(c, "boardsize")) {
        if (argc < 2 || !parse_long(argv[1], -1000000, 1000000, &a)) say(r, false, "syntax error");
        else if (a < 5 || a > 19) say(r, false, "unacceptable size");
        else if (regame(g, (uint32_t)a, g->komi, false, r, "unacceptable size")) say(r, true, "%s", "");
    } else if (!strcmp(c, "clear_board")) {
        if (regame(g, g->size, g->komi, false, r, "cannot clear")) say(r, true, "%s", "");
        g->left_set[0] = g->left_set[1] = false;
    } else if (!strcmp(c, "komi")) {
        if (argc < 2 || !parse_real(argv[1], -1000, 1000, &k)) say(r, false, "syntax error");
        else if (regame(g, g->size, k, true, r, "unacceptable komi")) say(r, true, "%s", "");
    } else if (!strcmp(c, "play")) {
        if (argc < 3 || !parse_colour(argv[1], &colour)) say(r, false, "syntax error");
        else cmd_play(g, colour, argv[2], r);
    } else if (!strcmp(c, "genmove")) {
        if (argc < 2 || !parse_colour(argv[1], &colour)) say(r, false, "syntax error");
        else cmd_genmove(g, colour, r);
    } else if (!strcmp(c, "undo")) {
        if (g->n_hist < 2) say(r, false, "cannot undo");
        else {
            take_back(g);
            for (int i = 0; i < 2; i++) {
                searcher_reset(g->seat[i]);
                if (g->seat_timed[i]) searcher_reset(g->seat_timed[i]);
            }
            say(r, true, "%s", "");
        }
    } else if (!strcmp(c, "showboard")) showboard(g, r);
    else if (!strcmp(c, "final_score")) final_score(g, r);
    else if (!strcmp(c, "time_settings")) {
        if (argc < 4 || !parse_long(argv[1], 0, 100000000, &a) || !parse_long(argv[2], 0, 100000000, &b) ||
            !parse_long(argv[3], 0, 100000000, &s))
            say(r, false, "syntax error");
        else {
            g->tc = true;
            g->main_time = (double)a;
            g->byo_time = (double)b;
            g->byo_stones = s;
            g->left_set[0] = g->left_set[1] = false;
            say(r, true, "%s", "");
        }
    } else if (!strcmp(c, "time_left")) {
        if (argc < 4 || !parse_colour(argv[1], &colour) || !parse_long(argv[2], -100000000, 100000000, &a) ||
            !parse_long(argv[3], 0, 100000000, &s))
            say(r, false, "syntax error");
        else {
            g->left_set[colour] = true;
            g->left[colour] = (double)a;
            g->stones[colour] = s;
            say(r, true, "%s", "");
        }
    } else say(r, false, "unknown command");
    return true;
}

bool gtp_command(gtp_t *g, const char *line, size_t len, FILE *out)
{
    /* GTP 2 §3.1: control characters other than HT and LF are dropped, HT
     * is a space, '#' starts a comment. */
    char buf[GTP_MAX_LINE + 1];
    size_t n = 0;
    for (size_t i = 0; i < len && n < GTP_MAX_LINE; i++) {
        unsigned char ch = (unsigned char)line[i];
        if (ch == '#') break;
        if (ch == '\t') ch = ' ';
        if (ch < 32 || ch == 127) continue;
        buf[n++] = (char)ch;
    }
    buf[n] = 0;
    char *argv[16];
    int argc = 0;
    char *save = NULL;
    for (char *p = strtok_r(buf, " ", &save); p && argc < 16; p = strtok_r(NULL, " ", &save)) argv[argc++] = p;
    if (!argc) return true;
    const char *id = "";
    if (isdigit((unsigned char)argv[0][0])) {
        bool digits = strlen(argv[0]) <= 18;
        for (const char *p = argv[0]; *p && digits; p++) digits = isdigit((unsigned char)*p);
        if (digits) {
            id = argv[0];
            memmove(argv, argv + 1, (size_t)--argc * sizeof *argv);
        }
    }
    reply_t *r = xcalloc(1, sizeof *r);
    bool go_on = true;
    if (!argc) say(r, false, "missing command");
    else if (len > GTP_MAX_LINE) say(r, false, "line too long");
    else go_on = dispatch(g, argc, argv, r);
    fprintf(out, "%c%s %s\n\n", r->ok ? '=' : '?', id, r->text);
    fflush(out);
    free(r);
    return go_on;
}

void gtp_run(gtp_t *g, FILE *in, FILE *out)
{
    char *line = xcalloc(GTP_MAX_LINE + 2, 1);
    for (;;) {
        size_t n = 0, total = 0;
        int ch;
        /* words: where the first byte of a command is (not blank, not a
         * control byte, before any '#'), or SIZE_MAX */
        size_t word = SIZE_MAX;
        bool comment = false;
        while ((ch = getc(in)) != EOF && ch != '\n') {
            if (n < GTP_MAX_LINE + 1) line[n++] = (char)ch;
            comment = comment || ch == '#';
            if (word == SIZE_MAX && !comment && ch > ' ' && ch != 127) word = total;
            total++;
        }
        if (ch == EOF && total == 0) break;
        if (total && n == total && line[n - 1] == '\r') total--, n--; /* CRLF: the CR is not the line's */
        /* A line past the limit is refused whole (len > GTP_MAX_LINE), and
         * answered even when its command starts past the part kept: a
         * controller waits for an answer to every command. */
        if (total > GTP_MAX_LINE && word != SIZE_MAX && word >= GTP_MAX_LINE) {
            fputs("? line too long\n\n", out);
            fflush(out);
            if (ch == EOF) break;
            continue;
        }
        if (!gtp_command(g, line, total > GTP_MAX_LINE ? GTP_MAX_LINE + 1 : n, out) || ch == EOF) break;
    }
    free(line);
}

/* ---- life cycle ---- */

static bool spec_gives_budget(const char *t)
{
    static const char *const keys[] = {"playouts=", "nodes=", "seconds=", "ptop=", "psec=", "depth=", NULL};
    for (int i = 0; keys[i]; i++) {
        const char *p = strstr(t, keys[i]);
        if (p && (p == t || p[-1] == ':' || p[-1] == ',')) return true;
    }
    return false;
}

gtp_t *gtp_new(const gtp_options_t *opt, char *err, size_t err_len)
{
    const char *game = opt->game ? opt->game : "go9";
    if (strncmp(game, "go", 2) || !isdigit((unsigned char)game[2])) {
        snprintf(err, err_len, "'%s' is not a Go game (go5 .. go19, options after ':')", game);
        return NULL;
    }
    char *end;
    errno = 0;
    unsigned long size = strtoul(game + 2, &end, 10);
    if (errno || (*end && *end != ':') || size < 5 || size > 19) {
        snprintf(err, err_len, "'%s': the board size must be 5 to 19", game);
        return NULL;
    }
    search_spec_t *spec = search_spec_parse(opt->spec, err, err_len);
    if (!spec) return NULL;
    gtp_t *g = xcalloc(1, sizeof *g);
    g->spec = spec;
    g->spec_text = xstrdup(opt->spec);
    g->spec_has_budget = spec_gives_budget(opt->spec);
    if (!g->spec_has_budget) {
        /* the clock's budget: an anytime search stopped by the deadline */
        size_t l = strlen(opt->spec) + 32;
        char *t = xcalloc(l, 1);
        snprintf(t, l, "%s%sseconds=86400", opt->spec, strchr(opt->spec, ':') ? "," : ":");
        char e2[256];
        g->spec_timed = search_spec_parse(t, e2, sizeof e2);
        free(t);
    }
    g->opts = xstrdup(*end == ':' ? end + 1 : "");
    g->komi = 7.5;
    /* a komi among the options is the first game's */
    for (const char *p = g->opts; (p = strstr(p, "komi=")); p++)
        if (p == g->opts || p[-1] == ',') {
            double k = strtod(p + 5, NULL);
            if (isfinite(k)) g->komi = k;
        }
    g->seed = opt->seed;
    g->log = opt->log;
    g->name = xstrdup(opt->name ? opt->name : "ggp");
    g->version = xstrdup(opt->version ? opt->version : "");
    if (!game_open(g, (uint32_t)size, g->komi, err, err_len)) {
        gtp_free(g);
        return NULL;
    }
    return g;
}

void gtp_free(gtp_t *g)
{
    if (!g) return;
    game_drop(g);
    search_spec_free(g->spec);
    search_spec_free(g->spec_timed);
    free(g->hist);
    free(g->moves);
    free(g->movers);
    free(g->spec_text);
    free(g->opts);
    free(g->name);
    free(g->version);
    free(g);
}
