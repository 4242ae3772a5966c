/* eval.c - bottom-up evaluation over tuple stores (see eval.h). */
#include "reasoner/eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define NONE32 UINT32_MAX

/* ------------------------------------------------------------- relstore */

static uint32_t hash_tuple(const tid_t *t, uint32_t arity)
{
    uint64_t h = 0x243f6a8885a308d3ULL + arity;
    for (uint32_t i = 0; i < arity; i++) {
        h ^= t[i];
        h *= 0x9e3779b97f4a7c15ULL;
        h ^= h >> 31;
    }
    return (uint32_t)(h ^ (h >> 32));
}

static inline uint32_t hash_val(tid_t v)
{
    uint32_t h = v * 0x9e3779b1u;
    return h ^ (h >> 15);
}

static void relstore_init(relstore_t *s, uint32_t arity, const term_store_t *ts)
{
    memset(s, 0, sizeof *s);
    s->arity = arity;
    s->ts = ts;
}

static void relstore_free(relstore_t *s)
{
    free(s->data);
    free(s->slots);
    for (uint32_t k = 0; k < s->n_idx; k++) {
        free(s->idx_key[k]);
        free(s->idx_head[k]);
        free(s->idx_next[k]);
    }
    memset(s, 0, sizeof *s);
}

static void relstore_clear(relstore_t *s)
{
    if (s->n == 0) return;
    s->n = 0;
    memset(s->slots, 0, s->n_slots * sizeof *s->slots);
    for (uint32_t k = 0; k < s->n_idx; k++) memset(s->idx_head[k], 0, s->idx_slots * sizeof *s->idx_head[k]);
}

/* Add an index (before any tuple is added); false if the store has as
 * many as it can take (the probe then scans). */
static bool relstore_add_index(relstore_t *s, const idx_spec_t *spec, uint32_t id)
{
    for (uint32_t k = 0; k < s->n_idx; k++)
        if (s->idx_id[k] == id) return true;
    if (s->n_idx == RELSTORE_MAX_IDX) return false;
    s->idx_spec[s->n_idx] = spec;
    s->idx_id[s->n_idx++] = id;
    return true;
}

/* The index key of a path (see rb_plan_order_from in rules_plan.c): a
 * whole argument, or the functor and one argument of a function term,
 * mixed; 0 = none. */
static inline tid_t path_mix(sym_t functor, tid_t v)
{
    tid_t k = v * 0x85ebca6bu + functor * 0xc2b2ae35u;
    return k ? k : 1;
}

static tid_t path_key(const term_store_t *ts, const tid_t *tuple, uint32_t code)
{
    tid_t t = tuple[code >> 8];
    uint32_t q = code & 255;
    if (!q) return t;
    const uint32_t *w = ts_words(ts, t);
    return w[1] >= q ? path_mix(w[0], w[2 + q - 1]) : 0;
}

/* Combine the values of an index's paths into one key (0 = a path does
 * not exist in this tuple: it is not indexed). Equal keys for different
 * values only cost extra candidates, which matching rejects. */
static inline tid_t key_add(tid_t k, tid_t v) { return (k ^ v) * 0x9e3779b1u + 0x7f4a7c15u; }

static tid_t tuple_key(const term_store_t *ts, const tid_t *tuple, const idx_spec_t *sp)
{
    tid_t k = 0x243f6a88u;
    for (uint32_t i = 0; i < sp->n; i++) {
        tid_t v = path_key(ts, tuple, sp->path[i]);
        if (!v) return 0;
        k = key_add(k, v);
    }
    return k ? k : 1;
}

static void index_put(relstore_t *s, uint32_t k, tid_t v, uint32_t tuple)
{
    if (!v) {
        s->idx_next[k][tuple] = 0;
        return;
    }
    uint32_t mask = s->idx_slots - 1;
    for (uint32_t i = hash_val(v) & mask;; i = (i + 1) & mask) {
        if (!s->idx_head[k][i]) {
            s->idx_key[k][i] = v;
            s->idx_head[k][i] = tuple + 1;
            s->idx_next[k][tuple] = 0;
            return;
        }
        if (s->idx_key[k][i] == v) {
            s->idx_next[k][tuple] = s->idx_head[k][i];
            s->idx_head[k][i] = tuple + 1;
            return;
        }
    }
}

static void rehash(relstore_t *s, uint32_t n_slots)
{
    free(s->slots);
    s->slots = xcalloc(n_slots, sizeof *s->slots);
    s->n_slots = n_slots;
    for (uint32_t t = 0; t < s->n; t++) {
        uint32_t mask = n_slots - 1, i = hash_tuple(relstore_tuple(s, t), s->arity) & mask;
        while (s->slots[i]) i = (i + 1) & mask;
        s->slots[i] = t + 1;
    }
    /* Index tables: same number of slots, rebuilt oldest first so chains
     * keep newest-first order. */
    s->idx_slots = n_slots;
    for (uint32_t k = 0; k < s->n_idx; k++) {
        free(s->idx_key[k]);
        free(s->idx_head[k]);
        s->idx_key[k] = xcalloc(n_slots, sizeof *s->idx_key[k]);
        s->idx_head[k] = xcalloc(n_slots, sizeof *s->idx_head[k]);
        s->idx_next[k] = xreallocarray(s->idx_next[k], s->cap ? s->cap : 1, sizeof *s->idx_next[k]);
        for (uint32_t t = 0; t < s->n; t++) index_put(s, k, tuple_key(s->ts, relstore_tuple(s, t), s->idx_spec[k]), t);
    }
}

