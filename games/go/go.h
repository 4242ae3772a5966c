/* go.h - Go as a native game (reasoner/game_native.h), sizes 5 to 19.
 *
 * Rules: area (Chinese) scoring, komi 7.5 by default; suicide is illegal;
 * positional superko by default (no move may recreate an earlier board);
 * pass is always legal; two passes in a row end the game, and so does the
 * move cap (3 x points plies by default, passes included); goals 100/0, 50
 * each for a jigo (an integral komi). GO_KO_SIMPLE replaces superko by the
 * basic ko rule of games/go5.kif, for the differential test against it:
 * after a move that captured exactly one stone with a stone that had no
 * neighbour of its colour and no empty neighbour, the opponent may not play
 * at once on the captured point.
 *
 * Roles black and white (black moves first); the player not to move plays
 * noop. Moves of each role: (play X Y) for X, Y in 1..size (id
 * (Y-1)*size + X-1), then pass, then noop: size^2 + 2 ids, of which the
 * size^2 + 1 that a mover plays are its AMAF keys (82 on 9x9). Fluents as
 * games/go5.kif has them: (cell X Y black|white), (control R), (passes N)
 * for N = 1, 2, (step N) (plies played), (ko X Y) under GO_KO_SIMPLE. */
#ifndef GGP_GAMES_GO_GO_H
#define GGP_GAMES_GO_GO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reasoner/game.h"

#define GO_MIN_SIZE 5
#define GO_MAX_SIZE 19

typedef enum { GO_KO_POSITIONAL, GO_KO_SIMPLE } go_ko_t;

typedef struct go_params {
    uint32_t size;
    double komi;
    go_ko_t ko;
    uint32_t max_plies; /* the move cap; 0: 3 x size^2 */
} go_params_t;

/* The defaults for a size: komi 7.5, positional superko, cap 3 x points. */
go_params_t go_params_default(uint32_t size);
/* Options "komi=K,ko=positional|simple,cap=N" (any subset, any order) into
 * p. false with a message in err on a bad one. */
bool go_params_parse(go_params_t *p, const char *opts, char *err, size_t err_len);

game_t *go_game_new(const go_params_t *p);

/* A hand-made position for tests and tools: rows[0] is row y = 1, each of
 * size characters ('.' empty, 'X' black, 'O' white) for x = 1..size;
 * white_to_move says who moves. Its history is this board alone, at step
 * 0. false (out untouched) if rows do not fit the game or g is not Go. */
bool go_state_from_rows(const game_t *g, const char *const *rows, bool white_to_move, game_state_t *out);
/* Give the turn in s to the colour not to move: the board, the plies and
 * the history stay as they are, the passes in a row start again (a turn
 * given is not a pass) and a simple-ko point lapses (it forbids only the
 * immediate reply). For GTP, which allows moves of one colour in
 * succession (handicap stones): a pass put in between would count toward
 * the two that end the game. false (s untouched) if g is not Go. */
bool go_state_give_turn(const game_t *g, game_state_t *s);
/* Whether move m of role (to move at the context's current state) is a
 * legal move that fills one of its own eyes, by the playout's rule (go.c:
 * every neighbour its own or off the board, at most one diagonal of the
 * opponent, none on the edge). Under area scoring the point is the role's
 * already, so the move gains nothing and takes a liberty from the group
 * around it (and it never saves a group in atari: go.c). False for pass,
 * noop, a move that is not legal and a role not to move. */
bool go_fills_own_eye(game_ctx_t *c, uint32_t role, move_id_t m);
/* Black's area minus white's (stones plus empty regions that touch only
 * that colour) at the context's current state: the score before komi. */
int go_area_diff(game_ctx_t *c);

#endif
