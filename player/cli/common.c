/* common.c - helpers shared by the subcommands (see common.h). */
#include "player/cli/common.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"

bool load_rules(const char *path, diag_t *d, loaded_t *l)
{
    *l = (loaded_t){0};
    uint64_t t0 = clock_now_ns();
    const char *err = NULL;
    l->src = src_read_file(path, &err);
    if (!l->src) {
        fprintf(stderr, "ggp: cannot read %s: %s\n", path, err);
        return false;
    }
    l->syms = symtab_new();
    l->prog = gdl_parse_src(l->src, l->syms, d, &l->errors);
    if (l->errors == 0) l->errors += gdl_validate(l->prog, d, &l->info);
    l->load_ms = (double)(clock_now_ns() - t0) / 1e6;
    return true;
}

void loaded_free(loaded_t *l)
{
    gdl_info_free(&l->info);
    program_free(l->prog);
    symtab_free(l->syms);
    src_free(l->src);
    *l = (loaded_t){0};
}

bool parse_u64(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || s[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "ggp %s: bad value for %s: '%s' (expected an integer from %llu to %llu)\n", cmd, opt, s,
                (unsigned long long)lo, (unsigned long long)hi);
        return false;
    }
    *out = v;
    return true;
}

bool parse_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "ggp %s: bad value for %s: '%s' (expected a number from %g to %g)\n", cmd, opt, s, lo, hi);
        return false;
    }
    *out = v;
    return true;
}
