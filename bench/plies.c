/* bench/plies.c - a fixed number of random playouts from the initial state
 * (seed 1), for counting the reasoner's instructions per ply under
 * callgrind (bench/plies.sh builds and runs it). `ggp bench` plays for a
 * time, so the plies it plays under valgrind vary with the load; this plays
 * the same plies whatever the load, and the instructions between the
 * start and the end of run_playouts are the playouts' only. Prints
 * plies=N hash=H on stdout (H checks that two builds played the same moves)
 * and the thread CPU time per ply on stderr. Not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/rng.h"
#include "base/xalloc.h"
#include "gdl/load.h"
#include "reasoner/game.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Not inlined: callgrind's --toggle-collect=run_playouts counts this only. */
__attribute__((noinline)) uint64_t run_playouts(game_ctx_t *c, const game_state_t *s0, uint32_t nr, long n,
                                                uint64_t *hash)
{
    rng_t rng;
    rng_seed(&rng, 1);
    move_id_t *joint = xcalloc(nr ? nr : 1, sizeof *joint);
    uint64_t plies = 0;
    for (long i = 0; i < n; i++) {
        game_ctx_set_state(c, s0);
        for (int p = 0; !game_is_terminal(c) && p < 10000; p++, plies++) {
            for (uint32_t r = 0; r < nr; r++) {
                const move_id_t *m;
                uint32_t k = game_legal(c, r, &m);
                if (!k) {
                    fprintf(stderr, "plies: a role has no legal move\n");
                    exit(1);
                }
                joint[r] = m[k == 1 ? 0 : rng_below(&rng, k)];
                *hash = *hash * 31 + joint[r] + k;
            }
            game_ctx_play(c, joint);
        }
        for (uint32_t r = 0; r < nr; r++) *hash = *hash * 31 + (uint64_t)(game_goal(c, r) + 7);
    }
    free(joint);
    return plies;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: plies FILE.kif PLAYOUTS [propnet|rules]\n");
        return 2;
    }
    game_options_t opts = {.engine = argc > 3 && !strcmp(argv[3], game_engine_name(ENGINE_RULES)) ? ENGINE_RULES : ENGINE_PROPNET};
    gdl_loaded_t l;
    diag_t d;
    diag_init(&d, stderr);
    const char *err = NULL;
    if (!gdl_load_file(argv[1], &d, &l, &err)) {
        fprintf(stderr, "plies: cannot read %s: %s\n", argv[1], err);
        return 1;
    }
    game_t *g = l.errors ? NULL : game_compile(l.prog, &opts, &d);
    if (!g) {
        gdl_loaded_free(&l);
        return 1;
    }
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *s0 = game_state_new(g);
    game_initial(c, s0);
    uint64_t hash = 0;
    double t0 = cpu_now();
    uint64_t plies = run_playouts(c, s0, game_num_roles(g), atol(argv[2]), &hash);
    double dt = cpu_now() - t0;
    printf("plies=%llu hash=%016llx\n", (unsigned long long)plies, (unsigned long long)hash);
    fprintf(stderr, "cpu_s=%.3f ns_per_ply=%.1f\n", dt, plies ? dt * 1e9 / (double)plies : 0.0);
    game_state_free(s0);
    game_ctx_free(c);
    game_free(g);
    gdl_loaded_free(&l);
    return 0;
}
