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
#include "games/registry.h"
#include "gdl/load.h"
#include "reasoner/game.h"
#include "search/search.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct lanes_tally {
    uint64_t *hash, plies;
    uint32_t nr;
} lanes_tally_t;

static void lane_done(void *ud, const int *goals, uint32_t plies, int how, const move_id_t *moves)
{
    (void)moves;
    lanes_tally_t *t = ud;
    t->plies += plies;
    *t->hash = *t->hash * 31 + plies + (uint64_t)how;
    for (uint32_t r = 0; r < t->nr; r++) *t->hash = *t->hash * 31 + (uint64_t)(goals[r] + 7);
}

/* Not inlined: callgrind's --toggle-collect=run_playouts counts this only.
 * lanes: game_playouts (the propnet's 256 side by side; hash over each
 * playout's plies, end and goals, in the order they end). */
__attribute__((noinline)) uint64_t run_playouts(game_ctx_t *c, const game_state_t *s0, uint32_t nr, long n,
                                                uint64_t *hash, bool lanes)
{
    rng_t rng;
    rng_seed(&rng, 1);
    if (lanes) {
        lanes_tally_t t = {.hash = hash, .nr = nr};
        if (!game_playouts(c, s0, (uint64_t)n, 10000, &rng, 0, lane_done, &t)) {
            fprintf(stderr, "plies: this engine has no playouts side by side\n");
            exit(1);
        }
        return t.plies;
    }
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

/* One search of the spec's playout budget from the initial state, as the
 * first move of a match (bench/search_cost.sh: callgrind's
 * --toggle-collect=run_search). Returns the playouts it ran. */
__attribute__((noinline)) uint64_t run_search(const game_t *g, const game_state_t *s0, const search_spec_t *spec,
                                              uint64_t *hash)
{
    searcher_t *se = searcher_new(g, 0, spec);
    search_report_t rep = {0};
    move_id_t m = searcher_choose(se, s0, deadline_none(), NULL, &rep);
    *hash = *hash * 31 + m;
    fprintf(stderr, "search playouts=%llu nodes_peak=%llu bytes_per_node=%llu\n", (unsigned long long)rep.playouts,
            (unsigned long long)rep.nodes_peak, (unsigned long long)rep.bytes_per_node);
    searcher_free(se);
    return rep.playouts;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: plies FILE.kif|NATIVE PLAYOUTS [propnet|rules|lanes [SPEC]]\n"
                        "  lanes: the propnet's playouts side by side (game_playouts)\n"
                        "  with SPEC (e.g. grave:playouts=2000,threads=1): one search of SPEC instead\n");
        return 2;
    }
    bool lanes = argc > 3 && !strcmp(argv[3], "lanes");
    game_options_t opts = {.engine = argc > 3 && !strcmp(argv[3], game_engine_name(ENGINE_RULES)) ? ENGINE_RULES : ENGINE_PROPNET};
    gdl_loaded_t l = {0};
    diag_t d;
    diag_init(&d, stderr);
    const char *err = NULL;
    game_t *g;
    if (native_game_named(argv[1])) { /* go9: the engine argument is ignored */
        char why[256];
        g = native_game_open(argv[1], why, sizeof why);
        if (!g) {
            fprintf(stderr, "plies: %s: %s\n", argv[1], why);
            return 1;
        }
    } else {
        if (!gdl_load_file(argv[1], &d, &l, &err)) {
            fprintf(stderr, "plies: cannot read %s: %s\n", argv[1], err);
            return 1;
        }
        g = l.errors ? NULL : game_compile(l.prog, &opts, &d);
        if (!g) {
            gdl_loaded_free(&l);
            return 1;
        }
    }
    game_ctx_t *c = game_ctx_new(g);
    game_state_t *s0 = game_state_new(g);
    game_initial(c, s0);
    uint64_t hash = 0;
    if (argc > 4) {
        char err[256];
        search_spec_t *spec = search_spec_parse(argv[4], err, sizeof err);
        if (!spec || !search_spec_check_game(spec, g, err, sizeof err)) {
            fprintf(stderr, "plies: spec %s: %s\n", argv[4], err);
            return 2;
        }
        double t0 = cpu_now();
        uint64_t n = run_search(g, s0, spec, &hash);
        double dt = cpu_now() - t0;
        printf("playouts=%llu hash=%016llx\n", (unsigned long long)n, (unsigned long long)hash);
        fprintf(stderr, "cpu_s=%.3f playouts_per_cpu_sec=%.0f\n", dt, dt > 0 ? (double)n / dt : 0.0);
        search_spec_free(spec);
    } else {
        double t0 = cpu_now();
        uint64_t plies = run_playouts(c, s0, game_num_roles(g), atol(argv[2]), &hash, lanes);
        double dt = cpu_now() - t0;
        printf("plies=%llu hash=%016llx\n", (unsigned long long)plies, (unsigned long long)hash);
        fprintf(stderr, "cpu_s=%.3f ns_per_ply=%.1f playouts_per_cpu_sec=%.0f\n", dt,
                plies ? dt * 1e9 / (double)plies : 0.0, dt > 0 ? (double)atol(argv[2]) / dt : 0.0);
    }
    game_state_free(s0);
    game_ctx_free(c);
    game_free(g);
    if (l.src) gdl_loaded_free(&l);
    return 0;
}
