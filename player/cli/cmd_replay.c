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
    "usage: ggp replay FILE.kif TRACE... [--engine propnet|rules|auto] [--ground-ms MS]\n"
    "                  [--eliminate-after N] [--memory MB] [--load-ms MS]\n"
    "                  [--time-limit S] [--quiet]\n"
    "\n"
    "Replay reference traces (shared/traces) with the reasoner. From the initial\n"
    "state, at every line compare the state (as a set of canonical fluents), the\n"
    "legal moves of every role (as sets), the terminal flag (a step line is\n"
    "non-terminal, the terminal line terminal) and, at the end, every goal value\n"
    "(a trace's 'error' must be no value or several values here); then play the\n"
    "line's moves. Texts are compared in canonical KIF (lowercase, single spaces).\n"
    "\n"
    "Prints 'TRACE: ok (N lines)' or the first divergence per trace, e.g.\n"
    "  TRACE: step 3: legal of xplayer differs: expected (mark 1 1) got nothing\n"
    "(only the set differences are shown), notes on defects of the rules (a role\n"
    "without legal moves, several goal values), then\n"
    "  replayed N traces: X ok, Y failed\n"
    "('replayed 1 trace: ...' for one).\n"
    "\n"
    CLI_HELP_LOAD_OPTIONS
    "  --load-ms MS      load budget: past it the load fails naming the\n"
    "                    relation it was computing (default: none)\n"
    "  --quiet           print only divergences and the summary\n"
    "  --time-limit S    stop a trace that takes more than S seconds (0 = no\n"
    "                    limit, the default); it counts as incomplete, not ok\n"
    "\n"
    "The summary adds ', Z incomplete' when some trace hit the time limit.\n"
    "\n"
    "exit status: 0 all traces match, 1 a divergence or an incomplete trace (or\n"
    "the game does not compile with the engine), 2 usage or I/O error or a\n"
    "malformed trace\n";

int cmd_replay(int argc, char **argv)
{
    game_options_t opts = {.engine = ENGINE_AUTO};
    cli_list_t args = {0};
    int rc;
    uint64_t time_limit_s = 0;
    const cli_opt_t own[] = {CLI_OPT_U64("--time-limit", &time_limit_s, 0, 1000000)};
    if (!cli_args_parse("replay", replay_help, argc, argv, own, 1, &opts, &args, &rc)) return rc;
    const char **files = args.v; /* the rule file, then the traces */
    size_t n_files = args.n;
    if (n_files < 2) {
        fprintf(stderr, "ggp replay: expected a rule file and at least one trace\n%s", replay_help);
        free(files);
        return EXIT_USAGE;
    }
    bool quiet = opts.quiet;

    gdl_loaded_t l;
    game_t *g = cli_game_open("replay", files[0], &opts, &l, &rc);
    if (!g) {
        free(files);
        return rc;
    }

    canon_t *c = canon_new();
    game_texts_t gt;
    game_texts_init(&gt, g, c);
    size_t n_ok = 0, n_bad = 0, n_incomplete = 0;
    bool io_error = false;
    for (size_t i = 1; i < n_files; i++) {
        diag_t d;
        diag_init(&d, stderr);
        d.max_errors = 20;
        trace_t t;
        if (trace_read(files[i], c, &d, &t) != 0) {
            printf("%s: unreadable or malformed trace\n", files[i]);
            io_error = true;
            n_bad++;
            continue;
        }
        switch (trace_replay(&gt, &t, files[i], stdout, quiet, time_limit_s * 1000)) {
        case REPLAY_OK: n_ok++; break;
        case REPLAY_DIVERGED: n_bad++; break;
        case REPLAY_INCOMPLETE: n_incomplete++; break;
        }
        fflush(stdout);
        trace_free(&t);
    }
    printf("replayed %zu trace%s: %zu ok, %zu failed", n_files - 1, n_files == 2 ? "" : "s", n_ok, n_bad);
    if (n_incomplete) printf(", %zu incomplete", n_incomplete);
    putchar('\n');
    game_texts_free(&gt);
    canon_free(c);
    game_free(g);
    gdl_loaded_free(&l);
    free(files);
    return io_error ? EXIT_USAGE : n_bad || n_incomplete ? EXIT_FAIL : EXIT_OK;
}
