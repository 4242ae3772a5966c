/* rules_demand.c - demand evaluation: relations asked with some arguments
 * bound rather than computed, and their adorned copies per call pattern
 * (rules.h RULES_DEMAND, RULES_PARTIAL; see rules_internal.h). */
#include "reasoner/rules_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"


/* The GDL keywords' relations (and base, input): tabling and demand
 * leave them as they are. */
bool rb_is_keyword_rel(const rules_t *r, uint32_t rel)
{
    return rel == r->rel_role || rel == r->rel_init || rel == r->rel_true || rel == r->rel_does ||
           rel == r->rel_next || rel == r->rel_legal || rel == r->rel_goal || rel == r->rel_terminal ||
           r->rels[rel].name == SYM_BASE || r->rels[rel].name == SYM_INPUT;
}

/* The relations of b->adorn that some bottom-up rule (one of the first n)
 * asks with exactly their mask (see rb_tab_rewrite). */
static bool *exact_uses(builder_t *b, uint32_t n)
{
    rules_t *r = b->r;
    bool *exact = xcalloc(b->n_late ? b->n_late : 1, sizeof *exact);
    for (uint32_t i = 0; i < n; i++) {
        crule_t *c = &b->rules[i];
        const crel_t *h = &r->rels[c->head_rel];
        corder_t pl;
        if (h->demand || h->tabled || h->replaced || !rb_plan_order_from(b, c, UINT32_MAX, &pl, 0)) continue;
        bool *bound = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *bound);
        for (uint32_t k = 0; k < c->n_body; k++) {
            const clit_t *l = &c->body[pl.order[k]];
            if (l->kind == CL_DISTINCT) continue;
            if (l->rel < b->n_late && b->adorn[l->rel] && rb_bound_mask(r, l, bound) == r->rels[l->rel].demand_mask)
                exact[l->rel] = true;
            if (l->kind == CL_POS)
                for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) rb_mark_vars(l->args[a], bound);
        }
        free(bound);
    }
    return exact;
}

/* Partial demand with one adorned copy per call pattern (rules.h
 * RULES_PARTIAL). The masks of rb_compute_demand are one per relation: the
 * positions that every use binds. A relation asked in several ways then
 * gets little: chess's clear_row_ig is asked forwards (from the square
 * moved from) and backwards (towards the king), and what both bind is only
 * the ignore square, so each call computes the rays of the whole board.
 * Here every evaluated rule (bottom-up, hmask 0) calls each demand
 * relation through the copy for the pattern its plan binds there
 * (magic-sets adornment, the tabling machinery of rb_compute_tabling: a
 * copy's rules are planned with its pattern bound and call on through
 * copies in turn). The originals stay as rb_compute_demand made them, for the
 * goal-directed rules of rb_compute_tabling that still call them. If some
 * plan cannot be made, the program is left as it was. cand: the demand
 * relations of rb_compute_demand. */
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
    b->est = rb_estimate_sizes(b);
    b->exact = exact_uses(b, n_orig);
    b->n_tm = 0;
    uint32_t *ad = NULL, n_ad = 0, cap_ad = 0;
    bool ok = true;
    for (uint32_t i = 0; i < n_orig && ok; i++) {
        crule_t *c = &b->rules[i];
        const crel_t *h = &r->rels[c->head_rel];
        if (h->demand || h->tabled || h->replaced) continue; /* asked, not evaluated bottom-up */
        if (c->delta) { /* rb_tab_rewrite plans into it: the saved rule keeps its own */
            corder_t *d = arena_calloc(r->arena, c->n_body ? c->n_body : 1, sizeof *d);
            memcpy(d, c->delta, c->n_body * sizeof *d);
            c->delta = d;
        }
        ok = rb_tab_rewrite(b, i, 0, &ad, &n_ad, &cap_ad);
    }
    uint32_t scc = r->n_sccs;
    /* Patterns could multiply (up to 2^arity per relation): past a few
     * copies per relation the program is left as it was. */
    ok = ok && rb_copy_adorned_rules(b, n_orig, scc, &ad, &n_ad, &cap_ad, 4 * n_rels0 + 64);
    free(ad);
    if (ok && n_ad) {
        r->n_sccs = scc + 1;
    } else { /* as rb_compute_demand left it */
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
void rb_link_rules_of(rules_t *r)
{
    for (uint32_t i = 0; i < r->n_rules; i++) {
        crel_t *h = &r->rels[r->rules[i].head_rel];
        if (!h->demand || h->replaced) continue;
        h->rules_of = xreallocarray(h->rules_of, h->n_rules_of + 1, sizeof *h->rules_of);
        h->rules_of[h->n_rules_of++] = i;
    }
}

void rb_compute_demand(builder_t *b, unsigned flags)
{
    rules_t *r = b->r;
    bool partial = (flags & RULES_PARTIAL) != 0;
    bool *cand = xcalloc(r->n_rels ? r->n_rels : 1, sizeof *cand);
    uint32_t *mask = xmalloc((r->n_rels ? r->n_rels : 1) * sizeof *mask);
    for (uint32_t i = 0; i < r->n_rels; i++)
        cand[i] = r->rels[i].has_rules && r->rels[i].phase != PHASE_STATIC && !rb_is_keyword_rel(r, i) &&
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
                rb_plan_uses(r, c, &c->qplan, h->demand_mask, mask);
            } else if (cand[c->head_rel]) {
                uint32_t hm = r->rels[c->head_rel].demand_mask;
                rb_plan_order_from(b, c, UINT32_MAX, &c->qplan, hm);
                rb_plan_uses(r, c, &c->qplan, hm, mask);
            } else {
                if (partial) {
                    rb_plan_order(b, c, UINT32_MAX, &c->plan);
                    for (uint32_t k = 0; c->delta && k < c->n_body; k++)
                        if (c->body[k].kind == CL_POS && c->delta[k].order && !rb_plan_order(b, c, k, &c->delta[k]))
                            c->delta[k] = c->plan;
                }
                rb_plan_uses(r, c, &c->plan, 0, mask);
                for (uint32_t k = 0; c->delta && k < c->n_body; k++)
                    if (c->delta[k].order) rb_plan_uses(r, c, &c->delta[k], 0, mask);
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
    rb_link_rules_of(r);
    free(cand);
    free(mask);
    free(bad_scc);
    free(outside);
}
