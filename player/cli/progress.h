/* progress.h - progress of a long run of games (tournament, roundrobin):
 * a bar redrawn in place when stderr is a terminal, else a plain line at
 * most every `every_ns` (batch logs get no \r frames), with the time
 * elapsed and an estimate of the time left. */
#ifndef GGP_PLAYER_CLI_PROGRESS_H
#define GGP_PLAYER_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct progress {
    bool on, tty;
    bool wdl; /* show the first player's wins, draws and losses */
    uint64_t every_ns;
    uint64_t start_ns, last_ns;
    uint32_t total, done, resumed; /* resumed: done before this run */
    uint32_t w, d, l;
    const char *cmd;   /* "tournament" */
    const char *label; /* "shard 1/4: " or "" */
} progress_t;

/* Draw (or, off a terminal, print when due; always at the end). */
void progress_draw(progress_t *pr);

#endif
