/* searcher.c - a searcher: one role's player built from a spec, holding one
 * engine per worker thread (root parallelism for the unbounded variants)
 * and what persists between the moves of a match (MAST, the rng).
 *
 * With several workers each runs an independent search with its own seed,
 * game context, tree and MAST table, on an equal share of the playouts; the
 * move is the most visited over the summed root statistics. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "search/search_internal.h"

struct searcher {
    const game_t *g;
    uint32_t role;
    search_spec_t spec;
    uint64_t seed;
    uint32_t n_workers;
    engine_t *w;
    bool shared; /* match row: the workers share worker 0's tree */
    ab_t *ab;     /* ab row (alphabeta.c), or NULL */
    nmcs_t *nmcs; /* nmcs row (nmcs.c), or NULL */
    /* compete on a one-player game (nested=on): NMCS beside the tree,
     * with a spec of its own (level 2) */
    nmcs_t *nested;
    search_spec_t nested_spec;
};

bool search_spec_check_game(const search_spec_t *s, const game_t *g, char *err, size_t len)
{
    if (s->v->sel == SEL_AB) return ab_check_game(g, err, len);
    if (s->v->sel == SEL_NMCS && game_num_roles(g) != 1) {
        snprintf(err, len, "nmcs (nested Monte Carlo search) needs a one-player game; this one has %u roles",
                 game_num_roles(g));
        return false;
    }
    /* Node-bounded rows allocate their N nodes whole: past half the RAM
     * the search would abort out of memory at its start (nodes=100000000
     * on hex7 asked 100 GB), so the spec is refused here, naming nodes=. */
    uint64_t need_mb = engine_upfront_bytes(g, s) >> 20, ram_mb = search_ram_mb();
    if (ram_mb && need_mb > ram_mb / 2) {
        snprintf(err, len, "nodes=%llu needs %llu MB here (nodes and AMAF rows), over half the RAM (%llu MB)",
                 (unsigned long long)s->nodes, (unsigned long long)need_mb, (unsigned long long)ram_mb);
        return false;
    }
    return true;
}

/* Placement games (Hex, Go, tic-tac-toe) never repeat a move in a
 * playout, and a move there adds its own mark and changes little else: a
 * move means one thing whenever it is played, which is what AMAF assumes.
 * There GRAVE as the paper tunes it (bias 0.01, no exploration) beat
 * compete's bias 1 and c 0.4, tuned on connect four and breakthrough whose
 * moves do recur: on hex7 at 0.1 s per move, GRAVE with bias 1 and c 0.4
 * scored 17.5% of 40 games against GRAVE, compete 42.5% and compete with
 * GRAVE's bias and c 55.0% (bench/results/compete.md). Othello's moves do
 * not recur either, but each flips a number of discs that depends on the
 * whole position (the churn below): there compete with GRAVE's bias and c
 * scored 47.5% of 60 games against `uct` at 0.25 s per move, with c 0.2
 * 53.3%, and with its own bias 1 and c 0.4 80.0% [68.1, 88.3]
 * (bench/results/compete.md, session 20).
 * A few random playouts from the initial state measure it, with their own
 * seed: a game decides alike every run unless its rules are so slow that
 * the 100 ms bound cuts the sample short (a placement game still measures
 * 0 then). */
#define RECUR_PLAYOUTS 16
#define RECUR_MAX_PLIES 4000
#define RECUR_MAX_MS 100
#define RECUR_SEED 0x2ec0aull
#define RECUR_PLACEMENT 0.01 /* at most this share of repeats: a placement game */
#define CHURN_PLACEMENT 0.5  /* at most this many fluents changed past the fewest */

/* The fluents in exactly one of two sorted id lists into ch (room for
 * na + nb), added[i] set where ch[i] is in b only; returns how many. */
static uint32_t fluents_diff(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb, uint32_t *ch, bool *added)
{
    uint32_t i = 0, j = 0, d = 0;
    while (i < na || j < nb) {
        if (i < na && j < nb && a[i] == b[j]) {
            i++, j++;
        } else if (j >= nb || (i < na && a[i] < b[j])) {
            added[d] = false;
            ch[d++] = a[i++];
        } else {
            added[d] = true;
            ch[d++] = b[j++];
        }
    }
    return d;
}

/* The words of a term's text (its head first), split in place at blanks
 * and parentheses; at most max. */
