/* commands.c - the table of `ggp` subcommands (see commands.h). */
#include "player/cli/commands.h"

#include <stddef.h>

const command_t ggp_commands[] = {
    {"check", "load and validate rule files; print roles and counts", cmd_check},
    {"replay", "replay reference traces and report the first divergence", cmd_replay},
    {"trace", "write a random playout as a reference trace", cmd_trace},
    {"perft", "count paths, distinct states and terminals of the game tree by depth", cmd_perft},
    {"bench", "measure random playouts per second of the reasoner", cmd_bench},
    {"play", "play one local game between searchers, move by move", cmd_play},
    {"tournament", "searcher A against searcher B over many games, with sweeps and plots", cmd_tournament},
    {"results", "merge the CSVs of a tournament's or round robin's shards into its results", cmd_results},
    {"roundrobin", "every pair of several searchers plays; a table of scores with intervals and times", cmd_roundrobin},
    {"games", "list the native games (written in C), usable wherever a rule file is", cmd_games},
    {"players", "list the searchers (player specs), their keys and defaults", cmd_players},
    {"gtp", "play Go over the Go Text Protocol on stdin/stdout (GUIs, GNU Go)", cmd_gtp},
    {"serve", "play matches over HTTP as a GGP player", cmd_serve},
#ifdef GGP_HAVE_MANAGER
    {"match", "run a match between players over HTTP (game manager)", cmd_match},
#endif
    {NULL, NULL, NULL},
};
