/* session.c - the match state machine and its two threads (see session.h).
 *
 * Threads: request handlers (any number, from the HTTP server), one state
 * thread and one search thread. Handlers never call the engine: they queue
 * a step (apply a joint move, draw a fallback move, post a search) for the
 * state thread and wait for it until their reply is due, so a reply is on
 * time whatever the rules cost (issue 13 item 5). The state thread is the
 * only one to touch a match's engine state, in arrival order; the search
 * thread runs on snapshots the state thread takes.
 *
 * Locking: one mutex guards the current match, the loading flag, the step
 * queue, the job slots and every result field; one condition variable (on
 * the monotonic clock) says "something finished, was posted or loaded".
 * Matches, steps and jobs are reference-counted under the mutex, so ABORT
 * can release a match at once while the threads still finish with it;
 * whoever drops the last reference frees it, outside the mutex. */
#include "player/proto/session.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/xalloc.h"

/* The search is asked to stop before the reply is due, so that its answer
 * is normally in before the handler gives up on it: SLACK_MIN plus an
 * eighth of the budget, at most SLACK_MAX. On a loaded machine the search
 * thread, which has used its share of the CPU, can wait tens of ms to be
 * scheduled again (bench/deadline.sh). */
#define SEARCH_SLACK_MIN_MS 30
#define SEARCH_SLACK_MAX_MS 250
/* Below this much time left, do not start a search at all. */
#define MIN_SEARCH_MS 5

typedef struct match {
    int refs;
    char *id;
    engine_match_t *em; /* NULL: the rules did not load, answer `busy` */
    uint32_t start_clock, play_clock;
    uint32_t steps;   /* joint moves applied */
    uint64_t last_ns; /* arrival of the last message for it */
    bool played;      /* a PLAY has come */
    uint64_t serial;  /* the session's count of STARTs at its own */
    rng_t rng;        /* fallback moves: the state thread's */
    /* The latest legal move of ours the state thread drew: the reply of a
     * PLAY whose step is not computed at its deadline (a guess then, but
     * on time; issue 13 item 5). An engine text, valid while m lives. */
    const char *guess;
    /* A PLAY sent again (a manager or a proxy retrying a request whose
     * reply it lost) carries the joint move already applied: applied
     * twice it would leave our state a step ahead for the rest of the
     * match. The last joint move applied (the state thread's) and the
     * reply that followed it (under s->mu) let such a PLAY, whose joint
     * move is no longer legal, be answered as before. */
    char **last_moves; /* written by the state thread under s->mu */
    uint32_t n_last_moves;
    char *last_reply;
    bool replied; /* last_reply answers the state after last_moves */
} match_t;

/* A search on the search thread, from a snapshot the state thread took. */
typedef struct job {
    int refs;
    match_t *m;
    void *snap;
    deadline_t deadline;
    atomic_bool stop;
    bool done;
    bool ponder;      /* nobody waits for it; the next request stops it */
    const char *move; /* engine's text, valid while m lives */
    char info[160];
} job_t;

/* A request's work on the match state, done by the state thread in arrival
 * order: apply a joint move, note the goal, draw a fallback move, then post
 * a search. Request handlers never call the engine themselves, so a reply
 * is sent at its deadline however long the rules take to apply a move or
 * to list the legal ones (issue 13 item 5: 2.56 M moves per role). */
typedef struct step {
    int refs; /* the waiting handler (if any) and the state thread */
    struct step *next;
    match_t *m;
    char **moves; /* the joint move to apply first, or NULL */
    uint32_t n_moves;
    bool want_goal, want_fallback;
    bool search, ponder; /* then search (until search_ns, or pondering) */
    uint64_t search_ns;
    bool cancelled; /* a newer request came: apply, but post no search */
    /* results, under s->mu */
    bool done, bad, terminal;
    bool retry; /* the joint move is the last one applied, and illegal now: not applied again */
    int goal;
    char err[300];
    const char *fallback;
    job_t *job; /* the search it posted (a reference) */
} step_t;

struct session {
    session_config_t cfg;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    match_t *cur;
    bool loading;
    /* loader threads not yet returned: one may still log after it has
     * installed its match and cleared `loading` */
    int loaders;
    int reapers; /* match_reap threads not yet done */
    int stopped_loads; /* loaders whose match was stopped, still loading */
    char *loading_id;
    uint32_t loading_play_clock;
    /* The loader of the match whose rules are loading (while `loading`).
     * A STOP or ABORT of that match is answered at once: the loader is
     * told to drop the match instead of installing it and is forgotten
     * here, so that the next match's START is not refused while the
     * rules still compile (it held the player `busy` until the match
     * counted as abandoned, minutes, and then until the load ended). */
    struct loader *loader;
    /* The guess while nothing is known: "noop" in the START's own
     * spelling (Dresden upper-cases whole messages, §5.2). */
    char noop[16];
    job_t *pending, *running;
    step_t *queue, **queue_tail, *stepping;
    /* Joint moves of PLAYs that came while the match's rules were still
     * loading (answered with a guess on time): applied first once it is
     * installed, so the state is right when the game can be played. */
    step_t *early, **early_tail;
    bool quit;
    bool closing; /* session_close: answer at once, start no new work */
    /* cancel_jobs calls: a request that saw it change while it waited was
     * overtaken by a newer one (a PLAY, STOP, ABORT), whose own step or
     * release must not be followed by this one's ponder */
    uint64_t cancels;
    pthread_t worker, stater;
    uint64_t n_matches;
    pthread_mutex_t log_mu;
};

