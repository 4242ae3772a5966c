/* manager.h - the game manager: runs one match between players over HTTP
 * and keeps the GGP-Base match record (shared/docs/gdl-protocol.md §5).
 *
 * The manager sends START to every player, then PLAY (NIL first, then the
 * previous joint move in role order) until the state is terminal, then STOP
 * with the last joint move (§5.2, §5.5, pitfall 23). For each role and step
 * a random legal move is drawn in advance from a seeded rng; it replaces a
 * reply that is late (`TO`), never comes or comes with an HTTP status other
 * than 2xx (`CE`), does not parse as exactly one term or is not legal
 * (`IL <reply>`), and the error is recorded in the slot of that role and
 * step, as GGP-Base does (§5.4). The match goes on, with one exception: a
 * player that cannot be reached at START (`CE`) is not there at all, and a
 * match against it would only record substitute moves, so the match is
 * aborted before it starts (the others get ABORT). A START that times out
 * is tolerated: the player is there, busy metagaming.
 *
 * A defect of the rules met during the match (a role without a legal move,
 * no goal value or several at the end, a game that does not end within
 * max_steps) ends it cleanly: the record is marked aborted with the reason,
 * players get ABORT, and goalValues is left out (§5.7). */
#ifndef GGP_PLAYER_MANAGER_MANAGER_H
#define GGP_PLAYER_MANAGER_MANAGER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "reasoner/game.h"

typedef struct match_record match_record_t;

typedef struct match_config {
    const char *match_id;   /* opaque atom, unique per match */
    const char *rules_text; /* START's rules list, "( form form ... )" */
    uint32_t start_clock;   /* seconds */
    uint32_t play_clock;    /* seconds */
    uint64_t grace_ms;      /* added to every clock (default 1000, §5.3) */
    uint64_t connect_ms;    /* connect timeout (at most the clock) */
    char *const *urls;      /* one per role, in role order */
    uint64_t seed;          /* substitute moves and the random token */
    uint32_t max_steps;     /* a game longer than this is aborted */
    FILE *verbose;          /* one line per request, or NULL */
    /* Called with the record after every state is added and once more at
     * the end (completed or aborted), e.g. to save it; or NULL. */
    void (*on_record)(const match_record_t *rec, void *arg);
    void *on_record_arg;
} match_config_t;

struct match_record {
    char *match_id;
    char random_token[33];
    int64_t start_time; /* epoch ms */
    uint32_t start_clock, play_clock;
    uint32_t n_roles;
    char **player_names;      /* n_roles */
    size_t n_states, cap_states;
    char **states;            /* GGP-Base form "( ( cell 1 1 b ) ... )" */
    int64_t *state_times;     /* epoch ms per state */
    char **errors;            /* n_states * n_roles: "", "TO", "CE", "IL ..." */
    char **moves;             /* (n_states - 1) * n_roles: "( mark 1 1 )" */
    int *goals;               /* n_roles, valid when completed */
    bool completed, aborted;
    char *abort_reason;       /* when aborted */
};

/* Run the match on game g (roles in description order, as many as urls).
 * Returns true if it completed; false if it was aborted (rec->abort_reason
 * says why). The record is filled either way; free with record_free. */
bool manager_run(const match_config_t *cfg, const game_t *g, match_record_t *rec);

/* The record as GGP-Base's JSON (Match.toJSON, §5.7), plus "abortReason"
 * when aborted. Text is written as UTF-8 (a byte that is not part of valid
 * UTF-8 becomes U+FFFD); only quotes, backslashes and control characters
 * are escaped. */
void record_write_json(const match_record_t *rec, FILE *out);
void record_free(match_record_t *rec);

#endif
