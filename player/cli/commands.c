/* commands.c - the table of `ggp` subcommands (see commands.h). */
#include "player/cli/commands.h"

#include <stddef.h>

const command_t ggp_commands[] = {
    {"check", "load and validate rule files; print roles and counts", cmd_check},
    {"play", "play one local game between searchers, move by move", cmd_play},
    {"tournament", "searcher A against searcher B over many games, with sweeps and plots", cmd_tournament},
    {"players", "list the searchers (player specs), their keys and defaults", cmd_players},
    {NULL, NULL, NULL},
};
