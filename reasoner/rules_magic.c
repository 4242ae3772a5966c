/* rules_magic.c - demand-driven grounding of state views (RULES_RELAXED).
 *
 * The grounder's relaxed program computes every tuple of a view that any
 * reachable state could make true, bottom up. An accumulator such as
 * merrills' (count_loop ?x ?y ?w1 ?b1 ?w ?b), counting the pieces pit by
 * pit, holds bottom up for every pit and every pair of running counts
 * (millions of instances), while the rules only ever ask it from the first
 * pit with both counts 0: the tuples that can matter are the ones reached
 * from that call. Magic sets (Bancilhon, Maier, Sagiv and Ullman, "Magic
 * sets and other strange ways to implement logic programs", PODS 1986;
 * Beeri and Ramakrishnan, "On the power of magic", 1987) compute exactly
 * those: for a view p that every use asks with the arguments of a mask
 * bound,
 *  - a relation magic_p over those arguments, the calls that can be made;
 *  - per use of p in a rule body, a rule magic_p(bound arguments of the
 *    use) <= the positive literals planned before the use;
 *  - magic_p(bound head arguments) added to each of p's rules, planned
 *    first.
 * The grounder records no magic literal and makes no proposition of a
 * magic relation (propnet.c): an instance of p's rule is the original
 * rule's instance, only fewer of them are enumerated. Complete: a tuple
 * of p that some recorded instance uses was asked by that use, whose
 * earlier literals hold in the relaxed fixpoint, so magic_p holds for it
 * and every instance of p's rules that derives it is enumerated.
 *
 * The magic rules keep only positive literals of static and state
 * relations (dropping a literal only asks more): a state view stays a
 * state view, and no magic rule reads does. A use's mask counts only what
 * those literals bind.
 *
 * Which views: those the grounder saw explode (propnet.c: past
 * eliminate_after instances of one rule of a candidate, crel_t magic_ok),
 * one retry each, named by name and arity (ids change between compiles
 * once other relations are added). */
#include "reasoner/rules_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* Does literal l count as a binder for the magic rules (a positive
 * literal of a static or state relation)? */
static bool magic_binder(const rules_t *r, const clit_t *l)
{
    return l->kind == CL_POS && r->rels[l->rel].phase != PHASE_MOVE;
}

/* The arguments of p that every use binds (by binders planned before
 * it): 0 when some use binds none, or binds some with static relations
 * alone (ruleDepthExponential's prereqN, asked for every combination of
 * (bit ?b) facts and 0 or 1: its magic relation would be all of them),
 * or p is never used. A use restricts when a state relation (a magic
 * relation included) comes before it, or it gives every argument it binds
 * as a constant (merrills' (count_loop inner ne 0 0 ?w ?b)). */
static uint32_t magic_mask(const builder_t *b, uint32_t p)
{
    const rules_t *r = b->r;
    uint32_t ar = r->rels[p].arity, mask = ar >= 32 ? UINT32_MAX : (1u << ar) - 1;
    bool used = false;
    for (uint32_t i = 0; i < b->n_rules && mask; i++) {
        const crule_t *c = &b->rules[i];
        bool uses = false; /* most rules do not: no walk, no allocation */
        for (uint32_t k = 0; k < c->n_body && !uses; k++) uses = c->body[k].kind != CL_DISTINCT && c->body[k].rel == p;
        if (!uses) continue;
        bool *bound = NULL, state = false;
        for (uint32_t k = 0; k < c->n_body && mask; k++) {
            const clit_t *l = &c->body[c->plan.order[k]];
            if (l->kind == CL_DISTINCT) continue;
            if (!bound) bound = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *bound);
            if (l->rel == p) {
                uint32_t m = rb_bound_mask(r, l, bound);
                bool given = m != 0;
                for (uint32_t a = 0; a < ar && a < 32; a++) given &= !(m >> a & 1) || l->args[a]->ground;
                mask &= state || given ? m : 0;
                used = true;
            }
            if (magic_binder(r, l)) {
                for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) rb_mark_vars(l->args[a], bound);
                state |= r->rels[l->rel].phase == PHASE_STATE;
            }
        }
        free(bound);
    }
    return used ? mask : 0;
}

