/* validate.c - static checks of a GDL description (see validate.h).
 *
 * Three passes over the rules:
 *   1. local checks, rule by rule: keywords, arities, facts, goal values,
 *      roles, safety;
 *   2. the rule graph: rule B depends on rule A when A's head, renamed
 *      apart, unifies with a literal of B's body (gdl-protocol §2.4.2).
 *      Its strongly connected components give rule-level stratification
 *      and the reachability of `true` and `does`;
 *   3. the relation graph (head name -> body names), whose components
 *      define "recursive" for the recursion restriction, as the spec and
 *      Griddle's OriginalRecursionRestriction do (§2.4.3).
 * Diagnostics are buffered and printed sorted by source offset, so that a
 * description's problems read top to bottom whatever pass found them.
 *
 * Everything untrusted is bounded: SCCs are computed without recursion
 * (base/scc.h), unification has a step budget (when it runs out the
 * literals are taken to unify, which can only add dependency edges), and
 * the expensive cycle explanations are given for the first few negative
 * cycles only. */
#include "gdl/validate.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/scc.h"
#include "base/xalloc.h"

#define NONE UINT32_MAX

/* ---- buffered diagnostics --------------------------------------------- */

typedef struct pend {
    diag_level_t level;
    bool has_loc;
    uint32_t off;   /* where the message points */
    uint32_t key;   /* offset of the error a note belongs to (sort key) */
    uint32_t group; /* sequence number of that error */
    uint32_t seq;
    char *msg;
} pend_t;

/* What validation learns of a name used as a relation or a function, or
 * of a variable of the rules: records exist for those names only, so a
 * fact file's hundreds of thousands of constants cost 4 bytes each. */
typedef struct name_rec {
    int32_t rel_arity, fn_arity; /* -1: not seen as such */
    uint32_t rel_off, fn_off;    /* where first seen */
    bool rel_used;
    uint32_t rel_id; /* passes 2 and 3: dense relation id, or NONE */
    uint32_t var_id; /* pass 2: dense variable id, or NONE */
} name_rec_t;

typedef struct val {
    const program_t *p;
    const symtab_t *st;
    size_t n_syms;
    pend_t *pend;
    size_t n_pend, cap_pend;
    uint32_t cur_key, cur_group;
    unsigned errors;
    uint32_t *name_ix; /* by symbol: index in names, or NONE */
    name_rec_t *names;
    size_t n_names, cap_names;
    bool *ignored; /* per rule: old Dresden base form */
    gdl_info_t *info;
    size_t cap_roles, cap_role_off;
    uint32_t *role_off;
    /* passes 2 and 3: relation names of the rules with a body, numbered
     * densely (graphs over them, not over every symbol of the facts) */
    uint32_t n_rel;
} val_t;

/* The record of name s, created if new; valid until the next call. */
static name_rec_t *name_rec(val_t *v, sym_t s)
{
    if (v->name_ix[s] == NONE) {
        XVEC_RESERVE(&v->names, &v->cap_names, v->n_names + 1);
        v->name_ix[s] = (uint32_t)v->n_names;
        v->names[v->n_names++] = (name_rec_t){.rel_arity = -1, .fn_arity = -1, .rel_id = NONE, .var_id = NONE};
    }
    return &v->names[v->name_ix[s]];
}

/* Dense relation id of s, given by build_rule_graph. */
static uint32_t rel_id(const val_t *v, sym_t s) { return v->names[v->name_ix[s]].rel_id; }

static void __attribute__((format(printf, 5, 0)))
vreport(val_t *v, diag_level_t level, bool has_loc, uint32_t off, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    XVEC_RESERVE(&v->pend, &v->cap_pend, v->n_pend + 1);
    pend_t *e = &v->pend[v->n_pend];
    e->level = level;
    e->has_loc = has_loc;
    e->off = off;
    e->seq = (uint32_t)v->n_pend;
    e->msg = xstrdup(buf);
    if (level == DIAG_NOTE) {
        e->key = v->cur_key;
        e->group = v->cur_group;
        e->has_loc = has_loc;
        /* a note sorts with its error, whatever its own location */
        e->level = DIAG_NOTE;
    } else {
        e->key = has_loc ? off : UINT32_MAX;
        e->group = e->seq;
        v->cur_key = e->key;
        v->cur_group = e->group;
        if (level == DIAG_ERROR) v->errors++;
    }
    v->n_pend++;
}

static void __attribute__((format(printf, 3, 4))) err_at(val_t *v, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(v, DIAG_ERROR, true, off, fmt, ap);
    va_end(ap);
}

static void __attribute__((format(printf, 3, 4))) warn_at(val_t *v, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(v, DIAG_WARNING, true, off, fmt, ap);
    va_end(ap);
}

static void __attribute__((format(printf, 3, 4))) note_at(val_t *v, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(v, DIAG_NOTE, true, off, fmt, ap);
    va_end(ap);
}

/* A problem of the whole description (something missing): reported at
 * the file (line 1, column 1), with no source line. */
static void __attribute__((format(printf, 3, 4))) whole(val_t *v, diag_level_t level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(v, level, false, 0, fmt, ap);
    va_end(ap);
}

