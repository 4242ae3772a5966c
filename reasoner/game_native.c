/* game_native.c - a native game (game_native.h) behind the vtable of the
 * GDL engines (engine.h). Only the generic part of struct game is set; the
 * GDL part (program, term store, role terms) stays NULL, and the vtable's
 * optional entries (move_from_text, moves_enumerable, playout_move) take
 * the place of the GDL defaults that would read it. */
#include "reasoner/game_native.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "reasoner/engine.h"

typedef struct ngame {
    game_t base;
    const native_vtbl_t *nv;
    void *impl;
} ngame_t;

typedef struct nctx {
    game_ctx_t base;
    void *cx;
    /* next(play) left the native context at c->cur already: the
     * state_changed that game_ctx_play sends after it has nothing to read */
    bool synced;
} nctx_t;

static const ngame_t *NG(const game_t *g) { return (const ngame_t *)g; }
static nctx_t *NC(game_ctx_t *c) { return (nctx_t *)c; }

static void n_destroy(game_t *g)
{
    ngame_t *n = (ngame_t *)g;
    n->nv->destroy(n->impl);
    for (uint32_t i = 0; i < g->n_roles; i++) free(g->role_names[i]);
    free(g->role_names);
    free(n);
}

static void n_state_print(const game_t *g, const game_state_t *s, FILE *out, bool canonical)
{
    (void)canonical; /* native fluents have one spelling */
    NG(g)->nv->state_print(NG(g)->impl, s, out);
}

static game_ctx_t *n_ctx_new(const game_t *g)
{
    nctx_t *c = xcalloc(1, sizeof *c);
    game_ctx_base_init(&c->base, g);
    c->cx = NG(g)->nv->ctx_new(NG(g)->impl);
    return &c->base;
}

static void n_ctx_free(game_ctx_t *c)
{
    NG(c->g)->nv->ctx_free(NC(c)->cx);
    game_ctx_base_free(c);
    free(c);
}

static void n_initial(game_ctx_t *c, game_state_t *out) { NG(c->g)->nv->initial(NG(c->g)->impl, out); }

static void n_state_changed(game_ctx_t *c)
{
    if (NC(c)->synced) {
        NC(c)->synced = false;
        return;
    }
    NG(c->g)->nv->set_state(NC(c)->cx, c->cur);
}

static bool n_terminal(game_ctx_t *c) { return NG(c->g)->nv->terminal(NC(c)->cx); }

static uint32_t n_legal(game_ctx_t *c, uint32_t role, const move_id_t **moves)
{
    return NG(c->g)->nv->legal(NC(c)->cx, role, moves);
}

static int n_goal(game_ctx_t *c, uint32_t role) { return NG(c->g)->nv->goal(NC(c)->cx, role); }

static void n_next(game_ctx_t *c, const move_id_t *joint, game_state_t *out)
{
    bool play = out == c->cur;
    NG(c->g)->nv->next(NC(c)->cx, joint, out, play);
    NC(c)->synced = play;
}

static uint32_t n_num_moves(const game_t *g, uint32_t role) { return NG(g)->nv->num_moves(NG(g)->impl, role); }

static const char *n_move_name(const game_t *g, uint32_t role, move_id_t m, bool canonical)
{
    (void)canonical;
    return NG(g)->nv->move_name(NG(g)->impl, role, m);
}

static bool n_all_fluents(const game_t *g, game_state_t *out)
{
    return NG(g)->nv->all_fluents && NG(g)->nv->all_fluents(NG(g)->impl, out);
}

static uint32_t n_fluents(const game_t *g, const game_state_t *s, uint32_t *out, uint32_t cap)
{
    return NG(g)->nv->fluents(NG(g)->impl, s, out, cap);
}

static size_t n_fluent_text(const game_t *g, uint32_t f, char *buf, size_t len)
{
    return NG(g)->nv->fluent_text(NG(g)->impl, f, buf, len);
}

static bool n_move_from_text(game_ctx_t *c, uint32_t role, const char *text, size_t len, move_id_t *out)
{
    return NG(c->g)->nv->move_from_text(NC(c)->cx, role, text, len, out);
}

static bool n_moves_enumerable(const game_t *g)
{
    (void)g;
    return true;
}

static bool n_playout_move(game_ctx_t *c, uint32_t role, rng_t *rng, move_id_t *out, bool *decides)
{
    const native_vtbl_t *nv = NG(c->g)->nv;
    return nv->playout_move && nv->playout_move(NC(c)->cx, role, rng, out, decides);
}

static uint32_t n_playout_legal(game_ctx_t *c, uint32_t role, const move_id_t **moves)
{
    const native_vtbl_t *nv = NG(c->g)->nv;
    return nv->playout_legal ? nv->playout_legal(NC(c)->cx, role, moves) : 0;
}

static uint32_t n_playout_cands(game_ctx_t *c, uint32_t role, const move_id_t **moves)
{
    const native_vtbl_t *nv = NG(c->g)->nv;
    return nv->playout_cands && nv->playout_accepts ? nv->playout_cands(NC(c)->cx, role, moves) : 0;
}

static bool n_playout_accepts(game_ctx_t *c, uint32_t role, move_id_t m)
{
    const native_vtbl_t *nv = NG(c->g)->nv;
    return nv->playout_accepts && nv->playout_accepts(NC(c)->cx, role, m);
}

static const game_vtbl_t native_vtbl = {
    .destroy = n_destroy,
    .state_print = n_state_print,
    .ctx_new = n_ctx_new,
    .ctx_free = n_ctx_free,
    .initial = n_initial,
    .state_changed = n_state_changed,
    .terminal = n_terminal,
    .legal = n_legal,
    .goal = n_goal,
    .next = n_next,
    .num_moves = n_num_moves,
    .move_name = n_move_name,
    .move_term = NULL, /* GDL only: move_from_text replaces its one use */
    .all_fluents = n_all_fluents,
    .fluents = n_fluents,
    .fluent_text = n_fluent_text,
    .move_from_text = n_move_from_text,
    .moves_enumerable = n_moves_enumerable,
    .playout_move = n_playout_move,
    .playout_legal = n_playout_legal,
    .playout_cands = n_playout_cands,
    .playout_accepts = n_playout_accepts,
};

game_t *game_native_new(const native_vtbl_t *vt, void *impl, const char *const *role_names, uint32_t n_roles)
{
    ngame_t *n = xcalloc(1, sizeof *n);
    n->nv = vt;
    n->impl = impl;
    game_t *g = &n->base;
    g->vt = &native_vtbl;
    g->kind = ENGINE_NATIVE;
    g->history_ordered = vt->history_ordered;
    g->n_roles = n_roles;
    g->role_names = xcalloc(n_roles ? n_roles : 1, sizeof *g->role_names);
    for (uint32_t i = 0; i < n_roles; i++) g->role_names[i] = xstrdup(role_names[i]);
    return g;
}

void *game_native_impl(const game_t *g) { return g->vt == &native_vtbl ? NG(g)->impl : NULL; }
void *game_native_ctx(game_ctx_t *c) { return c->g->vt == &native_vtbl ? NC(c)->cx : NULL; }

uint32_t *game_state_words(game_state_t *s, uint32_t n)
{
    game_state_reserve(s, n);
    s->n = n;
    return s->data;
}

const uint32_t *game_state_data(const game_state_t *s, uint32_t *n)
{
    *n = s->n;
    return s->data;
}
