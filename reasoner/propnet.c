/* propnet.c - the propositional network engine (see game.h).
 *
 * Grounding: the relaxed program (rules.h, RULES_RELAXED) is run to its
 * fixpoint once; every relation then holds every tuple that can ever be
 * true, and every rule firing of a non-static rule is recorded as a ground
 * instance (its head and its non-static body literals; static literals are
 * already decided). Each tuple of a non-static relation becomes a
 * proposition: base propositions (true), inputs (does), and views.
 *
 * The circuit: a proposition is the OR of its instances, an instance the
 * AND of its literals; propnet_circuit_build.c simplifies that network
 * (constant folding, wires, merged gates, factored frame rules, legal moves
 * gated by whose turn it is, goal-only gates evaluated on demand) and
 * propnet_circuit_run.c runs it incrementally with counters (see
 * propnet_circuit.h).
 *
 * A state is a bitset over the base propositions, numbered in the sorted
 * order of their canonical text, so that printing a state is sorted.
 *
 * Budgets (game_options_t): grounding stops past ground_ms or when the
 * recorded network would exceed ground_mb; the caller then falls back to
 * the rules engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "reasoner/engine.h"
#include "reasoner/eval.h"
#include "reasoner/propnet_circuit.h"

enum { PROP_TRUE = 0, PROP_FALSE = 1, PROP_FIRST = 2 };

typedef struct pgame {
    struct game base;
    rules_t *rules;
    uint32_t n_props;
    pn_circuit_t *circ;
    /* base propositions, in sorted canonical order */
    uint32_t n_base, n_words;
    uint32_t *base_prop;   /* bit -> prop */
    char **base_canon, **base_spell;
    uint32_t *init_bits;   /* initial state's bits, count n_init */
    uint32_t n_init;
    /* outputs */
    uint32_t terminal_prop;
    uint32_t *n_moves;      /* per role */
    uint32_t **legal_prop;  /* per role, per move id */
    uint32_t **does_prop;   /* per role, per move id */
    tid_t **move_term;
    char ***move_canon, ***move_spell;
    uint32_t *n_goals;      /* per role */
    uint32_t **goal_prop;
    int **goal_value;
    uint32_t n_next;
    uint32_t *next_prop, *next_bit;
} pgame_t;

typedef struct pctx {
    struct game_ctx base;
    pn_run_t *run;
    pn_lanes_t *lanes; /* made on the first game_playouts */
    bool lanes_tried;
    int *goals; /* per role: a lane's goal values */
    bool state_done;
    bool played; /* the current state is the last next's result */
} pctx_t;

/* ------------------------------------------------------------ grounding */

typedef struct rec_inst {
    uint32_t rule;     /* index into rules->rules */
    uint32_t head;     /* head tuple index */
    uint32_t lit_off;  /* into grounder.lit: (rel, tuple, neg) triples */
    uint32_t n_lit;
    uint32_t neg_off;  /* into grounder.negv: values of negated tuples */
    uint32_t vals_off; /* into grounder.vals: the variable values */
} rec_inst_t;

typedef struct grounder {
    const rules_t *r;
    rec_inst_t *inst;
    uint32_t n_inst, cap_inst;
    uint32_t *lit; /* triples: rel, tuple index (or UINT32_MAX for negatives), neg */
    uint32_t n_lit, cap_lit;
    tid_t *negv;
    uint32_t n_negv, cap_negv;
    tid_t *vals;
    uint32_t n_vals, cap_vals;
    uint64_t *dedup; /* dedup_insert's slots */
    uint32_t n_dedup;
    size_t bytes, max_bytes;
    bool over;
    bool too_many; /* the 32-bit offsets below would wrap */
    /* instances per rule (a failure names the rule with the most); past
     * elim_after (0: no bound) grounding stops with over_rule set, to
     * start again with variables eliminated */
    uint32_t *rule_inst, elim_after, over_src;
    bool over_rule;
    /* past elim_after instances of a rule of a view that could be asked
     * on demand (crel_t magic_ok): grounding starts again with it so
     * (rules_magic.c) */
    bool over_magic;
    uint32_t over_rel;
    evaluator_t *ev;
} grounder_t;

static uint64_t inst_hash(uint32_t rule, const tid_t *vals, uint32_t n)
{
    uint64_t h = 0x9ae16a3b2f90404fULL ^ rule;
    for (uint32_t i = 0; i < n; i++) {
        h ^= vals[i];
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
    }
    h *= 0xbf58476d1ce4e5b9ULL; /* the high half is the slot and the tag */
    return h ^ (h >> 31);
}

/* Instances seen (a rule's firing with the same values is recorded once):
 * slots hold the hash's high half << 32 | instance index + 1, so that a
 * probe compares values only on an equal tag, and growing the table
 * hashes nothing again (ruleDepthExponential's 3 million instances spent
 * a third of grounding in the probes' memcmp and the rehash). */