static int pend_cmp(const void *a, const void *b)
{
    const pend_t *x = a, *y = b;
    /* located problems first, by offset; then by error, then emission */
    bool xl = x->key != UINT32_MAX, yl = y->key != UINT32_MAX;
    if (xl != yl) return xl ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void flush(val_t *v, diag_t *d)
{
    if (v->n_pend > 1) qsort(v->pend, v->n_pend, sizeof *v->pend, pend_cmp);
    for (size_t i = 0; i < v->n_pend; i++) {
        pend_t *e = &v->pend[i];
        if (e->has_loc) diag_report(d, e->level, v->p->src, e->off, "%s", e->msg);
        else diag_report_file(d, e->level, v->p->src, "%s", e->msg);
        free(e->msg);
    }
    free(v->pend);
    v->pend = NULL;
    v->n_pend = v->cap_pend = 0;
}

/* ---- names and terms --------------------------------------------------- */

static const char *nm(const val_t *v, sym_t s) { return symtab_spelling(v->st, s); }

/* Fixed arity of a GDL keyword relation, or -1 (gdl-protocol §1.4). */
static int kw_arity(sym_t s)
{
    switch (s) {
    case SYM_TERMINAL: return 0;
    case SYM_ROLE:
    case SYM_INIT:
    case SYM_TRUE:
    case SYM_NEXT:
    case SYM_BASE: return 1;
    case SYM_DOES:
    case SYM_LEGAL:
    case SYM_GOAL:
    case SYM_INPUT: return 2;
    default: return -1;
    }
}

static const char *plural(uint32_t n) { return n == 1 ? "" : "s"; }

/* Append t, spelled as in the description, to buf; truncated with "...". */
static void term_fmt_rec(const val_t *v, const term_t *t, char *buf, size_t cap, size_t *len)
{
    if (*len + 1 >= cap) return;
    const char *s = nm(v, t->sym);
    if (t->kind != TERM_FN) {
        *len += (size_t)snprintf(buf + *len, cap - *len, "%s", s);
        if (*len >= cap) *len = cap - 1;
        return;
    }
    *len += (size_t)snprintf(buf + *len, cap - *len, "(%s", s);
    if (*len >= cap) *len = cap - 1;
    for (uint32_t i = 0; i < t->arity && *len + 1 < cap; i++) {
        *len += (size_t)snprintf(buf + *len, cap - *len, " ");
        if (*len >= cap) *len = cap - 1;
        term_fmt_rec(v, t->args[i], buf, cap, len);
    }
    if (*len + 1 < cap) buf[(*len)++] = ')';
    buf[*len] = '\0';
}

static const char *term_fmt(const val_t *v, const term_t *t, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    term_fmt_rec(v, t, buf, cap, &len);
    if (len + 1 >= cap && cap > 4) memcpy(buf + cap - 4, "...", 4);
    return buf;
}

static bool term_equal(const term_t *a, const term_t *b)
{
    if (a->kind != b->kind || a->sym != b->sym || term_arity(a) != term_arity(b)) return false;
    for (uint32_t i = 0; i < term_arity(a); i++)
        if (!term_equal(a->args[i], b->args[i])) return false;
    return true;
}

/* ---- variable sets (sorted vectors of symbols) -------------------------- */

typedef struct vset {
    sym_t *v;
    size_t n, cap;
} vset_t;

static void vs_push(vset_t *s, sym_t x)
{
    XVEC_RESERVE(&s->v, &s->cap, s->n + 1);
    s->v[s->n++] = x;
}

static void vs_add_vars(vset_t *s, const term_t *t)
{
    if (t->kind == TERM_VAR) vs_push(s, t->sym);
    for (uint32_t i = 0; i < term_arity(t); i++) vs_add_vars(s, t->args[i]);
}

static int sym_cmp(const void *a, const void *b)
{
    sym_t x = *(const sym_t *)a, y = *(const sym_t *)b;
    return x < y ? -1 : x > y;
}

static void vs_norm(vset_t *s)
{
    if (s->n < 2) return;
    qsort(s->v, s->n, sizeof *s->v, sym_cmp);
    size_t k = 1;
    for (size_t i = 1; i < s->n; i++)
        if (s->v[i] != s->v[k - 1]) s->v[k++] = s->v[i];
    s->n = k;
}

static bool vs_has(const vset_t *s, sym_t x) /* s normalised */
{
    return s->n && bsearch(&x, s->v, s->n, sizeof *s->v, sym_cmp) != NULL;
}

static bool vs_has_linear(const vset_t *s, sym_t x)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == x) return true;
    return false;
}

static void vs_free(vset_t *s)
{
    free(s->v);
    *s = (vset_t){0};
}

/* Variables that literal l binds: those of a positive sentence; for an
 * `or`, those bound by every disjunct (gdl-protocol §2.1, §2.4.1). */
static void vs_bound(vset_t *out, const lit_t *l)
{
    if (l->kind == LIT_ATOM) {
        vs_add_vars(out, l->atom);
    } else if (l->kind == LIT_OR && l->n_disj > 0) {
        vset_t acc = {0};
        vs_bound(&acc, l->disj[0]);
        vs_norm(&acc);
        for (uint32_t i = 1; i < l->n_disj && acc.n; i++) {
            vset_t di = {0};
            vs_bound(&di, l->disj[i]);
            vs_norm(&di);
            size_t k = 0;
            for (size_t j = 0; j < acc.n; j++)
                if (vs_has(&di, acc.v[j])) acc.v[k++] = acc.v[j];
            acc.n = k;
            vs_free(&di);
        }
        for (size_t j = 0; j < acc.n; j++) vs_push(out, acc.v[j]);
        vs_free(&acc);
    }
}

/* Variables of every positive sentence, `or` disjuncts included (for the
 * hint "bound in only some disjuncts"). */
static void vs_positive_anywhere(vset_t *out, const lit_t *l)
{
    if (l->kind == LIT_ATOM) vs_add_vars(out, l->atom);
    else if (l->kind == LIT_OR)
        for (uint32_t i = 0; i < l->n_disj; i++) vs_positive_anywhere(out, l->disj[i]);
}

/* ---- pass 1: local checks ------------------------------------------------ */

