/* rules_normalise.c - a GDL program as normalised rules (see
 * rules_internal.h): patterns from terms, `or` expanded, (not (distinct))
 * unified, join decomposition and projection of local variables, bucket
 * elimination of the variables of chosen rules (the grounder's), phases,
 * and the rules ordered by the components of their dependency graph. */
#include "reasoner/rules_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/scc.h"
#include "base/xalloc.h"

/* ------------------------------------------------------------- patterns */

static uint32_t var_slot(var_map_t *m, sym_t s)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (m->syms[i] == s) return i;
    XVEC_RESERVE(&m->syms, &m->cap, m->n + 1);
    m->syms[m->n] = s;
    return m->n++;
}

static pat_t *pat_from_term(builder_t *b, const term_t *t, var_map_t *vm)
{
    pat_t *p = arena_alloc(b->r->arena, sizeof *p);
    switch (t->kind) {
    case TERM_CONST:
        p->kind = PAT_CONST;
        p->ground = true;
        p->term = ts_const(b->r->ts, t->sym);
        break;
    case TERM_VAR:
        p->kind = PAT_VAR;
        p->var = var_slot(vm, t->sym);
        break;
    case TERM_FN:
        p->kind = PAT_FN;
        p->functor = t->sym;
        p->arity = t->arity;
        p->args = arena_calloc(b->r->arena, t->arity, sizeof *p->args);
        p->ground = true;
        for (uint32_t i = 0; i < t->arity; i++) {
            p->args[i] = pat_from_term(b, t->args[i], vm);
            p->ground &= p->args[i]->ground;
        }
        break;
    }
    return p;
}

/* Finish a pattern after substitution: recompute groundness, intern ground
 * function terms. */
static void pat_seal(rules_t *r, pat_t *p)
{
    if (p->kind != PAT_FN) return;
    p->ground = true;
    for (uint32_t i = 0; i < p->arity; i++) {
        pat_seal(r, p->args[i]);
        p->ground &= p->args[i]->ground;
    }
    if (p->ground) {
        tid_t *args = xcalloc(p->arity, sizeof *args);
        for (uint32_t i = 0; i < p->arity; i++) args[i] = p->args[i]->term;
        p->term = ts_intern(r->ts, p->functor, p->arity, args);
        free(args);
    }
}

/* Sentence arguments as patterns: `(cell 1 1 b)` -> [1, 1, b]; a constant
 * sentence has none. */
static pat_t **sentence_args(builder_t *b, const term_t *t, var_map_t *vm)
{
    uint32_t n = term_arity(t);
    pat_t **a = arena_calloc(b->r->arena, n ? n : 1, sizeof *a);
    for (uint32_t i = 0; i < n; i++) a[i] = pat_from_term(b, t->args[i], vm);
    return a;
}

/* --------------------------------------------- unification of (not (distinct)) */

static pat_t *walk(pat_t **subst, pat_t *p)
{
    while (p->kind == PAT_VAR && subst[p->var]) p = subst[p->var];
    return p;
}

static bool occurs(pat_t **subst, uint32_t v, pat_t *p)
{
    p = walk(subst, p);
    if (p->kind == PAT_VAR) return p->var == v;
    if (p->kind == PAT_FN)
        for (uint32_t i = 0; i < p->arity; i++)
            if (occurs(subst, v, p->args[i])) return true;
    return false;
}

static bool unify(pat_t **subst, pat_t *a, pat_t *b)
{
    a = walk(subst, a);
    b = walk(subst, b);
    if (a == b) return true;
    if (a->kind == PAT_VAR) {
        if (b->kind == PAT_VAR && b->var == a->var) return true;
        if (occurs(subst, a->var, b)) return false;
        subst[a->var] = b;
        return true;
    }
    if (b->kind == PAT_VAR) return unify(subst, b, a);
    if (a->kind == PAT_CONST || b->kind == PAT_CONST)
        return a->kind == b->kind && a->term == b->term;
    if (a->functor != b->functor || a->arity != b->arity) return false;
    for (uint32_t i = 0; i < a->arity; i++)
        if (!unify(subst, a->args[i], b->args[i])) return false;
    return true;
}

static pat_t *apply(builder_t *b, pat_t **subst, pat_t *p)
{
    p = walk(subst, p);
    if (p->kind != PAT_FN || p->ground) return p;
    pat_t *q = arena_alloc(b->r->arena, sizeof *q);
    *q = *p;
    q->args = arena_calloc(b->r->arena, p->arity, sizeof *q->args);
    for (uint32_t i = 0; i < p->arity; i++) q->args[i] = apply(b, subst, p->args[i]);
    return q;
}

/* Renumber the variables of a pattern densely (after substitution some
 * slots disappear). */
static pat_t *renumber(builder_t *b, pat_t *p, uint32_t *map, uint32_t *n)
{
    if (p->kind == PAT_VAR) {
        if (map[p->var] == UINT32_MAX) map[p->var] = (*n)++;
        if (map[p->var] == p->var) return p;
        pat_t *q = arena_alloc(b->r->arena, sizeof *q);
        *q = *p;
        q->var = map[p->var];
        return q;
    }
    if (p->kind == PAT_FN && !p->ground) {
        pat_t *q = arena_alloc(b->r->arena, sizeof *q);
        *q = *p;
        q->args = arena_calloc(b->r->arena, p->arity, sizeof *q->args);
        for (uint32_t i = 0; i < p->arity; i++) q->args[i] = renumber(b, p->args[i], map, n);
        return q;
    }
    return p;
}

/* ------------------------------------------------------------ or-expansion */

