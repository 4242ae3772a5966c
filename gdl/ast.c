/* ast.c - from s-expressions to the GDL AST (see ast.h). */
#include "gdl/ast.h"

#include <stdlib.h>

#include "base/xalloc.h"

typedef struct builder {
    program_t *p;
    diag_t *d;
    unsigned errors;
} builder_t;

#define ERR(b, off, ...)                                                    \
    do {                                                                    \
        (b)->errors++;                                                      \
        diag_error((b)->d, (b)->p->src, (off), __VA_ARGS__);                \
    } while (0)

static const char *name_of(builder_t *b, sym_t s) { return symtab_spelling(b->p->syms, s); }

static bool is_connective(sym_t s) { return s == SYM_NOT || s == SYM_OR || s == SYM_DISTINCT || s == SYM_IMPLIES; }

/* Nodes are packed at 8 bytes (pointers), not the arena's default 16. */
static void *node_alloc(builder_t *b, size_t fixed, uint32_t n_ptrs)
{
    return arena_alloc_align(b->p->arena, fixed + (size_t)n_ptrs * sizeof(void *), _Alignof(void *));
}

static term_t *new_term(builder_t *b, term_kind_t kind, sym_t sym, uint32_t arity, uint32_t off)
{
    term_t *t = node_alloc(b, sizeof(term_t), arity);
    t->kind = kind;
    t->sym = sym;
    t->arity = arity;
    t->off = off;
    return t;
}

/* A term: constant, variable or function term (any depth). */
static term_t *build_term(builder_t *b, const sexpr_t *x)
{
    if (!x->is_list) {
        if (is_connective(x->sym)) ERR(b, x->off, "'%s' cannot be used as a constant", name_of(b, x->sym));
        return new_term(b, symtab_is_var(b->p->syms, x->sym) ? TERM_VAR : TERM_CONST, x->sym, 0, x->off);
    }
    if (x->n == 0) {
        ERR(b, x->off, "empty list '()' is not a term");
        return new_term(b, TERM_CONST, SYM_NONE, 0, x->off);
    }
    const sexpr_t *head = x->items[0];
    if (head->is_list) {
        ERR(b, head->off, "a list must start with a name, not another list");
        return new_term(b, TERM_CONST, SYM_NONE, 0, x->off);
    }
    if (symtab_is_var(b->p->syms, head->sym)) {
        ERR(b, head->off, "a function name cannot be a variable ('%s')", name_of(b, head->sym));
    } else if (is_connective(head->sym)) {
        ERR(b, head->off, "'%s' cannot be used as a function name", name_of(b, head->sym));
    }
    if (x->n == 1) return new_term(b, TERM_CONST, head->sym, 0, x->off); /* (f) is f */
    term_t *t = new_term(b, TERM_FN, head->sym, x->n - 1, x->off);
    for (uint32_t i = 0; i < t->arity; i++) t->args[i] = build_term(b, x->items[i + 1]);
    return t;
}

/* A sentence: like a term, but a variable is not allowed. */
static term_t *build_sentence(builder_t *b, const sexpr_t *x, const char *where)
{
    if (!x->is_list && symtab_is_var(b->p->syms, x->sym)) {
        ERR(b, x->off, "a variable ('%s') cannot stand as a sentence %s", name_of(b, x->sym), where);
    } else if (!x->is_list && is_connective(x->sym)) {
        ERR(b, x->off, "'%s' cannot stand alone as a sentence %s", name_of(b, x->sym), where);
    }
    return build_term(b, x);
}

static lit_t *build_lit(builder_t *b, const sexpr_t *x, int depth);

/* After an error, a stand-in sentence for the literal so that the rule
 * still has a well-formed shape; reports nothing more. */
static term_t *placeholder(builder_t *b, const sexpr_t *x)
{
    return new_term(b, TERM_CONST, x->is_list ? SYM_NONE : x->sym, 0, x->off);
}

static lit_t *build_not(builder_t *b, const sexpr_t *x, lit_t *l)
{
    if (x->n != 2) {
        ERR(b, x->off, "'not' takes exactly one literal, got %u", x->n - 1);
        l->kind = LIT_ATOM;
        l->atom = placeholder(b, x->items[0]);
        return l;
    }
    const sexpr_t *arg = x->items[1];
    if (arg->is_list && arg->n > 0 && !arg->items[0]->is_list) {
        sym_t h = arg->items[0]->sym;
        if (h == SYM_DISTINCT && arg->n == 3) {
            l->kind = LIT_EQUAL;
            l->lhs = build_term(b, arg->items[1]);
            l->rhs = build_term(b, arg->items[2]);
            return l;
        }
        if (h == SYM_NOT || h == SYM_OR || h == SYM_DISTINCT || h == SYM_IMPLIES) {
            ERR(b, arg->off, "'not' must wrap a sentence, not '%s'", name_of(b, h));
            l->kind = LIT_NOT;
            l->atom = placeholder(b, arg->items[0]);
            return l;
        }
    }
    l->kind = LIT_NOT;
    l->atom = build_sentence(b, arg, "under 'not'");
    return l;
}

