/* rules.c - normalisation of a GDL program for evaluation (see rules.h). */
#include "reasoner/rules.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/scc.h"
#include "base/xalloc.h"

/* ---------------------------------------------------------------- builder */

typedef struct var_map {
    sym_t *syms;
    uint32_t n, cap;
} var_map_t;

typedef struct builder {
    rules_t *r;
    const program_t *p;
    diag_t *d;
    unsigned errors;
    crule_t *rules;
    uint32_t n_rules, cap_rules;
    uint32_t cap_rels;
    /* tabling (see compute_tabling): goal-directed relations, and the
     * memo of which call patterns of theirs can be evaluated */
    bool *tab;
    struct tab_memo *tm;
    uint32_t n_tm, cap_tm;
    uint32_t n_orig_rules;
    /* demand planning (see compute_demand): relations that are asked
     * rather than computed, whose literals come after the generators */
    const bool *late;
    uint32_t n_late;    /* relations late covers (copies come after) */
    /* partial adornment (see adorn_partial): relations whose uses are
     * redirected to a copy per call pattern */
    const bool *adorn;
    double *est;        /* adorn: estimated sizes of the static relations */
    bool *exact;        /* adorn: some bottom-up rule asks with just the relation's mask */
} builder_t;

typedef enum { TAB_BUSY, TAB_OK, TAB_BAD } tab_state_t;
typedef struct tab_memo {
    uint32_t rel, mask;
    tab_state_t st;
} tab_memo_t;

uint32_t rules_find_rel(const rules_t *r, sym_t name, uint32_t arity)
{
    for (uint32_t i = 0; i < r->n_rels; i++)
        if (r->rels[i].name == name && r->rels[i].arity == arity) return i;
    return REL_NONE;
}

static uint32_t rel_of(builder_t *b, sym_t name, uint32_t arity)
{
    uint32_t i = rules_find_rel(b->r, name, arity);
    if (i != REL_NONE) return i;
    XVEC_RESERVE(&b->r->rels, &b->cap_rels, b->r->n_rels + 1);
    b->r->rels[b->r->n_rels] = (crel_t){.name = name, .arity = arity, .phase = PHASE_STATIC};
    return b->r->n_rels++;
}

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

/* A flat literal before compilation: an AST literal that is not an `or`. */
typedef struct flat {
    const lit_t **lits;
    uint32_t n, cap;
} flat_t;

static void mark_vars(const pat_t *p, bool *bound)
{
    if (p->kind == PAT_VAR) bound[p->var] = true;
    else if (p->kind == PAT_FN && !p->ground)
        for (uint32_t i = 0; i < p->arity; i++) mark_vars(p->args[i], bound);
}

static bool all_bound(const pat_t *p, const bool *bound)
{
    if (p->kind == PAT_VAR) return bound[p->var];
    if (p->kind == PAT_FN && !p->ground) {
        for (uint32_t i = 0; i < p->arity; i++)
            if (!all_bound(p->args[i], bound)) return false;
    }
    return true;
}

static uint32_t count_unbound(const pat_t *p, const bool *bound)
{
    if (p->kind == PAT_VAR) return !bound[p->var];
    uint32_t n = 0;
    if (p->kind == PAT_FN && !p->ground)
        for (uint32_t i = 0; i < p->arity; i++) n += count_unbound(p->args[i], bound);
    return n;
}

/* The id of an index spec, registered if new. */
static uint32_t spec_id(rules_t *r, const idx_spec_t *sp)
{
    for (uint32_t i = 0; i < r->n_specs; i++)
        if (r->specs[i].rel == sp->rel && r->specs[i].n == sp->n &&
            !memcmp(r->specs[i].path, sp->path, sp->n * sizeof *sp->path))
            return i;
    XVEC_RESERVE(&r->specs, &r->cap_specs, r->n_specs + 1);
    r->specs[r->n_specs] = *sp;
    return r->n_specs++;
}

/* A pattern whose value is known: constant, ground, or a bound variable
 * (a non-ground function term is not used as an index key). */
static bool is_bound(const pat_t *p, const bool *bound)
{
    return p->kind == PAT_CONST || p->ground || (p->kind == PAT_VAR && bound[p->var]);
}

/* Argument positions of a literal whose values are known. */
static uint32_t bound_mask(const rules_t *r, const clit_t *l, const bool *bound)
{
    uint32_t m = 0;
    for (uint32_t a = 0; a < r->rels[l->rel].arity && a < 32; a++)
        if (all_bound(l->args[a], bound)) m |= 1u << a;
    return m;
}

static bool tab_ok(builder_t *b, uint32_t rel, uint32_t mask);
static double pow_rough(double x, double f);

/* log2 x for x >= 1, roughly (as pow_rough). */
static double log2_rough(double x)
{
    double lg = 0;
    while (x >= 2) {
        x /= 2;
        lg += 1;
    }
    return lg + x - 1; /* log2 of the mantissa, linearly */
}

/* A literal of a goal-directed relation can only be evaluated with some
 * arguments bound: an adorned copy with (at least) its pattern, an
 * original with a pattern that can itself be evaluated (tab_ok). */
static bool tab_lit_ok(builder_t *b, const clit_t *l, const bool *bound)
{
    const crel_t *R = &b->r->rels[l->rel];
    if (R->tabled) return (bound_mask(b->r, l, bound) & R->demand_mask) == R->demand_mask;
    if (!b->tab || !b->tab[l->rel]) return true;
    uint32_t m = bound_mask(b->r, l, bound);
    return m != 0 && tab_ok(b, l->rel, m);
}

static bool lit_ready(const rules_t *r, const clit_t *l, const bool *bound)
{
    if (l->kind == CL_DISTINCT) return all_bound(l->lhs, bound) && all_bound(l->rhs, bound);
    for (uint32_t i = 0; i < r->rels[l->rel].arity; i++)
        if (!all_bound(l->args[i], bound)) return false;
    return true;
}

