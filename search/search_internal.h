/* search_internal.h - the parts of the search module that its own files and
 * its tests share, but nothing else above it should see.
 *
 * The design (shared/docs/grave-spec.md):
 *   - variant_t: one row per searcher (uct, grave2, ...). A row is a set of
 *     policy choices (selection, tree, recycling, final move); the engine
 *     reads the row and never branches on the searcher's name (issue
 *     "Search": the searchers are rows of one table, not copied loops).
 *   - pool_t: nodes in one flat array addressed by 32-bit indices (spec §3),
 *     with up to two regions (top tree T and second-level tree S, spec §3.4),
 *     each with its own bump allocator and intrusive LRU list (spec §6).
 *     The pool also owns the per-node tables: AMAF (dense or sparse, spec
 *     §3.2) and the marginal tables of simultaneous nodes (spec §4.6).
 *   - keys_t: the dense (role, move) -> key interning of spec §2.2.
 *   - mast_t: the MAST table of spec §3.3 / §9.
 *   - engine_t: one search worker (its own game context, rng, pool, scratch).
 */
#ifndef GGP_SEARCH_SEARCH_INTERNAL_H
#define GGP_SEARCH_SEARCH_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "base/spin.h"
#include "search/search.h"

#define NIL UINT32_MAX

/* ---- variants (the policy table) --------------------------------------- */

typedef enum {
    SEL_NONE,  /* no search: uniformly random legal move */
    SEL_FLAT,  /* flat Monte Carlo: least-tried move at the root only */
    SEL_UCT,   /* UCB1, C = sqrt(2)/2 (spec §5) */
    SEL_GRAVE, /* GRAVE with bias and ref, no exploration term (spec §4.1) */
    SEL_RAVE,  /* RAVE: own AMAF (ref 0), beta = sqrt(k / (3 V + k)), UCT exploration (spec §14.1) */
    SEL_AB,    /* not MCTS: alpha-beta (alphabeta.c, spec §14.4) */
    SEL_NMCS,  /* not MCTS: nested Monte Carlo search (nmcs.c, spec §14.4) */
} sel_kind_t;

/* The selection kinds that keep AMAF tables (GRAVE family and RAVE). */
static inline bool sel_amaf(sel_kind_t s) { return s == SEL_GRAVE || s == SEL_RAVE; }

typedef enum {
    TREE_NONE,   /* random */
    TREE_SINGLE, /* one tree; bounded by `nodes` with LRU recycling if recycle */
    TREE_TWO,    /* two-level search with forward sharing (spec §7) */
} tree_kind_t;

typedef enum {
    FINAL_ROBUST, /* most visited root child (spec §4.7) */
    FINAL_MEAN,   /* best mean (flat Monte Carlo) */
} final_kind_t;

typedef struct variant {
    const char *name;
    const char *summary;
    sel_kind_t sel;
    tree_kind_t tree;
    bool recycle;        /* LRU recycling in every pool of the tree */
    uint32_t max_depth;  /* tree depth below which playouts start (0 = none) */
    final_kind_t final;
    uint64_t def_nodes;  /* default `nodes` (0 = key not used) */
    /* A match player (compete, issue 12): one memory-bounded tree for the
     * whole match (reuse, solver, ponder and memory keys), lazy AMAF tables
     * from amaf_from visits on, forced moves searched like any other. */
    bool match;
    uint32_t amaf_from;
} variant_t;

/* The MCTS engine's rows (every engine test loops over them), then the
 * searchers that are not MCTS (alpha-beta, NMCS), which have their own
 * tests. variant_find looks in both. */
extern const variant_t search_variants[];
extern const size_t search_n_variants;
extern const variant_t search_other_variants[];
extern const size_t search_n_other_variants;
const variant_t *variant_find(const char *name, size_t len);

typedef enum { AMAF_AUTO, AMAF_DENSE, AMAF_SPARSE } amaf_mode_t;

/* ---- playout strategies (playout.c; spec §9, §14) ------------------------ */

/* The rows of playout_strategies[]: each chooses one decider's move in a
 * playout. random and mast are the playouts of spec §9; the others are
 * greedy one-ply choosers (spec §14.2): the heuristic of the state after
 * each legal move, terminal states scored by the shortcut of §14.2. */
typedef enum { PS_RANDOM, PS_MAST, PS_MOBILITY, PS_MD, PS_EVAL, PS_DECISIVE, PS_ANTIDECISIVE, PS_N } strategy_id_t;
#define PLAYOUT_SWITCH PS_N /* spec.playout: a UCB1 bandit per role picks (§14.2) */
#define PLAYOUT_AUTO (PS_N + 1) /* spec.playout (match rows): antidecisive or mast, from a sample of the game */

typedef struct playout_state playout_state_t;
typedef struct strategy_row {
    const char *name;
    const char *summary;
    /* NULL: not greedy (random, mast); else the heuristic for role at the
     * scratch context's current state, which is not terminal */
    double (*score)(playout_state_t *ps, uint32_t role);
} strategy_row_t;
extern const strategy_row_t playout_strategies[PS_N];
/* Index of a strategy by name, or -1. */
int strategy_find(const char *name, size_t len);

