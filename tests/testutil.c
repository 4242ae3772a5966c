/* testutil.c - helpers for the CMocka tests (see testutil.h). */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

const char *tu_shared(const char *sub)
{
    static char path[4096];
    const char *env = getenv("GGP_SHARED");
    snprintf(path, sizeof path, "%s/%s", env && *env ? env : GGP_SHARED_DIR, sub);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("note: %s is absent; skipping what needs the shared corpus\n", path);
        return NULL;
    }
    return path;
}

void tu_diag_open(tu_diag_t *t)
{
    t->buf = NULL;
    t->len = 0;
    FILE *f = open_memstream(&t->buf, &t->len);
    diag_init(&t->d, f);
}

const char *tu_diag_text(tu_diag_t *t)
{
    fflush(t->d.out);
    return t->buf ? t->buf : "";
}

void tu_diag_close(tu_diag_t *t)
{
    fclose(t->d.out);
    free(t->buf);
    t->buf = NULL;
}

int tu_run(const char *cmd, char **out)
{
    char *full = malloc(strlen(cmd) + 16);
    sprintf(full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    free(full);
    if (!p) return -1;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 2) buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    int st = pclose(p);
    if (out) *out = buf;
    else free(buf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

char *tu_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

program_t *tu_gdl_load(src_t *src, const char *name, bool no_warnings, symtab_t **syms, gdl_info_t *info)
{
    tu_diag_t td;
    tu_diag_open(&td);
    unsigned errors;
    *syms = symtab_new();
    program_t *prog = gdl_parse_src(src, *syms, &td.d, &errors);
    if (!errors) errors = gdl_validate(prog, &td.d, info);
    if (errors) fail_msg("%s does not load:\n%s", name, tu_diag_text(&td));
    if (no_warnings && *tu_diag_text(&td)) fail_msg("%s has diagnostics:\n%s", name, tu_diag_text(&td));
    tu_diag_close(&td);
    return prog;
}