uint32_t relstore_find(const relstore_t *s, const tid_t *tuple)
{
    if (!s->n_slots) return NONE32;
    uint32_t mask = s->n_slots - 1;
    for (uint32_t i = hash_tuple(tuple, s->arity) & mask;; i = (i + 1) & mask) {
        uint32_t t = s->slots[i];
        if (!t) return NONE32;
        if (memcmp(relstore_tuple(s, t - 1), tuple, s->arity * sizeof *tuple) == 0) return t - 1;
    }
}

bool relstore_insert(relstore_t *s, const tid_t *tuple, uint32_t *idx)
{
    if (s->n_slots == 0) rehash(s, 16);
    uint32_t mask = s->n_slots - 1, i = hash_tuple(tuple, s->arity) & mask;
    for (;; i = (i + 1) & mask) {
        uint32_t t = s->slots[i];
        if (!t) break;
        if (memcmp(relstore_tuple(s, t - 1), tuple, s->arity * sizeof *tuple) == 0) {
            if (idx) *idx = t - 1;
            return false;
        }
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->data = xreallocarray(s->data, (size_t)s->cap * (s->arity ? s->arity : 1), sizeof *s->data);
        for (uint32_t k = 0; k < s->n_idx; k++) s->idx_next[k] = xreallocarray(s->idx_next[k], s->cap, sizeof(uint32_t));
    }
    uint32_t t = s->n++;
    if (s->arity) memcpy(s->data + (size_t)t * s->arity, tuple, s->arity * sizeof *tuple);
    s->slots[i] = t + 1;
    for (uint32_t k = 0; k < s->n_idx; k++) index_put(s, k, tuple_key(s->ts, tuple, s->idx_spec[k]), t);
    if (s->n * 2 > s->n_slots) rehash(s, s->n_slots * 2);
    if (idx) *idx = t;
    return true;
}

/* ------------------------------------------------------------ evaluator */

static uint32_t pat_nodes(const pat_t *p)
{
    uint32_t n = 1;
    if (p->kind == PAT_FN)
        for (uint32_t i = 0; i < p->arity; i++) n += pat_nodes(p->args[i]);
    return n;
}

static uint32_t pat_nodes_n(pat_t *const *ps, uint32_t n)
{
    uint32_t total = n;
    for (uint32_t i = 0; i < n; i++) total += pat_nodes(ps[i]);
    return total;
}

void eval_init(evaluator_t *ev, const rules_t *r, term_store_t *ts, relstore_t *shared_static)
{
    memset(ev, 0, sizeof *ev);
    ev->r = r;
    ev->ts = ts;
    ev->store = xcalloc(r->n_rels ? r->n_rels : 1, sizeof *ev->store);
    ev->own = xcalloc(r->n_rels ? r->n_rels : 1, sizeof *ev->own);
    ev->delta_lit = NONE32;
    ev->cur_rel = ev->blame_rel = REL_NONE;
    ev->cur_rule = ev->blame_rule = NULL;
    for (uint32_t i = 0; i < r->n_rels; i++) {
        if (r->rels[i].arity > ev->max_arity) ev->max_arity = r->rels[i].arity;
        relstore_init(&ev->own[i], r->rels[i].arity, ts);
        /* A static demand relation is memoised per evaluator: its answers
         * grow as calls come. */
        ev->store[i] = (shared_static && r->rels[i].phase == PHASE_STATIC && !r->rels[i].demand) ? &shared_static[i]
                                                                                               : &ev->own[i];
    }
    for (uint32_t i = 0; i < r->n_rules; i++) {
        const crule_t *c = &r->rules[i];
        if (c->n_vars > ev->max_vars) ev->max_vars = c->n_vars;
        if (c->n_body > ev->max_body) ev->max_body = c->n_body;
        /* Indexes for every plan: the default one, the semi-naive ones
         * and the demand query plan. */
        for (uint32_t p = 0; p < c->n_body + 2; p++) {
            const corder_t *pl = p == 0 ? &c->plan : p == 1 ? &c->qplan : c->delta ? &c->delta[p - 2] : NULL;
            if (!pl || !pl->order) continue;
            for (uint32_t j = 0; j < c->n_body; j++)
                if (pl->index_pos[j] >= 0) {
                    uint32_t id = (uint32_t)pl->index_pos[j];
                    relstore_add_index(&ev->own[r->specs[id].rel], &r->specs[id], id);
                }
        }
    }
    ev->vals = xcalloc(ev->max_vars + 1, sizeof *ev->vals);
    ev->dm = xcalloc(r->n_rels ? r->n_rels : 1, sizeof *ev->dm);
    for (uint32_t i = 0; i < r->n_rels; i++) {
        ev->dm[i].active = NONE32;
        if (r->rels[i].demand) relstore_init(&ev->dm[i].calls, (uint32_t)__builtin_popcount(r->rels[i].demand_mask), ts);
    }
    ev->matched = xcalloc(ev->max_body + 1, sizeof *ev->matched);
    uint32_t max_pat = 0;
    for (uint32_t i = 0; i < r->n_rules; i++) {
        const crule_t *c = &r->rules[i];
        uint32_t n = pat_nodes_n(c->head, r->rels[c->head_rel].arity);
        for (uint32_t k = 0; k < c->n_body; k++) {
            const clit_t *l = &c->body[k];
            uint32_t m = l->kind == CL_DISTINCT ? pat_nodes(l->lhs) + pat_nodes(l->rhs)
                                                : pat_nodes_n(l->args, r->rels[l->rel].arity);
            if (m > n) n = m;
        }
        if (n > max_pat) max_pat = n;
    }
    /* Demand calls nest (at most one per relation at a time), each with a
     * frame of variables: room for all of them. */
    ev->scap = (ev->max_body + 2) * (ev->max_vars + ev->max_arity + 2) + 2 * max_pat + 64;
    ev->scap *= 1 + (r->n_rels < 64 ? r->n_rels : 64);
    ev->scratch = xcalloc(ev->scap, sizeof *ev->scratch);
}

