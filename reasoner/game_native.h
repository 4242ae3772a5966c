/* game_native.h - games written in C behind the generic interface of
 * game.h (games/: Go). The search sees a native game exactly as a GDL one:
 * game_native_new wraps the functions below into the same vtable the GDL
 * engines fill (engine.h), so every game.h call works on it.
 *
 * A native game owns an opaque `impl` (its parameters and tables,
 * immutable once built, shared by the threads) and makes one opaque
 * per-thread context per game_ctx_t. Its states are arrays of 32-bit words
 * (game_state_words / game_state_data) that hold everything legal and next
 * need, so that the generic copy, hash and equality of game.c serve. Moves
 * are 0 .. num_moves-1 per role, known up front (moves_enumerable is true:
 * dense AMAF tables and shared trees size themselves from num_moves). */
#ifndef GGP_REASONER_GAME_NATIVE_H
#define GGP_REASONER_GAME_NATIVE_H

#include "reasoner/game.h"

typedef struct native_vtbl {
    void (*destroy)(void *impl);
    void *(*ctx_new)(const void *impl);
    void (*ctx_free)(void *cx);
    void (*initial)(const void *impl, game_state_t *out);
    /* s is the context's new current state. */
    void (*set_state)(void *cx, const game_state_t *s);
    bool (*terminal)(void *cx);
    /* Legal moves sorted by id, valid until the current state changes. */
    uint32_t (*legal)(void *cx, uint32_t role, const move_id_t **moves);
    int (*goal)(void *cx, uint32_t role);
    /* The state after joint from the current state into out. play: out is
     * the current state and becomes the context's new current state (the
     * playout's step: the context may update itself in place instead of
     * reading out again). */
    void (*next)(void *cx, const move_id_t *joint, game_state_t *out, bool play);
    uint32_t (*num_moves)(const void *impl, uint32_t role);
    /* Canonical KIF text of a move, stable for the life of the game. */
    const char *(*move_name)(const void *impl, uint32_t role, move_id_t m);
    /* A move's text (KIF, any case and spacing) among the legal moves. */
    bool (*move_from_text)(void *cx, uint32_t role, const char *text, size_t len, move_id_t *out);
    /* The state as its fluents in canonical KIF, separated by spaces. */
    void (*state_print)(const void *impl, const game_state_t *s, FILE *out);
    uint32_t (*fluents)(const void *impl, const game_state_t *s, uint32_t *out, uint32_t cap);
    size_t (*fluent_text)(const void *impl, uint32_t f, char *buf, size_t len);
    bool (*all_fluents)(const void *impl, game_state_t *out); /* optional */
    /* game_playout_move; optional. */
    bool (*playout_move)(void *cx, uint32_t role, rng_t *rng, move_id_t *out, bool *decides);
    /* game_playout_legal; optional, with playout_move. */
    uint32_t (*playout_legal)(void *cx, uint32_t role, const move_id_t **moves);
    /* game_playout_cands and game_playout_accepts; optional (both or
     * neither), with playout_legal. */
    uint32_t (*playout_cands)(void *cx, uint32_t role, const move_id_t **moves);
    bool (*playout_accepts)(void *cx, uint32_t role, move_id_t m);
    /* The context's answers come in an order of the history that reached
     * the state, not of the state alone (game_history_ordered). */
    bool history_ordered;
} native_vtbl_t;

/* A game over impl (freed by vt->destroy with the game) with roles named
 * role_names (copied). */
game_t *game_native_new(const native_vtbl_t *vt, void *impl, const char *const *role_names, uint32_t n_roles);
/* The impl of a native game, or NULL for a GDL one (tests of a native game
 * look at its internals through this). */
void *game_native_impl(const game_t *g);
/* The context's own part (vt->ctx_new's result), for the same tests. */
void *game_native_ctx(game_ctx_t *c);

/* The words of a state: _words makes room for n and sets the length to n
 * (contents kept up to the old length); _data reads them. */
uint32_t *game_state_words(game_state_t *s, uint32_t n);
const uint32_t *game_state_data(const game_state_t *s, uint32_t *n);

#endif