/* Compile one flattened rule (an AST head plus a list of non-or literals). */
static void compile_flat(builder_t *b, const rule_t *src, const flat_t *f)
{
    rules_t *r = b->r;
    var_map_t vm = {0};
    crule_t c = {.src_off = src->off};
    c.head_rel = rb_rel_of(b, src->head->sym, term_arity(src->head));
    c.head = sentence_args(b, src->head, &vm);
    c.body = arena_calloc(r->arena, f->n ? f->n : 1, sizeof *c.body);
    /* Equalities from (not (distinct a b)) are collected and unified. */
    pat_t **eq_l = xcalloc(f->n ? f->n : 1, sizeof *eq_l), **eq_r = xcalloc(f->n ? f->n : 1, sizeof *eq_r);
    uint32_t n_eq = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        const lit_t *l = f->lits[i];
        clit_t *cl = &c.body[c.n_body];
        switch (l->kind) {
        case LIT_ATOM:
        case LIT_NOT:
            cl->kind = l->kind == LIT_ATOM ? CL_POS : CL_NEG;
            cl->rel = rb_rel_of(b, l->atom->sym, term_arity(l->atom));
            cl->args = sentence_args(b, l->atom, &vm);
            c.n_body++;
            break;
        case LIT_DISTINCT:
            cl->kind = CL_DISTINCT;
            cl->lhs = pat_from_term(b, l->lhs, &vm);
            cl->rhs = pat_from_term(b, l->rhs, &vm);
            c.n_body++;
            break;
        case LIT_EQUAL:
            eq_l[n_eq] = pat_from_term(b, l->lhs, &vm);
            eq_r[n_eq++] = pat_from_term(b, l->rhs, &vm);
            break;
        case LIT_OR: break; /* expanded before */
        }
    }
    if (n_eq) {
        pat_t **subst = xcalloc(vm.n ? vm.n : 1, sizeof *subst);
        bool ok = true;
        for (uint32_t i = 0; i < n_eq && ok; i++) ok = unify(subst, eq_l[i], eq_r[i]);
        if (!ok) { /* the equality can never hold: the rule never fires */
            free(subst);
            free(eq_l);
            free(eq_r);
            free(vm.syms);
            return;
        }
        uint32_t *map = xmalloc((vm.n ? vm.n : 1) * sizeof *map);
        memset(map, 0xff, (vm.n ? vm.n : 1) * sizeof *map);
        uint32_t nv = 0;
        uint32_t ar = r->rels[c.head_rel].arity;
        pat_t **head = arena_calloc(r->arena, ar ? ar : 1, sizeof *head);
        for (uint32_t a = 0; a < ar; a++) head[a] = renumber(b, apply(b, subst, c.head[a]), map, &nv);
        c.head = head;
        for (uint32_t i = 0; i < c.n_body; i++) {
            clit_t *cl = &c.body[i];
            if (cl->kind == CL_DISTINCT) {
                cl->lhs = renumber(b, apply(b, subst, cl->lhs), map, &nv);
                cl->rhs = renumber(b, apply(b, subst, cl->rhs), map, &nv);
            } else {
                uint32_t la = r->rels[cl->rel].arity;
                pat_t **args = arena_calloc(r->arena, la ? la : 1, sizeof *args);
                for (uint32_t a = 0; a < la; a++) args[a] = renumber(b, apply(b, subst, cl->args[a]), map, &nv);
                cl->args = args;
            }
        }
        c.n_vars = nv;
        free(map);
        free(subst);
    } else {
        c.n_vars = vm.n;
    }
    free(eq_l);
    free(eq_r);
    free(vm.syms);
    for (uint32_t a = 0; a < r->rels[c.head_rel].arity; a++) pat_seal(r, c.head[a]);
    for (uint32_t i = 0; i < c.n_body; i++) {
        clit_t *cl = &c.body[i];
        if (cl->kind == CL_DISTINCT) {
            pat_seal(r, cl->lhs);
            pat_seal(r, cl->rhs);
        } else {
            for (uint32_t a = 0; a < r->rels[cl->rel].arity; a++) pat_seal(r, cl->args[a]);
        }
    }
    if (!rb_plan_order(b, &c, UINT32_MAX, &c.plan)) {
        diag_error(b->d, b->p->src, src->off,
                   "unsafe rule: a variable of the head, of a 'not' or of a 'distinct' is not bound by a positive literal");
        b->errors++;
        return;
    }
    r->rels[c.head_rel].has_rules = true;
    c.seq = b->n_rules;
    XVEC_RESERVE(&b->rules, &b->cap_rules, b->n_rules + 1);
    b->rules[b->n_rules++] = c;
}

/* Is rule c the frame axiom (next (f ?a ?b ...)) <= (true (f ?a ?b ...)),
 * the same distinct variables in the same places? */
static bool is_frame_rule(const rules_t *r, const crule_t *c)
{
    const pat_t *h = c->head[0];
    if (c->n_body != 1 || c->body[0].kind != CL_POS || c->body[0].rel != r->rel_true) return false;
    const pat_t *t = c->body[0].args[0];
    if (h->kind != PAT_FN || t->kind != PAT_FN || t->functor != h->functor || t->arity != h->arity) return false;
    for (uint32_t i = 0; i < h->arity; i++) {
        if (h->args[i]->kind != PAT_VAR || t->args[i]->kind != PAT_VAR || t->args[i]->var != h->args[i]->var)
            return false;
        for (uint32_t j = 0; j < i; j++)
            if (h->args[j]->var == h->args[i]->var) return false;
    }
    return true;
}

typedef struct fluent_kind {
    sym_t functor;
    uint32_t arity;
    bool frame, other; /* next rules of this functor: the frame axiom, any other */
} fluent_kind_t;

