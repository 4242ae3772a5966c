/* game_async.c - grounding on a thread of its own (see game.h,
 * game_grounding_start): the caller plays with the rules engine meanwhile
 * and takes the propositional network when it is ready. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "reasoner/engine.h"

struct game_grounding {
    const program_t *prog;
    game_options_t opt;
    atomic_bool cancel;
    pthread_t thread;
    bool has_thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done, taken; /* under mu */
    game_t *game;     /* the result, until taken */
    char reason[320];
};

static void *grounding_main(void *arg)
{
    game_grounding_t *gg = arg;
    uint64_t t0 = clock_now_ns();
    char reason[sizeof gg->reason] = "";
    game_t *g = propnet_try(gg->prog, &gg->opt, reason, sizeof reason);
    if (g) g->stats.ground_ms = (double)(clock_now_ns() - t0) / 1e6;
    pthread_mutex_lock(&gg->mu);
    gg->game = g;
    memcpy(gg->reason, reason, sizeof reason);
    gg->done = true;
    pthread_cond_broadcast(&gg->cv);
    pthread_mutex_unlock(&gg->mu);
    return NULL;
}

game_grounding_t *game_grounding_start(const program_t *p, const game_options_t *opt)
{
    game_grounding_t *gg = xcalloc(1, sizeof *gg);
    gg->prog = p;
    gg->opt = game_options_defaults(opt);
    gg->opt.engine = ENGINE_AUTO;
    gg->opt.progress = NULL; /* the caller's own compile reports its progress */
    atomic_init(&gg->cancel, false);
    gg->opt.cancel = &gg->cancel;
    pthread_mutex_init(&gg->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&gg->cv, &ca);
    pthread_condattr_destroy(&ca);
    gg->has_thread = pthread_create(&gg->thread, NULL, grounding_main, gg) == 0;
    if (!gg->has_thread) grounding_main(gg); /* no thread: ground here, the caller only waits longer */
    return gg;
}

/* Wait under gg->mu up to wait_ms (UINT64_MAX: no bound) for the end. */
static void wait_done(game_grounding_t *gg, uint64_t wait_ms)
{
    if (gg->done || !wait_ms) return;
    uint64_t at = wait_ms == UINT64_MAX ? UINT64_MAX : clock_now_ns() + wait_ms * 1000000ULL;
    while (!gg->done) {
        if (at == UINT64_MAX) {
            pthread_cond_wait(&gg->cv, &gg->mu);
            continue;
        }
        if (clock_now_ns() >= at) break;
        struct timespec ts = {.tv_sec = (time_t)(at / 1000000000ULL), .tv_nsec = (long)(at % 1000000000ULL)};
        pthread_cond_timedwait(&gg->cv, &gg->mu, &ts);
    }
}

bool game_grounding_wait(game_grounding_t *gg, uint64_t wait_ms)
{
    pthread_mutex_lock(&gg->mu);
    wait_done(gg, wait_ms);
    bool done = gg->done;
    pthread_mutex_unlock(&gg->mu);
    return done;
}

grounding_status_t game_grounding_take(game_grounding_t *gg, uint64_t wait_ms, game_t **out, char *reason,
                                       size_t reason_len)
{
    *out = NULL;
    pthread_mutex_lock(&gg->mu);
    wait_done(gg, wait_ms);
    grounding_status_t st = GROUNDING_RUNNING;
    if (gg->done) {
        if (gg->game) {
            *out = gg->game;
            gg->game = NULL;
            gg->taken = true;
            st = GROUNDING_READY;
        } else {
            st = GROUNDING_FAILED;
            if (reason) snprintf(reason, reason_len, "%s", gg->taken ? "taken" : gg->reason);
        }
    }
    pthread_mutex_unlock(&gg->mu);
    return st;
}

void game_grounding_free(game_grounding_t *gg)
{
    if (!gg) return;
    atomic_store(&gg->cancel, true);
    if (gg->has_thread) pthread_join(gg->thread, NULL);
    game_free(gg->game);
    pthread_cond_destroy(&gg->cv);
    pthread_mutex_destroy(&gg->mu);
    free(gg);
}
