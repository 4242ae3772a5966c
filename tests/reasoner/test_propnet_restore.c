/* test_propnet_restore.c - a propnet context that keeps going back to
 * earlier states (as a search does to its root at every iteration) answers
 * exactly like a fresh context set to the same state: terminal, goals,
 * legal moves and the next state of a random joint move. The propnet keeps
 * copies of its running state for states set from outside and restores
 * them; this checks that path, with more states than copies so that copies
 * are replaced. A scratch context (game_ctx_scratch: no copies kept, as
 * the one-ply lookahead of a playout) must answer the same, and so must a
 * context sent to states with game_ctx_visit_state (nothing kept for
 * them, as the search's cached tree states), mixed with set_state. */
#include "testutil.h"

#include "base/rng.h"
#include "gdl/ast.h"
#include "gdl/validate.h"
#include "reasoner/game.h"

enum { POOL = 5, ITERATIONS = 60, MAX_STEPS = 12 };

static const char *const games[] = {"ticTacToe", "connectFour", "breakthrough", "reversi", "hex", "3pConnectFour"};

/* Every answer of ctx a on its current state equals a fresh context's. */
static void check_same(const char *game, const game_t *g, game_ctx_t *a, rng_t *rng, move_id_t *joint)
{
    game_ctx_t *f = game_ctx_new(g);
    game_ctx_set_state(f, game_ctx_state(a));
    uint32_t nr = game_num_roles(g);
    bool term = game_is_terminal(a);
    if (term != game_is_terminal(f)) fail_msg("%s: terminal differs after going back", game);
    for (uint32_t r = 0; r < nr; r++)
        if (game_goal(a, r) != game_goal(f, r)) fail_msg("%s: goal of role %u differs after going back", game, r);
    bool any = !term;
    for (uint32_t r = 0; r < nr; r++) {
        const move_id_t *ma, *mf;
        uint32_t na = game_legal(a, r, &ma), nf = game_legal(f, r, &mf);
        if (na != nf || (na && memcmp(ma, mf, na * sizeof *ma)))
            fail_msg("%s: legal moves of role %u differ after going back (%u vs %u)", game, r, na, nf);
        if (!na) any = false;
        else joint[r] = ma[rng_below(rng, na)];
    }
    if (any) {
        game_state_t *sa = game_state_new(g), *sf = game_state_new(g);
        game_next(a, joint, sa);
        game_next(f, joint, sf);
        if (!game_state_equal(g, sa, sf)) fail_msg("%s: next states differ after going back", game);
        game_state_free(sa);
        game_state_free(sf);
    }
    game_ctx_free(f);
}

/* mode 0: back with set_state; 1: a scratch context; 2: visit_state or
 * set_state at random */
static void run_game(const char *dir, const char *name, uint64_t seed, int mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.kif", dir, name);
    const char *err;
    src_t *src = src_read_file(path, &err);
    if (!src) fail_msg("cannot read %s (%s)", path, err); /* listed: must be there */
    tu_diag_t td;
    tu_diag_open(&td);
    unsigned errors;
    symtab_t *syms = symtab_new();
    program_t *prog = gdl_parse_src(src, syms, &td.d, &errors);
    gdl_info_t info = {0};
    if (!errors) errors = gdl_validate(prog, &td.d, &info);
    if (errors) fail_msg("%s does not load:\n%s", path, tu_diag_text(&td));
    game_options_t opt = {.engine = ENGINE_PROPNET, .quiet = true};
    game_t *g = game_compile(prog, &opt, &td.d);
    tu_diag_close(&td);
    if (!g) fail_msg("the propnet does not ground %s", name); /* each listed game grounds */
    assert_false(game_history_ordered(g)); /* sorted answers: the search may set cached states */
    {
        uint32_t nr = game_num_roles(g);
        move_id_t *joint = calloc(nr, sizeof *joint);
        game_state_t *pool[POOL];
        for (int k = 0; k < POOL; k++) pool[k] = game_state_new(g);
        game_ctx_t *a = game_ctx_new(g);
        if (mode == 1) game_ctx_scratch(a);
        game_initial(a, pool[0]);
        uint32_t n_pool = 1;
        rng_t rng;
        rng_seed(&rng, seed);
        for (int it = 0; it < ITERATIONS; it++) {
            const game_state_t *back = pool[rng_below(&rng, n_pool)];
            if (mode == 2 && rng_below(&rng, 2)) game_ctx_visit_state(a, back);
            else game_ctx_set_state(a, back);
            check_same(name, g, a, &rng, joint);
            for (int s = 0; s < MAX_STEPS && !game_is_terminal(a); s++) {
                bool stuck = false;
                for (uint32_t r = 0; r < nr; r++) {
                    const move_id_t *m;
                    uint32_t n = game_legal(a, r, &m);
                    if (!n) stuck = true;
                    else joint[r] = m[rng_below(&rng, n)];
                }
                if (stuck) break;
                game_ctx_play(a, joint);
                check_same(name, g, a, &rng, joint);
                /* Remember a state to come back to, sometimes. */
                if (rng_below(&rng, 8) == 0) {
                    uint32_t k = n_pool < POOL ? n_pool++ : 1 + rng_below(&rng, POOL - 1);
                    game_state_copy(g, pool[k], game_ctx_state(a));
                }
            }
        }
        game_ctx_free(a);
        for (int k = 0; k < POOL; k++) game_state_free(pool[k]);
        free(joint);
        game_free(g);
    }
    gdl_info_free(&info);
    program_free(prog);
    symtab_free(syms);
    src_free(src);
}

static void test_going_back_matches_fresh_context(void **state)
{
    (void)state;
    const char *dir = tu_shared_or_skip("games");
    char *d = strdup(dir);
    for (int mode = 0; mode <= 2; mode++)
        for (size_t i = 0; i < sizeof games / sizeof *games; i++) run_game(d, games[i], rng_derive(77, i), mode);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_going_back_matches_fresh_context)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
