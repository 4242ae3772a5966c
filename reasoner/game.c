/* game.c - the public game interface: engine choice and dispatch (see
 * game.h and engine.h). */
#include "reasoner/game.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "gdl/sexpr.h"
#include "gdl/validate.h"
#include "reasoner/engine.h"

/* ------------------------------------------------------------ compile */

game_options_t game_options_defaults(const game_options_t *opt)
{
    game_options_t o = opt ? *opt : (game_options_t){0};
    if (!o.ground_ms) o.ground_ms = 10000;
    if (!o.ground_mb) o.ground_mb = 2048;
    if (!o.eliminate_after) o.eliminate_after = GAME_ELIMINATE_AFTER;
    /* Within a load budget, grounding takes at most half (its build up to
     * three quarters), the rules engine what is left (game_compile). */
    if (o.load_ms && o.ground_ms > o.load_ms / 2) o.ground_ms = o.load_ms / 2 ? o.load_ms / 2 : 1;
    return o;
}

game_t *propnet_try(const program_t *p, const game_options_t *o, char *reason, size_t reason_len)
{
    /* The test is a guess (a recursion that grows a term, or an estimate
     * past RULES_HUGE): auto goes to the rules engine at once on it; the
     * propnet asked for by name still tries, and names the relation when
     * it fails. */
    char rel[128];
    if (o->engine == ENGINE_AUTO && rules_need_tabling(p, rel, sizeof rel)) {
        snprintf(reason, reason_len, "relation '%s' may be infinite bottom-up (it needs goal-directed evaluation)", rel);
        return NULL;
    }
    game_t *g = propnet_compile(p, o, NULL, reason, reason_len);
    if (g) {
        g->kind = ENGINE_PROPNET;
    } else if (o->engine != ENGINE_AUTO && rules_need_tabling(p, rel, sizeof rel)) { /* asked once it failed */
        size_t n = strlen(reason);
        snprintf(reason + n, reason_len - n, "; relation '%s' may be infinite bottom-up", rel);
    }
    return g;
}

game_t *game_compile(const program_t *p, const game_options_t *opt, diag_t *d)
{
    game_options_t o = game_options_defaults(opt);
    uint64_t t0 = clock_now_ns();
    char reason[320] = ""; /* where grounding stopped, and a relation that may be infinite */
    game_t *g = NULL;
    if (o.engine != ENGINE_RULES) {
        g = propnet_try(p, &o, reason, sizeof reason);
        if (!g && o.engine == ENGINE_PROPNET) {
            diag_error(d, NULL, 0, "cannot build a propositional network: %s", reason);
            return NULL;
        }
    }
    if (!g && *reason && !o.quiet) diag_note(d, NULL, 0, "falling back to the rules engine: %s", reason);
    if (!g && o.load_ms) { /* what is left of the load budget */
        uint64_t spent = (clock_now_ns() - t0) / 1000000;
        o.load_ms = spent + 1 < o.load_ms ? o.load_ms - spent : 1;
    }
    if (!g) g = rules_engine_compile(p, &o, d);
    if (!g) return NULL;
    g->stats.ground_ms = (double)(clock_now_ns() - t0) / 1e6;
    snprintf(g->stats.fallback_reason, sizeof g->stats.fallback_reason, "%.*s",
             (int)sizeof g->stats.fallback_reason - 1, reason);
    return g;
}

void game_base_init(game_t *g, const game_vtbl_t *vt, const program_t *p, term_store_t *ts, const rules_t *r)
{
    g->vt = vt;
    g->history_ordered = false; /* sorted answers (game_history_ordered) */
    g->prog = p;
    g->ts = ts;
    g->n_roles = r->n_roles;
    g->role_terms = xcalloc(r->n_roles ? r->n_roles : 1, sizeof *g->role_terms);
    g->role_names = xcalloc(r->n_roles ? r->n_roles : 1, sizeof *g->role_names);
    for (uint32_t i = 0; i < r->n_roles; i++) {
        g->role_terms[i] = r->roles[i];
        g->role_names[i] = ts_to_string(ts, p->syms, r->roles[i], false);
    }
}

void game_base_free(game_t *g)
{
    for (uint32_t i = 0; i < g->n_roles; i++) free(g->role_names[i]);
    free(g->role_names);
    free(g->role_terms);
    ts_free(g->ts);
}

void game_free(game_t *g)
{
    if (g) g->vt->destroy(g);
}

/* ------------------------------------------------------------- engines */

static const char *const engine_names[] = {
    [ENGINE_AUTO] = "auto",
    [ENGINE_PROPNET] = "propnet",
    [ENGINE_RULES] = "rules",
    [ENGINE_NATIVE] = "native",
};

const char *game_engine_name(engine_kind_t k)
{
    return (unsigned)k < sizeof engine_names / sizeof *engine_names ? engine_names[k] : NULL;
}

