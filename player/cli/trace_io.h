/* trace_io.h - reference traces of random playouts: reading, writing and
 * replaying them against a compiled game (`ggp replay`, `ggp trace`).
 *
 * A trace (the files in shared/traces) is one form per line:
 *
 *     (game NAME)
 *     (roles R1 R2 ...)
 *     (step K (state F...) (legal R M...)... (does R M)...)     K = 0, 1, ...
 *     (terminal K (state F...) (goal R V)...)                   V = 0..100 | error
 *
 * Facts and moves are canonical text (lowercase keys, one space) sorted in
 * strcmp order; `(goal R error)` means the reference found no single goal
 * value (none, or several). Two endings are also accepted and written: a
 * last `step` line without `does` ends a playout cut by --max-steps, or one
 * where some role has no legal move (a defect of the rules).
 *
 * Every text (trace side and game side) goes through the same KIF reader
 * (gdl/sexpr.h) and printer, and is interned, so comparisons are exact and
 * insensitive to case of keys and to whitespace; sets are compared as sets,
 * so the order of a line does not matter when replaying. */
#ifndef GGP_PLAYER_CLI_TRACE_IO_H
#define GGP_PLAYER_CLI_TRACE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/diag.h"
#include "player/cli/common.h"
#include "reasoner/game.h"

/* --- canonical texts ---------------------------------------------------- */

/* An interner of canonical texts: equal canonical texts give the same
 * pointer, valid until canon_free. */
typedef struct canon canon_t;

/* A growable vector of interned strings (not owned). */
typedef struct strvec {
    const char **v;
    size_t n, cap;
} strvec_t;

canon_t *canon_new(void);
void canon_free(canon_t *c);

void strvec_free(strvec_t *v);

/* --- a game seen as canonical texts ----------------------------------- */

/* The canonical names of a game's roles and moves, cached (the rules engine
 * discovers moves as it goes, so the cache grows on demand). */
typedef struct game_texts {
    const game_t *g;
    canon_t *canon;
    uint32_t n_roles;
    const char **roles;       /* lowercase role names */
    const char ***moves;      /* [role][move id], NULL until asked */
    uint32_t *n_moves;        /* entries allocated per role */
    char *buf;                /* scratch for printing a state */
    size_t buf_len;
    FILE *buf_out;
} game_texts_t;

void game_texts_init(game_texts_t *t, const game_t *g, canon_t *c);
void game_texts_free(game_texts_t *t);
/* The fluents of s, canonical, sorted and unique, into out (cleared). */
void game_texts_state(game_texts_t *t, const game_state_t *s, strvec_t *out);
/* The legal moves of a role in the current state of ctx, sorted texts, into
 * out (cleared); ids (if not NULL) gets the legal moves in the same order. */
void game_texts_legal(game_texts_t *t, game_ctx_t *ctx, uint32_t role, strvec_t *out, move_id_t **ids, size_t *ids_cap);

/* --- traces ------------------------------------------------------------- */

typedef struct trace_step {
    uint32_t k;
    bool terminal;
    uint32_t off;         /* byte offset of the line, for messages */
    strvec_t state;       /* sorted, unique */
    strvec_t *legal;      /* [role], sorted, unique */
    bool *has_legal;      /* [role]: a (legal R ...) form was present */
    const char **does;    /* [role] or NULL */
    const char **goal;    /* [role]: "0".."100" / "error", or NULL */
} trace_step_t;

typedef struct trace {
    const char *game;     /* interned */
    uint32_t n_roles;
    const char **roles;   /* interned, lowercase */
    trace_step_t *steps;
    size_t n_steps;
} trace_t;

/* Read a trace file. Returns 0 on success, 2 when the file cannot be read
 * or is malformed (each problem reported to d at its line and column). */
int trace_read(const char *path, canon_t *c, diag_t *d, trace_t *t);
/* The same from a source in memory (taken: freed here), e.g. a fuzzer's input. */
int trace_read_src(src_t *src, canon_t *c, diag_t *d, trace_t *t);
void trace_free(trace_t *t);

typedef enum { REPLAY_OK, REPLAY_DIVERGED, REPLAY_INCOMPLETE } replay_result_t;

/* Replay t against g (see `ggp replay --help`): writes "NAME: ok" or the
 * first divergence "NAME: step K: ..." to out, plus notes on rules defects
 * ("NAME: step K: note: ...") unless quiet. With time_limit_ms > 0, a replay
 * that takes longer stops between two lines and is REPLAY_INCOMPLETE
 * ("NAME: incomplete: ..."): the lines before match. */
replay_result_t trace_replay(game_texts_t *gt, const trace_t *t, const char *name, FILE *out, bool quiet,
                             uint64_t time_limit_ms);

#endif