/* The entry of p's functor and arity in v[0..n), or NULL. */
static fluent_kind_t *fluent_kind(fluent_kind_t *v, uint32_t n, const pat_t *p)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i].functor == p->functor && v[i].arity == p->arity) return &v[i];
    return NULL;
}

/* Constant fluents (RULES_RELAXED): a fluent whose only next rule is its
 * frame axiom holds in every reachable state exactly when init says so
 * (mummymaze1p's walls). The grounder's relaxed program ignores negation
 * on state relations, so that (not (true (wall ?x ?y east))) stopped
 * nothing and the explorer walked off the board to square 50 of the step
 * counter's succ (2,601 squares instead of 81, millions of instances):
 * read as (init ...), a static relation, the literal is decided while
 * grounding and the network holds only what a state can reach. The frame
 * axioms themselves are kept (the fluents stay in the state). */
void rb_constant_fluents(builder_t *b)
{
    rules_t *r = b->r;
    fluent_kind_t *fk = NULL;
    uint32_t n_fk = 0, cap_fk = 0;
    for (uint32_t i = 0; i < b->n_rules; i++) {
        const crule_t *c = &b->rules[i];
        if (c->head_rel != r->rel_next) continue;
        const pat_t *h = c->head[0];
        if (h->kind == PAT_VAR) { /* (next ?x): any fluent at all */
            free(fk);
            return;
        }
        if (h->kind != PAT_FN) continue;
        fluent_kind_t *k = fluent_kind(fk, n_fk, h);
        if (!k) {
            XVEC_RESERVE(&fk, &cap_fk, n_fk + 1);
            k = &fk[n_fk++];
            *k = (fluent_kind_t){.functor = h->functor, .arity = h->arity};
        }
        if (is_frame_rule(r, c)) k->frame = true;
        else k->other = true;
    }
    /* keep the constant kinds only */
    uint32_t n_const = 0;
    for (uint32_t j = 0; j < n_fk; j++)
        if (fk[j].frame && !fk[j].other) fk[n_const++] = fk[j];
    for (uint32_t i = 0; i < b->n_rules && n_const; i++) {
        crule_t *c = &b->rules[i];
        if (c->head_rel == r->rel_next && is_frame_rule(r, c)) continue;
        bool changed = false;
        for (uint32_t k = 0; k < c->n_body; k++) {
            clit_t *l = &c->body[k];
            if (l->kind != CL_DISTINCT && l->rel == r->rel_true && l->args[0]->kind == PAT_FN &&
                fluent_kind(fk, n_const, l->args[0])) {
                l->rel = r->rel_init;
                changed = true;
            }
        }
        if (changed) rb_plan_order(b, c, UINT32_MAX, &c->plan);
    }
    free(fk);
}

void rb_expand(builder_t *b, const rule_t *src, uint32_t i, flat_t *f)
{
    if (i == src->n_body) {
        compile_flat(b, src, f);
        return;
    }
    const lit_t *l = src->body[i];
    if (l->kind != LIT_OR) {
        XVEC_RESERVE(&f->lits, &f->cap, f->n + 1);
        f->lits[f->n++] = l;
        rb_expand(b, src, i + 1, f);
        f->n--;
        return;
    }
    for (uint32_t k = 0; k < l->n_disj; k++) { /* (nested ors are spliced by gdl/ast.c) */
        XVEC_RESERVE(&f->lits, &f->cap, f->n + 1);
        f->lits[f->n++] = l->disj[k];
        rb_expand(b, src, i + 1, f);
        f->n--;
    }
}

/* ------------------------------------------- projection of local variables */

static void count_vars(const pat_t *p, uint32_t *cnt)
{
    if (p->kind == PAT_VAR) cnt[p->var]++;
    else if (p->kind == PAT_FN && !p->ground)
        for (uint32_t i = 0; i < p->arity; i++) count_vars(p->args[i], cnt);
}

static void lit_count_vars(const rules_t *r, const clit_t *l, uint32_t *cnt)
{
    if (l->kind == CL_DISTINCT) {
        count_vars(l->lhs, cnt);
        count_vars(l->rhs, cnt);
    } else {
        for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) count_vars(l->args[a], cnt);
    }
}

static pat_t *remap(builder_t *b, const pat_t *p, const uint32_t *map)
{
    if (p->kind == PAT_VAR) {
        pat_t *q = arena_alloc(b->r->arena, sizeof *q);
        *q = *p;
        q->var = map[p->var];
        return q;
    }
    if (p->kind == PAT_FN && !p->ground) {
        pat_t *q = arena_alloc(b->r->arena, sizeof *q);
        *q = *p;
        q->args = arena_calloc(b->r->arena, p->arity, sizeof *q->args);
        for (uint32_t i = 0; i < p->arity; i++) q->args[i] = remap(b, p->args[i], map);
        return q;
    }
    return (pat_t *)p;
}

static void remap_lit(builder_t *b, clit_t *l, const uint32_t *map)
{
    if (l->kind == CL_DISTINCT) {
        l->lhs = remap(b, l->lhs, map);
        l->rhs = remap(b, l->rhs, map);
        return;
    }
    uint32_t ar = b->r->rels[l->rel].arity;
    pat_t **args = arena_calloc(b->r->arena, ar ? ar : 1, sizeof *args);
    for (uint32_t a = 0; a < ar; a++) args[a] = remap(b, l->args[a], map);
    l->args = args;
}

/* n patterns that are the variables slots[0..n) (slots NULL: 0..n). */
static pat_t **var_pats(rules_t *r, uint32_t n, const uint32_t *slots)
{
    pat_t **ps = arena_calloc(r->arena, n ? n : 1, sizeof *ps);
    for (uint32_t j = 0; j < n; j++) {
        pat_t *pv = arena_alloc(r->arena, sizeof *pv);
        pv->kind = PAT_VAR;
        pv->var = slots ? slots[j] : j;
        ps[j] = pv;
    }
    return ps;
}

