/* engine.c - the one MCTS engine behind every searcher (grave-spec §4-§9).
 *
 * The variant row (search_internal.h) selects the policies: the selection
 * value (UCT, GRAVE, flat), the tree (one tree, unbounded or a recycled pool
 * of N nodes; or two levels, T and S, spec §7), and the final move. Playouts
 * are MAST epsilon-greedy or uniform (spec §9). Nodes never store states:
 * every simulation replays its moves from the root state (single level) or
 * from the cached state of the second-level root (spec §2.1).
 *
 * One simulation leaves in the trace (spec §3.5): the tree path, the joint
 * moves of the tree steps, and the decision keys (role, move) of every step,
 * tree and playout, which backpropagation feeds to AMAF (suffix rule, first
 * occurrence, spec §4.5), to the marginal tables of simultaneous nodes
 * (spec §4.6) and to MAST (every occurrence, spec §9). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "search/search_internal.h"

#define MAX_PLAYOUT_PLIES 10000 /* spec §2.3 */
#define PI_FORCED UINT32_MAX       /* path info: no decider at that node */
#define PI_SIMUL (UINT32_MAX - 1)  /* path info: several deciders */
/* Match rows keep dense AMAF blocks up to this many keys (lazy: only nodes
 * with amaf_from visits have one), sparse tables above. */
#define MATCH_DENSE_MAX_KEYS 4096

/* Dense AMAF needs every key up front: only an engine whose moves are
 * enumerable knows them all (spec §3.2; game.h). Keys are then
 * role-major. The dense keys per node, or 0: sparse tables (or none). */
static uint32_t dense_keys(const game_t *g, const search_spec_t *spec)
{
    if (!sel_amaf(spec->v->sel) || spec->amaf == AMAF_SPARSE || !game_moves_enumerable(g)) return 0;
    uint64_t K = 0;
    for (uint32_t r = 0; r < game_num_roles(g); r++) K += game_num_moves(g, r);
    if (spec->amaf == AMAF_AUTO && K > (spec->v->match ? MATCH_DENSE_MAX_KEYS : 1024)) return 0;
    return K > UINT32_MAX ? 0 : (uint32_t)K;
}

uint64_t engine_upfront_bytes(const game_t *g, const search_spec_t *spec)
{
    budget_t b;
    spec_budget(spec, &b);
    uint64_t n = 0;
    if (spec->v->tree == TREE_TWO) n = (uint64_t)b.n_top + b.n_sec;
    else if (spec->v->tree == TREE_SINGLE && spec->v->recycle && !spec->v->match) n = b.n;
    uint32_t k = game_num_roles(g);
    return n * (sizeof(node_t) + (uint64_t)k * sizeof(float) + (uint64_t)dense_keys(g, spec) * sizeof(amaf_dense_t));
}

uint64_t engine_default_memory_mb(void)
{
    uint64_t ram = search_ram_mb(), mb = ram ? ram / 2 : 1024;
    return mb > 4096 ? 4096 : mb < 64 ? 64 : mb;
}

/* ---- the memory bound of a match row (issue 12, item 2) ----------------- */

/* memory=MB bounds all that a match row holds for the match: the tree and
 * its AMAF tables, and beside them every worker's MAST table, last good
 * replies and N-grams and the per-key scratch of backprop, and the shared
 * key and joint-move tables. The tables indexed by key grow to at most
 * twice what they hold (XVEC_RESERVE, mast_reserve), hence the 2s. */
#define SIDE_KEY_SHARED 12 /* keys_t: role, move, of[role][move] */
/* per key and worker: what every key has (backprop's scratch), and what
 * only the first key_max have (MAST, last good replies) */
static uint32_t side_key_scratch(const search_spec_t *spec) { return sel_amaf(spec->v->sel) ? 3 * sizeof(uint32_t) : 0; }
static uint32_t side_key_tables(const search_spec_t *spec, uint32_t k)
{
    return (spec->mast ? 3 * sizeof(double) : 0) + (spec->lgr ? k * sizeof(uint32_t) : 0);
}
#define NST_SLOT_BYTES (sizeof(uint64_t) + 2 * sizeof(double))

/* Sets e->key_max and the N-gram bound, and returns the bytes they and
 * the key tables may take for all `workers` workers; the tree gets the
 * rest. nkeys: the game's keys when its moves are enumerable (all of them
 * are in the key table and the scratch), else 0 (the rules engine finds
 * moves as it goes: MAST and last good replies then keep the first
 * key_max keys, the others play as never seen). */
static uint64_t side_reserve(engine_t *e, uint64_t mem, uint32_t workers, uint32_t nkeys)
{
    uint64_t every = SIDE_KEY_SHARED + (uint64_t)workers * side_key_scratch(e->spec);
    uint64_t capped = (uint64_t)workers * side_key_tables(e->spec, e->k);
    uint64_t reserve = 2 * (uint64_t)nkeys * every;
    uint64_t keys_share = mem / 8; /* what MAST and replies may take */
    uint64_t fit = capped ? keys_share / (2 * capped) : UINT32_MAX;
    if (!nkeys) fit = keys_share / (2 * (capped + every)); /* the keys seen so far, all alike */
    e->key_max = nkeys && (uint64_t)nkeys <= fit ? UINT32_MAX : fit < 256 ? 256 : fit > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)fit;
    uint64_t kept = e->key_max == UINT32_MAX ? nkeys : e->key_max;
    reserve += 2 * kept * (nkeys ? capped : capped + every);
    if (e->spec->nst) {
        uint64_t pairs = mem / 16 / ((uint64_t)workers * 2 * NST_SLOT_BYTES);
        nst_init(&e->nst, pairs > NST_MAX ? NST_MAX : (uint32_t)pairs);
        reserve += (uint64_t)workers * 2 * e->nst.max * NST_SLOT_BYTES;
    }
    return reserve;
}

size_t engine_side_bytes(const engine_t *e)
{
    size_t nc = e->nc ? ((size_t)e->nc_mask + 1) * (e->nc_stride * sizeof *e->nc + sizeof *e->nc_st + sizeof *e->nc_cap) +
                            e->nc_state_bytes
                      : 0;
    return nc + (size_t)e->mast.cap * 3 * sizeof(double) + (size_t)e->nst.cap * NST_SLOT_BYTES + e->lgr_cap * sizeof *e->lgr +
           (e->kstamp_cap + e->klist_cap) * sizeof(uint32_t) + e->kz_cap * sizeof *e->kz;
}

size_t engine_shared_bytes(const engine_t *e)
{
    const keys_t *ks = e->keys;
    size_t b = (size_t)ks->cap * 2 * sizeof(uint32_t);
    for (uint32_t r = 0; r < ks->k; r++) b += (size_t)ks->of_len[r] * sizeof(uint32_t);
    b += (size_t)e->joints->cap * e->joints->k * sizeof(uint32_t) + (size_t)e->joints->tcap * sizeof(uint32_t);
    return b;
}

/* ---- cached tree states (issue 12, item 7) -------------------------------
 * A descent ran the reasoner at every tree level: the terminal test, the
 * legal moves and the joint move played. A connectFour search of 20,000
 * playouts is 17 levels deep on average, and those levels were about 40% of
 * its instructions (bench/results/compete.md, session 28). A node visited
 * NC_MIN_VISITS times keeps its state and legal moves in a slot; a descent
 * walks cached nodes without the reasoner and hands the reasoner the
 * deepest one's state once, where it has to play on (game_ctx_visit_state:
 * the propnet propagates the base propositions that differ together). Slots
 * are direct-mapped by node id, a node taking a slot from one visited less;
 * an id handed out again (expansion, recycling, a new tree) forgets its
 * slot first, so a slot holds its node's own state. The moves are the same
 * as without the cache (spec.cache: the key to compare). One worker only:
 * workers of a shared tree recycle each other's nodes. */
/* 16,384 slots: with terminal nodes cached, a connectFour GRAVE search's
 * first 2 s ran 299k playouts per CPU-second with 4,096, 315k with 8,192,
 * 320k with 16,384, 324k with 32,768 (raw 350k; session 33); the slots'
 * lists take 2.3 MB on connectFour, 8.6 MB at the most moves cached. */
#define NC_SLOTS 16384
#define NC_MIN_VISITS 2
#define NC_STATE_MAX 256 /* bytes: a larger state is not cached */
#define NC_MOVES_MAX 64  /* legal moves of all roles together */

static uint32_t nc_moves(const game_t *g, uint32_t k)
{
    if (!game_moves_enumerable(g)) return NC_MOVES_MAX;
    uint64_t m = 0;
    for (uint32_t r = 0; r < k; r++) m += game_num_moves(g, r);
    return m < NC_MOVES_MAX ? (uint32_t)m : NC_MOVES_MAX;
}

/* Bytes a slot may take (its state at most NC_STATE_MAX, with its header
 * and allocation). */
static uint64_t nc_slot_bytes(uint32_t k, uint32_t moves)
{
    return (uint64_t)(1 + k + 2 * moves) * sizeof(uint32_t) + sizeof(game_state_t *) + sizeof(uint16_t) + NC_STATE_MAX + 64;
}

static void nc_open(engine_t *e, uint32_t slots)
{
    e->nc_moves = nc_moves(e->g, e->k);
    e->nc_stride = 1 + e->k + 2 * e->nc_moves; /* node, counts, moves, children (nc_put) */
    e->nc_mask = slots - 1;
    e->nc = xmalloc((size_t)slots * e->nc_stride * sizeof *e->nc);
    for (uint32_t s = 0; s < slots; s++) e->nc[(size_t)s * e->nc_stride] = NIL;
    e->nc_st = xcalloc(slots, sizeof *e->nc_st);
    e->nc_cap = xcalloc(slots, sizeof *e->nc_cap);
}

static void nc_close(engine_t *e)
{
    if (!e->nc) return;
    for (uint32_t s = 0; s <= e->nc_mask; s++) game_state_free(e->nc_st[s]);
    free(e->nc_st);
    free(e->nc_cap);
    free(e->nc);
    e->nc = NULL;
    e->nc_state_bytes = 0;
}

static void nc_clear(engine_t *e)
{
    if (e->nc)
        for (uint32_t s = 0; s <= e->nc_mask; s++) e->nc[(size_t)s * e->nc_stride] = NIL;
}

static inline uint32_t *nc_slot(const engine_t *e, uint32_t s) { return &e->nc[(size_t)s * e->nc_stride]; }

/* n's slot, or NIL */
static inline uint32_t nc_find(const engine_t *e, uint32_t n)
{
    uint32_t s = n & e->nc_mask;
    return nc_slot(e, s)[0] == n ? s : NIL;
}

/* Node id n is handed out (again): whatever its slot says is another node's. */
static inline void nc_forget(engine_t *e, uint32_t n)
{
    if (e->nc && n != NIL && nc_slot(e, n & e->nc_mask)[0] == n) nc_slot(e, n & e->nc_mask)[0] = NIL;
}

/* The children of slot s's node by the legal moves of its one decider r
 * (nc_put made them; descend adds each expansion): kid[i] for move
 * legal[r][i], NIL for none. A selection used to find a node's children
 * by walking its child list into the scratch map (slot_build): a pointer
 * chase through nodes made far apart, a sixth of a connectFour GRAVE
 * search's time for a twentieth of its instructions (issue 12, item 7).
 * Recycling and tree reuse unlink children without telling the slot, so
 * an entry counts only while its node's parent and edge still say so
 * (nc_child); a node recycled and linked again under the same parent and
 * edge is that child again. */
static inline uint32_t *nc_kid(const engine_t *e, uint32_t s, uint32_t r)
{
    uint32_t *slot = nc_slot(e, s), *kid = slot + 1 + e->k + e->nc_moves;
    for (uint32_t q = 0; q < r; q++) kid += slot[1 + q];
    return kid;
}

static inline uint32_t nc_child(const node_t *nodes, const uint32_t *kid, uint32_t i, uint32_t x, uint32_t mv)
{
    uint32_t c = kid[i];
    return c != NIL && nodes[c].parent == x && nodes[c].edge == mv ? c : NIL;
}

/* x takes its slot with e->ctx's state (x's), unless the slot's node has
 * more visits or the state or the slot's lists would be too large (a list
 * of `need` words). Returns the slot, or NIL. */
