/* rules_plan.c - the order in which a rule body is evaluated, its index
 * paths, and the size estimates of static relations that weigh it (see
 * rules_internal.h). */
#include "reasoner/rules_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* The weights of rb_plan_order_from's choice of the next positive literal
 * (the highest score goes first). Each rule is orders of magnitude above
 * the ones it must override: a membership test beats everything but a
 * goal-directed call, a bound argument beats any number of subterms. */
#define PLAN_ALL_BOUND 1000000L  /* every argument bound: a membership test */
#define PLAN_DOES 500000L        /* does (or a projection of it) in a state */
#define PLAN_BOUND_ARG 1000L     /* per argument wholly bound */
#define PLAN_BOUND_SUBARG 300L   /* per bound argument of a partly free function term */
#define PLAN_FRESH_VAR 1L        /* a cost per variable it binds */
#define PLAN_TABLED_FREE 100000000L /* a cost: a goal-directed call with free arguments */
#define PLAN_DEMAND_UNBOUND 50000L  /* a cost: a demand call binding less than it is asked with */
#define PLAN_MAGIC (10 * PLAN_ALL_BOUND) /* a magic literal (rules_magic.c): first */
/* Partial adornment: a static probe costs PLAN_PER_DOUBLING per doubling
 * of its estimated fan-out past 2^PLAN_CHEAP_FANOUT_LG2, and a demand call
 * a guessed fan-out of 8 (three doublings) per argument it leaves free. */
#define PLAN_PER_DOUBLING 300L
#define PLAN_CHEAP_FANOUT_LG2 2
#define PLAN_DEMAND_FREE_ARG (3 * PLAN_PER_DOUBLING)

