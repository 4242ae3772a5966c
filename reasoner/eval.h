/* eval.h - bottom-up evaluation of the normalised rules over sets of
 * tuples of ground terms.
 *
 * One evaluator belongs to one thread. Each relation has a store: the set
 * of its tuples (hash-deduplicated, kept in insertion order) with hash
 * indexes on the argument positions that some rule probes with a bound
 * value. Rules run in their component order (rules.h); a cyclic component
 * runs semi-naively: after a first full pass, every later pass joins one
 * literal against the tuples new in the previous pass and the others
 * against everything, until nothing new appears.
 *
 * The same machinery serves three purposes:
 *   - the static relations, computed once per game (PHASE_STATIC);
 *   - the rules engine, per state (PHASE_STATE) and per joint move
 *     (PHASE_MOVE);
 *   - the grounder, which runs a relaxed program (negation ignored on
 *     non-static relations) and records every rule instance through a
 *     callback.
 *
 * Demand relations (rules.h RULES_DEMAND) are not run bottom-up: a rule
 * that reaches one of their literals makes a call (the bound arguments),
 * which runs the relation's rules with those arguments bound and memoises
 * the answers. Calls may recurse (tabling): a call meeting a call still in
 * progress uses the answers found so far, and the oldest call of such a
 * cycle runs again, with the others of the cycle, until no answer is new
 * (SLG-style completion for positive recursion; negation is stratified). */
#ifndef GGP_REASONER_EVAL_H
#define GGP_REASONER_EVAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "reasoner/game.h"
#include "reasoner/rules.h"
#include "reasoner/terms.h"

#define RELSTORE_MAX_IDX 8

typedef struct relstore {
    const term_store_t *ts; /* to read index paths into function terms */
    uint32_t arity;
    uint32_t n, cap;      /* tuples */
    tid_t *data;          /* n * arity values */
    uint32_t *slots;      /* dedup hash: tuple index + 1 (0 = empty) */
    uint32_t n_slots;
    /* Indexes (rules.h idx_spec_t): a hash from key to the newest tuple
     * with that key, and per tuple the next older one. */
    uint32_t n_idx;
    const idx_spec_t *idx_spec[RELSTORE_MAX_IDX];
    uint32_t idx_id[RELSTORE_MAX_IDX];
    tid_t *idx_key[RELSTORE_MAX_IDX];
    uint32_t *idx_head[RELSTORE_MAX_IDX]; /* tuple index + 1 */
    uint32_t *idx_next[RELSTORE_MAX_IDX]; /* per tuple: tuple index + 1 */
    uint32_t idx_slots;
    /* semi-naive bookkeeping */
    bool in_scc;
    uint32_t lim;         /* pass limit while in_scc */
} relstore_t;

/* Insert a tuple; returns true if it was new. *idx gets its index. */
bool relstore_insert(relstore_t *s, const tid_t *tuple, uint32_t *idx);
/* Index of a tuple, or UINT32_MAX. */
uint32_t relstore_find(const relstore_t *s, const tid_t *tuple);
static inline const tid_t *relstore_tuple(const relstore_t *s, uint32_t i) { return s->data + (size_t)i * s->arity; }

/* Called for every successful body match when recording (grounding):
 * vals holds the variable values; matched[k] is the tuple index that body
 * literal k (source order) matched, or UINT32_MAX for filters. head_idx is
 * the head tuple's index. */
typedef void (*eval_emit_fn)(void *ud, const crule_t *rule, const tid_t *vals, const uint32_t *matched,
                             uint32_t head_idx);

/* Memo of a demand relation (rules.h RULES_DEMAND): the calls asked so far
 * (their bound arguments), and per call the list of its answers, which are
 * tuples of the relation's own store. */
typedef struct demand_memo {
    relstore_t calls;
    uint32_t *first;   /* per call: first answer + 1 */
    uint32_t cap_first;
    uint32_t *next;    /* per answer tuple: next answer of its call + 1 */
    uint32_t cap_next;
    uint32_t active;   /* the call being evaluated */
    /* Tabling (recursive demand relations): per call its state (eval.c
     * CALL_*) and, while it is not complete, the call-stack position of
     * the oldest call in progress that its answers depend on. */
    uint8_t *status;
    uint32_t *low;
    uint32_t cap_status, cap_low;
} demand_memo_t;

/* A call in progress (tabling): relation, call, and the oldest position
 * on this stack whose incomplete answers it used (UINT32_MAX: none). */
typedef struct call_frame {
    uint32_t rel, call, low;
} call_frame_t;