static bool dedup_insert(grounder_t *gr, uint32_t rule, const tid_t *vals, uint32_t nv)
{
    if (((uint64_t)gr->n_inst + 1) * 2 > gr->n_dedup) {
        if (gr->n_dedup >= 1u << 31) { /* 2^30 instances: 32-bit offsets end here */
            gr->too_many = true;
            return false;
        }
        uint32_t ns = gr->n_dedup ? gr->n_dedup * 2 : 1024;
        uint64_t *d = xcalloc(ns, sizeof *d);
        for (uint32_t i = 0; i < gr->n_dedup; i++) {
            uint64_t e = gr->dedup[i];
            if (!e) continue;
            uint32_t j = (uint32_t)(e >> 32) & (ns - 1);
            while (d[j]) j = (j + 1) & (ns - 1);
            d[j] = e;
        }
        free(gr->dedup);
        gr->dedup = d;
        gr->n_dedup = ns;
        gr->bytes += ns * sizeof *d / 2;
    }
    uint64_t tag = inst_hash(rule, vals, nv) >> 32;
    uint32_t mask = gr->n_dedup - 1, j = (uint32_t)tag & mask;
    for (; gr->dedup[j]; j = (j + 1) & mask) {
        if (gr->dedup[j] >> 32 != tag) continue;
        const rec_inst_t *x = &gr->inst[(uint32_t)gr->dedup[j] - 1];
        if (x->rule == rule && (nv == 0 || !memcmp(gr->vals + x->vals_off, vals, nv * sizeof *vals))) return false;
    }
    gr->dedup[j] = tag << 32 | (gr->n_inst + 1);
    return true;
}

static void record(void *ud, const crule_t *c, const tid_t *vals, const uint32_t *matched, uint32_t head_idx)
{
    grounder_t *gr = ud;
    const rules_t *r = gr->r;
    /* static and magic literals are decided while grounding (a magic
     * literal only restricts which instances are made: rules_magic.c) */
    if (c->bridge || r->rels[c->head_rel].phase == PHASE_STATIC || r->rels[c->head_rel].magic) return;
    uint32_t ri = (uint32_t)(c - r->rules);
    /* The record's 32-bit offsets end at 2^32 (a budget of many GB can
     * get there): past 2^31, far more than one instance adds, the
     * grounding stops, as past its memory budget. */
    if (gr->n_lit > UINT32_MAX / 2 || gr->n_vals > UINT32_MAX / 2 || gr->n_negv > UINT32_MAX / 2) gr->too_many = true;
    if (gr->too_many || !dedup_insert(gr, ri, vals, c->n_vars)) {
        if (gr->too_many && !gr->over) {
            gr->over = true;
            gr->ev->aborted = true;
            gr->ev->blame_rel = c->head_rel;
            gr->ev->blame_rule = c;
        }
        return;
    }
    ++gr->rule_inst[ri];
    if (gr->elim_after && (c->elim || r->rels[c->head_rel].magic_ok) && gr->rule_inst[ri] > gr->elim_after &&
        !gr->over) {
        gr->over = true;
        /* A view asked on demand first: merrills' count_loop rule is both,
         * and grounds in 1.4 s so, in 3 s eliminated first (no other game
         * of the corpus has such a rule past the bound). */
        gr->over_magic = r->rels[c->head_rel].magic_ok;
        gr->over_rule = !gr->over_magic;
        gr->over_rel = c->head_rel;
        gr->over_src = c->src_off;
        gr->ev->aborted = true;
        gr->ev->blame_rel = c->head_rel;
        gr->ev->blame_rule = c;
    }
    XVEC_RESERVE(&gr->inst, &gr->cap_inst, gr->n_inst + 1);
    rec_inst_t *x = &gr->inst[gr->n_inst++];
    x->rule = ri;
    x->head = head_idx;
    x->lit_off = gr->n_lit;
    x->n_lit = 0;
    x->neg_off = gr->n_negv;
    x->vals_off = gr->n_vals;
    XVEC_RESERVE(&gr->vals, &gr->cap_vals, gr->n_vals + c->n_vars);
    if (c->n_vars) memcpy(gr->vals + gr->n_vals, vals, c->n_vars * sizeof *vals);
    gr->n_vals += c->n_vars;
    for (uint32_t k = 0; k < c->n_body; k++) {
        const clit_t *l = &c->body[k];
        if (l->kind == CL_DISTINCT || r->rels[l->rel].phase == PHASE_STATIC || r->rels[l->rel].magic) continue;
        XVEC_RESERVE(&gr->lit, &gr->cap_lit, gr->n_lit + 3);
        gr->lit[gr->n_lit++] = l->rel;
        if (l->kind == CL_POS) {
            gr->lit[gr->n_lit++] = matched[k];
            gr->lit[gr->n_lit++] = 0;
        } else {
            /* The negated tuple may only appear later in the fixpoint:
             * keep its values and resolve it at the end. */
            gr->lit[gr->n_lit++] = UINT32_MAX;
            gr->lit[gr->n_lit++] = 1;
            uint32_t ar = r->rels[l->rel].arity;
            XVEC_RESERVE(&gr->negv, &gr->cap_negv, gr->n_negv + ar + 1);
            for (uint32_t a = 0; a < ar; a++) {
                tid_t t = eval_build_term(gr->ev, l->args[a]);
                gr->negv[gr->n_negv++] = t;
            }
        }
        x->n_lit++;
    }
    gr->bytes += sizeof *x + 12 * x->n_lit + 4 * c->n_vars + 8;
    if (gr->bytes > gr->max_bytes && !gr->over) {
        gr->over = true;
        gr->ev->aborted = true;
        gr->ev->blame_rel = c->head_rel;
        gr->ev->blame_rule = c;
    }
}

/* --------------------------------------------------------------- build */

typedef struct named_bit {
    char *canon;
    uint32_t tuple;
} named_bit_t;

static int cmp_named_bit(const void *a, const void *b)
{
    return strcmp(((const named_bit_t *)a)->canon, ((const named_bit_t *)b)->canon);
}

