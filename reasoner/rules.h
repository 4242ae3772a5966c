/* rules.h - the normalised rule program that both engines evaluate.
 *
 * From a validated GDL program (gdl/ast.h):
 *  - `or` is expanded into one rule per choice of disjuncts (gdl-protocol
 *    §2.1; GGP-Base's DeORer), `(not (distinct a b))` is applied as a
 *    unification of a and b;
 *  - terms become patterns with numbered variable slots, ground subterms
 *    interned once;
 *  - each body is reordered so that every `not` and `distinct` comes after
 *    the positive literals that bind its variables (the corpus writes
 *    `distinct` first; gdl-protocol §2.1, test_distinct_beginning_rule);
 *  - relations are classified: static (independent of true and does),
 *    state (depends on true only) and move (depends on does);
 *  - rules are ordered by the strongly connected components of the
 *    rule-level dependency graph (rule B depends on rule A when A's head
 *    unifies with a body literal of B), which stratifies the 14 corpus games
 *    whose goal is defined through `not goal` (gdl-protocol §2.4). */
#ifndef GGP_REASONER_RULES_H
#define GGP_REASONER_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "gdl/ast.h"
#include "reasoner/terms.h"

typedef enum { PAT_CONST, PAT_VAR, PAT_FN } pat_kind_t;

typedef struct pat {
    pat_kind_t kind;
    bool ground;        /* no variables inside */
    uint32_t var;       /* PAT_VAR: slot */
    tid_t term;         /* PAT_CONST, and ground PAT_FN: the interned term */
    sym_t functor;      /* PAT_FN */
    uint32_t arity;     /* PAT_FN */
    struct pat **args;  /* PAT_FN */
} pat_t;

typedef enum { CL_POS, CL_NEG, CL_DISTINCT } clit_kind_t;

typedef struct clit {
    clit_kind_t kind;
    uint32_t rel;    /* CL_POS, CL_NEG */
    pat_t **args;    /* rel's arity patterns */
    pat_t *lhs, *rhs; /* CL_DISTINCT */
} clit_t;

/* An index of a relation: the tuples hashed by the values at up to
 * IDX_MAX_PATHS paths. A path is argument p (code p << 8) or argument q of
 * the function term at p (code p << 8 | (q + 1)), so that
 * (true (cell ?x ?y b)) with ?x bound probes by ?x and b together. */
#define IDX_MAX_PATHS 4
typedef struct idx_spec {
    uint32_t rel;
    uint32_t n;
    uint32_t path[IDX_MAX_PATHS];
} idx_spec_t;

/* One evaluation order of a rule body. index_pos[i] is the index (an
 * idx_spec_t id) used to probe literal order[i]'s relation, -1 to scan it,
 * or INDEX_MEMBER when every argument is bound (a hash membership test). */
#define INDEX_MEMBER (-2)
typedef struct corder {
    uint32_t *order;
    int32_t *index_pos;
} corder_t;

typedef enum { PHASE_STATIC, PHASE_STATE, PHASE_MOVE } phase_t;

typedef struct crule {
    uint32_t head_rel;
    pat_t **head;       /* head_rel's arity patterns */
    uint32_t n_vars;
    uint32_t n_body;
    clit_t *body;       /* in source order (after or-expansion) */
    corder_t plan;      /* the default order */
    corder_t *delta;    /* per body literal: order starting with it (recursive rules) */
    corder_t qplan;     /* demand relations: order with the demanded head arguments bound */
    uint32_t scc;       /* component index in evaluation order */
    bool recursive;     /* its component is cyclic */
    bool bridge;        /* a RULES_RELAXED bridge rule */
    bool elim;          /* rb_eliminate_vars would rewrite it (RULES_RELAXED;
                         * false once it has been) */
    uint32_t src_off;   /* source offset of the original rule */
    uint32_t seq;       /* creation order, to keep sorting deterministic */
} crule_t;