static uint32_t nc_take(engine_t *e, uint32_t x, uint32_t need_words)
{
    const game_state_t *st = game_ctx_state(e->ctx);
    if (need_words > e->nc_moves || game_state_bytes(st) > NC_STATE_MAX) return NIL;
    uint32_t s = x & e->nc_mask, *slot = nc_slot(e, s);
    /* a node freed by tree reuse keeps its visits: its slot is free */
    uint32_t o = slot[0];
    if (o != NIL && o != x && (e->pool->nodes[o].flags & NODE_USED) && node_visits(e->pool, o) > node_visits(e->pool, x))
        return NIL;
    if (!e->nc_st[s]) {
        e->nc_st[s] = game_state_new(e->g);
        e->nc_state_bytes += 32; /* its header and allocation */
    }
    /* what the copy's allocation grows to (game_state_reserve: at least 8
     * words, never shrinking), charged once */
    uint32_t need = (uint32_t)(game_state_bytes(st) > 32 ? game_state_bytes(st) : 32);
    if (need > e->nc_cap[s]) {
        e->nc_state_bytes += need - e->nc_cap[s];
        e->nc_cap[s] = need;
    }
    game_state_copy(e->g, e->nc_st[s], st);
    slot[0] = x;
    return s;
}

/* e->ctx at non-terminal x, gather_legal's lists of it: x takes its slot
 * (nc_take). Returns the slot, or NIL. */
static uint32_t nc_put(engine_t *e, uint32_t x)
{
    uint32_t total = 0;
    for (uint32_t r = 0; r < e->k; r++) total += e->n_legal[r];
    uint32_t s = nc_take(e, x, total);
    if (s == NIL) return NIL;
    uint32_t *slot = nc_slot(e, s), *m = slot + 1 + e->k, dr = NIL, nd = 0;
    for (uint32_t r = 0; r < e->k; r++) {
        slot[1 + r] = e->n_legal[r];
        memcpy(m, e->legal[r], e->n_legal[r] * sizeof *m);
        if (e->n_legal[r] >= 2) {
            nd++;
            dr = r;
        }
        m += e->n_legal[r];
    }
    if (nd != 1) return s;
    /* one decider: its children by legal move (nc_kid), from the child list */
    uint32_t *kid = nc_kid(e, s, dr);
    for (uint32_t i = 0; i < e->n_legal[dr]; i++) kid[i] = NIL;
    for (uint32_t c = e->pool->nodes[x].first_child; c != NIL; c = e->pool->nodes[c].next_sibling)
        for (uint32_t i = 0; i < e->n_legal[dr]; i++)
            if (e->legal[dr][i] == e->pool->nodes[c].edge) kid[i] = c;
    return s;
}

/* e->ctx at terminal x: x takes its slot (nc_take) with its goals in place
 * of the legal moves, each role's count of moves 0 (a state that is not
 * terminal has a move for each role, or it is a defect and not cached).
 * GRAVE without exploration walks its principal line to the game's end
 * again and again: on connectFour 41 of a simulation's 42 steps are tree
 * steps, and the last, into the terminal state, took the reasoner from
 * the cached state before it for one step and the goals: 77% -> 85% of
 * the raw playouts' rate with the slot (issue 12, item 7). */
static void nc_put_terminal(engine_t *e, uint32_t x)
{
    uint32_t s = nc_take(e, x, e->k);
    if (s == NIL) return;
    uint32_t *slot = nc_slot(e, s);
    for (uint32_t r = 0; r < e->k; r++) {
        slot[1 + r] = 0;
        slot[1 + e->k + r] = (uint32_t)game_goal(e->ctx, r);
    }
}

static inline bool nc_terminal(const engine_t *e, uint32_t s) { return nc_slot(e, s)[1] == 0; }

/* rewards_terminal from terminal slot s */
static void nc_rewards(engine_t *e, uint32_t s)
{
    const uint32_t *slot = nc_slot(e, s);
    e->reached_terminal = true;
    for (uint32_t r = 0; r < e->k; r++) {
        int g = (int)slot[1 + e->k + r];
        e->z[r] = g >= 0 ? g / 100.0 : 0.0;
    }
}

/* gather_legal from slot s (its lists stay valid until the slot is taken) */
static int nc_gather(engine_t *e, uint32_t s)
{
    const uint32_t *slot = nc_slot(e, s), *m = slot + 1 + e->k;
    int nd = 0;
    for (uint32_t r = 0; r < e->k; r++) {
        e->n_legal[r] = slot[1 + r];
        e->legal[r] = m;
        m += slot[1 + r];
        if (e->n_legal[r] >= 2) e->dec[nd++] = r;
        else e->joint[r] = e->legal[r][0];
    }
    return nd;
}

/* The reasoner catches up with a cached descent: slot s's state. */
static uint32_t nc_load(engine_t *e, uint32_t s)
{
    game_ctx_visit_state(e->ctx, e->nc_st[s]);
    return NIL;
}

/* ---- locks of a shared tree (issue 12) --------------------------------- */

static inline void tree_lock(engine_t *e)
{
    if (e->mu) spin_lock(e->mu);
}

static inline void tree_unlock(engine_t *e)
{
    if (e->mu) spin_unlock(e->mu);
}

/* Node n's two lock stripes (engine_t.nl): its child list's, taken to
 * select among or change the children, and its statistics', taken to write
 * them. Two locks, so that backing up through a node never waits for a
 * selection at it (selection reads statistics atomically). No-ops for one
 * worker. */
static inline spin_t *nl_of(const engine_t *e, uint32_t n)
{
    return &e->nl[(n * 2654435761u) >> 20].l; /* NODE_LOCKS = 2^12 stripes */
}

static inline spin_t *sl_of(const engine_t *e, uint32_t n) { return &e->nl[NODE_LOCKS + ((n * 2654435761u) >> 20)].l; }

static inline void node_lock(engine_t *e, uint32_t n)
{
    if (e->mu) spin_lock(nl_of(e, n));
}

static inline void node_unlock(engine_t *e, uint32_t n)
{
    if (e->mu) spin_unlock(nl_of(e, n));
}

static inline void stats_lock(engine_t *e, uint32_t n)
{
    if (e->mu) spin_lock(sl_of(e, n));
}

static inline void stats_unlock(engine_t *e, uint32_t n)
{
    if (e->mu) spin_unlock(sl_of(e, n));
}

/* ---- proven states (compete, tt MB) -------------------------------------- */

/* A GDL state decides everything after it (the game's future depends on
 * the state alone), so a value the solver proved for a node is the value
 * of its state wherever it occurs: connect four's endgames reach the same
 * position by many move orders, each a node of its own in the tree. The
 * table is read when the descent enters a node and written when solve_up
 * proves one. Terminal states are not stored (they are exact at sight). */
#define PROOF_WAYS 4

static void proofs_open(proofs_t *t, uint32_t k, uint64_t mb)
{
    uint64_t slots = 1, bytes = mb << 20, per = sizeof(uint64_t) + (uint64_t)k * sizeof(float);
    while (2 * slots * per <= bytes) slots *= 2;
    if (slots < PROOF_WAYS) return; /* too small to hold a bucket: off */
    t->key = xcalloc(slots, sizeof *t->key);
    t->val = xcalloc(slots * k, sizeof *t->val);
    t->mask = slots - 1;
    t->k = k;
}

static void proofs_close(proofs_t *t)
{
    free(t->key);
    free(t->val);
    memset(t, 0, sizeof *t);
}

static void proofs_clear(proofs_t *t)
{
    if (t->key) memset(t->key, 0, (t->mask + 1) * sizeof *t->key);
}

static inline bool proofs_on(const engine_t *e) { return e->proofs && e->proofs->key; }

static inline uint64_t proof_key(uint64_t h) { return h ? h : 1; }

/* The bucket's lock: a leaf lock (no other lock is taken while it is held). */
static inline spin_t *proof_lock(proofs_t *t, uint64_t b) { return &t->mu[(b / PROOF_WAYS) % PROOF_LOCKS]; }

static bool proofs_get(engine_t *e, uint64_t h, double *z)
{
    proofs_t *t = e->proofs;
    uint64_t key = proof_key(h), b = key & t->mask & ~(uint64_t)(PROOF_WAYS - 1);
    bool found = false;
    spin_lock(proof_lock(t, b));
    for (uint64_t i = b; i < b + PROOF_WAYS && !found; i++)
        if (t->key[i] == key) {
            for (uint32_t r = 0; r < t->k; r++) z[r] = t->val[i * t->k + r];
            found = true;
        }
    spin_unlock(proof_lock(t, b));
    return found;
}

static void proofs_put(engine_t *e, uint64_t h, const double *z)
{
    proofs_t *t = e->proofs;
    uint64_t key = proof_key(h), b = key & t->mask & ~(uint64_t)(PROOF_WAYS - 1), slot = b;
    spin_lock(proof_lock(t, b));
    for (uint64_t i = b; i < b + PROOF_WAYS; i++) {
        if (t->key[i] == key || t->key[i] == 0) {
            slot = i;
            break;
        }
    }
    t->key[slot] = key;
    for (uint32_t r = 0; r < t->k; r++) t->val[slot * t->k + r] = (float)z[r];
    spin_unlock(proof_lock(t, b));
    e->st.tt_stored++;
}

/* ---- set-up ------------------------------------------------------------ */

void engine_init(engine_t *e, const game_t *g, uint32_t role, const search_spec_t *spec, uint64_t seed)
{
    memset(e, 0, sizeof *e);
    e->g = g;
    e->ctx = game_ctx_new(g);
    e->spec = spec;
    e->v = spec->v;
    spec_budget(spec, &e->b);
    e->k = game_num_roles(g);
    e->role = role;
    e->max_plies = MAX_PLAYOUT_PLIES;
    rng_seed(&e->rng, seed);
    e->pool = &e->pool_own;
    e->keys = &e->keys_own;
    e->joints = &e->joints_own;
    e->own = e;
    e->proofs = &e->proofs_own; /* opened by the first search (workers use worker 0's) */
    keys_init(e->keys, e->k);
    joints_init(e->joints, e->k);
    mast_init(&e->mast);
    nst_init(&e->nst, NST_MAX); /* a match row's bound: side_reserve */
    e->key_max = UINT32_MAX;
    e->root_state = game_state_new(g);
    e->sec_state = game_state_new(g);
    e->tmp_state[0] = game_state_new(g);
    e->tmp_state[1] = game_state_new(g);
    e->solver = e->v->match && spec->solver;
    if (e->solver && spec->lookahead && e->k == 2)
        for (int i = 0; i < 2; i++) {
            e->la_ctx[i] = game_ctx_new(g);
            game_ctx_scratch(e->la_ctx[i]); /* states seen once */
            e->la_st[i] = game_state_new(g);
        }
    e->line_value = -1;
    e->legal = xcalloc(e->k, sizeof *e->legal);
    e->n_legal = xcalloc(e->k, sizeof *e->n_legal);
    e->joint = xcalloc(e->k, sizeof *e->joint);
    e->dec = xcalloc(e->k, sizeof *e->dec);
    e->z = xcalloc(e->k, sizeof *e->z);
    e->root = NIL;

    bool grave = sel_amaf(e->v->sel);
    uint32_t K = dense_keys(g, spec);
    for (uint32_t r = 0; K && r < e->k; r++)
        for (uint32_t a = 0; a < game_num_moves(g, r); a++) keys_get(e->keys, r, a);
    if (e->v->tree == TREE_TWO) {
        uint32_t caps[2] = {e->b.n_top, e->b.n_sec - 1};
        bool rec[2] = {e->v->recycle, e->v->recycle};
        pool_init(e->pool, e->k, 2, caps, rec, grave, K);
    } else if (e->v->tree == TREE_SINGLE) {
        uint32_t caps[1] = {e->v->recycle && !e->v->match ? e->b.n : UINT32_MAX};
        bool rec[1] = {e->v->recycle};
        pool_init(e->pool, e->k, 1, caps, rec, grave, K);
        /* the cached tree states: rows of one unbounded tree, or the
         * match tree of one worker (not the paper's node-bounded rows,
         * whose memory is their N nodes). A match row reserves their
         * memory with cache=off too, so that its tree is bounded alike and
         * the key changes nothing but the time a search takes. */
        uint32_t slots = caps[0] == UINT32_MAX && (spec->threads <= 1 || !e->v->match) && !game_history_ordered(g)
                             ? NC_SLOTS
                             : 0;
        uint64_t slot_bytes = nc_slot_bytes(e->k, nc_moves(g, e->k));
        if (e->v->match) { /* one tree for the match, within memory= (LRU recycling past it) */
            uint64_t mem = (spec->memory_mb ? spec->memory_mb : engine_default_memory_mb()) * 1024 * 1024;
            uint32_t nkeys = 0;
            if (game_moves_enumerable(g))
                for (uint32_t r = 0; r < e->k; r++) nkeys += game_num_moves(g, r);
            uint64_t side = side_reserve(e, mem, spec->threads ? spec->threads : 1, nkeys);
            while (slots && slots * slot_bytes > mem / 16) slots = slots > 64 ? slots / 2 : 0; /* a sixteenth at most */
            side += slots * slot_bytes;
            pool_bound(e->pool, side < mem / 2 ? mem - side : mem / 2);
        }
        if (slots && spec->cache) nc_open(e, slots);
    }
    e->pool_ready = e->v->tree != TREE_NONE;
    playout_init(e);
}

