/* cmd_check.c - `ggp check FILE.kif...`: parse and validate rule files. */
#include <stdio.h>
#include <stdlib.h>

#include "games/registry.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"

static const char check_help[] =
    "usage: ggp check FILE.kif... [--quiet]\n"
    "\n"
    "Parse and validate each GDL rule file. For a valid file, print its roles\n"
    "and the counts of rules, facts, relations and functions. For an invalid\n"
    "one, print every diagnostic as file:line:col: error: message, with the\n"
    "source line and a caret.\n"
    "\n"
    "  --quiet    print only diagnostics and a one-line verdict per file\n"
    "\n"
    "exit status: 0 all files valid, 1 some file invalid, 2 usage or I/O error\n";

int cmd_check(int argc, char **argv)
{
    bool quiet = false;
    const cli_opt_t opts[] = {CLI_OPT_FLAG("--quiet", "-q", &quiet)};
    cli_list_t args = {0};
    int rc;
    if (!cli_opts_parse("check", check_help, opts, 1, argc, argv, &args, &rc)) return rc;
    const char **files = args.v;
    int n_files = (int)args.n;
    if (n_files == 0) {
        fputs(check_help, stderr);
        return EXIT_USAGE;
    }
    rc = EXIT_OK;
    for (int i = 0; i < n_files; i++) {
        diag_t d;
        diag_init(&d, stderr);
        d.max_errors = 100;
        if (native_game_named(files[i])) { /* a native game: its name and options */
            char err[300];
            game_t *g = native_game_open(files[i], err, sizeof err);
            if (!g) {
                fprintf(stderr, "ggp check: %s\n", err);
                rc = EXIT_USAGE;
                continue;
            }
            printf("%s: ok (native game)\n", files[i]);
            if (!quiet) {
                printf("  roles:");
                for (uint32_t r = 0; r < game_num_roles(g); r++) printf(" %s", game_role_name(g, r));
                printf("\n  moves per role: %u\n", game_num_moves(g, 0));
            }
            game_free(g);
            continue;
        }
        gdl_loaded_t l;
        if (!load_rules(files[i], &d, &l)) {
            rc = EXIT_USAGE;
            continue;
        }
        if (l.errors) {
            printf("%s: invalid (%u error%s)\n", files[i], l.errors, l.errors == 1 ? "" : "s");
            if (rc == EXIT_OK) rc = EXIT_FAIL;
        } else if (quiet) {
            printf("%s: ok\n", files[i]);
        } else {
            printf("%s: ok\n  roles:", files[i]);
            for (uint32_t r = 0; r < l.info.n_roles; r++) printf(" %s", symtab_spelling(l.syms, l.info.roles[r]));
            printf("\n  rules: %zu  facts: %zu  relations: %zu  functions: %zu\n  parse+validate: %.2f ms\n",
                   l.info.n_rules, l.info.n_facts, l.info.n_relations, l.info.n_functions, l.load_ms);
        }
        gdl_loaded_free(&l);
    }
    free(files);
    return rc;
}
