/* common.h - helpers shared by the `ggp` subcommands: loading a game from a
 * file with diagnostics, option values (the parser is opts.h) and exit
 * codes. */
#ifndef GGP_PLAYER_CLI_COMMON_H
#define GGP_PLAYER_CLI_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "gdl/ast.h"
#include "gdl/load.h"
#include "gdl/symbols.h"
#include "gdl/validate.h"
#include "player/cli/opts.h"
#include "reasoner/game.h"

/* gdl_load_file for the commands: an I/O error is printed ("ggp: cannot
 * read PATH: why") and returns false, with nothing to free. */
bool load_rules(const char *path, diag_t *d, gdl_loaded_t *l);

/* The cores a CPU quota allows, from the text of a cgroup v2 `cpu.max`
 * ("QUOTA PERIOD" or "max PERIOD") or of cgroup v1's "QUOTA PERIOD" pair:
 * floor(QUOTA / PERIOD), at least 1; 0 when there is no quota or the text
 * is not one. */
uint32_t cpu_quota_cores(const char *text);
/* The cores this process may use: its CPU affinity, capped by its cgroup's
 * CPU quota (a container started with --cpus=1 sees every core of the host
 * but gets one). At least 1. */
uint32_t cpu_usable_cores(void);

/* --- options and loading shared by the commands ------------------------- */

/* "propnet" | "rules" | "auto"; prints "ggp CMD: bad value for --engine" and
 * returns false otherwise. */
bool cli_engine_parse(const char *cmd, const char *s, engine_kind_t *out);

/* --load-ms MS (opts->load_ms) or --memory MB (opts->ground_mb and
 * static_mb): the budgets of loading a game. Prints the error and returns
 * false on a bad value. */
bool cli_budget_parse(const char *cmd, const char *opt, const char *val, game_options_t *opts);

/* CLI_FN checks (opts.h) of --engine into an engine_kind_t and of
 * --load-ms / --memory into a game_options_t (cli_budget_parse). */
bool cli_engine_opt(const char *cmd, const char *opt, const char *val, void *out);
bool cli_budget_opt(const char *cmd, const char *opt, const char *val, void *out);
#define CLI_OPT_ENGINE(p) CLI_OPT_FN("--engine", cli_engine_opt, (1 ? (p) : (engine_kind_t *)0))
#define CLI_OPT_BUDGETS(p)                                                     \
    CLI_OPT_FN("--load-ms", cli_budget_opt, (1 ? (p) : (game_options_t *)0)), \
        CLI_OPT_FN("--memory", cli_budget_opt, (1 ? (p) : (game_options_t *)0))

/* The help of those options that mean the same in every such command
 * (--load-ms differs, --quiet is each command's own), one text for the
 * four; their other options' help lines are aligned with it (column 21). */
#define CLI_HELP_LOAD_OPTIONS                                                    \
    "  --engine E        propnet, rules or auto (default auto)\n"               \
    "  --ground-ms MS    grounding budget of the propnet in ms (default 10000)\n" \
    "  --eliminate-after N\n"                                                    \
    "                    past N ground instances of a rule, ground again with\n" \
    "                    that rule's body variables eliminated, or its view\n"   \
    "                    asked on demand (default 524288; 1: every rule\n"       \
    "                    eliminated from the start)\n"                           \
    "  --memory MB       memory budget of loading (default 2048)\n"

/* cli_opts_parse for the commands that load one game the same way (bench,
 * perft, replay, trace): the files (positional) into *files, --engine,
 * --ground-ms, --eliminate-after, --load-ms, --memory and --quiet into
 * *opts, and the command's own options of extra. */
bool cli_args_parse(const char *cmd, const char *help, int argc, char **argv, const cli_opt_t *extra, size_t n_extra,
                    game_options_t *opts, cli_list_t *files, int *rc);

/* cli_opts_parse for a command that takes at most one rule file: *file is
 * it, or NULL when none was given; two or more are a usage error ("more
 * than one rule file"). */
bool cli_opts_parse_file(const char *cmd, const char *help, const cli_opt_t *opts, size_t n_opts, int argc,
                         char **argv, const char **file, int *rc);

/* Load, validate and compile a rule file for `ggp CMD` (diagnostics to
 * stderr), or open the native game that path names (games/registry.h:
 * "go9", "go9:komi=6.5"; l->prog is then NULL, l->src the name; a bad
 * name or option is EXIT_USAGE). On failure prints why, sets *rc to EXIT_USAGE (unreadable) or
 * EXIT_FAIL (invalid rules, or no compile with the engine) and returns NULL
 * with nothing to free; otherwise the caller frees the game, then l. */
game_t *cli_game_open(const char *cmd, const char *path, const game_options_t *opts, gdl_loaded_t *l, int *rc);
/* The first half of cli_game_open: load and validate only. Returns false
 * (nothing to free, *rc set) on failure. */
bool cli_rules_open(const char *cmd, const char *path, gdl_loaded_t *l, int *rc);

#endif
