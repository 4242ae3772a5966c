/* tourn_rec.h - the record of a run of games, `ggp tournament` (A against
 * B, maybe over a sweep of A's spec) or `ggp roundrobin` (every pair of
 * several players): what is played (rules, seed, games, shard, players)
 * and every finished game, with its per-game CSV. Both commands append a
 * row to the CSV as each game ends, `--resume` reads it back and `ggp
 * results merge` combines the CSVs of shards into the outputs of the
 * unsharded run. One reader and one writer serve both commands.
 *
 * The CSV is a line of metadata, the column header, then one row per
 * finished game in the order the games ended:
 *
 *   # ggp tournament,games=16,seed=3,shard=1/4,shard_games=4,roles=x;o,
 *     rules=tictactoe.kif,rules_hash=...,a=SPEC,b=SPEC,sweep=KEY=V1,V2
 *   game,seed,a_role,goals,outcome,a_searches,...,a_spec,b_spec,...
 *
 *   # ggp roundrobin,games_per_pair=6,seed=1,shard=0/4,shard_games=5,
 *     roles=x;o,rules=...,rules_hash=...,player=SPEC1,player=SPEC2,...
 *   game,seed,a_role,...,moves_hash,b_seconds
 *
 * (one line; fields with commas quoted; either kind ends with
 * max_steps=N when the run set --max-steps). The games are in points of
 * `games` games each, game k of point p at index p * games + k: the
 * points of a tournament's sweep (one point without a sweep), or the
 * pairs (i, j), i < j, of a round robin in order (0,1) (0,2) .. (1,2) ..,
 * where A is player i and B player j. A game's number is k in a
 * tournament (each point plays the same games 0..games-1) and its index in
 * a round robin (the game of the whole run). Game number n has seed
 * rng_derive(seed, n) and belongs to shard n mod shards; A sits in seat
 * k mod roles and B in every other seat. shard_games is the number of
 * rows of the finished shard, so a file says how far its shard is. A
 * round robin's rows add B's search time (its table gives each method's
 * time per game).
 *
 * Every line read is checked against the metadata; what is wrong is
 * reported as "FILE:LINE: reason" (the files are untrusted input). */
#ifndef GGP_PLAYER_CLI_TOURN_REC_H
#define GGP_PLAYER_CLI_TOURN_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/diag.h"
#include "player/cli/local_game.h"

enum { TREC_MAX_ROLES = 64, TREC_MAX_GAMES = 1000000 /* over all points */, TREC_MAX_PLAYERS = 256 };
typedef enum trec_kind { TREC_TOURNAMENT, TREC_ROUNDROBIN } trec_kind;
enum { TREC_LOSS = -1, TREC_DRAW = 0, TREC_WIN = 1, TREC_FAILED = 2 };

/* What the run is: equal metadata, same games. */
typedef struct trec_meta {
    trec_kind kind;
    uint32_t games;      /* per point (a round robin's games per pair) */
    uint64_t seed;       /* base seed */
    uint32_t shard;      /* this file's games: k mod shards == shard */
    uint32_t shards;     /* 1: unsharded */
    uint32_t shard_games; /* rows of the finished file (read; written from the rest) */
    uint32_t n_roles;
    char *roles;         /* role names joined by ';' */
    char *rules;         /* rule file name, without its folder */
    uint64_t rules_hash; /* FNV-1a of the rule file's bytes */
    char *a, *b;         /* tournament: the specs as given */
    char *sweep;         /* tournament: "KEY=V1,V2,..." or "" */
    uint32_t n_players;  /* round robin: its players' specs */
    char **players;
    uint32_t max_steps;  /* --max-steps (0: LOCAL_MAX_STEPS); in the file only when not that */
    /* the engine that played ("propnet", "rules", "native": the same seed
     * plays other games on another engine, and auto falls back to the rules
     * engine past its grounding budget); "" or NULL in files before it was
     * written, which match any */
    char *engine;
} trec_meta_t;

/* One game. */
typedef struct trec_game {
    bool done;
    int outcome;         /* TREC_* */
    uint32_t a_seat;
    uint32_t steps;
    uint64_t seed;
    uint64_t moves_hash; /* local_game_t.moves_hash */
    int goals[TREC_MAX_ROLES];
    seat_totals_t a;
    double b_seconds;    /* every B seat's search time (round robin) */
    char error[160];     /* why a failed game failed */
} trec_game_t;

typedef struct trec {
    trec_meta_t m;
    char key[64];        /* the swept key, or "" */
    size_t n_pts;
    char **a_texts;      /* A's spec of each point (a, a with KEY=V; a pair's first, into m) */
    const char **b_texts; /* B's of each point (into m) */
    uint32_t *pair;      /* round robin: the players of point p at 2p, 2p+1 */
    char **values;       /* the swept value of each point (NULL: no sweep) */
    char *role[TREC_MAX_ROLES]; /* into roles_buf */
    char *roles_buf;
    char *values_buf;
    trec_game_t *games;  /* n_pts * m.games: point p, game k at p * games + k */
} trec_t;

