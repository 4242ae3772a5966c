/* standin.h - a stand-in match engine for the protocol tests (engine.h),
 * so that the session and the HTTP server are tested with a game whose
 * speed the test controls. Test-only; `ggp serve` uses engine_gdl.c.
 *
 * The "game": the rules list holds (role NAME) facts and optionally
 * (limit N) (default 3) and (broken), which makes loading fail. The state
 * is a counter; every role may play noop, (inc 1) or (inc 2) (any case);
 * the joint move adds the increments; the game ends when the counter
 * reaches the limit. With (alternate) the roles take turns instead: at
 * step k, role k mod n plays (inc 1) or (inc 2) and the others noop; with
 * (vary) a search answers (inc 2) from an odd counter, so that replies of
 * consecutive states differ. choose() searches "until" its deadline or stop flag
 * (or search_ms, when set: a quick engine, so that tests of the normal
 * path can give long clocks and still run fast), or, with ignore_stop,
 * sleeps for overrun_ms past the deadline, to test the fallback move. It answers (inc 1). apply_ms, legal_ms and load_ms
 * make the rules slow to apply a move, to list the legal ones, to load. */
#ifndef GGP_TESTS_PLAYER_STANDIN_H
#define GGP_TESTS_PLAYER_STANDIN_H

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "player/proto/engine.h"

typedef struct standin_cfg {
    bool ignore_stop;
    uint64_t overrun_ms;
    atomic_int searches;   /* choose() calls */
    atomic_int stopped;    /* searches that ended on the stop flag */
    atomic_int loads;
    /* Rules that are slow to apply a move or to list the legal ones
     * (apply() and random_move() sleep this long). */
    _Atomic uint64_t apply_ms, legal_ms, load_ms;
    _Atomic uint64_t search_ms; /* 0: a search lasts to its deadline or stop */
    atomic_int legals;  /* random_move() calls finished */
    atomic_int applies; /* apply() calls finished */
    atomic_int loaded;  /* load() calls finished */
    _Atomic uint64_t free_ms; /* free() sleeps this long (a tree of gigabytes) */
    atomic_int freed;         /* free() calls finished */
} standin_cfg_t;

struct engine_match {
    standin_cfg_t *cfg;
    char roles[4][32];
    uint32_t n_roles, role;
    int total, limit;
    bool alternate, vary;
    uint32_t steps;
};

static inline engine_match_t *standin_load(void *cfg, ggp_msg_t *start, FILE *log, char *err, size_t err_len)
{
    standin_cfg_t *c = cfg;
    atomic_fetch_add(&c->loads, 1);
    engine_match_t *m = calloc(1, sizeof *m);
    m->cfg = c;
    m->limit = 3;
    bool found = false;
    for (uint32_t i = 0; i < start->rules->n; i++) {
        const sexpr_t *f = start->rules->items[i];
        const sexpr_t *head = f->is_list && f->n ? f->items[0] : f;
        if (head->is_list) continue;
        const char *key = symtab_key(start->syms, head->sym);
        if (!strcmp(key, "broken")) {
            snprintf(err, err_len, "stand-in rules marked broken");
            if (log) fprintf(log, "<message>:1:1: error: stand-in rules marked broken\n");
            free(m);
            return NULL;
        }
        if (!strcmp(key, "role") && f->is_list && f->n == 2 && m->n_roles < 4) {
            snprintf(m->roles[m->n_roles], sizeof m->roles[0], "%s", symtab_key(start->syms, f->items[1]->sym));
            if (!strcasecmp(m->roles[m->n_roles], start->role)) {
                m->role = m->n_roles;
                found = true;
            }
            m->n_roles++;
        }
        if (!strcmp(key, "alternate")) m->alternate = true;
        if (!strcmp(key, "vary")) m->vary = true;
        long v;
        if (!strcmp(key, "limit") && f->is_list && f->n == 2 && symtab_int_value(start->syms, f->items[1]->sym, &v))
            m->limit = (int)v;
    }
    tu_sleep_ms(atomic_load(&c->load_ms));
    atomic_fetch_add(&c->loaded, 1);
    if (!found) {
        snprintf(err, err_len, "'%s' is not a role", start->role);
        free(m);
        return NULL;
    }
    return m;
}