static uint32_t split_words(char *t, char **w, uint32_t max)
{
    uint32_t n = 0;
    for (char *c = t; *c;) {
        while (*c == ' ' || *c == '(' || *c == ')') *c++ = 0;
        if (!*c) break;
        if (n < max) w[n++] = c;
        while (*c && *c != ' ' && *c != '(' && *c != ')') c++;
    }
    return n;
}

/* Whether the words a[0 .. na) occur in b[0 .. nb) in that order. */
static bool words_within(char *const *a, uint32_t na, char *const *b, uint32_t nb)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < na; i++) {
        while (j < nb && strcmp(a[i], b[j])) j++;
        if (j++ >= nb) return false;
    }
    return true;
}

/* The board relations of a game (searcher.c's churn): those of which a
 * move adds a fluent naming the move's own arguments, (cell a 3 red) after
 * (place a 3); a placement changes such a relation alike at every ply. */
#define SHAPE_RELS 16
#define SHAPE_WORDS 16
#define SHAPE_MOVES 8 /* the deciders' moves of a ply looked at */
typedef struct {
    char name[40];
    uint64_t sum, plies;
    uint32_t min;
} board_rel_t;

static int board_rel(board_rel_t *rel, uint32_t *n, const char *name)
{
    for (uint32_t i = 0; i < *n; i++)
        if (!strcmp(rel[i].name, name)) return (int)i;
    if (*n == SHAPE_RELS || strlen(name) >= sizeof rel[0].name) return -1;
    rel[*n] = (board_rel_t){.min = UINT32_MAX};
    snprintf(rel[*n].name, sizeof rel[0].name, "%s", name);
    return (int)(*n)++;
}

/* The true fluents of the context's state into *buf (grown as needed). */
static uint32_t ctx_fluents(const game_t *g, const game_ctx_t *ctx, uint32_t **buf, size_t *cap)
{
    XVEC_RESERVE(buf, cap, 64);
    for (;;) {
        uint32_t n = game_state_fluents(g, game_ctx_state(ctx), *buf, (uint32_t)*cap);
        if (n <= *cap) return n;
        XVEC_RESERVE(buf, cap, n);
    }
}

/* One ply's changes ch[0 .. d) (added[i]: made true) counted per board
 * relation of its deciders' moves (those of at least 2 legal moves). */
static void board_ply(const game_t *g, const move_id_t *joint, const uint32_t *ch, const bool *added, uint32_t d,
                      board_rel_t *rel, uint32_t *n_rel)
{
    uint32_t k = game_num_roles(g), cnt[SHAPE_RELS] = {0};
    bool board[SHAPE_RELS] = {false};
    char mt[SHAPE_MOVES][256], ft[256], *mw[SHAPE_MOVES][SHAPE_WORDS], *fw[SHAPE_WORDS];
    uint32_t nm[SHAPE_MOVES], nmoves = 0;
    for (uint32_t r = 0; r < k && nmoves < SHAPE_MOVES; r++) {
        snprintf(mt[nmoves], sizeof mt[0], "%s", game_move_name(g, r, joint[r], true));
        nm[nmoves] = split_words(mt[nmoves], mw[nmoves], SHAPE_WORDS);
        if (nm[nmoves] >= 2) nmoves++; /* a move with arguments */
    }
    for (uint32_t i = 0; i < d; i++) {
        game_fluent_text(g, ch[i], ft, sizeof ft);
        uint32_t nf = split_words(ft, fw, SHAPE_WORDS);
        if (nf == 0) continue;
        int x = board_rel(rel, n_rel, fw[0]);
        if (x < 0) continue;
        cnt[x]++;
        for (uint32_t m = 0; added[i] && m < nmoves; m++)
            if (words_within(mw[m] + 1, nm[m] - 1, fw + 1, nf - 1)) board[x] = true;
    }
    for (uint32_t x = 0; x < *n_rel; x++)
        if (board[x]) {
            rel[x].sum += cnt[x];
            rel[x].plies++;
            if (cnt[x] < rel[x].min) rel[x].min = cnt[x];
        }
}