/* An auxiliary relation of arity n and phase ph, made from a rule of
 * relation of, written at r->rels[r->n_rels] (the caller counts it once it
 * keeps it). A part of a magic rule is magic too (rules_magic.c). */
static void aux_rel_at_end(builder_t *b, uint32_t n, phase_t ph, uint32_t of)
{
    rules_t *r = b->r;
    XVEC_RESERVE(&r->rels, &b->cap_rels, r->n_rels + 1);
    r->rels[r->n_rels] =
        (crel_t){.name = SYM_NONE, .arity = n, .phase = ph, .has_rules = true, .magic = r->rels[of].magic};
}

/* After literals were replaced: number the remaining variables densely
 * and plan the body again. */
static void renumber_and_plan(builder_t *b, crule_t *c)
{
    rules_t *r = b->r;
    uint32_t nv = c->n_vars ? c->n_vars : 1;
    uint32_t *cnt = xcalloc(nv, sizeof *cnt), *map = xmalloc(nv * sizeof *map);
    for (uint32_t a = 0; a < r->rels[c->head_rel].arity; a++) count_vars(c->head[a], cnt);
    for (uint32_t j = 0; j < c->n_body; j++) lit_count_vars(r, &c->body[j], cnt);
    uint32_t m = 0;
    for (uint32_t v = 0; v < c->n_vars; v++) map[v] = cnt[v] ? m++ : UINT32_MAX;
    uint32_t ar = r->rels[c->head_rel].arity;
    pat_t **head = arena_calloc(r->arena, ar ? ar : 1, sizeof *head);
    for (uint32_t a = 0; a < ar; a++) head[a] = remap(b, c->head[a], map);
    c->head = head;
    for (uint32_t j = 0; j < c->n_body; j++) remap_lit(b, &c->body[j], map);
    c->n_vars = m;
    rb_plan_order(b, c, UINT32_MAX, &c->plan);
    free(cnt);
    free(map);
}

/* Join decomposition: the body literals that are connected through
 * variables other than the head's form components; a component that has
 * variables of its own only tells the rest of the rule whether it holds for
 * the head variables it shares, so it becomes an auxiliary relation over
 * those. Breakthrough's frame rule
 *     (next (cellHolds ?x3 ?y3 ?s)) <= (true (cellHolds ?x3 ?y3 ?s)) (role ?p)
 *         (does ?p (move ?x1 ?y1 ?x2 ?y2)) (distinctCell ?x1 ?y1 ?x3 ?y3) ...
 * becomes (true (cellHolds ?x3 ?y3 ?s)) (aux ?x3 ?y3): the ground rules go
 * from cells x pieces x moves to cells x moves, and a change of one cell
 * no longer touches every move's instance. */
void rb_split_components(builder_t *b)
{
    rules_t *r = b->r;
    uint32_t n = b->n_rules;
    for (uint32_t i = 0; i < n; i++) {
        crule_t c = b->rules[i];
        if (c.n_body < 2 || c.bridge) continue;
        uint32_t nv = c.n_vars ? c.n_vars : 1, nb = c.n_body;
        uint32_t *in_head = xcalloc(nv, sizeof *in_head), *first = xmalloc(nv * sizeof *first);
        uint32_t *parent = xmalloc(nb * sizeof *parent), *cnt = xcalloc(nv, sizeof *cnt);
        memset(first, 0xff, nv * sizeof *first);
        for (uint32_t a = 0; a < r->rels[c.head_rel].arity; a++) count_vars(c.head[a], in_head);
        for (uint32_t k = 0; k < nb; k++) parent[k] = k;
        for (uint32_t k = 0; k < nb; k++) {
            memset(cnt, 0, nv * sizeof *cnt);
            lit_count_vars(r, &c.body[k], cnt);
            for (uint32_t v = 0; v < c.n_vars; v++) {
                if (!cnt[v] || in_head[v]) continue;
                if (first[v] == UINT32_MAX) {
                    first[v] = k;
                    continue;
                }
                uint32_t x = k, y = first[v];
                while (parent[x] != x) x = parent[x];
                while (parent[y] != y) y = parent[y];
                if (x != y) parent[x < y ? y : x] = x < y ? x : y;
            }
        }
        for (uint32_t k = 0; k < nb; k++) {
            uint32_t x = k;
            while (parent[x] != x) x = parent[x];
            parent[k] = x;
        }
        bool changed = false;
        clit_t *body = arena_calloc(r->arena, nb, sizeof *body);
        uint32_t n_body = 0;
        for (uint32_t root = 0; root < nb; root++) {
            uint32_t size = 0, n_pos = 0;
            bool existential = false;
            memset(cnt, 0, nv * sizeof *cnt);
            for (uint32_t k = 0; k < nb; k++)
                if (parent[k] == root) {
                    size++;
                    n_pos += c.body[k].kind == CL_POS;
                    lit_count_vars(r, &c.body[k], cnt);
                }
            if (!size) continue;
            for (uint32_t v = 0; v < c.n_vars; v++) existential |= cnt[v] && !in_head[v];
            bool split = existential && n_pos > 0 && size < nb;
            crule_t a = {0};
            uint32_t n_keep = 0, *inv = NULL;
            if (split) {
                uint32_t *map = xmalloc(nv * sizeof *map);
                inv = xmalloc(nv * sizeof *inv);
                for (uint32_t v = 0; v < c.n_vars; v++)
                    if (cnt[v] && in_head[v]) {
                        inv[n_keep] = v;
                        map[v] = n_keep++;
                    }
                uint32_t m = n_keep;
                for (uint32_t v = 0; v < c.n_vars; v++)
                    if (cnt[v] && !in_head[v]) map[v] = m++;
                a.n_vars = m;
                a.src_off = c.src_off;
                a.head = var_pats(r, n_keep, NULL);
                a.body = arena_calloc(r->arena, size, sizeof *a.body);
                for (uint32_t k = 0; k < nb; k++)
                    if (parent[k] == root) {
                        a.body[a.n_body] = c.body[k];
                        remap_lit(b, &a.body[a.n_body++], map);
                    }
                free(map);
                /* The auxiliary rule must be safe on its own. */
                aux_rel_at_end(b, n_keep, PHASE_STATIC, c.head_rel);
                a.head_rel = r->n_rels;
                if (!rb_plan_order(b, &a, UINT32_MAX, &a.plan)) split = false;
            }
            if (!split) {
                for (uint32_t k = 0; k < nb; k++)
                    if (parent[k] == root) body[n_body++] = c.body[k];
                free(inv);
                continue;
            }
            r->n_rels++;
            a.seq = b->n_rules;
            XVEC_RESERVE(&b->rules, &b->cap_rules, b->n_rules + 1);
            b->rules[b->n_rules++] = a;
            clit_t *l = &body[n_body++];
            *l = (clit_t){.kind = CL_POS, .rel = a.head_rel};
            l->args = var_pats(r, n_keep, inv);
            free(inv);
            changed = true;
        }
        if (changed) {
            c.body = body;
            c.n_body = n_body;
            renumber_and_plan(b, &c);
            b->rules[i] = c;
        }
        free(in_head);
        free(first);
        free(parent);
        free(cnt);
    }
}