void eval_free(evaluator_t *ev)
{
    if (!ev->r) return;
    for (uint32_t i = 0; i < ev->r->n_rels; i++) relstore_free(&ev->own[i]);
    free(ev->own);
    free(ev->store);
    free(ev->vals);
    free(ev->matched);
    while (ev->n_spill) { /* an evaluation cut short mid-way */
        free(ev->scratch);
        ev->scratch = ev->spill[--ev->n_spill].under;
    }
    free(ev->spill);
    free(ev->scratch);
    free(ev->visits);
    for (uint32_t i = 0; i < ev->r->n_rels; i++) {
        relstore_free(&ev->dm[i].calls);
        free(ev->dm[i].first);
        free(ev->dm[i].next);
        free(ev->dm[i].status);
        free(ev->dm[i].low);
    }
    free(ev->dm);
    free(ev->cs);
    free(ev->members);
    memset(ev, 0, sizeof *ev);
}

void eval_clear_phase(evaluator_t *ev, phase_t phase)
{
    for (uint32_t i = 0; i < ev->r->n_rels; i++)
        if (ev->r->rels[i].phase == phase && ev->store[i] == &ev->own[i]) {
            relstore_clear(&ev->own[i]);
            if (ev->r->rels[i].demand) relstore_clear(&ev->dm[i].calls);
        }
}

size_t eval_demand_size(const evaluator_t *ev, phase_t phase)
{
    size_t n = 0;
    for (uint32_t i = 0; i < ev->r->n_rels; i++)
        if (ev->r->rels[i].demand && ev->r->rels[i].phase == phase && ev->store[i] == &ev->own[i])
            n += ev->dm[i].calls.n + ev->own[i].n;
    return n;
}

/* Match a pattern against a ground term, binding variables (recorded on the
 * trail so that the caller can undo them). */
static bool match(evaluator_t *ev, const pat_t *p, tid_t t, uint32_t *trail, uint32_t *tp)
{
    switch (p->kind) {
    case PAT_CONST: return p->term == t;
    case PAT_VAR:
        if (ev->vals[p->var]) return ev->vals[p->var] == t;
        ev->vals[p->var] = t;
        trail[(*tp)++] = p->var;
        return true;
    case PAT_FN:
        if (p->ground) return p->term == t;
        {
            const uint32_t *w = ts_words(ev->ts, t);
            if (w[0] != p->functor || w[1] != p->arity) return false;
            for (uint32_t i = 0; i < p->arity; i++)
                if (!match(ev, p->args[i], w[2 + i], trail, tp)) return false;
        }
        return true;
    }
    return false;
}

/* Scratch space for tuples and trails, used as a stack (no VLAs: the
 * sizes come from the rules, which are untrusted input). A request that
 * does not fit goes to a block of its own, given back when the stack
 * returns below it. */
static tid_t *scratch_get(evaluator_t *ev, uint32_t n)
{
    if (ev->sp + n > ev->scap) {
        XVEC_RESERVE(&ev->spill, &ev->cap_spill, ev->n_spill + 1);
        uint32_t cap = n > ev->scap ? n : ev->scap;
        tid_t *block = xcalloc(cap, sizeof *block);
        ev->spill[ev->n_spill++] = (struct eval_spill){block, ev->scratch, ev->sp, ev->scap};
        ev->scratch = block;
        ev->sp = 0;
        ev->scap = cap;
    }
    tid_t *p = ev->scratch + ev->sp;
    ev->sp += n;
    return p;
}

static void scratch_put(evaluator_t *ev, uint32_t n)
{
    ev->sp -= n;
    if (ev->sp == 0 && ev->n_spill && ev->spill[ev->n_spill - 1].block == ev->scratch) {
        const struct eval_spill *sp = &ev->spill[--ev->n_spill];
        free(ev->scratch);
        ev->scratch = sp->under;
        ev->sp = sp->under_sp;
        ev->scap = sp->under_cap;
    }
}

/* The ground term a bound pattern denotes. create=false only looks it up
 * (0 if it was never interned, so it cannot be in any store). */
static tid_t build(evaluator_t *ev, const pat_t *p, bool create)
{
    switch (p->kind) {
    case PAT_CONST: return p->term;
    case PAT_VAR: return ev->vals[p->var];
    case PAT_FN:
        if (p->ground) return p->term;
        {
            tid_t *args = scratch_get(ev, p->arity), t = 1;
            for (uint32_t i = 0; i < p->arity && t; i++) t = args[i] = build(ev, p->args[i], create);
            if (t && create) {
                t = ts_intern(ev->ts, p->functor, p->arity, args);
                if (!t) ev->aborted = true; /* the store is full (terms.h) */
            } else if (t) {
                t = ts_lookup(ev->ts, p->functor, p->arity, args);
            }
            scratch_put(ev, p->arity);
            return t;
        }
    }
    return 0;
}