static bool victim_lock(void *arg, uint32_t parent) { return spin_try(nl_of(arg, parent)); }
static void victim_unlock(void *arg, uint32_t parent) { spin_unlock(nl_of(arg, parent)); }

bool engine_share(engine_t *w, engine_t *owner)
{
    /* Workers read the key table outside the lock (playouts): every key
     * must exist before they start, which only an engine whose moves are
     * enumerable can promise (game.h). */
    if (!game_moves_enumerable(owner->g)) return false;
    for (uint32_t r = 0; r < owner->k; r++)
        for (uint32_t a = 0; a < game_num_moves(owner->g, r); a++) keys_get(owner->keys, r, a);
    if (!owner->mu) {
        owner->mu_own = 0;
        owner->mu = &owner->mu_own;
        owner->nl_own = xcalloc(2 * NODE_LOCKS, sizeof *owner->nl_own); /* free locks, 64 bytes apart */
        owner->nl = owner->nl_own;
        pool_fix(owner->pool); /* read without the tree's lock: never moved */
        owner->pool->victim_lock = victim_lock;
        owner->pool->victim_unlock = victim_unlock;
        owner->pool->victim_arg = owner;
    }
    if (w->pool_ready && w->pool == &w->pool_own) pool_free(&w->pool_own); /* its own is never used: worker 0's tree */
    w->pool = owner->pool;
    w->nl = owner->nl;
    w->keys = owner->keys;
    w->joints = owner->joints;
    w->mu = owner->mu;
    w->own = owner;
    w->proofs = owner->proofs;
    return true;
}

void engine_free(engine_t *e)
{
    if (e->pool_ready) pool_free(&e->pool_own);
    keys_free(&e->keys_own);
    joints_free(&e->joints_own);
    free(e->nl_own);
    mast_free(&e->mast);
    nst_free(&e->nst);
    free(e->lgr);
    playout_free(e);
    game_state_free(e->root_state);
    game_state_free(e->sec_state);
    game_state_free(e->tmp_state[0]);
    game_state_free(e->tmp_state[1]);
    for (int i = 0; i < 2; i++) {
        game_ctx_free(e->la_ctx[i]);
        game_state_free(e->la_st[i]);
    }
    free(e->pmover);
    free(e->pmoves);
    proofs_close(&e->proofs_own);
    free(e->phash);
    free(e->line_hash);
    free(e->line_move);
    game_ctx_free(e->ctx);
    free(e->path);
    free(e->step_start);
    free(e->skeys);
    free(e->slot);
    free(e->slot_gen);
    free(e->kstamp);
    free(e->klist);
    free(e->kz);
    free(e->knum);
    free(e->defer);
    free(e->fm);
    free(e->cand);
    free(e->cand_q);
    free(e->lrubuf);
    nc_close(e);
    free(e->legal);
    free(e->n_legal);
    free(e->joint);
    free(e->dec);
    free(e->z);
    memset(e, 0, sizeof *e);
}

void engine_reset(engine_t *e, uint64_t seed)
{
    mast_clear(&e->mast); /* spec §9: the table is empty at game start */
    nst_clear(&e->nst);
    if (e->lgr) memset(e->lgr, 0, e->lgr_cap * sizeof *e->lgr);
    playout_reset(e);
    rng_seed(&e->rng, seed);
    e->root = NIL; /* a new match: no tree to reuse */
    nc_clear(e);
    e->line_value = -1;
    proofs_clear(&e->proofs_own); /* each match alike, whatever came before */
}

/* ---- scratch ----------------------------------------------------------- */

static void path_push(engine_t *e, uint32_t n)
{
    if (proofs_on(e)) XVEC_RESERVE(&e->phash, &e->phash_cap, e->path_len + 1);
    XVEC_RESERVE(&e->path, &e->path_cap, e->path_len + 1);
    e->path[e->path_len++] = n;
}

static void step_begin(engine_t *e)
{
    XVEC_RESERVE(&e->step_start, &e->steps_cap, e->n_steps + 2);
    e->step_start[e->n_steps++] = (uint32_t)e->n_skeys;
}

static inline void step_key(engine_t *e, uint32_t key)
{
    XVEC_RESERVE(&e->skeys, &e->skeys_cap, e->n_skeys + 1);
    e->skeys[e->n_skeys++] = key;
}

static inline size_t step_end(const engine_t *e, size_t t)
{
    return t + 1 < e->n_steps ? e->step_start[t + 1] : e->n_skeys;
}

/* Legal moves of every role at the current state; the deciders (|legal| >= 2,
 * spec §2.2) into e->dec. Returns the number of deciders, or -1 if a role
 * has no legal move (a defect of the rules). */
static int gather_legal(engine_t *e)
{
    int nd = 0;
    for (uint32_t r = 0; r < e->k; r++) {
        e->n_legal[r] = game_legal(e->ctx, r, &e->legal[r]);
        if (e->n_legal[r] == 0) return -1;
        if (e->n_legal[r] >= 2) e->dec[nd++] = r;
        else e->joint[r] = e->legal[r][0];
    }
    return nd;
}

static void rewards_terminal(engine_t *e)
{
    e->reached_terminal = true;
    for (uint32_t r = 0; r < e->k; r++) {
        int g = game_goal(e->ctx, r);
        e->z[r] = g >= 0 ? g / 100.0 : 0.0;
    }
}

/* A playout cut by the ply cap or a rules defect (spec §2.3). */
static void rewards_cut(engine_t *e)
{
    bool all = true;
    for (uint32_t r = 0; r < e->k; r++) {
        int g = game_goal(e->ctx, r);
        if (g < 0) all = false;
        e->z[r] = g >= 0 ? g / 100.0 : 0.5;
    }
    if (!all)
        for (uint32_t r = 0; r < e->k; r++) e->z[r] = 0.5;
    e->st.capped++;
}

/* ---- playouts (spec §9) -------------------------------------------------- */

uint32_t engine_playout_move(engine_t *e, uint32_t role)
{
    int nd = gather_legal(e);
    if (nd < 0) return UINT32_MAX;
    if (e->ps && e->n_legal[role] >= 2) { /* the spec's strategies (playout.c, spec §14) */
        e->ps->quiet = false; /* a state of the caller's: no last step */
        playout_joint(e, nd);
        return e->joint[role];
    }
    return e->n_legal[role] >= 2 ? playout_pick(e, role) : e->legal[role][0];
}

static void playout(engine_t *e)
{
    playout_begin(e); /* each role's strategy (playout.c, spec §14.2) */
    for (uint64_t plies = 0;; plies++) {
        if (game_is_terminal(e->ctx)) {
            rewards_terminal(e);
            break;
        }
        int nd = plies < e->max_plies ? playout_game_step(e) : -1; /* the game's own policy (game.h) */
        bool own = nd >= 0;
        if (!own && plies < e->max_plies) nd = gather_legal(e);
        if (nd < 0) {
            rewards_cut(e);
            break;
        }
        /* the moves are chosen before their step is recorded: while they
         * are, the last recorded step is the one before (NST and LGR read
         * its keys; playout.c) */
        if (!own) playout_joint(e, nd);
        step_begin(e);
        for (int i = 0; i < nd; i++) step_key(e, keys_of(e->keys, e->dec[i], e->joint[e->dec[i]]));
        game_ctx_play(e->ctx, e->joint);
    }
    playout_end(e);
}

/* ---- the MCTS solver (match rows; issue 12) ------------------------------ */

/* Winands, Björnsson and Saito, "Monte-Carlo Tree Search Solver" (2008),
 * generalised to n players and simultaneous moves: terminal nodes are
 * exact; a node whose mover has a child worth the most a goal can give
 * (100) takes that child's values; a node whose every edge leads to a
 * solved child takes the best of them for its mover (a simultaneous node
 * only when all its children agree, since a matrix game's value needs mixed
 * strategies). A solved node's W holds its exact value and no longer
 * accumulates (node_update); node_mean and the selection read it as is. */
#define SOLVED_EPS 1e-4

static inline bool is_solved(const pool_t *p, uint32_t n) { return node_solved(p, n); }

/* A solved node's W is its exact value (node_t.solved). */
static inline double solved_value(const pool_t *p, uint32_t n, uint32_t r) { return ldf(&pool_w(p, n)[r]); }

/* Mark n solved with the rewards in z, under n's lock: W first, then the
 * flag with release order, so a worker that sees the flag reads the value. */
static void mark_solved_as(engine_t *e, uint32_t n, const double *z, uint8_t how)
{
    float *w = pool_w(e->pool, n);
    stats_lock(e, n);
    for (uint32_t r = 0; r < e->k; r++) stf(&w[r], (float)z[r]);
    __atomic_store_n(&e->pool->nodes[n].solved, how, __ATOMIC_RELEASE);
    stats_unlock(e, n);
}

static void mark_solved(engine_t *e, uint32_t n, const double *z) { mark_solved_as(e, n, z, SOLVED_HERE); }

static bool same_values(const engine_t *e, uint32_t a, uint32_t b)
{
    for (uint32_t r = 0; r < e->k; r++)
        if (fabs(solved_value(e->pool, a, r) - solved_value(e->pool, b, r)) > SOLVED_EPS) return false;
    return true;
}

/* Whether every role but r gets 0 at solved node c. */
static bool others_nil(const engine_t *e, uint32_t c, uint32_t r)
{
    for (uint32_t o = 0; o < e->k; o++)
        if (o != r && solved_value(e->pool, c, o) > SOLVED_EPS) return false;
    return true;
}

/* Try to prove x from its children (mover and edge count recorded when x
 * was selected through). Into e->z: the value of x, exact for the mover
 * and for two-player zero-sum games; for the other roles of an n-player or
 * general-sum game the least they get whichever of its best children the
 * mover takes (a child's vector taken whole would be one the mover may not
 * choose: a proven win for a role the mover can still leave at 0). */
static bool try_solve(engine_t *e, uint32_t x, uint32_t mover, uint32_t n_edges)
{
    pool_t *p = e->pool;
    uint32_t best = NIL, count = 0;
    bool all = true, same = true, win = false;
    double bv = -1;
    for (uint32_t c = p->nodes[x].first_child; c != NIL; c = p->nodes[c].next_sibling) {
        count++;
        if (!is_solved(p, c)) {
            all = false;
            continue;
        }
        if (mover < PI_SIMUL) {
            double v = solved_value(p, c, mover);
            /* the mover's best possible outcome, leaving the others their
             * least: no other child can make it any worse for them */
            if (v >= 1 - SOLVED_EPS && others_nil(e, c, mover)) {
                best = c;
                win = true;
                break;
            }
            if (v > bv + SOLVED_EPS) {
                bv = v;
                best = c;
                same = true;
            } else if (v >= bv - SOLVED_EPS && best != NIL && same) {
                same = same_values(e, best, c); /* a tie the mover may break either way */
            }
        } else if (best == NIL) {
            best = c;
        } else if (same) {
            same = same_values(e, best, c);
        }
    }
    if (!win && (!all || count < n_edges || (mover >= PI_SIMUL && !same) || best == NIL)) return false;
    for (uint32_t r = 0; r < e->k; r++) e->z[r] = solved_value(p, best, r);
    if (!win && mover < PI_SIMUL && !same) /* ties: each other role's least among them */
        for (uint32_t c = p->nodes[x].first_child; c != NIL; c = p->nodes[c].next_sibling)
            if (solved_value(p, c, mover) >= bv - SOLVED_EPS)
                for (uint32_t r = 0; r < e->k; r++)
                    if (r != mover) e->z[r] = fmin(e->z[r], solved_value(p, c, r));
    mark_solved(e, x, e->z);
    return true;
}

