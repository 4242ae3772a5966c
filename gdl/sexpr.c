/* sexpr.c - driver of the s-expression reader (see sexpr.h). */
#include "gdl/sexpr.h"

#include <stdlib.h>

#include "base/xalloc.h"
#include "gdl/sexpr_internal.h"
#include "sexpr_parser.h"

int sx_yylex_init_extra(sx_state_t *extra, yyscan_t *scanner);
int sx_yylex_destroy(yyscan_t scanner);

/* One run of scanner and parser over s->src; returns the number of errors. */
static unsigned run(sx_state_t *s)
{
    if (s->src->len > (size_t)INT32_MAX) {
        diag_report_file(s->diag, DIAG_ERROR, s->src, "input larger than 2 GiB");
        return 1;
    }
    yyscan_t scanner;
    sx_yylex_init_extra(s, &scanner);
    int rc = sx_yyparse(scanner, s);
    sx_yylex_destroy(scanner);
    free(s->open);
    if (rc != 0 && s->errors == 0) sx_error_at(s, (uint32_t)s->pos, "cannot parse input (out of parser stack)");
    return s->errors;
}

unsigned sx_parse(arena_t *a, symtab_t *st, src_t *src, diag_t *d, sexpr_t ***forms, size_t *n)
{
    sx_state_t s = {.arena = a, .syms = st, .src = src, .diag = d};
    unsigned errors = run(&s);
    /* The top-level forms read are at the bottom of the items stack. */
    *forms = arena_calloc(a, s.n_top, sizeof **forms);
    for (size_t i = 0; i < s.n_top; i++) (*forms)[i] = s.stk[i];
    *n = s.n_top;
    free(s.stk);
    return errors;
}

unsigned sx_parse_each(arena_t *scratch, symtab_t *st, src_t *src, diag_t *d, sx_form_fn fn, void *ctx)
{
    sx_state_t s = {.arena = scratch, .syms = st, .src = src, .diag = d, .each = fn, .each_ctx = ctx};
    unsigned errors = run(&s);
    free(s.stk);
    return errors;
}

void sx_print(FILE *out, const symtab_t *st, const sexpr_t *x)
{
    if (!x->is_list) {
        fputs(symtab_key(st, x->sym), out);
        return;
    }
    fputc('(', out);
    for (uint32_t i = 0; i < x->n; i++) {
        if (i) fputc(' ', out);
        sx_print(out, st, x->items[i]);
    }
    fputc(')', out);
}
