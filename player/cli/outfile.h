/* outfile.h - the files the commands write (--csv, --plot, --out, --log),
 * written so that a kill or a full disk never loses results silently.
 *
 * A whole file (a plot, a match record) is written to a temporary name in
 * the same folder and renamed over the target only once every byte is
 * flushed and synced: a kill at any moment leaves either the old file or
 * the new one, never half of it. Targets that are not regular files (a
 * device such as /dev/full or /dev/stdout, a pipe) are written in place,
 * since renaming over them would replace the device.
 *
 * Every write error is reported as "ggp CMD: cannot write PATH: REASON"
 * (errno text), and the functions return false so that the command exits
 * with status 2. */
#ifndef GGP_PLAYER_CLI_OUTFILE_H
#define GGP_PLAYER_CLI_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct out_file {
    FILE *f;         /* write here */
    char *path;      /* the file asked for */
    char *tmp;       /* the temporary name, or NULL when written in place */
    const char *cmd; /* "tournament", for messages; NULL: none printed */
} out_file_t;

/* Start writing PATH for `ggp CMD`. Returns false (message printed,
 * nothing to free) when the file or its temporary cannot be created.
 * CMD NULL: the same, with no message (a caller that reported already). */
bool out_file_open(out_file_t *o, const char *cmd, const char *path);
/* Flush, sync, close and rename into place. Returns false (message
 * printed, temporary removed) on any error. Frees o either way. */
bool out_file_commit(out_file_t *o);
/* Give up: close and remove the temporary (the target is untouched). */
void out_file_discard(out_file_t *o);

/* Flush f and check its error flag; with do_close also close it (and
 * check that). Returns false after printing "ggp CMD: cannot write WHAT:
 * REASON". For streams written piecemeal (a CSV appended per game, a log,
 * stdout). Call it right after the writes: the reason of a write that
 * failed at once (a line-buffered stream) is taken from errno. */
bool out_stream_check(FILE *f, const char *cmd, const char *what, bool do_close);
/* out_stream_check without closing, then fsync when f is a regular file,
 * so that what was written survives a kill or a crash. */
bool out_stream_sync(FILE *f, const char *cmd, const char *what);

#endif