struct search_spec {
    const variant_t *v;
    uint64_t playouts; /* P (single level, mc) */
    uint64_t nodes;    /* N */
    double lambda;     /* share of N for the second level */
    uint64_t ptop;     /* P_top (graver2; derived otherwise) */
    uint64_t psec;     /* P_sec (graver2; derived otherwise) */
    double bias, ref, c, eps, decay, seconds;
    bool mast, share, check;
    bool nst;          /* N-gram (2-gram) statistics beside MAST's in playouts */
    bool lgr;          /* last good reply with forgetting in playouts (lgr_* in engine.c) */
    bool lookahead;    /* match rows: two-ply win/loss check at tree nodes (engine.c) */
    bool lostvisit;    /* match rows, solver on: proven losses selected as ordinary moves */
    double rbonus;     /* match rows: relative bonus a (engine.c relative_bonus; 0: off) */
    double oppc;       /* match rows: exploration at a root another role decides (< 0: c's) */
    bool solver, reuse, ponder, nested; /* match rows (compete) */
    bool cache;        /* one worker: tree nodes' states and legal moves cached (engine.c nc_*) */
    uint64_t memory_mb;         /* match rows: bound of the tree (0: default) */
    amaf_mode_t amaf;
    uint64_t seed;
    uint32_t threads;
    uint64_t set;      /* bit i: key i was given explicitly */
    /* Playouts (spec §14): one strategy (strategy_id_t), or PLAYOUT_SWITCH
     * over strategies[0 .. n_strategies) with the UCB1 constant ss_b. */
    uint8_t playout;
    uint8_t n_strategies;
    uint8_t strategies[PS_N];
    double ss_b;
    double rave_k;     /* RAVE: beta = sqrt(k / (3 V + k)) */
    uint32_t depth;    /* alpha-beta: fixed depth (iterative deepening up to it) */
    uint64_t tt_mb;    /* alpha-beta: transposition table MB */
    uint32_t level;    /* NMCS level */
};

/* Budgets derived from a spec (spec §1). */
typedef struct budget {
    uint64_t p;             /* single level: playouts (0 when timed) */
    uint32_t n;             /* single level recycled: pool capacity; 0 = unbounded */
    uint32_t n_top, n_sec;  /* two level: node budgets (N_sec counts L) */
    uint64_t p_top, p_sec;  /* two level: iterations (p_top 0 when timed) */
    bool timed;
} budget_t;
void spec_budget(const search_spec_t *s, budget_t *b);
/* compete's settings from the game's move shape (searcher.c), where the
 * spec did not set them: on a placement game GRAVE's own bias and no
 * exploration term; where a ply's changes vary with the position (churns:
 * Othello's flips) no last good replies, a reply there meaning another
 * thing in another position. */
void spec_shape(search_spec_t *s, bool placement, bool churns);
/* What a few random playouts from the initial state say of a game's moves
 * (searcher.c): recur, the share of decisions that repeat a move their
 * role already played in the same playout; churn, how many more fluents a
 * ply changes on average than the ply that changes fewest (a placement
 * adds its mark and turns the turn over, always alike; Othello's flips
 * vary with the position). */
typedef struct {
    double recur;
    double churn;
} move_shape_t;
move_shape_t search_move_shape(const game_t *g);
/* A placement game: moves do not recur and churn little. */
bool search_is_placement(move_shape_t shape);

/* ---- the node pool ------------------------------------------------------ */

enum { NODE_IN_LRU = 1, NODE_USED = 2 };
/* Tree-parallel workers (compete threads=T, issue 12): at most this many
 * simulations in flight through a node (node_t.flight). */
enum { NODE_MAX_FLIGHTS = 64 };

/* node_t.solved: proven in this tree (from its children, or terminal), or
 * from the proven-states table (its value, not the move that achieves it). */
enum { SOLVED_HERE = 1, SOLVED_TABLE = 2 };

typedef struct node {
    uint32_t parent;       /* NIL for a root */
    uint32_t first_child;  /* left-child / right-sibling tree */
    uint32_t next_sibling;
    uint32_t prev_sibling; /* O(1) unlink on recycle */
    uint32_t lru_prev, lru_next;
    uint32_t edge;         /* decider's move id, joint-move id, or 0 (all forced) */
    uint32_t visits;       /* V(n) */
    uint32_t amaf;         /* sparse AMAF table handle, or NIL */
    uint32_t marg;         /* sparse marginal table (simultaneous nodes), or NIL */
    uint8_t flags;         /* NODE_IN_LRU, NODE_USED: changed under the tree's lock */
    uint8_t region;
    /* compete's MCTS solver: the node's value is exact, and W(n) holds that
     * value itself (not value x V(n)), so that a worker reading a node just
     * proven, before any visit reached it, still reads its value. Set with
     * release order after W; read with node_solved(). */
    uint8_t solved;        /* 0, SOLVED_HERE or SOLVED_TABLE */
    /* Tree-parallel workers: simulations in flight through the node (atomic).
     * A node in flight is never recycled, and selection counts each flight
     * as a lost visit (virtual loss). */
    uint8_t flight;
} node_t;

typedef struct region {
    uint32_t base, cap;  /* nodes [base, base + cap); cap = UINT32_MAX: growable */
    uint32_t bump;       /* never-used nodes start at base + bump */
    uint32_t used;       /* allocated (resident) nodes */
    uint32_t lru_head, lru_tail, n_lru; /* front = least recently used */
    bool recycling;
    uint64_t recycled;
    uint32_t free_head, n_free; /* released nodes (tree reuse), linked by next_sibling */
} region_t;