/* Order a body: filters (not, distinct) as soon as their variables are
 * bound; otherwise the positive literal with the most bound arguments and
 * the fewest new variables. first: a literal that must come first (delta
 * literal of semi-naive evaluation), or UINT32_MAX. Returns false if some
 * literal can never be evaluated (unsafe rule). */
static bool plan_order_from(builder_t *b, crule_t *c, uint32_t first, corder_t *out, uint32_t head_mask);

static bool plan_order(builder_t *b, crule_t *c, uint32_t first, corder_t *out)
{
    return plan_order_from(b, c, first, out, 0);
}

/* head_mask: head argument positions whose variables are bound on entry
 * (a demand query). */
static bool plan_order_from(builder_t *b, crule_t *c, uint32_t first, corder_t *out, uint32_t head_mask)
{
    rules_t *r = b->r;
    uint32_t n = c->n_body;
    out->order = arena_calloc(r->arena, n ? n : 1, sizeof *out->order);
    out->index_pos = arena_calloc(r->arena, n ? n : 1, sizeof *out->index_pos);
    bool *bound = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *bound);
    for (uint32_t a = 0; a < r->rels[c->head_rel].arity && a < 32; a++)
        if (head_mask >> a & 1) mark_vars(c->head[a], bound);
    bool *used = xcalloc(n ? n : 1, sizeof *used);
    bool ok = true;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t pick = UINT32_MAX;
        if (k == 0 && first != UINT32_MAX) pick = first;
        for (uint32_t i = 0; i < n && pick == UINT32_MAX; i++)
            if (!used[i] && c->body[i].kind != CL_POS && lit_ready(r, &c->body[i], bound) &&
                (c->body[i].kind == CL_DISTINCT || tab_lit_ok(b, &c->body[i], bound)))
                pick = i;
        if (pick == UINT32_MAX) {
            long best = LONG_MIN;
            for (uint32_t i = 0; i < n; i++) {
                const clit_t *l = &c->body[i];
                if (used[i] || l->kind != CL_POS || !tab_lit_ok(b, l, bound)) continue;
                uint32_t ar = r->rels[l->rel].arity, bnd = 0, sub = 0, fresh = 0;
                for (uint32_t a = 0; a < ar; a++) {
                    uint32_t u = count_unbound(l->args[a], bound);
                    bnd += u == 0;
                    fresh += u;
                    if (u && l->args[a]->kind == PAT_FN)
                        for (uint32_t q = 0; q < l->args[a]->arity; q++) sub += is_bound(l->args[a]->args[q], bound);
                }
                /* In a state, does holds one tuple per role: a cheap
                 * generator (not in the relaxed program, where it holds
                 * every move), and so do its projections (chess's en
                 * passant frame rule: 4032 different_cells tuples first
                 * made it 100x slower). */
                long score = (long)bnd * 1000 + (long)sub * 300 - (long)fresh + (ar == bnd ? 1000000 : 0) +
                             ((l->rel == r->rel_does || r->rels[l->rel].from_does) && !r->relaxed ? 500000 : 0);
                /* A goal-directed call with free arguments may have a huge
                 * answer set (len(?l, 6): every list of length 6): it comes
                 * after every other generator, with as much bound as can be. */
                const crel_t *L = &r->rels[l->rel];
                if (ar != bnd && ((L->tabled && !L->adorned) || (b->tab && b->tab[l->rel]))) score -= 100000000;
                /* A demand call that would bind fewer arguments than its
                 * relation is asked with (partial demand, compute_demand)
                 * comes after the literals that can bind them: the masks
                 * start full and shrink to what the plans bind. */
                else if (ar != bnd && ((b->late && l->rel < b->n_late && b->late[l->rel]) || L->adorned) &&
                         (bound_mask(r, l, bound) & L->demand_mask) != L->demand_mask)
                    score -= 50000;
                /* Partial adornment: a static probe (some argument bound) is
                 * weighed by its estimated fan-out beyond 4 (a step to a
                 * neighbour stays as cheap as a test of the state's
                 * cells: endgame's clearcolumn), so that a cheap one
                 * comes first and binds a demand call's arguments (chess's
                 * threatened_with_capture: (opponent ?owner ?o), 1 answer,
                 * before (different_cells ?cx ?cy ?u ?v), 63), and a demand
                 * call by a guessed fan-out of 8 per argument it leaves
                 * free (chess's clear_diagonal_ne_ig with the ignore square
                 * alone bound, the whole board, after (next_file ?u ?u2),
                 * one; wargame01's (intendedLocation soldier ?x ?y), one
                 * answer, before a step relation with two free squares). */
                if (b->est && ar != bnd) {
                    if (bnd && l->rel < b->n_late && L->phase == PHASE_STATIC && !L->demand) {
                        double e = b->est[l->rel] > 1 ? b->est[l->rel] : 1;
                        double lg = log2_rough(pow_rough(e, (double)(ar - bnd) / ar));
                        if (lg > 2) score -= (long)(300 * (lg - 2));
                    } else if (L->demand || L->tabled) {
                        score -= 900 * (long)(ar - bnd);
                    }
                }
                if (score > best) {
                    best = score;
                    pick = i;
                }
            }
        }
        if (pick == UINT32_MAX) { /* only filters left with unbound variables */
            ok = false;
            break;
        }
        used[pick] = true;
        out->order[k] = pick;
        const clit_t *l = &c->body[pick];
        out->index_pos[k] = -1;
        if (l->kind == CL_POS) {
            /* Index path: a whole bound argument (code p << 8), else a bound
             * argument q of a function term at p (code p << 8 | q + 1), so
             * that (true (cell ?x ?y b)) with ?x bound probes by ?x. */
            bool full = true;
            for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) full &= all_bound(l->args[a], bound);
            if (full) {
                out->index_pos[k] = INDEX_MEMBER;
            } else {
                idx_spec_t sp = {.rel = l->rel};
                for (uint32_t a = 0; a < r->rels[l->rel].arity && sp.n < IDX_MAX_PATHS; a++)
                    if (is_bound(l->args[a], bound)) sp.path[sp.n++] = a << 8;
                for (uint32_t a = 0; a < r->rels[l->rel].arity && sp.n < IDX_MAX_PATHS; a++) {
                    const pat_t *ap = l->args[a];
                    if (ap->kind != PAT_FN || is_bound(ap, bound)) continue;
                    for (uint32_t q = 0; q < ap->arity && q < 255 && sp.n < IDX_MAX_PATHS; q++)
                        if (is_bound(ap->args[q], bound)) sp.path[sp.n++] = a << 8 | (q + 1);
                }
                if (sp.n) out->index_pos[k] = (int32_t)spec_id(r, &sp);
            }
            for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) mark_vars(l->args[a], bound);
        } else if (!lit_ready(r, l, bound)) {
            ok = false;
            break;
        }
    }
    if (ok)
        for (uint32_t a = 0; a < r->rels[c->head_rel].arity; a++)
            if (!all_bound(c->head[a], bound)) ok = false;
    free(bound);
    free(used);
    return ok;
}