/* Could view p have magic sets: named (a source relation: blamed in one
 * compile, found by name in the next), state phase, not a keyword, every
 * use restricting some argument? */
static bool candidate(const builder_t *b, uint32_t p)
{
    const rules_t *r = b->r;
    const crel_t *P = &r->rels[p];
    return P->name != SYM_NONE && P->has_rules && P->phase == PHASE_STATE && !P->magic && P->arity > 0 &&
           P->arity <= 32 && !rb_is_keyword_rel(r, p) && magic_mask(b, p) != 0;
}

/* The patterns of args at the positions of mask, in order. */
static pat_t **masked_args(rules_t *r, pat_t **args, uint32_t arity, uint32_t mask)
{
    uint32_t n = (uint32_t)__builtin_popcount(mask);
    pat_t **out = arena_calloc(r->arena, n ? n : 1, sizeof *out);
    for (uint32_t a = 0, j = 0; a < arity && a < 32; a++)
        if (mask >> a & 1) out[j++] = args[a];
    return out;
}

/* Magic sets for view p (see the top of the file); false if p cannot
 * have them (then nothing changed). */
static bool magic_view(builder_t *b, uint32_t p)
{
    rules_t *r = b->r;
    uint32_t ar = r->rels[p].arity, mask = magic_mask(b, p);
    if (!mask) return false;
    uint32_t n_rules = b->n_rules, n_rels = r->n_rels;
    /* p's rules as they were, to add the magic literal to (again) */
    uint32_t *own = xmalloc(n_rules * sizeof *own), n_own = 0;
    crule_t *orig = xmalloc(n_rules * sizeof *orig);
    for (uint32_t i = 0; i < n_rules; i++)
        if (b->rules[i].head_rel == p) {
            own[n_own] = i;
            orig[n_own++] = b->rules[i];
        }
    XVEC_RESERVE(&r->rels, &b->cap_rels, r->n_rels + 1);
    uint32_t mg = r->n_rels++;
    bool ok = true;
    /* p's rules planned again with the magic literal first may bind less
     * at their own calls of p than the old plans did (tally.kif's
     * count_loop, asked from the next cell before nextcell bound it,
     * before the planner weighed magic_mask): the mask shrinks until every
     * use binds it. */
    for (;;) {
        uint32_t m_ar = (uint32_t)__builtin_popcount(mask);
        /* state phase whatever its rules read: it restricts (magic_mask) */
        r->rels[mg] = (crel_t){.name = SYM_NONE, .arity = m_ar, .phase = PHASE_STATE, .has_rules = true, .magic = true};
        r->rels[p].magic_mask = mask;
        for (uint32_t j = 0; j < n_own; j++) {
            crule_t *c = &b->rules[own[j]];
            *c = orig[j];
            clit_t *body = arena_calloc(r->arena, c->n_body + 1, sizeof *body);
            memcpy(body, c->body, c->n_body * sizeof *body);
            body[c->n_body] = (clit_t){.kind = CL_POS, .rel = mg, .args = masked_args(r, c->head, ar, mask)};
            c->body = body;
            c->n_body++;
            ok &= rb_plan_order(b, c, UINT32_MAX, &c->plan); /* the magic literal first (rules_plan.c) */
        }
        uint32_t now = ok ? magic_mask(b, p) : 0;
        if (ok && (now & mask) == mask) break; /* every use binds the mask */
        mask &= now;                           /* only shrinks: the loop ends */
        if (!mask) {
            ok = false;
            break;
        }
    }
    /* Per use (p's own rules included, now planned with their magic
     * literal first: a recursive call asks from what its caller was asked). */
    for (uint32_t i = 0; i < n_rules && ok; i++) {
        bool *bound = NULL;
        for (uint32_t k = 0; k < b->rules[i].n_body && ok; k++) {
            const crule_t *c = &b->rules[i];
            const clit_t *l = &c->body[c->plan.order[k]];
            if (l->kind == CL_DISTINCT) continue;
            if (!bound) bound = xcalloc(c->n_vars ? c->n_vars : 1, sizeof *bound);
            if (l->rel == p) {
                crule_t m = {.head_rel = mg, .n_vars = c->n_vars, .src_off = c->src_off, .seq = b->n_rules};
                m.head = masked_args(r, l->args, ar, mask);
                m.body = arena_calloc(r->arena, k ? k : 1, sizeof *m.body);
                for (uint32_t q = 0; q < k; q++) {
                    const clit_t *o = &c->body[c->plan.order[q]];
                    if (o->kind != CL_DISTINCT && magic_binder(r, o)) m.body[m.n_body++] = *o;
                }
                /* safe: the mask is what these literals bind */
                ok = rb_plan_order(b, &m, UINT32_MAX, &m.plan);
                if (ok) {
                    XVEC_RESERVE(&b->rules, &b->cap_rules, b->n_rules + 1);
                    b->rules[b->n_rules++] = m;
                }
            }
            if (magic_binder(r, l))
                for (uint32_t a = 0; a < r->rels[l->rel].arity; a++) rb_mark_vars(l->args[a], bound);
        }
        free(bound);
    }
    if (!ok) { /* as it was: a magic rule missing would lose tuples */
        for (uint32_t j = 0; j < n_own; j++) b->rules[own[j]] = orig[j];
        b->n_rules = n_rules;
        r->n_rels = n_rels;
        r->rels[p].magic_mask = 0;
    }
    free(own);
    free(orig);
    return ok;
}

