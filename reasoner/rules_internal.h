/* rules_internal.h - the rule builder's state and the functions its files
 * share (private to reasoner/rules*.c; rules.h is the interface).
 *
 * rules_compile (rules.c) runs the stages in order: normalise
 * (rules_normalise.c: `or` expanded, (not (distinct)) unified, then, in
 * the grounder's relaxed program, constant fluents and the views asked on
 * demand of rules_magic.c, join decomposition, local variables projected
 * out, the variables of the
 * rules the grounder found exploding eliminated, phases, rules ordered by
 * the components of their dependency graph), each body planned
 * (rules_plan.c, also the size estimates), then goal-directed evaluation:
 * tabling (rules_tabling.c) and demand (rules_demand.c). The functions
 * shared between those files are prefixed rb_ (rule builder). */
#ifndef GGP_REASONER_RULES_INTERNAL_H
#define GGP_REASONER_RULES_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "reasoner/rules.h"

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
    /* rb_rel_of's index while the program's rules are read: relation + 1
     * by (name, arity), open addressing (a linear scan per literal was
     * quadratic: 300k one-fact relations took minutes) */
    uint32_t *rel_index, index_cap;
    /* tabling (see rb_compute_tabling): goal-directed relations, and the
     * memo of which call patterns of theirs can be evaluated */
    bool *tab;
    struct tab_memo *tm;
    uint32_t n_tm, cap_tm;
    uint32_t n_orig_rules;
    /* demand planning (see rb_compute_demand): relations that are asked
     * rather than computed, whose literals come after the generators */
    const bool *late;
    uint32_t n_late;    /* relations late covers (copies come after) */
    /* partial adornment (see adorn_partial): relations whose uses are
     * redirected to a copy per call pattern */
    const bool *adorn;
    double *est;        /* adorn: estimated sizes of the static relations */
    bool *exact;        /* adorn: some bottom-up rule asks with just the relation's mask */
    /* membership relations whatever their estimate (rules_compile_member) */
    const uint32_t *force_member;
    uint32_t n_force_member;
    /* rules whose variables are eliminated (rb_eliminate_vars): those of
     * these source offsets, or all */
    const uint32_t *elim_src;
    const uint8_t *elim_level;
    uint32_t n_elim_src;
    bool elim_all;
    bool (*fd)(void *ud, uint32_t rel, uint32_t pos); /* rules_member_set_t fd */
    void *fd_ud;
    /* views given magic sets (rules_magic.c) */
    const rules_rel_name_t *magic;
    uint32_t n_magic;
} builder_t;

typedef enum { TAB_BUSY, TAB_OK, TAB_BAD } tab_state_t;
typedef struct tab_memo {
    uint32_t rel, mask;
    tab_state_t st;
} tab_memo_t;

/* A flat literal before compilation: an AST literal that is not an `or`. */
typedef struct flat {
    const lit_t **lits;
    uint32_t n, cap;
} flat_t;

/* rules.c */
uint32_t rb_rel_of(builder_t *b, sym_t name, uint32_t arity);

/* rules_normalise.c */
/* Compile rule src with its body literals from i on `or`-expanded (f holds
 * the flat literals before i). */
void rb_expand(builder_t *b, const rule_t *src, uint32_t i, flat_t *f);
void rb_split_components(builder_t *b);
void rb_constant_fluents(builder_t *b);
void rb_project_local_vars(builder_t *b);
void rb_eliminate_vars(builder_t *b);
void rb_compute_phases(rules_t *r, const crule_t *rules, uint32_t n);
/* Components in evaluation order (false: negation inside a cycle). */
bool rb_order_rules(builder_t *b);

/* rules_magic.c: magic sets for b->magic's views and the views their
 * rules use; which other views could have them (crel_t magic_ok). After
 * a first rb_compute_phases. */
void rb_magic(builder_t *b);

/* rules_plan.c */
void rb_mark_vars(const pat_t *p, bool *bound);
uint32_t rb_bound_mask(const rules_t *r, const clit_t *l, const bool *bound);
bool rb_plan_order(builder_t *b, crule_t *c, uint32_t first, corder_t *out);
bool rb_plan_order_from(builder_t *b, crule_t *c, uint32_t first, corder_t *out, uint32_t head_mask);
double *rb_estimate_sizes(const builder_t *b);
void rb_plan_uses(const rules_t *r, const crule_t *c, const corder_t *plan, uint32_t head_mask, uint32_t *mask_of);

/* rules_tabling.c */
bool rb_tab_ok(builder_t *b, uint32_t rel, uint32_t mask);
bool rb_tab_rewrite(builder_t *b, uint32_t i, uint32_t hmask, uint32_t **ad, uint32_t *n_ad, uint32_t *cap_ad);
bool rb_copy_adorned_rules(builder_t *b, uint32_t n_orig, uint32_t scc, uint32_t **ad, uint32_t *n_ad,
                           uint32_t *cap_ad, uint32_t max_copies);
void rb_compute_tabling(builder_t *b);

/* rules_demand.c */
bool rb_is_keyword_rel(const rules_t *r, uint32_t rel);
void rb_compute_demand(builder_t *b, unsigned flags);
void rb_link_rules_of(rules_t *r);

#endif