/* Compile one flattened rule (an AST head plus a list of non-or literals). */
static void compile_flat(builder_t *b, const rule_t *src, const flat_t *f)
{
    rules_t *r = b->r;
    var_map_t vm = {0};
    crule_t c = {.src_off = src->off};
    c.head_rel = rel_of(b, src->head->sym, term_arity(src->head));
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
            cl->rel = rel_of(b, l->atom->sym, term_arity(l->atom));
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
    if (!plan_order(b, &c, UINT32_MAX, &c.plan)) {
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

static void expand(builder_t *b, const rule_t *src, uint32_t i, flat_t *f)
{
    if (i == src->n_body) {
        compile_flat(b, src, f);
        return;
    }
    const lit_t *l = src->body[i];
    if (l->kind != LIT_OR) {
        XVEC_RESERVE(&f->lits, &f->cap, f->n + 1);
        f->lits[f->n++] = l;
        expand(b, src, i + 1, f);
        f->n--;
        return;
    }
    for (uint32_t k = 0; k < l->n_disj; k++) {
        /* A nested or (never in the corpus) is flattened the same way. */
        const lit_t *dj = l->disj[k];
        uint32_t saved = f->n;
        if (dj->kind == LIT_OR) {
            for (uint32_t m = 0; m < dj->n_disj; m++) {
                XVEC_RESERVE(&f->lits, &f->cap, f->n + 1);
                f->lits[f->n++] = dj->disj[m];
                expand(b, src, i + 1, f);
                f->n = saved;
            }
            continue;
        }
        XVEC_RESERVE(&f->lits, &f->cap, f->n + 1);
        f->lits[f->n++] = dj;
        expand(b, src, i + 1, f);
        f->n = saved;
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
    plan_order(b, c, UINT32_MAX, &c->plan);
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
static void split_components(builder_t *b)
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
                XVEC_RESERVE(&r->rels, &b->cap_rels, r->n_rels + 1);
                r->rels[r->n_rels] = (crel_t){.name = SYM_NONE, .arity = n_keep, .phase = PHASE_STATIC, .has_rules = true};
                a.head_rel = r->n_rels;
                if (!plan_order(b, &a, UINT32_MAX, &a.plan)) split = false;
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
static void project_local_vars(builder_t *b)
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
            XVEC_RESERVE(&r->rels, &b->cap_rels, r->n_rels + 1);
            uint32_t aux = r->n_rels++;
            r->rels[aux] = (crel_t){.name = SYM_NONE, .arity = n_keep, .phase = PHASE_STATIC, .has_rules = true};
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
            plan_order(b, &a, UINT32_MAX, &a.plan);
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

/* ------------------------------------------------- phases and rule order */

static void compute_phases(rules_t *r, const crule_t *rules, uint32_t n)
{
    if (r->rel_true != REL_NONE) r->rels[r->rel_true].phase = PHASE_STATE;
    if (r->rel_does != REL_NONE) r->rels[r->rel_does].phase = PHASE_MOVE;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < n; i++) {
            const crule_t *c = &rules[i];
            phase_t ph = r->rels[c->head_rel].phase;
            for (uint32_t k = 0; k < c->n_body; k++)
                if (c->body[k].kind != CL_DISTINCT && r->rels[c->body[k].rel].phase > ph)
                    ph = r->rels[c->body[k].rel].phase;
            if (ph > r->rels[c->head_rel].phase) {
                r->rels[c->head_rel].phase = ph;
                changed = true;
            }
        }
    }
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

static bool order_rules(builder_t *b)
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

/* ---------------------------------------------------------------- tabling */

/* Can every rule of rel be evaluated with the arguments of mask bound?
 * Memoised per (rel, mask); a pattern being checked counts as possible
 * (recursion), which the final check of every plan (tab_verify) backs. */
static bool tab_ok(builder_t *b, uint32_t rel, uint32_t mask)
{
    for (uint32_t i = 0; i < b->n_tm; i++)
        if (b->tm[i].rel == rel && b->tm[i].mask == mask) return b->tm[i].st != TAB_BAD;
    XVEC_RESERVE(&b->tm, &b->cap_tm, b->n_tm + 1);
    uint32_t me = b->n_tm++;
    b->tm[me] = (tab_memo_t){rel, mask, TAB_BUSY};
    bool ok = true;
    for (uint32_t i = 0; i < b->n_orig_rules && ok; i++) {
        if (b->rules[i].head_rel != rel) continue;
        corder_t tmp;
        ok = plan_order_from(b, &b->rules[i], UINT32_MAX, &tmp, mask);
    }
    b->tm[me].st = ok ? TAB_OK : TAB_BAD;
    return ok;
}

static bool pat_has_marked(const pat_t *p, const bool *marked)
{
    if (p->kind == PAT_VAR) return marked[p->var];
    if (p->kind == PAT_FN && !p->ground)
        for (uint32_t i = 0; i < p->arity; i++)
            if (pat_has_marked(p->args[i], marked)) return true;
    return false;
}

/* Does literal l of rule c call back into c's component? */
static bool lit_in_scc(const builder_t *b, const crule_t *c, const clit_t *l)
{
    for (uint32_t j = 0; j < b->n_orig_rules; j++)
        if (b->rules[j].head_rel == l->rel && b->rules[j].scc == c->scc) return true;
    return false;
}

/* The non-termination signature of bottom-up evaluation: a head argument
 * is a function term holding a variable that a recursive call binds, as in
 * (append_el ?el (list ?h ?t) (list ?h ?nt)) <= ... (append_el ?el ?t ?nt). */
static bool rule_grows(const builder_t *b, const crule_t *c)
{
    if (!c->recursive) return false;
    const rules_t *r = b->r;
    bool *rec = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *rec);
    for (uint32_t k = 0; k < c->n_body; k++) {
        const clit_t *l = &c->body[k];
        if (l->kind == CL_POS && lit_in_scc(b, c, l))
            for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) mark_vars(l->args[a], rec);
    }
    bool grows = false;
    for (uint32_t a = 0; a < r->rels[c->head_rel].arity && !grows; a++)
        grows = c->head[a]->kind == PAT_FN && pat_has_marked(c->head[a], rec);
    free(rec);
    return grows;
}

/* Estimated sizes of the static relations, in evaluation order: per rule,
 * the product over its positive literals of size^(unbound share) (the
 * uniform-distribution guess of a join's fan-out). A recursive relation
 * gets the estimate of one pass: only the astronomic matter here
 * (laikLee_hex's isList: 25^25). */
/* x^f for x >= 1, 0 < f <= 1, to within a few percent (the reasoner does
 * not link libm; an estimate needs no more). */
static double pow_rough(double x, double f)
{
    double y = log2_rough(x) * f, v = 1;
    for (; y >= 1; y -= 1) v *= 2;
    return v * (1 + y);
}

static double *estimate_sizes(const builder_t *b)
{
    const rules_t *r = b->r;
    double *est = xcalloc(r->n_rels ? r->n_rels : 1, sizeof *est);
    for (uint32_t i = 0; i < b->n_orig_rules; i++) {
        const crule_t *c = &b->rules[i];
        if (r->rels[c->head_rel].phase != PHASE_STATIC) continue;
        bool *bound = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *bound);
        double e = 1;
        for (uint32_t k = 0; k < c->n_body; k++) {
            const clit_t *l = &c->body[c->plan.order[k]];
            if (l->kind != CL_POS) continue;
            uint32_t ar = r->rels[l->rel].arity, unb = 0;
            for (uint32_t a = 0; a < ar; a++) unb += !all_bound(l->args[a], bound);
            if (unb) e *= pow_rough(est[l->rel] > 1 ? est[l->rel] : 1, (double)unb / ar);
            if (e > 1e300) e = 1e300;
            for (uint32_t a = 0; a < ar; a++) mark_vars(l->args[a], bound);
        }
        est[c->head_rel] += e;
        free(bound);
    }
    return est;
}