/* ---- reference counting (call with s->mu held) ---- */

static void match_destroy(const match_engine_t *e, match_t *m)
{
    if (!m) return;
    if (m->em) e->free(m->em);
    free(m->id);
    for (uint32_t i = 0; i < m->n_last_moves; i++) free(m->last_moves[i]);
    free(m->last_moves);
    free(m->last_reply);
    free(m);
    /* A match's game and tree can be gigabytes in many small blocks; hand
     * the free pages back to the system now, not at the next match (issue
     * 13: 0.9 GB still held after ABORT). */
    malloc_trim(0);
}

/* A released match destroyed on a thread of its own (unlocked), so that
 * no reply waits for it: a tree of gigabytes, and the join of a grounding
 * thread that may run to the end of its budget, delayed the STOP or ABORT
 * reply, and the next START's when it released an abandoned match. */
/* fn(arg) on a detached thread, or here when no thread is to be had. */
static void run_detached(void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    bool started = pthread_create(&th, &attr, fn, arg) == 0;
    pthread_attr_destroy(&attr);
    if (!started) fn(arg);
}

typedef struct reap {
    session_t *s;
    match_t *m;
} reap_t;

static void *reap_main(void *arg)
{
    reap_t *r = arg;
    session_t *s = r->s;
    match_destroy(s->cfg.engine, r->m);
    free(r);
    pthread_mutex_lock(&s->mu);
    s->reapers--;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void match_reap(session_t *s, match_t *m)
{
    if (!m) return;
    reap_t *r = xmalloc(sizeof *r);
    *r = (reap_t){s, m};
    pthread_mutex_lock(&s->mu);
    s->reapers++;
    pthread_mutex_unlock(&s->mu);
    run_detached(reap_main, r);
}

/* Returns the match if this was the last reference (free it unlocked). */
static match_t *match_unref(match_t *m)
{
    return --m->refs == 0 ? m : NULL;
}

static match_t *job_unref(const match_engine_t *e, job_t *j)
{
    if (--j->refs > 0) return NULL;
    match_t *dead = NULL;
    if (j->snap) e->snapshot_free(j->m->em, j->snap);
    dead = match_unref(j->m);
    free(j);
    return dead;
}

static match_t *step_unref(const match_engine_t *e, step_t *st)
{
    if (--st->refs > 0) return NULL;
    match_t *dead = st->job ? job_unref(e, st->job) : NULL;
    match_t *d2 = st->m ? match_unref(st->m) : NULL;
    for (uint32_t i = 0; i < st->n_moves; i++) free(st->moves[i]);
    free(st->moves);
    free(st);
    return dead ? dead : d2;
}

/* Ask whatever search is running or queued to stop; drop a queued one. */
static match_t *cancel_search(session_t *s)
{
    match_t *dead = NULL;
    if (s->running) atomic_store(&s->running->stop, true);
    if (s->pending) {
        job_t *j = s->pending;
        s->pending = NULL;
        atomic_store(&j->stop, true);
        j->done = true; /* never ran: its waiter must not wait for it */
        pthread_cond_broadcast(&s->cv);
        dead = job_unref(s->cfg.engine, j);
    }
    return dead;
}

/* A newer request makes every search stale (§5.4): stop them, let the
 * queued steps apply their moves but post no search, drop queued ponder
 * steps (they only search). Returns a match to destroy unlocked. */
static match_t *cancel_jobs(session_t *s)
{
    match_t *dead = cancel_search(s);
    s->cancels++;
    if (s->stepping) s->stepping->cancelled = true;
    for (step_t **p = &s->queue; *p;) {
        step_t *st = *p;
        st->cancelled = true;
        if (st->moves || st->refs > 1) {
            p = &st->next;
            continue;
        }
        *p = st->next;
        match_t *d = step_unref(s->cfg.engine, st);
        if (d) dead = d;
    }
    s->queue_tail = &s->queue;
    while (*s->queue_tail) s->queue_tail = &(*s->queue_tail)->next;
    return dead;
}

/* Queue a step on m (s->mu held); refs: 2 when the caller waits for it. */
static step_t *post_step(session_t *s, match_t *m, int refs)
{
    step_t *st = xcalloc(1, sizeof *st);
    st->refs = refs;
    st->m = m;
    m->refs++;
    *s->queue_tail = st;
    s->queue_tail = &st->next;
    pthread_cond_broadcast(&s->cv);
    return st;
}

/* ---- the state thread and the search thread ---- */

/* Post a search of snap (s->mu held); the step keeps a reference. */
static match_t *post_search(session_t *s, step_t *st, void *snap)
{
    job_t *j = xcalloc(1, sizeof *j);
    j->refs = 2; /* the step and the search thread */
    j->m = st->m;
    st->m->refs++;
    j->snap = snap;
    j->ponder = st->ponder;
    uint64_t at = st->search_ns;
    if (st->ponder) at = clock_now_ns() + (2ULL * st->m->play_clock * 1000ULL + 10000ULL) * 1000000ULL;
    j->deadline = deadline_at_ns(at);
    atomic_init(&j->stop, false);
    match_t *dead = cancel_search(s);
    s->pending = j;
    st->job = j;
    pthread_cond_broadcast(&s->cv);
    return dead;
}

/* Whether two joint moves are the same texts */
static bool same_moves(char *const *a, uint32_t na, char *const *b, uint32_t nb)
{
    if (!b || na != nb) return false;
    for (uint32_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i])) return false;
    return true;
}

