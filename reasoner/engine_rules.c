/* engine_rules.c - the rules engine: evaluates the normalised rules
 * bottom-up in every state, without grounding (see game.h).
 *
 * It is the fallback for games whose grounding exceeds its budget, and an
 * independent second implementation against which the propnet is checked.
 * Static relations are computed once per game and shared by every context;
 * per state, the relations that depend on `true` are computed once
 * (legal, goal, terminal and their helpers), and per joint move those that
 * depend on `does`. A state is the sorted list of its fluents' term ids.
 * Moves get ids as they are first seen legal; the table is shared by all
 * threads under a mutex. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/xalloc.h"
#include "reasoner/engine.h"
#include "reasoner/eval.h"

typedef struct move_table {
    tid_t *terms;
    char **canon, **spell;
    uint32_t n, cap;
    uint32_t *slots; /* move id + 1 */
    uint32_t n_slots;
} move_table_t;

typedef struct rgame {
    struct game base;
    rules_t *rules;
    bool has_static_demand; /* contexts memoise static relations (see STATIC_MEMO_MAX) */
    evaluator_t stat; /* owns the static stores, shared read-only */
    size_t ctx_mem;   /* a context's bound on one state's relations: the load's memory budget */
    pthread_mutex_t mlock;
    move_table_t *moves; /* per role */
} rgame_t;

typedef struct rctx {
    struct game_ctx base;
    evaluator_t ev;
    bool state_done, legal_done;
    bool deep;   /* an evaluation was interrupted (too deep, or the probe's budget): sticky */
    bool warned; /* and it was said (the compile-time probe does not say) */
    size_t move_mem; /* what the last `next` of this state counted in ev.mem (its stores go at the next) */
    move_id_t **legal;
    uint32_t *n_legal, *cap_legal;
} rctx_t;

static inline uint32_t hash_tid(tid_t t)
{
    uint32_t h = t * 0x9e3779b1u;
    return h ^ (h >> 16);
}

/* Move id of a term for a role, creating it if new (g->mlock held). The
 * names are made on demand by rg_move_name: a `legal` over big domains
 * gives millions of moves, of which a match names a few, and two strings
 * per move made here cost seconds and gigabytes (issue 13). */
static move_id_t move_intern_locked(rgame_t *g, uint32_t role, tid_t t)
{
    move_table_t *m = &g->moves[role];
    if (m->n * 2 >= m->n_slots) {
        uint32_t ns = m->n_slots ? m->n_slots * 2 : 64;
        uint32_t *slots = xcalloc(ns, sizeof *slots);
        for (uint32_t i = 0; i < m->n; i++) {
            uint32_t j = hash_tid(m->terms[i]) & (ns - 1);
            while (slots[j]) j = (j + 1) & (ns - 1);
            slots[j] = i + 1;
        }
        free(m->slots);
        m->slots = slots;
        m->n_slots = ns;
    }
    uint32_t mask = m->n_slots - 1, j = hash_tid(t) & mask;
    for (; m->slots[j]; j = (j + 1) & mask) {
        if (m->terms[m->slots[j] - 1] == t) return m->slots[j] - 1;
    }
    if (m->n == m->cap) {
        /* Every reader of the table (rg_num_moves, rg_move_name,
         * rg_move_term) holds g->mlock too, so the arrays are replaced
         * here and the old ones freed at once. */
        uint32_t nc = m->cap ? m->cap * 2 : 64;
        tid_t *terms = xcalloc(nc, sizeof *terms);
        char **canon = xcalloc(nc, sizeof *canon), **spell = xcalloc(nc, sizeof *spell);
        if (m->n) {
            memcpy(terms, m->terms, m->n * sizeof *terms);
            memcpy(canon, m->canon, m->n * sizeof *canon);
            memcpy(spell, m->spell, m->n * sizeof *spell);
        }
        free(m->terms);
        free(m->canon);
        free(m->spell);
        m->terms = terms;
        m->canon = canon;
        m->spell = spell;
        m->cap = nc;
    }
    move_id_t id = m->n;
    m->terms[id] = t;
    m->n++;
    m->slots[j] = id + 1;
    return id;
}