/* Structural equality of two bound patterns, without interning. */
static bool same(evaluator_t *ev, const pat_t *a, const pat_t *b);

static bool same_term_pat(evaluator_t *ev, tid_t t, const pat_t *p)
{
    if (p->kind == PAT_CONST || p->ground) return p->term == t;
    if (p->kind == PAT_VAR) return ev->vals[p->var] == t;
    const uint32_t *w = ts_words(ev->ts, t);
    if (w[0] != p->functor || w[1] != p->arity) return false;
    for (uint32_t i = 0; i < p->arity; i++)
        if (!same_term_pat(ev, w[2 + i], p->args[i])) return false;
    return true;
}

static bool same(evaluator_t *ev, const pat_t *a, const pat_t *b)
{
    if (a->kind == PAT_CONST || a->ground) return same_term_pat(ev, a->term, b);
    if (a->kind == PAT_VAR) return same_term_pat(ev, ev->vals[a->var], b);
    if (b->kind == PAT_CONST || b->ground || b->kind == PAT_VAR) return same(ev, b, a);
    if (a->functor != b->functor || a->arity != b->arity) return false;
    for (uint32_t i = 0; i < a->arity; i++)
        if (!same(ev, a->args[i], b->args[i])) return false;
    return true;
}

/* A tuple new in store s of rel: its bytes (data, dedup and index slots
 * at half load) count against the memory budget. */
static void note_stored(evaluator_t *ev, const relstore_t *s, uint32_t rel)
{
    ev->mem += (size_t)s->arity * sizeof(tid_t) + 2 * sizeof(uint32_t) + (size_t)s->n_idx * 3 * sizeof(uint32_t);
    bool over_mem = ev->mem_limit && ev->mem > ev->mem_limit;
    if ((over_mem || (ev->member_limit && s->n > ev->member_limit)) && ev->r->rels[rel].member && !ev->aborted) {
        ev->aborted = ev->over_member = true;
        ev->blame_rel = rel;
        ev->blame_rule = ev->cur_rule;
    } else if (over_mem && !ev->aborted) {
        ev->aborted = ev->over_mem = true;
        ev->blame_rel = rel;
        ev->blame_rule = ev->cur_rule;
    }
}

static void emit_head(evaluator_t *ev, const crule_t *c)
{
    const rules_t *r = ev->r;
    uint32_t ar = r->rels[c->head_rel].arity;
    tid_t *tuple = scratch_get(ev, ar);
    bool built = true;
    for (uint32_t a = 0; a < ar && built; a++) built = (tuple[a] = build(ev, c->head[a], true)) != 0;
    uint32_t idx;
    relstore_t *hs = ev->store[c->head_rel];
    bool fresh = built && relstore_insert(hs, tuple, &idx);
    scratch_put(ev, ar);
    if (!built) return;
    if (fresh) note_stored(ev, hs, c->head_rel);
    if (fresh && r->rels[c->head_rel].demand) { /* an answer of the active call */
        demand_memo_t *dm = &ev->dm[c->head_rel];
        ev->n_answers++;
        XVEC_RESERVE(&dm->next, &dm->cap_next, idx + 1);
        dm->next[idx] = dm->first[dm->active];
        dm->first[dm->active] = idx + 1;
    }
    if (ev->emit) ev->emit(ev->emit_ud, c, ev->vals, ev->matched, idx);
}

static bool budget_ok(evaluator_t *ev)
{
    if (ev->aborted) return false;
    if ((++ev->work & 4095) == 0) {
        if (deadline_passed(ev->deadline) || (ev->work_limit && ev->work > ev->work_limit) ||
            (ev->cancel && atomic_load_explicit(ev->cancel, memory_order_relaxed))) {
            ev->aborted = true;
            /* the rule being joined and its head: in a recursive component
             * (the relaxed program's next, legal, does and true are one)
             * the component's first head says little (eval_blame_rel
             * names an auxiliary head by its source rule's) */
            if (!ev->blame_rule) ev->blame_rule = ev->cur_rule;
            if (ev->blame_rel == REL_NONE) ev->blame_rel = ev->cur_rule ? ev->cur_rule->head_rel : ev->cur_rel;
        }
    }
    return !ev->aborted;
}

static void join(evaluator_t *ev, const crule_t *c, const corder_t *plan, uint32_t k);

/* States of a demand call (tabling). A call is evaluated once and then
 * done, unless a recursion reached a call still in progress: then the
 * oldest call of that cycle (the leader) runs its rules again, marking
 * the calls evaluated under it stale so that they are evaluated again
 * when reached, until a pass adds no answer (positive recursion only:
 * negation is stratified, rules_normalise.c). */
enum { CALL_DONE, CALL_BUSY, CALL_PARTIAL, CALL_STALE };

static void eval_call(evaluator_t *ev, uint32_t rel, uint32_t call, bool listed);

/* One pass of a call's rules with the demanded head arguments bound to the
 * call's values; answers are linked by emit_head. */
