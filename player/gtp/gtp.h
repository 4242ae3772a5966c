/* gtp.h - the Go Text Protocol, version 2 (docs/gtp.md): `ggp gtp` plays
 * native Go (games/go, names go5 .. go19) against a GUI or another engine
 * such as GNU Go, one searcher per colour made from one player spec.
 *
 * The session sees the game only through reasoner/game.h: a GTP vertex
 * (A1 .. T19, no I; A1 the lower left) is the move "(play X Y)" with X the
 * column and Y the row counted from 1, pass is "pass", and the colour not
 * to move plays "noop". The score of final_score is the game's area
 * scoring (stones plus empty regions that touch one colour only, minus
 * komi), read from the state's (cell X Y COLOUR) fluents.
 *
 * Commands: protocol_version, name, version, known_command, list_commands,
 * quit, boardsize, clear_board, komi, play, genmove, undo, showboard,
 * final_score, time_settings, time_left. A move of the colour not to
 * move (GTP 2 allows them, e.g. handicap stones) is played after the turn
 * is handed over, the board as it is (no pass); undo takes both back. Any
 * input gives a response; a line longer than GTP_MAX_LINE is refused
 * whole. */
#ifndef GGP_PLAYER_GTP_GTP_H
#define GGP_PLAYER_GTP_GTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GTP_MAX_LINE 4096

typedef struct gtp gtp_t;

typedef struct gtp_options {
    const char *spec;    /* player spec (search.h), both colours */
    const char *game;    /* "goN" or "goN:OPTS" (registry.h); NULL: go9 */
    uint64_t seed;       /* searcher seeds derive from it and the colour */
    const char *name;    /* answer of `name` (NULL: "ggp") */
    const char *version; /* answer of `version` (NULL: "") */
    FILE *log;           /* each search's report, or NULL */
} gtp_options_t;

/* A session at the start of a game; NULL with why in err on a bad spec or
 * game name. */
gtp_t *gtp_new(const gtp_options_t *opt, char *err, size_t err_len);
void gtp_free(gtp_t *g);

/* Handle one command line (without its newline; any bytes, len of them),
 * writing the response (ending in an empty line) to out, unless the line
 * is empty or a comment. Returns false after quit. */
bool gtp_command(gtp_t *g, const char *line, size_t len, FILE *out);
/* Read commands from in until quit or end of input, responding on out
 * (flushed after each response). */
void gtp_run(gtp_t *g, FILE *in, FILE *out);

#endif