/* After a simulation that ended in a solved node: prove what it proves,
 * bottom-up along the path. e->z is overwritten (backprop is done). */
static void solve_up(engine_t *e)
{
    if (e->path_len < 2 || !is_solved(e->pool, e->path[e->path_len - 1])) return;
    for (size_t i = e->path_len - 1; i-- > 0;) {
        uint32_t x = e->path[i];
        node_lock(e, x); /* x's child list (mark_solved takes its statistics' lock) */
        bool proved = !is_solved(e->pool, x) && try_solve(e, x, e->pmover[i], e->pmoves[i]);
        node_unlock(e, x);
        if (!proved) break;
        if (proofs_on(e)) proofs_put(e, e->phash[i], e->z);
    }
}

/* ---- two-ply lookahead (lookahead=on) ------------------------------------ */

/* MCTS-MS (Baier and Winands, "MCTS-Minimax Hybrids", IEEE TCIAIG 7(2),
 * 2015): a shallow minimax search at a tree node proves what the solver
 * would otherwise learn only after expanding every child, and the
 * playouts' noise around a threat in one vanishes from the values above.
 * On a node's second visit (its first playout is done) in a two-player
 * game, with one decider d: a move of d that ends the game with d's goal
 * 100 proves a win; if every move of d ends the game lost for d (d 0, the
 * other 100) or lets the other reply so, the node is proven lost. Both are
 * the solver's own rules applied to children that are not yet in the tree
 * (try_solve), so the values are the ones it would reach. The check costs
 * n next states for n moves, plus the replies of the moves seen while all
 * of them lose (n^2 at most), at most once per node. */
#define LOOKAHEAD_VISITS 1

static bool la_terminal(engine_t *e, int i, const move_id_t *joint, game_ctx_t *from)
{
    game_next(from, joint, e->la_st[i]);
    game_ctx_set_state(e->la_ctx[i], e->la_st[i]);
    return game_is_terminal(e->la_ctx[i]);
}

static bool la_lost(game_ctx_t *c, uint32_t d) { return game_goal(c, d) == 0 && game_goal(c, 1 - d) == 100; }

/* e->ctx at the node, gather_legal done with one decider: true with the
 * node's exact values in e->z when the check proves it. */
static bool lookahead_proves(engine_t *e)
{
    uint32_t d = e->dec[0], o = 1 - d, n = e->n_legal[d];
    const move_id_t *m = e->legal[d];
    game_ctx_t *c1 = e->la_ctx[0], *c2 = e->la_ctx[1];
    e->st.la_checks++;
    e->la_j[o] = e->joint[o];
    /* One pass: each move's next state once; the replies only while every
     * move so far loses, a win in one wherever it comes. */
    bool all_lost = true; /* every move seen so far loses at once or to a reply */
    for (uint32_t i = 0; i < n; i++) {
        e->la_j[d] = m[i];
        if (la_terminal(e, 0, e->la_j, e->ctx)) {
            if (game_goal(c1, d) >= 100) { /* a win in one */
                for (uint32_t r = 0; r < 2; r++) {
                    int g = game_goal(c1, r);
                    e->z[r] = g >= 0 ? g / 100.0 : 0.0; /* as rewards_terminal */
                }
                e->st.la_proofs++;
                return true;
            }
            all_lost = all_lost && la_lost(c1, d);
            continue;
        }
        if (!all_lost) continue;
        const move_id_t *rm, *dm;
        uint32_t nr = game_legal(c1, o, &rm), ndm = game_legal(c1, d, &dm);
        bool lost = false;
        if (ndm == 1 && nr > 0) { /* else d decides again: not a reply */
            move_id_t j[2];
            j[d] = dm[0];
            for (uint32_t a = 0; a < nr && !lost; a++) {
                j[o] = rm[a];
                lost = la_terminal(e, 1, j, c1) && la_lost(c2, d);
            }
        }
        all_lost = lost;
    }
    if (!all_lost) return false;
    e->z[d] = 0;
    e->z[o] = 1;
    e->st.la_proofs++;
    return true;
}

/* ---- selection (spec §4.1, §4.3, §4.6, §5) ------------------------------ */

static void slot_fit(engine_t *e, uint32_t id)
{
    if (id < e->slot_cap) return;
    size_t old = e->slot_cap, cap = old ? old : 64;
    while (cap <= id) cap *= 2;
    e->slot = xreallocarray(e->slot, cap, sizeof *e->slot);
    e->slot_gen = xreallocarray(e->slot_gen, cap, sizeof *e->slot_gen);
    memset(e->slot_gen + old, 0, (cap - old) * sizeof *e->slot_gen);
    e->slot_cap = cap;
}

/* The scratch map edge -> child of x, stamped with a generation (spec §4.3). */
static void slot_build(engine_t *e, uint32_t x)
{
    if (++e->gen == 0) {
        memset(e->slot_gen, 0, e->slot_cap * sizeof *e->slot_gen);
        e->gen = 1;
    }
    for (uint32_t c = e->pool->nodes[x].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
        uint32_t edge = e->pool->nodes[c].edge;
        /* select_move reads the child's rewards next: a separate array */
        __builtin_prefetch(pool_w(e->pool, c));
        slot_fit(e, edge);
        e->slot[edge] = c;
        e->slot_gen[edge] = e->gen;
    }
}

static inline uint32_t slot_get(const engine_t *e, uint32_t edge)
{
    return edge < e->slot_cap && e->slot_gen[edge] == e->gen ? e->slot[edge] : NIL;
}

/* Value of a move with v visits and reward sum w for its role and AMAF
 * count p and sum aw at the reference node (GRAVE, RAVE), under the
 * variant's selection rule. lnV = log of the parent's visits (UCT). */
static inline double move_value(const engine_t *e, sel_kind_t sel, double bias, double v, double w, uint32_t p, float aw,
                                double lnV, double c)
{
    switch (sel) {
    case SEL_UCT:
        if (v == 0) return INFINITY;
        return w / v + c * sqrt(lnV / v);
    case SEL_GRAVE: {
        if (v == 0 && p == 0) return INFINITY; /* first-play urgency (spec §16 A5) */
        /* (1 - beta) w/v + beta aw/p with beta = p / (p + v + bias p v) is
         * (w (1 + bias p) + aw) / (p + v + bias p v): one division instead
         * of three (w = 0 when v = 0, aw = 0 when p = 0); selection is a
         * fifth of a connect four search. */
        double bp = bias * p;
        double val = (w * (1 + bp) + aw) / (p + v + bp * v);
        /* Optional exploration (default c = 0: none, as spec §4.1 and [C]
         * have it). v + 1 keeps unexpanded moves valued by AMAF, finitely. */
        if (c > 0) val += c * sqrt(lnV / (v + 1));
        return val;
    }
    case SEL_RAVE: { /* spec §14.1: [M]'s UCT/RAVE, CADIA's beta over the parent's visits */
        if (v == 0 && p == 0) return INFINITY;
        double q = v > 0 ? w / v : 0, beta = p == 0 ? 0 : v == 0 ? 1 : sqrt(e->spec->rave_k / (3 * exp(lnV) + e->spec->rave_k));
        return (1 - beta) * q + (p ? beta * (aw / p) : 0) + c * sqrt(lnV / (v + 1));
    }
    case SEL_FLAT:
        return -v; /* least tried first */
    case SEL_NONE:
    case SEL_AB:
    case SEL_NMCS:
        break;
    }
    return 0;
}

/* Whether move_value reads lnV: log() is a twentieth of a GRAVE tree step,
 * and GRAVE's default c = 0 does not need it. */
static bool needs_lnV(const engine_t *e)
{
    return e->v->sel == SEL_UCT || e->v->sel == SEL_RAVE || e->spec->c > 0 || e->spec->oppc > 0;
}

/* Selection at a proven child c of the i-th move (solver on): its exact value
 * offered, no exploration, a proven loss only if nothing else is left;
 * true when offered. lostvisit=on: a proven loss is an ordinary move of
 * mean 0 (its W is the value, 0) whose AMAF still weighs, so it is
 * visited, and backs up its loss, as often as without the solver: a test
 * of whether never visiting proven losses makes the parents' means too
 * hopeful (issue 12); false then. */
static inline bool solved_offer(engine_t *e, argmax_t *am, uint32_t c, uint32_t r, uint32_t i, bool lostvisit)
{
    if (!is_solved(e->pool, c)) return false;
    double sv = solved_value(e->pool, c, r);
    if (sv <= SOLVED_EPS && lostvisit) return false;
    argmax_offer(am, &e->rng, i, sv <= SOLVED_EPS ? -1.0 : sv);
    return true;
}

/* The argmax of select_move's loop. Its flags are constants at the call
 * that matters (GRAVE on dense AMAF rows at a turn-taking node of a tree no
 * other worker shares), so the compiler makes that call its own copy of
 * the loop without the other cases' tests: 4% of a connectFour GRAVE
 * search (issue 12, item 7), as apply_diff does in the propnet. */
static inline __attribute__((always_inline)) uint32_t select_loop(engine_t *e, uint32_t x, uint32_t r, uint32_t rho,
                                                                  double lnV, double cx, sel_kind_t sel, bool simul,
                                                                  bool dense, bool virt, const uint32_t *kid,
                                                                  bool plain)
{
    if (plain) cx = 0; /* plain: no solver, no exploration term (GRAVE's own rule) */
    /* What the loop reads in locals: argmax_offer may call the RNG (a
     * store through e, which may alias size_t and uint32_t fields), after
     * which the compiler would reload every field read through e or p;
     * selection is a fifth of a connectFour GRAVE search (issue 12, item 7). */
    pool_t *p = e->pool;
    keys_t *ks = e->keys;
    const move_id_t *m = e->legal[r];
    const uint32_t n = e->n_legal[r], K = p->K, k = p->k, gen = e->gen;
    const node_t *nodes = p->nodes;
    const float *W = p->w;
    const uint32_t *slot = e->slot, *sgen = e->slot_gen;
    const size_t scap = e->slot_cap;
    const bool amaf = sel_amaf(sel), solver = !plain && e->solver, lostvisit = e->spec->lostvisit;
    const bool keyed = amaf || simul; /* UCT at a turn-taking node reads no key */
    const double bias = e->spec->bias;
    const amaf_dense_t *row = dense ? amaf_row(p, rho) : NULL; /* rho's row once, not per move */
    const uint32_t *of = ks->of[r];
    uint32_t of_len = ks->of_len[r];
    argmax_t am = {-INFINITY, 0, 0}; /* picks an index into m */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t mv = m[i], key = 0, v = 0, ap = 0;
        float w = 0, aw = 0;
        if (keyed) {
            key = mv < of_len ? of[mv] : NIL;
            if (key == NIL) { /* a new key: the map may grow */
                key = keys_get(ks, r, mv);
                of = ks->of[r];
                of_len = ks->of_len[r];
            }
        }
        if (row && key < K) {
            ap = ld32(&row[key].p);
            aw = ldf(&row[key].w);
        } else if (amaf && !dense) {
            amaf_get(p, rho, key, &ap, &aw);
        }
        if (simul) {
            marg_get(p, x, key, &v, &w);
        } else {
            uint32_t c = kid ? nc_child(nodes, kid, i, x, mv) : mv < scap && sgen[mv] == gen ? slot[mv] : NIL;
            if (c != NIL) {
                if (solver && solved_offer(e, &am, c, r, i, lostvisit)) continue;
                v = ld32(&nodes[c].visits);
                w = ldf(&W[(size_t)c * k + r]);
                if (virt) v += __atomic_load_n(&nodes[c].flight, __ATOMIC_RELAXED); /* virtual loss */
            }
        }
        argmax_offer(&am, &e->rng, i, move_value(e, sel, bias, v, w, ap, aw, lnV, cx));
    }
    return am.pick;
}