move_shape_t search_move_shape(const game_t *g)
{
    uint32_t k = game_num_roles(g);
    game_ctx_t *ctx = game_ctx_new(g);
    game_state_t *st = game_state_new(g);
    move_id_t *joint = xcalloc(k ? k : 1, sizeof *joint);
    uint64_t *seen = NULL; /* (role, move) pairs of this playout */
    size_t n_seen = 0, cap = 0;
    uint32_t *fa = NULL, *fb = NULL; /* the fluents before and after a ply */
    size_t ca = 0, cb = 0;
    uint64_t decisions = 0, repeats = 0, plies = 0, changed_plies = 0, changed_sum = 0;
    uint32_t changed_min = UINT32_MAX;
    uint32_t *ch = NULL; /* the fluents a ply changed */
    bool *added = NULL;
    size_t c_ch = 0, c_added = 0;
    board_rel_t rel[SHAPE_RELS];
    uint32_t n_rel = 0;
    rng_t rng;
    rng_seed(&rng, RECUR_SEED);
    deadline_t dl = deadline_in_ms(RECUR_MAX_MS);
    for (uint32_t p = 0; p < RECUR_PLAYOUTS && plies < RECUR_MAX_PLIES && !deadline_passed(dl); p++) {
        game_initial(ctx, st);
        game_ctx_set_state(ctx, st);
        n_seen = 0;
        while (!game_is_terminal(ctx) && plies++ < RECUR_MAX_PLIES) {
            bool ok = true, decided = false;
            for (uint32_t r = 0; r < k; r++) {
                const move_id_t *m;
                uint32_t n = game_legal(ctx, r, &m);
                if (!n) {
                    ok = false;
                    break;
                }
                joint[r] = m[rng_below(&rng, n)];
                if (n < 2) continue;
                decided = true;
                uint64_t key = (uint64_t)r << 32 | joint[r];
                decisions++;
                size_t i = 0;
                while (i < n_seen && seen[i] != key) i++;
                if (i < n_seen) {
                    repeats++;
                } else {
                    XVEC_RESERVE(&seen, &cap, n_seen + 1);
                    seen[n_seen++] = key;
                }
            }
            if (!ok) break;
            uint32_t na = decided ? ctx_fluents(g, ctx, &fa, &ca) : 0;
            game_ctx_play(ctx, joint);
            if (decided) {
                uint32_t nb = ctx_fluents(g, ctx, &fb, &cb);
                XVEC_RESERVE(&ch, &c_ch, (size_t)na + nb);
                XVEC_RESERVE(&added, &c_added, (size_t)na + nb);
                uint32_t d = fluents_diff(fa, na, fb, nb, ch, added);
                changed_plies++;
                changed_sum += d;
                if (d < changed_min) changed_min = d;
                board_ply(g, joint, ch, added, d, rel, &n_rel);
            }
        }
    }
    free(ch);
    free(added);
    free(fa);
    free(fb);
    free(seen);
    free(joint);
    game_state_free(st);
    game_ctx_free(ctx);
    move_shape_t out = {.recur = decisions ? (double)repeats / (double)decisions : 1.0};
    if (changed_plies) out.churn = (double)changed_sum / (double)changed_plies - changed_min;
    /* a board relation changed at (nearly) every ply says more than the
     * whole state: the least churning one */
    for (uint32_t i = 0; i < n_rel; i++)
        if (2 * rel[i].plies >= changed_plies) {
            double c = (double)rel[i].sum / (double)rel[i].plies - rel[i].min;
            if (c < out.churn) out.churn = c;
        }
    return out;
}

bool search_is_placement(move_shape_t shape)
{
    return shape.recur <= RECUR_PLACEMENT && shape.churn <= CHURN_PLACEMENT;
}

static uint64_t worker_seed(uint64_t seed, uint32_t i) { return i == 0 ? seed : rng_derive(seed, i); }

