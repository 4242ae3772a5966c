/* gdl_check.h - run parse + validate in process, as `ggp check` does
 * (gdl/load.c), with diagnostics captured in memory.
 * Shared by the tests of tests/gdl/. */
#ifndef GGP_TESTS_GDL_CHECK_H
#define GGP_TESTS_GDL_CHECK_H

#include "testutil.h"

#include "gdl/ast.h"
#include "gdl/validate.h"

typedef struct checked {
    symtab_t *st;
    src_t *src;
    program_t *p;
    tu_diag_t td;
    gdl_info_t info;
    unsigned errors;
} checked_t;

/* Check a source (taken over by c); returns the number of errors. */
static inline unsigned check_src(checked_t *c, src_t *src)
{
    c->st = symtab_new();
    c->src = src;
    tu_diag_open(&c->td);
    c->info = (gdl_info_t){0};
    c->p = gdl_parse_src(c->src, c->st, &c->td.d, &c->errors);
    if (c->errors == 0) c->errors = gdl_validate(c->p, &c->td.d, &c->info);
    return c->errors;
}

static inline unsigned check_text(checked_t *c, const char *text)
{
    return check_src(c, src_new("t.kif", text, strlen(text)));
}

static inline const char *check_diags(checked_t *c) { return tu_diag_text(&c->td); }

static inline void check_done(checked_t *c)
{
    gdl_info_free(&c->info);
    program_free(c->p);
    tu_diag_close(&c->td);
    symtab_free(c->st);
    src_free(c->src);
}

#endif