static void run_call_rules(evaluator_t *ev, uint32_t rel, uint32_t call)
{
    const rules_t *r = ev->r;
    const crel_t *R = &r->rels[rel];
    demand_memo_t *dm = &ev->dm[rel];
    tid_t *saved_vals = ev->vals;
    /* The caller's matched tuples too: the grounder records them when
     * the caller's rule fires (a join that called a static relation of
     * mummymaze1p on demand recorded the callee's (true ...) indexes). */
    uint32_t *saved_matched = ev->matched;
    uint32_t saved_delta = ev->delta_lit, saved_active = dm->active, saved_rel = ev->cur_rel;
    const crule_t *saved_rule = ev->cur_rule;
    ev->matched = scratch_get(ev, ev->max_body + 1);
    ev->delta_lit = NONE32;
    ev->cur_rel = rel;
    for (uint32_t i = 0; i < R->n_rules_of && !ev->aborted; i++) {
        const crule_t *c = &r->rules[R->rules_of[i]];
        uint32_t nv = c->n_vars + 1;
        tid_t *frame = scratch_get(ev, nv);
        uint32_t *trail = scratch_get(ev, nv);
        memset(frame, 0, nv * sizeof *frame);
        ev->vals = frame;
        const tid_t *key = relstore_tuple(&dm->calls, call);
        bool ok = true;
        uint32_t tp = 0;
        for (uint32_t a = 0, j = 0; a < R->arity && ok; a++)
            if (R->demand_mask >> a & 1) ok = match(ev, c->head[a], key[j++], trail, &tp);
        dm->active = call; /* nested calls of rel change it */
        ev->cur_rule = c;
        if (ok) join(ev, c, &c->qplan, 0);
        scratch_put(ev, 2 * nv);
    }
    dm->active = saved_active;
    scratch_put(ev, ev->max_body + 1);
    ev->matched = saved_matched;
    ev->vals = saved_vals;
    ev->delta_lit = saved_delta;
    ev->cur_rel = saved_rel;
    ev->cur_rule = saved_rule;
}

static void set_status(demand_memo_t *dm, uint32_t call, uint8_t st, uint32_t low)
{
    XVEC_RESERVE(&dm->status, &dm->cap_status, call + 1);
    XVEC_RESERVE(&dm->low, &dm->cap_low, call + 1);
    dm->status[call] = st;
    dm->low[call] = low;
}

/* Evaluate a call (new, or stale: listed among the members of a cycle). */
static void eval_call(evaluator_t *ev, uint32_t rel, uint32_t call, bool listed)
{
    if (ev->n_cs >= EVAL_MAX_DEPTH) {
        ev->too_deep = ev->aborted = true;
        set_status(&ev->dm[rel], call, CALL_DONE, NONE32);
        return;
    }
    XVEC_RESERVE(&ev->cs, &ev->cap_cs, ev->n_cs + 1);
    uint32_t pos = ev->n_cs++;
    ev->cs[pos] = (call_frame_t){rel, call, NONE32};
    set_status(&ev->dm[rel], call, CALL_BUSY, pos);
    uint32_t mem0 = ev->n_members;
    /* Deep recursion: go on in a fresh scratch block (the frames below
     * keep pointers into the current one). */
    tid_t *saved_scratch = NULL;
    uint32_t saved_sp = 0;
    if (ev->sp > ev->scap / 2) {
        saved_scratch = ev->scratch;
        saved_sp = ev->sp;
        ev->scratch = xcalloc(ev->scap, sizeof *ev->scratch);
        ev->sp = 0;
    }
    for (;;) {
        uint64_t before = ev->n_answers;
        run_call_rules(ev, rel, call);
        if (ev->cs[pos].low != pos || ev->aborted) break;
        /* the leader of a cycle: members not reached again are evaluated
         * again too, and the whole repeats until nothing is new */
        for (uint32_t m = mem0; m < ev->n_members && !ev->aborted; m++) {
            uint32_t mr = ev->members[2 * m], mc = ev->members[2 * m + 1];
            if (ev->dm[mr].status[mc] == CALL_STALE) eval_call(ev, mr, mc, true);
        }
        if (ev->n_answers == before || ev->aborted) break;
        for (uint32_t m = mem0; m < ev->n_members; m++)
            ev->dm[ev->members[2 * m]].status[ev->members[2 * m + 1]] = CALL_STALE;
    }
    if (saved_scratch) {
        free(ev->scratch);
        ev->scratch = saved_scratch;
        ev->sp = saved_sp;
    }
    uint32_t low = ev->cs[pos].low;
    ev->n_cs--;
    if (low < pos) { /* part of a cycle led by an older call */
        set_status(&ev->dm[rel], call, CALL_PARTIAL, low);
        if (ev->cs[pos - 1].low > low) ev->cs[pos - 1].low = low;
        if (!listed) {
            XVEC_RESERVE(&ev->members, &ev->cap_members, 2 * ev->n_members + 2);
            ev->members[2 * ev->n_members] = rel;
            ev->members[2 * ev->n_members++ + 1] = call;
        }
        return;
    }
    for (uint32_t m = mem0; m < ev->n_members; m++)
        ev->dm[ev->members[2 * m]].status[ev->members[2 * m + 1]] = CALL_DONE;
    ev->n_members = mem0;
    set_status(&ev->dm[rel], call, CALL_DONE, NONE32);
}

