/* commands.h - the subcommands of the `ggp` program, one file each in
 * player/cli/. Each takes the arguments after its name (argv[0] is the
 * command name) and returns the process exit code: 0 success, 1 a failure
 * of what was asked (invalid rules, failed replay, lost match), 2 a usage or
 * I/O error. */
#ifndef GGP_PLAYER_CLI_COMMANDS_H
#define GGP_PLAYER_CLI_COMMANDS_H

typedef struct command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} command_t;

/* The table, terminated by a NULL name (commands.c). */
extern const command_t ggp_commands[];

int cmd_check(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_perft(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_tournament(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_players(int argc, char **argv);
int cmd_games(int argc, char **argv);
int cmd_roundrobin(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_gtp(int argc, char **argv);
#ifdef GGP_HAVE_MANAGER
int cmd_match(int argc, char **argv);
#endif

#endif