/* The index in e->legal[r] of decider r's argmax move at x (random ties,
 * spec §4.1; the index spares select_among a search of the list). Turn-taking
 * nodes read child statistics through kid (x's children by legal move,
 * nc_kid) or else the slot map; simultaneous nodes read the marginal table
 * (decoupled selection, spec §4.6). */
static uint32_t select_move(engine_t *e, uint32_t x, uint32_t r, uint32_t rho, bool simul, double lnV,
                            const uint32_t *kid)
{
    /* oppc (match rows): a search on another role's turn (our move forced:
     * a noop, or pondering) keeps only the subtree of the reply actually
     * played; its root explores with its own constant, so that more replies
     * than the one this searcher likes best keep visits
     * (bench/results/compete.md, session 22: on hex7 with c = 0 the reply
     * GRAVE played had kept 10-270 of about 5,000 visits in the opening) */
    bool opp_root = x == e->root && r != e->role && e->n_legal[e->role] < 2; /* our own move forced */
    double cx = opp_root && e->spec->oppc >= 0 ? e->spec->oppc : e->spec->c;
    sel_kind_t sel = e->v->sel;
    bool dense = sel_amaf(sel) && e->pool->K, virt = e->mu != NULL;
    if (sel == SEL_GRAVE && dense && !simul && !virt) {
        if (kid && !e->solver && cx == 0) /* the paper's GRAVE */
            return select_loop(e, x, r, rho, lnV, 0, SEL_GRAVE, false, true, false, kid, true);
        if (kid) return select_loop(e, x, r, rho, lnV, cx, SEL_GRAVE, false, true, false, kid, false);
        return select_loop(e, x, r, rho, lnV, cx, SEL_GRAVE, false, true, false, NULL, false);
    }
    return select_loop(e, x, r, rho, lnV, cx, sel, simul, dense, virt, kid, false);
}

/* Choose the joint move at tree node x (the current state) into e->joint;
 * *child gets the existing child for it or NIL, *edge its edge id. Returns
 * false on a rules defect. */
static void select_among(engine_t *e, int nd, uint32_t x, uint32_t rho, const uint32_t *kid, uint32_t *child,
                         uint32_t *edge, uint32_t *pick);

static bool select_joint(engine_t *e, uint32_t x, uint32_t rho, uint32_t *child, uint32_t *edge)
{
    int nd = gather_legal(e);
    if (nd < 0) return false;
    slot_build(e, x);
    uint32_t pick;
    select_among(e, nd, x, rho, NULL, child, edge, &pick);
    return true;
}

/* select_joint once the legal moves are gathered (nd deciders) and x's
 * children are either in kid (one decider: nc_kid) or in the slot map
 * (slot_build); *pick gets the move's index in kid (kid only). */
static void select_among(engine_t *e, int nd, uint32_t x, uint32_t rho, const uint32_t *kid, uint32_t *child,
                         uint32_t *edge, uint32_t *pick)
{
    e->st.selections++;
    if (rho == x) e->st.ref_self++;
    if (rho == e->root) e->st.ref_root++;
    uint32_t vx = node_visits(e->pool, x);
    double lnV = needs_lnV(e) ? log((double)(vx ? vx : 1)) : 0;
    if (e->solver) { /* x is the path's last node */
        size_t i = e->path_len - 1;
        if (i >= e->pinfo_cap) { /* as long as the path can be */
            e->pinfo_cap = e->path_cap;
            e->pmover = xreallocarray(e->pmover, e->pinfo_cap, sizeof *e->pmover);
            e->pmoves = xreallocarray(e->pmoves, e->pinfo_cap, sizeof *e->pmoves);
        }
        uint64_t edges = 1;
        for (int d = 0; d < nd; d++) {
            edges *= e->n_legal[e->dec[d]];
            if (edges > UINT32_MAX) edges = UINT32_MAX;
        }
        e->pmover[i] = nd == 0 ? PI_FORCED : nd == 1 ? e->dec[0] : PI_SIMUL;
        e->pmoves[i] = (uint32_t)edges;
    }
    if (nd == 0) {
        *edge = 0;
    } else if (nd == 1) {
        uint32_t r = e->dec[0];
        uint32_t i = select_move(e, x, r, rho, false, lnV, kid);
        *edge = e->joint[r] = e->legal[r][i];
        if (kid) {
            *child = nc_child(e->pool->nodes, kid, i, x, *edge);
            *pick = i;
            return;
        }
    } else {
        for (int i = 0; i < nd; i++) {
            uint32_t d = e->dec[i];
            e->joint[d] = e->legal[d][select_move(e, x, d, rho, true, lnV, NULL)];
        }
        *edge = joints_intern(e->joints, e->joint);
    }
    *child = slot_get(e, *edge);
}

/* Record the selected joint move as a tree step. */
static void record_tree_step(engine_t *e)
{
    step_begin(e);
    for (uint32_t r = 0; r < e->k; r++)
        if (e->n_legal[r] >= 2) step_key(e, keys_of(e->keys, r, e->joint[r]));
    e->tree_steps++;
}

/* Record it and play it. */
static void play_tree_step(engine_t *e)
{
    record_tree_step(e);
    game_ctx_play(e->ctx, e->joint);
}

/* ---- backpropagation (spec §4.5) ---------------------------------------- */

/* Last good reply with forgetting (LGRF-1: Baier and Drake, "The Power of
 * Forgetting: Improving the Last-Good-Reply Policy in Monte Carlo Go",
 * IEEE TCIAIG 2(4), 2010; for GGP, Tak, Winands and Björnsson 2012): after
 * each simulation, every move of a role with the best reward (when the
 * rewards differ) becomes its reply to each other role's move of the step
 * before; a role without the best reward forgets such a reply if it is the
 * one stored. The whole simulation counts, tree steps included, as in
 * Baier and Drake. */
static void lgr_update(engine_t *e)
{
    uint32_t k = e->k;
    size_t need = (size_t)(e->keys->n < e->key_max ? e->keys->n : e->key_max) * k;
    if (need > e->lgr_cap) {
        size_t old = e->lgr_cap;
        XVEC_RESERVE(&e->lgr, &e->lgr_cap, need);
        memset(e->lgr + old, 0, (e->lgr_cap - old) * sizeof *e->lgr);
    }
    double best = e->z[0], worst = e->z[0];
    for (uint32_t r = 1; r < k; r++) {
        if (e->z[r] > best) best = e->z[r];
        if (e->z[r] < worst) worst = e->z[r];
    }
    if (!(best > worst)) return; /* every role alike: nothing to learn */
    for (size_t t = 1; t < e->n_steps; t++)
        for (size_t j = e->step_start[t]; j < step_end(e, t); j++) {
            uint32_t key = e->skeys[j], r = e->keys->role[key];
            bool good = e->z[r] >= best;
            for (size_t i = e->step_start[t - 1]; i < e->step_start[t]; i++) {
                uint32_t prev = e->skeys[i];
                if (e->keys->role[prev] == r || prev >= e->key_max) continue;
                uint32_t *slot = &e->lgr[(size_t)prev * k + r];
                if (good) *slot = key + 1;
                else if (*slot == key + 1) *slot = 0;
            }
        }
}

/* What backprop needs that does not touch the tree, done before the tree's
 * lock is taken (tree-parallel workers hold it only for the tree): for each
 * path depth i, e->knum[i] = how many of the distinct keys played from
 * depth i on head e->klist (the AMAF suffix, spec §4.5); and the worker's
 * own MAST table (spec §9: every decision step, every occurrence). */
static void backprop_prepare(engine_t *e)
{
    bool grave = sel_amaf(e->v->sel);
    uint32_t nkeys = e->keys->n;
    if (grave) {
        if (nkeys > e->kstamp_cap) {
            size_t old = e->kstamp_cap;
            XVEC_RESERVE(&e->kstamp, &e->kstamp_cap, nkeys);
            memset(e->kstamp + old, 0, (e->kstamp_cap - old) * sizeof *e->kstamp);
        }
        XVEC_RESERVE(&e->klist, &e->klist_cap, nkeys);
        XVEC_RESERVE(&e->kz, &e->kz_cap, nkeys);
        XVEC_RESERVE(&e->knum, &e->knum_cap, e->path_len);
        if (++e->kgen == 0) {
            memset(e->kstamp, 0, e->kstamp_cap * sizeof *e->kstamp);
            e->kgen = 1;
        }
        size_t nk = 0, t = e->n_steps;
        for (size_t i = e->path_len; i-- > 0;) {
            while (t > i) { /* extend the suffix to the steps played from depth i on */
                t--;
                for (size_t j = e->step_start[t]; j < step_end(e, t); j++) {
                    uint32_t key = e->skeys[j];
                    if (e->kstamp[key] != e->kgen) {
                        e->kstamp[key] = e->kgen;
                        e->klist[nk++] = key;
                    }
                }
            }
            e->knum[i] = (uint32_t)nk;
        }
    }
    if (e->spec->mast) {
        mast_reserve(&e->mast, nkeys < e->key_max ? nkeys : e->key_max);
        for (size_t j = 0; j < e->n_skeys; j++) {
            uint32_t key = e->skeys[j];
            if (key >= e->key_max) continue;
            mast_add(&e->mast, key, e->z[e->keys->role[key]]);
        }
    }
    if (e->spec->lgr) lgr_update(e);
    if (e->spec->nst) /* NST's 2-grams: each key after each key of the step before */
        for (size_t t = 1; t < e->n_steps; t++)
            for (size_t j = e->step_start[t]; j < step_end(e, t); j++) {
                uint32_t key = e->skeys[j];
                double z = e->z[e->keys->role[key]];
                for (size_t i = e->step_start[t - 1]; i < e->step_start[t]; i++) nst_add(&e->nst, e->skeys[i], key, z);
            }
}

/* The statistics of path node n at depth i (n's lock held): V, W (a solved
 * node's W is its value and stays), AMAF and marginal tables. Workers of a
 * shared tree take the tree's lock too where a table is allocated or sparse
 * (those move; dense lazy blocks do not). */
static void node_update(engine_t *e, uint32_t n, size_t i, bool grave)
{
    pool_t *p = e->pool;
    float *w = pool_w(p, n);
    uint32_t v = p->nodes[n].visits + 1;
    if (!node_solved(p, n))
        for (uint32_t r = 0; r < e->k; r++) stf(&w[r], w[r] + (float)e->z[r]);
    st32(&p->nodes[n].visits, v);
    if (grave && v >= e->v->amaf_from) { /* lazy tables: see variant_t.amaf_from */
        bool locked = e->mu && (!p->K || p->nodes[n].amaf == NIL);
        if (locked) tree_lock(e);
        if (p->K) { /* dense: n's row once (amaf_row_mut), not per key */
            amaf_dense_t *row = amaf_row_mut(p, n);
            /* in locals: the row's stores could alias e's and p's fields,
             * which the loop would otherwise read again at every key (the
             * backup's AMAF adds cost three times their work) */
            const uint32_t *klist = e->klist, K = p->K;
            const float *kz = e->kz;
            const size_t nk = e->knum[i];
            if (row)
                for (size_t j = 0; j < nk; j++)
                    if (klist[j] < K) amaf_row_add(&row[klist[j]], kz[j]);
        } else if (amaf_ensure(p, n)) {
            for (size_t j = 0; j < e->knum[i]; j++) amaf_add(p, n, e->klist[j], e->kz[j]);
        }
        if (locked) tree_unlock(e);
    }
    if (i < e->tree_steps && step_end(e, i) - e->step_start[i] >= 2) { /* simultaneous node */
        tree_lock(e);
        for (size_t j = e->step_start[i]; j < step_end(e, i); j++)
            marg_add(p, n, e->skeys[j], (float)e->z[e->keys->role[e->skeys[j]]]);
        tree_unlock(e);
    }
}