static bool is_keyword_rel(const rules_t *r, uint32_t rel);
static void plan_uses(const rules_t *r, const crule_t *c, const corder_t *plan, uint32_t head_mask, uint32_t *mask_of);

/* The adorned copy of rel for call pattern mask, created (and queued in
 * *ad as rel, mask, copy triples) if new. */
static uint32_t adorned_rel(builder_t *b, uint32_t rel, uint32_t mask, uint32_t **ad, uint32_t *n_ad, uint32_t *cap_ad)
{
    for (uint32_t i = 0; i < *n_ad; i++)
        if ((*ad)[3 * i] == rel && (*ad)[3 * i + 1] == mask) return (*ad)[3 * i + 2];
    rules_t *r = b->r;
    XVEC_RESERVE(&r->rels, &b->cap_rels, r->n_rels + 1);
    crel_t cp = r->rels[rel];
    cp.demand = true;
    cp.demand_mask = mask;
    cp.tabled = true;
    cp.adorned = b->adorn != NULL;
    cp.replaced = false;
    cp.orig = rel;
    cp.rules_of = NULL;
    cp.n_rules_of = 0;
    r->rels[r->n_rels] = cp;
    XVEC_RESERVE(ad, cap_ad, 3 * *n_ad + 3);
    (*ad)[3 * *n_ad] = rel;
    (*ad)[3 * *n_ad + 1] = mask;
    (*ad)[3 * *n_ad + 2] = r->n_rels;
    (*n_ad)++;
    return r->n_rels++;
}

/* Redirect the goal-directed literals of rule i (evaluated with the head
 * arguments of hmask bound) to the adorned copies for the patterns its
 * plan calls them with, then plan it again. */