searcher_t *searcher_new(const game_t *g, uint32_t role, const search_spec_t *spec)
{
    searcher_t *s = xcalloc(1, sizeof *s);
    s->g = g;
    s->role = role;
    s->spec = *spec;
    if (spec->v->match && spec->v->sel == SEL_GRAVE) {
        move_shape_t shape = search_move_shape(g);
        spec_shape(&s->spec, search_is_placement(shape), shape.churn > CHURN_PLACEMENT);
    }
    s->seed = spec->seed;
    s->n_workers = spec->threads ? spec->threads : 1;
    s->w = xcalloc(s->n_workers, sizeof *s->w);
    for (uint32_t i = 0; i < s->n_workers; i++) engine_init(&s->w[i], g, role, &s->spec, worker_seed(s->seed, i));
    if (spec->v->sel == SEL_AB) s->ab = ab_new(g, role, &s->spec, s->seed);
    if (spec->v->sel == SEL_NMCS) s->nmcs = nmcs_new(g, role, &s->spec, s->seed);
    if (spec->v->match && spec->nested && game_num_roles(g) == 1) {
        s->nested_spec = *spec;
        s->nested_spec.level = 2;
        s->nested = nmcs_new(g, role, &s->nested_spec, rng_derive(s->seed, 0x4e4d4353));
    }
    if (s->n_workers > 1 && spec->v->match) { /* tree parallelism, or one worker if it cannot share */
        s->shared = true;
        for (uint32_t i = 1; i < s->n_workers && s->shared; i++) s->shared = engine_share(&s->w[i], &s->w[0]);
        if (!s->shared) {
            for (uint32_t i = 1; i < s->n_workers; i++) engine_free(&s->w[i]);
            s->n_workers = 1;
            s->w[0].mu = NULL;
        }
    }
    return s;
}

void searcher_free(searcher_t *s)
{
    if (!s) return;
    for (uint32_t i = 0; i < s->n_workers; i++) engine_free(&s->w[i]);
    ab_free(s->ab);
    nmcs_free(s->nmcs);
    nmcs_free(s->nested);
    free(s->w);
    free(s);
}

void searcher_reset(searcher_t *s)
{
    for (uint32_t i = 0; i < s->n_workers; i++) engine_reset(&s->w[i], worker_seed(s->seed, i));
    if (s->ab) ab_reset(s->ab, s->seed);
    if (s->nmcs) nmcs_reset(s->nmcs, s->seed);
    if (s->nested) nmcs_reset(s->nested, rng_derive(s->seed, 0x4e4d4353));
}

void searcher_reseed(searcher_t *s, uint64_t seed)
{
    s->seed = seed;
    searcher_reset(s);
}

engine_t *searcher_engine(searcher_t *s, uint32_t i) { return i < s->n_workers ? &s->w[i] : NULL; }

/* Every worker's side tables, and each key table once (one when they
 * share a tree). */
static size_t searcher_side_bytes(const searcher_t *s)
{
    size_t b = 0;
    for (uint32_t i = 0; i < s->n_workers; i++) {
        b += engine_side_bytes(&s->w[i]);
        if (!s->shared || i == 0) b += engine_shared_bytes(&s->w[i]);
    }
    return b;
}

size_t searcher_held_bytes(searcher_t *s)
{
    size_t b = searcher_side_bytes(s);
    for (uint32_t i = 0; i < s->n_workers && (!s->shared || i == 0); i++)
        if (s->w[i].pool_ready) b += pool_held_bytes(s->w[i].pool);
    return b;
}

typedef struct job {
    engine_t *e;
    const game_state_t *st;
    deadline_t dl;
    const atomic_bool *stop;
    uint64_t cpu_ns; /* the CPU time of this worker's thread in the search */
} job_t;

static void *job_run(void *arg)
{
    job_t *j = arg;
    uint64_t c0 = clock_thread_cpu_ns();
    engine_search(j->e, j->st, j->dl, j->stop);
    j->cpu_ns = clock_thread_cpu_ns() - c0;
    return NULL;
}

typedef struct shared_job {
    engine_t *e;
    deadline_t dl;
    const atomic_bool *stop;
    _Atomic uint64_t *tickets;
    uint64_t cpu_ns;
} shared_job_t;

static void *shared_run(void *arg)
{
    shared_job_t *j = arg;
    uint64_t c0 = clock_thread_cpu_ns();
    engine_search_loop(j->e, j->dl, j->stop, j->tickets);
    j->cpu_ns = clock_thread_cpu_ns() - c0;
    return NULL;
}

/* Tree parallelism (issue 12): worker 0 re-roots the match tree, then every
 * worker runs iterations on it at once (iterate_shared: lock for the tree,
 * none for the playout); the playout budget is one counter for all. */
/* Returns the CPU time of the workers on threads of their own (the
 * caller's thread counts its own). */