/* Sparse tables: open addressing, entries {key, p, w}, capacity 8 << cls,
 * doubling at 70% load; blocks come from per-class free lists (spec §3.2).
 * A block is a header entry (cls, count) followed by the slots; a handle is
 * the header's index. */
typedef struct sp_entry {
    uint32_t key;
    uint32_t p;
    float w;
} sp_entry_t;

typedef struct sparse {
    sp_entry_t *e;
    size_t len, cap;
    uint32_t free_head[24];
    size_t bytes;       /* bytes of blocks in use */
    size_t max_entries; /* capacity limit of e (0: none); past it new blocks are refused */
} sparse_t;

typedef struct amaf_dense_entry {
    uint32_t p;
    float w;
} amaf_dense_t;

typedef struct pool {
    node_t *nodes;
    float *w;              /* W(n)[r] at w[n * k + r] */
    amaf_dense_t *dense;   /* K entries per node when dense */
    uint32_t n_alloc;      /* array capacity in nodes */
    uint32_t k;            /* roles */
    uint32_t K;            /* dense AMAF keys per node (0 = sparse or none) */
    bool amaf_on;          /* GRAVE family */
    /* Lazy dense AMAF (compete): a node has a block of K entries only once
     * the engine adds to its table (node.amaf = block index), so that the
     * many leaves that can never be a reference node cost nothing. */
    bool lazy;
    amaf_dense_t *blk;
    uint32_t n_blk, cap_blk, blk_free, max_blk;
    uint32_t max_nodes;    /* array growth limit (0: none) */
    region_t reg[2];
    uint32_t n_regions;
    sparse_t sp;
    uint64_t resident_peak;
    uint64_t bytes_peak;   /* nodes + tables, peak */
    /* Tree-parallel workers (issue 12): the arrays are allocated whole and
     * never move (pool_fix), and recycling asks victim_lock to take the
     * victim's parent's lock (without waiting: the caller already holds a
     * node lock) before it unlinks the victim. NULL: one worker. */
    bool fixed;
    bool (*victim_lock)(void *arg, uint32_t parent);
    void (*victim_unlock)(void *arg, uint32_t parent);
    void *victim_arg;
} pool_t;

/* Regions: caps[i] nodes each (UINT32_MAX: one growable region). */
void pool_init(pool_t *p, uint32_t k, uint32_t n_regions, const uint32_t *caps, const bool *recycling,
               bool amaf_on, uint32_t dense_K);
void pool_free(pool_t *p);
/* Forget every node (a new search). */
void pool_reset(pool_t *p);
/* Clear one region (the second-level tree): O(nodes used). */
void pool_region_clear(pool_t *p, uint32_t reg);
/* Memory-bounded pool for a match-long tree (compete): at most mem_bytes
 * of nodes and AMAF tables, a share of it for each; tables are lazy (see
 * pool_t.lazy). Call right after pool_init on a one-region recycling pool. */
void pool_bound(pool_t *p, uint64_t mem_bytes);
/* Allocate a bounded pool's arrays whole (nodes and lazy AMAF blocks), so
 * that they never move while workers read them without the tree's lock.
 * Pages are touched only as nodes are used. */
void pool_fix(pool_t *p);
/* Give node n its lazy AMAF block if it has none (false: the bound is
 * reached). Tree-parallel workers call it under the tree's lock. */
bool amaf_ensure(pool_t *p, uint32_t n);
/* Detach n from its parent (it becomes a root). */
void pool_unlink(pool_t *p, uint32_t n);
/* Release n and its whole subtree to the free list (tree reuse: what the
 * match can no longer reach). n must already be detached. */
void pool_free_subtree(pool_t *p, uint32_t n);
/* Bytes the pool holds (its arrays' capacity, not just the nodes in use). */
size_t pool_held_bytes(const pool_t *p);
/* A fresh node (V = 0, W = 0, no tables, not in the LRU, not linked), or
 * NIL when the region is full and nothing can be recycled. Recycling pops
 * the LRU front, which (invariant I, spec §6.3) is a leaf off the path. */
uint32_t pool_alloc(pool_t *p, uint32_t reg);
bool pool_can_alloc(const pool_t *p, uint32_t reg);
/* Tree-parallel workers (issue 12): up to want fresh nodes into out, from
 * the free list and the never-used part only (no recycling), for a worker
 * to link later without the tree's lock; pool_give_back returns those it
 * did not use. Both under the tree's lock. */
uint32_t pool_take(pool_t *p, uint32_t reg, uint32_t *out, uint32_t want);
void pool_give_back(pool_t *p, const uint32_t *nodes, uint32_t n);
void pool_link(pool_t *p, uint32_t parent, uint32_t child, uint32_t edge);
void pool_lru_remove(pool_t *p, uint32_t n);
void pool_lru_push_back(pool_t *p, uint32_t n);
uint32_t pool_resident(const pool_t *p);
size_t pool_node_bytes(const pool_t *p);
size_t pool_bytes(const pool_t *p);
void pool_note_peak(pool_t *p);
/* Check the LRU invariants of spec §15.3 on a recycling region. path (n)
 * lists the nodes currently out of the LRU (mid-iteration), or n = 0 after
 * an iteration. Returns NULL if they hold, else a description. */
const char *pool_check(const pool_t *p, uint32_t reg, const uint32_t *path, size_t n);

static inline float *pool_w(const pool_t *p, uint32_t n) { return p->w + (size_t)n * p->k; }