static inline void standin_free(engine_match_t *m)
{
    standin_cfg_t *c = m->cfg;
    tu_sleep_ms(atomic_load(&c->free_ms));
    free(m);
    atomic_fetch_add(&c->freed, 1);
}

static inline int standin_move_value(const char *t)
{
    if (!strcasecmp(t, "noop")) return 0;
    if (!strcasecmp(t, "(inc 1)")) return 1;
    if (!strcasecmp(t, "(inc 2)")) return 2;
    return -1;
}

static inline bool standin_apply(engine_match_t *m, char *const *moves, uint32_t n, char *err, size_t err_len)
{
    if (n != m->n_roles) {
        snprintf(err, err_len, "%u moves for %u roles", n, m->n_roles);
        return false;
    }
    int add = 0;
    for (uint32_t i = 0; i < n; i++) {
        int v = standin_move_value(moves[i]);
        if (v >= 0 && m->alternate && (v > 0) != (i == m->steps % m->n_roles)) v = -1; /* not its turn, or its turn */
        if (v < 0) {
            snprintf(err, err_len, "'%s' is not a legal move", moves[i]);
            return false;
        }
        add += v;
    }
    tu_sleep_ms(atomic_load(&m->cfg->apply_ms));
    m->total += add;
    m->steps++;
    atomic_fetch_add(&m->cfg->applies, 1);
    return true;
}

static inline bool standin_is_terminal(engine_match_t *m) { return m->total >= m->limit; }
static inline int standin_goal(engine_match_t *m) { return m->total >= m->limit ? 100 : 0; }

static inline const char *standin_random_move(engine_match_t *m, rng_t *rng)
{
    static const char *moves[] = {"noop", "(inc 1)", "(inc 2)"};
    tu_sleep_ms(atomic_load(&m->cfg->legal_ms));
    atomic_fetch_add(&m->cfg->legals, 1);
    return moves[rng_below(rng, 3)];
}

static inline void *standin_snapshot(engine_match_t *m)
{
    int *s = malloc(sizeof *s);
    *s = m->total;
    return s;
}

static inline void standin_snapshot_free(engine_match_t *m, void *snap) { free(snap); }

static inline const char *standin_choose(engine_match_t *m, void *snap, deadline_t deadline, const atomic_bool *stop,
                                  char *info, size_t info_len)
{
    standin_cfg_t *c = m->cfg;
    atomic_fetch_add(&c->searches, 1);
    if (c->ignore_stop) {
        while (!deadline_passed(deadline)) tu_sleep_ms(1);
        tu_sleep_ms(c->overrun_ms);
    } else {
        uint64_t t0 = clock_now_ns(), quick_ns = atomic_load(&c->search_ms) * 1000000ULL;
        while (!deadline_passed(deadline) && !atomic_load(stop) && !(quick_ns && clock_now_ns() - t0 >= quick_ns))
            tu_sleep_ms(1);
        if (atomic_load(stop)) atomic_fetch_add(&c->stopped, 1);
    }
    snprintf(info, info_len, "stand-in search from %d", *(int *)snap);
    return m->vary && *(int *)snap % 2 ? "(inc 2)" : "(inc 1)";
}

static inline void standin_engine(match_engine_t *e, standin_cfg_t *cfg)
{
    *e = (match_engine_t){.cfg = cfg,
                          .load = standin_load,
                          .free = standin_free,
                          .apply = standin_apply,
                          .is_terminal = standin_is_terminal,
                          .goal = standin_goal,
                          .random_move = standin_random_move,
                          .snapshot = standin_snapshot,
                          .snapshot_free = standin_snapshot_free,
                          .choose = standin_choose};
}

#endif