static uint64_t search_shared(searcher_t *s, const game_state_t *st, deadline_t dl, const atomic_bool *stop)
{
    engine_t *e0 = &s->w[0];
    engine_search_begin(e0, st, dl, stop);
    budget_t full;
    spec_budget(&s->spec, &full);
    _Atomic uint64_t tickets = full.timed ? UINT64_MAX : full.p;
    pthread_t *tid = xcalloc(s->n_workers, sizeof *tid);
    shared_job_t *jobs = xcalloc(s->n_workers, sizeof *jobs);
    for (uint32_t i = 0; i < s->n_workers; i++) {
        engine_decay(&s->w[i], s->spec.decay);
        if (i > 0) engine_worker_sync(&s->w[i], e0);
        jobs[i] = (shared_job_t){&s->w[i], dl, stop, &tickets, 0};
    }
    for (uint32_t i = 1; i < s->n_workers; i++)
        if (pthread_create(&tid[i], NULL, shared_run, &jobs[i]) != 0) tid[i] = 0; /* fewer workers */
    shared_run(&jobs[0]);
    uint64_t cpu = 0;
    for (uint32_t i = 1; i < s->n_workers; i++)
        if (tid[i]) {
            pthread_join(tid[i], NULL);
            cpu += jobs[i].cpu_ns;
        }
    free(tid);
    free(jobs);
    return cpu;
}

/* Root-parallel final move: the most visited move over all workers. */
static move_id_t merge_final(searcher_t *s, double *value)
{
    engine_t *e0 = &s->w[0];
    game_ctx_set_state(e0->ctx, e0->root_state);
    const move_id_t *m;
    uint32_t n = game_legal(e0->ctx, s->role, &m);
    pick_t pk;
    pick_init(&pk, s->spec.v->final == FINAL_MEAN);
    for (uint32_t i = 0; i < n; i++) {
        double v = 0, w = 0;
        for (uint32_t j = 0; j < s->n_workers; j++) {
            engine_t *e = &s->w[j];
            for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling)
                if (e->pool->nodes[c].edge == m[i]) {
                    v += e->pool->nodes[c].visits;
                    w += pool_w(e->pool, c)[s->role];
                }
        }
        if (v > 0) pick_offer(&pk, &e0->rng, m[i], v, w / v);
    }
    if (!pk.ties) return engine_final(e0, value);
    *value = pk.q;
    return pk.move;
}

/* The spec's own time budget (seconds=) when it ends before dl. */
static deadline_t own_deadline(const searcher_t *s, deadline_t dl)
{
    if (!search_spec_is_timed(&s->spec)) return dl;
    deadline_t own = deadline_at_ns(clock_now_ns() + (uint64_t)(s->spec.seconds * 1e9));
    return !dl.at_ns || own.at_ns < dl.at_ns ? own : dl;
}