static void rg_destroy(game_t *gg)
{
    rgame_t *g = (rgame_t *)gg;
    for (uint32_t r = 0; r < g->base.n_roles; r++) {
        move_table_t *m = &g->moves[r];
        for (uint32_t i = 0; i < m->n; i++) {
            free(m->canon[i]);
            free(m->spell[i]);
        }
        free(m->terms);
        free(m->canon);
        free(m->spell);
        free(m->slots);
    }
    free(g->moves);
    eval_free(&g->stat);
    rules_free(g->rules);
    pthread_mutex_destroy(&g->mlock);
    game_base_free(&g->base);
    free(g);
}

static uint32_t rg_num_moves(const game_t *gg, uint32_t role)
{
    rgame_t *g = (rgame_t *)gg;
    pthread_mutex_lock(&g->mlock);
    uint32_t n = g->moves[role].n;
    pthread_mutex_unlock(&g->mlock);
    return n;
}

static const char *rg_move_name(const game_t *gg, uint32_t role, move_id_t m, bool canonical)
{
    rgame_t *g = (rgame_t *)gg;
    pthread_mutex_lock(&g->mlock);
    move_table_t *t = &g->moves[role];
    const char *s = "?";
    if (m < t->n) {
        char **slot = canonical ? &t->canon[m] : &t->spell[m];
        if (!*slot) *slot = ts_to_string(g->base.ts, g->base.prog->syms, t->terms[m], canonical);
        s = *slot;
    }
    pthread_mutex_unlock(&g->mlock);
    return s;
}

static tid_t rg_move_term(const game_t *gg, uint32_t role, move_id_t m)
{
    rgame_t *g = (rgame_t *)gg;
    pthread_mutex_lock(&g->mlock);
    tid_t t = m < g->moves[role].n ? g->moves[role].terms[m] : 0;
    pthread_mutex_unlock(&g->mlock);
    return t;
}

typedef struct named {
    char *text;
} named_t;

static int cmp_named(const void *a, const void *b) { return strcmp(((const named_t *)a)->text, ((const named_t *)b)->text); }

static void rg_state_print(const game_t *gg, const game_state_t *s, FILE *out, bool canonical)
{
    named_t *v = xcalloc(s->n ? s->n : 1, sizeof *v);
    for (uint32_t i = 0; i < s->n; i++) v[i].text = ts_to_string(gg->ts, gg->prog->syms, s->data[i], canonical);
    qsort(v, s->n, sizeof *v, cmp_named);
    for (uint32_t i = 0; i < s->n; i++) {
        if (i) fputc(' ', out);
        fputs(v[i].text, out);
        free(v[i].text);
    }
    free(v);
}

/* Fluent ids are the fluents' terms (a state is their sorted ids). */
static uint32_t rg_fluents(const game_t *gg, const game_state_t *s, uint32_t *out, uint32_t cap)
{
    (void)gg;
    if (s->n && cap) memcpy(out, s->data, (s->n < cap ? s->n : cap) * sizeof *out);
    return s->n;
}

static size_t rg_fluent_text(const game_t *gg, uint32_t f, char *buf, size_t len)
{
    char *t = ts_to_string(gg->ts, gg->prog->syms, f, true);
    size_t n = strlen(t);
    if (len) snprintf(buf, len, "%s", t);
    free(t);
    return n;
}

static game_ctx_t *rg_ctx_new(const game_t *gg)
{
    rgame_t *g = (rgame_t *)gg;
    rctx_t *c = xcalloc(1, sizeof *c);
    game_ctx_base_init(&c->base, gg);
    eval_init(&c->ev, g->rules, g->base.ts, g->stat.own);
    c->ev.mem_limit = g->ctx_mem;
    uint32_t n = g->base.n_roles ? g->base.n_roles : 1;
    c->legal = xcalloc(n, sizeof *c->legal);
    c->n_legal = xcalloc(n, sizeof *c->n_legal);
    c->cap_legal = xcalloc(n, sizeof *c->cap_legal);
    return &c->base;
}

static void rg_ctx_free(game_ctx_t *cc)
{
    rctx_t *c = (rctx_t *)cc;
    for (uint32_t r = 0; r < cc->g->n_roles; r++) free(c->legal[r]);
    free(c->legal);
    free(c->n_legal);
    free(c->cap_legal);
    eval_free(&c->ev);
    game_ctx_base_free(cc);
    free(c);
}

