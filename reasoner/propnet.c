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
 * AND of its literals. It runs in the order of the rule components (rules.h),
 * which is a valid order because the program is stratified; a cyclic
 * component is iterated to its fixpoint. Two layers: per state, the
 * instances of relations that depend on `true` only (legal, goal, terminal
 * and helpers); per joint move, those that depend on `does` (next).
 *
 * A state is a bitset over the base propositions, numbered in the sorted
 * order of their canonical text, so that printing a state is sorted.
 *
 * Budgets (game_options_t): grounding stops past ground_ms or when the
 * recorded network would exceed ground_mb; the caller then falls back to
 * the rules engine. */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "reasoner/engine.h"
#include "reasoner/eval.h"

enum { PROP_TRUE = 0, PROP_FALSE = 1, PROP_FIRST = 2 };

/* A block of instances evaluated together: one rule component. */
typedef struct block {
    uint32_t lo, hi; /* instance range */
    bool cyclic;
} block_t;

typedef struct layer {
    block_t *blocks;
    uint32_t n_blocks;
    uint32_t clear_lo, clear_hi; /* propositions reset before the layer */
} layer_t;

typedef struct pgame {
    struct game base;
    rules_t *rules;
    uint32_t n_props;
    /* instances */
    uint32_t n_inst;
    uint32_t *inst_head;
    uint32_t *inst_lit; /* n_inst + 1 offsets into lits */
    uint32_t *lits;     /* prop << 1 | negated */
    layer_t state_layer, move_layer;
    /* Incremental propagation (pctx_t): blocks of both layers in order,
     * level = block index + 1, inputs at level 0. */
    block_t *blocks;
    uint32_t n_blocks;
    uint32_t *inst_meta;    /* literal count | cyclic << 31 */
    uint32_t *inst_group;   /* cyclic instances: their group */
    uint32_t n_groups;      /* cyclic groups of propositions, topological order */
    uint32_t *group_off, *group_inst; /* per group: its cyclic instances */
    uint32_t *prop_cblock;  /* the cyclic group of a proposition, or UINT32_MAX */
    uint32_t move_does_hi;  /* does propositions are [move_layer.clear_lo, move_does_hi) */
    uint32_t *fan_off;      /* n_props + 1 */
    uint32_t *fan;          /* instance << 1 | negated */
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
    uint32_t *bit_of_next_prop; /* per proposition: its next-state bit, or UINT32_MAX */
    uint32_t *const_next;       /* next-state bits that always hold (static next) */
} pgame_t;

typedef struct pctx {
    struct game_ctx base;
    uint8_t *val;
    uint32_t *count;   /* per instance: satisfied literals */
    uint32_t *orcount; /* per proposition: satisfied acyclic instances */
    uint32_t *stack;   /* pending flips (prop << 1 | new value) */
    uint32_t n_stack, cap_stack;
    uint64_t *pending; /* bitmap over cyclic groups to recompute */
    uint8_t *dirty;    /* per cyclic group: to recompute */
    uint32_t *applied; /* the base bitset the circuit currently holds */
    uint32_t *last_does; /* per role: the does proposition set, or UINT32_MAX */
    uint32_t *next_bits; /* the next state, kept up to date by set_prop */
    bool state_done, legal_done;
    move_id_t **legal;
    uint32_t *n_legal;
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
    uint32_t *dedup; /* instance index + 1 */
    uint32_t n_dedup;
    size_t bytes, max_bytes;
    bool over;
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
    return h;
}

