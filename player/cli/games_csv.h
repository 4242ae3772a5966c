/* games_csv.h - the per-game CSV files of `ggp tournament` and `ggp
 * roundrobin`: a header, then one row per finished game, appended and
 * synced at once, so that a killed run keeps every finished game and
 * --resume plays only the others (same game numbers, same seeds).
 *
 * Fields are written quoted when they are text (specs contain commas) and
 * read back by csv_split. */
#ifndef GGP_PLAYER_CLI_GAMES_CSV_H
#define GGP_PLAYER_CLI_GAMES_CSV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Write s as one quoted CSV field. */
void csv_field(const char *s, FILE *out);
/* Split a CSV line in place into fields (quoted ones unquoted). Returns
 * the count, max + 1 if there are more, -1 if a quote is not closed. */
int csv_split(char *line, char **f, int max);
/* A decimal unsigned integer field. */
bool csv_u64(const char *s, uint64_t *out);

/* A new per-game CSV with its header, synced. NULL (message printed as
 * "ggp CMD: ...") on error. */
FILE *csv_games_start(const char *cmd, const char *path, const char *header);
/* --resume: hand every complete row after the header of the CSV at path
 * to row (which returns NULL, or what is wrong with the row); a last line
 * without its newline (killed while writing) is cut off, so that game is
 * played again. A missing or empty file is started afresh. Returns the CSV
 * open for appending, or NULL (message printed). */
FILE *csv_games_resume(const char *cmd, const char *path, const char *header,
                       const char *(*row)(char *line, void *arg), void *arg);

#endif
