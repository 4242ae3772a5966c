/* sexpr.c - driver of the s-expression reader (see sexpr.h). */
#include "gdl/sexpr.h"

#include <stdlib.h>

#include "base/xalloc.h"
#include "gdl/sexpr_internal.h"
#include "sexpr_parser.h"

int sx_yylex_init_extra(sx_state_t *extra, yyscan_t *scanner);
int sx_yylex_destroy(yyscan_t scanner);
void *sx_yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);

unsigned sx_parse(arena_t *a, symtab_t *st, src_t *src, diag_t *d, sexpr_t ***forms, size_t *n)
{
    sx_state_t s = {.arena = a, .syms = st, .src = src, .diag = d};
    *forms = NULL;
    *n = 0;
    if (src->len > (size_t)INT32_MAX) {
        diag_report_file(d, DIAG_ERROR, src, "input larger than 2 GiB");
        return 1;
    }
    yyscan_t scanner;
    sx_yylex_init_extra(&s, &scanner);
    sx_yy_scan_bytes(src->text, (int)src->len, scanner);
    int rc = sx_yyparse(scanner, &s);
    sx_yylex_destroy(scanner);
    free(s.open);
    if (rc != 0 && s.errors == 0) sx_error_at(&s, (uint32_t)s.pos, "cannot parse input (out of parser stack)");
    *forms = arena_calloc(a, s.top.n, sizeof **forms);
    size_t i = 0;
    for (sx_cell_t *c = s.top.head; c; c = c->next) (*forms)[i++] = c->x;
    *n = i;
    return s.errors;
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