static bool tab_rewrite(builder_t *b, uint32_t i, uint32_t hmask, uint32_t **ad, uint32_t *n_ad, uint32_t *cap_ad)
{
    rules_t *r = b->r;
    crule_t *c = &b->rules[i];
    clit_t *body = arena_calloc(r->arena, c->n_body ? c->n_body : 1, sizeof *body);
    if (c->n_body) memcpy(body, c->body, c->n_body * sizeof *body);
    c->body = body;
    corder_t pl;
    if (!plan_order_from(b, c, UINT32_MAX, &pl, hmask)) return false;
    bool *bound = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *bound);
    for (uint32_t a = 0; a < r->rels[c->head_rel].arity && a < 32; a++)
        if (hmask >> a & 1) mark_vars(c->head[a], bound);
    for (uint32_t k = 0; k < c->n_body; k++) {
        clit_t *l = &body[pl.order[k]];
        if (l->kind == CL_DISTINCT) continue;
        if ((b->tab && b->tab[l->rel]) || (b->adorn && l->rel < b->n_late && b->adorn[l->rel])) {
            uint32_t m = bound_mask(r, l, bound);
            /* Partial adornment: a use that binds the relation's own mask
             * shares the copy for that mask when the mask holds half the
             * arguments or more, or when a bottom-up rule asks with just
             * that mask anyway: a copy per pattern would split one memo
             * into several that compute much the same answers
             * (othello's openPieceString; crissrace's movable, asked per
             * player by legal and per player and lane by movablePlayer). */
            const crel_t *R = &r->rels[l->rel];
            uint32_t dm = R->demand_mask;
            if (!(b->tab && b->tab[l->rel]) && dm && (m & dm) == dm &&
                (2 * (uint32_t)__builtin_popcount(dm) >= R->arity || (b->exact && b->exact[l->rel])))
                m = dm;
            l->rel = adorned_rel(b, l->rel, m, ad, n_ad, cap_ad);
            c = &b->rules[i];
        }
        if (l->kind == CL_POS)
            for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) mark_vars(l->args[a], bound);
    }
    free(bound);
    bool ok;
    if (hmask) {
        ok = plan_order_from(b, c, UINT32_MAX, &c->qplan, hmask);
        c->plan = c->qplan;
    } else {
        ok = plan_order(b, c, UINT32_MAX, &c->plan);
        for (uint32_t k = 0; c->delta && k < c->n_body; k++)
            if (c->body[k].kind == CL_POS && !plan_order(b, c, k, &c->delta[k])) c->delta[k] = c->plan;
    }
    return ok;
}

/* The rules of every adorned copy queued in *ad (and of those their
 * rules queue in turn): copies of the first n_orig rules of the copied
 * relation, in component scc (after every bottom-up component; never run
 * bottom-up), planned with the copy's pattern bound. False if some rule
 * cannot be planned so, or past max_copies copies. */
static bool copy_adorned_rules(builder_t *b, uint32_t n_orig, uint32_t scc, uint32_t **ad, uint32_t *n_ad,
                               uint32_t *cap_ad, uint32_t max_copies)
{
    for (uint32_t k = 0; k < *n_ad; k++) {
        if (*n_ad > max_copies) return false;
        uint32_t rel = (*ad)[3 * k], mask = (*ad)[3 * k + 1], arel = (*ad)[3 * k + 2];
        for (uint32_t j = 0; j < n_orig; j++) {
            if (b->rules[j].head_rel != rel) continue;
            crule_t cp = b->rules[j];
            cp.head_rel = arel;
            cp.recursive = false;
            cp.delta = NULL;
            cp.scc = scc;
            cp.seq = b->n_rules;
            XVEC_RESERVE(&b->rules, &b->cap_rules, b->n_rules + 1);
            b->rules[b->n_rules++] = cp;
            if (!tab_rewrite(b, b->n_rules - 1, mask, ad, n_ad, cap_ad)) return false;
        }
    }
    return true;
}

/* Static relations of more than RULES_MEMBER_BIG estimated tuples that
 * every rule asks with all arguments bound once they come last in its
 * body (rules.h, RULES_MEMBER_BIG): marked in tab, which plan_order_from
 * reads to put them last. True if any. */
static bool membership_tabling(builder_t *b, bool *tab, const double *est)
{
    rules_t *r = b->r;
    bool any = false;
    for (uint32_t x = 0; x < r->n_rels; x++) {
        const crel_t *X = &r->rels[x];
        if (tab[x] || !X->has_rules || X->phase != PHASE_STATIC || is_keyword_rel(r, x) || X->arity == 0 ||
            X->arity > 32 || !(est[x] > RULES_MEMBER_BIG))
            continue;
        uint32_t full = X->arity == 32 ? UINT32_MAX : (1u << X->arity) - 1;
        b->tab = tab;
        tab[x] = true;
        b->n_tm = 0;
        bool ok = tab_ok(b, x, full);
        for (uint32_t i = 0; i < b->n_rules && ok; i++) {
            crule_t *c = &b->rules[i];
            bool uses = false;
            for (uint32_t k = 0; k < c->n_body; k++) uses |= c->body[k].kind != CL_DISTINCT && c->body[k].rel == x;
            if (!uses || c->head_rel == x) continue;
            uint32_t *mask = xmalloc(r->n_rels * sizeof *mask);
            for (uint32_t j = 0; j < r->n_rels; j++) mask[j] = UINT32_MAX;
            corder_t pl;
            ok = !tab[c->head_rel] && plan_order_from(b, c, UINT32_MAX, &pl, 0);
            if (ok) plan_uses(r, c, &pl, 0, mask);
            ok = ok && (mask[x] & full) == full;
            free(mask);
        }
        tab[x] = ok;
        any |= ok;
    }
    b->tab = NULL;
    free(b->tm);
    b->tm = NULL;
    b->n_tm = b->cap_tm = 0;
    return any;
}

/* Decide which relations are evaluated goal-directed (rules.h, tabling),
 * make their adorned copies and redirect every use to them. */