static int cmp_tid(const void *a, const void *b)
{
    tid_t x = *(const tid_t *)a, y = *(const tid_t *)b;
    return x < y ? -1 : x > y;
}

/* The fluents of a unary relation store, sorted and unique, into out. */
static void collect_fluents(const relstore_t *s, game_state_t *out)
{
    game_state_reserve(out, s->n);
    for (uint32_t i = 0; i < s->n; i++) out->data[i] = relstore_tuple(s, i)[0];
    out->n = s->n; /* unique already: the store deduplicates */
    if (out->n > 1) qsort(out->data, out->n, sizeof *out->data, cmp_tid);
}

static void rg_state_changed(game_ctx_t *cc)
{
    rctx_t *c = (rctx_t *)cc;
    c->state_done = false;
    c->legal_done = false;
}

/* A goal-directed evaluation (rules.h, tabling) whose calls nest beyond
 * EVAL_MAX_DEPTH stops there; the compile-time probe makes that rare,
 * and it is said once per context rather than hidden. */
static void check_depth(rctx_t *c)
{
    if (!c->ev.aborted) return;
    c->deep = true;
    /* memos filled by the interrupted calls may be incomplete */
    eval_clear_phase(&c->ev, PHASE_STATIC);
    if (c->ev.too_deep && !c->warned) {
        fprintf(stderr, "ggp: rules engine: goal-directed evaluation nested deeper than %d calls; "
                        "the results of this state are incomplete\n", EVAL_MAX_DEPTH);
        c->warned = true;
    } else if (c->ev.ts->full && !c->warned) {
        fprintf(stderr, "ggp: rules engine: the term store is full; the results of this state are incomplete\n");
        c->warned = true;
    } else if ((c->ev.over_mem || c->ev.over_member) && !c->warned) {
        fprintf(stderr, "ggp: rules engine: a state's relations need more than %zu MiB (the load's memory budget); "
                        "the results of this state are incomplete\n",
                c->ev.mem_limit >> 20);
        c->warned = true;
    }
    c->ev.over_mem = c->ev.over_member = false;
    c->ev.too_deep = c->ev.aborted = false;
}

/* Memoised calls and answers of static demand relations that a context
 * keeps across states (laikLee_hex: about 20 KB per playout)
 * before it starts them afresh, so that a long search stays bounded. */
#define STATIC_MEMO_MAX (1u << 19)

static void ensure_state(rctx_t *c)
{
    if (c->state_done) return;
    rgame_t *g = (rgame_t *)c->base.g;
    const rules_t *r = g->rules;
    if (g->has_static_demand && eval_demand_size(&c->ev, PHASE_STATIC) > STATIC_MEMO_MAX)
        eval_clear_phase(&c->ev, PHASE_STATIC); /* only the context's own (demand) stores */
    eval_clear_phase(&c->ev, PHASE_STATE);
    eval_clear_phase(&c->ev, PHASE_MOVE);
    /* The budget is per state: what one state derives (a rule set whose
     * legal moves number 10^12 stops here, its results incomplete,
     * instead of taking every byte of the machine during a match). */
    c->ev.mem = c->move_mem = 0;
    relstore_t *t = c->ev.store[r->rel_true];
    for (uint32_t i = 0; i < c->base.cur->n; i++) relstore_insert(t, &c->base.cur->data[i], NULL);
    eval_run_phase(&c->ev, PHASE_STATE);
    check_depth(c);
    c->state_done = true;
    c->legal_done = false;
}

static void rg_initial(game_ctx_t *cc, game_state_t *out)
{
    rctx_t *c = (rctx_t *)cc;
    rgame_t *g = (rgame_t *)cc->g;
    const rules_t *r = g->rules;
    if (r->rels[r->rel_init].phase == PHASE_STATIC) {
        collect_fluents(g->stat.own + r->rel_init, out);
        return;
    }
    /* init that depends on the state (refused by validation): evaluate it
     * in the empty state rather than fail. */
    eval_clear_phase(&c->ev, PHASE_STATE);
    eval_clear_phase(&c->ev, PHASE_MOVE);
    eval_run_phase(&c->ev, PHASE_STATE);
    collect_fluents(c->ev.store[r->rel_init], out);
    c->state_done = false;
}

