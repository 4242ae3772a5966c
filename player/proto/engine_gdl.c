/* engine_gdl.c - the engine of a real match: START's rules are built,
 * validated and compiled (gdl/ast.h, gdl/validate.h, reasoner/game.h) and
 * moves are chosen by a searcher (search/search.h). See engine.h and
 * engine_gdl.h. */
#include "player/proto/engine_gdl.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "gdl/ast.h"
#include "gdl/validate.h"
#include "reasoner/game.h"
#include "search/search.h"

/* The least time START waits for grounding, whatever the start clock. */
#define GDL_MIN_GROUND_MS 200

/* A game with its context and searcher: the match's current one, or one it
 * played with before the propositional network came (its game kept until
 * the match ends, for its move texts; its searcher, whose tree may take
 * the whole memory bound, freed once no search holds a snapshot of it:
 * kept, the two searchers took twice the bound). */
typedef struct gdl_engine {
    game_t *game;
    game_ctx_t *ctx;      /* the match's current state, for request handlers */
    searcher_t *searcher; /* used by the search thread only; NULL once freed */
    atomic_int *snaps;    /* snapshots of this engine alive (gdl_snapshot) */
} gdl_engine_t;

struct engine_match {
    program_t *prog; /* owns the message's arena; holds syms and src */
    symtab_t *syms;
    src_t *src;
    const gdl_engine_config_t *cfg;
    gdl_engine_t cur;
    gdl_engine_t *old;
    uint32_t n_old;
    /* ENGINE_AUTO: the propnet still being grounded, taken at a PLAY when
     * ready; the joint moves so far (texts, n_roles per step) to bring it
     * to the current state. */
    game_grounding_t *grounding;
    char **history;
    uint32_t n_history, cap_history;
    uint32_t role, n_roles;
    move_id_t *joint;
    FILE *log; /* the server's log, or NULL */
    const search_spec_t *spec; /* cfg->spec, or cfg->fallback for a game it cannot play */
};

/* What a search runs on: a copy of the state and the engine it belongs to
 * (the match may change engines while a search runs). */
typedef struct gdl_snap {
    const game_t *game;
    searcher_t *searcher;
    game_state_t *state;
    atomic_int *snaps; /* its engine's count */
} gdl_snap_t;

static void gdl_engine_free(gdl_engine_t *x)
{
    searcher_free(x->searcher);
    game_ctx_free(x->ctx);
    game_free(x->game);
    free(x->snaps);
}

static atomic_int *snaps_new(void)
{
    atomic_int *n = xmalloc(sizeof *n);
    atomic_init(n, 0);
    return n;
}

/* Free the searchers of the engines played before that no search uses (on
 * the state thread, which alone makes snapshots, and only of m->cur). */
static void release_old_searchers(engine_match_t *m)
{
    for (uint32_t i = 0; i < m->n_old; i++)
        if (m->old[i].searcher && atomic_load(m->old[i].snaps) == 0) {
            searcher_free(m->old[i].searcher);
            m->old[i].searcher = NULL;
        }
}

uint32_t engine_gdl_old_searchers(const engine_match_t *m)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n_old; i++) n += m->old[i].searcher != NULL;
    return n;
}

static void match_free(engine_match_t *m)
{
    if (!m) return;
    game_grounding_free(m->grounding); /* before the program it reads */
    gdl_engine_free(&m->cur);
    for (uint32_t i = 0; i < m->n_old; i++) gdl_engine_free(&m->old[i]);
    free(m->old);
    for (uint32_t i = 0; i < m->n_history; i++) free(m->history[i]);
    free(m->history);
    free(m->joint);
    program_free(m->prog);
    symtab_free(m->syms);
    src_free(m->src);
    free(m);
}

/* A context of g at the initial state, or NULL. */
static game_ctx_t *initial_ctx(game_t *g)
{
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *st = game_state_new(g);
    game_initial(c, st);
    game_ctx_set_state(c, st);
    game_state_free(st);
    return c;
}