/* The call of a demand literal (its arguments at the demanded positions),
 * evaluated if new. The key terms are interned, not looked up: the
 * relation's own rules may build them (mummymaze1p asks for
 * (doesprime ?m (move2 ?d1 ?d2)) before any move2 term exists). A call
 * still in progress (recursion) makes the caller depend on it. */
static uint32_t ensure_call(evaluator_t *ev, uint32_t rel, pat_t *const *args)
{
    const crel_t *R = &ev->r->rels[rel];
    demand_memo_t *dm = &ev->dm[rel];
    uint32_t n = dm->calls.arity;
    (void)budget_ok(ev); /* a call is work too (counted: rules engine's plan probe) */
    tid_t *key = scratch_get(ev, n);
    bool ok = true;
    for (uint32_t a = 0, j = 0; a < R->arity && ok; a++)
        if (R->demand_mask >> a & 1) ok = (key[j++] = build(ev, args[a], true)) != 0;
    uint32_t idx = NONE32;
    bool fresh = ok && relstore_insert(&dm->calls, key, &idx);
    scratch_put(ev, n);
    if (!ok) return NONE32;
    if (fresh) {
        note_stored(ev, &dm->calls, rel);
        XVEC_RESERVE(&dm->first, &dm->cap_first, idx + 1);
        dm->first[idx] = 0;
        eval_call(ev, rel, idx, false);
        return idx;
    }
    switch (dm->status[idx]) {
    case CALL_DONE: break;
    case CALL_STALE: eval_call(ev, rel, idx, true); break;
    default: /* CALL_BUSY (low: its position) or CALL_PARTIAL */
        if (ev->n_cs && ev->cs[ev->n_cs - 1].low > dm->low[idx]) ev->cs[ev->n_cs - 1].low = dm->low[idx];
        break;
    }
    return idx;
}

/* Match literal li against tuple t of store s; on success go on with the
 * rest of the plan; then undo the bindings made here. */
static void try_tuple(evaluator_t *ev, const crule_t *c, const corder_t *plan, uint32_t k, const clit_t *l, uint32_t li,
                      const relstore_t *s, uint32_t t, uint32_t *trail)
{
    const tid_t *tu = relstore_tuple(s, t);
    uint32_t tp = 0;
    bool ok = true;
    for (uint32_t a = 0; a < s->arity && ok; a++) ok = match(ev, l->args[a], tu[a], trail, &tp);
    if (ok) {
        ev->matched[li] = t;
        join(ev, c, plan, k + 1);
    }
    for (uint32_t u = 0; u < tp; u++) ev->vals[trail[u]] = 0;
}

static void join_demand(evaluator_t *ev, const crule_t *c, const corder_t *plan, uint32_t k, const clit_t *l,
                        uint32_t li)
{
    uint32_t call = ensure_call(ev, l->rel, l->args);
    relstore_t *s = ev->store[l->rel];
    uint32_t ar = s->arity;
    if (l->kind == CL_NEG || plan->index_pos[k] == INDEX_MEMBER) {
        uint32_t t = NONE32;
        if (call != NONE32) {
            tid_t *tuple = scratch_get(ev, ar);
            bool exists = true;
            for (uint32_t a = 0; a < ar && exists; a++) exists = (tuple[a] = build(ev, l->args[a], false)) != 0;
            if (exists) t = relstore_find(s, tuple);
            scratch_put(ev, ar);
        }
        if ((l->kind == CL_NEG) == (t == NONE32)) {
            ev->matched[li] = t;
            join(ev, c, plan, k + 1);
        }
        return;
    }
    if (call == NONE32) return;
    uint32_t n_trail = c->n_vars ? c->n_vars : 1;
    uint32_t *trail = scratch_get(ev, n_trail);
    /* Indexes, not pointers: nested calls may grow the arrays. */
    for (uint32_t cur = ev->dm[l->rel].first[call]; cur && !ev->aborted;) {
        uint32_t t = cur - 1;
        try_tuple(ev, c, plan, k, l, li, s, t, trail);
        cur = ev->dm[l->rel].next[t];
    }
    scratch_put(ev, n_trail);
}

/* A store takes at most RELSTORE_MAX_IDX indexes; a probe whose own index
 * did not fit uses the one with the most paths among those whose paths it
 * binds too (wargame01's nSteps is probed in more ways than that once
 * partial demand adorns its callers), rather than a scan. */
static uint32_t index_fallback(const relstore_t *s, const idx_spec_t *want)
{
    uint32_t best = NONE32, best_n = 0;
    for (uint32_t q = 0; q < s->n_idx; q++) {
        const idx_spec_t *sp = s->idx_spec[q];
        bool sub = sp->n > best_n;
        for (uint32_t i = 0; i < sp->n && sub; i++) {
            bool found = false;
            for (uint32_t j = 0; j < want->n && !found; j++) found = want->path[j] == sp->path[i];
            sub = found;
        }
        if (sub) {
            best = q;
            best_n = sp->n;
        }
    }
    return best;
}