bool game_engine_parse(const char *s, engine_kind_t *out)
{
    for (size_t k = 0; k < sizeof engine_names / sizeof *engine_names; k++)
        if (k != ENGINE_NATIVE && !strcmp(s, engine_names[k])) {
            *out = (engine_kind_t)k;
            return true;
        }
    return false;
}

engine_kind_t game_engine(const game_t *g) { return g->kind; }
bool game_history_ordered(const game_t *g) { return g->history_ordered; }
bool game_moves_enumerable(const game_t *g)
{
    return g->vt->moves_enumerable ? g->vt->moves_enumerable(g) : g->kind == ENGINE_PROPNET;
}

void game_get_stats(const game_t *g, game_stats_t *out)
{
    *out = g->stats;
    out->engine = game_engine_name(g->kind);
}
uint32_t game_num_roles(const game_t *g) { return g->n_roles; }
const char *game_role_name(const game_t *g, uint32_t role) { return g->role_names[role]; }

int game_role_index(const game_t *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_roles; i++)
        if (!strcasecmp(g->role_names[i], name)) return (int)i;
    return -1;
}

uint32_t game_num_moves(const game_t *g, uint32_t role) { return g->vt->num_moves(g, role); }
const char *game_move_name(const game_t *g, uint32_t role, move_id_t m, bool canonical)
{
    return g->vt->move_name(g, role, m, canonical);
}

/* -------------------------------------------------------------- states */

void game_state_reserve(game_state_t *s, uint32_t n)
{
    /* n == 0 still allocates: an engine may pass data to memcpy/memcmp
     * with a length of 0 (a propnet with no base proposition, found by
     * tests/fuzz/fuzz_reasoner), and NULL is undefined there */
    if (n > s->cap || !s->data) {
        s->cap = n < 8 ? 8 : n;
        s->data = xreallocarray(s->data, s->cap, sizeof *s->data);
    }
}

game_state_t *game_state_new(const game_t *g)
{
    (void)g;
    return xcalloc(1, sizeof(game_state_t));
}

void game_state_free(game_state_t *s)
{
    if (!s) return;
    free(s->data);
    free(s);
}

void game_state_copy(const game_t *g, game_state_t *dst, const game_state_t *src)
{
    (void)g;
    if (dst == src) return;
    game_state_reserve(dst, src->n);
    dst->n = src->n;
    if (src->n) memcpy(dst->data, src->data, src->n * sizeof *src->data);
}

size_t game_state_bytes(const game_state_t *s) { return (size_t)s->n * sizeof *s->data; }

uint64_t game_state_hash(const game_t *g, const game_state_t *s)
{
    (void)g;
    uint64_t h = 0xcbf29ce484222325ULL ^ s->n;
    for (uint32_t i = 0; i < s->n; i++) {
        h ^= s->data[i];
        h *= 0x100000001b3ULL;
        h ^= h >> 29;
    }
    return h * 0x9e3779b97f4a7c15ULL;
}

bool game_state_equal(const game_t *g, const game_state_t *a, const game_state_t *b)
{
    (void)g;
    return a->n == b->n && (a->n == 0 || memcmp(a->data, b->data, a->n * sizeof *a->data) == 0);
}

void game_state_print(const game_t *g, const game_state_t *s, FILE *out, bool canonical)
{
    g->vt->state_print(g, s, out, canonical);
}

bool game_all_fluents(const game_t *g, game_state_t *out) { return g->vt->all_fluents(g, out); }

uint32_t game_state_fluents(const game_t *g, const game_state_t *s, uint32_t *out, uint32_t cap)
{
    return g->vt->fluents(g, s, out, cap);
}

size_t game_fluent_text(const game_t *g, uint32_t f, char *buf, size_t len) { return g->vt->fluent_text(g, f, buf, len); }

/* ------------------------------------------------------------ contexts */

void game_ctx_base_init(game_ctx_t *c, const game_t *g)
{
    c->g = g;
    c->cur = game_state_new(g);
    c->scratch = false;
    c->once = false;
}

void game_ctx_base_free(game_ctx_t *c) { game_state_free(c->cur); }

game_ctx_t *game_ctx_new(const game_t *g)
{
    game_ctx_t *c = g->vt->ctx_new(g);
    game_initial(c, c->cur);
    g->vt->state_changed(c);
    return c;
}

void game_ctx_free(game_ctx_t *c)
{
    if (c) c->g->vt->ctx_free(c);
}

const game_t *game_ctx_game(const game_ctx_t *c) { return c->g; }
void game_initial(game_ctx_t *c, game_state_t *out) { c->g->vt->initial(c, out); }

static void ctx_state(game_ctx_t *c, const game_state_t *s, bool once)
{
    game_state_copy(c->g, c->cur, s);
    c->once = once;
    c->g->vt->state_changed(c);
}

void game_ctx_set_state(game_ctx_t *c, const game_state_t *s) { ctx_state(c, s, false); }
void game_ctx_visit_state(game_ctx_t *c, const game_state_t *s) { ctx_state(c, s, true); }