static void check_rel_arity(val_t *v, const term_t *t)
{
    sym_t s = t->sym;
    uint32_t ar = term_arity(t);
    name_rec_t *r = name_rec(v, s);
    r->rel_used = true;
    int kw = kw_arity(s);
    if (kw >= 0) {
        if (ar != (uint32_t)kw)
            err_at(v, t->off, "'%s' takes %d argument%s, not %u", nm(v, s), kw, plural((uint32_t)kw), ar);
        return;
    }
    if (r->rel_arity < 0) {
        r->rel_arity = (int32_t)ar;
        r->rel_off = t->off;
    } else if ((uint32_t)r->rel_arity != ar) {
        err_at(v, t->off, "relation '%s' has %u argument%s here but %d where first used", nm(v, s), ar, plural(ar),
               r->rel_arity);
        note_at(v, r->rel_off, "'%s' first used here with %d argument%s", nm(v, s), r->rel_arity,
                plural((uint32_t)r->rel_arity));
    }
}

/* Arguments of a sentence: function names and arities; in a fact, no
 * variables (each reported once per fact through *seen). */
static void check_term(val_t *v, const term_t *t, vset_t *fact_vars)
{
    if (t->kind == TERM_VAR) {
        if (fact_vars && !vs_has_linear(fact_vars, t->sym)) {
            vs_push(fact_vars, t->sym);
            err_at(v, t->off, "variable '%s' in a fact: facts must be ground (variables belong in rules)",
                   nm(v, t->sym));
        }
        return;
    }
    if (t->kind != TERM_FN) return;
    sym_t s = t->sym;
    name_rec_t *r = name_rec(v, s); /* not used past the recursion below */
    if (kw_arity(s) >= 0) {
        err_at(v, t->off, "'%s' is a GDL keyword and cannot be the name of a function", nm(v, s));
    } else if (r->fn_arity < 0) {
        r->fn_arity = (int32_t)t->arity;
        r->fn_off = t->off;
        if (t->arity > GDL_MAX_ARITY)
            err_at(v, t->off, "function '%s' has %u arguments: at most %d are supported", nm(v, s), t->arity,
                   GDL_MAX_ARITY);
    } else if ((uint32_t)r->fn_arity != t->arity) {
        err_at(v, t->off, "function '%s' has %u argument%s here but %d where first used", nm(v, s), t->arity,
               plural(t->arity), r->fn_arity);
        note_at(v, r->fn_off, "'%s' first used here with %d argument%s", nm(v, s), r->fn_arity,
                plural((uint32_t)r->fn_arity));
    }
    for (uint32_t i = 0; i < t->arity; i++) check_term(v, t->args[i], fact_vars);
}

static void check_role_fact(val_t *v, const rule_t *r, vset_t *fact_vars)
{
    const term_t *h = r->head;
    if (term_arity(h) != 1) return; /* reported as a keyword arity error */
    const term_t *a = h->args[0];
    if (a->kind == TERM_VAR) {
        vs_push(fact_vars, a->sym); /* reported here, not again as a fact variable */
        err_at(v, a->off, "a role must be a ground constant, not the variable '%s'", nm(v, a->sym));
        return;
    }
    if (a->kind == TERM_FN) {
        char buf[128];
        err_at(v, a->off, "a role must be a constant name, not the function term '%s'", term_fmt(v, a, buf, sizeof buf));
        return;
    }
    gdl_info_t *info = v->info;
    for (uint32_t i = 0; i < info->n_roles; i++) {
        if (info->roles[i] == a->sym) {
            err_at(v, a->off, "role '%s' is declared twice", nm(v, a->sym));
            note_at(v, v->role_off[i], "first declared here");
            return;
        }
    }
    XVEC_RESERVE(&info->roles, &v->cap_roles, info->n_roles + 1);
    XVEC_RESERVE(&v->role_off, &v->cap_role_off, info->n_roles + 1);
    v->role_off[info->n_roles] = a->off;
    info->roles[info->n_roles++] = a->sym;
}

static void check_goal_value(val_t *v, const term_t *h)
{
    if (term_arity(h) != 2) return;
    const term_t *g = h->args[1];
    if (!term_is_ground(g)) return; /* computed values are checked when games run */
    long val;
    if (g->kind == TERM_CONST && symtab_int_value(v->st, g->sym, &val) && val >= 0 && val <= 100) return;
    char buf[128];
    err_at(v, g->off, "goal value must be an integer from 0 to 100, not '%s'", term_fmt(v, g, buf, sizeof buf));
}

static void check_head(val_t *v, const rule_t *r)
{
    const term_t *h = r->head;
    sym_t s = h->sym;
    bool fact = r->n_body == 0;
    vset_t fact_vars = {0};
    if (s == SYM_TRUE || s == SYM_DOES) {
        name_rec(v, s)->rel_used = true;
        if (fact)
            err_at(v, h->off, "'%s' cannot be a fact: it is given by the %s", nm(v, s),
                   s == SYM_TRUE ? "current state" : "players' moves");
        else
            err_at(v, h->off, "'%s' cannot be the head of a rule: it is given by the %s", nm(v, s),
                   s == SYM_TRUE ? "current state" : "players' moves");
    } else if (s == SYM_ROLE && !fact) {
        name_rec(v, s)->rel_used = true;
        err_at(v, h->off, "'role' can only be given as ground facts, not derived by a rule");
    } else {
        check_rel_arity(v, h);
        if (s == SYM_ROLE) check_role_fact(v, r, &fact_vars);
        if (s == SYM_GOAL) check_goal_value(v, h);
    }
    for (uint32_t i = 0; i < term_arity(h); i++) check_term(v, h->args[i], fact ? &fact_vars : NULL);
    vs_free(&fact_vars);
}

static void check_body_lit(val_t *v, const lit_t *l)
{
    switch (l->kind) {
    case LIT_ATOM:
    case LIT_NOT: {
        const term_t *a = l->atom;
        sym_t s = a->sym;
        if (s == SYM_NEXT || s == SYM_INIT || s == SYM_BASE || s == SYM_INPUT) {
            name_rec(v, s)->rel_used = true;
            err_at(v, a->off, "'%s' cannot appear in a rule body: it may only be a rule head or a fact", nm(v, s));
        } else {
            check_rel_arity(v, a);
        }
        for (uint32_t i = 0; i < term_arity(a); i++) check_term(v, a->args[i], NULL);
        break;
    }
    case LIT_DISTINCT:
    case LIT_EQUAL:
        check_term(v, l->lhs, NULL);
        check_term(v, l->rhs, NULL);
        break;
    case LIT_OR:
        if (l->n_disj == 0) warn_at(v, l->off, "empty 'or' is always false: this rule can never apply");
        for (uint32_t i = 0; i < l->n_disj; i++) check_body_lit(v, l->disj[i]);
        break;
    }
}