/* Workers of a shared tree move the nodes of their simulations to the back
 * of the LRU in batches: whenever the tree's lock is free, else once many
 * wait (or the search ends). Waiting for that lock after every simulation
 * made the workers queue behind each other and then walk the same path in
 * lock step (1.0-1.3x one worker instead of 1.7x). Each batch pushes every
 * path deepest first, so a node's last push is followed by its parent's
 * and invariant (I) of spec §6.3 holds again once all batches are in. A
 * node recycled meanwhile is pushed as the node it has become: only its
 * recency is off. */
#define LRU_BATCH_MAX 8192

static void lru_flush(engine_t *e, bool wait)
{
    if (!e->lrubuf_len) return;
    if (!spin_try(e->mu)) {
        if (!wait && e->lrubuf_len < LRU_BATCH_MAX) return;
        spin_lock(e->mu);
    }
    for (size_t j = 0; j < e->lrubuf_len; j++) pool_lru_push_back(e->pool, e->lrubuf[j]);
    pool_note_peak(e->pool);
    spin_unlock(e->mu);
    e->lrubuf_len = 0;
}

/* The tree's part of backprop, after backprop_prepare: each node under its
 * own lock, then the LRU under the tree's lock once. */
static void backprop_tree(engine_t *e, uint32_t push_region)
{
    pool_t *p = e->pool;
    bool grave = sel_amaf(e->v->sel);
    size_t deferred = 0;
    if (grave && e->path_len) /* each key's reward once, not per path node (after relative_bonus) */
        for (size_t j = 0; j < e->knum[0]; j++) e->kz[j] = (float)e->z[e->keys->role[e->klist[j]]];
    for (size_t i = e->path_len; i-- > 0;) {
        uint32_t n = e->path[i];
        if (e->mu && !spin_try(sl_of(e, n))) {
            /* Another worker is backing up through n, most likely on the
             * same path: do n last rather than follow it up in lock step. */
            XVEC_RESERVE(&e->defer, &e->defer_cap, deferred + 1);
            e->defer[deferred++] = (uint32_t)i;
            continue;
        }
        node_update(e, n, i, grave);
        stats_unlock(e, n);
    }
    for (size_t j = 0; j < deferred; j++) {
        size_t i = e->defer[j];
        stats_lock(e, e->path[i]);
        node_update(e, e->path[i], i, grave);
        stats_unlock(e, e->path[i]);
    }
    /* Before the path's nodes are released: out of flight, another worker
     * may recycle them, and a proof would land on a reused id. */
    if (e->solver) solve_up(e);
    if (e->mu) {
        for (size_t i = e->path_len; i-- > 0;) {
            uint32_t n = e->path[i];
            __atomic_sub_fetch(&p->nodes[n].flight, 1, __ATOMIC_RELEASE); /* pairs with recycle's acquire */
            XVEC_RESERVE(&e->lrubuf, &e->lrubuf_cap, e->lrubuf_len + 1);
            e->lrubuf[e->lrubuf_len++] = n;
        }
        lru_flush(e, false);
    } else {
        for (size_t i = e->path_len; i-- > 0;) {
            uint32_t n = e->path[i];
            if (p->nodes[n].region >= push_region) pool_lru_push_back(p, n); /* deepest first, root last */
        }
    }
    e->st.playouts++;
}

/* Relative bonus (Pepels, Tak, Lanctot and Winands, "Quality-based Rewards
 * for Monte-Carlo Tree Search Simulations", ECAI 2014, §3.1): a simulation's
 * length T, taken relative to this search's mean and standard deviation of
 * the lengths of its simulations that reached a terminal state,
 * lambda = (mean - T) / sd, gives b = -1 + 2 / (1 + exp(-k lambda)) in
 * (-1, 1); a role that won (reward 1) gets r + a b, one that lost (0) gets
 * r - a b: a quick win counts more than a slow one, a quick loss worse than
 * a slow one; draws and other rewards are left alone. The shaped reward
 * goes to the tree's statistics (V, W, AMAF), not to MAST's, whose
 * playout policy stays that of the outcome alone, nor to proofs (solved
 * values are exact). Ours: the rewards are in [0, 1] (the paper's in
 * [-1, 1], so our a is half theirs), k is fixed, and the lengths are
 * counted from the search's root, tree steps and playout steps alike. */
#define RB_K 2.0
#define RB_MIN_SAMPLES 50 /* the deviation of fewer lengths is noise */

static void relative_bonus(engine_t *e)
{
    if (e->spec->rbonus <= 0 || !e->reached_terminal) return;
    double t = (double)e->n_steps;
    if (e->rb_n >= RB_MIN_SAMPLES && e->rb_m2 > 0) {
        double lambda = (e->rb_mean - t) / sqrt(e->rb_m2 / (double)(e->rb_n - 1));
        double ab = e->spec->rbonus * (-1 + 2 / (1 + exp(-RB_K * lambda)));
        for (uint32_t r = 0; r < e->k; r++) {
            if (e->z[r] >= 1 - SOLVED_EPS) e->z[r] += ab;
            else if (e->z[r] <= SOLVED_EPS) e->z[r] -= ab;
        }
    }
    double d = t - e->rb_mean;
    e->rb_n++;
    e->rb_mean += d / (double)e->rb_n;
    e->rb_m2 += d * (t - e->rb_mean);
}

static void backprop(engine_t *e, uint32_t push_region)
{
    backprop_prepare(e); /* MAST's statistics: the outcome as it is */
    e->st.steps += e->n_steps;
    e->st.tree_steps += e->tree_steps;
    relative_bonus(e);
    backprop_tree(e, push_region);
}

static void check_region(engine_t *e, uint32_t reg, const uint32_t *path, size_t n)
{
    if (!e->spec->check) return;
    const char *msg = pool_check(e->pool, reg, path, n);
    if (msg) {
        e->st.check_fail++;
        if (!e->st.check_msg) e->st.check_msg = msg;
    }
    assert(msg == NULL);
}

static inline bool over_ref(const engine_t *e, uint32_t n) { return node_visits(e->pool, n) > e->spec->ref; }

static void trace_clear(engine_t *e)
{
    e->path_len = e->n_steps = e->n_skeys = e->tree_steps = 0;
}

/* ---- single level (spec §4.4, §6) ---------------------------------------- */

/* A node joins the simulation's path: out of the LRU (spec §6.2), and in
 * flight for the other workers of a shared tree. */
static void enter(engine_t *e, uint32_t n)
{
    /* Workers of a shared tree leave it in the LRU (pool_alloc skips nodes
     * in flight): the LRU is then touched once per simulation, not per level. */
    if (e->mu) __atomic_add_fetch(&e->pool->nodes[n].flight, 1, __ATOMIC_RELAXED);
    else pool_lru_remove(e->pool, n);
    path_push(e, n);
}

/* Whether n is solved, its exact values then in e->z. */
static bool node_status(engine_t *e, uint32_t n)
{
    if (!e->solver || !is_solved(e->pool, n)) return false;
    for (uint32_t r = 0; r < e->k; r++) e->z[r] = solved_value(e->pool, n, r);
    return true;
}

/* A fresh node for an expansion at a node whose lock is held (whole: the
 * tree's lock too). Workers of a shared tree take fresh nodes 64 at a time
 * and link them under the node's lock alone; the tree's lock is then taken
 * once per 64 expansions, and to recycle once the pool is full. */
static uint32_t take_node(engine_t *e, uint32_t reg, bool whole)
{
    if (whole) return pool_alloc(e->pool, reg);
    if (!e->nbuf_len) {
        uint32_t c = NIL;
        tree_lock(e);
        e->nbuf_len = pool_take(e->pool, reg, e->nbuf, sizeof e->nbuf / sizeof e->nbuf[0]);
        if (!e->nbuf_len) c = pool_alloc(e->pool, reg); /* full: recycle */
        tree_unlock(e);
        if (!e->nbuf_len) return c;
    }
    return e->nbuf[--e->nbuf_len];
}

static uint32_t new_node(engine_t *e, uint32_t reg, bool whole)
{
    uint32_t c = take_node(e, reg, whole);
    nc_forget(e, c);
    return c;
}

/* A node the descent stops at: never visited, or past the row's depth. */
static bool is_fresh(const engine_t *e, uint32_t n)
{
    return node_visits(e->pool, n) == 0 || (e->v->max_depth && e->path_len > e->v->max_depth);
}

/* The descent shared by single-level iterations and second-level ones: from
 * x (on the path, out of the LRU) down the tree, expanding exactly one node
 * in region reg, then the evaluation into e->z (spec §4.4, §7.4). */
static void descend(engine_t *e, uint32_t x, uint32_t rho, uint32_t reg)
{
    /* Tree-parallel workers hold x's lock while they read and change its
     * child list, not while they compute the moves' values (the children's
     * statistics are read atomically, the child re-checked), and the tree's
     * lock only to expand, or where the tables are sparse or the move is
     * joint; selection at x also reads what the next level needs of the
     * child (solved, fresh), so that the reasoner's work (terminal test,
     * legal moves, the move played) runs outside every lock. One worker:
     * the locks are no-ops. */
    pool_t *p = e->pool;
    bool solved = node_status(e, x), fresh = is_fresh(e, x);
    bool sparse = e->mu && sel_amaf(e->v->sel) && !p->K;
    bool nc = e->nc && !e->mu;
    /* x's slot while e->ctx is behind x (a cached descent), else NIL; a
     * terminal node's slot holds its goals (nc_put_terminal) */
    uint32_t vs = NIL;
    for (;;) {
        if (solved) return; /* exact: no playout below it (e->z has its values) */
        uint32_t xs = vs != NIL ? vs : nc ? nc_find(e, x) : NIL;
        if (xs != NIL && nc_terminal(e, xs)) { /* as below, without the reasoner */
            nc_rewards(e, xs);
            if (e->solver) mark_solved(e, x, e->z);
            return;
        }
        if (xs == NIL && game_is_terminal(e->ctx)) {
            rewards_terminal(e);
            if (e->solver) mark_solved(e, x, e->z);
            if (nc) nc_put_terminal(e, x); /* reached again: x has a visit */
            return;
        }
        if (fresh) {
            if (vs != NIL) vs = nc_load(e, vs);
            e->need_playout = true; /* a root on its first iteration is evaluated in place */
            return;
        }
        int nd = xs != NIL ? nc_gather(e, xs) : gather_legal(e);
        if (nd < 0) {
            rewards_cut(e);
            return;
        }
        uint32_t ks = xs; /* x's slot now, for its children by move (nc_kid) */
        if (nc && xs == NIL && node_visits(p, x) >= NC_MIN_VISITS) ks = nc_put(e, x);
        uint32_t *kid = ks != NIL && nd == 1 ? nc_kid(e, ks, e->dec[0]) : NULL;
        if (e->la_ctx[0] && nd == 1 && x != e->root && node_visits(p, x) == LOOKAHEAD_VISITS) {
            if (vs != NIL) vs = nc_load(e, vs);
            if (lookahead_proves(e)) {
                mark_solved(e, x, e->z); /* like a terminal state: its values are backed up */
                return;
            }
        }
        node_lock(e, x);
        bool whole = !e->mu || sparse || nd >= 2; /* sparse tables or joint ids: under the tree's lock */
        if (e->mu && whole) tree_lock(e);
        if (!kid) slot_build(e, x);
        uint32_t first = p->nodes[x].first_child;
        /* The long part, the values of the moves, reads the statistics
         * atomically: x's lock is not held, so other workers select at x
         * meanwhile instead of queueing behind each other level by level. */
        if (!whole) node_unlock(e, x);
        if (over_ref(e, x)) rho = x;
        uint32_t c, edge, pick;
        select_among(e, nd, x, rho, kid, &c, &edge, &pick);
        if (!whole) { /* (kid is NULL: the state cache is one worker's) */
            node_lock(e, x);
            /* Meanwhile the child seen may have been recycled, or another
             * worker may have expanded the edge (links go in front). */
            if (c != NIL ? ld32(&p->nodes[c].parent) != x || ld32(&p->nodes[c].edge) != edge
                         : p->nodes[x].first_child != first) {
                slot_build(e, x);
                c = slot_get(e, edge);
            }
        }
        bool expanded = c == NIL;
        if (expanded && (c = new_node(e, reg, whole)) != NIL) { /* expansion: exactly one new node (NIL: evaluate unexpanded) */
            pool_link(p, x, c, edge);
            if (kid) kid[pick] = c;
        }
        if (c != NIL) enter(e, c);
        if (!expanded) {
            solved = node_status(e, c);
            fresh = is_fresh(e, c);
        }
        if (e->mu && whole) tree_unlock(e);
        node_unlock(e, x);
        uint32_t cs = nc && !expanded ? nc_find(e, c) : NIL;
        if (cs != NIL) { /* the reasoner stays behind */
            record_tree_step(e);
            e->st.cached_steps++;
        } else {
            if (vs != NIL) nc_load(e, vs);
            play_tree_step(e);
        }
        vs = cs;
        bool known = false; /* c's state proven elsewhere in the tree (e->z its values) */
        if (c != NIL && proofs_on(e)) {
            uint64_t h = game_state_hash(e->g, vs != NIL ? e->nc_st[vs] : game_ctx_state(e->ctx));
            e->phash[e->path_len - 1] = h;
            known = !solved && proofs_get(e, h, e->z);
            if (known) {
                mark_solved_as(e, c, e->z, SOLVED_TABLE);
                e->st.tt_hits++;
            }
        }
        if (expanded) {
            if (known) {
                /* exact: backed up as a terminal state's values */
            } else if (game_is_terminal(e->ctx)) {
                rewards_terminal(e);
                if (e->solver && c != NIL) mark_solved(e, c, e->z);
            } else {
                e->need_playout = true;
            }
            return;
        }
        solved = solved || known;
        x = c;
    }
}