static void join(evaluator_t *ev, const crule_t *c, const corder_t *plan, uint32_t k)
{
    if (k == c->n_body) {
        if (budget_ok(ev)) emit_head(ev, c);
        return;
    }
    const rules_t *r = ev->r;
    uint32_t li = plan->order[k];
    const clit_t *l = &c->body[li];
    if (l->kind == CL_DISTINCT) {
        if (!same(ev, l->lhs, l->rhs)) {
            ev->matched[li] = NONE32;
            join(ev, c, plan, k + 1);
        }
        return;
    }
    if (r->rels[l->rel].demand) {
        join_demand(ev, c, plan, k, l, li);
        return;
    }
    relstore_t *s = ev->store[l->rel];
    uint32_t ar = r->rels[l->rel].arity;
    if (l->kind == CL_NEG) {
        ev->matched[li] = NONE32;
        if (ev->relaxed && r->rels[l->rel].phase != PHASE_STATIC) {
            join(ev, c, plan, k + 1);
            return;
        }
        tid_t *tuple = scratch_get(ev, ar);
        bool exists = true;
        for (uint32_t a = 0; a < ar && exists; a++) {
            tuple[a] = build(ev, l->args[a], false);
            exists = tuple[a] != 0;
        }
        if (exists) exists = relstore_find(s, tuple) != NONE32;
        scratch_put(ev, ar);
        if (!exists) join(ev, c, plan, k + 1);
        return;
    }
    /* Positive literal: the range of tuples to look at. */
    uint32_t lo = 0, hi = s->in_scc ? s->lim : s->n;
    if (li == ev->delta_lit) {
        lo = ev->delta_lo;
        hi = ev->delta_hi;
    }
    if (lo >= hi) return;
    int32_t ip = plan->index_pos[k];
    if (ip == INDEX_MEMBER) {
        /* Every argument is bound: one hash lookup instead of a scan. */
        tid_t *tuple = scratch_get(ev, ar);
        bool exists = true;
        for (uint32_t a = 0; a < ar && exists; a++) exists = (tuple[a] = build(ev, l->args[a], false)) != 0;
        uint32_t t = exists ? relstore_find(s, tuple) : NONE32;
        scratch_put(ev, ar);
        if (t != NONE32 && t >= lo && t < hi) {
            ev->matched[li] = t;
            join(ev, c, plan, k + 1);
        }
        return;
    }
    uint32_t kidx = NONE32;
    tid_t key = 0;
    if (ip >= 0) {
        for (uint32_t q = 0; q < s->n_idx; q++)
            if (s->idx_id[q] == (uint32_t)ip) kidx = q;
        if (kidx == NONE32) kidx = index_fallback(s, &r->specs[ip]);
        if (kidx != NONE32) {
            const idx_spec_t *sp = s->idx_spec[kidx];
            key = 0x243f6a88u;
            for (uint32_t i = 0; i < sp->n; i++) {
                uint32_t p = sp->path[i] >> 8, q = sp->path[i] & 255;
                tid_t v = build(ev, q ? l->args[p]->args[q - 1] : l->args[p], false);
                if (!v) return; /* a term never built cannot be in the store */
                key = key_add(key, q ? path_mix(l->args[p]->functor, v) : v);
            }
            if (!key) key = 1;
        }
    }
    uint32_t cur;
    if (kidx != NONE32) {
        if (!s->idx_slots) return;
        uint32_t mask = s->idx_slots - 1, i = hash_val(key) & mask;
        cur = 0;
        for (;; i = (i + 1) & mask) {
            if (!s->idx_head[kidx][i]) break;
            if (s->idx_key[kidx][i] == key) {
                cur = s->idx_head[kidx][i];
                break;
            }
        }
    } else {
        cur = lo + 1;
    }
    /* Bindings made by this literal are recorded in a trail local to this
     * level and undone before the next candidate tuple. */
    uint32_t n_trail = c->n_vars ? c->n_vars : 1;
    uint32_t *trail = scratch_get(ev, n_trail);
    while (cur) {
        uint32_t t = cur - 1, next_cur;
        if (kidx != NONE32) {
            next_cur = s->idx_next[kidx][t];
            if (t >= hi || t < lo) {
                cur = next_cur;
                continue;
            }
        } else {
            if (t >= hi) break;
            next_cur = cur + 1;
        }
        if (ev->visits) ev->visits[c - ev->r->rules]++;
        if (ev->deadline.at_ns && !budget_ok(ev)) break;
        try_tuple(ev, c, plan, k, l, li, s, t, trail);
        if (ev->aborted) break;
        cur = next_cur;
    }
    scratch_put(ev, n_trail);
}

static void run_rule(evaluator_t *ev, const crule_t *c, const corder_t *plan)
{
    memset(ev->vals, 0, (c->n_vars + 1) * sizeof *ev->vals);
    ev->cur_rule = c;
    join(ev, c, plan, 0);
    ev->cur_rule = NULL;
}