/* ---- safety (gdl-protocol §2.4.1) ---------------------------------------- */

typedef struct safety {
    val_t *v;
    const vset_t *anywhere; /* variables of any positive sentence */
    vset_t reported;
} safety_t;

static void unsafe_vars(safety_t *sf, const term_t *t, const vset_t *bound, const char *where)
{
    if (t->kind == TERM_VAR) {
        if (vs_has(bound, t->sym) || vs_has_linear(&sf->reported, t->sym)) return;
        vs_push(&sf->reported, t->sym);
        err_at(sf->v, t->off, "unsafe rule: variable '%s' %s does not occur in a positive literal of the body%s",
               nm(sf->v, t->sym), where,
               vs_has(sf->anywhere, t->sym) ? " (it is bound in only some disjuncts of an 'or')" : "");
        return;
    }
    for (uint32_t i = 0; i < term_arity(t); i++) unsafe_vars(sf, t->args[i], bound, where);
}

static void check_lit_safe(safety_t *sf, const lit_t *l, const vset_t *bound)
{
    switch (l->kind) {
    case LIT_ATOM: break;
    case LIT_NOT: unsafe_vars(sf, l->atom, bound, "under 'not'"); break;
    case LIT_DISTINCT:
    case LIT_EQUAL:
        unsafe_vars(sf, l->lhs, bound, "in 'distinct'");
        unsafe_vars(sf, l->rhs, bound, "in 'distinct'");
        break;
    case LIT_OR:
        /* a disjunct may use what the rest of the body binds, plus what it
         * binds itself */
        for (uint32_t i = 0; i < l->n_disj; i++) {
            vset_t b = {0};
            for (size_t j = 0; j < bound->n; j++) vs_push(&b, bound->v[j]);
            vs_bound(&b, l->disj[i]);
            vs_norm(&b);
            check_lit_safe(sf, l->disj[i], &b);
            vs_free(&b);
        }
        break;
    }
}

static void check_safety(val_t *v, const rule_t *r)
{
    if (r->n_body == 0) return; /* facts: variables reported as such */
    vset_t bound = {0}, anywhere = {0};
    for (uint32_t i = 0; i < r->n_body; i++) {
        vs_bound(&bound, r->body[i]);
        vs_positive_anywhere(&anywhere, r->body[i]);
    }
    vs_norm(&bound);
    vs_norm(&anywhere);
    safety_t sf = {.v = v, .anywhere = &anywhere};
    unsafe_vars(&sf, r->head, &bound, "in the head");
    for (uint32_t i = 0; i < r->n_body; i++) check_lit_safe(&sf, r->body[i], &bound);
    vs_free(&sf.reported);
    vs_free(&bound);
    vs_free(&anywhere);
}

/* ---- unification of two sentences renamed apart ------------------------ */

typedef struct unifier {
    const val_t *v;         /* its name records give each variable a dense id */
    const term_t **bt[2];   /* binding of variable id on side 0/1 */
    uint8_t *bs[2];         /* side of the bound term */
    uint32_t *trail;        /* (side << 31) | variable id */
    size_t n_trail, cap_trail;
    long budget;
} unifier_t;

/* Steps per unification; also bounds the recursion depth of unify_rec and
 * occurs (terms are at most SX_MAX_DEPTH deep). */
#define UNIFY_BUDGET 10000

static uint32_t var_id(const val_t *v, sym_t s) { return v->names[v->name_ix[s]].var_id; }

static void deref(const unifier_t *u, const term_t **t, int *side)
{
    while ((*t)->kind == TERM_VAR && u->bt[*side][var_id(u->v, (*t)->sym)]) {
        uint32_t x = var_id(u->v, (*t)->sym);
        const term_t *n = u->bt[*side][x];
        *side = u->bs[*side][x];
        *t = n;
    }
}

/* Does variable (sym, side) occur in t? Over budget the answer is "no":
 * the binding is made and unify_rec, out of budget, reports a match. */
static bool occurs(unifier_t *u, sym_t x, int xs, const term_t *t, int ts)
{
    if (--u->budget < 0) return false;
    deref(u, &t, &ts);
    if (t->kind == TERM_VAR) return t->sym == x && ts == xs;
    for (uint32_t i = 0; i < term_arity(t); i++)
        if (occurs(u, x, xs, t->args[i], ts)) return true;
    return false;
}

static void bind(unifier_t *u, const term_t *var, int vs, const term_t *t, int ts)
{
    uint32_t x = var_id(u->v, var->sym);
    u->bt[vs][x] = t;
    u->bs[vs][x] = (uint8_t)ts;
    XVEC_RESERVE(&u->trail, &u->cap_trail, u->n_trail + 1);
    u->trail[u->n_trail++] = ((uint32_t)vs << 31) | x;
}

/* When the budget runs out the answer is "unifies": a dependency edge too
 * many can only make the checks stricter, never let a bad cycle through. */
static bool unify_rec(unifier_t *u, const term_t *a, int as, const term_t *b, int bs)
{
    if (--u->budget < 0) return true;
    deref(u, &a, &as);
    deref(u, &b, &bs);
    if (a->kind == TERM_VAR) {
        if (b->kind == TERM_VAR && a->sym == b->sym && as == bs) return true;
        if (occurs(u, a->sym, as, b, bs)) return false;
        bind(u, a, as, b, bs);
        return true;
    }
    if (b->kind == TERM_VAR) {
        if (occurs(u, b->sym, bs, a, as)) return false;
        bind(u, b, bs, a, as);
        return true;
    }
    if (a->kind != b->kind || a->sym != b->sym || term_arity(a) != term_arity(b)) return false;
    for (uint32_t i = 0; i < term_arity(a); i++)
        if (!unify_rec(u, a->args[i], as, b->args[i], bs)) return u->budget < 0;
    return true;
}