/* The rule with the most instances recorded (UINT32_MAX: none). */
static uint32_t most_instances(const grounder_t *gr, const rules_t *r)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; gr->rule_inst && i < r->n_rules; i++)
        if (gr->rule_inst[i] && (best == UINT32_MAX || gr->rule_inst[i] > gr->rule_inst[best])) best = i;
    return best;
}

static void grounder_free(grounder_t *gr)
{
    free(gr->inst);
    free(gr->lit);
    free(gr->negv);
    free(gr->vals);
    free(gr->dedup);
    free(gr->rule_inst);
}

/* The try before one that eliminates a rule's variables: its static
 * tuples tell rb_eliminate_vars which arguments the others fix
 * (rules_member_set_t fd), kept while the rules are compiled again; then
 * only the answers it gave are kept, for a compile again after a
 * membership relation is found (the same rules ask the same questions). */
typedef struct fd_prev {
    rules_t *r; /* NULL once the tuples are dropped */
    term_store_t *ts;
    evaluator_t stat;
    int8_t *known; /* per relation and argument (from off[rel]): 1 fixed, -1 not, 0 not measured */
    uint32_t *off, n_rels;
} fd_prev_t;

static void fd_prev_drop_tuples(fd_prev_t *f)
{
    if (!f->r) return;
    eval_free(&f->stat);
    rules_free(f->r);
    ts_free(f->ts);
    f->r = NULL;
    f->ts = NULL;
}

static void fd_prev_free(fd_prev_t *f)
{
    fd_prev_drop_tuples(f);
    free(f->known);
    free(f->off);
    *f = (fd_prev_t){0};
}

/* Whether the tuples of s agree at pos wherever they agree elsewhere. */
static bool fd_measure(const relstore_t *s, uint32_t pos)
{
    if (s->n < 2) return true;
    uint32_t ns = 1;
    while (ns < 2 * s->n) ns <<= 1;
    uint32_t *slot = xcalloc(ns, sizeof *slot); /* tuple index + 1 */
    bool fixed = true;
    for (uint32_t i = 0; i < s->n && fixed; i++) {
        const tid_t *t = relstore_tuple(s, i);
        uint64_t h = 0x9ae16a3b2f90404fULL;
        for (uint32_t a = 0; a < s->arity; a++)
            if (a != pos) h = (h ^ t[a]) * 0xff51afd7ed558ccdULL, h ^= h >> 33;
        uint32_t j = (uint32_t)h & (ns - 1);
        for (; slot[j]; j = (j + 1) & (ns - 1)) {
            const tid_t *u = relstore_tuple(s, slot[j] - 1);
            bool same = true;
            for (uint32_t a = 0; a < s->arity && same; a++) same = a == pos || t[a] == u[a];
            if (same) break;
        }
        if (!slot[j]) slot[j] = i + 1;
        else fixed = relstore_tuple(s, slot[j] - 1)[pos] == t[pos];
    }
    free(slot);
    return fixed;
}

static bool fd_fixed(void *ud, uint32_t rel, uint32_t pos)
{
    fd_prev_t *f = ud;
    const rules_t *r = f->r;
    if (!r) return f->known && rel < f->n_rels && pos < f->off[rel + 1] - f->off[rel] && f->known[f->off[rel] + pos] > 0;
    if (rel >= r->n_rels) return false;
    const crel_t *R = &r->rels[rel];
    /* only a relation computed in full (crel_t member: one that could be
     * asked on demand but is computed in full) */
    if (R->phase != PHASE_STATIC || R->demand || R->tabled || R->replaced || pos >= R->arity || !f->stat.store[rel])
        return false;
    if (!f->off) {
        f->n_rels = r->n_rels;
        f->off = xmalloc(((size_t)r->n_rels + 1) * sizeof *f->off);
        f->off[0] = 0;
        for (uint32_t i = 0; i < r->n_rels; i++) f->off[i + 1] = f->off[i] + r->rels[i].arity;
        f->known = xcalloc(f->off[r->n_rels] ? f->off[r->n_rels] : 1, sizeof *f->known);
    }
    int8_t *k = &f->known[f->off[rel] + pos];
    if (!*k) *k = fd_measure(f->stat.store[rel], pos) ? 1 : -1;
    return *k > 0;
}

static const game_vtbl_t propnet_vtbl;
static void pg_destroy(game_t *gg);