/* Statistics that tree-parallel workers read without the writer's lock
 * (issue 12): visits, W, AMAF entries, the solved flag and the flight count
 * are read and written with relaxed atomic loads and stores (plain moves on
 * x86-64), each written only under its node's lock, so a reader sees a
 * value some worker wrote, never a torn one. One worker: the same code. */
static inline uint32_t ld32(const uint32_t *a) { return __atomic_load_n(a, __ATOMIC_RELAXED); }
static inline void st32(uint32_t *a, uint32_t v) { __atomic_store_n(a, v, __ATOMIC_RELAXED); }
static inline float ldf(const float *a)
{
    float v;
    __atomic_load(a, &v, __ATOMIC_RELAXED);
    return v;
}
static inline void stf(float *a, float v) { __atomic_store(a, &v, __ATOMIC_RELAXED); }
static inline bool node_solved(const pool_t *p, uint32_t n) { return __atomic_load_n(&p->nodes[n].solved, __ATOMIC_ACQUIRE); }
static inline uint32_t node_visits(const pool_t *p, uint32_t n) { return ld32(&p->nodes[n].visits); }
/* The node's mean reward for role r: its exact value when solved. */
static inline double node_mean(const pool_t *p, uint32_t n, uint32_t r)
{
    if (node_solved(p, n)) return ldf(&pool_w(p, n)[r]);
    uint32_t v = node_visits(p, n);
    return v ? ldf(&pool_w(p, n)[r]) / v : 0;
}

/* AMAF access (spec §3.2): absent entries read as (0, 0). */
void amaf_get(const pool_t *p, uint32_t n, uint32_t key, uint32_t *cnt, float *w);
/* Node n's dense AMAF row (p->K entries, keys below K), or NULL where n has
 * no entries yet (a lazy table not made). Dense pools only (p->K > 0): a
 * selection reads K-indexed entries of one node for every legal move, and
 * a backup adds to one node for every key after it, so the row is found
 * once instead of once per entry (about a tenth of a connect four search). */
static inline const amaf_dense_t *amaf_row(const pool_t *p, uint32_t n)
{
    if (!p->lazy) return &p->dense[(size_t)n * p->K];
    /* the handle is published after its block is zeroed (amaf_ensure) */
    uint32_t h = __atomic_load_n(&p->nodes[n].amaf, __ATOMIC_ACQUIRE);
    return h == NIL ? NULL : &p->blk[(size_t)h * p->K];
}
/* Entry key of a row from amaf_row (NULL or key >= K read as (0, 0)). */
static inline void amaf_row_get(const pool_t *p, const amaf_dense_t *row, uint32_t key, uint32_t *cnt, float *w)
{
    if (row && key < p->K) {
        *cnt = ld32(&row[key].p);
        *w = ldf(&row[key].w);
    } else {
        *cnt = 0;
        *w = 0;
    }
}
/* Node n's dense row for adding (made if lazy), or NULL: the memory bound
 * refused its table. One writer at a time (the node's lock). */
amaf_dense_t *amaf_row_mut(pool_t *p, uint32_t n);
static inline void amaf_row_add(amaf_dense_t *d, float dw)
{
    st32(&d->p, d->p + 1);
    stf(&d->w, d->w + dw);
}
void amaf_add(pool_t *p, uint32_t n, uint32_t key, float dw);
void marg_get(const pool_t *p, uint32_t n, uint32_t key, uint32_t *cnt, float *w);
void marg_add(pool_t *p, uint32_t n, uint32_t key, float dw);

void sparse_init(sparse_t *s);
void sparse_free(sparse_t *s);
bool sparse_get(const sparse_t *s, uint32_t h, uint32_t key, uint32_t *p, float *w);
/* Adds dp, dw to key's entry; returns false (nothing added) when a new
 * block would pass max_entries. */
bool sparse_add(sparse_t *s, uint32_t *h, uint32_t key, uint32_t dp, float dw);
void sparse_release(sparse_t *s, uint32_t *h);
uint32_t sparse_count(const sparse_t *s, uint32_t h);

/* ---- keys, joint moves, MAST ------------------------------------------- */

typedef struct keys {
    uint32_t k;
    uint32_t **of;     /* of[r][move] = key or NIL */
    uint32_t *of_len;  /* per role */
    uint32_t *role;    /* role of a key */
    uint32_t *move;    /* move of a key */
    uint32_t n, cap;
} keys_t;
void keys_init(keys_t *ks, uint32_t k);
void keys_free(keys_t *ks);
uint32_t keys_get(keys_t *ks, uint32_t role, uint32_t move);
/* keys_get's common case inline: the key already made (playouts ask for
 * every candidate's key at every step). */
static inline uint32_t keys_of(keys_t *ks, uint32_t role, uint32_t move)
{
    if (move < ks->of_len[role] && ks->of[role][move] != NIL) return ks->of[role][move];
    return keys_get(ks, role, move);
}

typedef struct joints {
    uint32_t k;
    uint32_t *moves; /* n * k */
    uint32_t n, cap;
    uint32_t *table; /* open addressing, ids or NIL */
    uint32_t tcap;
} joints_t;
void joints_init(joints_t *j, uint32_t k);
void joints_free(joints_t *j);
uint32_t joints_intern(joints_t *j, const uint32_t *joint);
/* The id of joint, or NIL when it was never interned. */
uint32_t joints_find(const joints_t *j, const uint32_t *joint);