static bool unify(unifier_t *u, const term_t *a, const term_t *b)
{
    u->budget = UNIFY_BUDGET;
    bool ok = unify_rec(u, a, 0, b, 1) || u->budget < 0;
    for (size_t i = 0; i < u->n_trail; i++) {
        uint32_t k = u->trail[i];
        u->bt[k >> 31][k & 0x7fffffffu] = NULL;
    }
    u->n_trail = 0;
    return ok;
}

/* ---- pass 2: the rule graph ---------------------------------------------- */

/* A sentence of a rule body, positive or under `not`, possibly in an `or`. */
typedef struct occ {
    const term_t *atom;
    const lit_t *lit; /* the literal as written (the `not` for a negation) */
    uint32_t rule;    /* graph node */
    bool neg;
    uint32_t e0, e1; /* its edges: to[e0 .. e1) */
} occ_t;

typedef struct rgraph {
    const rule_t **rule; /* the nodes: rules with a body, in source order */
    uint32_t n;
    size_t cap_rule;
    occ_t *occ;
    size_t n_occ, cap_occ;
    uint32_t *off;     /* per node: first edge (CSR), n + 1 entries */
    uint32_t *to;      /* edge target node */
    uint32_t *eocc;    /* edge's body sentence */
    size_t n_edges, cap_to, cap_eocc;
    uint32_t *comp;
    uint32_t *dep_true, *dep_does; /* per node: a reachable true/does occ */
} rgraph_t;

static void collect_occ(rgraph_t *g, uint32_t rule, const lit_t *l)
{
    if (l->kind == LIT_OR) {
        for (uint32_t i = 0; i < l->n_disj; i++) collect_occ(g, rule, l->disj[i]);
        return;
    }
    if (l->kind != LIT_ATOM && l->kind != LIT_NOT) return;
    XVEC_RESERVE(&g->occ, &g->cap_occ, g->n_occ + 1);
    g->occ[g->n_occ++] = (occ_t){.atom = l->atom, .lit = l, .rule = rule, .neg = l->kind == LIT_NOT};
}

static bool is_rule(const val_t *v, size_t i) { return v->p->rules[i]->n_body > 0 && !v->ignored[i]; }

static void number_rel(val_t *v, sym_t s)
{
    name_rec_t *r = name_rec(v, s);
    if (r->rel_id == NONE) r->rel_id = v->n_rel++;
}

/* Number the variables of t densely. */
static void number_vars(val_t *v, uint32_t *n, const term_t *t)
{
    if (t->kind == TERM_VAR) {
        name_rec_t *r = name_rec(v, t->sym);
        if (r->var_id == NONE) r->var_id = (*n)++;
    }
    for (uint32_t i = 0; i < term_arity(t); i++) number_vars(v, n, t->args[i]);
}

/* The most body-head matches build_rule_graph tries (the corpus's most is
 * about 10^4): 40,000 copies of a recursive rule are 1.6 x 10^9, minutes
 * and gigabytes of edges, during which a player would refuse matches. */
#define GRAPH_MATCH_MAX (1u << 24)

/* False (an error reported at the rule) past GRAPH_MATCH_MAX: the graph is
 * then incomplete and the checks on it are skipped. */