/* One step, entered and left with s->mu held. */
static match_t *run_step(session_t *s, step_t *st)
{
    const match_engine_t *e = s->cfg.engine;
    match_t *m = st->m;
    pthread_mutex_unlock(&s->mu);
    bool ok = true, retry = false;
    char err[300] = "";
    if (st->moves) ok = e->apply(m->em, st->moves, st->n_moves, err, sizeof err);
    if (st->moves && !ok) retry = same_moves(st->moves, st->n_moves, m->last_moves, m->n_last_moves);
    char **copy = NULL;
    if (st->moves && ok) {
        copy = xcalloc(st->n_moves ? st->n_moves : 1, sizeof *copy);
        for (uint32_t i = 0; i < st->n_moves; i++) copy[i] = xstrdup(st->moves[i]);
    }
    bool terminal = e->is_terminal(m->em);
    int goal = st->want_goal ? e->goal(m->em) : 0;
    const char *fb = NULL;
    if (ok && !terminal && st->want_fallback) fb = e->random_move(m->em, &m->rng);
    pthread_mutex_lock(&s->mu);
    if (st->moves && ok) {
        m->steps++;
        for (uint32_t i = 0; i < m->n_last_moves; i++) free(m->last_moves[i]);
        free(m->last_moves);
        m->last_moves = copy;
        m->n_last_moves = st->n_moves;
        m->replied = false;
    }
    st->bad = !ok && !retry;
    st->retry = retry;
    memcpy(st->err, err, sizeof err);
    st->terminal = terminal;
    st->goal = goal;
    st->fallback = fb;
    if (fb) m->guess = fb;
    pthread_cond_broadcast(&s->cv);
    bool time_left = st->ponder || clock_now_ns() + MIN_SEARCH_MS * 1000000ULL < st->search_ns;
    if (!st->search || !ok || terminal || st->cancelled || !time_left) return NULL;
    pthread_mutex_unlock(&s->mu);
    void *snap = e->snapshot(m->em);
    pthread_mutex_lock(&s->mu);
    if (st->cancelled) {
        e->snapshot_free(m->em, snap);
        return NULL;
    }
    return post_search(s, st, snap);
}

