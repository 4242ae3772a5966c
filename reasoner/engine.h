/* engine.h - what an engine provides behind game.h (private to reasoner/).
 *
 * A game is a `struct game` followed by the engine's own fields; a context
 * likewise. The public functions of game.h dispatch through the vtable, so
 * the search sees one interface whichever engine runs. */
#ifndef GGP_REASONER_ENGINE_H
#define GGP_REASONER_ENGINE_H

#include "reasoner/game.h"
#include "reasoner/rules.h"
#include "reasoner/terms.h"

/* One representation for every engine: the propnet stores a bitset over
 * its base propositions, the rules engine the sorted ids of its fluents. */
struct game_state {
    uint32_t n, cap;
    uint32_t *data;
};

typedef struct game_vtbl {
    void (*destroy)(game_t *g);
    void (*state_print)(const game_t *g, const game_state_t *s, FILE *out, bool canonical);
    game_ctx_t *(*ctx_new)(const game_t *g);
    void (*ctx_free)(game_ctx_t *c);
    void (*initial)(game_ctx_t *c, game_state_t *out);
    void (*state_changed)(game_ctx_t *c); /* c->cur was replaced */
    bool (*terminal)(game_ctx_t *c);
    uint32_t (*legal)(game_ctx_t *c, uint32_t role, const move_id_t **moves);
    int (*goal)(game_ctx_t *c, uint32_t role);
    void (*next)(game_ctx_t *c, const move_id_t *joint, game_state_t *out);
    uint32_t (*num_moves)(const game_t *g, uint32_t role);
    const char *(*move_name)(const game_t *g, uint32_t role, move_id_t m, bool canonical);
    tid_t (*move_term)(const game_t *g, uint32_t role, move_id_t m);
    bool (*all_fluents)(const game_t *g, game_state_t *out); /* game_all_fluents */
    uint32_t (*fluents)(const game_t *g, const game_state_t *s, uint32_t *out, uint32_t cap);
    size_t (*fluent_text)(const game_t *g, uint32_t f, char *buf, size_t len);
    /* Optional (NULL: the GDL defaults in game.c). A native game answers
     * these itself: it has no term store to parse a move into, knows its
     * moves up front, and may have a playout policy (game.h). */
    bool (*move_from_text)(game_ctx_t *c, uint32_t role, const char *text, size_t len, move_id_t *out);
    bool (*moves_enumerable)(const game_t *g);
    bool (*playout_move)(game_ctx_t *c, uint32_t role, rng_t *rng, move_id_t *out, bool *decides);
    uint32_t (*playout_legal)(game_ctx_t *c, uint32_t role, const move_id_t **moves);
    uint32_t (*playout_cands)(game_ctx_t *c, uint32_t role, const move_id_t **moves);
    bool (*playout_accepts)(game_ctx_t *c, uint32_t role, move_id_t m);
    bool (*playouts)(game_ctx_t *c, const game_state_t *s, uint64_t n, uint32_t cap, rng_t *rng, unsigned flags,
                     game_playout_done_fn done, void *ud); /* game_playouts */
} game_vtbl_t;

/* The generic part (vt, roles, kind, stats) serves every game; prog, ts
 * and role_terms are the GDL part, NULL in a native game (game_native.c),
 * and only the GDL engines and the GDL defaults of game.c read them. */
struct game {
    const game_vtbl_t *vt;
    const program_t *prog;
    term_store_t *ts;
    uint32_t n_roles;
    tid_t *role_terms;
    char **role_names;   /* spelling */
    engine_kind_t kind;  /* set by propnet_try, rules_engine_compile, game_native_new */
    bool history_ordered; /* game_history_ordered (native games say) */
    game_stats_t stats;
};

struct game_ctx {
    const game_t *g;
    game_state_t *cur;
    bool scratch; /* game_ctx_scratch: its states are not returned to */
    bool once;    /* game_ctx_visit_state: the current state is not returned to */
};

/* Common parts, used by the engines. */
void game_base_init(game_t *g, const game_vtbl_t *vt, const program_t *p, term_store_t *ts, const rules_t *r);
void game_base_free(game_t *g);
void game_ctx_base_init(game_ctx_t *c, const game_t *g);
void game_ctx_base_free(game_ctx_t *c);
void game_state_reserve(game_state_t *s, uint32_t n);

/* The engines. They return NULL on failure; the propnet writes why into
 * reason (budget exceeded, ...). */
game_t *rules_engine_compile(const program_t *p, const game_options_t *opt, diag_t *d);
/* Whether the rules have relations that only goal-directed evaluation with
 * tabling can compute (infinite bottom-up, see rules.h; a guess): grounding
 * them cannot succeed, so ENGINE_AUTO goes to the rules engine at once
 * (ENGINE_PROPNET tries, and names it when it fails). The first such
 * relation's "name/arity" goes to rel (len bytes). */
bool rules_need_tabling(const program_t *p, char *rel, size_t len);
game_t *propnet_compile(const program_t *p, const game_options_t *opt, diag_t *d, char *reason, size_t reason_len);
/* game_options_t with its defaults filled in. */
game_options_t game_options_defaults(const game_options_t *opt);
/* The propnet as ENGINE_AUTO tries it (not when the rules need tabling). */
game_t *propnet_try(const program_t *p, const game_options_t *o, char *reason, size_t reason_len);

#endif
