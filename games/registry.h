/* registry.h - the native games (games written in C, behind
 * reasoner/game_native.h) by name, for every command that takes a rule
 * file: `ggp play go9 ...`, `ggp bench go9:komi=6.5`.
 *
 * A name is a family and a size, then options after ':' separated by ','
 * ("go9", "go13:komi=6.5,ko=simple"). games/ uses reasoner/game.h and base/
 * only; the search never includes it. */
#ifndef GGP_GAMES_REGISTRY_H
#define GGP_GAMES_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "reasoner/game.h"

/* Whether spec is meant as a native game name: a family prefix, digits,
 * then nothing or ':' and options, and no '/' (so that a rule file such as
 * go5.kif or games/go9 is never taken for one). */
bool native_game_named(const char *spec);
/* The game spec names, or NULL with why in err (unknown family, size out
 * of range, bad option). */
game_t *native_game_open(const char *spec, char *err, size_t err_len);
/* One line per family: name pattern, sizes, options, what it is. */
void native_games_list(FILE *out);

#endif