static void compute_tabling(builder_t *b)
{
    rules_t *r = b->r;
    b->n_orig_rules = b->n_rules;
    uint32_t n_rels0 = r->n_rels;
    bool *tab = xcalloc(r->n_rels ? r->n_rels : 1, sizeof *tab);
    double *est = estimate_sizes(b);
    bool any = false;
    /* The relaxed program (the grounder) has no goal-directed relation but
     * the membership ones below. */
    for (uint32_t i = 0; i < b->n_rules && !r->relaxed; i++) {
        const crule_t *c = &b->rules[i];
        uint32_t h = c->head_rel;
        if (tab[h] || is_keyword_rel(r, h) || r->rels[h].arity == 0 || r->rels[h].arity > 32) continue;
        if (rule_grows(b, c) || (r->rels[h].phase == PHASE_STATIC && est[h] > RULES_HUGE)) any = tab[h] = true;
    }
    r->infinite = any;
    any |= membership_tabling(b, tab, est);
    free(est);
    if (!any) {
        free(tab);
        return;
    }
    b->tab = tab;
    /* Close: a component is goal-directed as a whole (a memo of a call
     * cannot follow a relation that is still growing bottom-up), and a
     * rule that cannot reach its goal-directed literals with enough bound
     * arguments makes its head goal-directed. */
    bool give_up = false;
    for (bool changed = true; changed && !give_up;) {
        changed = false;
        b->n_tm = 0;
        for (uint32_t i = 0; i < b->n_rules; i++) {
            if (!tab[b->rules[i].head_rel] || !b->rules[i].recursive) continue;
            for (uint32_t j = 0; j < b->n_rules; j++)
                if (b->rules[j].scc == b->rules[i].scc && !tab[b->rules[j].head_rel]) {
                    tab[b->rules[j].head_rel] = true;
                    changed = true;
                }
        }
        for (uint32_t i = 0; i < b->n_rules && !give_up; i++) {
            crule_t *c = &b->rules[i];
            if (tab[c->head_rel]) continue;
            corder_t tmp;
            if (plan_order_from(b, c, UINT32_MAX, &tmp, 0)) continue;
            uint32_t h = c->head_rel;
            if (is_keyword_rel(r, h) || r->rels[h].arity == 0 || r->rels[h].arity > 32) give_up = true;
            tab[h] = true;
            changed = true;
        }
    }
    for (uint32_t i = 0; i < b->n_rules && !give_up; i++) {
        uint32_t h = b->rules[i].head_rel;
        if (tab[h] && (is_keyword_rel(r, h) || b->rules[i].bridge || (r->relaxed && r->rels[h].phase != PHASE_STATIC)))
            give_up = true;
    }
    if (give_up) { /* left to bottom-up evaluation and its budget */
        r->infinite = false;
        b->tab = NULL;
        free(tab);
        free(b->tm);
        b->tm = NULL;
        b->n_tm = b->cap_tm = 0;
        return;
    }
    uint32_t *ad = NULL, n_ad = 0, cap_ad = 0;
    uint32_t n_orig = b->n_rules;
    for (uint32_t i = 0; i < n_orig; i++)
        if (!tab[b->rules[i].head_rel] && !tab_rewrite(b, i, 0, &ad, &n_ad, &cap_ad)) give_up = true;
    uint32_t scc = r->n_sccs;
    if (!give_up && !copy_adorned_rules(b, n_orig, scc, &ad, &n_ad, &cap_ad, UINT32_MAX)) give_up = true;
    free(ad);
    if (give_up) {
        diag_error(b->d, b->p->src, 0, "internal: a goal-directed relation cannot be planned with its bound arguments");
        b->errors++;
    }
    for (uint32_t i = 0; i < n_rels0; i++) /* tab covers the relations before the copies */
        if (tab[i]) {
            r->rels[i].replaced = true;
            r->rels[i].demand = true;
            r->rels[i].demand_mask = 0;
        }
    r->n_sccs = scc + 1;
    b->tab = NULL;
    free(tab);
    free(b->tm);
    b->tm = NULL;
    b->n_tm = b->cap_tm = 0;
}

/* ----------------------------------------------------------------- demand */

/* Argument positions of each literal bound when the plan reaches it, as a
 * mask; calls fn(rel, mask) for every relational literal. */
static void plan_uses(const rules_t *r, const crule_t *c, const corder_t *plan, uint32_t head_mask, uint32_t *mask_of)
{
    bool *bound = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *bound);
    for (uint32_t a = 0; a < r->rels[c->head_rel].arity && a < 32; a++)
        if (head_mask >> a & 1) mark_vars(c->head[a], bound);
    for (uint32_t k = 0; k < c->n_body; k++) {
        const clit_t *l = &c->body[plan->order[k]];
        if (l->kind == CL_DISTINCT) continue;
        uint32_t ar = r->rels[l->rel].arity, m = 0;
        for (uint32_t a = 0; a < ar && a < 32; a++)
            if (all_bound(l->args[a], bound)) m |= 1u << a;
        mask_of[l->rel] &= m;
        if (l->kind == CL_POS)
            for (uint32_t a = 0; a < ar; a++) mark_vars(l->args[a], bound);
    }
    free(bound);
}

static bool is_keyword_rel(const rules_t *r, uint32_t rel)
{
    return rel == r->rel_role || rel == r->rel_init || rel == r->rel_true || rel == r->rel_does ||
           rel == r->rel_next || rel == r->rel_legal || rel == r->rel_goal || rel == r->rel_terminal ||
           r->rels[rel].name == SYM_BASE || r->rels[rel].name == SYM_INPUT;
}

/* Partial demand with one adorned copy per call pattern (rules.h
 * RULES_PARTIAL). The masks of compute_demand are one per relation: the
 * positions that every use binds. A relation asked in several ways then
 * gets little: chess's clear_row_ig is asked forwards (from the square
 * moved from) and backwards (towards the king), and what both bind is only
 * the ignore square, so each call computes the rays of the whole board.
 * Here every evaluated rule (bottom-up, hmask 0) calls each demand
 * relation through the copy for the pattern its plan binds there
 * (magic-sets adornment, the tabling machinery of compute_tabling: a
 * copy's rules are planned with its pattern bound and call on through
 * copies in turn). The originals stay as compute_demand made them, for the
 * goal-directed rules of compute_tabling that still call them. If some
 * plan cannot be made, the program is left as it was. cand: the demand
 * relations of compute_demand. */
static double *estimate_sizes(const builder_t *b);

/* The relations of b->adorn that some bottom-up rule (one of the first n)
 * asks with exactly their mask (see tab_rewrite). */