/* Take the propnet if grounding has finished: replay the match's moves on
 * it and make it the current engine (the rules engine stays for a search
 * that may still run on it). Both engines are exact, so the replay only
 * fails on a defect of ours; then the rules engine simply stays. */
static void take_propnet(engine_match_t *m, FILE *log)
{
    if (!m->grounding) return;
    game_t *g = NULL;
    char reason[160] = "";
    grounding_status_t st = game_grounding_take(m->grounding, 0, &g, reason, sizeof reason);
    if (st == GROUNDING_RUNNING) return;
    game_grounding_free(m->grounding);
    m->grounding = NULL;
    if (st == GROUNDING_FAILED) {
        if (log) fprintf(log, "ggp serve: staying with the rules engine: %s\n", reason);
        return;
    }
    game_ctx_t *c = initial_ctx(g);
    move_id_t *joint = xcalloc(m->n_roles, sizeof *joint);
    bool ok = game_num_roles(g) == m->n_roles;
    for (uint32_t k = 0; ok && k < m->n_history / m->n_roles; k++) {
        for (uint32_t r = 0; ok && r < m->n_roles; r++) {
            const char *mv = m->history[k * m->n_roles + r];
            ok = game_move_from_text(c, r, mv, strlen(mv), &joint[r]);
        }
        if (ok) game_ctx_play(c, joint);
    }
    free(joint);
    if (!ok) {
        if (log) fprintf(log, "ggp serve: the propositional network disagrees with the rules engine; not used\n");
        game_ctx_free(c);
        game_free(g);
        return;
    }
    /* The spec was checked against the rules engine's game, whose moves are
     * not enumerable: on the propnet's, a node-bounded row also has its
     * dense AMAF rows, which may pass the RAM (search_spec_check_game). */
    char why[200];
    if (!search_spec_check_game(m->spec, g, why, sizeof why)) {
        if (log) fprintf(log, "ggp serve: staying with the rules engine: %s\n", why);
        game_ctx_free(c);
        game_free(g);
        return;
    }
    m->old = xreallocarray(m->old, m->n_old + 1, sizeof *m->old);
    m->old[m->n_old++] = m->cur;
    m->cur = (gdl_engine_t){.game = g, .ctx = c, .searcher = searcher_new(g, m->role, m->spec), .snaps = snaps_new()};
    if (log) fprintf(log, "ggp serve: switched to the propositional network after %u step%s\n", m->n_history / m->n_roles,
                     m->n_history / m->n_roles == 1 ? "" : "s");
}

/* Copy the diagnostics to the log and keep the first error as the reason. */
static void report(const char *text, FILE *log, const char *what, unsigned errors, char *err, size_t err_len)
{
    if (log && *text) {
        fputs(text, log);
        if (text[strlen(text) - 1] != '\n') fputc('\n', log);
        fflush(log);
    }
    char prefix[80];
    snprintf(prefix, sizeof prefix, "%s: %u error%s, first", what, errors, errors == 1 ? "" : "s");
    diag_first_error(text, prefix, err, err_len);
}

