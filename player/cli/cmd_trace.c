/* cmd_trace.c - `ggp trace FILE.kif --seed S`: write a random playout as a
 * trace in the reference format (issue "The reasoner", item 4; format in
 * trace_io.h), so that `ggp replay` of the output passes and traces of two
 * engines or two programs can be compared with diff. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/xalloc.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/trace_io.h"

static const char trace_help[] =
    "usage: ggp trace FILE.kif [--seed S] [--engine propnet|rules|auto] [--max-steps N]\n"
    "                 [--ground-ms MS] [--eliminate-after N] [--memory MB]\n"
    "                 [--load-ms MS] [--quiet]\n"
    "\n"
    "Play one random game (every role picks uniformly among its legal moves,\n"
    "taken in sorted order of their text, with an rng seeded by S) and write it\n"
    "to stdout as a trace in the format of shared/traces:\n"
    "  (game NAME) (roles ...) (step K (state ...) (legal R ...)... (does R M)...)...\n"
    "  (terminal K (state ...) (goal R V)...)\n"
    "one form per line, canonical text (lowercase, single spaces), sorted in\n"
    "strcmp order; V is 0..100 or 'error' (no goal value, or several). A playout\n"
    "cut by --max-steps, or stopped because a role has no legal move (a defect\n"
    "of the rules, noted on stderr), ends with a step line without moves.\n"
    "The same seed gives the same trace with every engine.\n"
    "\n"
    "  --seed S          random seed (default 1)\n"
    CLI_HELP_LOAD_OPTIONS
    "  --load-ms MS      load budget: past it the load fails naming the\n"
    "                    relation it was computing (default: none)\n"
    "  --max-steps N     play at most N joint moves (default 10000)\n"
    "  --quiet           do not report which engine was chosen\n"
    "\n"
    "exit status: 0 written, 1 the game does not compile, 2 usage or I/O error\n";

static void write_game_name(FILE *out, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".kif")) n -= 4;
    fputs("(game ", out);
    for (size_t i = 0; i < n; i++) {
        char ch = base[i];
        /* an atom: no blanks, parentheses or ';' */
        fputc(ch == ' ' || ch == '(' || ch == ')' || ch == ';' || ch == '\t' ? '_' : ch, out);
    }
    fputs(")\n", out);
}

static void write_set(FILE *out, const char *head, const char *role, const strvec_t *v)
{
    fprintf(out, " (%s", head);
    if (role) fprintf(out, " %s", role);
    for (size_t i = 0; i < v->n; i++) fprintf(out, " %s", v->v[i]);
    fputc(')', out);
}

int cmd_trace(int argc, char **argv)
{
    game_options_t opts = {.engine = ENGINE_AUTO};
    uint64_t seed = 1, max_steps = 10000;
    const cli_opt_t own[] = {CLI_OPT_U64("--seed", &seed, 0, UINT64_MAX),
                             CLI_OPT_U64("--max-steps", &max_steps, 0, UINT32_MAX)};
    cli_list_t files = {0};
    int rc;
    if (!cli_args_parse("trace", trace_help, argc, argv, own, 2, &opts, &files, &rc)) return rc;
    const char *file = files.n ? files.v[0] : NULL;
    size_t n_files = files.n;
    cli_list_free(&files);
    if (n_files != 1) {
        fprintf(stderr, "ggp trace: expected one rule file\n%s", trace_help);
        return EXIT_USAGE;
    }

    gdl_loaded_t l;
    game_t *g = cli_game_open("trace", file, &opts, &l, &rc);
    if (!g) return rc;

    canon_t *c = canon_new();
    game_texts_t gt;
    game_texts_init(&gt, g, c);
    uint32_t nr = gt.n_roles;
    game_ctx_t *ctx = game_ctx_new(g);
    game_state_t *s = game_state_new(g);
    game_initial(ctx, s);
    game_ctx_set_state(ctx, s);
    rng_t rng;
    rng_seed(&rng, seed);
    strvec_t facts = {0};
    strvec_t *legal = xcalloc(nr ? nr : 1, sizeof *legal);
    move_id_t **ids = xcalloc(nr ? nr : 1, sizeof *ids);
    size_t *ids_cap = xcalloc(nr ? nr : 1, sizeof *ids_cap);
    move_id_t *joint = xcalloc(nr ? nr : 1, sizeof *joint);
    FILE *out = stdout;

    write_game_name(out, file);
    fputs("(roles", out);
    for (uint32_t r = 0; r < nr; r++) fprintf(out, " %s", gt.roles[r]);
    fputs(")\n", out);
    for (uint64_t k = 0;; k++) {
        game_texts_state(&gt, game_ctx_state(ctx), &facts);
        bool term = game_is_terminal(ctx);
        fprintf(out, "(%s %llu", term ? "terminal" : "step", (unsigned long long)k);
        write_set(out, "state", NULL, &facts);
        if (term) {
            for (uint32_t r = 0; r < nr; r++) {
                int v = game_goal(ctx, r);
                if (v >= 0) fprintf(out, " (goal %s %d)", gt.roles[r], v);
                else fprintf(out, " (goal %s error)", gt.roles[r]);
                if (v < 0)
                    fprintf(stderr, "ggp trace: terminal %llu: %s has %s goal value (a defect of the rules)\n",
                            (unsigned long long)k, gt.roles[r], v == GAME_GOAL_NONE ? "no" : "more than one");
            }
            fputs(")\n", out);
            break;
        }
        bool stuck = false;
        for (uint32_t r = 0; r < nr; r++) {
            game_texts_legal(&gt, ctx, r, &legal[r], &ids[r], &ids_cap[r]);
            write_set(out, "legal", gt.roles[r], &legal[r]);
            if (legal[r].n == 0) {
                stuck = true;
                fprintf(stderr, "ggp trace: step %llu: %s has no legal move in a non-terminal state (a defect of the rules); the playout stops\n",
                        (unsigned long long)k, gt.roles[r]);
            }
        }
        if (stuck || k >= max_steps) {
            fputs(")\n", out);
            if (!stuck && !opts.quiet)
                fprintf(stderr, "ggp trace: stopped after %llu step%s (--max-steps)\n", (unsigned long long)k,
                        k == 1 ? "" : "s");
            break;
        }
        for (uint32_t r = 0; r < nr; r++) {
            uint32_t pick = rng_below(&rng, (uint32_t)legal[r].n);
            joint[r] = ids[r][pick];
            fprintf(out, " (does %s %s)", gt.roles[r], legal[r].v[pick]);
        }
        fputs(")\n", out);
        game_ctx_play(ctx, joint);
    }

    for (uint32_t r = 0; r < nr; r++) {
        strvec_free(&legal[r]);
        free(ids[r]);
    }
    free(legal);
    free(ids);
    free(ids_cap);
    free(joint);
    strvec_free(&facts);
    game_state_free(s);
    game_ctx_free(ctx);
    game_texts_free(&gt);
    canon_free(c);
    game_free(g);
    gdl_loaded_free(&l);
    return EXIT_OK; /* main checks that stdout was written */
}
