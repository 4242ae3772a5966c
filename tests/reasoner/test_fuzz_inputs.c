/* test_fuzz_inputs.c - the inputs tests/fuzz/fuzz_reasoner found faults
 * with, kept in tests/reasoner/fuzz/, each replayed the way the fuzzer runs
 * it: parsed and validated, compiled with the rules engine and with the
 * propnet under small budgets, and a few plies of random legal moves played
 * with terminal and goals asked on the way. A fault shows as a crash or as
 * a sanitizer report under the asan preset (the clang `fuzz` preset reports
 * what gcc's UBSan does not, e.g. arithmetic on NULL; .ci/fuzz.sh replays
 * these files too, as seeds of fuzz_reasoner). */
#include "testutil.h"

#include <dirent.h>

#include "base/rng.h"
#include "gdl/ast.h"
#include "gdl/validate.h"
#include "reasoner/game.h"

enum { MAX_PLIES = 20 };

/* Plays up to MAX_PLIES random plies; sig gets the initial state's
 * terminal flag, legal move counts and goals (the engines must agree). */
static void play(const char *name, game_t *g, uint64_t seed, char *sig, size_t sig_len)
{
    uint32_t nr = game_num_roles(g);
    assert_true(nr > 0);
    move_id_t *joint = calloc(nr, sizeof *joint);
    rng_t rng;
    rng_seed(&rng, seed);
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *s = game_state_new(g);
    game_initial(c, s);
    game_ctx_set_state(c, s);
    size_t used = (size_t)snprintf(sig, sig_len, "terminal=%d", game_is_terminal(c));
    for (uint32_t r = 0; r < nr && used < sig_len; r++) {
        const move_id_t *m;
        used += (size_t)snprintf(sig + used, sig_len - used, " r%u:%u/%d", r, game_legal(c, r, &m), game_goal(c, r));
    }
    int plies = 0;
    for (; plies < MAX_PLIES && !game_is_terminal(c); plies++) {
        bool stuck = false;
        for (uint32_t r = 0; r < nr; r++) {
            int v = game_goal(c, r);
            assert_true(v == GAME_GOAL_NONE || v == GAME_GOAL_MULTIPLE || (v >= 0 && v <= 100));
            const move_id_t *m;
            uint32_t n = game_legal(c, r, &m);
            if (!n) stuck = true;
            else joint[r] = m[rng_below(&rng, n)];
        }
        if (stuck) break;
        game_ctx_play(c, joint);
    }
    printf("note: %s: %s; %d plies\n", name, sig, plies);
    game_state_free(s);
    game_ctx_free(c);
    free(joint);
}

static void replay(const char *path, const char *name)
{
    const char *err;
    src_t *src = src_read_file(path, &err);
    if (!src) fail_msg("cannot read %s: %s", path, err);
    tu_diag_t td;
    tu_diag_open(&td);
    unsigned errors;
    symtab_t *syms = symtab_new();
    program_t *prog = gdl_parse_src(src, syms, &td.d, &errors);
    gdl_info_t info = { 0 };
    if (!errors) errors = gdl_validate(prog, &td.d, &info);
    if (errors) fail_msg("%s: the fuzzer's input no longer validates: %s", name, tu_diag_text(&td));
    {
        const engine_kind_t engines[] = { ENGINE_RULES, ENGINE_PROPNET };
        char sig[2][512] = { "", "" };
        for (size_t k = 0; k < 2; k++) {
            game_options_t opt = {
                .engine = engines[k], .ground_ms = 200, .ground_mb = 64, .static_ms = 200, .quiet = true
            };
            game_t *g = game_compile(prog, &opt, &td.d);
            if (k == 0 && !g) fail_msg("%s: the rules engine does not compile it: %s", name, tu_diag_text(&td));
            if (g) {
                play(name, g, rng_derive(13, k), sig[k], sizeof sig[k]);
                game_free(g);
            }
        }
        if (sig[1][0] && strcmp(sig[0], sig[1]))
            fail_msg("%s: the engines disagree on the initial state: rules %s, propnet %s", name, sig[0], sig[1]);
    }
    tu_diag_close(&td);
    gdl_info_free(&info);
    program_free(prog);
    symtab_free(syms);
    src_free(src);
}

static void test_fuzz_inputs_compile_and_play(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/reasoner/fuzz", GGP_SOURCE_DIR);
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    int n = 0;
    for (struct dirent *e; (e = readdir(dp));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".kif")) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        replay(path, e->d_name);
        n++;
    }
    closedir(dp);
    assert_true(n > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_fuzz_inputs_compile_and_play) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
