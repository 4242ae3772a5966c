/* rules_tabling.c - goal-directed evaluation of the relations that are
 * infinite bottom-up (rules.h, "tabling"; see rules_internal.h). */
#include "reasoner/rules_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"


/* Can every rule of rel be evaluated with the arguments of mask bound?
 * Memoised per (rel, mask); a pattern being checked counts as possible
 * (recursion); the plans made with it are checked again when the copies
 * are planned (rb_copy_adorned_rules). */
bool rb_tab_ok(builder_t *b, uint32_t rel, uint32_t mask)
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
        ok = rb_plan_order_from(b, &b->rules[i], UINT32_MAX, &tmp, mask);
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
            for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) rb_mark_vars(l->args[a], rec);
    }
    bool grows = false;
    for (uint32_t a = 0; a < r->rels[c->head_rel].arity && !grows; a++)
        grows = c->head[a]->kind == PAT_FN && pat_has_marked(c->head[a], rec);
    free(rec);
    return grows;
}

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
    /* asked on demand: not a relation the static phase measures (a
     * copy's id, blamed, would mean nothing to the next compile) */
    cp.member = false;
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
bool rb_tab_rewrite(builder_t *b, uint32_t i, uint32_t hmask, uint32_t **ad, uint32_t *n_ad, uint32_t *cap_ad)
{
    rules_t *r = b->r;
    crule_t *c = &b->rules[i];
    clit_t *body = arena_calloc(r->arena, c->n_body ? c->n_body : 1, sizeof *body);
    if (c->n_body) memcpy(body, c->body, c->n_body * sizeof *body);
    c->body = body;
    corder_t pl;
    if (!rb_plan_order_from(b, c, UINT32_MAX, &pl, hmask)) return false;
    bool *bound = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *bound);
    for (uint32_t a = 0; a < r->rels[c->head_rel].arity && a < 32; a++)
        if (hmask >> a & 1) rb_mark_vars(c->head[a], bound);
    for (uint32_t k = 0; k < c->n_body; k++) {
        clit_t *l = &body[pl.order[k]];
        if (l->kind == CL_DISTINCT) continue;
        if ((b->tab && b->tab[l->rel]) || (b->adorn && l->rel < b->n_late && b->adorn[l->rel])) {
            uint32_t m = rb_bound_mask(r, l, bound);
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
            for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) rb_mark_vars(l->args[a], bound);
    }
    free(bound);
    bool ok;
    if (hmask) {
        ok = rb_plan_order_from(b, c, UINT32_MAX, &c->qplan, hmask);
        c->plan = c->qplan;
    } else {
        ok = rb_plan_order(b, c, UINT32_MAX, &c->plan);
        for (uint32_t k = 0; c->delta && k < c->n_body; k++)
            if (c->body[k].kind == CL_POS && !rb_plan_order(b, c, k, &c->delta[k])) c->delta[k] = c->plan;
    }
    return ok;
}

/* The rules of every adorned copy queued in *ad (and of those their
 * rules queue in turn): copies of the first n_orig rules of the copied
 * relation, in component scc (after every bottom-up component; never run
 * bottom-up), planned with the copy's pattern bound. False if some rule
 * cannot be planned so, or past max_copies copies. */
bool rb_copy_adorned_rules(builder_t *b, uint32_t n_orig, uint32_t scc, uint32_t **ad, uint32_t *n_ad,
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
            if (!rb_tab_rewrite(b, b->n_rules - 1, mask, ad, n_ad, cap_ad)) return false;
        }
    }
    return true;
}

static bool forced_member(const builder_t *b, uint32_t x)
{
    for (uint32_t i = 0; i < b->n_force_member; i++)
        if (b->force_member[i] == x) return true;
    return false;
}

/* Static relations that every rule asks with all arguments bound once
 * they come last in its body (rules.h, RULES_MEMBER_BIG): marked in tab,
 * which rb_plan_order_from reads to put them last, when their estimated
 * size exceeds RULES_MEMBER_BIG or the caller measured them larger
 * (b->force_member); the others are marked crel_t member, for the static
 * phase to measure: an estimate can be far too low (a recursive index:
 * tests/reasoner/huge_member_low.kif), and computing a relation in full
 * for membership tests alone is only worth it while it is small (issue
 * 13 item 4). True if any is marked in tab. */
