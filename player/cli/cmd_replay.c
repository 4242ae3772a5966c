/* cmd_replay.c - `ggp replay FILE.kif TRACE...`: check the reasoner against
 * reference traces (issue "The reasoner", item 3; format in trace_io.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/trace_io.h"

static const char replay_help[] =
    "usage: ggp replay FILE.kif TRACE... [--engine propnet|rules|auto] [--quiet]\n"
    "\n"
    "Replay reference traces (shared/traces) with the reasoner. From the initial\n"
    "state, at every line compare the state (as a set of canonical fluents), the\n"
    "legal moves of every role (as sets), the terminal flag (a step line is\n"
    "non-terminal, the terminal line terminal) and, at the end, every goal value\n"
    "(a trace's 'error' must be no value or several values here); then play the\n"
    "line's moves. Texts are compared in canonical KIF (lowercase, single spaces).\n"
    "\n"
    "Prints 'TRACE: ok' or the first divergence per trace, e.g.\n"
    "  TRACE: step 3: legal of xplayer differs: expected (mark 1 1) got nothing\n"
    "(only the set differences are shown), notes on defects of the rules (a role\n"
    "without legal moves, several goal values), then\n"
    "  replayed N traces: X ok, Y failed\n"
    "\n"
    "  --engine E   propnet, rules or auto (default auto)\n"
    "  --quiet      print only divergences and the summary\n"
    "\n"
    "exit status: 0 all traces match, 1 a divergence (or the game does not\n"
    "compile with the engine), 2 usage or I/O error or a malformed trace\n";

int cmd_replay(int argc, char **argv)
{
    game_options_t opts = {.engine = ENGINE_AUTO};
    bool quiet = false, dashdash = false;
    const char **files = NULL;
    size_t n_files = 0, cap_files = 0;
    int rc = EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (dashdash || a[0] != '-' || !a[1]) {
            XVEC_RESERVE(&files, &cap_files, n_files + 1);
            files[n_files++] = a;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(replay_help, stdout);
            free(files);
            return EXIT_OK;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = true;
        } else if (!strcmp(a, "--engine") && i + 1 < argc) {
            if (!cli_engine_parse("replay", argv[++i], &opts.engine)) rc = EXIT_USAGE;
        } else if (!strcmp(a, "--")) {
            dashdash = true;
        } else {
            fprintf(stderr, "ggp replay: %s '%s'\n", !strcmp(a, "--engine") ? "missing value for" : "unknown option",
                    a);
            rc = EXIT_USAGE;
        }
    }
    if (rc == EXIT_OK && n_files < 2) {
        fputs("ggp replay: expected a rule file and at least one trace\n", stderr);
        rc = EXIT_USAGE;
    }
    if (rc != EXIT_OK) {
        fputs(replay_help, stderr);
        free(files);
        return rc;
    }
    opts.quiet = quiet;

    diag_t d;
    diag_init(&d, stderr);
    d.max_errors = 20;
    loaded_t l;
    if (!load_rules(files[0], &d, &l)) {
        free(files);
        return EXIT_USAGE;
    }
    if (l.errors) {
        fprintf(stderr, "ggp replay: %s: invalid rules (%u error%s)\n", files[0], l.errors, l.errors == 1 ? "" : "s");
        loaded_free(&l);
        free(files);
        return EXIT_FAIL;
    }
    game_t *g = game_compile(l.prog, &opts, &d);
    if (!g) {
        static const char *names[] = {"auto", "propnet", "rules"};
        fprintf(stderr, "ggp replay: %s: the game does not compile with engine %s\n", files[0], names[opts.engine]);
        loaded_free(&l);
        free(files);
        return EXIT_FAIL;
    }

    canon_t *c = canon_new();
    game_texts_t gt;
    game_texts_init(&gt, g, c);
    size_t n_ok = 0, n_bad = 0;
    bool io_error = false;
    for (size_t i = 1; i < n_files; i++) {
        trace_t t;
        if (trace_read(files[i], c, &d, &t) != 0) {
            printf("%s: unreadable or malformed trace\n", files[i]);
            io_error = true;
            n_bad++;
            continue;
        }
        if (trace_replay(&gt, &t, files[i], stdout, quiet)) n_ok++;
        else n_bad++;
        fflush(stdout);
        trace_free(&t);
    }
    printf("replayed %zu trace%s: %zu ok, %zu failed\n", n_files - 1, n_files == 2 ? "" : "s", n_ok, n_bad);
    game_texts_free(&gt);
    canon_free(c);
    game_free(g);
    loaded_free(&l);
    free(files);
    return io_error ? EXIT_USAGE : n_bad ? EXIT_FAIL : EXIT_OK;
}
