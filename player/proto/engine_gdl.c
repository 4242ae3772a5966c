/* engine_gdl.c - the engine of a real match: START's rules are built,
 * validated and compiled (gdl/ast.h, gdl/validate.h, reasoner/game.h) and
 * moves are chosen by a searcher (search/search.h). See engine.h and
 * engine_gdl.h. */
#include "player/proto/engine_gdl.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "gdl/ast.h"
#include "gdl/validate.h"
#include "reasoner/game.h"
#include "search/search.h"

/* The least grounding budget, whatever the start clock. */
#define GDL_MIN_GROUND_MS 200

struct engine_match {
    program_t *prog; /* owns the message's arena; holds syms and src */
    symtab_t *syms;
    src_t *src;
    game_t *game;
    game_ctx_t *ctx; /* the match's current state, for request handlers */
    uint32_t role, n_roles;
    move_id_t *joint;
    searcher_t *searcher; /* used by the search thread only */
};

static void match_free(engine_match_t *m)
{
    if (!m) return;
    searcher_free(m->searcher);
    free(m->joint);
    game_ctx_free(m->ctx);
    game_free(m->game);
    program_free(m->prog);
    symtab_free(m->syms);
    src_free(m->src);
    free(m);
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
         * is due before it ends): without an explicit budget, it gets 40%
         * of the clock, at most the library's 10 s (and the circuit build
         * may go on to 60%); past it the rules engine takes over, and the
         * rest of the clock is metagaming. */
        if (!opt.ground_ms) {
            uint64_t ms = (uint64_t)start->start_clock * 400;
            opt.ground_ms = ms < GDL_MIN_GROUND_MS ? GDL_MIN_GROUND_MS : ms > 10000 ? 10000 : ms;
        }
        m->game = game_compile(m->prog, &opt, d);
        if (!m->game) errors = d->errors ? d->errors : 1;
    }
    diag_capture_close(&dc);
    if (errors) {
        report(dc.text, log, stage, errors, err, err_len);
        free(dc.text);
        match_free(m);
        return NULL;
    }
    free(dc.text);
    int role = game_role_index(m->game, start->role);
    if (role < 0) {
        snprintf(err, err_len, "'%.80s' is not a role of the game", start->role);
        if (log) fprintf(log, "ggp serve: %s\n", err);
        match_free(m);
        return NULL;
    }
    m->role = (uint32_t)role;
    m->n_roles = game_num_roles(m->game);
    m->joint = xcalloc(m->n_roles, sizeof *m->joint);
    m->ctx = game_ctx_new(m->game);
    game_state_t *st = game_state_new(m->game);
    game_initial(m->ctx, st);
    game_ctx_set_state(m->ctx, st);
    game_state_free(st);
    m->searcher = searcher_new(m->game, m->role, ec->spec);
    return m;
}

static bool gdl_apply(engine_match_t *m, char *const *moves, uint32_t n, char *err, size_t err_len)
{
    if (n != m->n_roles) {
        snprintf(err, err_len, "%u moves for %u roles", n, m->n_roles);
        return false;
    }
    for (uint32_t r = 0; r < n; r++) {
        if (!game_move_from_text(m->ctx, r, moves[r], strlen(moves[r]), &m->joint[r])) {
            snprintf(err, err_len, "'%.80s' is not a legal move of %s", moves[r], game_role_name(m->game, r));
            return false;
        }
    }
    game_ctx_play(m->ctx, m->joint);
    return true;
}

static bool gdl_is_terminal(engine_match_t *m) { return game_is_terminal(m->ctx); }

static int gdl_goal(engine_match_t *m) { return game_goal(m->ctx, m->role); }

static const char *gdl_random_move(engine_match_t *m, rng_t *rng)
{
    const move_id_t *moves;
    uint32_t n = game_legal(m->ctx, m->role, &moves);
    if (n == 0) return NULL;
    return game_move_name(m->game, m->role, moves[rng_below(rng, n)], false);
}

static void *gdl_snapshot(engine_match_t *m)
{
    game_state_t *s = game_state_new(m->game);
    game_state_copy(m->game, s, game_ctx_state(m->ctx));
    return s;
}

static void gdl_snapshot_free(engine_match_t *m, void *snap) { game_state_free(snap); }

static const char *gdl_choose(engine_match_t *m, void *snap, deadline_t deadline, const atomic_bool *stop, char *info,
                              size_t info_len)
{
    search_report_t rep = {0};
    move_id_t mv = searcher_choose(m->searcher, snap, deadline, stop, &rep);
    snprintf(info, info_len, "%llu playouts in %.3f s, value %.3f", (unsigned long long)rep.playouts, rep.seconds,
             rep.value);
    if (mv == UINT32_MAX) return NULL;
    return game_move_name(m->game, m->role, mv, false);
}

void engine_gdl_init(engine_t *e, gdl_engine_config_t *cfg)
{
    *e = (engine_t){
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
