/* diag.c - source texts and diagnostics (see diag.h). */
#include "diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "xalloc.h"

/* A source owning text (len bytes and a NUL). */
static src_t *src_adopt(const char *name, char *text, size_t len)
{
    src_t *s = xcalloc(1, sizeof *s);
    s->name = xstrdup(name);
    s->text = text;
    s->len = len;
    return s;
}

src_t *src_new(const char *name, const char *text, size_t len) { return src_adopt(name, xstrndup(text, len), len); }

/* text: refuse a NUL byte as soon as it is read (rules and traces are
 * text: /dev/zero or a binary given by mistake fails at its first block,
 * not after 2 GB). */
static src_t *src_read(const char *path, const char **err, bool text)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *err = strerror(errno);
        return NULL;
    }
    /* Sized from fstat so that a big file is read straight into its one
     * copy (no doubling, no second copy); a file that grows meanwhile, or
     * a pipe, falls back to doubling. */
    struct stat sb;
    size_t cap = 1 << 16, len = 0;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 0 &&
        (uint64_t)sb.st_size < ((uint64_t)1 << 31))
        cap = (size_t)sb.st_size + 1;
    char *buf = xmalloc(cap);
    for (;;) {
        size_t n = fread(buf + len, 1, cap - len, f);
        if (text && memchr(buf + len, '\0', n)) {
            *err = "not a text file (it holds a NUL byte)";
            free(buf);
            fclose(f);
            return NULL;
        }
        len += n;
        if (n == 0) break;
        if (len == cap) {
            if (cap >= ((size_t)1 << 31)) {
                *err = "file too large";
                free(buf);
                fclose(f);
                return NULL;
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
    }
    if (ferror(f)) {
        *err = strerror(errno ? errno : EIO);
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    if (cap > len + 1) buf = xrealloc(buf, len + 1);
    buf[len] = '\0';
    return src_adopt(path, buf, len);
}

src_t *src_read_file(const char *path, const char **err) { return src_read(path, err, false); }
src_t *src_read_text_file(const char *path, const char **err) { return src_read(path, err, true); }

void src_free(src_t *s)
{
    if (!s) return;
    free(s->name);
    free(s->text);
    free(s->line_start);
    free(s);
}

static void build_lines(src_t *s)
{
    size_t cap = 64;
    s->line_start = xmalloc(cap * sizeof *s->line_start);
    s->n_lines = 0;
    s->line_start[s->n_lines++] = 0;
    for (size_t i = 0; i < s->len; i++) {
        /* LF, CR and CRLF all end a line (GGP-Base splits on either). */
        if (s->text[i] == '\n' || (s->text[i] == '\r' && (i + 1 >= s->len || s->text[i + 1] != '\n'))) {
            if (s->n_lines == cap) {
                cap *= 2;
                s->line_start = xreallocarray(s->line_start, cap, sizeof *s->line_start);
            }
            s->line_start[s->n_lines++] = (uint32_t)(i + 1);
        }
    }
}

void src_locate(src_t *s, uint32_t off, uint32_t *line, uint32_t *col)
{
    if (!s->line_start) build_lines(s);
    if (off > s->len) off = (uint32_t)s->len;
    uint32_t lo = 0, hi = s->n_lines; /* last line start <= off */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->line_start[mid] <= off) lo = mid;
        else hi = mid;
    }
    *line = lo + 1;
    *col = off - s->line_start[lo] + 1;
}

void diag_init(diag_t *d, FILE *out)
{
    memset(d, 0, sizeof *d);
    d->out = out;
    d->show_source = true;
}

static const char *level_name(diag_level_t l)
{
    return l == DIAG_ERROR ? "error" : l == DIAG_WARNING ? "warning" : "note";
}

/* The source line with a caret under the column. Long lines show a window
 * of about 100 bytes around the caret, so a one-line 50 KB file does not
 * print 50 KB per diagnostic. */
static void print_source_line(FILE *out, src_t *s, uint32_t line, uint32_t col)
{
    enum { WINDOW = 100 };
    /* line 1 needs no table: vreport builds none for offset 0 (huge files) */
    uint32_t start = line > 1 ? s->line_start[line - 1] : 0;
    uint32_t end = start;
    while (end < s->len && s->text[end] != '\n' && s->text[end] != '\r') end++;
    uint32_t caret = start + col - 1;
    uint32_t from = start, to = end;
    if (to - from > WINDOW) {
        from = caret > start + WINDOW / 2 ? caret - WINDOW / 2 : start;
        to = from + WINDOW < end ? from + WINDOW : end;
    }
    char buf[2 * WINDOW + 16];
    size_t n = 0;
    buf[n++] = ' ';
    buf[n++] = ' ';
    buf[n++] = ' ';
    buf[n++] = ' ';
    for (uint32_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)s->text[i];
        /* Tabs stay tabs (the caret line copies them); other bytes that are
         * not printable ASCII print as '?'. */
        buf[n++] = (char)(c == '\t' || (c >= 0x20 && c < 0x7f) ? c : '?');
    }
    buf[n++] = '\n';
    fwrite(buf, 1, n, out);
    n = 0;
    buf[n++] = ' ';
    buf[n++] = ' ';
    buf[n++] = ' ';
    buf[n++] = ' ';
    for (uint32_t i = from; i < caret && i < to; i++) buf[n++] = s->text[i] == '\t' ? '\t' : ' ';
    buf[n++] = '^';
    buf[n++] = '\n';
    fwrite(buf, 1, n, out);
}

static void __attribute__((format(printf, 6, 0)))
vreport(diag_t *d, diag_level_t level, src_t *src, uint32_t off, bool show_source, const char *fmt, va_list ap)
{
    if (level == DIAG_ERROR) d->errors++;
    else if (level == DIAG_WARNING) d->warnings++;
    if (!d->out) return;
    if (level == DIAG_ERROR && d->max_errors && d->errors > d->max_errors) {
        if (d->errors == d->max_errors + 1)
            fprintf(d->out, "ggp: too many errors, stopping the report here\n");
        return;
    }
    uint32_t line = 0, col = 0;
    if (src) {
        if (off == 0) line = col = 1; /* no line table needed (huge files) */
        else src_locate(src, off, &line, &col);
        fprintf(d->out, "%s:%u:%u: %s: ", src->name, line, col, level_name(level));
    } else {
        fprintf(d->out, "ggp: %s: ", level_name(level));
    }
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
    if (src && show_source && d->show_source && src->len > 0) print_source_line(d->out, src, line, col);
}

void diag_report(diag_t *d, diag_level_t level, src_t *src, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(d, level, src, off, true, fmt, ap);
    va_end(ap);
}

void diag_report_file(diag_t *d, diag_level_t level, src_t *src, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(d, level, src, 0, false, fmt, ap);
    va_end(ap);
}