static bool *exact_uses(builder_t *b, uint32_t n)
{
    rules_t *r = b->r;
    bool *exact = xcalloc(b->n_late ? b->n_late : 1, sizeof *exact);
    for (uint32_t i = 0; i < n; i++) {
        crule_t *c = &b->rules[i];
        const crel_t *h = &r->rels[c->head_rel];
        corder_t pl;
        if (h->demand || h->tabled || h->replaced || !plan_order_from(b, c, UINT32_MAX, &pl, 0)) continue;
        bool *bound = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *bound);
        for (uint32_t k = 0; k < c->n_body; k++) {
            const clit_t *l = &c->body[pl.order[k]];
            if (l->kind == CL_DISTINCT) continue;
            if (l->rel < b->n_late && b->adorn[l->rel] && bound_mask(r, l, bound) == r->rels[l->rel].demand_mask)
                exact[l->rel] = true;
            if (l->kind == CL_POS)
                for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) mark_vars(l->args[a], bound);
        }
        free(bound);
    }
    return exact;
}

static void adorn_partial(builder_t *b, bool *cand)
{
    rules_t *r = b->r;
    b->rules = r->rules;
    b->n_rules = r->n_rules;
    uint32_t n_orig = b->n_rules, n_rels0 = r->n_rels, n_specs0 = r->n_specs, n_sccs0 = r->n_sccs;
    bool any = false;
    for (uint32_t i = 0; i < n_rels0; i++) any |= cand[i];
    if (!any || n_orig == 0) return;
    crule_t *saved = xmalloc(n_orig * sizeof *saved);
    memcpy(saved, b->rules, n_orig * sizeof *saved);
    b->adorn = cand;
    b->n_orig_rules = n_orig;
    b->est = estimate_sizes(b);
    b->exact = exact_uses(b, n_orig);
    b->n_tm = 0;
    uint32_t *ad = NULL, n_ad = 0, cap_ad = 0;
    bool ok = true;
    for (uint32_t i = 0; i < n_orig && ok; i++) {
        crule_t *c = &b->rules[i];
        const crel_t *h = &r->rels[c->head_rel];
        if (h->demand || h->tabled || h->replaced) continue; /* asked, not evaluated bottom-up */
        if (c->delta) { /* tab_rewrite plans into it: the saved rule keeps its own */
            corder_t *d = arena_calloc(r->arena, c->n_body ? c->n_body : 1, sizeof *d);
            memcpy(d, c->delta, c->n_body * sizeof *d);
            c->delta = d;
        }
        ok = tab_rewrite(b, i, 0, &ad, &n_ad, &cap_ad);
    }
    uint32_t scc = r->n_sccs;
    /* Patterns could multiply (up to 2^arity per relation): past a few
     * copies per relation the program is left as it was. */
    ok = ok && copy_adorned_rules(b, n_orig, scc, &ad, &n_ad, &cap_ad, 4 * n_rels0 + 64);
    free(ad);
    if (ok && n_ad) {
        r->n_sccs = scc + 1;
    } else { /* as compute_demand left it */
        memcpy(b->rules, saved, n_orig * sizeof *saved);
        b->n_rules = n_orig;
        r->n_rels = n_rels0;
        r->n_specs = n_specs0;
        r->n_sccs = n_sccs0;
    }
    r->rules = b->rules;
    r->n_rules = b->n_rules;
    free(saved);
    free(b->est);
    b->est = NULL;
    free(b->exact);
    b->exact = NULL;
    b->adorn = NULL;
    free(b->tm);
    b->tm = NULL;
    b->n_tm = b->cap_tm = 0;
}

/* The rules of each demand relation, which its calls run (eval.c). */
static void link_rules_of(rules_t *r)
{
    for (uint32_t i = 0; i < r->n_rules; i++) {
        crel_t *h = &r->rels[r->rules[i].head_rel];
        if (!h->demand || h->replaced) continue;
        h->rules_of = xreallocarray(h->rules_of, h->n_rules_of + 1, sizeof *h->rules_of);
        h->rules_of[h->n_rules_of++] = i;
    }
}