static bool dedup_insert(grounder_t *gr, uint32_t rule, const tid_t *vals, uint32_t nv)
{
    if ((gr->n_inst + 1) * 2 > gr->n_dedup) {
        uint32_t ns = gr->n_dedup ? gr->n_dedup * 2 : 1024;
        uint32_t *d = xcalloc(ns, sizeof *d);
        for (uint32_t i = 0; i < gr->n_inst; i++) {
            const rec_inst_t *x = &gr->inst[i];
            uint32_t j = (uint32_t)inst_hash(x->rule, gr->vals + x->vals_off, gr->r->rules[x->rule].n_vars) & (ns - 1);
            while (d[j]) j = (j + 1) & (ns - 1);
            d[j] = i + 1;
        }
        free(gr->dedup);
        gr->dedup = d;
        gr->n_dedup = ns;
        gr->bytes += ns * sizeof *d / 2;
    }
    uint32_t mask = gr->n_dedup - 1, j = (uint32_t)inst_hash(rule, vals, nv) & mask;
    for (; gr->dedup[j]; j = (j + 1) & mask) {
        const rec_inst_t *x = &gr->inst[gr->dedup[j] - 1];
        if (x->rule == rule && (nv == 0 || !memcmp(gr->vals + x->vals_off, vals, nv * sizeof *vals))) return false;
    }
    gr->dedup[j] = gr->n_inst + 1;
    return true;
}

static void record(void *ud, const crule_t *c, const tid_t *vals, const uint32_t *matched, uint32_t head_idx)
{
    grounder_t *gr = ud;
    const rules_t *r = gr->r;
    if (c->bridge || r->rels[c->head_rel].phase == PHASE_STATIC) return;
    uint32_t ri = (uint32_t)(c - r->rules);
    if (!dedup_insert(gr, ri, vals, c->n_vars)) return;
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
        if (l->kind == CL_DISTINCT || r->rels[l->rel].phase == PHASE_STATIC) continue;
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

/* Strongly connected components of the propositions (edges from each
 * literal's proposition to its instance's head), iteratively. comp[p] gets
 * a component number in topological order (inputs first); returns how many
 * components are cyclic (several propositions, or one that feeds itself),
 * and marks them in cyclic[comp]. */
static uint32_t prop_sccs(const pgame_t *g, uint32_t *comp, uint8_t **cyclic_out)
{
    uint32_t n = g->n_props;
    uint32_t *index = xmalloc(n * sizeof *index), *low = xmalloc(n * sizeof *low);
    uint32_t *stack = xmalloc(n * sizeof *stack), *cs_v = xmalloc(n * sizeof *cs_v), *cs_e = xmalloc(n * sizeof *cs_e);
    uint8_t *on = xcalloc(n, 1);
    memset(index, 0xff, n * sizeof *index);
    uint32_t next = 0, sp = 0, n_comp = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (index[root] != UINT32_MAX) continue;
        uint32_t top = 0;
        cs_v[top] = root;
        cs_e[top++] = g->fan_off[root];
        index[root] = low[root] = next++;
        stack[sp++] = root;
        on[root] = 1;
        while (top) {
            uint32_t u = cs_v[top - 1];
            if (cs_e[top - 1] < g->fan_off[u + 1]) {
                uint32_t w = g->inst_head[g->fan[cs_e[top - 1]++] >> 1];
                if (index[w] == UINT32_MAX) {
                    index[w] = low[w] = next++;
                    stack[sp++] = w;
                    on[w] = 1;
                    cs_v[top] = w;
                    cs_e[top++] = g->fan_off[w];
                } else if (on[w] && index[w] < low[u]) {
                    low[u] = index[w];
                }
                continue;
            }
            if (low[u] == index[u]) {
                uint32_t w;
                do {
                    w = stack[--sp];
                    on[w] = 0;
                    comp[w] = n_comp;
                } while (w != u);
                n_comp++;
            }
            top--;
            if (top && low[u] < low[cs_v[top - 1]]) low[cs_v[top - 1]] = low[u];
        }
    }
    /* Tarjan finishes a component after those it feeds: reverse it. */
    uint32_t *size = xcalloc(n_comp ? n_comp : 1, sizeof *size);
    for (uint32_t p = 0; p < n; p++) {
        comp[p] = n_comp - 1 - comp[p];
        size[comp[p]]++;
    }
    uint8_t *cyclic = xcalloc(n_comp ? n_comp : 1, 1);
    uint32_t n_cyclic = 0;
    for (uint32_t p = 0; p < n; p++) {
        bool self = false;
        for (uint32_t f = g->fan_off[p]; f < g->fan_off[p + 1] && !self; f++) self = g->inst_head[g->fan[f] >> 1] == p;
        if ((size[comp[p]] > 1 || self) && !cyclic[comp[p]]) {
            cyclic[comp[p]] = 1;
            n_cyclic++;
        }
    }
    free(size);
    free(index);
    free(low);
    free(stack);
    free(cs_v);
    free(cs_e);
    free(on);
    *cyclic_out = cyclic;
    return n_comp;
}

