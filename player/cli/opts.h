/* opts.h - the one option parser of the `ggp` commands: each command
 * describes its options in a table and cli_opts_parse walks argv.
 *
 * The syntax every command takes: options anywhere among the positional
 * arguments, each `--name VALUE` as two arguments (the value is taken as
 * it is, even when it starts with '-', so `--player -x` is an error of the
 * spec, not of the syntax), "--" ending the options, "-" a positional
 * argument, `--help`/`-h` printing the command's help to stdout. A value
 * given twice: the last one counts, except for CLI_LIST (every one, in
 * order: --player).
 *
 * Errors name the option and the value, one line each, in the form the
 * commands have always used: "ggp CMD: unknown option '--x'", "ggp CMD:
 * missing value for --seed", "ggp CMD: bad value for --seed: 'x' (expected
 * an integer from 0 to ...)". A syntax error is followed by the help on
 * stderr; a bad value is not (the message says what is expected).
 *
 * The help text stays the command's own string (it is written verbatim
 * into ggp.1, see cmake/GgpManPage.cmake), so the table carries no help:
 * cli_opts_parse asserts instead that every option of the table appears in
 * the help, which every test running the command checks. */
#ifndef GGP_PLAYER_CLI_OPTS_H
#define GGP_PLAYER_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The exit status of every `ggp` command. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* Parse an unsigned integer option value; prints "ggp CMD: bad value for
 * OPT: ..." and returns false on error. */
bool parse_u64(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
bool parse_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out);

typedef enum cli_opt_kind {
    CLI_FLAG,   /* no value: *(bool *)out = true */
    CLI_U64,    /* *(uint64_t *)out, an integer in [lo, hi] */
    CLI_DOUBLE, /* *(double *)out, a finite number in [dlo, dhi] */
    CLI_STR,    /* *(const char **)out = the value */
    CLI_LIST,   /* the value appended to *(cli_list_t *)out */
    CLI_FN,     /* fn checks the value and stores it into out */
} cli_opt_kind_t;

/* The values of a repeated option, or the positional arguments, in order;
 * v is malloc'd (cli_list_free). */
typedef struct cli_list {
    const char **v;
    size_t n, cap;
} cli_list_t;

/* A value check of CLI_FN: prints "ggp CMD: bad value for OPT: ..." and
 * returns false on a bad value. */
typedef bool (*cli_opt_fn_t)(const char *cmd, const char *opt, const char *val, void *out);

typedef struct cli_opt {
    const char *name;  /* "--seed" */
    const char *alias; /* "-q", or NULL */
    cli_opt_kind_t kind;
    void *out;
    uint64_t lo, hi;   /* CLI_U64 */
    double dlo, dhi;   /* CLI_DOUBLE */
    cli_opt_fn_t fn;   /* CLI_FN */
} cli_opt_t;

/* Table rows. The conditional expressions check the type of the pointer
 * at compile time (a mismatch is a warning), which a void * would not. */
#define CLI_OPT_FLAG(name, alias, p) {(name), (alias), CLI_FLAG, (void *)(1 ? (p) : (bool *)0), 0, 0, 0, 0, NULL}
#define CLI_OPT_U64(name, p, lo, hi) {(name), NULL, CLI_U64, (void *)(1 ? (p) : (uint64_t *)0), (lo), (hi), 0, 0, NULL}
#define CLI_OPT_DOUBLE(name, p, lo, hi) \
    {(name), NULL, CLI_DOUBLE, (void *)(1 ? (p) : (double *)0), 0, 0, (lo), (hi), NULL}
#define CLI_OPT_STR(name, p) {(name), NULL, CLI_STR, (void *)(1 ? (p) : (const char **)0), 0, 0, 0, 0, NULL}
#define CLI_OPT_LIST(name, p) {(name), NULL, CLI_LIST, (void *)(1 ? (p) : (cli_list_t *)0), 0, 0, 0, 0, NULL}
#define CLI_OPT_FN(name, fn, p) {(name), NULL, CLI_FN, (void *)(p), 0, 0, 0, 0, (fn)}

/* Parse argv[1..argc-1] (argv[0] is the command's name) for `ggp CMD`
 * against opts[0..n_opts-1]. The positional arguments go to *pos, or are
 * an error ("unexpected argument") when pos is NULL. Returns false when
 * the command must return *rc at once: 0 after --help, 2 after a usage
 * error (printed); *pos is then freed. */
bool cli_opts_parse(const char *cmd, const char *help, const cli_opt_t *opts, size_t n_opts, int argc, char **argv,
                    cli_list_t *pos, int *rc);

void cli_list_free(cli_list_t *l);

#endif