/* Variables that occur in one positive literal and nowhere else in a rule
 * are projected out through an auxiliary relation: in
 *     (next (check ?p rook ?x ?y)) <= (does ?o (move ?piece ?u ?v ?x1 ?y1)) ...
 * ?piece, ?x1 and ?y1 matter only as "some move from (u, v)", so the literal
 * becomes (aux ?o ?u ?v) with aux(?o ?u ?v) <= (does ?o (move ?piece ?u ?v ?x1 ?y1)).
 * The meaning is unchanged (an existential is a projection), and a ground
 * rule no longer multiplies out every value of the projected variables:
 * in chess this divides the instances of such rules by the number of
 * destinations. */
void rb_project_local_vars(builder_t *b)
{
    rules_t *r = b->r;
    uint32_t n = b->n_rules;
    for (uint32_t i = 0; i < n; i++) {
        crule_t c = b->rules[i]; /* b->rules may move as aux rules are added */
        if (c.n_body < 2) continue;
        bool changed = false;
        for (uint32_t k = 0; k < c.n_body; k++) {
            clit_t *l = &c.body[k];
            if (l->kind != CL_POS) continue;
            uint32_t nv = c.n_vars ? c.n_vars : 1;
            uint32_t *all = xcalloc(nv, sizeof *all), *mine = xcalloc(nv, sizeof *mine);
            for (uint32_t a = 0; a < r->rels[c.head_rel].arity; a++) count_vars(c.head[a], all);
            for (uint32_t j = 0; j < c.n_body; j++) lit_count_vars(r, &c.body[j], j == k ? mine : all);
            uint32_t n_keep = 0, n_local = 0;
            uint32_t *map = xmalloc(nv * sizeof *map);
            for (uint32_t v = 0; v < c.n_vars; v++)
                if (mine[v] && all[v]) map[v] = n_keep++;
            for (uint32_t v = 0; v < c.n_vars; v++)
                if (mine[v] && !all[v]) {
                    map[v] = n_keep + n_local;
                    n_local++;
                }
            if (n_local == 0) {
                free(all);
                free(mine);
                free(map);
                continue;
            }
            /* aux(keep...) <= L, with the literal's variables renumbered */
            aux_rel_at_end(b, n_keep, PHASE_STATIC, c.head_rel);
            uint32_t aux = r->n_rels++;
            /* a projection of does holds as few tuples as does */
            r->rels[aux].from_does = l->rel == r->rel_does || r->rels[l->rel].from_does;
            crule_t a = {.head_rel = aux, .n_vars = n_keep + n_local, .n_body = 1, .src_off = c.src_off};
            a.head = var_pats(r, n_keep, NULL);
            uint32_t *inv = xmalloc(nv * sizeof *inv);
            for (uint32_t v = 0; v < c.n_vars; v++)
                if (mine[v] && all[v]) inv[map[v]] = v;
            a.body = arena_calloc(r->arena, 1, sizeof *a.body);
            a.body[0] = *l;
            remap_lit(b, &a.body[0], map);
            rb_plan_order(b, &a, UINT32_MAX, &a.plan);
            a.seq = b->n_rules;
            XVEC_RESERVE(&b->rules, &b->cap_rules, b->n_rules + 1);
            b->rules[b->n_rules++] = a;
            /* the literal becomes aux(keep...) in the rule's own numbering */
            l->rel = aux;
            l->args = var_pats(r, n_keep, inv);
            changed = true;
            free(inv);
            free(all);
            free(mine);
            free(map);
        }
        if (!changed) continue;
        renumber_and_plan(b, &c);
        b->rules[i] = c;
    }
}

/* ------------------------------------------------- variable elimination */