typedef struct crel {
    sym_t name;
    uint32_t arity;
    phase_t phase;
    bool has_rules;     /* appears as some head */
    /* Demand evaluation (RULES_DEMAND): the relation is never computed in
     * full; each use asks for the tuples whose arguments at the positions
     * of demand_mask are given, and the answers are memoised per state
     * (per evaluator for a static relation). */
    bool demand;
    uint32_t demand_mask;
    uint32_t *rules_of; /* demand: indexes of its rules */
    uint32_t n_rules_of;
    /* Goal-directed evaluation with tabling (RULES_DEMAND; see "tabling"
     * below): a relation that is infinite or astronomically large bottom-up
     * is replaced by one adorned copy per pattern of bound arguments it is
     * called with. A copy is a demand relation (demand_mask = that pattern)
     * that may be recursive and may return many answers per call. */
    bool from_does;     /* an auxiliary projection of does (as small as does) */
    bool tabled;        /* an adorned copy of `orig` */
    bool replaced;      /* every use was redirected to adorned copies: never evaluated */
    bool adorned;       /* tabled, made by partial demand (RULES_PARTIAL): a copy per call
                         * pattern of a relation that bottom-up evaluation could compute */
    uint32_t orig;      /* tabled: the relation it copies */
    /* A static relation that every rule could ask with all its arguments
     * bound but that is computed in full because its estimated size is at
     * most RULES_MEMBER_BIG: the estimate can be wrong, so the static
     * phase measures it (evaluator_t member_limit) and the engines compile
     * again with it among the membership relations if it grows past
     * RULES_MEMBER_BIG tuples (rules_compile_member; issue 13 item 4). */
    bool member;
    /* RULES_RELAXED, magic sets (rules_magic.c): magic is a relation of
     * the calls some rule makes of a view, or a part of its rules (the
     * grounder records none of its tuples or literals); magic_ok, a view
     * the grounder may ask on demand when it explodes: named, state phase,
     * not a keyword, calling itself, every use restricting some argument. */
    bool magic, magic_ok;
    uint32_t magic_mask; /* a view with magic sets: the arguments its magic relation is asked with */
} crel_t;

typedef struct rules {
    term_store_t *ts;   /* not owned */
    const symtab_t *syms;
    crel_t *rels;
    uint32_t n_rels;
    crule_t *rules;     /* sorted by evaluation order (scc ascending) */
    uint32_t n_rules;
    uint32_t n_sccs;
    /* keyword relations (UINT32_MAX if absent) */
    uint32_t rel_role, rel_init, rel_true, rel_does, rel_next, rel_legal, rel_goal, rel_terminal;
    tid_t *roles;       /* role constants in description order */
    uint32_t n_roles;
    bool relaxed;
    /* Some relation is goal-directed because it is infinite or astronomic
     * bottom-up (not only a membership relation): no grounding. */
    bool infinite;
    uint32_t infinite_rel; /* the first of them (with infinite) */
    idx_spec_t *specs;  /* every index some plan uses */
    uint32_t n_specs, cap_specs;
    arena_t *arena;
} rules_t;

#define REL_NONE UINT32_MAX

/* Flags of rules_compile. RULES_RELAXED builds the program the grounder
 * runs: negation on non-static relations is ignored when ordering, and
 * bridge rules true(x) <= init(x), true(x) <= next(x), does(r,m) <=
 * legal(r,m) make one fixpoint compute every fluent, move and atom that
 * can ever hold (an over-approximation). Bridge rules have src_off
 * UINT32_MAX. */
#define RULES_RELAXED 1u
/* RULES_DEMAND marks relations that are not game keywords and are only
 * ever used with every argument bound (or, when only move-phase rules use
 * them, with some argument bound), for demand evaluation (eval.c): in
 * chess, threatened_with_capture has millions of tuples per state but each
 * legal move asks about one. A recursive relation qualifies with its whole
 * component (its calls are tabled). A restricted form of the magic-sets
 * idea: one call pattern per relation; the tabling below makes one copy
 * per pattern. */
#define RULES_DEMAND 2u
/* Tabling (with RULES_DEMAND). Some static relations cannot be computed
 * bottom-up at all: laikLee_hex's append_el builds ever longer lists by
 * recursion ((list ?h ?newtail) from a recursive call's ?newtail), and
 * isList enumerates 25^25 lists. Such relations (a head argument is a
 * function term holding a variable of a recursive call, or the estimated
 * size of a static relation exceeds RULES_HUGE) and, transitively, the
 * relations whose rules can only reach them with too few bound arguments,
 * are evaluated top-down per call (magic-sets adornment: one copy per
 * pattern of bound arguments, memo tables keyed by the bound values, a
 * recursive call with a key in progress iterates to a fixpoint; eval.c).
 * When that is impossible (a game keyword would have to be goal-directed)
 * the program is left as it is, and the budget of the static phase fails
 * it cleanly. */
#define RULES_HUGE 1e15
/* A static relation estimated larger than this that every rule asks with
 * all its arguments bound (once its literal comes last in the body) is
 * goal-directed too, whatever its size: each membership question is one
 * memoised call (a sudoku's ten-argument relation over nine (index ?x)
 * facts, 9^10 tuples bottom-up, asked fully bound). Also in the relaxed
 * program (the grounder records no static rule). The estimate is only a
 * shortcut: one that is low is caught by measure (crel_t member). */
#define RULES_MEMBER_BIG 1e6
/* With RULES_DEMAND: no tabling (the rules engine's fallback when the
 * goal-directed evaluation of a program does not terminate). */