game_t *propnet_compile(const program_t *p, const game_options_t *opt, diag_t *d, char *reason, size_t reason_len)
{
    (void)d;
    diag_t quiet;
    diag_init(&quiet, NULL);
    /* The static part is included. The build gets half as much again:
     * its time is about proportional to the recorded network, 0.1-1.3
     * times the grounding's (amazonsTorus 6.7 s after 4.6 s under load);
     * within the grounding budget alone, a game that would be built soon
     * falls back to a rules engine that may need far longer for its first
     * playout (amazonsTorus: 18 s). */
    deadline_t budget = deadline_in_ms(opt->ground_ms);
    deadline_t build_budget = deadline_in_ms(opt->ground_ms + opt->ground_ms / 2);
    /* Relations measured too big to compute in full for membership tests
     * (crel_t member): compiled again with them asked on demand, whatever
     * their estimated size (issue 13 item 4). */
    rules_member_set_t member = {0};
    /* Bucket elimination (rb_eliminate_vars) changes the network, and
     * where a variable has one value per value of the others (a successor)
     * it only adds gates (racer: twice the gates, half the playouts), so
     * it is only used on the rules seen to explode: past eliminate_after
     * instances of one rule that it would rewrite, grounding starts again
     * with that rule's variables eliminated. */
    bool eliminate = opt->eliminate_after == 1, plain = false;
    fd_prev_t prev = {0};
    unsigned tries = 0;
again:;
    tries++;
    term_store_t *ts = ts_new();
    /* The first error of normalising, for the reason (the rules engine
     * says it in full when it is used; --engine propnet only has this). */
    char first[240] = "";
    FILE *errs = fmemopen(first, sizeof first - 1, "w");
    quiet.out = errs;
    quiet.max_errors = 1;
    quiet.show_source = false;
    rules_t *r = rules_compile_member(p, ts, &quiet, RULES_RELAXED | (eliminate ? RULES_ELIMINATE : 0), &member);
    fd_prev_drop_tuples(&prev);
    if (errs) fclose(errs);
    quiet.out = NULL;
    if (!r) {
        rules_member_free(&member);
        fd_prev_free(&prev);
        first[strcspn(first, "\n")] = 0;
        if (*first) snprintf(reason, reason_len, "the rules could not be normalised (%s)", first);
        else snprintf(reason, reason_len, "the rules could not be normalised");
        ts_free(ts);
        return NULL;
    }
    evaluator_t stat, rel;
    eval_init(&stat, r, ts, NULL);
    stat.deadline = budget;
    stat.cancel = opt->cancel;
    /* The relaxed evaluation's own tuples count against the memory budget
     * too (a static relation of billions of tuples: 800 MB in 10 s). */
    stat.mem_limit = opt->ground_mb << 20;
    stat.member_limit = (uint32_t)RULES_MEMBER_BIG;
    stat.progress = opt->progress;
    if (opt->progress) atomic_store(&opt->progress->stage, "grounding the rules");
    bool static_ok = eval_run_phase(&stat, PHASE_STATIC);
    if (!static_ok && stat.over_member && !ts->full && rules_member_add(&member, stat.blame_rel)) {
        eval_free(&stat);
        rules_free(r);
        ts_free(ts);
        goto again;
    }
    eval_init(&rel, r, ts, stat.own);
    rel.relaxed = true;
    rel.deadline = budget;
    rel.cancel = opt->cancel;
    rel.mem_limit = stat.mem < (opt->ground_mb << 20) ? (opt->ground_mb << 20) - stat.mem : 1;
    rel.progress = opt->progress;
    grounder_t gr = {.r = r, .max_bytes = opt->ground_mb << 20, .ev = &rel};
    if (!eliminate && !plain && opt->eliminate_after < UINT32_MAX) /* past it: never */
        gr.elim_after = (uint32_t)opt->eliminate_after;
    gr.rule_inst = xcalloc(r->n_rules ? r->n_rules : 1, sizeof *gr.rule_inst);
    rel.emit = record;
    rel.emit_ud = &gr;
    bool ok = static_ok && eval_run_phases(&rel, PHASE_STATE, PHASE_MOVE);
    if (!ok && !ts->full &&
        ((gr.over_rule && rules_elim_add(&member, gr.over_src)) ||
         (gr.over_magic && rules_magic_add(&member, r, gr.over_rel)))) {
        grounder_free(&gr);
        eval_free(&rel);
        fd_prev_free(&prev);
        prev = (fd_prev_t){.r = r, .ts = ts, .stat = stat};
        member.fd = fd_fixed;
        member.fd_ud = &prev;
        goto again;
    }
    if (!ok && (member.n_elim || eliminate || member.n_magic) && !plain && !ts->full && !deadline_passed(budget) &&
        !(opt->cancel && atomic_load(opt->cancel))) {
        /* The rewrite can do worse than the rules as written (an aux
         * relation over two variables that the rule's other literals
         * narrowed: tests/reasoner/huge_worse.kif): they get what is left
         * of the budget. */
        grounder_free(&gr);
        eval_free(&rel);
        eval_free(&stat);
        rules_free(r);
        ts_free(ts);
        fd_prev_free(&prev);
        member.n_elim = 0;
        member.n_magic = 0;
        member.fd = NULL;
        eliminate = false;
        plain = true;
        goto again;
    }
    rules_member_free(&member);
    fd_prev_free(&prev);
    if (!ok) {
        const evaluator_t *at = static_ok ? &rel : &stat;
        char name[160], rule[256] = "", where[640] = "";
        /* Where the rules blow up: the rule being joined, so that its
         * author sees which join to factor (chess.kif's check rules). */
        uint32_t off = eval_blame_src_off(at);
        if (off != UINT32_MAX && p->src) {
            uint32_t line, col;
            src_locate(p->src, off, &line, &col);
            snprintf(rule, sizeof rule, ", in its rule at %s:%u:%u", p->src->name, line, col);
        }
        if (*eval_blame_name(at, name, sizeof name))
            snprintf(where, sizeof where, " (at relation '%s', %u tuples%s)", name, eval_rel_size(at, eval_blame_rel(at)),
                     rule);
        else if (*rule)
            snprintf(where, sizeof where, " (%s)", rule + 2);
        /* and the source rule with the most instances recorded, if
         * another: where the evaluation stands at a deadline depends on
         * the timing (chess.kif stops in a legal or next rule, run after
         * run, while its check rules' instances are the most) */
        uint32_t big = most_instances(&gr, r);
        if (big != UINT32_MAX && r->rules[big].src_off != off && r->rules[big].src_off != UINT32_MAX && p->src) {
            uint32_t line, col;
            src_locate(p->src, r->rules[big].src_off, &line, &col);
            size_t n = strlen(where);
            snprintf(where + n, sizeof where - n, "; the most instances, %u, of the rule at %s:%u:%u", gr.rule_inst[big],
                     p->src->name, line, col);
        }
        if (ts->full) snprintf(reason, reason_len, "grounding fills the term store");
        else if (gr.too_many)
            snprintf(reason, reason_len, "grounding records more than 2^30 rule instances%s", where);
        else if (gr.over || at->over_mem)
            snprintf(reason, reason_len, "grounding needs more than %zu MB%s", opt->ground_mb, where);
        else
            snprintf(reason, reason_len, "grounding takes longer than %llu ms%s", (unsigned long long)opt->ground_ms,
                     where);
        grounder_free(&gr);
        eval_free(&rel);
        eval_free(&stat);
        rules_free(r);
        ts_free(ts);
        return NULL;
    }

    pgame_t *g = xcalloc(1, sizeof *g);
    game_base_init(&g->base, &propnet_vtbl, p, ts, r);
    g->rules = r;
    const symtab_t *st = p->syms;
    uint32_t n_roles = r->n_roles;

    /* Propositions: per non-static relation, one per relaxed tuple, in
     * the order [true][state views][does][move views]. */
    uint32_t *prop_base = xcalloc(r->n_rels, sizeof *prop_base);
    uint32_t n_props = PROP_FIRST;
    uint32_t state_lo = 0, state_hi = 0, move_lo = 0;
    for (int pass = 0; pass < 4; pass++) {
        if (pass == 1) state_lo = n_props;
        if (pass == 2) state_hi = n_props;
        if (pass == 3) move_lo = n_props;
        for (uint32_t i = 0; i < r->n_rels; i++) {
            phase_t ph = r->rels[i].phase;
            bool take = pass == 0   ? i == r->rel_true
                        : pass == 1 ? ph == PHASE_STATE && i != r->rel_true
                        : pass == 2 ? i == r->rel_does
                                    : ph == PHASE_MOVE && i != r->rel_does;
            if (!take || r->rels[i].magic) continue;
            prop_base[i] = n_props;
            n_props += rel.store[i]->n;
        }
    }
    g->n_props = n_props;

    /* The recorded instances: head proposition and literals. */
    uint32_t *inst_head = xmalloc((gr.n_inst ? gr.n_inst : 1) * sizeof *inst_head);
    uint32_t *inst_lit = xmalloc((gr.n_inst + 1) * sizeof *inst_lit);
    uint32_t *lits = NULL, cap_lits = 0, n_lits = 0;
    for (uint32_t oi = 0; oi < gr.n_inst; oi++) {
        const rec_inst_t *x = &gr.inst[oi];
        const crule_t *c = &r->rules[x->rule];
        inst_head[oi] = prop_base[c->head_rel] + x->head;
        inst_lit[oi] = n_lits;
        uint32_t nv = x->neg_off;
        for (uint32_t k = 0; k < x->n_lit; k++) {
            const uint32_t *l = gr.lit + x->lit_off + 3 * k;
            uint32_t rl = l[0], tuple = l[1], neg = l[2];
            if (neg) {
                uint32_t ar = r->rels[rl].arity;
                bool exists = true;
                for (uint32_t a = 0; a < ar; a++) exists &= gr.negv[nv + a] != 0;
                tuple = exists ? relstore_find(rel.store[rl], gr.negv + nv) : UINT32_MAX;
                nv += ar;
                if (tuple == UINT32_MAX) continue; /* can never hold: the literal is true */
            }
            XVEC_RESERVE(&lits, &cap_lits, n_lits + 1);
            lits[n_lits++] = (prop_base[rl] + tuple) << 1 | neg;
        }
    }
    inst_lit[gr.n_inst] = n_lits;

    /* Base propositions, sorted by canonical text. */
    const relstore_t *tr = rel.store[r->rel_true];
    g->n_base = tr->n;
    g->n_words = (tr->n + 31) / 32;
    named_bit_t *nb = xcalloc(tr->n ? tr->n : 1, sizeof *nb);
    for (uint32_t i = 0; i < tr->n; i++) {
        nb[i].canon = ts_to_string(ts, st, relstore_tuple(tr, i)[0], true);
        nb[i].tuple = i;
    }
    qsort(nb, tr->n, sizeof *nb, cmp_named_bit);
    g->base_prop = xmalloc((tr->n ? tr->n : 1) * sizeof *g->base_prop);
    g->base_canon = xcalloc(tr->n ? tr->n : 1, sizeof *g->base_canon);
    g->base_spell = xcalloc(tr->n ? tr->n : 1, sizeof *g->base_spell);
    uint32_t *bit_of_tuple = xmalloc((tr->n ? tr->n : 1) * sizeof *bit_of_tuple);
    for (uint32_t b = 0; b < tr->n; b++) {
        g->base_prop[b] = prop_base[r->rel_true] + nb[b].tuple;
        g->base_canon[b] = nb[b].canon;
        g->base_spell[b] = ts_to_string(ts, st, relstore_tuple(tr, nb[b].tuple)[0], false);
        bit_of_tuple[nb[b].tuple] = b;
    }
    free(nb);
    /* Initial state. */
    const relstore_t *in = rel.store[r->rel_init];
    g->init_bits = xmalloc((in->n ? in->n : 1) * sizeof *g->init_bits);
    for (uint32_t i = 0; i < in->n; i++) {
        uint32_t t = relstore_find(tr, relstore_tuple(in, i));
        g->init_bits[g->n_init++] = bit_of_tuple[t];
    }
    /* Next: each next tuple maps to its base bit. A static next relation
     * (facts such as (next done)) is always true. */
    const relstore_t *nx = rel.store[r->rel_next];
    g->n_next = nx->n;
    g->next_prop = xmalloc((nx->n ? nx->n : 1) * sizeof *g->next_prop);
    g->next_bit = xmalloc((nx->n ? nx->n : 1) * sizeof *g->next_bit);
    bool next_static = r->rels[r->rel_next].phase == PHASE_STATIC;
    for (uint32_t i = 0; i < nx->n; i++) {
        g->next_prop[i] = next_static ? PROP_TRUE : prop_base[r->rel_next] + i;
        g->next_bit[i] = bit_of_tuple[relstore_find(tr, relstore_tuple(nx, i))];
    }
    free(bit_of_tuple);
    /* Terminal. */
    const relstore_t *te = rel.store[r->rel_terminal];
    g->terminal_prop = te->n == 0 ? PROP_FALSE
                       : r->rels[r->rel_terminal].phase == PHASE_STATIC ? PROP_TRUE
                                                                         : prop_base[r->rel_terminal];
    /* Moves: the relaxed legal tuples, per role in discovery order. */
    g->n_moves = xcalloc(n_roles ? n_roles : 1, sizeof *g->n_moves);
    g->legal_prop = xcalloc(n_roles ? n_roles : 1, sizeof *g->legal_prop);
    g->does_prop = xcalloc(n_roles ? n_roles : 1, sizeof *g->does_prop);
    g->move_term = xcalloc(n_roles ? n_roles : 1, sizeof *g->move_term);
    g->move_canon = xcalloc(n_roles ? n_roles : 1, sizeof *g->move_canon);
    g->move_spell = xcalloc(n_roles ? n_roles : 1, sizeof *g->move_spell);
    const relstore_t *lg = rel.store[r->rel_legal];
    const relstore_t *ds = rel.store[r->rel_does];
    bool legal_static = r->rels[r->rel_legal].phase == PHASE_STATIC;
    for (uint32_t ro = 0; ro < n_roles; ro++) {
        uint32_t cap = 0;
        for (uint32_t i = 0; i < lg->n; i++) {
            const tid_t *tu = relstore_tuple(lg, i);
            if (tu[0] != r->roles[ro]) continue;
            uint32_t m = g->n_moves[ro];
            if (m == cap) {
                cap = cap ? cap * 2 : 16;
                g->legal_prop[ro] = xreallocarray(g->legal_prop[ro], cap, sizeof **g->legal_prop);
                g->does_prop[ro] = xreallocarray(g->does_prop[ro], cap, sizeof **g->does_prop);
                g->move_term[ro] = xreallocarray(g->move_term[ro], cap, sizeof **g->move_term);
                g->move_canon[ro] = xreallocarray(g->move_canon[ro], cap, sizeof **g->move_canon);
                g->move_spell[ro] = xreallocarray(g->move_spell[ro], cap, sizeof **g->move_spell);
            }
            g->legal_prop[ro][m] = legal_static ? PROP_TRUE : prop_base[r->rel_legal] + i;
            g->does_prop[ro][m] = prop_base[r->rel_does] + relstore_find(ds, tu);
            g->move_term[ro][m] = tu[1];
            g->move_canon[ro][m] = ts_to_string(ts, st, tu[1], true);
            g->move_spell[ro][m] = ts_to_string(ts, st, tu[1], false);
            g->n_moves[ro]++;
        }
    }
    /* Goals: per role, the goal tuples with an integer value 0..100. */
    g->n_goals = xcalloc(n_roles ? n_roles : 1, sizeof *g->n_goals);
    g->goal_prop = xcalloc(n_roles ? n_roles : 1, sizeof *g->goal_prop);
    g->goal_value = xcalloc(n_roles ? n_roles : 1, sizeof *g->goal_value);
    const relstore_t *go = rel.store[r->rel_goal];
    bool goal_static = r->rels[r->rel_goal].phase == PHASE_STATIC;
    for (uint32_t ro = 0; ro < n_roles; ro++) {
        g->goal_prop[ro] = xmalloc((go->n ? go->n : 1) * sizeof **g->goal_prop);
        g->goal_value[ro] = xmalloc((go->n ? go->n : 1) * sizeof **g->goal_value);
        for (uint32_t i = 0; i < go->n; i++) {
            const tid_t *tu = relstore_tuple(go, i);
            long v;
            if (tu[0] != r->roles[ro] || ts_arity(ts, tu[1]) != 0 || !symtab_int_value(st, ts_functor(ts, tu[1]), &v) ||
                v < 0 || v > 100)
                continue;
            g->goal_prop[ro][g->n_goals[ro]] = goal_static ? PROP_TRUE : prop_base[r->rel_goal] + i;
            g->goal_value[ro][g->n_goals[ro]++] = (int)v;
        }
    }
    /* The circuit: simplified from the recorded instances. */
    uint8_t *is_input = xcalloc(n_props, 1);
    for (uint32_t q = PROP_FIRST; q < state_lo; q++) is_input[q] = 1;
    for (uint32_t q = state_hi; q < move_lo; q++) is_input[q] = 1;
    pn_raw_t raw = {
        .n_props = n_props,
        .is_input = is_input,
        .n_inst = gr.n_inst,
        .inst_head = inst_head,
        .inst_lit = inst_lit,
        .lits = lits,
        .n_base = g->n_base,
        .n_words = g->n_words,
        .base_prop = g->base_prop,
        .n_roles = n_roles,
        .n_moves = g->n_moves,
        .legal_prop = g->legal_prop,
        .does_prop = g->does_prop,
        .n_goals = g->n_goals,
        .goal_prop = g->goal_prop,
        .terminal_prop = g->terminal_prop,
        .n_next = g->n_next,
        .next_prop = g->next_prop,
        .next_bit = g->next_bit,
        .n_init = g->n_init,
        .init_bits = g->init_bits,
        .deadline = build_budget,
        .cancel = opt->cancel,
    };
    g->circ = pn_circuit_build(&raw);
    free(is_input);
    free(inst_head);
    free(inst_lit);
    free(lits);
    free(prop_base);
    grounder_free(&gr);
    eval_free(&rel);
    eval_free(&stat);
    if (!g->circ) {
        /* The budget bounds the build too: a game whose recorded network
         * takes long to simplify (gt_attrition: 4 million instances, 10-13 s
         * of building) would otherwise pass any start-up bound. */
        snprintf(reason, reason_len, "grounding and building the circuit take longer than %llu ms",
                 (unsigned long long)(opt->ground_ms + opt->ground_ms / 2));
        pg_destroy(&g->base);
        return NULL;
    }
    size_t n_gates, n_edges;
    pn_circuit_size(g->circ, &n_gates, &n_edges);
    g->base.stats.props = n_props - PROP_FIRST;
    g->base.stats.gates = n_gates;
    g->base.stats.base_props = g->n_base;
    g->base.stats.rules = r->n_rules;
    g->base.stats.ground_tries = tries;
    return &g->base;
}

