/* rules.c - normalisation of a GDL program for evaluation (see rules.h):
 * rules_compile runs the builder's stages (rules_internal.h). */
#include "reasoner/rules_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

uint32_t rules_find_rel(const rules_t *r, sym_t name, uint32_t arity)
{
    for (uint32_t i = 0; i < r->n_rels; i++)
        if (r->rels[i].name == name && r->rels[i].arity == arity) return i;
    return REL_NONE;
}

static inline uint32_t rel_slot(sym_t name, uint32_t arity, uint32_t mask)
{
    uint32_t h = ((uint32_t)name * 0x9e3779b1u) ^ (arity * 0x85ebca6bu);
    return (h ^ (h >> 15)) & mask;
}

/* Rebuild the index at twice the relations' count, at least 64 slots. */
static void rel_index_grow(builder_t *b)
{
    const rules_t *r = b->r;
    uint32_t cap = 64;
    while (cap < 2 * (r->n_rels + 1)) cap *= 2;
    free(b->rel_index);
    b->rel_index = xcalloc(cap, sizeof *b->rel_index);
    b->index_cap = cap;
    for (uint32_t i = 0; i < r->n_rels; i++) {
        uint32_t h = rel_slot(r->rels[i].name, r->rels[i].arity, cap - 1);
        while (b->rel_index[h]) h = (h + 1) & (cap - 1);
        b->rel_index[h] = i + 1;
    }
}

/* The relation name/arity, added if new. Relations added other ways (aux
 * relations, copies) come later and are never asked for by name here. */
uint32_t rb_rel_of(builder_t *b, sym_t name, uint32_t arity)
{
    rules_t *r = b->r;
    if (2 * (r->n_rels + 1) > b->index_cap) rel_index_grow(b);
    uint32_t mask = b->index_cap - 1, h = rel_slot(name, arity, mask);
    for (; b->rel_index[h]; h = (h + 1) & mask) {
        const crel_t *c = &r->rels[b->rel_index[h] - 1];
        if (c->name == name && c->arity == arity) return b->rel_index[h] - 1;
    }
    XVEC_RESERVE(&r->rels, &b->cap_rels, r->n_rels + 1);
    r->rels[r->n_rels] = (crel_t){.name = name, .arity = arity, .phase = PHASE_STATIC};
    b->rel_index[h] = r->n_rels + 1;
    return r->n_rels++;
}

/* ------------------------------------------------------------------ main */

/* A bridge rule head(?x...) <= body(?x...) over the same variables. */
static void add_bridge(builder_t *b, uint32_t head_rel, uint32_t body_rel)
{
    rules_t *r = b->r;
    uint32_t ar = r->rels[head_rel].arity;
    crule_t c = {.head_rel = head_rel, .n_vars = ar, .n_body = 1, .bridge = true, .src_off = UINT32_MAX};
    c.head = arena_calloc(r->arena, ar, sizeof *c.head);
    c.body = arena_calloc(r->arena, 1, sizeof *c.body);
    c.body[0].kind = CL_POS;
    c.body[0].rel = body_rel;
    c.body[0].args = c.head;
    for (uint32_t a = 0; a < ar; a++) {
        pat_t *v = arena_alloc(r->arena, sizeof *v);
        v->kind = PAT_VAR;
        v->var = a;
        c.head[a] = v;
    }
    rb_plan_order(b, &c, UINT32_MAX, &c.plan);
    r->rels[head_rel].has_rules = true;
    c.seq = b->n_rules;
    XVEC_RESERVE(&b->rules, &b->cap_rules, b->n_rules + 1);
    b->rules[b->n_rules++] = c;
}

rules_t *rules_compile(const program_t *p, term_store_t *ts, diag_t *d, unsigned flags)
{
    return rules_compile_member(p, ts, d, flags, NULL);
}

bool rules_member_add(rules_member_set_t *ms, uint32_t rel)
{
    for (uint32_t i = 0; i < ms->n; i++)
        if (ms->rel[i] == rel) return false;
    XVEC_RESERVE(&ms->rel, &ms->cap, ms->n + 1);
    ms->rel[ms->n++] = rel;
    return true;
}