static bool rg_terminal(game_ctx_t *cc)
{
    rctx_t *c = (rctx_t *)cc;
    ensure_state(c);
    return c->ev.store[((rgame_t *)cc->g)->rules->rel_terminal]->n > 0;
}

static int cmp_move(const void *a, const void *b)
{
    move_id_t x = *(const move_id_t *)a, y = *(const move_id_t *)b;
    return x < y ? -1 : x > y;
}

static bool ids_sorted(const move_id_t *ids, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        if (ids[i - 1] > ids[i]) return false;
    return true;
}

static uint32_t rg_legal(game_ctx_t *cc, uint32_t role, const move_id_t **moves)
{
    rctx_t *c = (rctx_t *)cc;
    rgame_t *g = (rgame_t *)cc->g;
    ensure_state(c);
    if (!c->legal_done) {
        for (uint32_t r = 0; r < g->base.n_roles; r++) c->n_legal[r] = 0;
        const relstore_t *s = c->ev.store[g->rules->rel_legal];
        /* one lock for the whole set, not one per move: millions of legal
         * moves are possible (issue 13) */
        pthread_mutex_lock(&g->mlock);
        for (uint32_t i = 0; i < s->n; i++) {
            const tid_t *tu = relstore_tuple(s, i);
            for (uint32_t r = 0; r < g->base.n_roles; r++) {
                if (g->base.role_terms[r] != tu[0]) continue;
                XVEC_RESERVE(&c->legal[r], &c->cap_legal[r], c->n_legal[r] + 1);
                c->legal[r][c->n_legal[r]++] = move_intern_locked(g, r, tu[1]);
            }
        }
        pthread_mutex_unlock(&g->mlock);
        /* The store keeps the order in which moves were first found, so
         * the ids are usually sorted already: check before sorting. */
        for (uint32_t r = 0; r < g->base.n_roles; r++)
            if (!ids_sorted(c->legal[r], c->n_legal[r]))
                qsort(c->legal[r], c->n_legal[r], sizeof(move_id_t), cmp_move);
        c->legal_done = true;
    }
    *moves = c->legal[role];
    return c->n_legal[role];
}

static int rg_goal(game_ctx_t *cc, uint32_t role)
{
    rctx_t *c = (rctx_t *)cc;
    rgame_t *g = (rgame_t *)cc->g;
    ensure_state(c);
    const relstore_t *s = c->ev.store[g->rules->rel_goal];
    int value = GAME_GOAL_NONE;
    for (uint32_t i = 0; i < s->n; i++) {
        const tid_t *tu = relstore_tuple(s, i);
        if (tu[0] != g->base.role_terms[role]) continue;
        long v;
        if (ts_arity(g->base.ts, tu[1]) != 0 || !symtab_int_value(g->base.prog->syms, ts_functor(g->base.ts, tu[1]), &v) ||
            v < 0 || v > 100)
            continue; /* not a goal value */
        if (value == GAME_GOAL_NONE) value = (int)v;
        else if (value != (int)v) return GAME_GOAL_MULTIPLE;
    }
    return value;
}

static void rg_next(game_ctx_t *cc, const move_id_t *joint, game_state_t *out)
{
    rctx_t *c = (rctx_t *)cc;
    rgame_t *g = (rgame_t *)cc->g;
    const rules_t *r = g->rules;
    ensure_state(c);
    eval_clear_phase(&c->ev, PHASE_MOVE);
    /* the last joint move's stores are gone: so is their count (a search
     * asks every joint move of a state in turn) */
    c->ev.mem -= c->move_mem < c->ev.mem ? c->move_mem : c->ev.mem;
    size_t before = c->ev.mem;
    relstore_t *does = c->ev.store[r->rel_does];
    for (uint32_t i = 0; i < g->base.n_roles; i++) {
        tid_t tu[2] = {g->base.role_terms[i], rg_move_term(cc->g, i, joint[i])};
        relstore_insert(does, tu, NULL);
    }
    eval_run_phase(&c->ev, PHASE_MOVE);
    c->move_mem = c->ev.mem - before;
    check_depth(c);
    collect_fluents(c->ev.store[r->rel_next], out);
}