void rb_mark_vars(const pat_t *p, bool *bound)
{
    if (p->kind == PAT_VAR) bound[p->var] = true;
    else if (p->kind == PAT_FN && !p->ground)
        for (uint32_t i = 0; i < p->arity; i++) rb_mark_vars(p->args[i], bound);
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
uint32_t rb_bound_mask(const rules_t *r, const clit_t *l, const bool *bound)
{
    uint32_t m = 0;
    for (uint32_t a = 0; a < r->rels[l->rel].arity && a < 32; a++)
        if (all_bound(l->args[a], bound)) m |= 1u << a;
    return m;
}

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

/* x^f for x >= 1, 0 < f <= 1, to within a few percent (the reasoner does
 * not link libm; an estimate needs no more). */
static double pow_rough(double x, double f)
{
    double y = log2_rough(x) * f, v = 1;
    for (; y >= 1; y -= 1) v *= 2;
    return v * (1 + y);
}

/* A literal of a goal-directed relation can only be evaluated with some
 * arguments bound: an adorned copy with (at least) its pattern, an
 * original with a pattern that can itself be evaluated (rb_tab_ok). */
static bool tab_lit_ok(builder_t *b, const clit_t *l, const bool *bound)
{
    const crel_t *R = &b->r->rels[l->rel];
    if (R->tabled) return (rb_bound_mask(b->r, l, bound) & R->demand_mask) == R->demand_mask;
    if (!b->tab || !b->tab[l->rel]) return true;
    uint32_t m = rb_bound_mask(b->r, l, bound);
    return m != 0 && rb_tab_ok(b, l->rel, m);
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
bool rb_plan_order(builder_t *b, crule_t *c, uint32_t first, corder_t *out)
{
    return rb_plan_order_from(b, c, first, out, 0);
}

/* head_mask: head argument positions whose variables are bound on entry
 * (a demand query). */
bool rb_plan_order_from(builder_t *b, crule_t *c, uint32_t first, corder_t *out, uint32_t head_mask)
{
    rules_t *r = b->r;
    uint32_t n = c->n_body;
    out->order = arena_calloc(r->arena, n ? n : 1, sizeof *out->order);
    out->index_pos = arena_calloc(r->arena, n ? n : 1, sizeof *out->index_pos);
    bool *bound = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *bound);
    for (uint32_t a = 0; a < r->rels[c->head_rel].arity && a < 32; a++)
        if (head_mask >> a & 1) rb_mark_vars(c->head[a], bound);
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
                long score = (long)bnd * PLAN_BOUND_ARG + (long)sub * PLAN_BOUND_SUBARG - (long)fresh * PLAN_FRESH_VAR +
                             (ar == bnd ? PLAN_ALL_BOUND : 0) +
                             ((l->rel == r->rel_does || r->rels[l->rel].from_does) && !r->relaxed ? PLAN_DOES : 0);
                /* A goal-directed call with free arguments may have a huge
                 * answer set (len(?l, 6): every list of length 6): it comes
                 * after every other generator, with as much bound as can be. */
                const crel_t *L = &r->rels[l->rel];
                /* A magic literal (rules_magic.c) is what restricts the rule
                 * to the calls made of its head: it comes first. */
                if (L->magic) score += PLAN_MAGIC;
                if (ar != bnd && ((L->tabled && !L->adorned) || (b->tab && b->tab[l->rel]))) score -= PLAN_TABLED_FREE;
                /* A demand call that would bind fewer arguments than its
                 * relation is asked with (partial demand, rb_compute_demand)
                 * comes after the literals that can bind them: the masks
                 * start full and shrink to what the plans bind. */
                else if (ar != bnd && ((b->late && l->rel < b->n_late && b->late[l->rel]) || L->adorned) &&
                         (rb_bound_mask(r, l, bound) & L->demand_mask) != L->demand_mask)
                    score -= PLAN_DEMAND_UNBOUND;
                /* and a call of a view with magic sets, after the literals
                 * that bind what its magic relation is asked with */
                else if (ar != bnd && L->magic_mask && (rb_bound_mask(r, l, bound) & L->magic_mask) != L->magic_mask)
                    score -= PLAN_DEMAND_UNBOUND;
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
                        if (lg > PLAN_CHEAP_FANOUT_LG2)
                            score -= (long)(PLAN_PER_DOUBLING * (lg - PLAN_CHEAP_FANOUT_LG2));
                    } else if (L->demand || L->tabled) {
                        score -= PLAN_DEMAND_FREE_ARG * (long)(ar - bnd);
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
            for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) rb_mark_vars(l->args[a], bound);
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

/* Estimated sizes of the static relations, in evaluation order: per rule,
 * the product over its positive literals of size^(unbound share) (the
 * uniform-distribution guess of a join's fan-out). A recursive relation
 * gets the estimate of one pass: only the astronomic matter here
 * (laikLee_hex's isList: 25^25). */
double *rb_estimate_sizes(const builder_t *b)
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
            for (uint32_t a = 0; a < ar; a++) rb_mark_vars(l->args[a], bound);
        }
        est[c->head_rel] += e;
        free(bound);
    }
    return est;
}

/* Argument positions of each literal bound when the plan reaches it, as a
 * mask: mask_of[rel] keeps (ANDs in) those bound at every use of rel. */
void rb_plan_uses(const rules_t *r, const crule_t *c, const corder_t *plan, uint32_t head_mask, uint32_t *mask_of)
{
    bool *bound = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *bound);
    for (uint32_t a = 0; a < r->rels[c->head_rel].arity && a < 32; a++)
        if (head_mask >> a & 1) rb_mark_vars(c->head[a], bound);
    for (uint32_t k = 0; k < c->n_body; k++) {
        const clit_t *l = &c->body[plan->order[k]];
        if (l->kind == CL_DISTINCT) continue;
        uint32_t ar = r->rels[l->rel].arity, m = 0;
        for (uint32_t a = 0; a < ar && a < 32; a++)
            if (all_bound(l->args[a], bound)) m |= 1u << a;
        mask_of[l->rel] &= m;
        if (l->kind == CL_POS)
            for (uint32_t a = 0; a < ar; a++) rb_mark_vars(l->args[a], bound);
    }
    free(bound);
}
