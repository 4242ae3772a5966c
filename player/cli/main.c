/* main.c - the `ggp` program: dispatch to a subcommand (commands.h). */
#include <stdio.h>
#include <string.h>

#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/outfile.h"
#include "player/cli/version.h"

static void usage(FILE *out)
{
    fputs("usage: ggp COMMAND [ARGS...]\n"
          "\n"
          "A general game player: reads GDL rules (KIF), reasons about them and plays.\n"
          "\n"
          "commands:\n",
          out);
    for (const command_t *c = ggp_commands; c->name; c++) fprintf(out, "  %-11s %s\n", c->name, c->summary);
    fputs("\nWherever a command takes FILE.kif, the name of a native game (a game\n"
          "written in C, 'ggp games': go9, go9:komi=6.5) works too, except in\n"
          "'ggp match', which sends the rules' text to the players.\n"
          "'ggp COMMAND --help' describes a command's options.\n",
          out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        puts("ggp " GGP_VERSION);
        return EXIT_OK;
    }
    for (const command_t *c = ggp_commands; c->name; c++) {
        if (strcmp(argv[1], c->name)) continue;
        int rc = c->run(argc - 1, argv + 1);
        /* Output lost to a full disk or a closed pipe is a failure, not a
         * run that silently printed less. */
        if (!out_stream_check(stdout, c->name, "stdout", false) && rc == EXIT_OK) rc = EXIT_USAGE;
        return rc;
    }
#ifndef GGP_HAVE_MANAGER
    if (!strcmp(argv[1], "match")) { /* the game manager is the one part that needs libcurl */
        fprintf(stderr, "ggp: 'match' needs libcurl, and this ggp was built without it "
                        "(install libcurl4-openssl-dev and build again)\n");
        return EXIT_USAGE;
    }
#endif
    fprintf(stderr, "ggp: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