/* ------------------------------------------------------------- running */

static void pg_state_changed(game_ctx_t *cc) { ((pctx_t *)cc)->state_done = false; }

static void ensure_state(pctx_t *c)
{
    if (c->state_done) return;
    /* A snapshot pays when the search comes back to the state (a tree
     * node's); a scratch context's states are seen once, and copying the
     * circuit's counters for each was half of a decisive playout's time. */
    pn_run_set_state(c->run, c->base.cur->data, !c->played && !c->base.scratch && !c->base.once);
    c->played = false;
    c->base.once = false;
    c->state_done = true;
}
static void pg_initial(game_ctx_t *cc, game_state_t *out)
{
    const pgame_t *g = (const pgame_t *)cc->g;
    game_state_reserve(out, g->n_words);
    out->n = g->n_words;
    memset(out->data, 0, g->n_words * sizeof *out->data);
    for (uint32_t i = 0; i < g->n_init; i++) out->data[g->init_bits[i] >> 5] |= 1u << (g->init_bits[i] & 31);
}

static bool pg_terminal(game_ctx_t *cc)
{
    pctx_t *c = (pctx_t *)cc;
    ensure_state(c);
    return pn_run_terminal(c->run);
}

static uint32_t pg_legal(game_ctx_t *cc, uint32_t role, const move_id_t **moves)
{
    pctx_t *c = (pctx_t *)cc;
    ensure_state(c);
    return pn_run_legal(c->run, role, moves);
}

