/* engine_gdl.h - the match engine of `ggp serve`: GDL rules from START,
 * compiled by the reasoner, moves chosen by a searcher (engine.h). */
#ifndef GGP_PLAYER_PROTO_ENGINE_GDL_H
#define GGP_PLAYER_PROTO_ENGINE_GDL_H

#include "player/proto/engine.h"
#include "reasoner/game.h"
#include "search/search.h"

typedef struct gdl_engine_config {
    const search_spec_t *spec;   /* the player spec; not owned */
    /* what plays a game spec cannot (search_spec_check_game), or NULL:
     * START fails then; not owned */
    const search_spec_t *fallback;
    /* Engine choice and grounding budget. START waits for grounding 40%
     * of its start clock (at most 10 s); with auto, grounding goes on in
     * the background within ground_ms (0: the library's default) and the
     * propnet replaces the rules engine at the first PLAY after it is
     * ready; with propnet, ground_ms 0 means that wait. */
    game_options_t game_options;
    /* How long START waits for grounding instead (0: as above;
     * GDL_NO_WAIT: not at all, the rules engine starts). */
    uint64_t start_wait_ms;
} gdl_engine_config_t;
#define GDL_NO_WAIT UINT64_MAX

/* Fill e with the GDL engine; cfg must outlive it. */
void engine_gdl_init(match_engine_t *e, gdl_engine_config_t *cfg);

/* For a match of this engine: wait up to wait_ms for the background
 * grounding to end (the propnet is still taken at the next PLAY); whether
 * none is running. For tests that wait for that event, not a guessed time. */
bool engine_gdl_grounding_wait(engine_match_t *m, uint64_t wait_ms);
/* How many searchers of the engines the match played with before the
 * current one are still held (a search running on them): for tests. */
uint32_t engine_gdl_old_searchers(const engine_match_t *m);

#endif
