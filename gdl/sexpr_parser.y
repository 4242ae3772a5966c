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
#include <string.h>
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

/* Lists are built on one stack of items (the state's): a list's items
 * are the top of the stack from its base index, moved into an exact-size
 * array when the list closes. No per-item cell is allocated. */
static void stk_push(sx_state_t *s, sexpr_t *x)
{
    XVEC_RESERVE(&s->stk, &s->cap_stk, s->n_stk + 1);
    s->stk[s->n_stk++] = x;
}

static void top_form(sx_state_t *s, sexpr_t *x)
{
    if (!s->each) {
        stk_push(s, x);
        s->n_top++;
        return;
    }
    /* Streaming: the lookahead, if already read, is an sx_atom_t value,
     * so nothing of the next form lives in the arena yet. */
    s->each(s->each_ctx, x);
    arena_reset(s->arena);
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
    sx_atom_t atom;
    size_t base; /* stack index of a list's first item */
}

%token <atom> ATOM "name"
%type <x> form
%type <base> items

%%

file
    : %empty
    | file form                 { top_form(s, $2); }
    ;

form
    : ATOM                      {
                                    sexpr_t *x = arena_alloc(s->arena, sizeof *x);
                                    x->off = $1.off;
                                    x->end = $1.end;
                                    x->sym = $1.sym;
                                    $$ = x;
                                }
    | '(' items ')'             {
                                    sexpr_t *x = arena_alloc(s->arena, sizeof *x);
                                    x->is_list = true;
                                    x->off = @1.start;
                                    x->end = @3.end;
                                    /* the scanner's synthetic ')' at end of input is empty */
                                    x->unclosed = @3.start == @3.end;
                                    x->n = (uint32_t)(s->n_stk - $2);
                                    x->items = arena_calloc(s->arena, x->n, sizeof *x->items);
                                    if (x->n) memcpy(x->items, s->stk + $2, x->n * sizeof *x->items);
                                    s->n_stk = $2;
                                    $$ = x;
                                }
    ;

items
    : %empty                    { $$ = s->n_stk; }
    | items form                { $$ = $1; stk_push(s, $2); }
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
