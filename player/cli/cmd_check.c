/* cmd_check.c - `ggp check FILE.kif...`: parse and validate rule files. */
#include <stdio.h>
#include <string.h>

#include "player/cli/commands.h"
#include "player/cli/common.h"

static const char check_help[] =
    "usage: ggp check [--quiet] FILE.kif...\n"
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
    int first = 1;
    for (; first < argc && argv[first][0] == '-' && argv[first][1]; first++) {
        if (!strcmp(argv[first], "--help") || !strcmp(argv[first], "-h")) {
            fputs(check_help, stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[first], "--quiet") || !strcmp(argv[first], "-q")) {
            quiet = true;
        } else if (!strcmp(argv[first], "--")) {
            first++;
            break;
        } else {
            fprintf(stderr, "ggp check: unknown option '%s'\n%s", argv[first], check_help);
            return EXIT_USAGE;
        }
    }
    if (first >= argc) {
        fputs(check_help, stderr);
        return EXIT_USAGE;
    }
    int rc = EXIT_OK;
    for (int i = first; i < argc; i++) {
        diag_t d;
        diag_init(&d, stderr);
        d.max_errors = 100;
        loaded_t l;
        if (!load_rules(argv[i], &d, &l)) {
            rc = EXIT_USAGE;
            continue;
        }
        if (l.errors) {
            printf("%s: invalid (%u error%s)\n", argv[i], l.errors, l.errors == 1 ? "" : "s");
            if (rc == EXIT_OK) rc = EXIT_FAIL;
        } else if (quiet) {
            printf("%s: ok\n", argv[i]);
        } else {
            printf("%s: ok\n  roles:", argv[i]);
            for (uint32_t r = 0; r < l.info.n_roles; r++) printf(" %s", symtab_spelling(l.syms, l.info.roles[r]));
            printf("\n  rules: %zu  facts: %zu  relations: %zu  functions: %zu\n  parse+validate: %.2f ms\n",
                   l.info.n_rules, l.info.n_facts, l.info.n_relations, l.info.n_functions, l.load_ms);
        }
        loaded_free(&l);
    }
    return rc;
}