static void compute_demand(builder_t *b, unsigned flags)
{
    rules_t *r = b->r;
    bool partial = (flags & RULES_PARTIAL) != 0;
    bool *cand = xcalloc(r->n_rels ? r->n_rels : 1, sizeof *cand);
    uint32_t *mask = xmalloc((r->n_rels ? r->n_rels : 1) * sizeof *mask);
    for (uint32_t i = 0; i < r->n_rels; i++)
        cand[i] = r->rels[i].has_rules && r->rels[i].phase != PHASE_STATIC && !is_keyword_rel(r, i) &&
                  r->rels[i].arity > 0 && r->rels[i].arity <= 32 && !r->rels[i].tabled && !r->rels[i].replaced;
    /* Optimistic start: every candidate is asked with all its arguments
     * bound, and the masks only shrink (the greatest fixpoint). */
    for (uint32_t i = 0; i < r->n_rels; i++)
        if (cand[i] && partial) r->rels[i].demand_mask = r->rels[i].arity == 32 ? UINT32_MAX : (1u << r->rels[i].arity) - 1;
    if (partial) {
        b->late = cand;
        b->n_late = r->n_rels;
    }
    bool *bad_scc = xcalloc(r->n_sccs + 1, sizeof *bad_scc);
    bool *outside = xcalloc(r->n_rels ? r->n_rels : 1, sizeof *outside);
    /* Shrink the candidates until every use of each binds its mask. */
    for (bool changed = true; changed;) {
        changed = false;
        /* Recursive relations too (the calls are tabled, eval.c), but a
         * component is evaluated one way: a memoised call cannot follow a
         * relation of its own component that is still growing bottom-up. */
        memset(bad_scc, 0, (r->n_sccs + 1) * sizeof *bad_scc);
        for (uint32_t i = 0; i < r->n_rules; i++)
            if (!cand[r->rules[i].head_rel] && r->rules[i].scc <= r->n_sccs) bad_scc[r->rules[i].scc] = true;
        for (uint32_t i = 0; i < r->n_rules; i++) {
            const crule_t *c = &r->rules[i];
            if (c->recursive && cand[c->head_rel] && bad_scc[c->scc]) {
                cand[c->head_rel] = false;
                changed = true;
            }
        }
        for (uint32_t i = 0; i < r->n_rels; i++) mask[i] = UINT32_MAX;
        for (uint32_t i = 0; i < r->n_rules; i++) {
            crule_t *c = &r->rules[i];
            const crel_t *h = &r->rels[c->head_rel];
            if (h->replaced) continue; /* never evaluated */
            if (h->tabled) {
                plan_uses(r, c, &c->qplan, h->demand_mask, mask);
            } else if (cand[c->head_rel]) {
                uint32_t hm = r->rels[c->head_rel].demand_mask;
                plan_order_from(b, c, UINT32_MAX, &c->qplan, hm);
                plan_uses(r, c, &c->qplan, hm, mask);
            } else {
                if (partial) {
                    plan_order(b, c, UINT32_MAX, &c->plan);
                    for (uint32_t k = 0; c->delta && k < c->n_body; k++)
                        if (c->body[k].kind == CL_POS && c->delta[k].order && !plan_order(b, c, k, &c->delta[k]))
                            c->delta[k] = c->plan;
                }
                plan_uses(r, c, &c->plan, 0, mask);
                for (uint32_t k = 0; c->delta && k < c->n_body; k++)
                    if (c->delta[k].order) plan_uses(r, c, &c->delta[k], 0, mask);
            }
        }
        /* relations used by some rule outside the move phase */
        memset(outside, 0, r->n_rels * sizeof *outside);
        for (uint32_t i = 0; i < r->n_rules; i++) {
            const crule_t *c = &r->rules[i];
            if (r->rels[c->head_rel].replaced || r->rels[c->head_rel].phase == PHASE_MOVE) continue;
            for (uint32_t k = 0; k < c->n_body; k++)
                if (c->body[k].kind != CL_DISTINCT) outside[c->body[k].rel] = true;
        }
        for (uint32_t i = 0; i < r->n_rels; i++) {
            if (!cand[i]) continue;
            uint32_t full = r->rels[i].arity == 32 ? UINT32_MAX : (1u << r->rels[i].arity) - 1;
            uint32_t m = mask[i] & full;
            if (partial) m &= r->rels[i].demand_mask; /* only shrinks: the loop ends */
            /* Membership queries (every argument given), or any bound
             * argument when only the move phase asks: with fewer arguments
             * bound, evaluating each call separately loses the sharing of
             * bottom-up evaluation (chess: queen moves from each square,
             * asked once per square), but a joint move asks few questions
             * of a relation that bottom-up computes for every argument
             * (mummymaze1p: movetoward, 1.2 million tuples per state, of
             * which the mummy's move needs two). RULES_PARTIAL drops
             * the move-phase condition (rules.h). */
            if (m != full && (m == 0 || (outside[i] && !partial))) {
                cand[i] = false;
                changed = true;
            } else if (m != r->rels[i].demand_mask) {
                r->rels[i].demand_mask = m;
                changed = true;
            }
        }
    }
    for (uint32_t i = 0; i < r->n_rels; i++) {
        if (r->rels[i].tabled || r->rels[i].replaced) continue;
        r->rels[i].demand = cand[i];
        if (!cand[i]) r->rels[i].demand_mask = 0;
    }
    if (partial) adorn_partial(b, cand);
    b->late = NULL;
    link_rules_of(r);
    free(cand);
    free(mask);
    free(bad_scc);
    free(outside);
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
    plan_order(b, &c, UINT32_MAX, &c.plan);
    r->rels[head_rel].has_rules = true;
    c.seq = b->n_rules;
    XVEC_RESERVE(&b->rules, &b->cap_rules, b->n_rules + 1);
    b->rules[b->n_rules++] = c;
}

rules_t *rules_compile(const program_t *p, term_store_t *ts, diag_t *d, unsigned flags)
{
    rules_t *r = xcalloc(1, sizeof *r);
    r->ts = ts;
    r->syms = p->syms;
    r->arena = arena_new(1 << 16);
    builder_t b = {.r = r, .p = p, .d = d};
    r->relaxed = (flags & RULES_RELAXED) != 0;
    /* Keyword relations first, so that they exist even when unused. */
    r->rel_role = rel_of(&b, SYM_ROLE, 1);
    r->rel_init = rel_of(&b, SYM_INIT, 1);
    r->rel_true = rel_of(&b, SYM_TRUE, 1);
    r->rel_does = rel_of(&b, SYM_DOES, 2);
    r->rel_next = rel_of(&b, SYM_NEXT, 1);
    r->rel_legal = rel_of(&b, SYM_LEGAL, 2);
    r->rel_goal = rel_of(&b, SYM_GOAL, 2);
    r->rel_terminal = rel_of(&b, SYM_TERMINAL, 0);
    uint32_t cap_roles = 0;
    flat_t f = {0};
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
        f.n = 0;
        expand(&b, src, 0, &f);
    }
    free(f.lits);
    if (b.errors == 0) split_components(&b);
    if (b.errors == 0) project_local_vars(&b);
    compute_phases(r, b.rules, b.n_rules);
    if (flags & RULES_RELAXED) {
        add_bridge(&b, r->rel_true, r->rel_init);
        add_bridge(&b, r->rel_true, r->rel_next);
        add_bridge(&b, r->rel_does, r->rel_legal);
    }
    if (b.errors == 0) order_rules(&b);
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
                if (!plan_order(&b, c, k, &c->delta[k])) c->delta[k] = c->plan;
            }
        }
        if (flags & RULES_DEMAND) {
            b.rules = r->rules;
            if (!(flags & RULES_NO_TABLING)) compute_tabling(&b);
            r->rules = b.rules;
            r->n_rules = b.n_rules;
            if (b.errors == 0) compute_demand(&b, flags);
        } else if (flags & RULES_RELAXED) { /* huge membership relations only */
            b.rules = r->rules;
            compute_tabling(&b);
            r->rules = b.rules;
            r->n_rules = b.n_rules;
            if (b.errors == 0) link_rules_of(r);
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