bool rules_elim_add(rules_member_set_t *ms, uint32_t src_off)
{
    for (uint32_t i = 0; i < ms->n_elim; i++)
        if (ms->elim_src[i] == src_off) return ms->elim_level[i] < 2 && ++ms->elim_level[i];
    uint32_t cap = ms->cap_elim;
    XVEC_RESERVE(&ms->elim_src, &ms->cap_elim, ms->n_elim + 1);
    XVEC_RESERVE(&ms->elim_level, &cap, ms->n_elim + 1);
    ms->elim_src[ms->n_elim] = src_off;
    ms->elim_level[ms->n_elim++] = 1;
    return true;
}

bool rules_magic_add(rules_member_set_t *ms, const rules_t *r, uint32_t rel)
{
    if (rel >= r->n_rels || !r->rels[rel].magic_ok) return false;
    rules_rel_name_t v = {r->rels[rel].name, r->rels[rel].arity};
    for (uint32_t i = 0; i < ms->n_magic; i++)
        if (ms->magic[i].name == v.name && ms->magic[i].arity == v.arity) return false;
    XVEC_RESERVE(&ms->magic, &ms->cap_magic, ms->n_magic + 1);
    ms->magic[ms->n_magic++] = v;
    return true;
}

void rules_member_free(rules_member_set_t *ms)
{
    free(ms->magic);
    free(ms->elim_src);
    free(ms->elim_level);
    free(ms->rel);
    *ms = (rules_member_set_t){0};
}

/* The most rules the rules with 'or's of a program may expand into. */
#define RULES_EXPAND_MAX (1u << 20)

