/* game.h - the generic game interface: everything above the reasoner
 * (search, player, tools) sees a game only through this header.
 *
 * A game_t is compiled once from a validated GDL program and is immutable
 * afterwards, so any number of threads may use it at once, each with its own
 * game_ctx_t (scratch space and the "current state" that queries read).
 * States are opaque values that can be copied, hashed and compared; moves
 * are small integers per role (0 .. game_num_moves-1), and text appears only
 * at the boundary (move names, state printing, parsing a protocol move).
 *
 * Two engines implement it (shared/docs and issue "The reasoner"):
 *   propnet - the rules are grounded and run as a propositional circuit;
 *   rules   - the rules are evaluated bottom-up without grounding, the
 *             fallback when grounding exceeds its budget.
 * ENGINE_AUTO tries the propnet first.
 *
 * Typical playout:
 *     game_ctx_set_state(ctx, s);
 *     while (!game_is_terminal(ctx)) {
 *         for (r...) { n = game_legal(ctx, r, &moves); joint[r] = moves[pick]; }
 *         game_ctx_play(ctx, joint);
 *     }
 *     v = game_goal(ctx, r);
 */
#ifndef GGP_REASONER_GAME_H
#define GGP_REASONER_GAME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/diag.h"
#include "base/rng.h"
#include "gdl/ast.h"

typedef struct game game_t;
typedef struct game_ctx game_ctx_t;
typedef struct game_state game_state_t;
typedef uint32_t move_id_t;

/* ENGINE_NATIVE: a game written in C (reasoner/game_native.h, games/); it
 * is never compiled from rules, so --engine does not take it. */
typedef enum { ENGINE_AUTO, ENGINE_PROPNET, ENGINE_RULES, ENGINE_NATIVE } engine_kind_t;

/* What a compile is doing, for a watcher on another thread (the CLI's
 * 'loading' line): a stage and the relation being computed (spellings
 * that live as long as the program; NULL when none). */
typedef struct game_progress {
    _Atomic(const char *) stage;
    _Atomic(const char *) rel;
    atomic_uint arity;
} game_progress_t;

/* The one spelling of each engine kind: "auto", "propnet", "rules" (the
 * --engine values, game_stats_t.engine), "native". NULL for a value out of
 * range. */
const char *game_engine_name(engine_kind_t k);
/* The compile engine spelled s (exactly, as game_engine_name writes it;
 * "native" is not one); false (out untouched) if s names none. */
bool game_engine_parse(const char *s, engine_kind_t *out);

/* game_options_t eliminate_after's default: chess-like games ground with
 * fewer than 200,000 instances in any rule; gt_attrition's next rules make
 * 10^6 each before elimination. */
#define GAME_ELIMINATE_AFTER (1u << 19)

typedef struct game_options {
    engine_kind_t engine;
    /* Grounding budget: beyond either, ENGINE_AUTO falls back to rules and
     * ENGINE_PROPNET fails with a message. 0 = the defaults below. The
     * circuit build after grounding may take the time up to 1.5 x
     * ground_ms from the start. */
    uint64_t ground_ms;        /* default 10000 */
    size_t ground_mb;          /* default 2048 */
    /* Ground instances of one rule past which grounding starts again with
     * the rules' body variables eliminated (rules.h, RULES_ELIMINATE) or,
     * first, for a rule of a view that calls itself and that every use
     * asks with some arguments bound, that view asked on demand
     * (rules_magic.c): 0 = the default,
     * GAME_ELIMINATE_AFTER; 1 = eliminated from the start; UINT32_MAX =
     * never. */
    uint64_t eliminate_after;
    /* Budget of the rules engine for the static relations (computed once,
     * in full): past it the game does not compile, instead of hanging on a
     * description whose static part is infinite in practice. 0 = 60000. */
    uint64_t static_ms;
    /* Memory budget of the rules engine's static relations (tuples
     * stored): past it the game does not compile, with an error naming the
     * relation. 0 = 2048 MB. Also each context's bound on what one state
     * derives: past it that state's results are incomplete (said once). */
    size_t static_mb;
    /* Budget of the whole compile (ENGINE_AUTO: grounding, then the rules
     * engine in what is left): 0 = none beyond those above. A compile past
     * it fails with an error naming the relation it was computing. */
    uint64_t load_ms;
    game_progress_t *progress; /* or NULL */
    bool quiet;                /* do not report which engine was chosen */
    /* Grounding stops (as past its budget) once this becomes true; NULL:
     * never (game_grounding_free uses it). */
    const atomic_bool *cancel;
} game_options_t;

/* Goal values outside 0..100 that report a defect of the rules. */
#define GAME_GOAL_NONE (-1)     /* no goal value holds for the role */
#define GAME_GOAL_MULTIPLE (-2) /* several goal values hold */

typedef struct game_stats {
    const char *engine;   /* game_engine_name: "propnet" or "rules" */
    size_t props;         /* ground propositions (propnet) or 0 */
    size_t gates;         /* circuit gates (propnet) or 0 */
    size_t base_props;    /* fluents that can be true */
    size_t rules;         /* rules after normalisation */
    unsigned ground_tries; /* propnet: groundings begun (one more per membership
                            * relation found, per rewrite of an exploding rule,
                            * and for the fallback to the rules as written) */
    double ground_ms;     /* time spent grounding and building */
    char fallback_reason[160]; /* why auto chose rules, or "" */
} game_stats_t;