/* Fan-outs and cyclic groups for incremental propagation. The rules'
 * components say where recursion may be; the propositions say where it
 * is: a recursive count such as Othello's disc tally is acyclic once
 * ground, so only the propositions of cyclic ground components (Hex's
 * connectivity) are recomputed, and everything else is kept by counters. */
static void build_propagation(pgame_t *g)
{
    uint32_t nb = g->state_layer.n_blocks + g->move_layer.n_blocks;
    g->n_blocks = nb;
    g->blocks = xmalloc((nb ? nb : 1) * sizeof *g->blocks);
    if (g->state_layer.n_blocks) memcpy(g->blocks, g->state_layer.blocks, g->state_layer.n_blocks * sizeof *g->blocks);
    if (g->move_layer.n_blocks)
        memcpy(g->blocks + g->state_layer.n_blocks, g->move_layer.blocks, g->move_layer.n_blocks * sizeof *g->blocks);
    g->fan_off = xcalloc(g->n_props + 1, sizeof *g->fan_off);
    for (uint32_t k = 0; k < g->inst_lit[g->n_inst]; k++) g->fan_off[(g->lits[k] >> 1) + 1]++;
    for (uint32_t p = 0; p < g->n_props; p++) g->fan_off[p + 1] += g->fan_off[p];
    uint32_t *fill = xmalloc((g->n_props + 1) * sizeof *fill);
    memcpy(fill, g->fan_off, (g->n_props + 1) * sizeof *fill);
    g->fan = xmalloc((g->inst_lit[g->n_inst] ? g->inst_lit[g->n_inst] : 1) * sizeof *g->fan);
    for (uint32_t i = 0; i < g->n_inst; i++)
        for (uint32_t k = g->inst_lit[i]; k < g->inst_lit[i + 1]; k++)
            g->fan[fill[g->lits[k] >> 1]++] = i << 1 | (g->lits[k] & 1);
    free(fill);

    /* Cyclic groups: numbered in topological order among themselves. */
    uint32_t *comp = xmalloc(g->n_props * sizeof *comp);
    uint8_t *cyclic;
    uint32_t n_comp = prop_sccs(g, comp, &cyclic);
    uint32_t *group_of_comp = xmalloc((n_comp ? n_comp : 1) * sizeof *group_of_comp);
    g->n_groups = 0;
    for (uint32_t k = 0; k < n_comp; k++) group_of_comp[k] = cyclic[k] ? g->n_groups++ : UINT32_MAX;
    g->prop_cblock = xmalloc(g->n_props * sizeof *g->prop_cblock);
    for (uint32_t p = 0; p < g->n_props; p++) g->prop_cblock[p] = group_of_comp[comp[p]];
    /* An instance is cyclic when its head and one of its literals are in
     * the same cyclic group; the group recomputes it. */
    g->inst_meta = xmalloc((g->n_inst ? g->n_inst : 1) * sizeof *g->inst_meta);
    g->inst_group = xmalloc((g->n_inst ? g->n_inst : 1) * sizeof *g->inst_group);
    g->group_off = xcalloc(g->n_groups + 1, sizeof *g->group_off);
    for (uint32_t i = 0; i < g->n_inst; i++) {
        uint32_t grp = g->prop_cblock[g->inst_head[i]];
        bool cyc = false;
        for (uint32_t k = g->inst_lit[i]; k < g->inst_lit[i + 1] && grp != UINT32_MAX && !cyc; k++)
            cyc = g->prop_cblock[g->lits[k] >> 1] == grp;
        g->inst_group[i] = cyc ? grp : UINT32_MAX;
        g->inst_meta[i] = (g->inst_lit[i + 1] - g->inst_lit[i]) | (uint32_t)cyc << 31;
        if (cyc) g->group_off[grp + 1]++;
    }
    for (uint32_t k = 0; k < g->n_groups; k++) g->group_off[k + 1] += g->group_off[k];
    g->group_inst = xmalloc((g->group_off[g->n_groups] ? g->group_off[g->n_groups] : 1) * sizeof *g->group_inst);
    uint32_t *gfill = xmalloc((g->n_groups + 1) * sizeof *gfill);
    memcpy(gfill, g->group_off, (g->n_groups + 1) * sizeof *gfill);
    for (uint32_t i = 0; i < g->n_inst; i++)
        if (g->inst_group[i] != UINT32_MAX) g->group_inst[gfill[g->inst_group[i]]++] = i;
    free(gfill);
    free(group_of_comp);
    free(cyclic);
    free(comp);
}