rules_t *rules_compile_member(const program_t *p, term_store_t *ts, diag_t *d, unsigned flags,
                              const rules_member_set_t *ms)
{
    rules_t *r = xcalloc(1, sizeof *r);
    r->ts = ts;
    r->syms = p->syms;
    r->arena = arena_new(1 << 16);
    builder_t b = {.r = r, .p = p, .d = d};
    if (ms) {
        b.force_member = ms->rel;
        b.n_force_member = ms->n;
        b.elim_src = ms->elim_src;
        b.elim_level = ms->elim_level;
        b.n_elim_src = ms->n_elim;
        b.fd = ms->fd;
        b.fd_ud = ms->fd_ud;
        b.magic = ms->magic;
        b.n_magic = ms->n_magic;
    }
    b.elim_all = (flags & RULES_ELIMINATE) != 0;
    r->relaxed = (flags & RULES_RELAXED) != 0;
    /* Keyword relations first, so that they exist even when unused. */
    r->rel_role = rb_rel_of(&b, SYM_ROLE, 1);
    r->rel_init = rb_rel_of(&b, SYM_INIT, 1);
    r->rel_true = rb_rel_of(&b, SYM_TRUE, 1);
    r->rel_does = rb_rel_of(&b, SYM_DOES, 2);
    r->rel_next = rb_rel_of(&b, SYM_NEXT, 1);
    r->rel_legal = rb_rel_of(&b, SYM_LEGAL, 2);
    r->rel_goal = rb_rel_of(&b, SYM_GOAL, 2);
    r->rel_terminal = rb_rel_of(&b, SYM_TERMINAL, 0);
    uint32_t cap_roles = 0;
    flat_t f = {0};
    uint32_t expanded = 0; /* rules made from rules with 'or's (facts do not count) */
    for (size_t i = 0; i < p->n_rules; i++) {
        const rule_t *src = p->rules[i];
        if (!src->head) continue;
        if (src->head->sym == SYM_ROLE && src->n_body == 0 && term_arity(src->head) == 1) {
            XVEC_RESERVE(&r->roles, &cap_roles, r->n_roles + 1);
            r->roles[r->n_roles++] = ts_const(ts, src->head->args[0]->sym);
        }
        /* Old Dresden-style base facts with another arity are dropped, as
         * GGP-Base's GdlCleaner does (gdl-protocol §2.3). */
        if ((src->head->sym == SYM_BASE && term_arity(src->head) != 1) ||
            (src->head->sym == SYM_INPUT && term_arity(src->head) != 2))
            continue;
        /* Each 'or' multiplies the rule (rb_expand): 40 two-way ors would
         * make 2^40 rules; the corpus's most is 12 from one rule. */
        uint64_t copies = 1;
        bool has_or = false;
        for (uint32_t j = 0; j < src->n_body && copies <= RULES_EXPAND_MAX; j++)
            if (src->body[j]->kind == LIT_OR) {
                copies *= src->body[j]->n_disj;
                has_or = true;
            }
        if (has_or && copies > RULES_EXPAND_MAX - expanded) {
            diag_error(d, p->src, src->off, "the 'or's of this rule expand it into too many rules (more than %u in all)",
                       RULES_EXPAND_MAX);
            b.errors++;
            break;
        }
        if (has_or) expanded += (uint32_t)copies;
        f.n = 0;
        rb_expand(&b, src, 0, &f);
    }
    free(f.lits);
    free(b.rel_index); /* relations are added other ways from here on */
    b.rel_index = NULL;
    b.index_cap = 0;
    if (b.errors == 0 && r->relaxed) {
        rb_constant_fluents(&b);
        rb_compute_phases(r, b.rules, b.n_rules); /* the magic rules read no move relation */
        rb_magic(&b);
    }
    if (b.errors == 0) rb_split_components(&b);
    if (b.errors == 0) rb_project_local_vars(&b);
    if (b.errors == 0 && r->relaxed) {
        rb_compute_phases(r, b.rules, b.n_rules); /* which literals are static */
        rb_eliminate_vars(&b);
    }
    rb_compute_phases(r, b.rules, b.n_rules);
    if (flags & RULES_RELAXED) {
        add_bridge(&b, r->rel_true, r->rel_init);
        add_bridge(&b, r->rel_true, r->rel_next);
        add_bridge(&b, r->rel_does, r->rel_legal);
    }
    if (b.errors == 0) rb_order_rules(&b);
    r->rules = b.rules;
    r->n_rules = b.n_rules;
    if (b.errors == 0) {
        for (uint32_t i = 0; i < r->n_rules; i++) {
            crule_t *c = &r->rules[i];
            if (!c->recursive) continue;
            c->delta = arena_calloc(r->arena, c->n_body ? c->n_body : 1, sizeof *c->delta);
            for (uint32_t k = 0; k < c->n_body; k++) {
                const clit_t *l = &c->body[k];
                if (l->kind != CL_POS) continue;
                /* Only literals of the same component can hold new facts. */
                if (!rb_plan_order(&b, c, k, &c->delta[k])) c->delta[k] = c->plan;
            }
        }
        if (flags & RULES_DEMAND) {
            b.rules = r->rules;
            if (!(flags & RULES_NO_TABLING)) rb_compute_tabling(&b);
            r->rules = b.rules;
            r->n_rules = b.n_rules;
            if (b.errors == 0) rb_compute_demand(&b, flags);
        } else if (flags & RULES_RELAXED) { /* huge membership relations only */
            b.rules = r->rules;
            rb_compute_tabling(&b);
            r->rules = b.rules;
            r->n_rules = b.n_rules;
            if (b.errors == 0) rb_link_rules_of(r);
        }
    }
    if (ts->full) { /* pat_seal's interning failed (terms.h) */
        diag_report_file(d, DIAG_ERROR, p->src, "rules: the term store is full");
        b.errors++;
    }
    if (b.errors) {
        rules_free(r);
        return NULL;
    }
    return r;
}

void rules_free(rules_t *r)
{
    if (!r) return;
    for (uint32_t i = 0; r->rels && i < r->n_rels; i++) free(r->rels[i].rules_of);
    free(r->rules);
    free(r->rels);
    free(r->roles);
    free(r->specs);
    arena_free(r->arena);
    free(r);
}