/* Bucket elimination of a rule's body variables (RULES_ELIMINATE): a
 * variable v that is not in the head matters to the rest of the rule only
 * through the literals that mention it (its bucket), so those become one
 * auxiliary relation over their other variables:
 *     (next (whiteScore ?xNext)) <= (true (whiteScore ?x))
 *         (does white (bid ?x1)) (does black (bid ?y1)) (min ?x1 ?y1 ?m) ...
 * gets aux(?y1 ?m) <= (does white (bid ?x1)) (min ?x1 ?y1 ?m), then
 * ?y1's bucket aux2(?m) <= (does black (bid ?y1)) aux(?y1 ?m), and so on:
 * the ground rule no longer multiplies out every bid of both players with
 * every score (gt_attrition: 10^6 instances of that rule), only pairs. The
 * variable with the fewest other variables in its bucket goes first (the
 * min-degree order of the classic algorithm, Dechter 1999); a bucket that
 * is the whole body, that holds every variable of the rule, or whose aux
 * rule would be unsafe is left. It is the same meaning (an existential
 * pushed inward), but more, smaller gates where a variable has one value
 * per value of the others (a successor), so the propnet grounder only
 * compiles with it when a rule's instances explode (propnet.c). */
/* Whether some positive literal of the bucket (literals k with
 * occ[k * nv + v]) has v as a whole argument that its static relation
 * fixes given the other arguments (rules_member_set_t fd). Relations from
 * n_known on are this compile's own auxiliaries: unknown. */
static bool var_fixed(const builder_t *b, const crule_t *c, const bool *occ, uint32_t nv, uint32_t v, uint32_t n_known)
{
    if (!b->fd) return false;
    const rules_t *r = b->r;
    for (uint32_t k = 0; k < c->n_body; k++) {
        const clit_t *l = &c->body[k];
        if (!occ[(size_t)k * nv + v] || l->kind != CL_POS || l->rel >= n_known) continue;
        uint32_t ar = r->rels[l->rel].arity, *cnt = xcalloc(nv, sizeof *cnt);
        lit_count_vars(r, l, cnt);
        bool fixed = false;
        for (uint32_t a = 0; a < ar && !fixed; a++)
            fixed = l->args[a]->kind == PAT_VAR && l->args[a]->var == v && cnt[v] == 1 && b->fd(b->fd_ud, l->rel, a);
        free(cnt);
        if (fixed) return true;
    }
    return false;
}

void rb_eliminate_vars(builder_t *b)
{
    rules_t *r = b->r;
    uint32_t n = b->n_rules, n_known = r->n_rels;
    for (uint32_t i = 0; i < n; i++) {
        crule_t c = b->rules[i]; /* b->rules may move as aux rules are added */
        if (c.bridge) continue;
        unsigned level = b->elim_all ? 2 : 0;
        for (uint32_t j = 0; j < b->n_elim_src && !level; j++)
            if (b->elim_src[j] == c.src_off) level = b->elim_level[j];
        bool apply = level > 0;
        bool elim = false, any = false;
        bool *tried = NULL;
        while (c.n_body >= 3) {
            uint32_t nv = c.n_vars ? c.n_vars : 1, nb = c.n_body;
            uint32_t *in_head = xcalloc(nv, sizeof *in_head), *cnt = xcalloc(nv, sizeof *cnt);
            bool *occ = xcalloc((size_t)nb * nv, sizeof *occ), *used = xcalloc(nv, sizeof *used);
            if (!tried) tried = xcalloc(nv, sizeof *tried);
            for (uint32_t a = 0; a < r->rels[c.head_rel].arity; a++) count_vars(c.head[a], in_head);
            for (uint32_t k = 0; k < nb; k++) {
                memset(cnt, 0, nv * sizeof *cnt);
                lit_count_vars(r, &c.body[k], cnt);
                for (uint32_t v = 0; v < c.n_vars; v++) occ[(size_t)k * nv + v] = cnt[v] != 0;
            }
            uint32_t n_used = 0;
            for (uint32_t v = 0; v < c.n_vars; v++) {
                used[v] = in_head[v] != 0;
                for (uint32_t k = 0; k < nb && !used[v]; k++) used[v] = occ[(size_t)k * nv + v];
                n_used += used[v];
            }
            uint32_t best = UINT32_MAX, best_deg = UINT32_MAX;
            bool more = false; /* some variable fd left */
            for (uint32_t v = 0; v < c.n_vars; v++) {
                if (in_head[v] || !used[v] || tried[v]) continue;
                uint32_t size = 0, n_pos = 0, deg = 0;
                memset(cnt, 0, nv * sizeof *cnt);
                for (uint32_t k = 0; k < nb; k++)
                    if (occ[(size_t)k * nv + v]) {
                        size++;
                        /* a positive literal that is not static: an aux
                         * relation of static literals alone would be
                         * computed in full, no longer narrowed by the
                         * rule's state (aux(?a ?b) <= (e ?v ?a) (e ?v ?b):
                         * the square of e); and a static aux relation
                         * could become a membership one, whose id the
                         * member set keeps across compiles */
                        n_pos += c.body[k].kind == CL_POS && r->rels[c.body[k].rel].phase != PHASE_STATIC;
                        for (uint32_t w = 0; w < c.n_vars; w++) cnt[w] |= occ[(size_t)k * nv + w];
                    }
                for (uint32_t w = 0; w < c.n_vars; w++) deg += cnt[w] != 0;
                if (size < 2 || size == nb || n_pos == 0 || deg == n_used) continue;
                if (level == 1 && var_fixed(b, &c, occ, nv, v, n_known)) {
                    more = true;
                    continue;
                }
                if (deg - 1 < best_deg) {
                    best = v;
                    best_deg = deg - 1;
                }
            }
            if (best == UINT32_MAX && level == 1 && more && !any) {
                /* level 1 would rewrite nothing: a try for nothing */
                level = 2;
                memset(tried, 0, nv * sizeof *tried);
                free(in_head);
                free(cnt);
                free(occ);
                free(used);
                continue;
            }
            bool done = best == UINT32_MAX || !apply;
            /* whether a try at the next level could rewrite it (its aux
             * rules' safety aside) */
            if (done) elim = !apply ? best != UINT32_MAX : level == 1 && more;
            if (!done) {
                /* aux(S) <= bucket, S the bucket's other variables in order */
                uint32_t *map = xmalloc(nv * sizeof *map), *inv = xmalloc(nv * sizeof *inv), n_keep = 0;
                memset(cnt, 0, nv * sizeof *cnt);
                uint32_t size = 0;
                for (uint32_t k = 0; k < nb; k++)
                    if (occ[(size_t)k * nv + best]) {
                        size++;
                        for (uint32_t w = 0; w < c.n_vars; w++) cnt[w] |= occ[(size_t)k * nv + w];
                    }
                for (uint32_t w = 0; w < c.n_vars; w++)
                    if (cnt[w] && w != best) {
                        inv[n_keep] = w;
                        map[w] = n_keep++;
                    }
                map[best] = n_keep;
                crule_t a = {.n_vars = n_keep + 1, .src_off = c.src_off};
                a.head = var_pats(r, n_keep, NULL);
                a.body = arena_calloc(r->arena, size, sizeof *a.body);
                for (uint32_t k = 0; k < nb; k++)
                    if (occ[(size_t)k * nv + best]) {
                        a.body[a.n_body] = c.body[k];
                        remap_lit(b, &a.body[a.n_body++], map);
                    }
                /* its phase, for the buckets after it (phases are computed
                 * again after elimination) */
                phase_t ph = PHASE_STATIC;
                for (uint32_t k = 0; k < a.n_body; k++)
                    if (a.body[k].kind != CL_DISTINCT && r->rels[a.body[k].rel].phase > ph) ph = r->rels[a.body[k].rel].phase;
                aux_rel_at_end(b, n_keep, ph, c.head_rel);
                a.head_rel = r->n_rels;
                if (!rb_plan_order(b, &a, UINT32_MAX, &a.plan)) {
                    tried[best] = true; /* unsafe on its own: try another */
                } else {
                    r->n_rels++;
                    a.seq = b->n_rules;
                    XVEC_RESERVE(&b->rules, &b->cap_rules, b->n_rules + 1);
                    b->rules[b->n_rules++] = a;
                    /* the bucket becomes aux(S), where its first literal was */
                    clit_t *body = arena_calloc(r->arena, nb - size + 1, sizeof *body);
                    uint32_t m = 0;
                    bool placed = false;
                    for (uint32_t k = 0; k < nb; k++) {
                        if (!occ[(size_t)k * nv + best]) {
                            body[m++] = c.body[k];
                        } else if (!placed) {
                            body[m] = (clit_t){.kind = CL_POS, .rel = a.head_rel};
                            body[m++].args = var_pats(r, n_keep, inv);
                            placed = true;
                        }
                    }
                    c.body = body;
                    c.n_body = m;
                    renumber_and_plan(b, &c); /* variables renumbered: */
                    free(tried);
                    tried = NULL;
                    any = true;
                }
                free(map);
                free(inv);
            }
            free(in_head);
            free(cnt);
            free(occ);
            free(used);
            if (done) break;
        }
        free(tried);
        c.elim = elim;
        b->rules[i] = c;
    }
}