/* The `base` facts (static: computed with the game), if any. */
static bool rg_all_fluents(const game_t *gg, game_state_t *out)
{
    const rgame_t *g = (const rgame_t *)gg;
    const rules_t *r = g->rules;
    for (uint32_t i = 0; i < r->n_rels; i++)
        if (r->rels[i].name == SYM_BASE && r->rels[i].arity == 1 && r->rels[i].phase == PHASE_STATIC &&
            !r->rels[i].demand && g->stat.store[i]->n) {
            collect_fluents(g->stat.store[i], out);
            return true;
        }
    return false;
}

static const game_vtbl_t rules_vtbl = {
    .destroy = rg_destroy,
    .state_print = rg_state_print,
    .all_fluents = rg_all_fluents,
    .ctx_new = rg_ctx_new,
    .ctx_free = rg_ctx_free,
    .initial = rg_initial,
    .state_changed = rg_state_changed,
    .terminal = rg_terminal,
    .legal = rg_legal,
    .goal = rg_goal,
    .next = rg_next,
    .num_moves = rg_num_moves,
    .move_name = rg_move_name,
    .move_term = rg_move_term,
    .fluents = rg_fluents,
    .fluent_text = rg_fluent_text,
};

static bool has_tabling(const rules_t *r)
{
    for (uint32_t i = 0; i < r->n_rels; i++)
        if (r->rels[i].tabled) return true;
    return false;
}

/* Evaluate the initial state (terminal, legal, goals) and its first joint
 * move within the budget: false if the goal-directed evaluation does not
 * terminate there (nested too deep or out of time). */
static bool probe_initial(rgame_t *g, deadline_t dl)
{
    game_ctx_t *cc = rg_ctx_new(&g->base);
    rctx_t *c = (rctx_t *)cc;
    c->ev.deadline = dl;
    c->ev.mem_limit = 0; /* bounded by dl; a stop here would read as non-termination */
    c->warned = true;
    game_state_t *s = game_state_new(&g->base);
    rg_initial(cc, s);
    game_ctx_set_state(cc, s);
    ensure_state(c);
    bool ok = !c->deep;
    if (ok && !rg_terminal(cc)) {
        uint32_t nr = g->base.n_roles;
        move_id_t *joint = xcalloc(nr ? nr : 1, sizeof *joint);
        bool all = true;
        for (uint32_t r = 0; r < nr; r++) {
            const move_id_t *m;
            if (rg_legal(cc, r, &m) == 0) all = false;
            else joint[r] = m[0];
            (void)rg_goal(cc, r);
        }
        if (all) rg_next(cc, joint, s);
        ok = !c->deep;
        free(joint);
    }
    game_state_free(s);
    rg_ctx_free(cc);
    return ok;
}

/* Do two programs evaluate the same relations the same way? */
static bool same_demand(const rules_t *a, const rules_t *b)
{
    if (a->n_rels != b->n_rels) return false;
    for (uint32_t i = 0; i < a->n_rels; i++)
        if (a->rels[i].demand != b->rels[i].demand || a->rels[i].demand_mask != b->rels[i].demand_mask) return false;
    return true;
}

static size_t static_mb(const game_options_t *opt) { return opt && opt->static_mb ? opt->static_mb : 2048; }

/* The static budget of opt in ms: static_ms (default 60000), or load_ms if
 * smaller. */
static uint64_t static_budget_ms(const game_options_t *opt)
{
    uint64_t ms = opt && opt->static_ms ? opt->static_ms : 60000;
    if (opt && opt->load_ms && opt->load_ms < ms) ms = opt->load_ms;
    return ms;
}

/* The error of a static phase stopped by its budget, at the rule it was
 * joining (else the first rule of the relation it was computing). */
static void static_over_budget(const evaluator_t *ev, const program_t *p, const game_options_t *opt, diag_t *d)
{
    char name[160];
    eval_blame_name(ev, name, sizeof name);
    uint32_t off = eval_blame_src_off(ev);
    src_t *src = off == UINT32_MAX ? NULL : p->src;
    if (!*name)
        diag_error(d, NULL, 0, "the static relations of the rules take longer than %llu ms to compute",
                   (unsigned long long)static_budget_ms(opt));
    else if (ev->over_mem)
        diag_error(d, src, off,
                   "relation '%s' exceeds the memory budget of %zu MB (%u tuples) while loading: some rule asks "
                   "it with arguments unbound, so it is computed in full (--memory raises the budget)",
                   name, static_mb(opt), eval_rel_size(ev, eval_blame_rel(ev)));
    else
        diag_error(d, src, off,
                   "relation '%s' is still being computed (%u tuples) when the load budget of %llu ms runs out "
                   "(--load-ms raises the budget)",
                   name, eval_rel_size(ev, eval_blame_rel(ev)), (unsigned long long)static_budget_ms(opt));
}

