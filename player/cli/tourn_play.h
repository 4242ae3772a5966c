/* tourn_play.h - play the games of a record (tourn_rec.h), as `ggp
 * tournament` and `ggp roundrobin` do: the games of its shard that are
 * not done, on J threads, each game's row appended to the per-game CSV and
 * synced as the game ends (a kill loses no finished game), with progress
 * on stderr. Game i is played with its seed and seats (trec_setup), so
 * it is the same game in any shard, any resumed run and at any J. */
#ifndef GGP_PLAYER_CLI_TOURN_PLAY_H
#define GGP_PLAYER_CLI_TOURN_PLAY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "player/cli/local_game.h"
#include "player/cli/progress.h"
#include "player/cli/tourn_rec.h"

typedef struct tplay {
    const game_t *g;
    trec_t *rec;
    const search_spec_t *const *a_specs; /* A's of each point */
    const search_spec_t *const *b_specs; /* B's of each point */
    const char *cmd;                     /* "tournament", for messages */
    FILE *csv;                           /* per-game rows, or NULL; NULL after a write error */
    const char *csv_path;
    progress_t pr;                       /* on, tty, every_ns, wdl, label: the caller's */
    /* private */
    uint32_t *todo, n_todo;
    atomic_uint next;
    atomic_bool stop;                    /* a CSV row could not be written */
    /* The CSV's path lost this run's rows (removed or replaced) and could
     * not be written again, even after the last game: the caller reports
     * it and exits 2 after the result lines, the only record left. */
    bool csv_lost;
    pthread_mutex_t mu;
} tplay_t;

/* The games of the shard not done yet become the games to play; those
 * done (resumed) are counted in t->pr. Call once, before tplay_run. */
void tplay_plan(tplay_t *t);

/* Play them on jobs threads. Returns false if a CSV row could not be
 * written (reported; the games after it are not played and t->csv is
 * NULL: the caller still closes the stream it opened). t->csv_lost: see
 * above. */
bool tplay_run(tplay_t *t, uint32_t jobs);

/* Whether t->csv_lost, said on stderr (after the result lines). */
bool tplay_csv_lost(const tplay_t *t, const char *path);

/* Free what tplay_plan allocated. */
void tplay_fini(tplay_t *t);

/* --shard I/N, given or not (shards == 0). */
typedef struct tplay_shard {
    uint32_t shard, shards;
} tplay_shard_t;

/* --shard I/N as a CLI_FN row (opts.h) into the tplay_shard_t out; false
 * with "ggp CMD: bad value for --shard: ..." printed. */
bool tplay_shard_opt(const char *cmd, const char *opt, const char *val, void *out);

/* The rules part of a run's metadata from the loaded rules: roles (m->roles
 * malloc'd: the caller frees it), rules (into file) and rules_hash. */
void tplay_meta_of(trec_meta_t *m, const game_t *g, const gdl_loaded_t *l, const char *file);

#endif
