/* commands.c - the table of `ggp` subcommands (see commands.h). */
#include "player/cli/commands.h"

#include <stddef.h>

const command_t ggp_commands[] = {
    {"check", "load and validate rule files; print roles and counts", cmd_check},
    {NULL, NULL, NULL},
};