static void grounder_free(grounder_t *gr)
{
    free(gr->inst);
    free(gr->lit);
    free(gr->negv);
    free(gr->vals);
    free(gr->dedup);
}

static const game_vtbl_t propnet_vtbl;

/* The blocks of one layer: instances are in the order of the real
 * program's rules (rn), so that each of its components is one block. */
static void build_layer(const rules_t *rn, const uint32_t *inst_rule, uint32_t n, phase_t ph, layer_t *out)
{
    uint32_t cap = 0;
    for (uint32_t i = 0; i < n;) {
        const crule_t *c = &rn->rules[inst_rule[i]];
        uint32_t j = i;
        while (j < n && rn->rules[inst_rule[j]].scc == c->scc) j++;
        if (rn->rels[c->head_rel].phase == ph) {
            XVEC_RESERVE(&out->blocks, &cap, out->n_blocks + 1);
            out->blocks[out->n_blocks++] = (block_t){i, j, c->recursive};
        }
        i = j;
    }
}

game_t *propnet_compile(const program_t *p, const game_options_t *opt, diag_t *d, char *reason, size_t reason_len)
{
    (void)d;
    diag_t quiet;
    diag_init(&quiet, NULL);
    term_store_t *ts = ts_new();
    rules_t *r = rules_compile(p, ts, &quiet, RULES_RELAXED);
    if (!r) {
        snprintf(reason, reason_len, "the rules could not be normalised");
        ts_free(ts);
        return NULL;
    }
    evaluator_t stat, rel;
    eval_init(&stat, r, ts, NULL);
    deadline_t budget = deadline_in_ms(opt->ground_ms); /* static part included */
    stat.deadline = budget;
    bool static_ok = eval_run_phase(&stat, PHASE_STATIC);
    eval_init(&rel, r, ts, stat.own);
    rel.relaxed = true;
    rel.deadline = budget;
    grounder_t gr = {.r = r, .max_bytes = opt->ground_mb << 20, .ev = &rel};
    rel.emit = record;
    rel.emit_ud = &gr;
    bool ok = static_ok && eval_run_phases(&rel, PHASE_STATE, PHASE_MOVE);
    if (!ok) {
        if (gr.over) snprintf(reason, reason_len, "grounding needs more than %zu MB", opt->ground_mb);
        else snprintf(reason, reason_len, "grounding takes longer than %llu ms", (unsigned long long)opt->ground_ms);
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
    uint32_t state_lo = 0, state_hi = 0, move_lo = 0, move_hi = 0;
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
            if (!take) continue;
            prop_base[i] = n_props;
            n_props += rel.store[i]->n;
        }
    }
    move_hi = n_props;
    g->n_props = n_props;

    /* The circuit runs in the order of the real program's rules (rn): the
     * relaxed program ignores negation, so its components do not stratify.
     * Both programs number their rules alike (seq); instances are sorted
     * by the real rule's position with a stable counting sort. */
    rules_t *rn = rules_compile(p, ts, &quiet, 0);
    uint32_t *real_of_seq = xcalloc(r->n_rules + 1, sizeof *real_of_seq);
    for (uint32_t i = 0; rn && i < rn->n_rules; i++) real_of_seq[rn->rules[i].seq] = i;
    uint32_t *order = xmalloc((gr.n_inst ? gr.n_inst : 1) * sizeof *order);
    uint32_t *inst_rule = xmalloc((gr.n_inst ? gr.n_inst : 1) * sizeof *inst_rule);
    uint32_t *start = xcalloc(r->n_rules + 1, sizeof *start);
    for (uint32_t i = 0; i < gr.n_inst; i++) start[real_of_seq[r->rules[gr.inst[i].rule].seq] + 1]++;
    for (uint32_t i = 0; i < r->n_rules; i++) start[i + 1] += start[i];
    for (uint32_t i = 0; i < gr.n_inst; i++) {
        uint32_t ni = real_of_seq[r->rules[gr.inst[i].rule].seq];
        inst_rule[start[ni]] = ni;
        order[start[ni]++] = i;
    }
    free(start);
    free(real_of_seq);
    g->n_inst = gr.n_inst;
    g->inst_head = xmalloc((gr.n_inst ? gr.n_inst : 1) * sizeof *g->inst_head);
    g->inst_lit = xmalloc((gr.n_inst + 1) * sizeof *g->inst_lit);
    uint32_t cap_lits = 0, n_lits = 0;
    uint32_t n_kept = 0;
    for (uint32_t oi = 0; oi < gr.n_inst; oi++) {
        const rec_inst_t *x = &gr.inst[order[oi]];
        const crule_t *c = &r->rules[x->rule];
        g->inst_head[n_kept] = prop_base[c->head_rel] + x->head;
        g->inst_lit[n_kept] = n_lits;
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
            XVEC_RESERVE(&g->lits, &cap_lits, n_lits + 1);
            g->lits[n_lits++] = (prop_base[rl] + tuple) << 1 | neg;
        }
        n_kept++;
    }
    g->inst_lit[n_kept] = n_lits;
    g->n_inst = n_kept;
    build_layer(rn, inst_rule, n_kept, PHASE_STATE, &g->state_layer);
    build_layer(rn, inst_rule, n_kept, PHASE_MOVE, &g->move_layer);
    build_propagation(g);
    rules_free(rn);
    free(inst_rule);
    g->state_layer.clear_lo = state_lo;
    g->state_layer.clear_hi = state_hi;
    g->move_layer.clear_lo = state_hi; /* the does inputs, then the move views */
    g->move_does_hi = move_lo;
    g->move_layer.clear_hi = move_hi;
    free(order);

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
    g->bit_of_next_prop = xmalloc(n_props * sizeof *g->bit_of_next_prop);
    memset(g->bit_of_next_prop, 0xff, n_props * sizeof *g->bit_of_next_prop);
    g->const_next = xcalloc(g->n_words ? g->n_words : 1, sizeof *g->const_next);
    for (uint32_t i = 0; i < g->n_next; i++) {
        if (g->next_prop[i] == PROP_TRUE) g->const_next[g->next_bit[i] >> 5] |= 1u << (g->next_bit[i] & 31);
        else g->bit_of_next_prop[g->next_prop[i]] = g->next_bit[i];
    }
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
    g->base.stats.engine = "propnet";
    g->base.stats.props = n_props - PROP_FIRST;
    g->base.stats.gates = g->n_inst;
    g->base.stats.base_props = g->n_base;
    g->base.stats.rules = r->n_rules;
    free(prop_base);
    grounder_free(&gr);
    eval_free(&rel);
    eval_free(&stat);
    return &g->base;
}

