/* cmd_gtp.c - `ggp gtp --player SPEC [--game goN]`: play Go over the Go
 * Text Protocol on stdin and stdout (player/gtp/gtp.h, docs/gtp.md). */
#include <stdio.h>
#include <stdlib.h>

#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/version.h"
#include "player/gtp/gtp.h"

static const char gtp_help[] =
    "usage: ggp gtp --player SPEC [--game goN[:OPTS]] [--seed S] [--verbose]\n"
    "\n"
    "Speak the Go Text Protocol (version 2) on stdin and stdout, for a GUI or a\n"
    "referee against another engine (GNU Go: gnugo --mode gtp). The searcher SPEC\n"
    "(see 'ggp players') plays whichever colour genmove asks for; boardsize 5 to 19\n"
    "and komi start a new game. Without a budget in SPEC (playouts=, seconds=,\n"
    "nodes=...) and with time_settings, the clock sets each move's time; otherwise\n"
    "SPEC's budget does (default 10000 playouts). Commands: protocol_version, name,\n"
    "version, known_command, list_commands, quit, boardsize, clear_board, komi, play,\n"
    "genmove, undo, showboard, final_score (area scoring), time_settings, time_left.\n"
    "\n"
    "  --player SPEC   the searcher, e.g. grave:playouts=10000\n"
    "  --game G        the first game: go5 .. go19 with go options (default go9;\n"
    "                  'ggp games'), e.g. go9:komi=6.5\n"
    "  --seed S        seed of the searchers, with the game's number in the\n"
    "                  session and the colour (default 1)\n"
    "  --verbose       report each search on stderr\n"
    "\n"
    "exit status: 0 after quit or end of input, 2 usage error\n";

int cmd_gtp(int argc, char **argv)
{
    gtp_options_t o = {.seed = 1, .name = "ggp", .version = GGP_VERSION};
    bool verbose = false;
    const cli_opt_t opts[] = {CLI_OPT_FLAG("--verbose", "-v", &verbose), CLI_OPT_STR("--player", &o.spec),
                              CLI_OPT_STR("--game", &o.game), CLI_OPT_U64("--seed", &o.seed, 0, UINT64_MAX)};
    int rc;
    if (!cli_opts_parse("gtp", gtp_help, opts, 4, argc, argv, NULL, &rc)) return rc;
    if (verbose) o.log = stderr;
    if (!o.spec) {
        fprintf(stderr, "ggp gtp: no --player given\n%s", gtp_help);
        return EXIT_USAGE;
    }
    char err[512];
    gtp_t *g = gtp_new(&o, err, sizeof err);
    if (!g) {
        fprintf(stderr, "ggp gtp: %s\n", err);
        return EXIT_USAGE;
    }
    gtp_run(g, stdin, stdout);
    gtp_free(g);
    return EXIT_OK;
}
