/* cmd_games.c - `ggp games`: the native games (games/registry.h). */
#include <stdio.h>

#include "games/registry.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"

static const char games_help[] =
    "usage: ggp games\n"
    "\n"
    "List the native games: games written in C, which every command that takes\n"
    "a rule file also takes by name (ggp play go9 --player A --player B,\n"
    "ggp bench go9, ggp tournament go9:komi=6.5 ...). Options follow the size\n"
    "after ':', separated by ','.\n";

int cmd_games(int argc, char **argv)
{
    int rc;
    if (!cli_opts_parse("games", games_help, NULL, 0, argc, argv, NULL, &rc)) return rc;
    native_games_list(stdout);
    return EXIT_OK;
}
