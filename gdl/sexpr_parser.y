/* sexpr_parser.y - pure Bison parser for KIF s-expressions (see sexpr.h).
 *
 * The grammar is three rules and has no conflicts (%expect 0: fix the
 * grammar rather than raise it). Lexical problems (stray bytes, unmatched or
 * unclosed parens) are reported by the scanner, which also repairs them, so
 * the parser always sees balanced input and reading continues after every
 * error; the remaining syntax error, a runaway depth, stops the parse. */
%code requires {
#include "gdl/sexpr_internal.h"
#define SX_YYLTYPE sx_loc_t
#define SX_YYLTYPE_IS_DECLARED 1
#define SX_YYLTYPE_IS_TRIVIAL 0
#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif
}

%code {
#include <stdarg.h>
#include "base/xalloc.h"

int sx_yylex(SX_YYSTYPE *lval, SX_YYLTYPE *lloc, yyscan_t scanner);
static void sx_yyerror(SX_YYLTYPE *loc, yyscan_t scanner, sx_state_t *s, const char *msg);

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                         \
    do {                                                                    \
        if (N) {                                                            \
            (Cur).start = YYRHSLOC(Rhs, 1).start;                           \
            (Cur).end = YYRHSLOC(Rhs, N).end;                               \
        } else {                                                            \
            (Cur).start = (Cur).end = YYRHSLOC(Rhs, 0).end;                 \
        }                                                                   \
    } while (0)

static void items_push(sx_state_t *s, sx_items_t *l, sexpr_t *x)
{
    sx_cell_t *c = arena_alloc(s->arena, sizeof *c);
    c->x = x;
    if (l->tail) l->tail->next = c;
    else l->head = c;
    l->tail = c;
    l->n++;
}
}

%define api.pure full
%define api.prefix {sx_yy}
%define parse.error detailed
%locations
%param {yyscan_t scanner}
%parse-param {sx_state_t *s}
%expect 0

%union {
    sexpr_t *x;
    sx_items_t items;
}

%token <x> ATOM "name"
%type <x> form
%type <items> items

%%

file
    : %empty
    | file form                 { items_push(s, &s->top, $2); }
    ;

form
    : ATOM                      { $$ = $1; }
    | '(' items ')'             {
                                    sexpr_t *x = arena_alloc(s->arena, sizeof *x);
                                    x->is_list = true;
                                    x->off = @1.start;
                                    x->end = @3.end;
                                    /* the scanner's synthetic ')' at end of input is empty */
                                    x->unclosed = @3.start == @3.end;
                                    x->n = $2.n;
                                    x->items = arena_calloc(s->arena, $2.n, sizeof *x->items);
                                    uint32_t i = 0;
                                    for (sx_cell_t *c = $2.head; c; c = c->next) x->items[i++] = c->x;
                                    $$ = x;
                                }
    ;

items
    : %empty                    { $$ = (sx_items_t){0}; }
    | items form                { $$ = $1; items_push(s, &$$, $2); }
    ;

%%

void sx_error_at(sx_state_t *s, uint32_t off, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s->errors++;
    diag_error(s->diag, s->src, off, "%s", buf);
}

static void sx_yyerror(SX_YYLTYPE *loc, yyscan_t scanner, sx_state_t *s, const char *msg)
{
    (void)scanner;
    sx_error_at(s, loc->start, "%s", msg);
}