typedef struct mast {
    double *n, *w;
    /* q[key] = w / n, or 1.0 unseen: kept with n and w (mast_add,
     * mast_decay), since a MAST playout step reads the value of every
     * candidate (on go9 a third of GRAVE's time was that division and its
     * call) and a key's value changes only when the key is played */
    double *q;
    uint32_t cap;
} mast_t;
void mast_init(mast_t *m);
void mast_free(mast_t *m);
void mast_clear(mast_t *m);
void mast_reserve(mast_t *m, uint32_t keys);
void mast_decay(mast_t *m, double gamma);
static inline double mast_q(const mast_t *m, uint32_t key)
{
    return key < m->cap ? m->q[key] : 1.0; /* unseen = 1.0 (spec §9) */
}
/* Set key's count and reward sum (tests); key < m->cap. */
static inline void mast_set(mast_t *m, uint32_t key, double n, double w)
{
    m->n[key] = n;
    m->w[key] = w;
    m->q[key] = n > 0 ? w / n : 1.0;
}
/* One more playout of key with reward z (spec §9); key < m->cap. */
static inline void mast_add(mast_t *m, uint32_t key, double z)
{
    m->n[key] += 1;
    m->w[key] += z;
    m->q[key] = m->w[key] / m->n[key];
}

/* N-gram selection (NST: Tak, Winands and Björnsson, "N-Grams and the
 * Last-Good-Reply Policy Applied in General Game Playing", IEEE TCIAIG
 * 4(2), 2012): MAST's statistics for pairs (a key of the previous step, a
 * key), the 2-grams, in a table of their own. Bounded: past
 * NST_MAX pairs no new pair is added (their statistics are a playout
 * policy's: losing some costs quality, never correctness). */
#define NST_MAX (1u << 17)
#define NST_MIN_VISITS 7 /* Tak et al.: an n-gram counts from k = 7 visits */
typedef struct nst {
    /* open addressing on the pair: tag = (prev << 32 | key) + 1, 0 free;
     * a playout step asks for every candidate's pair with every move of
     * the step before, so the lookup is one multiply and a probe or two */
    uint64_t *tag;
    double *n, *w;  /* count and reward sum per slot */
    uint32_t cap;   /* slots: a power of two, at most half full */
    uint32_t used;
    uint32_t max;   /* pairs at most (a power of two, <= NST_MAX): cap <= 2 * max */
} nst_t;
/* max: the pairs the table may hold, from the memory bound (engine.c side_budget) */
void nst_init(nst_t *t, uint32_t max);
void nst_free(nst_t *t);
void nst_clear(nst_t *t); /* empty, keeping max */
void nst_decay(nst_t *t, double gamma);
void nst_add(nst_t *t, uint32_t prev, uint32_t key, double z);
/* The pair's mean into *q if it has NST_MIN_VISITS visits or more. */
bool nst_q(const nst_t *t, uint32_t prev, uint32_t key, double *q);

/* ---- the engine ---------------------------------------------------------- */

typedef struct engine_stats {
    uint64_t playouts;    /* simulations backed up */
    uint64_t capped;      /* playouts cut at the ply cap or a rules defect */
    uint64_t selections;  /* selection steps */
    uint64_t ref_self;    /* ... whose reference node was the node itself */
    uint64_t ref_root;    /* ... whose reference node was the search root */
    uint64_t reused;      /* root visits kept from earlier searches (tree reuse) */
    uint64_t recycled0;   /* the pool's recycled count when the search began */
    bool root_solved;     /* the root's value is exact (solver) */
    uint64_t la_checks, la_proofs; /* lookahead: nodes checked, proven by it */
    uint64_t tt_stored, tt_hits;   /* proven states: proofs stored, nodes proven from the table */
    uint64_t cached_steps; /* tree steps into a node of cached state (engine.c nc_*) */
    uint64_t steps, tree_steps; /* simulations' steps from the root, and those in the tree */
    uint64_t check_fail;  /* LRU invariant violations seen (check=on) */
    const char *check_msg;
} engine_stats_t;

/* ---- argmax with uniform random tie-breaking (spec §4.1, §9) ------------- */

typedef struct argmax {
    double best;
    uint32_t pick, ties;
} argmax_t;

static inline void argmax_offer(argmax_t *am, rng_t *rng, uint32_t move, double val)
{
    if (val > am->best) {
        *am = (argmax_t){val, move, 1};
    } else if (val == am->best && rng_below(rng, ++am->ties) == 0) {
        am->pick = move;
    }
}

/* A node-lock stripe, alone on its cache line. */
#define NODE_LOCKS 4096
/* Proven states (compete, solver on): the values of states the solver
 * proved, by state hash, so that a transposition (the same state reached by
 * another path, a node made before the proof) is proven at sight instead
 * of searched again (engine.c, "proven states"). A fixed table of tt MB:
 * 4-way buckets, the first slot of a full bucket overwritten; a lost
 * entry only costs a proof found again. Shared by the workers of a tree
 * (locks striped by bucket, taken alone). */
#define PROOF_LOCKS 64
typedef struct proofs {
    uint64_t *key;        /* state hash (0 stands for an empty slot), or NULL: no table */
    float *val;           /* k values per slot */
    uint64_t mask;        /* slots - 1 */
    uint32_t k;
    spin_t mu[PROOF_LOCKS];
} proofs_t;