/* A record for meta (copied; shard_games is computed) with every game
 * still to play. Returns false with a message in err (the option at
 * fault: "bad value for --sweep: ...") and nothing to free. */
bool trec_init(trec_t *r, const trec_meta_t *meta, char *err, size_t err_size);
void trec_free(trec_t *r);

/* The number of game i (its index in r->games), which gives its seed and
 * shard. */
uint32_t trec_number(const trec_t *r, size_t i);
/* Whether game i is one of the games of shard's shard. */
bool trec_in_shard(const trec_t *r, const trec_meta_t *shard, size_t i);
/* Game i's seed and A's seat into g. */
void trec_setup(const trec_t *r, size_t i, trec_game_t *g);

/* The outcome for A in seat a_seat: TREC_WIN if its goal is strictly
 * greater than every other seat's, TREC_DRAW if equal to the best of them,
 * else TREC_LOSS. */
int trec_outcome(const int *goals, uint32_t n_roles, uint32_t a_seat);

/* A CSV field, quoted when quote is set or it must be ("" for "). */
void trec_csv_field(const char *s, bool quote, FILE *out);
/* Split a CSV line in place into fields (quoted ones unquoted). Returns
 * the count, max + 1 if there are more, -1 if a quote is not closed. */
int trec_csv_split(char *line, char **f, int max);

/* The metadata line and the column header. */
void trec_write_head(const trec_t *r, FILE *out);
/* The row of game i (p * games + k). */
void trec_write_row(const trec_t *r, size_t i, FILE *out);
/* The whole per-game CSV: the head, then every finished game's row in
 * game order. Returns the rows written. */
uint32_t trec_write_games(const trec_t *r, FILE *out);

/* Metadata that differs: NULL if none, else what (for "another --seed").
 * with_shard compares the shard too (resuming one file). */
const char *trec_meta_differs(const trec_meta_t *want, const trec_meta_t *got, bool with_shard);

/* A per-game CSV being read. */
typedef struct trec_file {
    src_t *src;
    const char *path;    /* src->name */
    trec_meta_t m;       /* its metadata line */
    size_t keep;         /* bytes up to the end of its last whole line */
    size_t at;           /* the next row */
    uint32_t line;       /* its line number */
} trec_file_t;

/* Read PATH and its metadata and header lines. A last line without its
 * newline (a run killed while writing it) is left out: see f->keep.
 * Returns false with "PATH: reason" or "PATH:LINE: reason" in err and
 * nothing to free. */
bool trec_file_open(trec_file_t *f, const char *path, char *err, size_t err_size);
/* The same from bytes already read (named src->name in messages); f owns
 * src from now on, also on failure. */
bool trec_file_from(trec_file_t *f, src_t *src, char *err, size_t err_size);
/* The next row, checked against r (whose metadata the file's must equal)
 * and the file's shard, into *g; *i is its index in r->games. Returns 1,
 * 0 at the end, -1 with "PATH:LINE: reason" in err. Does not store the
 * game: the caller checks for a duplicate in r->games[*i].done. */
int trec_file_next(trec_file_t *f, const trec_t *r, size_t *i, trec_game_t *g, char *err, size_t err_size);
void trec_file_close(trec_file_t *f);

/* A new per-game CSV at path with r's head, synced. NULL (message printed
 * as "ggp CMD: ...") on error. */
FILE *trec_csv_start(const trec_t *r, const char *cmd, const char *path);
/* --resume: take the finished games of an earlier run from the CSV at path
 * (a missing or empty one is started afresh) into r, whose metadata and
 * shard it must have. A last line without its newline (killed while
 * writing) is cut off: that game is played again. Returns the CSV open
 * for appending, or NULL (message printed). */
FILE *trec_csv_resume(trec_t *r, const char *cmd, const char *path);
/* After a row is appended to f, the CSV at path: when path no longer names
 * the file f writes (removed, or replaced by a `git checkout` or `git
 * stash` while the run went on), the rows would go to a file no one can
 * read. Then the CSV is written again at path (atomically) with r's head
 * and every finished game, and f pointed at it (the same FILE, so its
 * owner still closes it); a warning says so. If that fails, the run goes
 * on (warned) and the next row tries again. A stream that is not a
 * regular file is left alone. Returns false when path does not hold f's
 * rows (it could not be written again). last: no game comes after this
 * try (the warning does not promise another). */
bool trec_csv_reattach(const trec_t *r, const char *cmd, const char *path, FILE *f, bool last);

#endif