/* ------------------------------------------------------------- running */

static void run_layer(const pgame_t *g, uint8_t *val, const layer_t *ly)
{
    const uint32_t *il = g->inst_lit, *lits = g->lits, *head = g->inst_head;
    for (uint32_t b = 0; b < ly->n_blocks; b++) {
        const block_t *bl = &ly->blocks[b];
        bool changed;
        do {
            changed = false;
            for (uint32_t i = bl->lo; i < bl->hi; i++) {
                if (val[head[i]]) continue;
                uint32_t k = il[i], e = il[i + 1];
                for (; k < e; k++) {
                    uint32_t l = lits[k];
                    if (val[l >> 1] == (l & 1)) break;
                }
                if (k == e) {
                    val[head[i]] = 1;
                    changed = true;
                }
            }
        } while (changed && bl->cyclic);
    }
}

static void pg_state_changed(game_ctx_t *cc)
{
    pctx_t *c = (pctx_t *)cc;
    c->state_done = false;
    c->legal_done = false;
}

/* ---- incremental propagation: a proposition that flips updates the
 * satisfied-literal counts of the instances it feeds (AND) and, through
 * them, the satisfied-instance counts of their heads (OR). Changes are
 * processed level by level (levels follow the rule components), so every
 * proposition settles once its inputs have. A cyclic group (recursion
 * such as connectivity in Hex, cyclic among ground propositions) is not
 * counted but recomputed from scratch when one of its inputs changes,
 * because counters would keep a cycle supporting itself after its base is
 * gone. */