static engine_match_t *gdl_load(void *cfg, ggp_msg_t *start, FILE *log, char *err, size_t err_len)
{
    const gdl_engine_config_t *ec = cfg;
    engine_match_t *m = xcalloc(1, sizeof *m);
    arena_t *arena;
    ggp_msg_take(start, &arena, &m->syms, &m->src);
    m->prog = xcalloc(1, sizeof *m->prog);
    m->prog->arena = arena;
    m->prog->syms = m->syms;
    m->prog->src = m->src;

    /* A START is one long line: locations are printed, not the line. */
    diag_capture_t dc;
    diag_capture_open(&dc, 50);
    diag_t *d = &dc.d;
    const char *stage = "rules";
    unsigned errors = gdl_build(m->prog, start->rules->items, start->rules->n, d);
    gdl_info_t info = {0};
    if (!errors) {
        stage = "validation";
        errors = gdl_validate(m->prog, d, &info);
    }
    gdl_info_free(&info);
    if (!errors) {
        stage = "compilation";
        game_options_t opt = ec->game_options;
        opt.quiet = true;
        /* Grounding must not eat the start clock (gdl-protocol.md §5: READY
         * is due before it ends): START waits for it 40% of the clock at
         * most (at most 10 s). With auto, grounding goes on in the
         * background within its own budget while the rules engine plays,
         * and the propnet is taken at a later PLAY; with propnet, the
         * budget itself is that wait. */
        uint64_t ms = (uint64_t)start->start_clock * 400;
        uint64_t wait_ms = ms < GDL_MIN_GROUND_MS ? GDL_MIN_GROUND_MS : ms > 10000 ? 10000 : ms;
        if (ec->start_wait_ms) wait_ms = ec->start_wait_ms == GDL_NO_WAIT ? 0 : ec->start_wait_ms;
        if (opt.engine == ENGINE_AUTO) {
            /* The rules engine is compiled while grounding runs, not after
             * the wait: on rules too big to ground, the match is ready that
             * much sooner (issue 13 item 5). */
            m->grounding = game_grounding_start(m->prog, &opt);
            uint64_t t0 = clock_now_ns();
            game_options_t ropt = opt;
            ropt.engine = ENGINE_RULES;
            game_t *rules = game_compile(m->prog, &ropt, d);
            uint64_t spent_ms = (clock_now_ns() - t0) / 1000000ULL;
            uint64_t left_ms = !rules ? wait_ms : wait_ms > spent_ms ? wait_ms - spent_ms : 0;
            char reason[160];
            grounding_status_t st = wait_ms ? game_grounding_take(m->grounding, left_ms, &m->cur.game, reason, sizeof reason)
                                            : GROUNDING_RUNNING;
            if (st != GROUNDING_RUNNING) {
                game_grounding_free(m->grounding);
                m->grounding = NULL;
            }
            if (m->cur.game)
                game_free(rules);
            else
                m->cur.game = rules;
        } else {
            if (!opt.ground_ms) opt.ground_ms = wait_ms;
            m->cur.game = game_compile(m->prog, &opt, d);
        }
        if (!m->cur.game) errors = d->errors ? d->errors : 1;
    }
    diag_capture_close(&dc);
    if (errors) {
        report(dc.text, log, stage, errors, err, err_len);
        free(dc.text);
        match_free(m);
        return NULL;
    }
    free(dc.text);
    int role = game_role_index(m->cur.game, start->role);
    if (role < 0) {
        snprintf(err, err_len, "'%.80s' is not a role of the game", start->role);
        if (log) fprintf(log, "ggp serve: %s\n", err);
        match_free(m);
        return NULL;
    }
    m->role = (uint32_t)role;
    m->cfg = ec;
    m->n_roles = game_num_roles(m->cur.game);
    m->joint = xcalloc(m->n_roles, sizeof *m->joint);
    m->cur.ctx = initial_ctx(m->cur.game);
    /* A searcher that cannot play the game (alpha-beta on three roles,
     * NMCS on two: they read past their arrays there) would crash the
     * server; the match is played by the fallback instead. */
    char why[200];
    m->spec = ec->spec;
    if (!search_spec_check_game(ec->spec, m->cur.game, why, sizeof why)) {
        char why2[200];
        if (!ec->fallback || !search_spec_check_game(ec->fallback, m->cur.game, why2, sizeof why2)) {
            snprintf(err, err_len, "the player cannot play this game: %s", why);
            if (log) fprintf(log, "ggp serve: %s\n", err);
            match_free(m);
            return NULL;
        }
        if (log) fprintf(log, "ggp serve: the player's searcher cannot play this game (%s): compete plays it\n", why);
        m->spec = ec->fallback;
    }
    m->cur.searcher = searcher_new(m->cur.game, m->role, m->spec);
    m->cur.snaps = snaps_new();
    m->log = log;
    return m;
}