typedef struct node_lock {
    spin_t l;
    char pad[64 - sizeof(spin_t)];
} node_lock_t;

typedef struct engine {
    const game_t *g;
    game_ctx_t *ctx;
    const search_spec_t *spec;
    const variant_t *v;
    budget_t b;
    uint32_t k, role;
    rng_t rng;
    /* The tree and its key tables: this engine's own, or (tree-parallel
     * workers of a match row, issue 12) worker 0's, shared under *mu. */
    pool_t *pool;
    keys_t *keys;
    joints_t *joints;
    pool_t pool_own;
    keys_t keys_own;
    joints_t joints_own;
    bool pool_ready;
    /* Tree-parallel workers (issue 12) take two kinds of lock (base/spin.h:
     * short critical sections; a preempted holder gets the CPU back). The tree's lock *mu
     * guards its shape (allocation, links, the LRU, sparse tables, joint
     * ids); a node's lock, one of NODE_LOCKS stripes, guards its child list
     * for readers and its statistics for writers. Order: a node's lock, then
     * the tree's; never two nodes' locks (recycling only tries one). */
    spin_t mu_own;
    spin_t *mu; /* NULL: one worker, no locking */
    struct node_lock *nl_own, *nl;
    struct engine *own;    /* worker 0 (itself when alone): the single-player line */
    bool need_playout;     /* descend reached a leaf to evaluate by a playout */
    mast_t mast;
    nst_t nst;             /* spec.nst: MAST's 2-grams */
    /* spec.lgr: lgr[prev * k + r] = 1 + the key of role r's last good
     * reply to key prev, 0 for none (LGRF-1, engine.c lgr_update) */
    uint32_t *lgr;
    size_t lgr_cap;
    /* MAST and last good replies keep keys below this (a match row's
     * memory bound when the moves are not all known: side_reserve) */
    uint32_t key_max;
    playout_state_t *ps;   /* playout strategies other than spec §9's (playout.c), or NULL */
    uint8_t playout;       /* spec.playout, PLAYOUT_AUTO resolved by playout_decide */
    /* spec.rbonus: the lengths of this search's simulations that reached a
     * terminal state (Welford's running mean and sum of squared deviations). */
    uint64_t rb_n;
    double rb_mean, rb_m2;
    game_state_t *root_state, *sec_state;
    game_state_t *tmp_state[2]; /* tree reuse: states of candidate new roots */
    uint32_t root;
    bool solver;             /* match rows with solver=on */
    /* lookahead=on (two players, solver on): scratch contexts and states of
     * the two-ply check, else NULL */
    game_ctx_t *la_ctx[2];
    game_state_t *la_st[2];
    move_id_t la_j[2];
    /* per path node: who moved there (a role, PI_FORCED or PI_SIMUL) and how
     * many edges it has (the solver proves a node from its children) */
    uint32_t *pmover, *pmoves;
    size_t pinfo_cap;
    /* Proven states: the table (worker 0's, shared), the root's state hash,
     * and per path node its state's hash (when the table is on). */
    proofs_t proofs_own, *proofs;
    uint64_t root_hash;
    uint64_t *phash;
    size_t phash_cap;
    /* Single-player match rows: the best complete line found (the state
     * hash before each of our decisions, and the move), its value, or
     * line_value < 0. A one-player GDL game is deterministic, so the line's
     * value is guaranteed: the player follows it (issue 12, item 6). */
    uint64_t *line_hash;
    uint32_t *line_move;
    size_t line_len, line_cap;
    double line_value;
    bool reached_terminal; /* this simulation ended in a terminal state */
    /* scratch of one simulation (spec §3.5) */
    uint32_t *path;
    size_t path_len, path_cap;
    uint32_t *step_start;    /* first key of each step in skeys */
    size_t n_steps, steps_cap;
    uint32_t *skeys;         /* decision keys of every step */
    size_t n_skeys, skeys_cap;
    size_t tree_steps;       /* steps chosen by selection (the rest are playout steps) */
    uint32_t *slot, *slot_gen;
    size_t slot_cap;
    uint32_t gen;
    uint32_t *kstamp;
    size_t kstamp_cap;
    uint32_t kgen;
    uint32_t *klist;
    float *kz;               /* per klist entry: the reward of the key's role */
    size_t klist_cap, kz_cap;
    uint32_t *knum;          /* per path depth: keys of klist in its AMAF suffix */
    size_t knum_cap;
    uint32_t *defer;         /* shared tree: path depths whose backup waits (backprop_tree) */
    size_t defer_cap;
    struct final_move {      /* engine_final at a simultaneous root: our moves by their joint children */
        uint32_t proven;     /* joint children proven */
        float lo, hi;        /* least and most of their values for us */
        bool lost;           /* every joint reply proven, and lost for us */
    } *fm;
    size_t fm_cap;
    move_id_t *cand;         /* MAST's draw from a game's candidates (playout.c, cand_pick) */
    double *cand_q;
    size_t cand_cap;
    uint32_t *lrubuf;        /* shared tree: nodes to move to the LRU's back (lru_flush) */
    uint32_t nbuf[64];       /* shared tree: fresh nodes taken for expansions (pool_take) */
    uint32_t nbuf_len;
    size_t lrubuf_len, lrubuf_cap;
    /* The states and legal moves of often-visited tree nodes (engine.c,
     * nc_*; spec.cache, one worker): a direct-mapped table of slots by node
     * id. A slot: the node (NIL: empty), each role's count of legal moves,
     * the moves; the state apart. */
    uint32_t *nc;
    game_state_t **nc_st;
    uint16_t *nc_cap;      /* per slot: bytes its state's allocation holds */
    uint32_t nc_mask, nc_stride, nc_moves;
    size_t nc_state_bytes; /* the states' allocations so far */
    const move_id_t **legal;
    uint32_t *n_legal;
    uint32_t *joint, *dec;
    double *z;
    engine_stats_t st;
    uint64_t max_plies;
    /* Instrumentation for tests (NULL otherwise): called as each second-level
     * search starts (before = true; e->path[0 .. path_len) is the top path)
     * and as it ends, before its tree is discarded (spec §15.5). */
    void (*sl_hook)(struct engine *e, bool before, void *arg);
    void *sl_arg;
} engine_t;