static bool build_rule_graph(val_t *v, rgraph_t *g)
{
    const program_t *p = v->p;
    /* nodes: rules, not facts (they depend on nothing); a fact file's
     * millions of facts cost nothing here */
    for (size_t i = 0; i < p->n_rules; i++) {
        if (!is_rule(v, i)) continue;
        XVEC_RESERVE(&g->rule, &g->cap_rule, (size_t)g->n + 1);
        g->rule[g->n++] = p->rules[i];
    }
    uint32_t n = g->n;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < g->rule[i]->n_body; j++) collect_occ(g, i, g->rule[i]->body[j]);
    uint32_t n_vars = 0;
    for (uint32_t i = 0; i < n; i++) {
        number_rel(v, g->rule[i]->head->sym);
        number_vars(v, &n_vars, g->rule[i]->head);
    }
    for (size_t k = 0; k < g->n_occ; k++) {
        number_rel(v, g->occ[k].atom->sym);
        number_vars(v, &n_vars, g->occ[k].atom);
    }

    /* rules indexed by head name */
    uint32_t nr = v->n_rel;
    uint32_t *hoff = xcalloc((size_t)nr + 1, sizeof *hoff);
    for (uint32_t i = 0; i < n; i++) hoff[rel_id(v, g->rule[i]->head->sym) + 1]++;
    for (uint32_t r = 0; r < nr; r++) hoff[r + 1] += hoff[r];
    uint32_t *fill = xmalloc(((size_t)nr + 1) * sizeof *fill);
    memcpy(fill, hoff, ((size_t)nr + 1) * sizeof *fill);
    uint32_t *hrules = xmalloc(((size_t)n + 1) * sizeof *hrules);
    for (uint32_t i = 0; i < n; i++) hrules[fill[rel_id(v, g->rule[i]->head->sym)]++] = i;
    free(fill);

    unifier_t u = {.v = v};
    for (int s = 0; s < 2; s++) {
        u.bt[s] = xcalloc((size_t)n_vars + 1, sizeof *u.bt[s]);
        u.bs[s] = xcalloc((size_t)n_vars + 1, sizeof *u.bs[s]);
    }
    g->off = xmalloc(((size_t)n + 1) * sizeof *g->off);
    g->dep_true = xmalloc(((size_t)n + 1) * sizeof *g->dep_true);
    g->dep_does = xmalloc(((size_t)n + 1) * sizeof *g->dep_does);
    size_t k = 0;
    uint64_t tries = 0;
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        g->off[i] = (uint32_t)g->n_edges;
        g->dep_true[i] = g->dep_does[i] = NONE;
        for (; k < g->n_occ && g->occ[k].rule == i; k++) {
            occ_t *o = &g->occ[k];
            o->e0 = (uint32_t)g->n_edges;
            sym_t s = o->atom->sym;
            /* true and does are inputs: no rule defines them (§2.4.2) */
            if (s == SYM_TRUE && g->dep_true[i] == NONE) g->dep_true[i] = (uint32_t)k;
            if (s == SYM_DOES && g->dep_does[i] == NONE) g->dep_does[i] = (uint32_t)k;
            if (s != SYM_TRUE && s != SYM_DOES) {
                uint32_t r = rel_id(v, s);
                tries += hoff[r + 1] - hoff[r];
                if (tries > GRAPH_MATCH_MAX) {
                    err_at(v, g->rule[i]->off,
                           "the rules use '%s' in too many ways to check (more than %u matches of rule bodies "
                           "with rule heads)",
                           symtab_key(v->st, s), GRAPH_MATCH_MAX);
                    ok = false;
                    break;
                }
                for (uint32_t h = hoff[r]; h < hoff[r + 1]; h++) {
                    const term_t *head = g->rule[hrules[h]]->head;
                    if (term_arity(head) != term_arity(o->atom) || !unify(&u, o->atom, head)) continue;
                    XVEC_RESERVE(&g->to, &g->cap_to, g->n_edges + 1);
                    XVEC_RESERVE(&g->eocc, &g->cap_eocc, g->n_edges + 1);
                    g->to[g->n_edges] = hrules[h];
                    g->eocc[g->n_edges] = (uint32_t)k;
                    g->n_edges++;
                }
            }
            o->e1 = (uint32_t)g->n_edges;
        }
    }
    g->off[n] = (uint32_t)g->n_edges;
    for (int s = 0; s < 2; s++) {
        free(u.bt[s]);
        free(u.bs[s]);
    }
    free(u.trail);
    free(hoff);
    free(hrules);
    if (!ok) return false;

    g->comp = xmalloc(((size_t)n + 1) * sizeof *g->comp);
    uint32_t ncomp = scc_csr(n, g->off, g->to ? g->to : g->off, g->comp);

    /* What each rule reaches, propagated component by component from the
     * sinks (component ids are in reverse topological order). */
    uint32_t *coff = xcalloc((size_t)ncomp + 1, sizeof *coff);
    for (uint32_t i = 0; i < n; i++) coff[g->comp[i] + 1]++;
    for (uint32_t c = 0; c < ncomp; c++) coff[c + 1] += coff[c];
    uint32_t *members = xmalloc(((size_t)n + 1) * sizeof *members);
    uint32_t *cfill = xmalloc(((size_t)ncomp + 1) * sizeof *cfill);
    memcpy(cfill, coff, ((size_t)ncomp + 1) * sizeof *cfill);
    for (uint32_t i = 0; i < n; i++) members[cfill[g->comp[i]]++] = i;
    free(cfill);
    for (uint32_t c = 0; c < ncomp; c++) {
        uint32_t wt = NONE, wd = NONE;
        for (uint32_t m = coff[c]; m < coff[c + 1]; m++) {
            uint32_t i = members[m];
            if (wt == NONE) wt = g->dep_true[i];
            if (wd == NONE) wd = g->dep_does[i];
            for (uint32_t e = g->off[i]; e < g->off[i + 1]; e++) {
                uint32_t t = g->to[e];
                if (g->comp[t] == c) continue;
                if (wt == NONE) wt = g->dep_true[t];
                if (wd == NONE) wd = g->dep_does[t];
            }
        }
        for (uint32_t m = coff[c]; m < coff[c + 1]; m++) {
            g->dep_true[members[m]] = wt;
            g->dep_does[members[m]] = wd;
        }
    }
    free(coff);
    free(members);
    return true;
}

static void rgraph_free(rgraph_t *g)
{
    free(g->rule);
    free(g->occ);
    free(g->off);
    free(g->to);
    free(g->eocc);
    free(g->comp);
    free(g->dep_true);
    free(g->dep_does);
}

/* init/base/input must depend on neither true nor does; legal, goal and
 * terminal not on does (gdl-protocol §1.4, Griddle's
 * InitBaseInputAreConstant and TerminalLegalGoalAreNotActionDependent). */
static void check_dependencies(val_t *v, const rgraph_t *g)
{
    for (size_t k = 0; k < g->n_occ; k++) {
        const occ_t *o = &g->occ[k];
        sym_t h = g->rule[o->rule]->head->sym;
        bool no_true = h == SYM_INIT || h == SYM_BASE || h == SYM_INPUT;
        bool no_does = no_true || h == SYM_LEGAL || h == SYM_GOAL || h == SYM_TERMINAL;
        if (!no_does) continue;
        sym_t s = o->atom->sym;
        if (s == SYM_DOES || (no_true && s == SYM_TRUE)) {
            err_at(v, o->atom->off, "'%s' must not depend on '%s'%s", nm(v, h), nm(v, s),
                   s == SYM_TRUE ? " (it describes the game, not a state)"
                   : no_true    ? " (it describes the game, not a move)"
                                : " (it is evaluated before the moves are known)");
            continue;
        }
        for (uint32_t e = o->e0; e < o->e1; e++) {
            uint32_t t = g->to[e];
            uint32_t w = g->dep_does[t];
            if (w == NONE && no_true) w = g->dep_true[t];
            if (w == NONE) continue;
            sym_t bad = g->occ[w].atom->sym;
            err_at(v, o->atom->off, "'%s' must not depend on '%s', but '%s' does", nm(v, h), nm(v, bad), nm(v, s));
            note_at(v, g->occ[w].atom->off, "'%s' used here, in a rule for '%s'", nm(v, bad),
                    nm(v, g->rule[g->occ[w].rule]->head->sym));
            break;
        }
    }
}

