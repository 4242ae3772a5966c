/* load.c - read, parse and validate a rule file (see load.h). */
#include "gdl/load.h"

#include "base/clock.h"

static void parse_and_validate(gdl_loaded_t *l, diag_t *d, uint64_t t0)
{
    l->syms = symtab_new();
    l->prog = gdl_parse_src(l->src, l->syms, d, &l->errors);
    if (l->errors == 0) l->errors += gdl_validate(l->prog, d, &l->info);
    l->load_ms = (double)(clock_now_ns() - t0) / 1e6;
}

bool gdl_load_file(const char *path, diag_t *d, gdl_loaded_t *l, const char **err)
{
    *l = (gdl_loaded_t){0};
    uint64_t t0 = clock_now_ns();
    l->src = src_read_text_file(path, err);
    if (!l->src) return false;
    parse_and_validate(l, d, t0);
    return true;
}

void gdl_load_text(const char *name, const char *text, size_t len, diag_t *d, gdl_loaded_t *l)
{
    *l = (gdl_loaded_t){0};
    uint64_t t0 = clock_now_ns();
    l->src = src_new(name, text, len);
    parse_and_validate(l, d, t0);
}

void gdl_loaded_free(gdl_loaded_t *l)
{
    gdl_info_free(&l->info);
    program_free(l->prog);
    symtab_free(l->syms);
    src_free(l->src);
    *l = (gdl_loaded_t){0};
}
