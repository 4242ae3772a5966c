/* engine_gdl.h - the match engine of `ggp serve`: GDL rules from START,
 * compiled by the reasoner, moves chosen by a searcher (engine.h). */
#ifndef GGP_PLAYER_PROTO_ENGINE_GDL_H
#define GGP_PLAYER_PROTO_ENGINE_GDL_H

#include "player/proto/engine.h"
#include "reasoner/game.h"
#include "search/search.h"

typedef struct gdl_engine_config {
    const search_spec_t *spec;   /* the player spec; not owned */
    /* Engine choice and grounding budget; ground_ms 0 = 40% of each
     * START's start clock, capped at 10 s. */
    game_options_t game_options;
} gdl_engine_config_t;

/* Fill e with the GDL engine; cfg must outlive it. */
void engine_gdl_init(engine_t *e, gdl_engine_config_t *cfg);

#endif