/* Negation must not sit in a cycle of the rule graph (§2.4.2). */
static void check_stratification(val_t *v, const rgraph_t *g)
{
    uint32_t n = g->n;
    uint32_t *pred = NULL, *pred_e = NULL, *queue = NULL, *seen = NULL;
    unsigned explained = 0;
    for (size_t k = 0; k < g->n_occ; k++) {
        const occ_t *o = &g->occ[k];
        if (!o->neg) continue;
        uint32_t e;
        for (e = o->e0; e < o->e1; e++)
            if (g->comp[g->to[e]] == g->comp[o->rule]) break;
        if (e == o->e1) continue;
        const rule_t *b = g->rule[o->rule];
        uint32_t a = g->to[e];
        /* explain: a path from rule a back to rule b inside the component */
        char chain[512];
        size_t len = (size_t)snprintf(chain, sizeof chain, "%s -> not %s", nm(v, b->head->sym),
                                      nm(v, g->rule[a]->head->sym));
        uint32_t path[16], n_path = 0;
        bool found = false, long_path = false;
        if (explained < 16 && a != o->rule) {
            explained++;
            if (!pred) {
                pred = xmalloc(((size_t)n + 1) * sizeof *pred);
                pred_e = xmalloc(((size_t)n + 1) * sizeof *pred_e);
                queue = xmalloc(((size_t)n + 1) * sizeof *queue);
                seen = xcalloc((size_t)n + 1, sizeof *seen);
            }
            uint32_t qh = 0, qt = 0;
            queue[qt++] = a;
            seen[a] = explained;
            while (qh < qt && !found) {
                uint32_t x = queue[qh++];
                for (uint32_t f = g->off[x]; f < g->off[x + 1]; f++) {
                    uint32_t y = g->to[f];
                    if (g->comp[y] != g->comp[a] || seen[y] == explained) continue;
                    seen[y] = explained;
                    pred[y] = x;
                    pred_e[y] = f;
                    if (y == o->rule) {
                        found = true;
                        break;
                    }
                    queue[qt++] = y;
                }
            }
            if (found) {
                /* edges from b back to a, collected backwards */
                uint32_t rev[16], n_rev = 0;
                for (uint32_t y = o->rule; y != a; y = pred[y]) {
                    if (n_rev == 16) {
                        long_path = true;
                        break;
                    }
                    rev[n_rev++] = pred_e[y];
                }
                if (!long_path)
                    for (uint32_t i = 0; i < n_rev; i++) path[n_path++] = rev[n_rev - 1 - i];
            }
        }
        if (found && !long_path) {
            for (uint32_t i = 0; i < n_path && len < sizeof chain; i++)
                len += (size_t)snprintf(chain + len, sizeof chain - len, " -> %s",
                                        nm(v, g->rule[g->to[path[i]]]->head->sym));
        } else if (a != o->rule) {
            len += (size_t)snprintf(chain + len, sizeof chain - len, " -> ... -> %s", nm(v, b->head->sym));
        }
        err_at(v, o->lit->off, "unstratified negation: this 'not' is in a dependency cycle: %s", chain);
        for (uint32_t i = 0; i < n_path; i++) {
            const occ_t *po = &g->occ[g->eocc[path[i]]];
            note_at(v, po->atom->off, "'%s' depends on '%s' here", nm(v, g->rule[po->rule]->head->sym),
                    nm(v, po->atom->sym));
        }
    }
    free(pred);
    free(pred_e);
    free(queue);
    free(seen);
}

/* ---- pass 3: the recursion restriction (§2.4.3) -------------------------- */

typedef struct tvec {
    const term_t **t;
    size_t n, cap;
} tvec_t;

static void tv_push(tvec_t *tv, const term_t *t)
{
    XVEC_RESERVE(&tv->t, &tv->cap, tv->n + 1);
    tv->t[tv->n++] = t;
}

static bool tv_has(const tvec_t *tv, const term_t *t)
{
    for (size_t i = 0; i < tv->n; i++)
        if (term_equal(tv->t[i], t)) return true;
    return false;
}

static void check_recursive_atom(val_t *v, const rule_t *r, const term_t *q, const tvec_t *nonrec)
{
    for (uint32_t j = 0; j < term_arity(q); j++) {
        const term_t *a = q->args[j];
        if (term_is_ground(a)) continue;
        bool ok = false;
        for (uint32_t i = 0; i < term_arity(r->head) && !ok; i++) ok = term_equal(a, r->head->args[i]);
        if (ok || tv_has(nonrec, a)) continue;
        char buf[128];
        err_at(v, a->off,
               "recursion restriction violated: argument '%s' of '%s' (recursive with the head '%s') is not "
               "ground, not an argument of the head, and not an argument of a non-recursive positive literal",
               term_fmt(v, a, buf, sizeof buf), nm(v, q->sym), nm(v, r->head->sym));
    }
}

