/* registry.c - the table of native games (registry.h). */
#include "games/registry.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "games/go/go.h"

typedef struct family {
    const char *prefix;
    unsigned min_size, max_size;
    const char *options, *about;
    /* the game of that size with the options (after ':', "" if none) */
    game_t *(*open)(unsigned size, const char *opts, char *err, size_t err_len);
} family_t;

static game_t *open_go(unsigned size, const char *opts, char *err, size_t err_len)
{
    go_params_t p = go_params_default(size);
    if (!go_params_parse(&p, opts, err, err_len)) return NULL;
    return go_game_new(&p);
}

static const family_t families[] = {
    {"go", GO_MIN_SIZE, GO_MAX_SIZE, "komi=7.5,ko=positional|simple,cap=3xpoints",
     "Go, area scoring, positional superko, suicide illegal, two passes end it", open_go},
};

#define N_FAMILIES (sizeof families / sizeof *families)

static const family_t *family_of(const char *spec, size_t *plen)
{
    if (strchr(spec, '/')) return NULL;
    for (size_t i = 0; i < N_FAMILIES; i++) {
        size_t len = strlen(families[i].prefix);
        size_t digits = strspn(spec + len, "0123456789");
        char after = spec[len + digits];
        if (!strncmp(spec, families[i].prefix, len) && digits && (!after || after == ':')) {
            *plen = len;
            return &families[i];
        }
    }
    return NULL;
}

bool native_game_named(const char *spec)
{
    size_t len;
    return family_of(spec, &len) != NULL;
}

game_t *native_game_open(const char *spec, char *err, size_t err_len)
{
    size_t len;
    const family_t *f = family_of(spec, &len);
    if (!f) {
        snprintf(err, err_len, "'%s' names no native game (see ggp games)", spec);
        return NULL;
    }
    const char *p = spec + len;
    char *end;
    errno = 0;
    unsigned long size = strtoul(p, &end, 10);
    if (errno || (*end && *end != ':') || size < f->min_size || size > f->max_size) {
        snprintf(err, err_len, "'%s': expected %s%u to %s%u, then options after ':'", spec, f->prefix, f->min_size,
                 f->prefix, f->max_size);
        return NULL;
    }
    char why[200] = "";
    game_t *g = f->open((unsigned)size, *end == ':' ? end + 1 : "", why, sizeof why);
    if (!g) snprintf(err, err_len, "'%s': %s", spec, *why ? why : "cannot make the game");
    return g;
}

void native_games_list(FILE *out)
{
    for (size_t i = 0; i < N_FAMILIES; i++) {
        const family_t *f = &families[i];
        fprintf(out, "%s%u..%s%u  %s\n    options: %s%u:%s\n", f->prefix, f->min_size, f->prefix, f->max_size,
                f->about, f->prefix, f->min_size, f->options);
    }
}