static void push_flip(pctx_t *c, uint32_t p, uint8_t v)
{
    const pgame_t *g = (const pgame_t *)c->base.g;
    /* Every change of a proposition passes here: keep the next state. */
    uint32_t nb = g->bit_of_next_prop[p];
    if (nb != UINT32_MAX) c->next_bits[nb >> 5] ^= 1u << (nb & 31);
    XVEC_RESERVE(&c->stack, &c->cap_stack, c->n_stack + 1);
    c->stack[c->n_stack++] = p << 1 | v;
}

static void mark_dirty(pctx_t *c, uint32_t b)
{
    if (c->dirty[b]) return;
    c->dirty[b] = 1;
    c->pending[b >> 6] |= 1ULL << (b & 63);
}

static void set_prop(pctx_t *c, uint32_t p, uint8_t v)
{
    if (c->val[p] == v) return;
    c->val[p] = v;
    push_flip(c, p, v);
}

static void recompute_cyclic(pctx_t *c, uint32_t grp)
{
    const pgame_t *g = (const pgame_t *)c->base.g;
    const uint32_t *list = g->group_inst + g->group_off[grp];
    uint32_t n = g->group_off[grp + 1] - g->group_off[grp];
    uint8_t *val = c->val;
    /* Old values in bit 1, then start from the support outside the group
     * (orcount counts the acyclic instances) and iterate the group's own. */
    for (uint32_t j = 0; j < n; j++) {
        uint32_t h = g->inst_head[list[j]];
        if (!(val[h] & 4)) val[h] = (uint8_t)((val[h] & 1) << 1 | 4);
    }
    for (uint32_t j = 0; j < n; j++) {
        uint32_t h = g->inst_head[list[j]];
        val[h] = (val[h] & ~1u) | (c->orcount[h] > 0);
    }
    bool changed;
    do {
        changed = false;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t i = list[j], h = g->inst_head[i];
            if (val[h] & 1) continue;
            uint32_t k = g->inst_lit[i], e = g->inst_lit[i + 1];
            for (; k < e; k++)
                if ((val[g->lits[k] >> 1] & 1) == (g->lits[k] & 1)) break;
            if (k == e) {
                val[h] |= 1;
                changed = true;
            }
        }
    } while (changed);
    /* Each head once (bit 2 marks it): flip the ones that changed. */
    for (uint32_t j = 0; j < n; j++) {
        uint32_t h = g->inst_head[list[j]];
        if (!(val[h] & 4)) continue;
        uint8_t now = val[h] & 1, before = (val[h] >> 1) & 1;
        val[h] = now;
        if (now != before) push_flip(c, h, now);
    }
}

/* Counter propagation is order-independent on the acyclic part (each flip
 * is applied to the counters exactly once), so flips are processed from a
 * stack as they come; cyclic groups are recomputed once no flip is
 * pending, first group first, and their changes propagate in turn. */