static void *state_main(void *arg)
{
    session_t *s = arg;
    const match_engine_t *e = s->cfg.engine;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->queue && !s->quit) pthread_cond_wait(&s->cv, &s->mu);
        if (s->quit) break;
        step_t *st = s->queue;
        s->queue = st->next;
        if (!s->queue) s->queue_tail = &s->queue;
        s->stepping = st;
        /* A released match's steps (ABORT, STOP, abandoned) are dropped
         * unrun: with slow rules each can take seconds, and the next
         * match's steps wait behind them. */
        match_t *dead = s->closing || st->m != s->cur ? NULL : run_step(s, st);
        st->done = true;
        s->stepping = NULL;
        pthread_cond_broadcast(&s->cv);
        match_t *d2 = step_unref(e, st);
        if (dead || d2) {
            pthread_mutex_unlock(&s->mu);
            match_reap(s, dead);
            match_reap(s, d2);
            pthread_mutex_lock(&s->mu);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void *worker_main(void *arg)
{
    session_t *s = arg;
    const match_engine_t *e = s->cfg.engine;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->pending && !s->quit) pthread_cond_wait(&s->cv, &s->mu);
        if (s->quit) break;
        job_t *j = s->pending;
        s->pending = NULL;
        s->running = j;
        pthread_mutex_unlock(&s->mu);
        const char *mv = NULL;
        char info[sizeof j->info] = "";
        uint64_t t0 = clock_now_ns();
        if (!atomic_load(&j->stop)) mv = e->choose(j->m->em, j->snap, j->deadline, &j->stop, info, sizeof info);
        /* Nobody replies with a ponder's result: log what it did (the
         * match stays alive while the job holds it). */
        if (j->ponder && *info) session_log(s, j->m->id, "ponder", 0, "", t0, info);
        pthread_mutex_lock(&s->mu);
        j->move = mv;
        memcpy(j->info, info, sizeof info);
        j->done = true;
        s->running = NULL;
        pthread_cond_broadcast(&s->cv);
        match_t *dead = job_unref(e, j);
        if (dead) {
            pthread_mutex_unlock(&s->mu);
            match_reap(s, dead);
            pthread_mutex_lock(&s->mu);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* The step is through and its search too (or it posted none). */
static bool step_finished(const step_t *st) { return st->done && (!st->job || st->job->done); }

/* Wait (s->mu held) for the condition variable until the monotonic time
 * at_ns; false when it has passed or the session quits. */
static bool wait_cv(session_t *s, uint64_t at_ns)
{
    if (s->quit || s->closing || clock_now_ns() >= at_ns) return false;
    struct timespec ts = {.tv_sec = (time_t)(at_ns / 1000000000ULL), .tv_nsec = (long)(at_ns % 1000000000ULL)};
    return pthread_cond_timedwait(&s->cv, &s->mu, &ts) != ETIMEDOUT;
}

/* Wait (s->mu held) until the step is finished or the monotonic time
 * at_ns; then stop its search if it still runs. */
static void wait_step(session_t *s, step_t *st, uint64_t at_ns)
{
    while (!step_finished(st) && wait_cv(s, at_ns)) {
    }
    if (st->job && !st->job->done) atomic_store(&st->job->stop, true);
}

/* Wait (s->mu held) until *flag or the monotonic time at_ns. */
static void wait_until(session_t *s, const bool *flag, uint64_t at_ns)
{
    while (!*flag && wait_cv(s, at_ns)) {
    }
}

/* After a reply (s->mu held): search on from the match's current state
 * until the next request stops it, or until the match would be deemed
 * abandoned. cancels: s->cancels when the request began to wait; a newer
 * request since (an ABORT that released m, a PLAY whose step follows)
 * means no ponder: it would search a released match for minutes, or
 * cancel the newer PLAY's search behind its back. */
static void post_ponder(session_t *s, match_t *m, uint64_t cancels)
{
    if (!s->cfg.ponder || !m->em || s->closing || s->cur != m || s->cancels != cancels) return;
    step_t *st = post_step(s, m, 1);
    st->search = st->ponder = true;
}

/* ---- logging ---- */

static void clean_copy(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src && *src && i + 1 < cap; src++) {
        unsigned char c = (unsigned char)*src;
        dst[i++] = (c < 0x20 || c == '"' || c >= 0x7f) ? '?' : (char)c;
    }
    dst[i] = '\0';
}

void session_log(session_t *s, const char *match, const char *kind, int status, const char *reply,
                 uint64_t arrival_ns, const char *note)
{
    if (!s->cfg.log) return;
    uint64_t ms = (clock_now_ns() - arrival_ns) / 1000000ULL;
    int64_t now = clock_epoch_ms();
    time_t secs = (time_t)(now / 1000);
    struct tm tm;
    localtime_r(&secs, &tm);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    char m[128], r[256], n[256];
    clean_copy(m, sizeof m, match && *match ? match : "-");
    clean_copy(r, sizeof r, reply);
    clean_copy(n, sizeof n, note);
    pthread_mutex_lock(&s->log_mu);
    fprintf(s->cfg.log, "%s.%03d match=%s kind=%s status=%d ms=%llu reply=\"%s\"%s%s%s\n", when, (int)(now % 1000), m,
            kind, status, (unsigned long long)ms, r, *n ? " note=\"" : "", n, *n ? "\"" : "");
    fflush(s->cfg.log);
    pthread_mutex_unlock(&s->log_mu);
}

/* ---- session ---- */

session_t *session_new(const session_config_t *cfg)
{
    session_t *s = xcalloc(1, sizeof *s);
    s->cfg = *cfg;
    s->queue_tail = &s->queue;
    s->early_tail = &s->early;
    memcpy(s->noop, "noop", 5);
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->log_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&s->worker, NULL, worker_main, s) != 0 || pthread_create(&s->stater, NULL, state_main, s) != 0) {
        fprintf(stderr, "ggp: cannot start the session's threads\n");
        exit(1);
    }
    return s;
}

void session_close(session_t *s)
{
    pthread_mutex_lock(&s->mu);
    s->closing = true;
    match_t *dead = cancel_jobs(s);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    match_destroy(s->cfg.engine, dead);
}

bool session_free_within(session_t *s, uint64_t wait_ms)
{
    if (!s) return true;
    const match_engine_t *e = s->cfg.engine;
    uint64_t until = wait_ms == UINT64_MAX ? UINT64_MAX : clock_now_ns() + wait_ms * 1000000ULL;
    pthread_mutex_lock(&s->mu);
    /* A START's loader still running uses the session, and so does the
     * step being applied: wait for them (the compile budgets bound them),
     * or give up at the bound and leave the session to the process's
     * exit. */
    while (s->loading || s->loaders || s->stepping || s->reapers) {
        if (until == UINT64_MAX) {
            pthread_cond_wait(&s->cv, &s->mu);
            continue;
        }
        struct timespec ts = {.tv_sec = (time_t)(until / 1000000000ULL), .tv_nsec = (long)(until % 1000000000ULL)};
        if (clock_now_ns() >= until || pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT) {
            if (s->loading || s->loaders || s->stepping || s->reapers) {
                pthread_mutex_unlock(&s->mu);
                return false;
            }
        }
    }
    match_t *dead1 = cancel_jobs(s);
    s->quit = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->worker, NULL);
    pthread_join(s->stater, NULL);
    /* the two threads may have handed a last match to a reaper */
    pthread_mutex_lock(&s->mu);
    while (s->reapers) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    match_destroy(e, dead1);
    while (s->queue) {
        step_t *st = s->queue;
        s->queue = st->next;
        st->refs = 1;
        match_destroy(e, step_unref(e, st));
    }
    while (s->early) {
        step_t *st = s->early;
        s->early = st->next;
        st->refs = 1;
        step_unref(e, st);
    }
    match_t *dead2 = s->cur ? match_unref(s->cur) : NULL;
    match_destroy(e, dead2);
    free(s->loading_id);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->log_mu);
    free(s);
    return true;
}

