/* cmd_players.c - `ggp players`: the searchers, their keys and defaults. */
#include <stdio.h>

#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "search/search.h"

static const char players_help[] =
    "usage: ggp players\n\nList the searchers (player specs), their keys, defaults and meanings.\n";

int cmd_players(int argc, char **argv)
{
    int rc;
    if (!cli_opts_parse("players", players_help, NULL, 0, argc, argv, NULL, &rc)) return rc;
    search_players_help(stdout);
    return EXIT_OK;
}