/* ------------------------------------------------- phases and rule order */

/* The phase of rule i's head from its body (raised only). */
static bool raise_phase(rules_t *r, const crule_t *c)
{
    phase_t ph = r->rels[c->head_rel].phase;
    for (uint32_t k = 0; k < c->n_body; k++)
        if (c->body[k].kind != CL_DISTINCT && r->rels[c->body[k].rel].phase > ph) ph = r->rels[c->body[k].rel].phase;
    if (ph <= r->rels[c->head_rel].phase) return false;
    r->rels[c->head_rel].phase = ph;
    return true;
}

/* Each relation's phase: the latest of its rules' bodies, to a fixpoint.
 * A worklist of the rules that use a relation whose phase rose (passes
 * over every rule until nothing changed were quadratic on a long chain of
 * rules written head last: 100,000 such rules took minutes). */
void rb_compute_phases(rules_t *r, const crule_t *rules, uint32_t n)
{
    if (r->rel_true != REL_NONE) r->rels[r->rel_true].phase = PHASE_STATE;
    if (r->rel_does != REL_NONE) r->rels[r->rel_does].phase = PHASE_MOVE;
    /* users of each relation: rules with it in their body (CSR) */
    uint32_t nr = r->n_rels, *off = xcalloc((size_t)nr + 1, sizeof *off);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < rules[i].n_body; k++)
            if (rules[i].body[k].kind != CL_DISTINCT) off[rules[i].body[k].rel + 1]++;
    for (uint32_t x = 0; x < nr; x++) off[x + 1] += off[x];
    uint32_t *fill = xmalloc(((size_t)nr + 1) * sizeof *fill), *users = xmalloc(((size_t)off[nr] + 1) * sizeof *users);
    memcpy(fill, off, ((size_t)nr + 1) * sizeof *fill);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < rules[i].n_body; k++)
            if (rules[i].body[k].kind != CL_DISTINCT) users[fill[rules[i].body[k].rel]++] = i;
    free(fill);
    /* every rule once, then the users of each raised head (a relation
     * rises at most twice: static, state, move) */
    uint32_t *queue = xmalloc(((size_t)n + 1) * sizeof *queue), qn = 0;
    bool *queued = xcalloc((size_t)n + 1, 1);
    for (uint32_t i = 0; i < n; i++) {
        queue[qn++] = i;
        queued[i] = true;
    }
    while (qn) {
        uint32_t i = queue[--qn];
        queued[i] = false;
        if (!raise_phase(r, &rules[i])) continue;
        uint32_t h = rules[i].head_rel;
        for (uint32_t u = off[h]; u < off[h + 1]; u++)
            if (!queued[users[u]]) {
                queued[users[u]] = true;
                queue[qn++] = users[u];
            }
    }
    free(queued);
    free(queue);
    free(users);
    free(off);
}