void session_free(session_t *s) { session_free_within(s, UINT64_MAX); }

/* A match whose manager has gone silent for long (s->mu held): no message
 * for twice the play clock plus 10 s, counted after the start clock while
 * no PLAY has come (the other players may use all of theirs). */
static bool match_abandoned(const match_t *m, uint64_t now)
{
    uint64_t limit_ms = 2ULL * m->play_clock * 1000ULL + 10000ULL;
    if (!m->played) limit_ms += (uint64_t)m->start_clock * 1000ULL;
    return now > m->last_ns && (now - m->last_ns) / 1000000ULL > limit_ms;
}

/* Reply deadline from a clock: arrival + clock - margin (§5.3). */
static uint64_t reply_at(const session_t *s, uint64_t arrival_ns, uint32_t clock_s)
{
    uint64_t budget_ms = (uint64_t)clock_s * 1000ULL;
    budget_ms = budget_ms > s->cfg.margin_ms ? budget_ms - s->cfg.margin_ms : 0;
    return arrival_ns + budget_ms * 1000000ULL;
}

static uint64_t search_at(uint64_t arrival_ns, uint64_t reply_ns)
{
    uint64_t budget = reply_ns > arrival_ns ? reply_ns - arrival_ns : 0;
    uint64_t slack = SEARCH_SLACK_MIN_MS * 1000000ULL + budget / 8;
    if (slack > SEARCH_SLACK_MAX_MS * 1000000ULL) slack = SEARCH_SLACK_MAX_MS * 1000000ULL;
    return reply_ns > arrival_ns + slack ? reply_ns - slack : arrival_ns;
}

typedef struct answer {
    int status;
    char *text;
    char note[200];
    const char *match; /* for the log; may be NULL */
} answer_t;

static void set_answer(answer_t *a, int status, const char *text)
{
    a->status = status;
    free(a->text);
    a->text = xstrdup(text);
}

