/* testutil.c - helpers for the CMocka tests (see testutil.h). */
#include "testutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

const char *tu_shared_or_skip(const char *sub)
{
    const char *path = tu_shared(sub);
    if (!path) skip();
    return path;
}

void tu_skip_unless_shared(bool ok)
{
    if (ok) return;
    printf("note: the shared corpus is absent; skipping\n");
    skip();
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

void tu_rules_text(const char *name, const char *text, tu_rules_t *l)
{
    *l = (tu_rules_t){0};
    l->src = src_new(name, text, strlen(text));
    l->prog = tu_gdl_load(l->src, name, false, &l->syms, &l->info);
}

void tu_rules_file(const char *path, tu_rules_t *l)
{
    *l = (tu_rules_t){0};
    const char *err = NULL;
    l->src = src_read_file(path, &err);
    if (!l->src) fail_msg("cannot read %s: %s", path, err);
    l->prog = tu_gdl_load(l->src, path, false, &l->syms, &l->info);
}

void tu_rules_free(tu_rules_t *l)
{
    gdl_info_free(&l->info);
    program_free(l->prog);
    symtab_free(l->syms);
    src_free(l->src);
}

int tu_count_char(const char *s, char c)
{
    int n = 0;
    for (; s && *s; s++) n += *s == c;
    return n;
}

void tu_sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) { /* the rest, after a signal */
    }
}

int tu_spawn(const char *cmd)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return (int)pid;
}

char *tu_wait_lines(const char *path, int n, long ms)
{
    char *text = NULL;
    for (long t = 0; t < ms && tu_count_char(text, '\n') < n; t += 10) {
        free(text);
        tu_sleep_ms(10);
        text = tu_read_file(path);
    }
    return text;
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char *tu_csv_rows(const char *path, int drop, int *n)
{
    char *text = tu_read_file(path);
    if (!text) fail_msg("cannot read %s", path);
    size_t cap = 64;
    int k = 0;
    char **rows = malloc(cap * sizeof *rows);
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#' || !strncmp(l, "game,", 5)) continue;
        /* cut ",field" of column drop (unquoted: a number) */
        char *c = l;
        for (int i = 0; i < drop && c; i++) c = strchr(c + 1, ',');
        char *d = c ? strchr(c + 1, ',') : NULL;
        if (!d) fail_msg("%s: a row without column %d: %s", path, drop, l);
        memmove(c, d, strlen(d) + 1);
        if ((size_t)k == cap) rows = realloc(rows, (cap *= 2) * sizeof *rows);
        rows[k++] = l;
    }
    qsort(rows, (size_t)k, sizeof *rows, str_cmp);
    size_t len = 1;
    for (int i = 0; i < k; i++) len += strlen(rows[i]) + 1;
    char *out = calloc(1, len), *w = out;
    for (int i = 0; i < k; i++) w += sprintf(w, "%s\n", rows[i]);
    free(rows);
    free(text);
    *n = k;
    return out;
}

void tu_ggp_expect(const char *cwd, int status, const char *needle, const char *fmt, ...)
{
    char args[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    if (cwd) snprintf(cmd, sizeof cmd, "cd '%s' && %s %s", cwd, GGP_BIN, args);
    else snprintf(cmd, sizeof cmd, "%s %s", GGP_BIN, args);
    char *out = NULL;
    int st = tu_run(cmd, &out);
    if (st != status || (needle && (!out || !strstr(out, needle))))
        fail_msg("ggp %s: status %d (want %d), output:\n%s\n(wanted '%s')", args, st, status, out ? out : "",
                 needle ? needle : "");
    free(out);
}
