/* cmd_play.c - `ggp play FILE.kif --player SPEC ...`: one local game between
 * searchers, printed move by move (issue "Search"). */
#include <stdio.h>
#include <stdlib.h>

#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/local_game.h"
#include "player/cli/trace_io.h"

static const char play_help[] =
    "usage: ggp play FILE.kif --player SPEC [--player SPEC ...] [--seed S] [--quiet] [--verbose]\n"
    "                [--max-steps N] [--engine auto|propnet|rules] [--load-ms MS] [--memory MB]\n"
    "\n"
    "Play one game locally: one --player per role, in the order the rules list the\n"
    "roles. SPEC is ALGO[:key=value,...] (see 'ggp players'), e.g. grave:playouts=1000.\n"
    "Each searcher has its own seed, derived from --seed, its seat and its spec's\n"
    "seed= key, so a game replays exactly with the same options.\n"
    "\n"
    "Prints each joint move ('step N: role=move ...', moves as the rules spell them),\n"
    "the final state and a last line 'goals ROLE=V ...'. A state with (cell X Y ...)\n"
    "fluents is also drawn as a board: X the column, Y the row, labelled on top and\n"
    "on the left, every column and row of the board (empty ones as '.'), the rest\n"
    "of a cell's arguments as its content ('white rook').\n"
    "\n"
    "  --player SPEC   the searcher of the next role\n"
    "  --seed S        game seed (default 1)\n"
    "  --quiet         print only the goals line\n"
    "  --verbose       also print each search's report (playouts, nodes, bytes, time)\n"
    "  --max-steps N   a game not ended after N joint moves fails (default 100000)\n"
    "  --engine E      reasoner: auto (default), propnet or rules\n"
    "  --load-ms MS    load budget: past it the load fails naming the\n"
    "                  relation it was computing (default: none)\n"
    "  --memory MB     memory budget of loading (default 2048)\n"
    "\n"
    "exit status: 0 the game ended, 1 invalid rules or a game that could not end,\n"
    "2 usage or I/O error\n";

int cmd_play(int argc, char **argv)
{
    cli_list_t players = {0};
    const char *file;
    uint64_t seed = 1, max_steps = LOCAL_MAX_STEPS;
    bool quiet = false, verbose = false;
    game_options_t gopt = {.engine = ENGINE_AUTO};
    const cli_opt_t opts[] = {
        CLI_OPT_FLAG("--quiet", "-q", &quiet),   CLI_OPT_FLAG("--verbose", "-v", &verbose),
        CLI_OPT_LIST("--player", &players),      CLI_OPT_U64("--seed", &seed, 0, UINT64_MAX),
        CLI_OPT_ENGINE(&gopt.engine),            CLI_OPT_BUDGETS(&gopt),
        CLI_OPT_U64("--max-steps", &max_steps, 1, 100000000),
    };
    int rc;
    if (!cli_opts_parse_file("play", play_help, opts, sizeof opts / sizeof opts[0], argc, argv, &file, &rc)) {
        cli_list_free(&players);
        return rc;
    }
    const char *const *ptext = players.v;
    uint32_t np = (uint32_t)players.n;
    if (np > 64) fputs("ggp play: at most 64 players\n", stderr);
    else if (!file) fprintf(stderr, "ggp play: no rule file given\n%s", play_help);
    if (!file || np > 64) {
        cli_list_free(&players);
        return EXIT_USAGE;
    }
    /* Without --player the game is loaded anyway: the message names its
     * roles, which is what is missing. */
    search_spec_t *specs[64] = {0};
    for (uint32_t i = 0; i < np; i++) {
        char err[512];
        specs[i] = search_spec_parse(ptext[i], err, sizeof err);
        if (!specs[i]) {
            fprintf(stderr, "ggp play: --player '%s': %s\n", ptext[i], err);
            rc = EXIT_USAGE;
        }
    }
    gdl_loaded_t l;
    game_t *g = rc == EXIT_OK ? local_load_game("play", file, &gopt, &l, &rc) : NULL;
    if (g && game_num_roles(g) != np) {
        fprintf(stderr, "ggp play: %s has %u role%s (", file, game_num_roles(g), game_num_roles(g) == 1 ? "" : "s");
        for (uint32_t r = 0; r < game_num_roles(g); r++) fprintf(stderr, "%s%s", r ? ", " : "", game_role_name(g, r));
        if (np == 0) fprintf(stderr, ") but no --player option was given: one per role, in this order\n");
        else
            fprintf(stderr, ") but %u --player option%s given: one per role, in this order\n", np,
                    np == 1 ? " was" : "s were");
        fprintf(stderr, "  e.g. ggp play %s", file);
        for (uint32_t r = 0; r < game_num_roles(g); r++) fputs(r ? " --player uct" : " --player grave", stderr);
        fputs("   (searchers: ggp players)\n", stderr);
        rc = EXIT_USAGE;
    } else if (g) {
        local_game_t res;
        local_game_play(g, (const search_spec_t *const *)specs, seed, (uint32_t)max_steps, quiet ? NULL : stdout, verbose,
                        NULL, &res);
        if (!res.ok) {
            fprintf(stderr, "ggp play: %s\n", res.error);
            rc = EXIT_FAIL;
        }
        printf("goals");
        for (uint32_t r = 0; r < np; r++) {
            if (res.goals[r] >= 0) printf(" %s=%d", game_role_name(g, r), res.goals[r]);
            else printf(" %s=none", game_role_name(g, r));
        }
        putchar('\n');
    }
    if (g) {
        game_free(g);
        gdl_loaded_free(&l);
    }
    for (uint32_t i = 0; i < np; i++) search_spec_free(specs[i]);
    cli_list_free(&players);
    return rc;
}
