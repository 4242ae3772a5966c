/* fuzz_reasoner.c - libFuzzer target that reaches the reasoner: the input
 * is GDL rules text, parsed and validated as `ggp check` does; a valid
 * program is compiled with the rules engine and with the propnet (a tight
 * grounding budget), and each compiled game plays a few plies of random
 * legal moves from the initial state, asking terminal and goals on the way.
 *
 * Bad rules must only ever produce diagnostics or a game that does not
 * compile: any crash, abort, sanitizer report, leak or hang is a bug.
 *
 * Work per input is bounded so that one run stays well under a second on
 * small inputs: the budgets below (a game that needs more does not compile,
 * which is a correct outcome) and at most MAX_PLIES plies per engine. The
 * random moves come from an rng seeded by a hash of the input, so a
 * reported input replays the same plies. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/diag.h"
#include "base/rng.h"
#include "gdl/ast.h"
#include "gdl/validate.h"
#include "reasoner/game.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_PLIES = 20, MAX_ROLES = 64 };

/* FNV-1a: the seed only has to be a deterministic function of the input. */
static uint64_t input_hash(const uint8_t *data, size_t size)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < size; i++) {
        h ^= data[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static void play_a_few_plies(game_t *g, uint64_t seed)
{
    uint32_t roles = game_num_roles(g);
    if (roles == 0 || roles > MAX_ROLES) return;
    for (uint32_t r = 0; r < roles; r++) (void)game_role_name(g, r);
    rng_t rng;
    rng_seed(&rng, seed);
    game_ctx_t *ctx = game_ctx_new(g);
    game_state_t *s = game_state_new(g);
    game_initial(ctx, s);
    game_ctx_set_state(ctx, s);
    (void)game_state_hash(g, game_ctx_state(ctx));
    move_id_t joint[MAX_ROLES];
    for (int ply = 0; ply < MAX_PLIES; ply++) {
        for (uint32_t r = 0; r < roles; r++) (void)game_goal(ctx, r);
        if (game_is_terminal(ctx)) break;
        bool stuck = false;
        for (uint32_t r = 0; r < roles && !stuck; r++) {
            const move_id_t *moves = NULL;
            uint32_t n = game_legal(ctx, r, &moves);
            /* no legal move is a defect of the rules the players report;
             * there is no joint move to play */
            if (n == 0) stuck = true;
            else {
                joint[r] = moves[rng_below(&rng, n)];
                (void)game_move_name(g, r, joint[r], true);
            }
        }
        if (stuck) break;
        game_ctx_play(ctx, joint);
    }
    game_state_free(s);
    game_ctx_free(ctx);
}

static void compile_and_play(const program_t *p, engine_kind_t engine, uint64_t seed)
{
    diag_t d;
    diag_init(&d, NULL);
    game_options_t opt = {
        .engine = engine,
        .ground_ms = 200,
        .ground_mb = 64,
        .static_ms = 200,
        .quiet = true,
    };
    game_t *g = game_compile(p, &opt, &d);
    if (!g) return;
    play_a_few_plies(g, seed);
    game_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the diagnostics written as `ggp check` writes them (source lines and
     * carets included), to memory */
    char *out = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&out, &len);
    diag_t d;
    diag_init(&d, mf);
    src_t *src = src_new("fuzz.kif", (const char *)data, size);
    symtab_t *st = symtab_new();
    unsigned errors = 0;
    program_t *p = gdl_parse_src(src, st, &d, &errors);
    gdl_info_t info = { 0 };
    if (errors == 0) errors += gdl_validate(p, &d, &info);
    if (errors == 0) {
        uint64_t seed = input_hash(data, size);
        compile_and_play(p, ENGINE_RULES, seed);
        compile_and_play(p, ENGINE_PROPNET, seed);
    }
    gdl_info_free(&info);
    program_free(p);
    symtab_free(st);
    src_free(src);
    fclose(mf);
    free(out);
    return 0;
}