static bool membership_tabling(builder_t *b, bool *tab, const double *est)
{
    rules_t *r = b->r;
    bool any = false;
    for (uint32_t x = 0; x < r->n_rels; x++) {
        crel_t *X = &r->rels[x];
        if (tab[x] || !X->has_rules || X->phase != PHASE_STATIC || rb_is_keyword_rel(r, x) || X->arity == 0 ||
            X->arity > 32)
            continue;
        uint32_t full = X->arity == 32 ? UINT32_MAX : (1u << X->arity) - 1;
        uint32_t n_specs = r->n_specs;
        b->tab = tab;
        tab[x] = true;
        b->n_tm = 0;
        bool ok = rb_tab_ok(b, x, full), all_bound = true;
        for (uint32_t i = 0; i < b->n_rules && ok; i++) {
            crule_t *c = &b->rules[i];
            bool uses = false;
            for (uint32_t k = 0; k < c->n_body; k++) uses |= c->body[k].kind != CL_DISTINCT && c->body[k].rel == x;
            if (!uses || c->head_rel == x) continue;
            uint32_t *mask = xmalloc(r->n_rels * sizeof *mask);
            for (uint32_t j = 0; j < r->n_rels; j++) mask[j] = UINT32_MAX;
            corder_t pl;
            ok = !tab[c->head_rel] && rb_plan_order_from(b, c, UINT32_MAX, &pl, 0);
            if (ok) rb_plan_uses(r, c, &pl, 0, mask);
            ok = ok && (mask[x] & full) != 0;
            all_bound &= (mask[x] & full) == full;
            free(mask);
        }
        /* A relation asked with only some arguments bound (tab_lit_ok
         * planned it so) is goal-directed once it was measured too big:
         * mummymaze1p's direction-from/5, millions of tuples because its
         * lessthan covers the step counter too, is only ever asked from
         * two squares of the board. Its estimate alone does not decide:
         * a call that leaves arguments free may cost as much as the
         * whole relation, and gt_two_thirds' sums, estimated huge, are
         * small bottom-up and slow asked one by one (1.3 s to 8 s). */
        bool big = (all_bound && est[x] > RULES_MEMBER_BIG) || forced_member(b, x);
        tab[x] = ok && big;
        X = &r->rels[x];
        X->member = ok && !big;
        /* The trial plans of a relation left bottom-up registered index
         * specs that no plan uses: every store would maintain them
         * (connectFour's rules engine lost 30% of its playouts). */
        if (!big) r->n_specs = n_specs;
        any |= tab[x];
    }
    /* A relation left to be measured whose rules call a goal-directed
     * one is goal-directed too: it would be computed in full from calls
     * with few arguments bound (mummymaze1p's movetoward, once its
     * direction-from is asked on demand, computed 1 M tuples before its
     * measure caught it: a compile more). */
    for (bool changed = any; changed;) {
        changed = false;
        for (uint32_t i = 0; i < b->n_rules; i++) {
            const crule_t *c = &b->rules[i];
            uint32_t x = c->head_rel;
            if (!r->rels[x].member || tab[x]) continue;
            for (uint32_t k = 0; k < c->n_body && !tab[x]; k++)
                if (c->body[k].kind != CL_DISTINCT && c->body[k].rel != x && tab[c->body[k].rel]) {
                    tab[x] = changed = true;
                    r->rels[x].member = false;
                }
        }
    }
    b->tab = NULL;
    free(b->tm);
    b->tm = NULL;
    b->n_tm = b->cap_tm = 0;
    return any;
}

/* Decide which relations are evaluated goal-directed (rules.h, tabling),
 * make their adorned copies and redirect every use to them. */
void rb_compute_tabling(builder_t *b)
{
    rules_t *r = b->r;
    b->n_orig_rules = b->n_rules;
    uint32_t n_rels0 = r->n_rels;
    bool *tab = xcalloc(r->n_rels ? r->n_rels : 1, sizeof *tab);
    double *est = rb_estimate_sizes(b);
    bool any = false;
    /* The relaxed program (the grounder) has no goal-directed relation but
     * the membership ones below. */
    for (uint32_t i = 0; i < b->n_rules && !r->relaxed; i++) {
        const crule_t *c = &b->rules[i];
        uint32_t h = c->head_rel;
        if (tab[h] || rb_is_keyword_rel(r, h) || r->rels[h].arity == 0 || r->rels[h].arity > 32) continue;
        if (rule_grows(b, c) || (r->rels[h].phase == PHASE_STATIC && est[h] > RULES_HUGE)) {
            if (!any) r->infinite_rel = h;
            any = tab[h] = true;
        }
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
            if (rb_plan_order_from(b, c, UINT32_MAX, &tmp, 0)) continue;
            uint32_t h = c->head_rel;
            if (rb_is_keyword_rel(r, h) || r->rels[h].arity == 0 || r->rels[h].arity > 32) give_up = true;
            tab[h] = true;
            changed = true;
        }
    }
    for (uint32_t i = 0; i < b->n_rules && !give_up; i++) {
        uint32_t h = b->rules[i].head_rel;
        if (tab[h] && (rb_is_keyword_rel(r, h) || b->rules[i].bridge || (r->relaxed && r->rels[h].phase != PHASE_STATIC)))
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
        if (!tab[b->rules[i].head_rel] && !rb_tab_rewrite(b, i, 0, &ad, &n_ad, &cap_ad)) give_up = true;
    uint32_t scc = r->n_sccs;
    if (!give_up && !rb_copy_adorned_rules(b, n_orig, scc, &ad, &n_ad, &cap_ad, UINT32_MAX)) give_up = true;
    free(ad);
    if (give_up) {
        diag_error(b->d, b->p->src, 0, "internal: a goal-directed relation cannot be planned with its bound arguments");
        b->errors++;
    }
    for (uint32_t i = 0; i < n_rels0; i++) /* tab covers the relations before the copies */
        if (tab[i]) {
            r->rels[i].member = false;
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