static int pg_goal(game_ctx_t *cc, uint32_t role)
{
    pctx_t *c = (pctx_t *)cc;
    const pgame_t *g = (const pgame_t *)cc->g;
    ensure_state(c);
    int value = GAME_GOAL_NONE;
    for (uint32_t i = 0; i < g->n_goals[role]; i++) {
        if (!pn_run_goal_holds(c->run, role, i)) continue;
        if (value == GAME_GOAL_NONE) value = g->goal_value[role][i];
        else if (value != g->goal_value[role][i]) return GAME_GOAL_MULTIPLE;
    }
    return value;
}

static void pg_next(game_ctx_t *cc, const move_id_t *joint, game_state_t *out)
{
    pctx_t *c = (pctx_t *)cc;
    const pgame_t *g = (const pgame_t *)cc->g;
    ensure_state(c);
    game_state_reserve(out, g->n_words);
    out->n = g->n_words;
    pn_run_next(c->run, joint, out->data);
    c->played = out == c->base.cur;
}

static void pg_state_print(const game_t *gg, const game_state_t *s, FILE *out, bool canonical)
{
    const pgame_t *g = (const pgame_t *)gg;
    bool first = true;
    for (uint32_t b = 0; b < g->n_base; b++) {
        if (!((s->data[b >> 5] >> (b & 31)) & 1)) continue;
        if (!first) fputc(' ', out);
        fputs(canonical ? g->base_canon[b] : g->base_spell[b], out);
        first = false;
    }
}