/* Conservative unifiability of a head with a literal of another rule:
 * variables match anything (repeated variables are not checked), which can
 * only add dependencies, never lose one. */
static bool may_unify(const pat_t *a, const pat_t *b)
{
    if (a->kind == PAT_VAR || b->kind == PAT_VAR) return true;
    if (a->ground && b->ground) return a->term == b->term;
    if (a->kind == PAT_CONST || b->kind == PAT_CONST) return false; /* const vs non-ground fn */
    if (a->functor != b->functor || a->arity != b->arity) return false;
    for (uint32_t i = 0; i < a->arity; i++)
        if (!may_unify(a->args[i], b->args[i])) return false;
    return true;
}

typedef struct edge {
    uint32_t to;
    bool neg;
} edge_t;

typedef struct graph {
    edge_t **out;
    uint32_t *n_out, *cap_out;
} graph_t;

static uint32_t graph_edge(const void *ctx, uint32_t u, uint32_t i)
{
    const graph_t *g = ctx;
    return i < g->n_out[u] ? g->out[u][i].to : SCC_NONE;
}

/* Components in evaluation order; within one, creation order (qsort is not
 * stable, so the sequence number breaks ties and keeps results deterministic). */
static int cmp_scc(const void *a, const void *b)
{
    const crule_t *x = a, *y = b;
    if (x->scc != y->scc) return x->scc < y->scc ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq ? 1 : 0;
}

bool rb_order_rules(builder_t *b)
{
    rules_t *r = b->r;
    uint32_t n = b->n_rules;
    crule_t *rules = b->rules;
    /* heads by relation, to find the rules a literal may depend on */
    uint32_t *first = xmalloc((r->n_rels + 1) * sizeof *first), *by_rel = xmalloc((n ? n : 1) * sizeof *by_rel);
    memset(first, 0, (r->n_rels + 1) * sizeof *first);
    for (uint32_t i = 0; i < n; i++) first[rules[i].head_rel + 1]++;
    for (uint32_t k = 0; k < r->n_rels; k++) first[k + 1] += first[k];
    uint32_t *fill = xmalloc((r->n_rels + 1) * sizeof *fill);
    memcpy(fill, first, (r->n_rels + 1) * sizeof *fill);
    for (uint32_t i = 0; i < n; i++) by_rel[fill[rules[i].head_rel]++] = i;
    free(fill);

    graph_t g = {0};
    g.out = xcalloc(n ? n : 1, sizeof *g.out);
    g.n_out = xcalloc(n ? n : 1, sizeof *g.n_out);
    g.cap_out = xcalloc(n ? n : 1, sizeof *g.cap_out);
    for (uint32_t i = 0; i < n; i++) {
        const crule_t *c = &rules[i];
        for (uint32_t k = 0; k < c->n_body; k++) {
            const clit_t *l = &c->body[k];
            if (l->kind == CL_DISTINCT) continue;
            /* The relaxed program ignores negation on non-static relations. */
            if (l->kind == CL_NEG && r->relaxed && r->rels[l->rel].phase != PHASE_STATIC) continue;
            for (uint32_t j = first[l->rel]; j < first[l->rel + 1]; j++) {
                const crule_t *a = &rules[by_rel[j]];
                bool ok = true;
                for (uint32_t p = 0; p < r->rels[l->rel].arity && ok; p++) ok = may_unify(a->head[p], l->args[p]);
                if (!ok) continue;
                XVEC_RESERVE(&g.out[i], &g.cap_out[i], g.n_out[i] + 1);
                g.out[i][g.n_out[i]++] = (edge_t){by_rel[j], l->kind == CL_NEG};
            }
        }
    }
    uint32_t *comp = xmalloc((n ? n : 1) * sizeof *comp);
    uint32_t n_comp = scc_tarjan(&(scc_graph_t){.n = n, .edge = graph_edge, .ctx = &g}, comp, NULL);
    /* Tarjan numbers a component after every component it depends on, so
     * the component number is already an evaluation order. */
    bool ok = true;
    uint32_t *comp_size = xcalloc(n_comp ? n_comp : 1, sizeof *comp_size);
    for (uint32_t i = 0; i < n; i++) comp_size[comp[i]]++;
    for (uint32_t i = 0; i < n; i++) {
        rules[i].scc = comp[i];
        rules[i].recursive = comp_size[comp[i]] > 1;
        for (uint32_t e = 0; e < g.n_out[i]; e++) {
            if (g.out[i][e].to == i) rules[i].recursive = true;
            if (comp[g.out[i][e].to] == comp[i] && g.out[i][e].neg && ok) {
                diag_error(b->d, b->p->src, rules[i].bridge ? 0 : rules[i].src_off,
                           "negation inside a recursive cycle: this rule depends negatively on a rule that depends on it");
                b->errors++;
                ok = false;
            }
        }
    }
    r->n_sccs = n_comp;
    for (uint32_t i = 0; i < n; i++) free(g.out[i]);
    free(g.out);
    free(g.n_out);
    free(g.cap_out);
    free(comp);
    free(comp_size);
    free(first);
    free(by_rel);
    if (n > 1) qsort(rules, n, sizeof *rules, cmp_scc);
    return ok;
}