/* descend, then the playout it asks for (one worker: no lock to drop). */
static void descend_eval(engine_t *e, uint32_t x, uint32_t rho, uint32_t reg)
{
    e->need_playout = false;
    descend(e, x, rho, reg);
    if (e->need_playout) playout(e);
}

/* ---- the best line of a single-player game (match rows) ------------------ */

static bool is_line_row(const engine_t *e) { return e->v->match && e->k == 1; }

/* The simulation just backed up reached a terminal state worth more than
 * the line: replay its decisions from the root and keep them. */
static void line_record(engine_t *e)
{
    double before = e->line_value;
    game_ctx_set_state(e->ctx, e->root_state);
    e->line_len = 0;
    size_t j = 0;
    while (j < e->n_skeys && !game_is_terminal(e->ctx)) {
        if (gather_legal(e) < 0) break;
        if (e->n_legal[0] >= 2) {
            if (e->line_len == e->line_cap) {
                e->line_cap = e->line_cap ? 2 * e->line_cap : 64;
                e->line_hash = xreallocarray(e->line_hash, e->line_cap, sizeof *e->line_hash);
                e->line_move = xreallocarray(e->line_move, e->line_cap, sizeof *e->line_move);
            }
            e->joint[0] = e->keys->move[e->skeys[j++]];
            e->line_hash[e->line_len] = game_state_hash(e->g, game_ctx_state(e->ctx));
            e->line_move[e->line_len++] = e->joint[0];
        }
        game_ctx_play(e->ctx, e->joint);
    }
    /* the replay's own outcome (it is the simulation's: GDL is deterministic) */
    int g = game_is_terminal(e->ctx) ? game_goal(e->ctx, 0) : -1;
    e->line_value = g >= 0 ? g / 100.0 : -1;
    if (e->line_value < before) e->line_value = -1; /* cannot happen; never keep a worse line */
}

/* The line's move at state st, or UINT32_MAX. */
static uint32_t line_move_at(const engine_t *e, const game_state_t *st)
{
    if (e->line_value < 0) return UINT32_MAX;
    uint64_t h = game_state_hash(e->g, st);
    for (size_t i = 0; i < e->line_len; i++)
        if (e->line_hash[i] == h) return e->line_move[i];
    return UINT32_MAX;
}

static void iterate_single(engine_t *e)
{
    game_ctx_set_state(e->ctx, e->root_state);
    trace_clear(e);
    e->reached_terminal = false;
    enter(e, e->root);
    if (proofs_on(e)) e->phash[0] = e->root_hash;
    descend_eval(e, e->root, e->root, 0);
    double z0 = e->z[0]; /* backprop's solver may overwrite z */
    check_region(e, 0, e->path, e->path_len);
    backprop(e, 0);
    check_region(e, 0, NULL, 0);
    pool_note_peak(e->pool);
    if (is_line_row(e) && e->reached_terminal && z0 > e->line_value) line_record(e);
}

/* One iteration of a tree-parallel worker: the tree under the lock, the
 * reasoner (descent steps, playout) outside it. The single-player line
 * stays worker 0's (it is replayed from the root). */
static bool iterate_shared(engine_t *e)
{
    game_ctx_set_state(e->ctx, e->root_state);
    trace_clear(e);
    e->reached_terminal = false;
    e->need_playout = false;
    if (e->solver && is_solved(e->pool, e->root)) return false;
    enter(e, e->root);
    if (proofs_on(e)) e->phash[0] = e->root_hash;
    descend(e, e->root, e->root, 0);
    if (e->need_playout) playout(e);
    double z0 = e->z[0];
    backprop(e, 0);
    if (e == e->own && is_line_row(e) && e->reached_terminal && z0 > e->line_value) line_record(e);
    return true;
}

/* ---- two levels (spec §7, §8) ------------------------------------------- */

/* P_sec simulations below the top leaf L (or, L == NIL, from the current
 * state without a tree when T could not hold a new leaf). Returns false if
 * the deadline or stop flag ended it. */
static bool second_level(engine_t *e, uint32_t L, deadline_t dl, const atomic_bool *stop)
{
    pool_t *p = e->pool;
    size_t top_len = e->path_len, top_steps = e->n_steps, top_keys = e->n_skeys, top_tree = e->tree_steps;
    game_state_copy(e->g, e->sec_state, game_ctx_state(e->ctx));
    bool terminal = game_is_terminal(e->ctx), stopped = false;
    if (e->sl_hook) e->sl_hook(e, true, e->sl_arg);
    for (uint64_t i = 0; i < e->b.p_sec; i++) {
        if (e->st.playouts > 0 && should_stop(dl, stop)) {
            stopped = true;
            break;
        }
        e->path_len = top_len;
        e->n_steps = top_steps;
        e->n_skeys = top_keys;
        e->tree_steps = top_tree;
        game_ctx_set_state(e->ctx, e->sec_state);
        if (terminal) { /* spec §16 A15: P_sec identical updates */
            rewards_terminal(e);
        } else if (L == NIL) {
            playout(e);
        } else {
            uint32_t rho = L;
            if (e->spec->share) { /* forward sharing: the deepest top node over ref, else the root */
                rho = e->root;
                for (size_t j = top_len; j-- > 0;)
                    if (over_ref(e, e->path[j])) {
                        rho = e->path[j];
                        break;
                    }
            }
            descend_eval(e, L, rho, 1);
        }
        check_region(e, 1, e->path + top_len, e->path_len - top_len);
        backprop(e, 1); /* top path too (per-iteration backprop, spec §7.4); LRU only for S */
        check_region(e, 1, NULL, 0);
        pool_note_peak(p);
    }
    e->path_len = top_len;
    if (e->sl_hook) e->sl_hook(e, false, e->sl_arg);
    pool_region_clear(p, 1);
    if (L != NIL) p->nodes[L].first_child = NIL;
    return !stopped;
}

static bool iterate_two_level(engine_t *e, deadline_t dl, const atomic_bool *stop)
{
    pool_t *p = e->pool;
    game_ctx_set_state(e->ctx, e->root_state);
    trace_clear(e);
    uint32_t x = e->root, rho = e->root, L;
    path_push(e, x);
    pool_lru_remove(p, x);
    for (;;) {
        if (game_is_terminal(e->ctx) || p->nodes[x].visits == 0) {
            L = x;
            break;
        }
        if (over_ref(e, x)) rho = x;
        uint32_t c, edge;
        if (!select_joint(e, x, rho, &c, &edge)) {
            L = NIL; /* no second-level tree: its playouts meet the defect and score it */
            break;
        }
        if (c == NIL) {
            bool room = pool_can_alloc(p, 0);
            play_tree_step(e);
            L = room ? pool_alloc(p, 0) : NIL; /* two-level trees have no state cache */
            if (L != NIL) {
                pool_link(p, x, L, edge);
                path_push(e, L);
            }
            break;
        }
        play_tree_step(e);
        pool_lru_remove(p, c);
        path_push(e, c);
        x = c;
    }
    bool done = second_level(e, L, dl, stop);
    size_t top_len = e->path_len;
    check_region(e, 0, e->path, top_len);
    for (size_t j = top_len; j-- > 0;) pool_lru_push_back(p, e->path[j]);
    check_region(e, 0, NULL, 0);
    return done;
}

/* ---- the search ------------------------------------------------------------ */

/* The state after edge from the state xs, into out (tree reuse). */
static bool child_state(engine_t *e, const game_state_t *xs, uint32_t edge, game_state_t *out)
{
    game_ctx_set_state(e->ctx, xs);
    int nd = gather_legal(e);
    if (nd < 0) return false;
    if (nd == 1) {
        e->joint[e->dec[0]] = edge;
    } else if (nd >= 2) {
        if (edge >= e->joints->n) return false;
        memcpy(e->joint, e->joints->moves + (size_t)edge * e->k, (size_t)e->k * sizeof *e->joint);
    }
    game_next(e->ctx, e->joint, out);
    return true;
}

/* Bound on the states computed to find the new root (a game with thousands
 * of moves per role would otherwise spend seconds here). */
#define REUSE_MAX_STATES 20000

/* The node at depth 1 or 2 below x (state xs) whose state is st, or NIL. */
static uint32_t find_state(engine_t *e, uint32_t x, const game_state_t *xs, const game_state_t *st, int depth,
                           uint32_t *budget)
{
    pool_t *p = e->pool;
    for (uint32_t c = p->nodes[x].first_child; c != NIL && *budget; c = p->nodes[c].next_sibling) {
        (*budget)--;
        if (child_state(e, xs, p->nodes[c].edge, e->tmp_state[depth]) && game_state_equal(e->g, e->tmp_state[depth], st))
            return c;
    }
    if (depth == 1) return NIL;
    for (uint32_t c = p->nodes[x].first_child; c != NIL && *budget; c = p->nodes[c].next_sibling) {
        if (p->nodes[c].first_child == NIL) continue;
        (*budget)--;
        if (!child_state(e, xs, p->nodes[c].edge, e->tmp_state[0])) continue;
        uint32_t n = find_state(e, c, e->tmp_state[0], st, 1, budget);
        if (n != NIL) return n;
    }
    return NIL;
}

/* Tree reuse (issue 12): keep the subtree of the state the match reached
 * (the joint moves actually played) and release the rest. */
static bool reroot(engine_t *e, const game_state_t *st)
{
    if (e->root == NIL) return false;
    if (game_state_equal(e->g, e->root_state, st)) return true; /* pondering went on from here */
    uint32_t budget = REUSE_MAX_STATES;
    uint32_t n = find_state(e, e->root, e->root_state, st, 0, &budget);
    if (n == NIL) return false;
    pool_unlink(e->pool, n);
    pool_free_subtree(e->pool, e->root);
    e->root = n;
    game_state_copy(e->g, e->root_state, st);
    return true;
}

/* A proven root must keep a witness, a proven child of its value, for the
 * move choice (engine_final). A root proven from the proven-states table
 * never had one (its children were never proven), and the LRU may have
 * recycled the witness of a root proven in the tree, since descents stop
 * at proven nodes and their subtrees age first. Either way the root goes
 * back to an ordinary node (W = value x V) and the search proves it again
 * from its children (most of them in the table, when there is one).
 * Forced and simultaneous roots choose without the solver's witness. */
static bool root_witnessed(engine_t *e)
{
    const node_t *n = &e->pool->nodes[e->root];
    if (n->solved == SOLVED_TABLE) return false;
    game_ctx_set_state(e->ctx, e->root_state);
    if (gather_legal(e) != 1) return true;
    uint32_t r = e->dec[0];
    double rv = solved_value(e->pool, e->root, r);
    slot_build(e, e->root);
    for (uint32_t i = 0; i < e->n_legal[r]; i++) {
        uint32_t c = slot_get(e, e->legal[r][i]);
        if (c != NIL && is_solved(e->pool, c) && solved_value(e->pool, c, r) >= rv - SOLVED_EPS) return true;
    }
    return false;
}