/* A view asked on demand makes its calls on demand too: the views its
 * rules use that could have magic sets get them (Beeri and Ramakrishnan's
 * rewriting of every predicate reachable from the query; merrills'
 * count_one, asked by count_loop from one pit and two counts, otherwise
 * holds for every pair of the step counter's numbers: 744,511 props
 * against 372,642 when measured, count_loop eliminated first). */
void rb_magic(builder_t *b)
{
    rules_t *r = b->r;
    uint32_t n = r->n_rels, *queue = xmalloc((n ? n : 1) * sizeof *queue), qn = 0;
    bool *done = xcalloc(n ? n : 1, sizeof *done); /* given magic sets, or tried */
    for (uint32_t j = 0; j < b->n_magic; j++) {
        uint32_t p = rules_find_rel(r, b->magic[j].name, b->magic[j].arity);
        if (p != REL_NONE && !done[p]) {
            done[p] = true;
            queue[qn++] = p;
        }
    }
    for (uint32_t h = 0; h < qn; h++) {
        uint32_t p = queue[h];
        if (!candidate(b, p) || !magic_view(b, p)) continue;
        for (uint32_t i = 0; i < b->n_rules; i++) {
            const crule_t *c = &b->rules[i];
            if (c->head_rel != p) continue;
            for (uint32_t k = 0; k < c->n_body; k++) {
                uint32_t q = c->body[k].rel;
                if (c->body[k].kind == CL_DISTINCT || q >= n || done[q]) continue;
                done[q] = true;
                queue[qn++] = q;
            }
        }
    }
    /* The views the grounder may blame next time: those that call
     * themselves, an accumulator or a path followed from where it is asked
     * (merrills' count_loop), what a call restricts; a view that is one
     * join (ruleDepthExponential's prereqN) gains little and would lose a
     * try. A view given magic sets is none: asked on demand, it makes at
     * most the instances it made before, so the grounder does not start
     * again for it (a rule of it that elimination can rewrite still may
     * be). Magic rules themselves are not counted: one that explodes stops
     * at the time or memory budget, and the rules as written get what is
     * left. */
    bool *self = xcalloc(r->n_rels ? r->n_rels : 1, sizeof *self);
    for (uint32_t i = 0; i < b->n_rules; i++) {
        const crule_t *c = &b->rules[i];
        for (uint32_t k = 0; k < c->n_body; k++)
            if (c->body[k].kind == CL_POS && c->body[k].rel == c->head_rel) self[c->head_rel] = true;
    }
    for (uint32_t p = 0; p < r->n_rels; p++) r->rels[p].magic_ok = (p >= n || !done[p]) && self[p] && candidate(b, p);
    free(self);
    free(done);
    free(queue);
}