/* The rules game of p compiled with flags. A program with goal-directed
 * relations whose static phase or initial-state probe does not terminate
 * sets *retry instead of reporting (the caller compiles it without
 * tabling: bottom-up, under the static budget, as before). NULL also when
 * the normalised program evaluates like unless_like (before its static
 * phase, which is most of the cost of a compile). A relation only asked
 * with every argument bound that grows past RULES_MEMBER_BIG tuples (or
 * the memory budget) is added to *ms and the program compiled again with
 * it evaluated on demand: whatever its estimated size (issue 13 item 4;
 * every compile of the same program and flags asks ms's relations on
 * demand). */
static game_t *compile_flags(const program_t *p, const game_options_t *opt, deadline_t dl, diag_t *d, unsigned flags,
                             bool *retry, const rules_t *unless_like, rules_member_set_t *ms)
{
again:;
    term_store_t *ts = ts_new();
    rules_t *r = rules_compile_member(p, ts, d, flags, ms);
    if (!r || (unless_like && same_demand(unless_like, r))) {
        if (r) rules_free(r);
        ts_free(ts);
        return NULL;
    }
    rgame_t *g = xcalloc(1, sizeof *g);
    game_base_init(&g->base, &rules_vtbl, p, ts, r);
    g->rules = r;
    pthread_mutex_init(&g->mlock, NULL);
    g->moves = xcalloc(r->n_roles ? r->n_roles : 1, sizeof *g->moves);
    eval_init(&g->stat, r, ts, NULL);
    /* Static relations are computed in full, once: a description whose
     * static part is infinite in practice must fail cleanly rather than
     * hang a player. */
    g->stat.deadline = dl;
    g->stat.mem_limit = static_mb(opt) << 20;
    g->ctx_mem = g->stat.mem_limit;
    g->stat.member_limit = (uint32_t)RULES_MEMBER_BIG;
    g->stat.progress = opt ? opt->progress : NULL;
    if (g->stat.progress) atomic_store(&g->stat.progress->stage, "computing the static relations");
    bool tab = has_tabling(r);
    bool ok = eval_run_phase(&g->stat, PHASE_STATIC);
    if (!ok && g->stat.over_member && !ts->full && rules_member_add(ms, g->stat.blame_rel)) {
        game_free(&g->base);
        goto again;
    }
    if (!ok || (tab && !probe_initial(g, dl))) {
        if (ts->full)
            diag_error(d, NULL, 0, "rules: the term store is full (more than %u MiB of distinct terms)",
                       (unsigned)((size_t)ts->max_chunks * TS_CHUNK_WORDS * 4 >> 20));
        else if (tab && !g->stat.over_mem) *retry = true;
        else
            static_over_budget(&g->stat, p, opt, d);
        game_free(&g->base);
        return NULL;
    }
    g->stat.deadline = deadline_none();
    g->stat.mem_limit = 0;
    g->stat.member_limit = 0; /* the static phase's bounds end with it */
    g->stat.progress = NULL;
    for (uint32_t i = 0; i < r->n_rels; i++)
        if (r->rels[i].demand && r->rels[i].phase == PHASE_STATIC) g->has_static_demand = true;
    g->base.kind = ENGINE_RULES;
    g->base.stats.rules = r->n_rules;
    return &g->base;
}

/* The evaluation plan is chosen by counted work (RULES_PARTIAL, rules.h):
 * both programs play the same few plies from the initial state (moves
 * picked by a fixed seed among the legal moves sorted by name), and the
 * one that looks at fewer tuples wins. Counted work, never time, so that
 * the choice is the same on every machine and run. */
#define PLAN_PROBE_PLIES 6
#define PLAN_PROBE_SEED 0x5eed
/* Work limit of the partial-demand probe: beyond it (about a second) the
 * usual plan is kept without comparing. */
