/* cmd_players.c - `ggp players`: the searchers, their keys and defaults. */
#include <stdio.h>
#include <string.h>

#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "search/search.h"

int cmd_players(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs("usage: ggp players\n\nList the searchers (player specs), their keys, defaults and meanings.\n",
                  stdout);
            return EXIT_OK;
        }
        fprintf(stderr, "ggp players: unexpected argument '%s'\nusage: ggp players\n", argv[i]);
        return EXIT_USAGE;
    }
    search_players_help(stdout);
    return EXIT_OK;
}