#define RULES_NO_TABLING 4u
/* With RULES_DEMAND: partial demand. A relation asked with only some
 * arguments bound is a demand relation outside the move phase too
 * (magic-sets style: chess's *_move_ig asked with the ignore square bound
 * instead of computed for all 64; merrills' count_loop asked for one
 * starting accumulator). Masks start full and shrink to what every use
 * binds, and a demand literal is planned after the literals that bind its
 * asked arguments. Then every use is redirected to an adorned copy (crel_t
 * adorned) for the pattern its plan binds, so that a relation asked in
 * several ways is not asked with only what they share (chess's
 * clear_row_ig, forwards and backwards: the ignore square alone); a use
 * that binds the relation's mask keeps that mask's copy when the mask is
 * half the arguments or more, or a bottom-up rule asks with just it (one
 * memo shared rather than split). It loses where many calls would share
 * one bottom-up computation, so the rules engine compiles both programs
 * and keeps the one that does less counted work on a fixed-seed probe
 * (engine_rules.c). */
#define RULES_PARTIAL 8u
/* Bucket elimination of body variables into auxiliary relations
 * (rb_eliminate_vars in rules_normalise.c): the propnet grounder's second
 * try when one rule's ground instances explode (gt_attrition's scores,
 * gt_two_thirds' sums of four guesses). */
#define RULES_ELIMINATE 16u

/* Normalise p. Returns NULL after reporting to d if the program cannot be
 * evaluated (unsafe rule, unstratifiable negation, ...). */
rules_t *rules_compile(const program_t *p, term_store_t *ts, diag_t *d, unsigned flags);
struct rules_member_set;
/* rules_compile, with the relations ms->rel[0..ms->n) (ids of p's own
 * relations from a previous rules_compile of p, with any flags: those ids
 * are given before tabling and demand add relations of their own) treated as membership relations whatever their
 * estimated size, when every rule can ask them with all their arguments
 * bound (RULES_MEMBER_BIG, crel_t member), and the rules of ms->elim_src
 * with their variables eliminated. ms may be NULL. */
rules_t *rules_compile_member(const program_t *p, term_store_t *ts, diag_t *d, unsigned flags,
                              const struct rules_member_set *ms);
typedef struct rules_rel_name {
    sym_t name;
    uint32_t arity;
} rules_rel_name_t;
/* The relations an engine found too big to compute in full for membership
 * tests, compile after compile of one program (both engines retry the same
 * way: a relation blamed, the program compiled again with it on demand). */
typedef struct rules_member_set {
    uint32_t *rel;
    uint32_t n, cap;
    /* RULES_RELAXED: the source offsets (crule_t src_off) of the rules
     * whose body variables are eliminated (rb_eliminate_vars), found
     * exploding by the grounder (propnet.c) */
    uint32_t *elim_src;
    uint8_t *elim_level; /* per elim_src: 1 the variables fd leaves, 2 all */
    uint32_t n_elim, cap_elim;
    /* Whether argument pos of the static relation rel (an id of the
     * earlier compile's own relations) is a function of its other
     * arguments, measured on that compile's tuples; NULL: unknown.
     * rb_eliminate_vars leaves a variable that a static literal fixes
     * (racer's (add ?px ?ndx ?x): ?px is ?x - ?ndx): eliminating it
     * removes no instance and splits gates the circuit would share. */
    bool (*fd)(void *ud, uint32_t rel, uint32_t pos);
    void *fd_ud;
    /* RULES_RELAXED: the views asked on demand while grounding (magic
     * sets, rules_magic.c), by name and arity, found exploding by the
     * grounder */
    rules_rel_name_t *magic;
    uint32_t n_magic, cap_magic;
} rules_member_set_t;
/* Add rel to ms; false when it is there already: compiled on demand, it
 * cannot have been measured again, so a second blame is not the same
 * overflow and compiling again would loop forever. */
bool rules_member_add(rules_member_set_t *ms, uint32_t rel);
/* Add a rule's source offset to ms's elim_src at level 1, or raise it to
 * level 2; false when it is at level 2 already. */
bool rules_elim_add(rules_member_set_t *ms, uint32_t src_off);
/* Add view rel of r (crel_t magic_ok) to ms's magic views; false when it
 * is not a candidate or is there already. */
bool rules_magic_add(rules_member_set_t *ms, const rules_t *r, uint32_t rel);
void rules_member_free(rules_member_set_t *ms);
void rules_free(rules_t *r);
/* Find a relation by name and arity (REL_NONE if absent). */
uint32_t rules_find_rel(const rules_t *r, sym_t name, uint32_t arity);

#endif