move_id_t searcher_choose(searcher_t *s, const game_state_t *st, deadline_t deadline, const atomic_bool *stop,
                          search_report_t *rep)
{
    uint64_t t0 = clock_now_ns(), cpu0 = clock_thread_cpu_ns(), cpu_workers = 0;
    search_report_t r;
    memset(&r, 0, sizeof r);
    engine_t *e0 = &s->w[0];
    game_ctx_set_state(e0->ctx, st);
    const move_id_t *m;
    uint32_t n = game_legal(e0->ctx, s->role, &m);
    move_id_t move = UINT32_MAX;
    bool match_tree = s->spec.v->match && s->spec.reuse;
    if (n == 1 && !match_tree) {
        move = m[0]; /* forced: no search, no MAST decay (spec §9: once per own search) */
    } else if (n > 1 && s->spec.v->sel == SEL_NONE) {
        move = m[rng_below(&e0->rng, n)];
    } else if (n > 1 && (s->ab || s->nmcs)) { /* not MCTS (spec §14.4) */
        deadline = own_deadline(s, deadline);
        move = s->ab ? ab_choose(s->ab, st, deadline, stop, &r) : nmcs_choose(s->nmcs, st, deadline, stop, &r);
    } else if (n > 1 || (n == 1 && match_tree)) { /* a match tree grows on forced moves too */
        deadline = own_deadline(s, deadline);
        /* One-player game, timed (issue 12 item 6): the tree gets the first
         * half, nested Monte Carlo search the second; the better of the
         * two guaranteed lines is played (a deterministic game's line is
         * worth its final goal). Playout budgets stay tree-only, so they
         * stay reproducible. */
        deadline_t nested_dl = deadline;
        bool nested = s->nested && n > 1 && deadline.at_ns && e0->line_value < 1.0;
        if (nested) {
            uint64_t now = clock_now_ns();
            deadline = deadline_at_ns(deadline.at_ns > now ? now + (deadline.at_ns - now) / 2 : now);
        }
        if (s->shared) {
            cpu_workers = search_shared(s, st, deadline, stop);
            move = engine_final(e0, &r.value);
        } else if (s->n_workers == 1) {
            engine_decay(e0, s->spec.decay);
            engine_search(e0, st, deadline, stop);
            move = engine_final(e0, &r.value);
        } else {
            pthread_t *tid = xcalloc(s->n_workers, sizeof *tid);
            job_t *jobs = xcalloc(s->n_workers, sizeof *jobs);
            budget_t full;
            spec_budget(&s->spec, &full);
            for (uint32_t i = 0; i < s->n_workers; i++) {
                engine_t *e = &s->w[i];
                engine_decay(e, s->spec.decay);
                if (!full.timed) e->b.p = full.p / s->n_workers + (i < full.p % s->n_workers);
                jobs[i] = (job_t){e, st, deadline, stop, 0};
                if (i > 0 && pthread_create(&tid[i], NULL, job_run, &jobs[i]) != 0) {
                    tid[i] = 0;
                    job_run(&jobs[i]); /* could not start a thread: run it here */
                }
            }
            job_run(&jobs[0]);
            for (uint32_t i = 1; i < s->n_workers; i++)
                if (tid[i]) {
                    pthread_join(tid[i], NULL);
                    cpu_workers += jobs[i].cpu_ns;
                }
            free(tid);
            free(jobs);
            move = merge_final(s, &r.value);
        }
        if (nested && !(stop && atomic_load(stop))) {
            search_report_t nr = {0};
            move_id_t nm = nmcs_choose(s->nested, st, nested_dl, stop, &nr);
            int best = nmcs_best(s->nested);
            if (nm != UINT32_MAX && best > 0 && best > e0->line_value * 100.0 && nmcs_on_line(s->nested, st)) {
                move = nm;
                r.value = best / 100.0;
            }
            r.playouts += nr.playouts;
        }
        for (uint32_t i = 0; i < s->n_workers; i++) {
            engine_t *e = &s->w[i];
            r.playouts += e->st.playouts;
            r.capped += e->st.capped;
            r.reused += e->st.reused;
            r.la_checks += e->st.la_checks;
            r.la_proofs += e->st.la_proofs;
            r.tt_stored += e->st.tt_stored;
            r.tt_hits += e->st.tt_hits;
            r.cached_steps += e->st.cached_steps;
            r.steps += e->st.steps;
            r.tree_steps += e->st.tree_steps;
            r.solved = r.solved || e->st.root_solved;
            r.bytes_per_node = pool_node_bytes(e->pool);
            for (uint32_t j = 0; e->ps && j < PS_N && j < SEARCH_MAX_STRATEGIES; j++)
                r.strategy[j] += e->ps->chosen[(size_t)s->role * PS_N + j];
            if (s->shared && i > 0) continue; /* one tree */
            r.nodes_peak += e->pool->resident_peak;
            r.bytes_peak += e->pool->bytes_peak;
            /* this search's recycling: the pool's count goes on over a match */
            for (uint32_t j = 0; j < e->pool->n_regions; j++) r.recycled += e->pool->reg[j].recycled;
            r.recycled -= e->st.recycled0;
        }
        uint64_t side = searcher_side_bytes(s);
        r.bytes_peak += side;
        /* Sparse tables: report the mean table bytes per resident node at peak. */
        if (e0->pool->amaf_on && !e0->pool->K && r.nodes_peak) {
            uint64_t node_only = pool_node_bytes(e0->pool) * r.nodes_peak;
            if (r.bytes_peak > node_only + side) r.bytes_per_node += (r.bytes_peak - node_only - side) / r.nodes_peak;
        }
    }
    r.nested_best = s->nested ? nmcs_best(s->nested) : -1;
    r.seconds = (double)(clock_now_ns() - t0) / 1e9;
    r.cpu_seconds = (double)(clock_thread_cpu_ns() - cpu0 + cpu_workers) / 1e9;
    if (rep) *rep = r;
    return move;
}
