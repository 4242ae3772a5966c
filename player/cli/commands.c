/* commands.c - the table of `ggp` subcommands (see commands.h). */
#include "player/cli/commands.h"

#include <stddef.h>

const command_t ggp_commands[] = {
    {"check", "load and validate rule files; print roles and counts", cmd_check},
    {"replay", "replay reference traces and report the first divergence", cmd_replay},
    {"trace", "write a random playout as a reference trace", cmd_trace},
    {"perft", "count paths, distinct states and terminals of the game tree by depth", cmd_perft},
    {NULL, NULL, NULL},
};