/* Compile a validated program. On failure returns NULL after reporting to d.
 * The program (and its symtab and source) must outlive the game. */
game_t *game_compile(const program_t *p, const game_options_t *opt, diag_t *d);
void game_free(game_t *g);
void game_get_stats(const game_t *g, game_stats_t *out);

/* Grounding in the background, so that it never blocks play: a player
 * compiles the rules engine (ENGINE_RULES: milliseconds on most games),
 * plays with it at once, and takes the propositional network when it is
 * ready (anchors.md: start-up is where the propnet players are weak; chess
 * does not ground at all, and a failed attempt costs its whole budget).
 * The grounding runs on a thread of its own with opt's budgets (the engine
 * field is ignored); p must outlive it. */
typedef struct game_grounding game_grounding_t;
typedef enum { GROUNDING_RUNNING, GROUNDING_READY, GROUNDING_FAILED } grounding_status_t;
game_grounding_t *game_grounding_start(const program_t *p, const game_options_t *opt);
/* Wait up to wait_ms (0: just look; UINT64_MAX: until it ends). READY
 * hands the game to the caller in *out, once (later calls say FAILED with
 * reason "taken"); FAILED writes why into reason. */
grounding_status_t game_grounding_take(game_grounding_t *gg, uint64_t wait_ms, game_t **out, char *reason,
                                       size_t reason_len);
/* Wait up to wait_ms (as above) for the grounding to end, without taking
 * anything; whether it has ended. */
bool game_grounding_wait(game_grounding_t *gg, uint64_t wait_ms);
/* Stop the grounding at its next budget check, wait for the thread and free
 * everything (a game not taken too). NULL is a no-op. */
void game_grounding_free(game_grounding_t *gg);

/* Roles in description order (the order of moves in PLAY messages). */
uint32_t game_num_roles(const game_t *g);
const char *game_role_name(const game_t *g, uint32_t role); /* spelling */
/* Index of a role by name (case-insensitive), or -1. */
int game_role_index(const game_t *g, const char *name);

/* Move ids of a role known so far. The propnet knows every move at compile
 * time; the rules engine discovers moves as they become legal, so this can
 * grow (ids never change once given). */
uint32_t game_num_moves(const game_t *g, uint32_t role);
/* Whether every move id exists from compile time on, so that
 * game_num_moves is final and tables keyed by moves can be sized up front:
 * true for the propnet and native games, false for the rules engine. */
bool game_moves_enumerable(const game_t *g);
/* Whether a context's answers at a state come in an order of the moves
 * that reached it (a native game says so: Go's playout candidates), so
 * that a state set from a copy answers in another order than the same
 * state played to. False for the GDL engines (sorted lists). The search
 * then replays moves where it could set a cached state, to play the same
 * games as before. */
bool game_history_ordered(const game_t *g);
/* The engine that runs g: ENGINE_PROPNET, ENGINE_RULES or ENGINE_NATIVE,
 * never AUTO. */
engine_kind_t game_engine(const game_t *g);
/* Text of a move: canonical (lowercase keys) or as the rules spell it.
 * Stable for the life of the game. */
const char *game_move_name(const game_t *g, uint32_t role, move_id_t m, bool canonical);

/* States. */
game_state_t *game_state_new(const game_t *g);
void game_state_free(game_state_t *s);
void game_state_copy(const game_t *g, game_state_t *dst, const game_state_t *src);
uint64_t game_state_hash(const game_t *g, const game_state_t *s);
/* Bytes of s's contents (what game_state_copy copies). */
size_t game_state_bytes(const game_state_t *s);
bool game_state_equal(const game_t *g, const game_state_t *a, const game_state_t *b);
/* The fluents of a state, sorted canonical text, separated by single spaces:
 * "(cell 1 1 b) (control xplayer)". canonical=false uses the rules'
 * spelling (for match records). */
void game_state_print(const game_t *g, const game_state_t *s, FILE *out, bool canonical);
/* A state holding every fluent that can ever be true, when the engine
 * knows them (the propnet's base propositions; the rules engine's `base`
 * facts, if the rules have them): for tools that lay a state out, such as
 * the board of `ggp play`. false (out untouched) when unknown. */
bool game_all_fluents(const game_t *g, game_state_t *out);

/* The true fluents of s as ids, in increasing order, into out (room for
 * cap); returns how many there are (past cap only cap are written). An id
 * names one ground fluent for the life of the game (the propnet's base
 * proposition, the rules engine's term), so ids can key tables: Zobrist
 * keys and feature caches (grave-spec §14.3, §14.4). */
uint32_t game_state_fluents(const game_t *g, const game_state_t *s, uint32_t *out, uint32_t cap);
/* Canonical text of fluent f (an id from game_state_fluents) into buf,
 * truncated to len - 1 characters; returns the full length. */
size_t game_fluent_text(const game_t *g, uint32_t f, char *buf, size_t len);