/* Every base proposition. */
static bool pg_all_fluents(const game_t *gg, game_state_t *out)
{
    const pgame_t *g = (const pgame_t *)gg;
    game_state_reserve(out, g->n_words);
    out->n = g->n_words;
    memset(out->data, 0, g->n_words * sizeof *out->data);
    for (uint32_t b = 0; b < g->n_base; b++) out->data[b >> 5] |= 1u << (b & 31);
    return true;
}

/* Fluent ids are base proposition bits. */
static uint32_t pg_fluents(const game_t *gg, const game_state_t *s, uint32_t *out, uint32_t cap)
{
    const pgame_t *g = (const pgame_t *)gg;
    uint32_t n = 0;
    for (uint32_t w = 0; w < g->n_words && w < s->n; w++)
        for (uint32_t bits = s->data[w]; bits; bits &= bits - 1) {
            if (n < cap) out[n] = w * 32 + (uint32_t)__builtin_ctz(bits);
            n++;
        }
    return n;
}

static size_t pg_fluent_text(const game_t *gg, uint32_t f, char *buf, size_t len)
{
    const pgame_t *g = (const pgame_t *)gg;
    const char *t = f < g->n_base ? g->base_canon[f] : "";
    if (len) snprintf(buf, len, "%s", t);
    return strlen(t);
}

