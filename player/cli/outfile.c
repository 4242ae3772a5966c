/* outfile.c - checked and atomic output files (see outfile.h). */
#include "player/cli/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"

static void report(const char *cmd, const char *what, int err)
{
    if (!cmd) return; /* the caller reports (or has reported) it */
    fprintf(stderr, "ggp %s: cannot write %s: %s\n", cmd, what, strerror(err ? err : EIO));
}

/* The error of f, 0 if none. A failed flush sets errno. When an earlier
 * write already failed (an unbuffered or line-buffered stream writes at
 * once) its errno is still there if we are called right after it; when
 * it is gone, the error is reported as EIO. */
static int flush_error(FILE *f)
{
    int before = ferror(f) ? errno : 0;
    errno = 0;
    int rc = fflush(f);
    int e = errno ? errno : before;
    if (rc != 0 || ferror(f)) return e ? e : EIO;
    return 0;
}

bool out_stream_check(FILE *f, const char *cmd, const char *what, bool do_close)
{
    int e = flush_error(f);
    if (do_close) {
        errno = 0;
        if (fclose(f) != 0 && !e) e = errno ? errno : EIO;
    }
    if (e) report(cmd, what, e);
    return e == 0;
}

bool out_stream_sync(FILE *f, const char *cmd, const char *what)
{
    int e = flush_error(f);
    struct stat st;
    /* fsync of a device or a pipe fails with EINVAL and means nothing. */
    if (!e && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && fsync(fileno(f)) != 0) e = errno;
    if (e) report(cmd, what, e);
    return e == 0;
}

bool out_file_open(out_file_t *o, const char *cmd, const char *path)
{
    *o = (out_file_t){.cmd = cmd, .path = xstrdup(path)};
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        o->f = fopen(path, "w");
        if (!o->f) {
            report(cmd, path, errno);
            free(o->path);
            return false;
        }
        return true;
    }
    /* PATH.tmpPID[.N]: unique among live processes; a stale one left by a
     * killed run is skipped by O_EXCL. */
    size_t len = strlen(path) + 48;
    o->tmp = xmalloc(len);
    int fd = -1;
    for (unsigned k = 0; k < 100 && fd < 0; k++) {
        if (k) snprintf(o->tmp, len, "%s.tmp%ld.%u", path, (long)getpid(), k);
        else snprintf(o->tmp, len, "%s.tmp%ld", path, (long)getpid());
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        report(cmd, path, errno);
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        free(o->tmp);
        free(o->path);
        return false;
    }
    return true;
}

bool out_file_commit(out_file_t *o)
{
    bool ok = o->tmp ? out_stream_sync(o->f, o->cmd, o->path) : true;
    if (ok) ok = out_stream_check(o->f, o->cmd, o->path, true);
    else fclose(o->f); /* already reported */
    if (ok && o->tmp && rename(o->tmp, o->path) != 0) {
        report(o->cmd, o->path, errno);
        ok = false;
    }
    if (!ok && o->tmp) unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    *o = (out_file_t){0};
    return ok;
}

void out_file_discard(out_file_t *o)
{
    if (!o->f) return;
    fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    *o = (out_file_t){0};
}