static void check_recursion(val_t *v, const rgraph_t *g)
{
    /* relation graph: head name -> each name in the body, over the dense
     * relation ids of build_rule_graph */
    uint32_t nr = v->n_rel;
    uint32_t *off = xcalloc((size_t)nr + 1, sizeof *off);
    for (size_t k = 0; k < g->n_occ; k++) off[rel_id(v, g->rule[g->occ[k].rule]->head->sym) + 1]++;
    for (uint32_t r = 0; r < nr; r++) off[r + 1] += off[r];
    uint32_t *fill = xmalloc(((size_t)nr + 1) * sizeof *fill);
    memcpy(fill, off, ((size_t)nr + 1) * sizeof *fill);
    uint32_t *adj = xmalloc((g->n_occ + 1) * sizeof *adj);
    for (size_t k = 0; k < g->n_occ; k++)
        adj[fill[rel_id(v, g->rule[g->occ[k].rule]->head->sym)]++] = rel_id(v, g->occ[k].atom->sym);
    free(fill);
    uint32_t *rcomp = xmalloc(((size_t)nr + 1) * sizeof *rcomp);
    scc_csr(nr, off, adj, rcomp);
    free(off);
    free(adj);

    for (uint32_t i = 0; i < g->n; i++) {
        const rule_t *r = g->rule[i];
        uint32_t hc = rcomp[rel_id(v, r->head->sym)];
        /* arguments of positive literals not in a cycle with the head; for
         * an `or` of sentences, those common to every disjunct */
        tvec_t nonrec = {0};
        for (uint32_t j = 0; j < r->n_body; j++) {
            const lit_t *l = r->body[j];
            if (l->kind == LIT_ATOM && rcomp[rel_id(v, l->atom->sym)] != hc) {
                for (uint32_t k = 0; k < term_arity(l->atom); k++) tv_push(&nonrec, l->atom->args[k]);
            } else if (l->kind == LIT_OR && l->n_disj > 0) {
                bool all = true;
                for (uint32_t d = 0; d < l->n_disj && all; d++)
                    all = l->disj[d]->kind == LIT_ATOM && rcomp[rel_id(v, l->disj[d]->atom->sym)] != hc;
                if (!all) continue;
                const term_t *d0 = l->disj[0]->atom;
                for (uint32_t k = 0; k < term_arity(d0); k++) {
                    bool everywhere = true;
                    for (uint32_t d = 1; d < l->n_disj && everywhere; d++) {
                        const term_t *dd = l->disj[d]->atom;
                        everywhere = false;
                        for (uint32_t m = 0; m < term_arity(dd) && !everywhere; m++)
                            everywhere = term_equal(d0->args[k], dd->args[m]);
                    }
                    if (everywhere) tv_push(&nonrec, d0->args[k]);
                }
            }
        }
        for (uint32_t j = 0; j < r->n_body; j++) {
            const lit_t *l = r->body[j];
            if (l->kind == LIT_ATOM && rcomp[rel_id(v, l->atom->sym)] == hc) check_recursive_atom(v, r, l->atom, &nonrec);
            if (l->kind == LIT_OR)
                for (uint32_t d = 0; d < l->n_disj; d++)
                    if (l->disj[d]->kind == LIT_ATOM && rcomp[rel_id(v, l->disj[d]->atom->sym)] == hc)
                        check_recursive_atom(v, r, l->disj[d]->atom, &nonrec);
        }
        free(nonrec.t);
    }
    free(rcomp);
}

/* ---- driver -------------------------------------------------------------- */

bool gdl_rule_is_ignored(const rule_t *r) { return r->head->sym == SYM_BASE && term_arity(r->head) != 1; }

unsigned gdl_validate(const program_t *p, diag_t *d, gdl_info_t *info_out)
{
    gdl_info_t info = {0};
    val_t v = {.p = p, .st = p->syms, .n_syms = symtab_count(p->syms), .info = &info};
    size_t ns = v.n_syms + 1;
    v.name_ix = xmalloc(ns * sizeof *v.name_ix);
    for (size_t s = 0; s < ns; s++) v.name_ix[s] = NONE;
    v.ignored = xcalloc(p->n_rules + 1, sizeof *v.ignored);

    /* Old Dresden base forms: skipped, one warning (gdl-protocol §2.3). */
    uint32_t first_ignored = NONE;
    for (size_t i = 0; i < p->n_rules; i++) {
        if (!gdl_rule_is_ignored(p->rules[i])) continue;
        v.ignored[i] = true;
        if (first_ignored == NONE) first_ignored = p->rules[i]->head->off;
        info.n_ignored++;
    }
    if (info.n_ignored)
        warn_at(&v, first_ignored,
                "old-style 'base' with other than 1 argument: ignored, as GGP-Base does (%zu such form%s)",
                info.n_ignored, info.n_ignored == 1 ? "" : "s");

    bool has[SYM_FIRST_USER] = {0};
    for (size_t i = 0; i < p->n_rules; i++) {
        const rule_t *r = p->rules[i];
        if (v.ignored[i]) continue;
        if (r->n_body) info.n_rules++;
        else info.n_facts++;
        if (r->head->sym < SYM_FIRST_USER) has[r->head->sym] = true;
        check_head(&v, r);
        for (uint32_t j = 0; j < r->n_body; j++) check_body_lit(&v, r->body[j]);
        check_safety(&v, r);
    }

    rgraph_t g = {0};
    if (build_rule_graph(&v, &g)) {
        check_dependencies(&v, &g);
        check_stratification(&v, &g);
        check_recursion(&v, &g);
    }
    rgraph_free(&g);

    if (!has[SYM_ROLE]) whole(&v, DIAG_ERROR, "no 'role' facts: a game needs at least one role");
    static const sym_t required[] = {SYM_LEGAL, SYM_GOAL, SYM_TERMINAL};
    for (size_t k = 0; k < sizeof required / sizeof *required; k++)
        if (!has[required[k]])
            whole(&v, DIAG_ERROR, "'%s' is never defined: every game needs it", symtab_key(v.st, required[k]));
    if (!has[SYM_INIT]) whole(&v, DIAG_WARNING, "'init' is never defined: the initial state is empty");

    for (size_t i = 0; i < v.n_names; i++) {
        info.n_relations += v.names[i].rel_used;
        info.n_functions += v.names[i].fn_arity >= 0;
    }
    unsigned errors = v.errors;
    flush(&v, d);
    free(v.name_ix);
    free(v.names);
    free(v.ignored);
    free(v.role_off);
    if (info_out) *info_out = info;
    else gdl_info_free(&info);
    return errors;
}

void gdl_info_free(gdl_info_t *info)
{
    free(info->roles);
    info->roles = NULL;
    info->n_roles = 0;
}
