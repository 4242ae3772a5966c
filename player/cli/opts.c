/* opts.c - the option parser of the `ggp` commands (see opts.h). */
#include "player/cli/opts.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

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

void cli_list_free(cli_list_t *l)
{
    free(l->v);
    *l = (cli_list_t){0};
}

static void list_push(cli_list_t *l, const char *s)
{
    XVEC_RESERVE(&l->v, &l->cap, l->n + 1);
    l->v[l->n++] = s;
}

static const cli_opt_t *opt_find(const cli_opt_t *opts, size_t n_opts, const char *a)
{
    for (size_t j = 0; j < n_opts; j++)
        if (!strcmp(a, opts[j].name) || (opts[j].alias && !strcmp(a, opts[j].alias))) return &opts[j];
    return NULL;
}

/* Store the value of o; false (message printed) on a bad one. */
static bool opt_store(const char *cmd, const cli_opt_t *o, const char *v)
{
    switch (o->kind) {
    case CLI_U64: return parse_u64(cmd, o->name, v, o->lo, o->hi, o->out);
    case CLI_DOUBLE: return parse_double(cmd, o->name, v, o->dlo, o->dhi, o->out);
    case CLI_STR: *(const char **)o->out = v; return true;
    case CLI_LIST: list_push(o->out, v); return true;
    case CLI_FN: return o->fn(cmd, o->name, v, o->out);
    case CLI_FLAG: break;
    }
    return false;
}

bool cli_opts_parse(const char *cmd, const char *help, const cli_opt_t *opts, size_t n_opts, int argc, char **argv,
                    cli_list_t *pos, int *rc)
{
    for (size_t j = 0; j < n_opts; j++) assert(strstr(help, opts[j].name) && "an option missing from the help");
    bool dashdash = false, syntax = false;
    *rc = EXIT_OK;
    for (int i = 1; i < argc && *rc == EXIT_OK; i++) {
        const char *a = argv[i];
        const cli_opt_t *o = NULL;
        if (dashdash || a[0] != '-' || !a[1]) {
            if (pos) {
                list_push(pos, a);
            } else {
                fprintf(stderr, "ggp %s: unexpected argument '%s'\n", cmd, a);
                *rc = EXIT_USAGE, syntax = true;
            }
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(help, stdout);
            if (pos) cli_list_free(pos);
            return false;
        } else if (!strcmp(a, "--")) {
            dashdash = true;
        } else if (!(o = opt_find(opts, n_opts, a))) {
            fprintf(stderr, "ggp %s: unknown option '%s'\n", cmd, a);
            *rc = EXIT_USAGE, syntax = true;
        } else if (o->kind == CLI_FLAG) {
            *(bool *)o->out = true;
        } else if (i + 1 >= argc) {
            fprintf(stderr, "ggp %s: missing value for %s\n", cmd, a);
            *rc = EXIT_USAGE, syntax = true;
        } else if (!opt_store(cmd, o, argv[++i])) {
            *rc = EXIT_USAGE;
        }
    }
    if (*rc == EXIT_OK) return true;
    if (syntax) fputs(help, stderr);
    if (pos) cli_list_free(pos);
    return false;
}