static void root_unwitnessed(engine_t *e)
{
    node_t *n = &e->pool->nodes[e->root];
    if (!n->solved || root_witnessed(e)) return;
    float *w = pool_w(e->pool, e->root);
    for (uint32_t r = 0; r < e->k; r++) w[r] *= (float)n->visits;
    n->solved = 0;
}

/* Each search's lengths are its own: they are counted from its root. */
static void rb_reset(engine_t *e)
{
    e->rb_n = 0;
    e->rb_mean = e->rb_m2 = 0;
}

void engine_search_begin(engine_t *e, const game_state_t *st, deadline_t dl, const atomic_bool *stop)
{
    playout_decide(e, NULL, dl, stop);
    memset(&e->st, 0, sizeof e->st);
    rb_reset(e);
    bool kept = e->v->match && e->spec->reuse && reroot(e, st);
    if (!kept) {
        game_state_copy(e->g, e->root_state, st);
        pool_reset(e->pool);
        nc_clear(e); /* a new tree */
        e->root = pool_alloc(e->pool, 0); /* V = 0: iteration 1 evaluates it in place (spec §4.4) */
    }
    if (e->solver && e->spec->tt_mb && !e->proofs_own.key) proofs_open(&e->proofs_own, e->k, e->spec->tt_mb);
    if (kept) root_unwitnessed(e);
    e->root_hash = game_state_hash(e->g, e->root_state);
    e->st.reused = kept ? e->pool->nodes[e->root].visits : 0;
    for (uint32_t j = 0; j < e->pool->n_regions; j++) e->st.recycled0 += e->pool->reg[j].recycled;
    if (is_line_row(e) && line_move_at(e, e->root_state) == UINT32_MAX) e->line_value = -1; /* left the line */
}

void engine_worker_sync(engine_t *w, const engine_t *owner)
{
    playout_decide(w, owner, deadline_none(), NULL);
    memset(&w->st, 0, sizeof w->st);
    rb_reset(w);
    game_state_copy(w->g, w->root_state, owner->root_state);
    w->root = owner->root;
    w->root_hash = owner->root_hash;
}

void engine_search_loop(engine_t *e, deadline_t dl, const atomic_bool *stop, _Atomic uint64_t *tickets)
{
    for (uint64_t i = 0;; i++) {
        if (i > 0 && should_stop(dl, stop)) break;
        if (tickets) { /* the shared playout budget */
            uint64_t t = atomic_load(tickets);
            do {
                if (t == 0) break;
            } while (!atomic_compare_exchange_weak(tickets, &t, t - 1));
            if (t == 0) break;
        }
        if (!iterate_shared(e)) break;
    }
    lru_flush(e, true);
    tree_lock(e);
    pool_give_back(e->pool, e->nbuf, e->nbuf_len); /* the pool's counts are exact between searches */
    e->nbuf_len = 0;
    tree_unlock(e);
    e->st.root_solved = e->solver && is_solved(e->pool, e->root); /* others may still be backing up */
}

void engine_search(engine_t *e, const game_state_t *st, deadline_t dl, const atomic_bool *stop)
{
    engine_search_begin(e, st, dl, stop);
    if (e->v->tree == TREE_TWO) {
        for (uint64_t i = 0; i < e->b.p_top; i++) {
            if (i > 0 && should_stop(dl, stop)) break;
            if (!iterate_two_level(e, dl, stop)) break;
        }
    } else {
        for (uint64_t i = 0; i < e->b.p; i++) {
            if (e->solver && is_solved(e->pool, e->root)) break; /* nothing left to learn */
            if (i > 0 && should_stop(dl, stop)) break;
            iterate_single(e);
        }
    }
    e->st.root_solved = e->solver && is_solved(e->pool, e->root);
}

/* ---- the final move (spec §4.7) ------------------------------------------ */

void pick_init(pick_t *pk, bool by_mean) { *pk = (pick_t){NIL, 0, -1, -1, by_mean}; }

/* Robust child: most visits, then the higher mean, then a random one; by
 * mean (flat Monte Carlo): the higher mean, then more visits. */
void pick_offer(pick_t *pk, rng_t *rng, uint32_t move, double v, double q)
{
    double k1 = pk->by_mean ? q : v, k2 = pk->by_mean ? v : q;
    double b1 = pk->by_mean ? pk->q : pk->v, b2 = pk->by_mean ? pk->v : pk->q;
    if (k1 > b1 || (k1 == b1 && k2 > b2)) {
        *pk = (pick_t){move, 1, v, q, pk->by_mean};
    } else if (k1 == b1 && k2 == b2 && rng_below(rng, ++pk->ties) == 0) {
        pk->move = move;
    }
}

/* A simultaneous root (solver on): each of our moves judged by its joint
 * children, as a simultaneous node is proven (only when every joint move
 * is): with every joint reply of the other deciders proven, the move is
 * worth to us the least of their values. Fills e->fm per legal move;
 * returns the index of a move so won against every reply (the best), or
 * UINT32_MAX; *lost: some move lost against every reply while another
 * is not. */
static uint32_t simul_final(engine_t *e, uint64_t replies, double *value, bool *lost)
{
    uint32_t r = e->role, n = e->n_legal[r], k = e->k, win = UINT32_MAX;
    const move_id_t *m = e->legal[r];
    XVEC_RESERVE(&e->fm, &e->fm_cap, n);
    for (uint32_t i = 0; i < n; i++) e->fm[i] = (struct final_move){0, 2.0f, -1.0f, false};
    for (uint32_t c = e->pool->nodes[e->root].first_child; c != NIL; c = e->pool->nodes[c].next_sibling) {
        uint32_t j = e->pool->nodes[c].edge;
        if (!is_solved(e->pool, c) || j >= e->joints->n) continue;
        uint32_t mv = e->joints->moves[(size_t)j * k + r];
        float v = (float)solved_value(e->pool, c, r);
        for (uint32_t i = 0; i < n; i++)
            if (m[i] == mv) {
                e->fm[i].proven++;
                e->fm[i].lo = fminf(e->fm[i].lo, v);
                e->fm[i].hi = fmaxf(e->fm[i].hi, v);
                break;
            }
    }
    uint32_t n_lost = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (e->fm[i].proven < replies) continue;
        if (e->fm[i].lo >= 1 - SOLVED_EPS && (win == UINT32_MAX || e->fm[i].lo > *value)) {
            win = i;
            *value = e->fm[i].lo;
        }
        e->fm[i].lost = e->fm[i].hi <= SOLVED_EPS;
        n_lost += e->fm[i].lost;
    }
    *lost = n_lost > 0 && n_lost < n;
    return win;
}

/* Whether engine_final skips our i-th legal move as proven lost: its child
 * (skip_lost), or every joint child of it at a simultaneous root
 * (simul_skip: simul_final's tally). */
static inline bool final_lost(engine_t *e, uint32_t i, bool skip_lost, bool simul_skip)
{
    if (simul_skip) return e->fm[i].lost;
    if (!skip_lost) return false;
    uint32_t c = slot_get(e, e->legal[e->role][i]);
    return c != NIL && is_solved(e->pool, c) && solved_value(e->pool, c, e->role) <= SOLVED_EPS;
}

move_id_t engine_final(engine_t *e, double *value)
{
    game_ctx_set_state(e->ctx, e->root_state);
    int nd = gather_legal(e);
    uint32_t r = e->role;
    if (nd < 0 || e->n_legal[r] == 0) return UINT32_MAX;
    const move_id_t *m = e->legal[r];
    uint32_t n = e->n_legal[r];
    *value = 0;
    if (n == 1) { /* forced: report the root's value (searched by match rows) */
        if (e->root != NIL && e->pool->nodes[e->root].visits) *value = node_mean(e->pool, e->root, r);
        return m[0];
    }
    /* the best line found (one player): its value is guaranteed; played
     * unless the solver proved a better move (a worker other than the
     * first, or the proven-states table, proves without recording a line) */
    uint32_t line = UINT32_MAX;
    if (is_line_row(e)) {
        uint32_t lm = line_move_at(e, e->root_state);
        for (uint32_t i = 0; lm != UINT32_MAX && i < n; i++)
            if (m[i] == lm) line = lm;
    }
    bool simul = nd >= 2;
    if (!simul) slot_build(e, e->root);
    /* Solver (issue 12): a proven win at once; never a proven loss while a
     * move not proven lost remains; with every move proven, the best. */
    bool skip_lost = false, simul_skip = false;
    if (e->solver && simul) {
        uint64_t replies = 1;
        for (int d = 0; d < nd && replies < UINT32_MAX; d++) /* (past it: never all proven) */
            if (e->dec[d] != r) replies *= e->n_legal[e->dec[d]];
        uint32_t win = simul_final(e, replies, value, &simul_skip);
        if (win != UINT32_MAX) return m[win];
        *value = 0;
    }
    if (e->solver && !simul) {
        uint32_t best = NIL, unproven = 0;
        double bv = -1;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t c = slot_get(e, m[i]);
            if (c == NIL || !is_solved(e->pool, c)) {
                unproven++;
                continue;
            }
            double sv = solved_value(e->pool, c, r);
            if (sv > SOLVED_EPS) skip_lost = true;
            if (sv > bv || (sv == bv && node_visits(e->pool, c) > node_visits(e->pool, best))) {
                bv = sv;
                best = c;
            }
        }
        if (best != NIL && (bv >= 1 - SOLVED_EPS || unproven == 0) && (line == UINT32_MAX || bv > e->line_value + SOLVED_EPS)) {
            *value = bv;
            return e->pool->nodes[best].edge;
        }
        if (unproven) skip_lost = true;
    }
    if (line != UINT32_MAX) {
        *value = e->line_value;
        return line;
    }
    pick_t pk;
    pick_init(&pk, e->v->final == FINAL_MEAN);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = 0;
        float w = 0;
        if (final_lost(e, i, skip_lost, simul_skip)) continue;
        if (simul) {
            marg_get(e->pool, e->root, keys_get(e->keys, r, m[i]), &v, &w);
        } else {
            uint32_t c = slot_get(e, m[i]);
            if (c != NIL && (v = e->pool->nodes[c].visits) && is_solved(e->pool, c)) {
                pick_offer(&pk, &e->rng, m[i], v, solved_value(e->pool, c, r)); /* W is the value */
                continue;
            }
            if (c != NIL) w = pool_w(e->pool, c)[r];
        }
        if (v) pick_offer(&pk, &e->rng, m[i], v, w / v);
    }
    if (pk.ties) {
        *value = pk.q;
        return pk.move;
    }
    /* No statistics at the root: root AMAF mean, then MAST mean, then random. */
    pick_init(&pk, true);
    for (int pass = 0; pass < 2 && !pk.ties; pass++) {
        for (uint32_t i = 0; i < n; i++) {
            if (final_lost(e, i, skip_lost, simul_skip)) continue;
            uint32_t key = keys_get(e->keys, r, m[i]), cnt = 0;
            float w = 0;
            if (pass == 0 && e->pool->amaf_on) {
                amaf_get(e->pool, e->root, key, &cnt, &w);
                if (cnt) pick_offer(&pk, &e->rng, m[i], 1, w / cnt);
            } else if (pass == 1 && key < e->mast.cap && e->mast.n[key] > 0) {
                pick_offer(&pk, &e->rng, m[i], 1, e->mast.w[key] / e->mast.n[key]);
            }
        }
    }
    if (pk.ties) {
        *value = pk.q;
        return pk.move;
    }
    bool skip = skip_lost || simul_skip;
    for (uint32_t tries = 0; skip && tries < 4 * n; tries++) { /* a random move not proven lost */
        uint32_t i = rng_below(&e->rng, n);
        if (!final_lost(e, i, skip_lost, simul_skip)) return m[i];
    }
    for (uint32_t i = 0; skip && i < n; i++)
        if (!final_lost(e, i, skip_lost, simul_skip)) return m[i];
    return m[rng_below(&e->rng, n)];
}