void engine_init(engine_t *e, const game_t *g, uint32_t role, const search_spec_t *spec, uint64_t seed);
void engine_free(engine_t *e);
/* A new match: clear MAST (spec §9) and reseed. */
void engine_reset(engine_t *e, uint64_t seed);
/* Match rows: the default tree bound when memory= is not given: half the
 * machine's RAM, at most 4 GiB (issue 12). */
uint64_t engine_default_memory_mb(void);
/* The bytes of the pool a spec allocates whole at its start on g (its N
 * nodes, with their rewards and dense AMAF rows): node-bounded rows;
 * 0 for the trees that grow. */
uint64_t engine_upfront_bytes(const game_t *g, const search_spec_t *spec);
/* Bytes held beside the tree: a worker's own tables (MAST, N-grams, last
 * good replies, backprop's per-key scratch), and the key and joint-move
 * tables (worker 0's, shared). memory= bounds the tree, these of every
 * worker and those together. */
size_t engine_side_bytes(const engine_t *e);
size_t engine_shared_bytes(const engine_t *e);
/* One search from st; fills the root statistics. Returns when the budget,
 * deadline or stop flag ends it. */
void engine_search(engine_t *e, const game_state_t *st, deadline_t dl, const atomic_bool *stop);
/* Tree-parallel search (match rows): worker w shares owner's tree; begin
 * on the owner (tree reuse), sync each other worker, then run the loop on
 * every worker at once; tickets (may be NULL when timed) counts down the
 * playout budget shared by all. */
/* False (nothing shared) when the moves are not all known up front. */
bool engine_share(engine_t *w, engine_t *owner);
void engine_search_begin(engine_t *e, const game_state_t *st, deadline_t dl, const atomic_bool *stop);
/* Whether a search with deadline dl (none: 0) and stop flag (or NULL) must end. */
static inline bool should_stop(deadline_t dl, const atomic_bool *stop)
{
    return (stop && atomic_load_explicit(stop, memory_order_relaxed)) || (dl.at_ns && deadline_passed(dl));
}
void engine_worker_sync(engine_t *w, const engine_t *owner);
void engine_search_loop(engine_t *e, deadline_t dl, const atomic_bool *stop, _Atomic uint64_t *tickets);
/* The move to play after engine_search (spec §4.7); *value gets its mean. */
move_id_t engine_final(engine_t *e, double *value);
/* The playout policy's move for role at the engine context's current state
 * (MAST epsilon-greedy or uniform, spec §9; or the role's current strategy,
 * spec §14). */
uint32_t engine_playout_move(engine_t *e, uint32_t role);

/* ---- playouts (playout.c) ------------------------------------------------ */

/* Per engine: what the strategies need (scratch context, bandits), made
 * only when spec.playout is neither random nor mast. */
void playout_init(engine_t *e);
void playout_free(engine_t *e);
/* playout=auto (match rows), before the engine's first iteration (e->ctx
 * is free): decisive moves where a sample of random playouts shows that
 * they miss wins in one and the branching is small, else MAST. Once per
 * engine; a no-op for every other spec. A worker of a shared tree
 * (owner not NULL) copies the owner's choice instead of sampling again.
 * The sample (at most 300 ms over all searches) ends at half of the time
 * left to the search's deadline dl, or at its stop flag; cut so, it is
 * left for the next search, MAST meanwhile. */
void playout_decide(engine_t *e, const engine_t *owner, deadline_t dl, const atomic_bool *stop);
/* A new match: forget the bandits (spec §14.2: per match). */
void playout_reset(engine_t *e);
/* The start of one of the agent's searches: MAST and the bandits decay
 * by gamma (spec §9, §14.2), the per-search choice counts restart. */
void engine_decay(engine_t *e, double gamma);
/* Around one playout: each role's strategy for it, then the bandits'
 * update with the playout's rewards e->z (spec §14.2). */
void playout_begin(engine_t *e);
void playout_end(engine_t *e);
/* The moves of the nd deciders e->dec[] at the current state (their legal
 * moves in e->legal) into e->joint. */
void playout_joint(engine_t *e, int nd);
/* MAST epsilon-greedy (spec §9), or uniform with mast=off. */
/* One playout step by the game's own playout policy (game.h): uniform
 * playouts draw with game_playout_move, MAST's choose among
 * game_playout_legal; the moves into e->joint, the deciders into e->dec.
 * Their count, or -1 when the game has no policy or the playout runs the
 * strategies (which try every legal move). */
int playout_game_step(engine_t *e);
uint32_t playout_pick(engine_t *e, uint32_t r);
/* With spec.nst: the mean of MAST's value q of key and the 2-gram values
 * of the previous step's keys that have enough visits (NST). */