static game_ctx_t *pg_ctx_new(const game_t *gg)
{
    const pgame_t *g = (const pgame_t *)gg;
    pctx_t *c = xcalloc(1, sizeof *c);
    game_ctx_base_init(&c->base, gg);
    c->run = pn_run_new(g->circ);
    return &c->base;
}

static void pg_ctx_free(game_ctx_t *cc)
{
    pctx_t *c = (pctx_t *)cc;
    pn_run_free(c->run);
    pn_lanes_free(c->lanes);
    free(c->goals);
    game_ctx_base_free(cc);
    free(c);
}

typedef struct lanes_cb {
    pctx_t *c;
    game_playout_done_fn done;
    void *ud;
} lanes_cb_t;

static void lanes_done(void *ud, int how, uint32_t plies, uint32_t lane, const move_id_t *hist)
{
    lanes_cb_t *cb = ud;
    const pgame_t *g = (const pgame_t *)cb->c->base.g;
    for (uint32_t r = 0; r < g->base.n_roles; r++) {
        int value = GAME_GOAL_NONE; /* as pg_goal */
        for (uint32_t i = 0; how == PN_LANE_OVER && i < g->n_goals[r]; i++) {
            if (!pn_lanes_goal_holds(cb->c->lanes, lane, r, i)) continue;
            if (value == GAME_GOAL_NONE) value = g->goal_value[r][i];
            else if (value != g->goal_value[r][i]) {
                value = GAME_GOAL_MULTIPLE;
                break;
            }
        }
        cb->c->goals[r] = value;
    }
    cb->done(cb->ud, cb->c->goals, plies,
             how == PN_LANE_OVER     ? GAME_PLAYOUT_OVER
             : how == PN_LANE_CAPPED ? GAME_PLAYOUT_CAPPED
                                     : GAME_PLAYOUT_STUCK,
             hist);
}

static bool pg_playouts(game_ctx_t *cc, const game_state_t *s, uint64_t n, uint32_t cap, rng_t *rng, unsigned flags,
                        game_playout_done_fn done, void *ud)
{
    pctx_t *c = (pctx_t *)cc;
    const pgame_t *g = (const pgame_t *)cc->g;
    if (!c->lanes_tried) {
        c->lanes_tried = true;
        c->lanes = pn_lanes_new(g->circ);
        c->goals = xcalloc(g->base.n_roles ? g->base.n_roles : 1, sizeof *c->goals);
    }
    if (!c->lanes) return false;
    pn_lanes_run(c->lanes, s->data, n, cap, rng, flags & GAME_PLAYOUTS_HISTORY, lanes_done,
                 &(lanes_cb_t){.c = c, .done = done, .ud = ud});
    return true;
}

static uint32_t pg_num_moves(const game_t *gg, uint32_t role) { return ((const pgame_t *)gg)->n_moves[role]; }

static const char *pg_move_name(const game_t *gg, uint32_t role, move_id_t m, bool canonical)
{
    const pgame_t *g = (const pgame_t *)gg;
    if (m >= g->n_moves[role]) return "?";
    return canonical ? g->move_canon[role][m] : g->move_spell[role][m];
}

static tid_t pg_move_term(const game_t *gg, uint32_t role, move_id_t m)
{
    const pgame_t *g = (const pgame_t *)gg;
    return m < g->n_moves[role] ? g->move_term[role][m] : 0;
}

static void pg_destroy(game_t *gg)
{
    pgame_t *g = (pgame_t *)gg;
    for (uint32_t r = 0; r < g->base.n_roles; r++) {
        for (uint32_t m = 0; m < g->n_moves[r]; m++) {
            free(g->move_canon[r][m]);
            free(g->move_spell[r][m]);
        }
        free(g->legal_prop[r]);
        free(g->does_prop[r]);
        free(g->move_term[r]);
        free(g->move_canon[r]);
        free(g->move_spell[r]);
        free(g->goal_prop[r]);
        free(g->goal_value[r]);
    }
    free(g->n_moves);
    free(g->legal_prop);
    free(g->does_prop);
    free(g->move_term);
    free(g->move_canon);
    free(g->move_spell);
    free(g->n_goals);
    free(g->goal_prop);
    free(g->goal_value);
    for (uint32_t b = 0; b < g->n_base; b++) {
        free(g->base_canon[b]);
        free(g->base_spell[b]);
    }
    free(g->base_canon);
    free(g->base_spell);
    free(g->base_prop);
    free(g->init_bits);
    free(g->next_prop);
    free(g->next_bit);
    pn_circuit_free(g->circ);
    rules_free(g->rules);
    game_base_free(&g->base);
    free(g);
}

static const game_vtbl_t propnet_vtbl = {
    .destroy = pg_destroy,
    .state_print = pg_state_print,
    .all_fluents = pg_all_fluents,
    .ctx_new = pg_ctx_new,
    .ctx_free = pg_ctx_free,
    .initial = pg_initial,
    .state_changed = pg_state_changed,
    .terminal = pg_terminal,
    .legal = pg_legal,
    .goal = pg_goal,
    .next = pg_next,
    .num_moves = pg_num_moves,
    .move_name = pg_move_name,
    .move_term = pg_move_term,
    .fluents = pg_fluents,
    .fluent_text = pg_fluent_text,
    .playouts = pg_playouts,
};