static lit_t *build_lit(builder_t *b, const sexpr_t *x, int depth)
{
    lit_t *l = node_alloc(b, sizeof *l, 0);
    l->off = x->off;
    if (x->is_list && x->n > 0 && !x->items[0]->is_list) {
        sym_t h = x->items[0]->sym;
        if (h == SYM_NOT) return build_not(b, x, l);
        if (h == SYM_DISTINCT) {
            if (x->n != 3) ERR(b, x->off, "'distinct' takes exactly two terms, got %u", x->n - 1);
            l->kind = LIT_DISTINCT;
            l->lhs = x->n > 1 ? build_term(b, x->items[1]) : build_term(b, x->items[0]);
            l->rhs = x->n > 2 ? build_term(b, x->items[2]) : l->lhs;
            return l;
        }
        if (h == SYM_OR) {
            /* A nested or is spliced into this one: (or a (or b c)) is
             * (or a b c), so that every later pass sees disjuncts that are
             * not themselves ors (the rules compiler once dropped a third
             * level, making the rule's body empty: always true). */
            uint32_t n = x->n - 1, total = 0;
            lit_t **sub = node_alloc(b, 0, n);
            for (uint32_t i = 0; i < n; i++) {
                if (depth > 32) {
                    ERR(b, x->off, "'or' nested too deeply");
                    n = i;
                    break;
                }
                sub[i] = build_lit(b, x->items[i + 1], depth + 1);
                total += sub[i]->kind == LIT_OR ? sub[i]->n_disj : 1;
            }
            l->kind = LIT_OR;
            l->n_disj = total;
            l->disj = node_alloc(b, 0, total);
            for (uint32_t i = 0, k = 0; i < n; i++) {
                if (sub[i]->kind != LIT_OR) {
                    l->disj[k++] = sub[i];
                    continue;
                }
                for (uint32_t j = 0; j < sub[i]->n_disj; j++) l->disj[k++] = sub[i]->disj[j];
            }
            return l;
        }
        if (h == SYM_IMPLIES) {
            ERR(b, x->off, "'<=' may only start a top-level rule");
            l->kind = LIT_ATOM;
            l->atom = placeholder(b, x->items[0]);
            return l;
        }
    }
    l->kind = LIT_ATOM;
    l->atom = build_sentence(b, x, "in a rule body");
    return l;
}

static void build_rule(builder_t *b, const sexpr_t *x)
{
    rule_t *r;
    bool is_rule = x->is_list && x->n > 0 && !x->items[0]->is_list && x->items[0]->sym == SYM_IMPLIES;
    if (!is_rule) {
        if (!x->is_list && symtab_is_var(b->p->syms, x->sym)) {
            ERR(b, x->off, "a variable ('%s') cannot be a fact", name_of(b, x->sym));
            return;
        }
        if (x->is_list && x->n > 0 && !x->items[0]->is_list &&
            (x->items[0]->sym == SYM_NOT || x->items[0]->sym == SYM_OR || x->items[0]->sym == SYM_DISTINCT)) {
            ERR(b, x->off, "'%s' can only appear in a rule body", name_of(b, x->items[0]->sym));
            return;
        }
        r = node_alloc(b, sizeof *r, 0);
        r->off = x->off;
        r->head = build_sentence(b, x, "as a fact");
    } else {
        if (x->n < 2) {
            ERR(b, x->off, "rule '<=' has no head");
            return;
        }
        const sexpr_t *h = x->items[1];
        if (h->is_list && h->n > 0 && !h->items[0]->is_list && is_connective(h->items[0]->sym)) {
            ERR(b, h->off, "the head of a rule must be a sentence, not '%s'", name_of(b, h->items[0]->sym));
            return;
        }
        r = node_alloc(b, sizeof *r, x->n - 2);
        r->off = x->off;
        r->head = build_sentence(b, h, "as a rule head");
        r->n_body = x->n - 2;
        for (uint32_t i = 0; i < r->n_body; i++) r->body[i] = build_lit(b, x->items[i + 2], 0);
    }
    XVEC_RESERVE(&b->p->rules, &b->p->cap_rules, b->p->n_rules + 1);
    b->p->rules[b->p->n_rules++] = r;
}

/* A form left open at the end of input (reported by the reader) has
 * swallowed every form after its '(' as items: building it would only
 * report those as misplaced, once each. It is the last form: skip it. */
static void build_form(void *ctx, const sexpr_t *x)
{
    builder_t *b = ctx;
    if (!(x->is_list && x->unclosed)) build_rule(b, x);
}

unsigned gdl_build(program_t *p, sexpr_t **forms, size_t n, diag_t *d)
{
    builder_t b = {.p = p, .d = d};
    for (size_t i = 0; i < n; i++) build_form(&b, forms[i]);
    return b.errors;
}

program_t *gdl_parse_src(src_t *src, symtab_t *st, diag_t *d, unsigned *errors)
{
    program_t *p = xcalloc(1, sizeof *p);
    p->arena = arena_new(1 << 16);
    p->syms = st;
    p->src = src;
    /* Each form is built as soon as it is read, from a scratch arena that
     * the reader resets: the s-expressions of the whole file never exist
     * at once, only the AST. */
    builder_t b = {.p = p, .d = d};
    arena_t *scratch = arena_new(1 << 14);
    *errors = sx_parse_each(scratch, st, src, d, build_form, &b);
    arena_free(scratch);
    *errors += b.errors;
    return p;
}

void program_free(program_t *p)
{
    if (!p) return;
    arena_free(p->arena);
    free(p->rules);
    free(p);
}

bool term_is_ground(const term_t *t)
{
    if (t->kind == TERM_VAR) return false;
    for (uint32_t i = 0; i < term_arity(t); i++)
        if (!term_is_ground(t->args[i])) return false;
    return true;
}