static bool gdl_apply(engine_match_t *m, char *const *moves, uint32_t n, char *err, size_t err_len)
{
    if (n != m->n_roles) {
        snprintf(err, err_len, "%u move%s for %u role%s", n, n == 1 ? "" : "s", m->n_roles,
                 m->n_roles == 1 ? "" : "s");
        return false;
    }
    for (uint32_t r = 0; r < n; r++) {
        if (!game_move_from_text(m->cur.ctx, r, moves[r], strlen(moves[r]), &m->joint[r])) {
            snprintf(err, err_len, "'%.80s' is not a legal move of %s", moves[r], game_role_name(m->cur.game, r));
            return false;
        }
    }
    game_ctx_play(m->cur.ctx, m->joint);
    if (m->grounding) {
        XVEC_RESERVE(&m->history, &m->cap_history, m->n_history + n);
        for (uint32_t r = 0; r < n; r++) m->history[m->n_history++] = xstrdup(moves[r]);
        take_propnet(m, m->log);
    }
    release_old_searchers(m);
    return true;
}

bool engine_gdl_grounding_wait(engine_match_t *m, uint64_t wait_ms)
{
    return !m->grounding || game_grounding_wait(m->grounding, wait_ms);
}

static bool gdl_is_terminal(engine_match_t *m) { return game_is_terminal(m->cur.ctx); }

static int gdl_goal(engine_match_t *m) { return game_goal(m->cur.ctx, m->role); }

static const char *gdl_random_move(engine_match_t *m, rng_t *rng)
{
    const move_id_t *moves;
    uint32_t n = game_legal(m->cur.ctx, m->role, &moves);
    if (n == 0) return NULL;
    return game_move_name(m->cur.game, m->role, moves[rng_below(rng, n)], false);
}

static void *gdl_snapshot(engine_match_t *m)
{
    gdl_snap_t *s = xmalloc(sizeof *s);
    s->game = m->cur.game;
    s->searcher = m->cur.searcher;
    s->snaps = m->cur.snaps;
    atomic_fetch_add(s->snaps, 1);
    s->state = game_state_new(m->cur.game);
    game_state_copy(m->cur.game, s->state, game_ctx_state(m->cur.ctx));
    return s;
}

static void gdl_snapshot_free(engine_match_t *m, void *snap)
{
    (void)m;
    gdl_snap_t *s = snap;
    game_state_free(s->state);
    atomic_fetch_sub(s->snaps, 1); /* (release_old_searchers frees the searcher) */
    free(s);
}

static const char *gdl_choose(engine_match_t *m, void *snap, deadline_t deadline, const atomic_bool *stop, char *info,
                              size_t info_len)
{
    const gdl_snap_t *s = snap;
    search_report_t rep = {0};
    move_id_t mv = searcher_choose(s->searcher, s->state, deadline, stop, &rep);
    game_stats_t gs;
    game_get_stats(s->game, &gs);
    snprintf(info, info_len, "%llu playouts in %.3f s (cpu %.3f s), value %.3f%s, %llu kept, %llu nodes, %s",
             (unsigned long long)rep.playouts, rep.seconds, rep.cpu_seconds, rep.value, rep.solved ? " (proven)" : "",
             (unsigned long long)rep.reused, (unsigned long long)rep.nodes_peak, gs.engine);
    if (mv == UINT32_MAX) return NULL;
    return game_move_name(s->game, m->role, mv, false);
}

void engine_gdl_init(match_engine_t *e, gdl_engine_config_t *cfg)
{
    *e = (match_engine_t){
        .cfg = cfg,
        .load = gdl_load,
        .free = match_free,
        .apply = gdl_apply,
        .is_terminal = gdl_is_terminal,
        .goal = gdl_goal,
        .random_move = gdl_random_move,
        .snapshot = gdl_snapshot,
        .snapshot_free = gdl_snapshot_free,
        .choose = gdl_choose,
    };
}