/* Evaluate the rules [lo, hi) of one component. */
static bool run_component(evaluator_t *ev, uint32_t lo, uint32_t hi)
{
    const rules_t *r = ev->r;
    ev->cur_rel = r->rules[lo].head_rel;
    if (ev->progress) {
        const crel_t *R = &r->rels[ev->cur_rel];
        atomic_store(&ev->progress->rel, symtab_spelling(r->syms, R->name));
        atomic_store(&ev->progress->arity, R->arity);
    }
    if (!r->rules[lo].recursive) {
        for (uint32_t i = lo; i < hi && !ev->aborted; i++) run_rule(ev, &r->rules[i], &r->rules[i].plan);
        return !ev->aborted;
    }
    /* Semi-naive: mark the component's relations, first pass in full. */
    for (uint32_t i = lo; i < hi; i++) {
        relstore_t *s = ev->store[r->rules[i].head_rel];
        s->in_scc = true;
    }
    uint32_t n_rels = r->n_rels;
    for (uint32_t i = lo; i < hi; i++) {
        relstore_t *s = ev->store[r->rules[i].head_rel];
        s->lim = s->n;
    }
    for (uint32_t i = lo; i < hi && !ev->aborted; i++) run_rule(ev, &r->rules[i], &r->rules[i].plan);
    for (;;) {
        bool any = false;
        /* delta of each component relation: [lim, n) from the last pass */
        uint32_t *dlo = xcalloc(n_rels, sizeof *dlo), *dhi = xcalloc(n_rels, sizeof *dhi);
        for (uint32_t i = lo; i < hi; i++) {
            uint32_t rel = r->rules[i].head_rel;
            relstore_t *s = ev->store[rel];
            dlo[rel] = s->lim;
            dhi[rel] = s->n;
        }
        for (uint32_t i = lo; i < hi; i++) {
            relstore_t *s = ev->store[r->rules[i].head_rel];
            s->lim = s->n;
        }
        for (uint32_t i = lo; i < hi && !ev->aborted; i++) {
            const crule_t *c = &r->rules[i];
            for (uint32_t k = 0; k < c->n_body; k++) {
                const clit_t *l = &c->body[k];
                if (l->kind != CL_POS || !ev->store[l->rel]->in_scc) continue;
                if (dlo[l->rel] >= dhi[l->rel]) continue;
                any = true;
                ev->delta_lit = k;
                ev->delta_lo = dlo[l->rel];
                ev->delta_hi = dhi[l->rel];
                run_rule(ev, c, &c->delta[k]);
                ev->delta_lit = NONE32;
            }
        }
        free(dlo);
        free(dhi);
        if (!any || ev->aborted) break;
    }
    for (uint32_t i = lo; i < hi; i++) ev->store[r->rules[i].head_rel]->in_scc = false;
    return !ev->aborted;
}

bool eval_run_phases(evaluator_t *ev, phase_t from, phase_t to)
{
    const rules_t *r = ev->r;
    for (uint32_t i = 0; i < r->n_rules && !ev->aborted;) {
        uint32_t j = i + 1;
        while (j < r->n_rules && r->rules[j].scc == r->rules[i].scc) j++;
        /* A component lies in one phase: a rule that depends on a
         * move-phase rule is itself in the move phase. */
        phase_t ph = r->rels[r->rules[i].head_rel].phase;
        if (ph >= from && ph <= to && !r->rels[r->rules[i].head_rel].demand) run_component(ev, i, j);
        i = j;
    }
    return !ev->aborted;
}

bool eval_run_phase(evaluator_t *ev, phase_t phase) { return eval_run_phases(ev, phase, phase); }

tid_t eval_build_term(evaluator_t *ev, const pat_t *p) { return build(ev, p, true); }

/* rel, or the relation it copies per call pattern, if that has a name;
 * else REL_NONE (an auxiliary relation of a decomposed join or a
 * projection has none). */
static uint32_t named_rel(const rules_t *r, uint32_t rel)
{
    if (rel >= r->n_rels) return REL_NONE;
    if (r->rels[rel].tabled && r->rels[rel].orig < r->n_rels) rel = r->rels[rel].orig;
    return r->rels[rel].name != SYM_NONE ? rel : REL_NONE;
}

uint32_t eval_blame_rel(const evaluator_t *ev)
{
    const rules_t *r = ev->r;
    uint32_t rel = named_rel(r, ev->blame_rel);
    const crule_t *c = ev->blame_rule;
    /* an auxiliary head: the named head of the source rule it was split from */
    if (rel == REL_NONE && c && c->src_off != UINT32_MAX)
        for (uint32_t i = 0; i < r->n_rules && rel == REL_NONE; i++)
            if (r->rules[i].src_off == c->src_off) rel = named_rel(r, r->rules[i].head_rel);
    return rel;
}

const char *eval_blame_name(const evaluator_t *ev, char *buf, size_t len)
{
    uint32_t rel = eval_blame_rel(ev);
    if (rel == REL_NONE) {
        snprintf(buf, len, "%s", "");
        return buf;
    }
    const crel_t *R = &ev->r->rels[rel];
    snprintf(buf, len, "%s/%u", symtab_spelling(ev->r->syms, R->name), R->arity);
    return buf;
}

uint32_t eval_rel_size(const evaluator_t *ev, uint32_t rel) { return rel < ev->r->n_rels ? ev->store[rel]->n : 0; }

uint32_t eval_blame_src_off(const evaluator_t *ev)
{
    if (ev->blame_rule && ev->blame_rule->src_off != UINT32_MAX) return ev->blame_rule->src_off;
    return eval_rel_src_off(ev, ev->blame_rel);
}

uint32_t eval_rel_src_off(const evaluator_t *ev, uint32_t rel)
{
    const rules_t *r = ev->r;
    if (rel >= r->n_rels) return UINT32_MAX;
    if (r->rels[rel].tabled) rel = r->rels[rel].orig;
    for (uint32_t i = 0; i < r->n_rules; i++)
        if (r->rules[i].head_rel == rel && r->rules[i].src_off != UINT32_MAX) return r->rules[i].src_off;
    return UINT32_MAX;
}