#define PLAN_PROBE_WORK (20u * 1000 * 1000)

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Work (tuples looked at, answers and demand calls) of playing
 * PLAN_PROBE_PLIES plies, or UINT64_MAX past limit or when the
 * evaluation is interrupted. */
static uint64_t probe_work(rgame_t *g, uint64_t limit, deadline_t dl)
{
    game_ctx_t *cc = rg_ctx_new(&g->base);
    rctx_t *c = (rctx_t *)cc;
    c->ev.deadline = dl;
    c->ev.work_limit = limit;
    c->ev.mem_limit = 0; /* bounded by dl and limit, as before contexts had a memory bound */
    c->warned = true;
    rng_t rng;
    rng_seed(&rng, PLAN_PROBE_SEED);
    game_state_t *s = game_state_new(&g->base);
    uint32_t nr = g->base.n_roles;
    move_id_t *joint = xcalloc(nr ? nr : 1, sizeof *joint);
    rg_initial(cc, s);
    bool ok = true;
    for (uint32_t ply = 0; ply < PLAN_PROBE_PLIES && ok; ply++) {
        game_ctx_set_state(cc, s);
        ensure_state(c);
        if (c->deep || rg_terminal(cc)) break;
        for (uint32_t r = 0; r < nr && ok; r++) {
            const move_id_t *m;
            uint32_t n = rg_legal(cc, r, &m);
            (void)rg_goal(cc, r);
            /* past the limit already: do not name and sort what may be
             * millions of moves only to give up afterwards */
            if (n == 0 || (limit && c->ev.work > limit)) {
                ok = false;
                break;
            }
            const char **names = xcalloc(n, sizeof *names);
            for (uint32_t i = 0; i < n; i++) names[i] = rg_move_name(&g->base, r, m[i], true);
            qsort(names, n, sizeof *names, cmp_str);
            const char *pick = names[rng_below(&rng, n)];
            for (uint32_t i = 0; i < n; i++)
                if (rg_move_name(&g->base, r, m[i], true) == pick) joint[r] = m[i];
            free(names);
        }
        if (ok) rg_next(cc, joint, s);
    }
    uint64_t work = c->deep || c->ev.aborted || (limit && c->ev.work > limit) ? UINT64_MAX : c->ev.work;
    free(joint);
    game_state_free(s);
    rg_ctx_free(cc);
    return work;
}

game_t *rules_engine_compile(const program_t *p, const game_options_t *opt, diag_t *d)
{
    bool retry = false;
    unsigned flags = RULES_DEMAND;
    deadline_t dl = deadline_in_ms(static_budget_ms(opt));
    rules_member_set_t ms = {0};
    game_t *g = compile_flags(p, opt, dl, d, flags, &retry, NULL, &ms);
    if (!g && retry) g = compile_flags(p, opt, dl, d, flags |= RULES_NO_TABLING, &retry, NULL, &ms);
    if (!g) {
        rules_member_free(&ms);
        return NULL;
    }
    /* Partial demand (rules.h RULES_PARTIAL), when it changes anything and
     * costs less work on the probe. */
    diag_t quiet;
    diag_init(&quiet, NULL);
    retry = false;
    game_t *pg = compile_flags(p, opt, dl, &quiet, flags | RULES_PARTIAL, &retry, ((rgame_t *)g)->rules, &ms);
    rules_member_free(&ms);
    if (!pg) return g;
    uint64_t wp = probe_work((rgame_t *)pg, PLAN_PROBE_WORK, dl);
    uint64_t wb = wp == UINT64_MAX ? 0 : probe_work((rgame_t *)g, wp, dl);
    if (wp == UINT64_MAX || wb < wp) {
        game_free(pg);
        return g;
    }
    game_free(g);
    return pg;
}

bool rules_need_tabling(const program_t *p, char *rel, size_t len)
{
    diag_t quiet;
    diag_init(&quiet, NULL);
    term_store_t *ts = ts_new();
    rules_t *r = rules_compile(p, ts, &quiet, RULES_DEMAND);
    bool tab = r && r->infinite;
    if (tab) {
        const crel_t *R = &r->rels[r->infinite_rel];
        snprintf(rel, len, "%s/%u", symtab_spelling(r->syms, R->name), R->arity);
    }
    if (r) rules_free(r);
    ts_free(ts);
    return tab;
}