static void propagate(pctx_t *c)
{
    const pgame_t *g = (const pgame_t *)c->base.g;
    const uint32_t *fan = g->fan, *fan_off = g->fan_off, *meta = g->inst_meta, *head = g->inst_head;
    uint32_t *count = c->count, *orcount = c->orcount;
    uint32_t n_words = (g->n_groups + 63) / 64;
    for (;;) {
        while (c->n_stack) {
            uint32_t e = c->stack[--c->n_stack];
            uint32_t p = e >> 1, v = e & 1;
            for (uint32_t f = fan_off[p], fe = fan_off[p + 1]; f < fe; f++) {
                uint32_t i = fan[f] >> 1, m = meta[i];
                if (m >> 31) { /* an instance of a cyclic group */
                    uint32_t grp = g->inst_group[i];
                    if (g->prop_cblock[p] != grp) mark_dirty(c, grp);
                    continue;
                }
                uint32_t n = m & 0x7fffffffu;
                bool was = count[i] == n;
                count[i] += v != (fan[f] & 1) ? 1 : (uint32_t)-1;
                bool now = count[i] == n;
                if (was == now) continue;
                uint32_t h = head[i];
                orcount[h] += now ? 1 : (uint32_t)-1;
                if (g->prop_cblock[h] != UINT32_MAX) {
                    mark_dirty(c, g->prop_cblock[h]);
                    continue;
                }
                uint8_t hv = orcount[h] > 0;
                if (c->val[h] != hv) {
                    c->val[h] = hv;
                    push_flip(c, h, hv);
                }
            }
        }
        uint32_t w = 0;
        while (w < n_words && !c->pending[w]) w++;
        if (w == n_words) return;
        uint32_t b = w * 64 + (uint32_t)__builtin_ctzll(c->pending[w]);
        c->pending[w] &= ~(1ULL << (b & 63));
        c->dirty[b] = 0;
        recompute_cyclic(c, b);
    }
}

/* Evaluate everything from the current inputs and set the counters. */
static void full_eval(pctx_t *c)
{
    const pgame_t *g = (const pgame_t *)c->base.g;
    memset(c->val + g->state_layer.clear_lo, 0, g->state_layer.clear_hi - g->state_layer.clear_lo);
    run_layer(g, c->val, &g->state_layer);
    run_layer(g, c->val, &g->move_layer);
    memset(c->orcount, 0, g->n_props * sizeof *c->orcount);
    for (uint32_t i = 0; i < g->n_inst; i++) {
        uint32_t n = 0;
        for (uint32_t k = g->inst_lit[i]; k < g->inst_lit[i + 1]; k++)
            n += c->val[g->lits[k] >> 1] != (g->lits[k] & 1);
        c->count[i] = n;
        if (!(g->inst_meta[i] >> 31) && n == g->inst_lit[i + 1] - g->inst_lit[i])
            c->orcount[g->inst_head[i]]++;
    }
    for (uint32_t i = 0; i < g->n_next; i++)
        if (g->next_prop[i] != PROP_TRUE && c->val[g->next_prop[i]])
            c->next_bits[g->next_bit[i] >> 5] |= 1u << (g->next_bit[i] & 31);
}

static void ensure_state(pctx_t *c)
{
    if (c->state_done) return;
    const pgame_t *g = (const pgame_t *)c->base.g;
    const game_state_t *s = c->base.cur;
    /* Only the base propositions that differ from the circuit's. */
    for (uint32_t w = 0; w < g->n_words; w++) {
        uint32_t diff = s->data[w] ^ c->applied[w];
        while (diff) {
            uint32_t b = w * 32 + (uint32_t)__builtin_ctz(diff);
            diff &= diff - 1;
            set_prop(c, g->base_prop[b], (s->data[w] >> (b & 31)) & 1);
        }
        c->applied[w] = s->data[w];
    }
    propagate(c);
    c->state_done = true;
    c->legal_done = false;
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
    return c->val[((const pgame_t *)cc->g)->terminal_prop];
}

static uint32_t pg_legal(game_ctx_t *cc, uint32_t role, const move_id_t **moves)
{
    pctx_t *c = (pctx_t *)cc;
    const pgame_t *g = (const pgame_t *)cc->g;
    ensure_state(c);
    if (!c->legal_done) {
        for (uint32_t r = 0; r < g->base.n_roles; r++) {
            uint32_t n = 0;
            for (uint32_t m = 0; m < g->n_moves[r]; m++)
                if (c->val[g->legal_prop[r][m]]) c->legal[r][n++] = m;
            c->n_legal[r] = n;
        }
        c->legal_done = true;
    }
    *moves = c->legal[role];
    return c->n_legal[role];
}

