/* tourn_play.c - play a record's games on threads (see tourn_play.h). */
#include "player/cli/tourn_play.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "player/cli/outfile.h"

static void play_one(tplay_t *t, size_t i)
{
    trec_t *r = t->rec;
    trec_game_t *res = &r->games[i];
    uint32_t n = r->m.n_roles;
    size_t p = i / r->m.games;
    trec_setup(r, i, res);
    const search_spec_t *specs[TREC_MAX_ROLES];
    for (uint32_t s = 0; s < n; s++) specs[s] = s == res->a_seat ? t->a_specs[p] : t->b_specs[p];
    seat_totals_t tot[TREC_MAX_ROLES];
    local_game_t lg;
    local_game_play(t->g, specs, res->seed, r->m.max_steps, NULL, false, tot, &lg);
    memcpy(res->goals, lg.goals, sizeof res->goals);
    res->a = tot[res->a_seat];
    res->b_seconds = 0;
    for (uint32_t s = 0; s < n; s++)
        if (s != res->a_seat) res->b_seconds += tot[s].seconds;
    res->steps = lg.steps;
    res->moves_hash = lg.moves_hash;
    if (!lg.ok) {
        res->outcome = TREC_FAILED;
        snprintf(res->error, sizeof res->error, "%s", lg.error);
        return;
    }
    res->outcome = trec_outcome(lg.goals, n, res->a_seat);
}

static void progress_count(progress_t *pr, int outcome)
{
    pr->done++;
    pr->w += outcome == TREC_WIN;
    pr->d += outcome == TREC_DRAW;
    pr->l += outcome == TREC_LOSS;
}

static void *worker(void *arg)
{
    tplay_t *t = arg;
    while (!atomic_load(&t->stop)) {
        unsigned k = atomic_fetch_add(&t->next, 1);
        if (k >= t->n_todo) break;
        uint32_t i = t->todo[k];
        play_one(t, i);
        pthread_mutex_lock(&t->mu);
        t->rec->games[i].done = true;
        /* Appended and synced at once: a kill loses no finished game. */
        if (t->csv) {
            trec_write_row(t->rec, i, t->csv);
            if (out_stream_sync(t->csv, t->cmd, t->csv_path)) {
                t->csv_lost = !trec_csv_reattach(t->rec, t->cmd, t->csv_path, t->csv, false);
            } else {
                atomic_store(&t->stop, true);
                t->csv = NULL; /* reported once; closed by the caller */
            }
        }
        progress_count(&t->pr, t->rec->games[i].outcome);
        if (t->pr.on) progress_draw(&t->pr);
        pthread_mutex_unlock(&t->mu);
    }
    return NULL;
}

void tplay_plan(tplay_t *t)
{
    const trec_t *r = t->rec;
    size_t n = r->n_pts * r->m.games;
    t->todo = xcalloc(n ? n : 1, sizeof *t->todo);
    t->n_todo = 0;
    t->pr.cmd = t->cmd;
    for (size_t i = 0; i < n; i++) {
        if (!trec_in_shard(r, &r->m, i)) continue;
        if (!r->games[i].done) t->todo[t->n_todo++] = (uint32_t)i;
        else progress_count(&t->pr, r->games[i].outcome);
    }
    t->pr.resumed = t->pr.done;
    t->pr.total = r->m.shard_games;
}

bool tplay_run(tplay_t *t, uint32_t jobs)
{
    atomic_store(&t->next, 0);
    atomic_store(&t->stop, false);
    t->csv_lost = false;
    pthread_mutex_init(&t->mu, NULL);
    t->pr.start_ns = t->pr.last_ns = clock_now_ns();
    if (t->pr.on && (t->pr.tty || t->pr.resumed)) progress_draw(&t->pr);
    if (jobs > t->n_todo) jobs = t->n_todo ? t->n_todo : 1;
    pthread_t *tid = xcalloc(jobs, sizeof *tid);
    uint32_t started = 0;
    for (uint32_t j = 1; j < jobs; j++)
        if (pthread_create(&tid[started], NULL, worker, t) == 0) started++;
    worker(t);
    for (uint32_t j = 0; j < started; j++) pthread_join(tid[j], NULL);
    free(tid);
    if (t->csv && t->csv_lost) t->csv_lost = !trec_csv_reattach(t->rec, t->cmd, t->csv_path, t->csv, true); /* a last try */
    pthread_mutex_destroy(&t->mu);
    return !atomic_load(&t->stop);
}

bool tplay_csv_lost(const tplay_t *t, const char *path)
{
    if (!t->csv_lost) return false;
    fprintf(stderr, "ggp %s: %s does not hold this run's games: it was removed or replaced and could not be written "
                    "again (the result lines are their only record)\n", t->cmd, path);
    return true;
}

void tplay_fini(tplay_t *t)
{
    free(t->todo);
    t->todo = NULL;
    t->n_todo = 0;
}

bool tplay_shard_opt(const char *cmd, const char *opt, const char *s, void *out)
{
    char tail;
    unsigned long long i, n;
    if (sscanf(s, "%llu/%llu%c", &i, &n, &tail) != 2 || s[0] < '0' || s[0] > '9' || n < 1 || n > 1000000 || i >= n) {
        fprintf(stderr, "ggp %s: bad value for %s: '%s' (expected I/N with 0 <= I < N <= 1000000)\n", cmd, opt, s);
        return false;
    }
    *(tplay_shard_t *)out = (tplay_shard_t){(uint32_t)i, (uint32_t)n};
    return true;
}

void tplay_meta_of(trec_meta_t *m, const game_t *g, const gdl_loaded_t *l, const char *file)
{
    size_t len = 1;
    for (uint32_t s = 0; s < game_num_roles(g); s++) len += strlen(game_role_name(g, s)) + 1;
    m->roles = xcalloc(1, len);
    for (uint32_t s = 0; s < game_num_roles(g); s++) {
        if (s) strcat(m->roles, ";");
        strcat(m->roles, game_role_name(g, s));
    }
    const char *slash = strrchr(file, '/');
    m->rules = (char *)(slash ? slash + 1 : file);
    m->rules_hash = local_hash_bytes(LOCAL_HASH_START, l->src->text, l->src->len);
    m->engine = (char *)game_engine_name(game_engine(g)); /* borrowed, as rules: trec_init copies */
}