static void set_answerf(answer_t *a, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_answerf(answer_t *a, int status, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    set_answer(a, status, buf);
}

/* The current match if its id is exactly id (s->mu held). A PLAY that
 * races the START still loading its rules waits for the load, up to
 * until_ns. */
static match_t *find_match(session_t *s, const char *id, uint64_t until_ns)
{
    while (s->loading && s->loading_id && !strcmp(s->loading_id, id) && wait_cv(s, until_ns)) {
    }
    if (s->cur && !strcmp(s->cur->id, id)) return s->cur;
    return NULL;
}

static void handle_info(session_t *s, answer_t *a, uint64_t now)
{
    pthread_mutex_lock(&s->mu);
    bool busy = s->loading || (s->cur && !match_abandoned(s->cur, now));
    pthread_mutex_unlock(&s->mu);
    set_answerf(a, 200, "((name %s) (status %s))", s->cfg.name, busy ? "busy" : "available");
}

/* A START's rules loading on a thread of its own, so that START replies
 * before its clock whatever the rules cost to compile (issue 13: a `legal`
 * of 2.56 M moves per role took 12 s with a start clock of 5). The handler
 * waits for it until the reply is due; past that it replies `ready` and the
 * loader installs the match itself when done (a PLAY meanwhile waits for
 * it, find_match). Two references, the handler's and the thread's, under
 * s->mu; the last one frees it. */
typedef struct loader {
    int refs;
    session_t *s;
    ggp_msg_t msg; /* the START, moved out of the request */
    uint64_t arrival_ns, seed;
    bool done;   /* the load is over: m installed in s->cur, or dropped */
    bool orphan; /* the handler has replied without it */
    bool ended;  /* its match was stopped or aborted while it loaded */
    uint64_t serial; /* its START's number: the match it installs has it */
    char err[300];
} loader_t;

static void loader_unref(loader_t *ld)
{
    if (--ld->refs > 0) return;
    ggp_msg_free(&ld->msg);
    free(ld);
}

static void *loader_main(void *arg)
{
    loader_t *ld = arg;
    session_t *s = ld->s;
    const match_engine_t *e = s->cfg.engine;
    engine_match_t *em = e->load(e->cfg, &ld->msg, s->cfg.log, ld->err, sizeof ld->err);
    match_t *m = xcalloc(1, sizeof *m);
    m->refs = 1;
    m->id = xstrdup(ld->msg.match_id);
    m->em = em;
    m->start_clock = ld->msg.start_clock;
    m->play_clock = ld->msg.play_clock;
    /* Silence counts from the install, not the START: the PLAYs answered
     * while the rules loaded told us nothing of the match, and a load
     * longer than the abandon limit released the match as it came. */
    m->last_ns = clock_now_ns();
    m->serial = ld->serial;
    rng_seed(&m->rng, ld->seed);
    char note[360] = "";
    pthread_mutex_lock(&s->mu);
    bool ended = ld->ended;
    match_t *dropped = NULL;
    if (ended) {
        /* handle_end has cleared `loading` and taken the early moves; a
         * newer START may be loading already: touch none of it */
        dropped = m;
        m = NULL;
        s->stopped_loads--;
        if (em) snprintf(ld->err, sizeof ld->err, "the match was stopped while its rules loaded");
    } else {
        s->cur = m;
        s->loading = false;
        s->loader = NULL;
        while (s->early) { /* moves played while we loaded, in order (no game: dropped) */
            step_t *st = s->early;
            s->early = st->next;
            st->next = NULL;
            if (!em) {
                step_unref(e, st);
                continue;
            }
            st->m = m;
            m->refs++;
            m->played = true;
            *s->queue_tail = st;
            s->queue_tail = &st->next;
        }
        s->early_tail = &s->early;
    }
    ld->done = true;
    /* Nobody waits for this load: say how it ended, and search on from
     * the initial state until the first PLAY. */
    if (ld->orphan) {
        snprintf(note, sizeof note, "loaded after the reply: %.300s", em && m ? "ready" : ld->err);
        if (m) post_ponder(s, m, s->cancels);
    }
    pthread_cond_broadcast(&s->cv);
    bool orphan = ld->orphan;
    uint64_t arrival_ns = ld->arrival_ns;
    /* m may be released (ABORT) as soon as the lock is dropped */
    char *id = orphan ? xstrdup(ld->msg.match_id) : NULL;
    loader_unref(ld);
    pthread_mutex_unlock(&s->mu);
    match_reap(s, dropped);
    if (orphan) session_log(s, id, "load", 0, "", arrival_ns, note);
    free(id);
    pthread_mutex_lock(&s->mu);
    s->loaders--;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Release the current match (s->mu held); returns it if it must be
 * destroyed (unlocked). */
static match_t *release_current(session_t *s)
{
    match_t *m = s->cur;
    s->cur = NULL;
    return m ? match_unref(m) : NULL;
}

static void handle_start(session_t *s, ggp_msg_t *msg, uint64_t arrival_ns, answer_t *a)
{
    const match_engine_t *e = s->cfg.engine;
    match_t *dead = NULL, *dead2 = NULL;
    pthread_mutex_lock(&s->mu);
    /* A match whose rules did not load holds the player only until another
     * match starts: it answers its own PLAYs `busy` but plays nothing. */
    bool failed = s->cur && !s->cur->em && strcmp(s->cur->id, msg->match_id);
    if (s->cur && !s->loading && (failed || match_abandoned(s->cur, arrival_ns))) {
        snprintf(a->note, sizeof a->note, "released %s match %.100s", failed ? "unloaded" : "abandoned", s->cur->id);
        dead = cancel_jobs(s);
        dead2 = release_current(s);
    }
    /* Loads of stopped matches run on to their budgets (they cannot be
     * cancelled): one may overlap the next match's, no more, so that a
     * client sending START and ABORT in turn cannot pile them up. */
    bool piled = s->stopped_loads >= 2;
    if (s->loading || s->cur || piled) {
        bool same = s->cur && !strcmp(s->cur->id, msg->match_id) && s->cur->em;
        if (s->cur && !strcmp(s->cur->id, msg->match_id)) s->cur->last_ns = arrival_ns;
        const char *why = s->cur || s->loading ? "already in a match" : "still loading stopped matches' rules";
        pthread_mutex_unlock(&s->mu);
        match_reap(s, dead);
        match_reap(s, dead2);
        /* A repeated START of the match we are playing is harmless. */
        set_answer(a, 200, same ? "ready" : "busy");
        if (!same) snprintf(a->note, sizeof a->note, "%s", why);
        return;
    }
    s->loading = true;
    s->loaders++;
    free(s->loading_id);
    s->loading_id = xstrdup(msg->match_id);
    s->loading_play_clock = msg->play_clock;
    sym_t noop = msg->syms ? symtab_lookup(msg->syms, "noop", 4) : SYM_NONE;
    snprintf(s->noop, sizeof s->noop, "%s", noop ? symtab_spelling(msg->syms, noop) : "noop");
    loader_t *ld = xcalloc(1, sizeof *ld);
    ld->refs = 2;
    ld->s = s;
    ld->arrival_ns = arrival_ns;
    ld->serial = ++s->n_matches;
    ld->seed = rng_derive(s->cfg.seed, ld->serial);
    s->loader = ld;
    ld->msg = *msg;
    *msg = (ggp_msg_t){0};
    msg = &ld->msg;
    pthread_mutex_unlock(&s->mu);
    match_reap(s, dead);
    match_reap(s, dead2);

    uint64_t reply_ns = reply_at(s, arrival_ns, msg->start_clock);
    run_detached(loader_main, ld); /* (no thread to be had: loads here, as before) */
    pthread_mutex_lock(&s->mu);
    wait_until(s, &ld->done, reply_ns);
    if (!ld->done) {
        /* The rules are still compiling: reply now, on time; the loader
         * installs the match when it is done. */
        ld->orphan = true;
        loader_unref(ld);
        pthread_mutex_unlock(&s->mu);
        snprintf(a->note, sizeof a->note, "rules still loading at the reply");
        set_answer(a, 200, "ready");
        return;
    }
    /* the handler's own match: an ABORT may have released it meanwhile,
     * and a newer START installed another */
    match_t *m = s->cur && s->cur->serial == ld->serial ? s->cur : NULL;
    if (!m || !m->em) {
        snprintf(a->note, sizeof a->note, "rules not loaded: %.160s", ld->err);
        loader_unref(ld);
        pthread_mutex_unlock(&s->mu);
        set_answer(a, 200, "busy");
        return;
    }
    loader_unref(ld);
    /* Metagaming: search from the initial state with the start clock; the
     * searcher keeps what it learns for the first move. */
    step_t *st = post_step(s, m, 2);
    st->search = true;
    st->search_ns = search_at(arrival_ns, reply_ns);
    uint64_t cancels = s->cancels;
    wait_step(s, st, reply_ns);
    if (st->job && st->job->done) snprintf(a->note, sizeof a->note, "metagame: %s", st->job->info);
    if (!st->cancelled) post_ponder(s, m, cancels);
    dead = step_unref(e, st);
    pthread_mutex_unlock(&s->mu);
    match_reap(s, dead);
    set_answer(a, 200, "ready");
}

/* A copy of the joint move of a PLAY or STOP, for a step. */
static void step_take_moves(step_t *st, const ggp_msg_t *msg)
{
    st->n_moves = msg->n_moves;
    st->moves = xcalloc(msg->n_moves ? msg->n_moves : 1, sizeof *st->moves);
    for (uint32_t i = 0; i < msg->n_moves; i++) st->moves[i] = xstrdup(msg->moves[i]);
}

static void handle_play(session_t *s, ggp_msg_t *msg, uint64_t arrival_ns, answer_t *a)
{
    const match_engine_t *e = s->cfg.engine;
    pthread_mutex_lock(&s->mu);
    uint64_t wait_ns = reply_at(s, arrival_ns, s->loading ? s->loading_play_clock : 0);
    match_t *m = find_match(s, msg->match_id, wait_ns);
    if (!m && s->loading && s->loading_id && !strcmp(s->loading_id, msg->match_id)) {
        /* START replied on time while the rules still compile, and they
         * still do: keep this joint move for when they are in, and answer
         * on time with the likeliest legal move knowing nothing (noop is
         * the move of whoever is not to play in most turn-taking games). */
        if (!msg->moves_nil) {
            step_t *st = xcalloc(1, sizeof *st);
            st->refs = 1;
            step_take_moves(st, msg);
            *s->early_tail = st;
            s->early_tail = &st->next;
        }
        set_answer(a, 200, s->noop); /* under the lock: the next START writes it */
        pthread_mutex_unlock(&s->mu);
        snprintf(a->note, sizeof a->note, "rules still loading: a guess");
        return;
    }
    if (!m) {
        pthread_mutex_unlock(&s->mu);
        set_answerf(a, 404, "unknown match id '%.100s'", msg->match_id);
        return;
    }
    m->last_ns = arrival_ns;
    m->played = true;
    if (!m->em) {
        pthread_mutex_unlock(&s->mu);
        set_answer(a, 200, "busy");
        snprintf(a->note, sizeof a->note, "no game: its rules did not load");
        return;
    }
    /* A newer PLAY makes any search still running stale (§5.4), unless it
     * may be the last one sent again (its step tells): the search then
     * still answers the first, whose reply the second waits for. */
    bool again = !msg->moves_nil && same_moves(msg->moves, msg->n_moves, m->last_moves, m->n_last_moves);
    match_t *dead = again ? NULL : cancel_jobs(s);
    uint64_t reply_ns = reply_at(s, arrival_ns, m->play_clock), cancels = s->cancels;
    step_t *st = post_step(s, m, 2);
    if (!msg->moves_nil) step_take_moves(st, msg);
    st->want_fallback = st->search = true;
    st->search_ns = search_at(arrival_ns, reply_ns);
    wait_step(s, st, reply_ns);
    uint32_t n = m->steps;
    if (st->done && st->retry) {
        /* the first may still be searching: its reply, when it is sent */
        while (!m->replied && wait_cv(s, reply_ns)) {
        }
        set_answer(a, 200, m->replied ? m->last_reply : m->guess ? m->guess : s->noop);
        snprintf(a->note, sizeof a->note, "step %u: the joint move applied last, sent again: %s", n,
                 m->replied ? "the same reply" : "the first not answered yet, a legal move");
    } else if (st->done && st->bad) {
        set_answerf(a, 400, "bad joint move: %s", st->err);
    } else if (st->done && !st->fallback) {
        set_answer(a, 200, "busy");
        snprintf(a->note, sizeof a->note, "no legal move for our role (terminal state or a defect of the rules)");
    } else if (st->job && st->job->done && st->job->move) {
        set_answer(a, 200, st->job->move);
        snprintf(a->note, sizeof a->note, "step %u: %s", n, st->job->info);
    } else if (st->fallback) {
        set_answer(a, 200, st->fallback);
        snprintf(a->note, sizeof a->note, "step %u: %s, random legal move", n,
                 !st->job              ? "no time to search"
                 : st->job->done ? "search found no move"
                                       : "search missed the deadline");
    } else if (m->guess) {
        /* The rules have not even listed our moves yet: an answer on time
         * that was legal a step ago beats a certain timeout. */
        set_answer(a, 200, m->guess);
        snprintf(a->note, sizeof a->note, "step %u: state not computed in time, the last legal move known", n);
    } else {
        set_answer(a, 200, s->noop);
        snprintf(a->note, sizeof a->note, "step %u: state not computed in time and no legal move known: a guess", n);
    }
    if (a->status == 200 && !st->retry && !(st->done && !st->fallback) && n == m->steps) { /* what a retry gets */
        free(m->last_reply);
        m->last_reply = xstrdup(a->text);
        m->replied = true;
        pthread_cond_broadcast(&s->cv);
    }
    if (!st->cancelled) post_ponder(s, m, cancels);
    match_t *dead2 = step_unref(e, st);
    pthread_mutex_unlock(&s->mu);
    match_reap(s, dead);
    match_reap(s, dead2);
}

/* STOP and ABORT: release the match (STOP first applies the last move). */
static void handle_end(session_t *s, ggp_msg_t *msg, uint64_t arrival_ns, answer_t *a)
{
    const match_engine_t *e = s->cfg.engine;
    pthread_mutex_lock(&s->mu);
    /* A STOP or ABORT of a match whose START replied while its rules were
     * still loading: nothing was played that counts, so the match ends
     * here; the loader drops it when the rules are in. */
    if (s->loading && s->loading_id && !strcmp(s->loading_id, msg->match_id)) {
        s->loader->ended = true;
        s->loader = NULL;
        s->stopped_loads++;
        s->loading = false;
        free(s->loading_id);
        s->loading_id = NULL;
        step_t *early = s->early; /* the moves kept for the load: dropped */
        s->early = NULL;
        s->early_tail = &s->early;
        match_t *dead = cancel_jobs(s);
        pthread_cond_broadcast(&s->cv); /* a PLAY waiting for the load: 404 now */
        pthread_mutex_unlock(&s->mu);
        while (early) {
            step_t *st = early;
            early = st->next;
            step_unref(e, st);
        }
        match_reap(s, dead);
        snprintf(a->note, sizeof a->note, "ended while its rules were loading");
        set_answer(a, 200, "done");
        return;
    }
    match_t *m = find_match(s, msg->match_id, 0);
    if (!m) {
        pthread_mutex_unlock(&s->mu);
        set_answerf(a, 404, "unknown match id '%.100s'", msg->match_id);
        return;
    }
    match_t *dead = cancel_jobs(s), *dead2 = NULL;
    if (m->em && msg->kind == MSG_STOP && !msg->moves_nil) {
        step_t *st = post_step(s, m, 2);
        step_take_moves(st, msg);
        st->want_goal = true;
        wait_step(s, st, reply_at(s, arrival_ns, m->play_clock));
        if (!st->done)
            snprintf(a->note, sizeof a->note, "the last joint move was still being applied at the reply");
        else if (st->bad)
            snprintf(a->note, sizeof a->note, "bad last joint move: %.160s", st->err);
        else if (st->retry)
            snprintf(a->note, sizeof a->note, "the joint move applied last, sent again, after %u steps", m->steps);
        else if (st->terminal)
            snprintf(a->note, sizeof a->note, "final state after %u steps, our goal %d", m->steps, st->goal);
        else
            snprintf(a->note, sizeof a->note, "stopped after %u steps in a non-terminal state", m->steps);
        dead2 = step_unref(e, st);
    } else if (msg->kind == MSG_ABORT) {
        snprintf(a->note, sizeof a->note, "aborted after %u steps", m->steps);
    }
    match_t *dead3 = s->cur == m ? release_current(s) : NULL;
    pthread_mutex_unlock(&s->mu);
    match_reap(s, dead);
    match_reap(s, dead2);
    match_reap(s, dead3);
    set_answer(a, 200, "done");
}

int session_handle(session_t *s, const char *body, size_t len, uint64_t arrival_ns, char **reply)
{
    answer_t a = {0};
    ggp_msg_t msg;
    char err[300];
    const char *kind = "?";
    char *match = NULL;
    if (!ggp_msg_parse(body, len, &msg, err, sizeof err)) {
        set_answer(&a, 400, err);
    } else {
        kind = ggp_msg_kind_name(msg.kind);
        if (msg.match_id) match = xstrdup(msg.match_id);
        switch (msg.kind) {
        case MSG_INFO:
            handle_info(s, &a, arrival_ns);
            break;
        case MSG_PING:
        case MSG_PREVIEW:
            set_answer(&a, 200, "ready");
            break;
        case MSG_START:
            handle_start(s, &msg, arrival_ns, &a);
            break;
        case MSG_PLAY:
            handle_play(s, &msg, arrival_ns, &a);
            break;
        case MSG_STOP:
        case MSG_ABORT:
            handle_end(s, &msg, arrival_ns, &a);
            break;
        }
        ggp_msg_free(&msg);
    }
    session_log(s, match, kind, a.status, a.text, arrival_ns, a.note);
    free(match);
    *reply = a.text;
    return a.status;
}
