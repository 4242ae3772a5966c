/* games_csv.c - per-game CSV files: write, split, resume (games_csv.h). */
#include "player/cli/games_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "player/cli/outfile.h"

void csv_field(const char *s, FILE *out)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int csv_split(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;;) {
        if (n == max) return max + 1;
        if (*p != '"') {
            f[n++] = p;
            char *c = strchr(p, ',');
            if (!c) return n;
            *c = '\0';
            p = c + 1;
            continue;
        }
        char *w = ++p;
        f[n++] = w;
        for (;;) {
            if (!*p) return -1;
            if (*p == '"' && p[1] != '"') break;
            if (*p == '"') p++;
            *w++ = *p++;
        }
        p++;
        char end = *p;
        *w = '\0';
        if (!end) return n;
        if (end != ',') return -1;
        p++;
    }
}

bool csv_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return *s >= '0' && *s <= '9' && !*end && !errno;
}

FILE *csv_games_start(const char *cmd, const char *path, const char *header)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "ggp %s: cannot write %s: %s\n", cmd, path, strerror(errno));
        return NULL;
    }
    fputs(header, f);
    if (!out_stream_sync(f, cmd, path)) {
        fclose(f);
        return NULL;
    }
    return f;
}

FILE *csv_games_resume(const char *cmd, const char *path, const char *header,
                       const char *(*row)(char *line, void *arg), void *arg)
{
    src_t *src = NULL;
    const char *err = NULL;
    if (access(path, F_OK) != 0 || !(src = src_read_file(path, &err)) || src->len == 0) {
        if (err) fprintf(stderr, "ggp %s: cannot read %s: %s\n", cmd, path, err);
        src_free(src);
        return err ? NULL : csv_games_start(cmd, path, header);
    }
    size_t keep = src->len, hl = strlen(header);
    while (keep && src->text[keep - 1] != '\n') keep--;
    const char *bad = NULL;
    char why[96];
    size_t line_no = 1;
    if (keep < hl || strncmp(src->text, header, hl)) {
        snprintf(why, sizeof why, "not the per-game CSV of this version of 'ggp %s'", cmd);
        bad = why;
    }
    for (size_t at = hl; !bad && at < keep; line_no++) {
        char *line = src->text + at, *nl = strchr(line, '\n');
        *nl = '\0';
        at = (size_t)(nl - src->text) + 1;
        bad = row(line, arg);
    }
    FILE *f = NULL;
    if (bad) {
        fprintf(stderr, "ggp %s: --resume: %s:%zu: %s\n", cmd, path, line_no - (line_no > 1), bad);
    } else if (keep < src->len && truncate(path, (off_t)keep) != 0) {
        fprintf(stderr, "ggp %s: cannot write %s: %s\n", cmd, path, strerror(errno));
    } else if (!(f = fopen(path, "a"))) {
        fprintf(stderr, "ggp %s: cannot write %s: %s\n", cmd, path, strerror(errno));
    }
    src_free(src);
    return f;
}