const game_state_t *game_ctx_state(const game_ctx_t *c) { return c->cur; }
void game_ctx_scratch(game_ctx_t *c) { c->scratch = true; }
bool game_is_terminal(game_ctx_t *c) { return c->g->vt->terminal(c); }
uint32_t game_legal(game_ctx_t *c, uint32_t role, const move_id_t **moves) { return c->g->vt->legal(c, role, moves); }
int game_goal(game_ctx_t *c, uint32_t role) { return c->g->vt->goal(c, role); }
void game_next(game_ctx_t *c, const move_id_t *joint, game_state_t *out) { c->g->vt->next(c, joint, out); }

void game_ctx_play(game_ctx_t *c, const move_id_t *joint)
{
    c->g->vt->next(c, joint, c->cur);
    c->g->vt->state_changed(c);
}

/* ----------------------------------------------------- moves from text */

/* Parse one KIF term without creating symbols or terms: a move that names
 * something the game never interned cannot be legal. Returns 0 on failure.
 * As wide and as deep as the rules' own terms may be (GDL_MAX_ARITY
 * arguments, the reader's SX_MAX_DEPTH): a move the game lists must be
 * playable when a manager sends it back. */
static tid_t parse_term(const game_t *g, const char **pp, const char *end, int depth)
{
    const char *p = *pp;
    while (p < end && isspace((unsigned char)*p)) p++;
    if (p >= end || depth > SX_MAX_DEPTH) return 0;
    const symtab_t *st = g->prog->syms;
    if (*p == ')') return 0;
    if (*p != '(') {
        const char *a = p;
        while (p < end && !isspace((unsigned char)*p) && *p != '(' && *p != ')' && *p != ';') p++;
        sym_t s = symtab_lookup(st, a, (size_t)(p - a));
        *pp = p;
        return s ? ts_lookup(g->ts, s, 0, NULL) : 0;
    }
    p++;
    while (p < end && isspace((unsigned char)*p)) p++;
    const char *a = p;
    while (p < end && !isspace((unsigned char)*p) && *p != '(' && *p != ')' && *p != ';') p++;
    if (p == a) return 0;
    sym_t f = symtab_lookup(st, a, (size_t)(p - a));
    if (!f) return 0;
    tid_t small[16], *args = small, t = 0;
    size_t n = 0, cap = 16;
    for (;;) {
        while (p < end && isspace((unsigned char)*p)) p++;
        if (p >= end) goto out;
        if (*p == ')') {
            p++;
            break;
        }
        if (n == GDL_MAX_ARITY) goto out;
        if (n == cap) {
            cap *= 2;
            args = args == small ? memcpy(xmalloc(cap * sizeof *args), small, sizeof small)
                                 : xreallocarray(args, cap, sizeof *args);
        }
        *pp = p;
        tid_t x = parse_term(g, pp, end, depth + 1);
        if (!x) goto out;
        p = *pp;
        args[n++] = x;
    }
    *pp = p;
    t = ts_lookup(g->ts, f, (uint32_t)n, args); /* (f) is f: arity 0 */
out:
    if (args != small) free(args);
    return t;
}

bool game_playout_move(game_ctx_t *c, uint32_t role, rng_t *rng, move_id_t *out, bool *decides)
{
    return c->g->vt->playout_move && c->g->vt->playout_move(c, role, rng, out, decides);
}

bool game_playouts(game_ctx_t *c, const game_state_t *s, uint64_t n, uint32_t cap, rng_t *rng, unsigned flags,
                   game_playout_done_fn done, void *ud)
{
    return c->g->vt->playouts && c->g->vt->playouts(c, s, n, cap, rng, flags, done, ud);
}

uint32_t game_playout_legal(game_ctx_t *c, uint32_t role, const move_id_t **moves)
{
    return c->g->vt->playout_legal ? c->g->vt->playout_legal(c, role, moves) : 0;
}

uint32_t game_playout_cands(game_ctx_t *c, uint32_t role, const move_id_t **moves)
{
    return c->g->vt->playout_cands ? c->g->vt->playout_cands(c, role, moves) : 0;
}

bool game_playout_accepts(game_ctx_t *c, uint32_t role, move_id_t m)
{
    return c->g->vt->playout_accepts && c->g->vt->playout_accepts(c, role, m);
}

bool game_move_from_text(game_ctx_t *c, uint32_t role, const char *text, size_t len, move_id_t *out)
{
    const game_t *g = c->g;
    if (g->vt->move_from_text) return g->vt->move_from_text(c, role, text, len, out);
    const char *p = text, *end = text + len;
    tid_t t = parse_term(g, &p, end, 0);
    if (!t) return false;
    while (p < end && isspace((unsigned char)*p)) p++;
    if (p != end) return false; /* trailing garbage */
    const move_id_t *moves;
    uint32_t n = game_legal(c, role, &moves);
    for (uint32_t i = 0; i < n; i++)
        if (g->vt->move_term(g, role, moves[i]) == t) {
            *out = moves[i];
            return true;
        }
    return false;
}