static int pg_goal(game_ctx_t *cc, uint32_t role)
{
    pctx_t *c = (pctx_t *)cc;
    const pgame_t *g = (const pgame_t *)cc->g;
    ensure_state(c);
    int value = GAME_GOAL_NONE;
    for (uint32_t i = 0; i < g->n_goals[role]; i++) {
        if (!c->val[g->goal_prop[role][i]]) continue;
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
    /* Inputs: exactly the joint move's does propositions (the previous
     * joint's go off, unless chosen again). */
    uint32_t nr = g->base.n_roles;
    for (uint32_t r = 0; r < nr; r++)
        if (c->last_does[r] != UINT32_MAX) set_prop(c, c->last_does[r], 0);
    for (uint32_t r = 0; r < nr; r++) {
        c->last_does[r] = g->does_prop[r][joint[r]];
        set_prop(c, c->last_does[r], 1);
    }
    propagate(c);
    game_state_reserve(out, g->n_words);
    out->n = g->n_words;
    for (uint32_t w = 0; w < g->n_words; w++) out->data[w] = c->next_bits[w] | g->const_next[w];
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

static game_ctx_t *pg_ctx_new(const game_t *gg)
{
    const pgame_t *g = (const pgame_t *)gg;
    pctx_t *c = xcalloc(1, sizeof *c);
    game_ctx_base_init(&c->base, gg);
    c->val = xcalloc(g->n_props, 1);
    c->val[PROP_TRUE] = 1;
    c->count = xcalloc(g->n_inst ? g->n_inst : 1, sizeof *c->count);
    c->orcount = xcalloc(g->n_props, sizeof *c->orcount);
    uint32_t nl = g->n_groups + 1;
    c->pending = xcalloc((nl + 63) / 64, sizeof *c->pending);
    c->dirty = xcalloc(nl, 1);
    c->applied = xcalloc(g->n_words ? g->n_words : 1, sizeof *c->applied);
    c->next_bits = xcalloc(g->n_words ? g->n_words : 1, sizeof *c->next_bits);
    c->last_does = xmalloc((g->base.n_roles ? g->base.n_roles : 1) * sizeof *c->last_does);
    memset(c->last_does, 0xff, (g->base.n_roles ? g->base.n_roles : 1) * sizeof *c->last_does);
    full_eval(c);
    uint32_t n = g->base.n_roles ? g->base.n_roles : 1;
    c->legal = xcalloc(n, sizeof *c->legal);
    c->n_legal = xcalloc(n, sizeof *c->n_legal);
    for (uint32_t r = 0; r < g->base.n_roles; r++) c->legal[r] = xcalloc(g->n_moves[r] ? g->n_moves[r] : 1, sizeof(move_id_t));
    return &c->base;
}

static void pg_ctx_free(game_ctx_t *cc)
{
    pctx_t *c = (pctx_t *)cc;
    for (uint32_t r = 0; r < cc->g->n_roles; r++) free(c->legal[r]);
    free(c->legal);
    free(c->n_legal);
    free(c->val);
    free(c->count);
    free(c->orcount);
    free(c->stack);
    free(c->pending);
    free(c->dirty);
    free(c->applied);
    free(c->next_bits);
    free(c->last_does);
    game_ctx_base_free(cc);
    free(c);
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
    free(g->bit_of_next_prop);
    free(g->const_next);
    free(g->inst_head);
    free(g->inst_lit);
    free(g->lits);
    free(g->blocks);
    free(g->inst_meta);
    free(g->inst_group);
    free(g->group_off);
    free(g->group_inst);
    free(g->prop_cblock);
    free(g->fan_off);
    free(g->fan);
    free(g->state_layer.blocks);
    free(g->move_layer.blocks);
    rules_free(g->rules);
    game_base_free(&g->base);
    free(g);
}

static const game_vtbl_t propnet_vtbl = {
    .destroy = pg_destroy,
    .state_print = pg_state_print,
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
};
