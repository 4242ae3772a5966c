/* tourn_report.h - what a tournament reports from its record (tourn_rec.h):
 * each point's score with its Agresti-Coull 95% interval (grave-spec §11.1)
 * as a `result ...` line, the CSV of the points of a sweep, and the SVG plot
 * of score against the swept value (like [S] Figure 3); and what a round
 * robin reports: each method's score over all its games with its interval
 * and time per game, the table of pairs, and a bar plot ([M]'s Tables
 * 1-2). `ggp tournament`, `ggp roundrobin` and `ggp results merge` print
 * and write the same from the same games. */
#ifndef GGP_PLAYER_CLI_TOURN_REPORT_H
#define GGP_PLAYER_CLI_TOURN_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "player/cli/outfile.h"
#include "player/cli/tourn_rec.h"

/* One point's finished games of a shard. */
typedef struct trep_point {
    uint32_t wins, draws, losses, failed;
    uint32_t missing;   /* games of the shard not finished */
    double score, lo, hi;
    seat_totals_t a;    /* A summed over the games (peaks: max) */
} trep_point_t;

/* The games of point p in shard (its shard and shards) into *pt. */
void trep_summarize(const trec_t *r, size_t p, const trec_meta_t *shard, trep_point_t *pt);

/* "result [KEY=V ]games=N wins=W draws=D losses=L score=S ci_low=.. ci_high=..
 * [failed=F] [missing=M]" */
void trep_print_result(const trec_t *r, size_t p, const trep_point_t *pt, FILE *out);

/* Write and commit the points CSV and the plot into the files opened
 * (out_file_open, before the games, so that a bad path fails at once);
 * either may be unopened (f NULL): not asked. Both are closed after.
 * Returns false (message printed) on a write error. */
bool trep_write_points(const trec_t *r, const trep_point_t *pts, out_file_t *csv, out_file_t *plot);

/* A method of a round robin over a shard's finished games. */
typedef struct trep_method {
    double x, n, secs, lo, hi; /* score, games, search seconds, interval */
    uint32_t failed, missing;  /* its games that failed, not finished */
} trep_method_t;

/* A round robin's games of shard: the table of methods, the table of
 * pairs and one "result method=J games=N score=S ci_low=.. ci_high=..
 * seconds_per_game=T [missing=M]" line per method to out, and the bar plot
 * into plot if it is open (out_file_open; committed and closed here).
 * *failed and *missing get the games that failed and are not finished.
 * Returns false (message printed) if the plot cannot be written. */
bool trep_rr_report(const trec_t *r, const trec_meta_t *shard, FILE *out, out_file_t *plot, uint32_t *failed,
                    uint32_t *missing);

#endif