double playout_nst_q(engine_t *e, uint32_t key, double q);
/* MAST's value of decider r's move m in a playout (spec §9), or with
 * spec.nst playout_nst_q's. Inline: a MAST step asks it of every
 * candidate. */
static inline double playout_move_q(engine_t *e, uint32_t r, uint32_t m)
{
    uint32_t key = keys_of(e->keys, r, m);
    double q = mast_q(&e->mast, key);
    return e->spec->nst && e->n_steps ? playout_nst_q(e, key, q) : q;
}

/* UCB1 over the strategies set[0 .. n) with counts T and reward sums W
 * (spec §14.1): an untried one first (ties random), else the argmax of
 * W/T + b sqrt(ln(sum T) / T). */
uint32_t bandit_pick(const double *T, const double *W, const uint8_t *set, uint32_t n, double b, rng_t *rng);

/* Goal values of non-terminal states: false if every role's goal is the
 * same in about 200 sampled non-terminal states (spec §14.3), so that E
 * needs its material substitute and alpha-beta its Md leaf. rng is the
 * caller's (the sample is part of its random sequence). */
bool game_goals_informative(const game_t *g, game_ctx_t *ctx, rng_t *rng);

struct playout_state {
    const game_t *g;
    game_ctx_t *ctx;          /* scratch: the candidate states (e->ctx keeps the playout's) */
    game_state_t *sa, *s2;
    /* antidecisive: the replies' states (made on first use) */
    game_ctx_t *rctx;
    game_state_t *sr;
    /* antidecisive: the move just chosen was checked and no reply to it
     * ends the game, so the next step's own win check would find nothing
     * (valid for the next playout_joint only) */
    bool quiet;
    uint32_t k;
    uint32_t *J, *sample;     /* a candidate's joint move; the other deciders' moves of this step */
    move_id_t *cand;          /* the decider's legal moves (copied: e->ctx's arrays) */
    uint32_t cand_cap;
    uint8_t *cur;             /* each role's strategy in this playout */
    double *T, *W;            /* bandits: role-major, PS_N per role; decayed like MAST */
    uint64_t *chosen;         /* role-major: playouts per strategy in this search */
    int goals_flat;           /* -1 not known yet; 1: E uses the material substitute */
    uint64_t decide_ns;       /* playout=auto: time of the samples that searches' clocks cut */
    /* material (spec §14.3): per fluent id, the roles its text names */
    uint64_t *fmask;
    uint8_t *fknown;
    size_t fcap;
    uint32_t *fl;
    uint32_t fl_cap;
    rng_t *rng;               /* the engine's */
};

/* ---- searchers that are not MCTS (alphabeta.c, nmcs.c) ------------------ */


typedef struct ab ab_t;
bool ab_check_game(const game_t *g, char *err, size_t len);
ab_t *ab_new(const game_t *g, uint32_t role, const search_spec_t *spec, uint64_t seed);
void ab_free(ab_t *a);
void ab_reset(ab_t *a, uint64_t seed);
/* Iterative deepening to spec.depth, or until the deadline / stop (the
 * last completed depth's move); rep->playouts counts the nodes searched. */
move_id_t ab_choose(ab_t *a, const game_state_t *st, deadline_t dl, const atomic_bool *stop, search_report_t *rep);
/* One fixed-depth search from st (tests): the value for the searcher's
 * role in [-1, 1], the best move, the nodes visited. tt: use the table. */
double ab_search_depth(ab_t *a, const game_state_t *st, uint32_t depth, bool tt, move_id_t *best, uint64_t *nodes);
/* Transposition-table counters (tests): probes whose slot held another
 * state (rejected: full key or state check failed), hits. */
void ab_tt_stats(const ab_t *a, uint64_t *rejected, uint64_t *hits);
/* Tests: keep only the low `bits` bits of every Zobrist key, so that
 * distinct states collide and the full-state check must reject them. */
void ab_weaken_keys(ab_t *a, uint32_t bits);

typedef struct nmcs nmcs_t;
nmcs_t *nmcs_new(const game_t *g, uint32_t role, const search_spec_t *spec, uint64_t seed);
void nmcs_free(nmcs_t *n);
void nmcs_reset(nmcs_t *n, uint64_t seed);
move_id_t nmcs_choose(nmcs_t *n, const game_state_t *st, deadline_t dl, const atomic_bool *stop, search_report_t *rep);
/* The best score (0..100) of the sequence remembered, or -1. */
int nmcs_best(const nmcs_t *n);
/* st is a state of the best line (nmcs_choose then plays its move). */
bool nmcs_on_line(const nmcs_t *n, const game_state_t *st);

/* Ranking of root moves for the final choice (spec §4.7). */
typedef struct pick {
    uint32_t move, ties;
    double v, q;
    bool by_mean;
} pick_t;
void pick_init(pick_t *pk, bool by_mean);
void pick_offer(pick_t *pk, rng_t *rng, uint32_t move, double v, double q);
/* Worker i of a searcher (tests and reports), or NULL. */
engine_t *searcher_engine(searcher_t *s, uint32_t i);
/* What a searcher holds now for its trees and tables (what memory= bounds
 * for a match row): every tree once, every worker's side tables, the key
 * and joint tables once. */
size_t searcher_held_bytes(searcher_t *s);

#endif