typedef struct evaluator {
    const rules_t *r;
    term_store_t *ts;
    relstore_t **store; /* per relation: own or shared (static) */
    relstore_t *own;    /* stores owned by this evaluator */
    tid_t *vals;        /* variable values of the current rule */
    uint32_t *matched;
    uint32_t max_vars, max_body;
    tid_t *scratch;     /* stack for nested builds and trails */
    uint32_t sp, scap;
    /* Blocks taken when a request did not fit (never expected: scap is
     * sized for the rules; kept so that a miscount cannot abort), each
     * with the block and top it interrupted. */
    struct eval_spill { tid_t *block, *under; uint32_t under_sp, under_cap; } *spill;
    uint32_t n_spill, cap_spill;
    uint64_t *visits;   /* optional, per rule: tuples looked at (profiling) */
    demand_memo_t *dm;  /* per relation (used for demand relations only) */
    call_frame_t *cs;   /* demand calls in progress, outermost first */
    uint32_t n_cs, cap_cs;
    uint32_t *members;  /* (rel, call) pairs evaluated but not complete */
    uint32_t n_members, cap_members;
    uint64_t n_answers; /* answers of demand calls so far (fixpoint test) */
    bool too_deep;      /* a chain of demand calls exceeded EVAL_MAX_DEPTH */
    uint32_t max_arity;
    /* modes */
    bool relaxed;       /* ignore negation on non-static relations */
    eval_emit_fn emit;
    void *emit_ud;
    /* budget: evaluation stops (and sets aborted) past this deadline */
    deadline_t deadline;
    const atomic_bool *cancel; /* or NULL; checked with the deadline */
    uint64_t work, work_limit;
    /* Memory budget (bytes of tuples this evaluator stored, about): past
     * mem_limit (0: none) the evaluation stops, over_mem set. */
    size_t mem, mem_limit;
    bool over_mem;
    /* Past member_limit tuples (0: none) of a relation marked crel_t
     * member, or past mem_limit while computing one, the evaluation stops
     * with over_member set and blame_rel that relation: the caller
     * compiles the rules again with it evaluated on demand
     * (rules_compile_member; issue 13 item 4). */
    uint32_t member_limit;
    bool over_member;
    /* The relation being computed (its component's first head, or the
     * demand call's), and the one to blame once aborted; REL_NONE when
     * none. progress, when set, hears of each relation computed (a
     * watcher's 'loading' line). */
    uint32_t cur_rel, blame_rel;
    /* The rule being joined, and the one to blame once aborted (NULL:
     * none): a grounding that runs out of time or memory names it. */
    const crule_t *cur_rule, *blame_rule;
    game_progress_t *progress;
    bool aborted;
    /* semi-naive: current delta literal */
    uint32_t delta_lit, delta_lo, delta_hi;
} evaluator_t;

/* Nesting limit of demand calls: a recursion whose calls keep growing
 * (a genuinely infinite program) aborts the evaluation instead of
 * exhausting the C stack. */
#define EVAL_MAX_DEPTH 1000

/* An evaluator whose static relations come from shared (may be NULL: then
 * it owns every store). Indexes are created from the rules' plans. */
void eval_init(evaluator_t *ev, const rules_t *r, term_store_t *ts, relstore_t *shared_static);
void eval_free(evaluator_t *ev);
/* Clear the stores of relations of the given phase. */
void eval_clear_phase(evaluator_t *ev, phase_t phase);
/* Calls and answers memoised for the demand relations of a phase (the
 * rules engine clears static memos that grow past a bound: they persist
 * across states). */
size_t eval_demand_size(const evaluator_t *ev, phase_t phase);
/* Run every rule whose head relation is in the given phase. Returns false
 * if the budget ran out. */
bool eval_run_phase(evaluator_t *ev, phase_t phase);
/* Run the rules of the phases in [from, to] (relaxed grounding runs all). */
bool eval_run_phases(evaluator_t *ev, phase_t from, phase_t to);

/* "name/arity" of the relation to blame for an aborted evaluation (its
 * spelling; "" if none), into buf. */
const char *eval_blame_name(const evaluator_t *ev, char *buf, size_t len);
/* That relation (a named one: an auxiliary head is named by the source
 * rule it was split from), or REL_NONE. */
uint32_t eval_blame_rel(const evaluator_t *ev);
/* Tuples stored so far for relation rel. */
uint32_t eval_rel_size(const evaluator_t *ev, uint32_t rel);
/* Source offset of the rule to blame for an aborted evaluation (the one
 * being joined; else the first of the relation to blame), or UINT32_MAX. */
uint32_t eval_blame_src_off(const evaluator_t *ev);
/* Source offset of the first rule of rel (the relation an adorned copy
 * copies), or UINT32_MAX. */
uint32_t eval_rel_src_off(const evaluator_t *ev, uint32_t rel);

/* The term a pattern denotes under the current variable values (interning
 * it if new); for emit callbacks. */
tid_t eval_build_term(evaluator_t *ev, const pat_t *p);

#endif