/* Per-thread context. */
game_ctx_t *game_ctx_new(const game_t *g);
void game_ctx_free(game_ctx_t *c);
const game_t *game_ctx_game(const game_ctx_t *c);

/* The initial state into out. */
void game_initial(game_ctx_t *c, game_state_t *out);
/* Make a copy of s the context's current state. */
void game_ctx_set_state(game_ctx_t *c, const game_state_t *s);
/* Same, for a state the caller will not come back to (the search's
 * cached tree states, handed over once per descent): the engine keeps
 * nothing to return to it. The answers are the same either way. */
void game_ctx_visit_state(game_ctx_t *c, const game_state_t *s);
const game_state_t *game_ctx_state(const game_ctx_t *c);
/* A hint for a context whose states are looked at once and left (one-ply
 * lookahead from a playout): the engine need not keep anything to come back
 * to them. The answers are the same either way. */
void game_ctx_scratch(game_ctx_t *c);

/* Queries on the current state. */
bool game_is_terminal(game_ctx_t *c);
/* Legal moves of a role, sorted by id; the array stays valid until the
 * current state changes. May be 0 (a defect of the rules). */
uint32_t game_legal(game_ctx_t *c, uint32_t role, const move_id_t **moves);
/* 0..100, or GAME_GOAL_NONE / GAME_GOAL_MULTIPLE. */
int game_goal(game_ctx_t *c, uint32_t role);

/* The state after a joint move (one move per role, in role order) from the
 * current state, into out; the current state is unchanged. */
void game_next(game_ctx_t *c, const move_id_t *joint, game_state_t *out);
/* Same, then make the result the current state. */
void game_ctx_play(game_ctx_t *c, const move_id_t *joint);

/* A move of role for a uniformly random playout, drawn with rng by the
 * game's own playout policy, when it has one (Go: a random legal move that
 * does not fill one of the mover's own eyes, pass when there is none; see
 * games/go/go.c): true, the move in *out and in *decides whether the role
 * has a choice here (>= 2 legal moves, a decider of grave-spec §2.2). false
 * when the game has no policy: the caller draws from game_legal. A policy
 * may play a subset of the legal moves, so the search uses it only in the
 * random playouts and never in the tree. */
bool game_playout_move(game_ctx_t *c, uint32_t role, rng_t *rng, move_id_t *out, bool *decides);
/* Uniformly random playouts, many side by side where the engine can (the
 * propnet: 256 at once, one bit of a word each, propnet_lanes.c): n
 * playouts from s, each cut after cap plies; done is called as each ends
 * with its goal values (per role, as game_goal gives them; all
 * GAME_GOAL_NONE unless it reached a terminal state), its plies, how it
 * ended, and with GAME_PLAYOUTS_HISTORY in flags its joint moves (plies x
 * roles, in role order; else NULL), valid during the call. The same rng
 * state gives the same playouts. false (nothing played) when the game
 * has no such form: the caller plays them one by one. The moves are
 * drawn from the legal moves, never from a game's own playout policy
 * (game_playout_move). moves is NULL for a playout of no ply; done must
 * not call game_playouts on the same context. */
enum { GAME_PLAYOUT_OVER, GAME_PLAYOUT_CAPPED, GAME_PLAYOUT_STUCK };
#define GAME_PLAYOUT_LANES 256 /* playouts the propnet runs side by side */
#define GAME_PLAYOUTS_HISTORY 1u
typedef void (*game_playout_done_fn)(void *ud, const int *goals, uint32_t plies, int how, const move_id_t *moves);
bool game_playouts(game_ctx_t *c, const game_state_t *s, uint64_t n, uint32_t cap, rng_t *rng, unsigned flags,
                   game_playout_done_fn done, void *ud);
/* The same policy as a list, for playouts that weigh the moves (MAST):
 * the moves of role a playout may play, sorted by id, valid until the
 * current state changes (Go: the legal moves that fill no own eye, or pass
 * alone). 0 when the game has no policy: the caller uses game_legal. */
uint32_t game_playout_legal(game_ctx_t *c, uint32_t role, const move_id_t **moves);
/* The same list in two parts, for a game where testing one move costs far
 * less than listing them all (Go: the empty points, and each one's test
 * for an own eye, suicide, ko and superko): candidates,
 * in an order of the game's own (the same for the same history) and valid
 * until the current state changes, and the test.
 * game_playout_legal's list is the candidates the test accepts, or, when
 * it accepts none, that list as it is (pass). A playout that draws one
 * move then tests about one candidate instead of all of them. 0 (and
 * accepts false) when the game has no such split: the caller uses
 * game_playout_legal. */
uint32_t game_playout_cands(game_ctx_t *c, uint32_t role, const move_id_t **moves);
bool game_playout_accepts(game_ctx_t *c, uint32_t role, move_id_t m);

/* Parse a move written in KIF (any case, any spacing) and find it among
 * the role's legal moves in the current state. Returns false if it does not
 * parse or is not legal. */
bool game_move_from_text(game_ctx_t *c, uint32_t role, const char *text, size_t len, move_id_t *out);

#endif
