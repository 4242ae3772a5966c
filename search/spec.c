/* spec.c - the searcher table and player spec strings.
 *
 * `ALGO[:key=value,...]` names a row of search_variants (the algorithms are
 * rows of one policy table, issue "Search") and sets keys from key_defs.
 * Parsing is table-driven: a key's type, range, default and meaning live in
 * one place, which `ggp players` prints. Budgets follow grave-spec §1. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "search/search_internal.h"

/* compete's exploration constant and GRAVE bias (tournaments in
 * bench/results/compete.md): with bias 1, beta = p / (p + v + p v) is about
 * 1 / (1 + v), so AMAF guides a move's first visits only. Placement
 * games take GRAVE's own instead (spec_shape, searcher.c). */
#define COMPETE_C 0.4
#define COMPETE_BIAS 1.0

/* name, summary, selection, tree, recycle, max_depth, final move, default N,
 * match player, AMAF tables from this many visits */
const variant_t search_variants[] = {
    {"random", "a uniformly random legal move", SEL_NONE, TREE_NONE, false, 0, FINAL_ROBUST, 0, false, 0},
    {"mc", "flat Monte Carlo: playouts spread evenly over the root moves; best mean", SEL_FLAT, TREE_SINGLE,
     false, 1, FINAL_MEAN, 0, false, 0},
    {"uct", "UCT, one unbounded tree (P playouts create at most P nodes)", SEL_UCT, TREE_SINGLE, false, 0,
     FINAL_ROBUST, 0, false, 0},
    {"uctr", "UCT in a pool of N nodes with LRU recycling", SEL_UCT, TREE_SINGLE, true, 0, FINAL_ROBUST, 1536, false, 0},
    {"uct2", "two-level UCT: P = N_top x N_sec playouts", SEL_UCT, TREE_TWO, false, 0, FINAL_ROBUST, 200, false, 0},
    {"uctr2", "two-level UCT with recycling in both levels: P = P_top x P_sec", SEL_UCT, TREE_TWO, true, 0,
     FINAL_ROBUST, 160, false, 0},
    {"grave", "GRAVE, one unbounded tree (P playouts create at most P nodes)", SEL_GRAVE, TREE_SINGLE, false, 0,
     FINAL_ROBUST, 0, false, 0},
    {"graver", "GRAVE in a pool of N nodes with LRU recycling (GRAVER)", SEL_GRAVE, TREE_SINGLE, true, 0,
     FINAL_ROBUST, 1536, false, 0},
    {"grave2", "two-level GRAVE (GRAVE^2): P = N_top x N_sec playouts", SEL_GRAVE, TREE_TWO, false, 0,
     FINAL_ROBUST, 200, false, 0},
    {"graver2", "two-level GRAVE with recycling in both levels (GRAVER^2): P = P_top x P_sec", SEL_GRAVE,
     TREE_TWO, true, 0, FINAL_ROBUST, 160, false, 0},
    /* The match player (issue 12): GRAVE with an exploration term, one tree
     * for the whole match within memory= (LRU recycling), an MCTS solver,
     * pondering; AMAF tables only at nodes with 8 visits or more (a node is
     * a reference only past ref = 25 visits, spec §4.2). */
    {"compete", "the match player: GRAVE + exploration, solver, tree reuse, pondering, bounded memory", SEL_GRAVE,
     TREE_SINGLE, true, 0, FINAL_ROBUST, 0, true, 8},
    /* [M]'s UCT/RAVE (spec §14.1): every node its own AMAF (ref 0), CADIA's
     * beta, UCT's exploration */
    {"rave", "RAVE: UCT with each node's own AMAF, beta = sqrt(k/(3N+k)) (one unbounded tree)", SEL_RAVE,
     TREE_SINGLE, false, 0, FINAL_ROBUST, 0, false, 0},
};
const size_t search_n_variants = sizeof search_variants / sizeof search_variants[0];

/* Baselines that are not MCTS (spec §14.4). */
const variant_t search_other_variants[] = {
    {"ab", "alpha-beta: negamax, iterative deepening, Zobrist transposition table (two players taking turns)",
     SEL_AB, TREE_NONE, false, 0, FINAL_ROBUST, 0, false, 0},
    {"nmcs", "nested Monte Carlo search (one-player games): level n, the best sequence remembered", SEL_NMCS,
     TREE_NONE, false, 0, FINAL_ROBUST, 0, false, 0},
};
const size_t search_n_other_variants = sizeof search_other_variants / sizeof search_other_variants[0];

const variant_t *variant_find(const char *name, size_t len)
{
    for (size_t i = 0; i < search_n_variants + search_n_other_variants; i++) {
        const variant_t *v = i < search_n_variants ? &search_variants[i] : &search_other_variants[i - search_n_variants];
        if (strlen(v->name) == len && !strncasecmp(v->name, name, len)) return v;
    }
    return NULL;
}

/* ---- keys ----------------------------------------------------------------- */

typedef enum {
    K_PLAYOUTS, K_NODES, K_LAMBDA, K_PTOP, K_PSEC, K_BIAS, K_REF, K_C, K_EPS, K_DECAY, K_MAST, K_SHARE,
    K_SECONDS, K_SEED, K_THREADS, K_AMAF, K_CHECK, K_SOLVER, K_REUSE, K_PONDER, K_MEMORY, K_NESTED,
    K_PLAYOUT, K_STRATEGIES, K_B, K_K, K_DEPTH, K_TT, K_LEVEL, K_NST, K_LOOKAHEAD,
    K_LOSTVISIT, K_RBONUS, K_OPPC, K_LGR, K_CACHE, N_KEYS
} key_id_t;
_Static_assert(N_KEYS <= 64, "search_spec_t.set holds one bit per key");

typedef enum { KT_INT, KT_REAL, KT_ONOFF, KT_AMAF, KT_PLAYOUT, KT_LIST } key_type_t;

static bool ap_all(const variant_t *v) { (void)v; return true; }
static bool ap_search(const variant_t *v) { return v->sel != SEL_NONE && v->sel != SEL_AB && v->sel != SEL_NMCS; }
static bool ap_timed(const variant_t *v) { return v->sel != SEL_NONE; }
static bool ap_rave(const variant_t *v) { return v->sel == SEL_RAVE; }
static bool ap_ab(const variant_t *v) { return v->sel == SEL_AB; }
static bool ap_ab_match(const variant_t *v) { return v->sel == SEL_AB || v->match; }
static bool ap_nmcs(const variant_t *v) { return v->sel == SEL_NMCS; }
static bool ap_amaf(const variant_t *v) { return sel_amaf(v->sel); }
static bool ap_single(const variant_t *v) { return v->tree == TREE_SINGLE; }
static bool ap_nodes(const variant_t *v) { return v->def_nodes != 0; }
static bool ap_two(const variant_t *v) { return v->tree == TREE_TWO; }
static bool ap_two_rec(const variant_t *v) { return v->tree == TREE_TWO && v->recycle; }
static bool ap_grave(const variant_t *v) { return v->sel == SEL_GRAVE; }
static bool ap_grave_two(const variant_t *v) { return v->sel == SEL_GRAVE && v->tree == TREE_TWO; }
static bool ap_tree(const variant_t *v) { return v->sel == SEL_UCT || sel_amaf(v->sel); }
static bool ap_match(const variant_t *v) { return v->match; }
/* Workers: root parallelism for one unbounded tree, a shared tree for the
 * match player; not a key of the others (root parallelism would split
 * their node budget N). */
static bool ap_threads(const variant_t *v)
{
    return v->sel != SEL_NONE && v->tree == TREE_SINGLE && (!v->recycle || v->match);
}

typedef struct key_def {
    const char *name;
    key_type_t type;
    double lo, hi;
    const char *def;     /* default, as text ("" = per algorithm) */
    const char *meaning;
    bool (*applies)(const variant_t *v);
} key_def_t;

static const key_def_t key_defs[N_KEYS] = {
    [K_PLAYOUTS] = {"playouts", KT_INT, 1, 1e9, "10000", "P: playouts (simulations) per move", ap_single},
    [K_NODES] = {"nodes", KT_INT, 1, 1e8, "(algo)",
                 "N: most tree nodes resident at once (uctr/graver 1536, uct2/grave2 200, uctr2/graver2 160)",
                 ap_nodes},
    [K_LAMBDA] = {"lambda", KT_REAL, 0, 1, "0.5", "share of N for the second level: N_sec = round(lambda*N)", ap_two},
    [K_PTOP] = {"ptop", KT_INT, 1, 1e9, "2*N_top", "P_top: top-level iterations (each one second-level search)",
                ap_two_rec},
    [K_PSEC] = {"psec", KT_INT, 1, 1e9, "N_sec", "P_sec: playouts per second-level search", ap_two_rec},
    [K_BIAS] = {"bias", KT_REAL, 0, 1000, "0.01 (compete 1)", "GRAVE bias in beta = p / (p + v + bias*p*v); compete on placement games 0.01", ap_grave},
    [K_REF] = {"ref", KT_REAL, 0, 1e9, "25", "GRAVE reference threshold: a node with V > ref uses its own AMAF (inf = root)",
               ap_grave},
    [K_C] = {"c", KT_REAL, 0, 100, "(algo)",
             "exploration constant: UCT 0.7071 (sqrt(2)/2 for rewards in [0,1]); GRAVE 0 (none, as in the paper); compete 0.4 (placement games 0)",
             ap_tree},
    [K_EPS] = {"eps", KT_REAL, 0, 1, "0.4", "MAST epsilon: share of uniformly random playout moves", ap_search},
    [K_DECAY] = {"decay", KT_REAL, 0, 1, "0.2", "MAST statistics kept between the agent's searches (x decay)", ap_search},
    [K_MAST] = {"mast", KT_ONOFF, 0, 1, "on", "MAST epsilon-greedy playouts (off: uniform random playouts)", ap_search},
    [K_SHARE] = {"share", KT_ONOFF, 0, 1, "on", "forward sharing: second-level searches read top-path AMAF", ap_grave_two},
    [K_SECONDS] = {"seconds", KT_REAL, 0.001, 86400, "",
                   "time budget per move instead of playouts (anytime; checked between playouts)", ap_timed},
    [K_SEED] = {"seed", KT_INT, 0, 18446744073709551615.0, "0", "random seed (same seed and budget, same move)", ap_all},
    [K_THREADS] = {"threads", KT_INT, 1, 64, "1", "workers: root-parallel for mc, uct, grave, rave (playouts shared out); one shared tree for compete",
                   ap_threads},
    [K_AMAF] = {"amaf", KT_AMAF, 0, 0, "auto", "AMAF tables: dense, sparse, or auto (dense if <= 1024 keys; compete: 4096)", ap_amaf},
    [K_CHECK] = {"check", KT_ONOFF, 0, 1, "off", "verify the LRU invariants after every iteration (debugging)", ap_search},
    [K_SOLVER] = {"solver", KT_ONOFF, 0, 1, "on", "MCTS solver: exact values of proven nodes, a proven win at once",
                  ap_match},
    [K_REUSE] = {"reuse", KT_ONOFF, 0, 1, "on",
                 "keep the tree for the whole match (the subtree of the moves played), forced moves searched too",
                 ap_match},
    [K_PONDER] = {"ponder", KT_ONOFF, 0, 1, "on", "ggp serve: search on after replying, until the next request",
                  ap_match},
    [K_MEMORY] = {"memory", KT_INT, 1, 1048576, "(RAM/2)",
                  "MB for the tree, its tables, MAST, N-grams and replies (default half the RAM, at most 4096; at most the RAM); LRU recycling past it",
                  ap_match},
    [K_NESTED] = {"nested", KT_ONOFF, 0, 1, "on",
                  "one-player games, timed: half of each search to nested Monte Carlo (level 2), its line if better",
                  ap_match},
    [K_PLAYOUT] = {"playout", KT_PLAYOUT, 0, 0, "mast|auto",
                   "playout strategy (spec §14): random, mast, mobility, md, eval, decisive, antidecisive, switch (UCB1 per role), or auto (compete's default: antidecisive or mast, from a sample of the game)",
                   ap_search},
    [K_STRATEGIES] = {"strategies", KT_LIST, 0, 0, "mast,mobility,md,eval",
                      "playout=switch: the strategies the bandit picks from (comma or + separated)", ap_search},
    [K_B] = {"b", KT_REAL, 0, 1000, "4", "playout=switch: UCB1 exploration constant of the strategy bandit", ap_search},
    [K_K] = {"k", KT_REAL, 1e-9, 1e12, "1000", "RAVE equivalence parameter: beta = sqrt(k / (3N + k))", ap_rave},
    [K_DEPTH] = {"depth", KT_INT, 1, 200, "4", "alpha-beta: search depth in plies (iterative deepening up to it)", ap_ab},
    [K_TT] = {"tt", KT_INT, 0, 65536, "(algo)",
              "alpha-beta: transposition table MB (default 16); compete (solver on): MB of a table of proven states, besides memory (default 0: none)",
              ap_ab_match},
    [K_LEVEL] = {"level", KT_INT, 0, 10, "2", "NMCS level (0: one random playout)", ap_nmcs},
    [K_NST] = {"nst", KT_ONOFF, 0, 1, "(algo)",
               "N-grams: MAST's choice also weighs the 2-gram (previous step's move, move) of >= 7 visits (Tak et al. 2012; default: on for compete, off otherwise)",
               ap_search},
    [K_LOOKAHEAD] = {"lookahead", KT_ONOFF, 0, 1, "off",
                     "two players, solver on: a node's second visit looks two plies ahead, proving a win in one or a loss to every move (MCTS-MS, Baier and Winands 2015)",
                     ap_match},
    [K_LOSTVISIT] = {"lostvisit", KT_ONOFF, 0, 1, "off",
                     "solver on: a proven-lost move stays selectable as an ordinary move of value 0 (its AMAF still weighs), not ruled out",
                     ap_match},
    [K_RBONUS] = {"rbonus", KT_REAL, 0, 1, "0",
                  "relative bonus a: a win shorter than the search's mean simulation adds up to a to the winner's reward and takes it from the loser's, a longer one the reverse (Pepels et al. 2014; 0: off)",
                  ap_match},
    [K_OPPC] = {"oppc", KT_REAL, -1, 100, "-1",
                "exploration constant at the root of a search on another role's turn (own move forced, pondering), where only the reply played is kept (-1: c's)",
                ap_match},
    [K_LGR] = {"lgr", KT_ONOFF, 0, 1, "(algo)",
               "last good reply with forgetting: a playout move answers the previous step's move as in the last playout its role won (LGRF-1; Baier and Drake 2010, Tak et al. 2012), else MAST's choice (default: on for compete, off otherwise)",
               ap_search},
    [K_CACHE] = {"cache", KT_ONOFF, 0, 1, "on",
                 "one worker: often-visited tree nodes keep their state and legal moves, so descents skip the reasoner there (the same moves, sooner)",
                 ap_threads},
};

/* The default strategy set of playout=switch (spec §14.2): mast,
 * mobility, md, eval (the .strategies below). */
enum { N_DEFAULT_STRATEGIES = 4 };

void spec_shape(search_spec_t *s, bool placement, bool churns)
{
    if (placement && !(s->set & (1ull << K_BIAS))) s->bias = 0.01; /* spec §10 */
    if (placement && !(s->set & (1ull << K_C))) s->c = 0;          /* spec §4.1 */
    if (churns && !(s->set & (1ull << K_LGR))) s->lgr = false;
    if (churns && !(s->set & (1ull << K_NST))) s->nst = false;
}

static search_spec_t spec_defaults(const variant_t *v)
{
    return (search_spec_t){
        .v = v,
        .playouts = 10000,
        .nodes = v->def_nodes,
        .lambda = 0.5,
        .bias = v->match ? COMPETE_BIAS : 0.01, /* spec §10; compete: see COMPETE_BIAS */
        .ref = v->sel == SEL_RAVE ? 0 : 25, /* RAVE: each node its own AMAF (spec §4.2) */
        /* GRAVE: no exploration (spec §4.1); compete: some, see COMPETE_C */
        .c = v->sel == SEL_UCT || v->sel == SEL_RAVE ? 0.70710678118654752 : v->match ? COMPETE_C : 0,
        .eps = 0.4,
        .decay = 0.2,
        .mast = true,
        .share = true,
        .amaf = AMAF_AUTO,
        .threads = 1,
        .solver = true,
        .reuse = true,
        .cache = true,
        .ponder = true,
        .nested = true,
        .playout = PS_MAST,
        .n_strategies = N_DEFAULT_STRATEGIES,
        .strategies = {PS_MAST, PS_MOBILITY, PS_MD, PS_EVAL},
        .ss_b = 4, /* [M] §3.3 */
        .rave_k = 1000, /* [M]'s experiments */
        .oppc = -1, /* another role's root explores as every node */
        /* compete: last good replies (bench/results/compete.md, session 23)
         * and N-grams (session 24) */
        .lgr = v->match,
        .nst = v->match,
        .depth = 4,
        /* compete's table of proven states showed no gain (47.0% of 200
         * games against tt=0, bench/results/compete.md): off unless asked */
        .tt_mb = v->match ? 0 : 16,
        .level = 2,
    };
}

static void fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t len, const char *fmt, ...)
{
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

static void key_list(const variant_t *v, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < N_KEYS; i++) {
        if (!key_defs[i].applies(v)) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", key_defs[i].name);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}

/* An integer bound as text (the seed's upper bound is 2^64 - 1, which a
 * double cannot hold). */
static const char *int_bound(double x, char *buf, size_t len)
{
    if (x >= 18446744073709551615.0) snprintf(buf, len, "18446744073709551615");
    else snprintf(buf, len, "%.0f", x);
    return buf;
}

static bool parse_value(search_spec_t *s, key_id_t id, const char *val, size_t vlen, char *err, size_t elen)
{
    const key_def_t *kd = &key_defs[id];
    char buf[64];
    if (vlen == 0 || vlen >= sizeof buf) goto bad;
    memcpy(buf, val, vlen);
    buf[vlen] = 0;
    /* strtoull and strtod skip leading blanks (" -1" read as 2^64 - 1) and
     * strtod reads hex ("0x10"): neither is a value the table means */
    if (isspace((unsigned char)buf[0]) || ((kd->type == KT_INT || kd->type == KT_REAL) && strpbrk(buf, "xX"))) goto bad;
    switch (kd->type) {
    case KT_ONOFF: {
        bool on;
        if (!strcasecmp(buf, "on") || !strcasecmp(buf, "true") || !strcmp(buf, "1")) on = true;
        else if (!strcasecmp(buf, "off") || !strcasecmp(buf, "false") || !strcmp(buf, "0")) on = false;
        else goto bad;
        if (id == K_MAST) s->mast = on;
        else if (id == K_SHARE) s->share = on;
        else if (id == K_SOLVER) s->solver = on;
        else if (id == K_REUSE) s->reuse = on;
        else if (id == K_PONDER) s->ponder = on;
        else if (id == K_NESTED) s->nested = on;
        else if (id == K_NST) s->nst = on;
        else if (id == K_LGR) s->lgr = on;
        else if (id == K_LOOKAHEAD) s->lookahead = on;
        else if (id == K_LOSTVISIT) s->lostvisit = on;
        else if (id == K_CACHE) s->cache = on;
        else s->check = on;
        return true;
    }
    case KT_PLAYOUT: {
        int i = strategy_find(buf, strlen(buf));
        if (i >= 0) s->playout = (uint8_t)i;
        else if (!strcasecmp(buf, "switch")) s->playout = PLAYOUT_SWITCH;
        else if (!strcasecmp(buf, "auto") && s->v->match) s->playout = PLAYOUT_AUTO;
        else goto bad;
        return true;
    }
    case KT_LIST: { /* strategies: names separated by '+' (',' is joined to '+' by the caller) */
        uint8_t set[PS_N];
        uint32_t n = 0;
        for (char *p = buf; *p;) {
            size_t len = strcspn(p, "+");
            int i = strategy_find(p, len);
            if (i < 0 || n == PS_N) goto bad;
            for (uint32_t j = 0; j < n; j++)
                if (set[j] == i) goto bad;
            set[n++] = (uint8_t)i;
            p += len;
            if (*p) p++;
        }
        if (n == 0) goto bad;
        memcpy(s->strategies, set, n);
        s->n_strategies = (uint8_t)n;
        return true;
    }
    case KT_AMAF:
        if (!strcasecmp(buf, "auto")) s->amaf = AMAF_AUTO;
        else if (!strcasecmp(buf, "dense")) s->amaf = AMAF_DENSE;
        else if (!strcasecmp(buf, "sparse")) s->amaf = AMAF_SPARSE;
        else goto bad;
        return true;
    case KT_INT: {
        char *end;
        errno = 0;
        if (buf[0] == '-' || buf[0] == '+') goto bad;
        unsigned long long x = strtoull(buf, &end, 10);
        if (*end || errno || (double)x < kd->lo || (double)x > kd->hi) goto bad;
        switch (id) {
        case K_PLAYOUTS: s->playouts = x; break;
        case K_NODES: s->nodes = x; break;
        case K_PTOP: s->ptop = x; break;
        case K_PSEC: s->psec = x; break;
        case K_SEED: s->seed = x; break;
        case K_THREADS: s->threads = (uint32_t)x; break;
        case K_MEMORY: s->memory_mb = x; break;
        case K_DEPTH: s->depth = (uint32_t)x; break;
        case K_TT: s->tt_mb = x; break;
        case K_LEVEL: s->level = (uint32_t)x; break;
        default: goto bad;
        }
        return true;
    }
    case KT_REAL: {
        char *end;
        double x;
        if (id == K_REF && (!strcasecmp(buf, "inf") || !strcasecmp(buf, "infinity"))) {
            x = INFINITY;
        } else {
            errno = 0;
            x = strtod(buf, &end);
            if (*end || errno || !isfinite(x) || x < kd->lo || x > kd->hi) goto bad;
        }
        switch (id) {
        case K_LAMBDA: s->lambda = x; break;
        case K_BIAS: s->bias = x; break;
        case K_REF: s->ref = x; break;
        case K_C: s->c = x; break;
        case K_EPS: s->eps = x; break;
        case K_DECAY: s->decay = x; break;
        case K_SECONDS: s->seconds = x; break;
        case K_B: s->ss_b = x; break;
        case K_K: s->rave_k = x; break;
        case K_RBONUS: s->rbonus = x; break;
        case K_OPPC: /* -1 (c's) or a constant: any other negative read as -1 */
            if (x < 0 && x != -1) goto bad;
            s->oppc = x;
            break;
        default: goto bad;
        }
        return true;
    }
    }
bad:
    switch (kd->type) {
    case KT_ONOFF: fail(err, elen, "bad value for %s: '%.*s' (expected on or off)", kd->name, (int)vlen, val); break;
    case KT_AMAF:
        fail(err, elen, "bad value for %s: '%.*s' (expected auto, dense or sparse)", kd->name, (int)vlen, val);
        break;
    case KT_PLAYOUT:
        fail(err, elen, "bad value for %s: '%.*s' (expected random, mast, mobility, md, eval, decisive, antidecisive, switch, or auto for compete)", kd->name,
             (int)vlen, val);
        break;
    case KT_LIST:
        fail(err, elen,
             "bad value for %s: '%.*s' (expected distinct names among random, mast, mobility, md, eval, separated by "
             "commas)",
             kd->name, (int)vlen, val);
        break;
    case KT_INT: {
        char hi[32];
        fail(err, elen, "bad value for %s: '%.*s' (expected an integer from %.0f to %s)", kd->name, (int)vlen, val,
             kd->lo, int_bound(kd->hi, hi, sizeof hi));
        break;
    }
    case KT_REAL:
        fail(err, elen, "bad value for %s: '%.*s' (expected a number from %g to %g%s)", kd->name, (int)vlen, val,
             kd->lo, kd->hi, id == K_REF ? ", or inf" : "");
        break;
    }
    return false;
}

static uint32_t n_sec_of(const search_spec_t *s) { return (uint32_t)llround(s->lambda * (double)s->nodes); }

/* Derived values and the checks that involve several keys. */
static bool spec_finish(search_spec_t *s, char *err, size_t elen)
{
    const variant_t *v = s->v;
    /* Playouts (spec §9, §14): mast, or random with mast=off, unless given. */
    bool needs_mast = s->playout == PS_MAST || s->playout == PS_DECISIVE || s->playout == PS_ANTIDECISIVE ||
                      s->playout == PLAYOUT_AUTO;
    for (uint32_t i = 0; s->playout == PLAYOUT_SWITCH && i < s->n_strategies; i++)
        needs_mast = needs_mast || s->strategies[i] == PS_MAST || s->strategies[i] == PS_DECISIVE ||
                     s->strategies[i] == PS_ANTIDECISIVE;
    if (!(s->set & (1ull << K_PLAYOUT))) {
        s->playout = !s->mast ? PS_RANDOM : v->match ? PLAYOUT_AUTO : PS_MAST;
    } else if (needs_mast && !s->mast) {
        fail(err, elen, "%s: playout=%s uses MAST, which mast=off turns off", v->name,
             s->playout == PLAYOUT_SWITCH ? "switch with mast among the strategies" : "mast");
        return false;
    }
    if (!(s->set & (1ull << K_NST)) && !s->mast) s->nst = false; /* compete's default follows mast= too */
    if (s->nst && !s->mast) {
        fail(err, elen, "%s: nst weighs MAST's choice, which mast=off turns off", v->name);
        return false;
    }
    if (v->match && (s->set & (1ull << K_TT)) && s->tt_mb && !s->solver) {
        fail(err, elen, "%s: tt holds the solver's proven states, which solver=off turns off", v->name);
        return false;
    }
    if (s->lostvisit && !s->solver) {
        fail(err, elen, "%s: lostvisit changes how the solver's proven losses are selected, which solver=off turns off", v->name);
        return false;
    }
    if (s->lookahead && !s->solver) {
        fail(err, elen, "%s: lookahead proves nodes for the solver, which solver=off turns off", v->name);
        return false;
    }
    if ((s->set & ((1ull << K_STRATEGIES) | (1ull << K_B))) && s->playout != PLAYOUT_SWITCH) {
        fail(err, elen, "%s: strategies and b are for playout=switch", v->name);
        return false;
    }
    if ((s->set & (1ull << K_SECONDS)) && (s->set & ((1ull << K_PLAYOUTS) | (1ull << K_PTOP) | (1ull << K_DEPTH)))) {
        fail(err, elen, "%s: give a %s budget or seconds, not both", v->name, v->sel == SEL_AB ? "depth" : "playout");
        return false;
    }
    if (v->tree == TREE_TWO) {
        uint32_t ns = n_sec_of(s);
        if (s->nodes < 2 || ns < 1 || ns >= s->nodes) {
            fail(err, elen,
                 "%s: nodes=%llu with lambda=%g leaves a level empty (need 1 <= round(lambda*nodes) <= nodes-1)",
                 v->name, (unsigned long long)s->nodes, s->lambda);
            return false;
        }
        uint32_t nt = (uint32_t)s->nodes - ns;
        if (!(s->set & (1ull << K_PTOP))) s->ptop = v->recycle ? 2ull * nt : nt;
        if (!(s->set & (1ull << K_PSEC))) s->psec = ns;
    }
    if (s->tt_mb) { /* allocated whole at the first search: more than the machine holds is an abort later */
        uint64_t half = search_ram_mb() / 2;
        if (half && s->tt_mb > half) {
            fail(err, elen, "%s: tt=%llu MB is more than half this machine's RAM (%llu MB)", v->name,
                 (unsigned long long)s->tt_mb, (unsigned long long)half);
            return false;
        }
    }
    if (v->match && (s->set & (1ull << K_MEMORY))) {
        /* workers sharing a tree have its arrays allocated whole (pool_fix)
         * at the first search: past the RAM that was an abort there, in
         * the middle of a match */
        uint64_t ram = search_ram_mb();
        if (ram && s->memory_mb > ram) {
            fail(err, elen, "%s: memory=%llu MB is more than this machine's RAM (%llu MB)", v->name,
                 (unsigned long long)s->memory_mb, (unsigned long long)ram);
            return false;
        }
    }
    if (v->match && s->threads > NODE_MAX_FLIGHTS) {
        fail(err, elen, "%s: threads must be at most %d (one shared tree)", v->name, NODE_MAX_FLIGHTS);
        return false;
    }
    if (v->match && s->threads > 1 && s->check) {
        fail(err, elen, "%s: check=on needs threads=1 (workers in flight break the LRU checks)", v->name);
        return false;
    }
    return true;
}

search_spec_t *search_spec_parse(const char *text, char *err, size_t err_len)
{
    if (!text) text = "";
    const char *colon = strchr(text, ':');
    size_t nlen = colon ? (size_t)(colon - text) : strlen(text);
    const variant_t *v = variant_find(text, nlen);
    if (!v) {
        char names[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < search_n_variants + search_n_other_variants && used < sizeof names; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                     i < search_n_variants ? search_variants[i].name
                                                           : search_other_variants[i - search_n_variants].name);
        fail(err, err_len, "unknown algorithm '%.*s' (expected one of %s)", (int)nlen, text, names);
        return NULL;
    }
    search_spec_t s = spec_defaults(v);
    const char *p = colon ? colon + 1 : NULL;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (eq && (size_t)(eq - p) == strlen(key_defs[K_STRATEGIES].name) &&
            !strncasecmp(p, key_defs[K_STRATEGIES].name, (size_t)(eq - p)) && key_defs[K_STRATEGIES].applies(v)) {
            /* strategies=a,b,c: the names that follow without '=' are its items */
            while (end && end[1] && !memchr(end + 1, '=', strcspn(end + 1, ","))) end = strchr(end + 1, ',');
            len = end ? (size_t)(end - p) : strlen(p);
            char list[128];
            size_t vl = len - (size_t)(eq - p) - 1;
            if (vl >= sizeof list) vl = sizeof list - 1;
            memcpy(list, eq + 1, vl);
            list[vl] = 0;
            for (char *c = list; *c; c++)
                if (*c == ',') *c = '+';
            if (!parse_value(&s, K_STRATEGIES, list, vl, err, err_len)) return NULL;
            s.set |= 1ull << K_STRATEGIES;
            p = end ? end + 1 : NULL;
            continue;
        }
        if (!eq) {
            fail(err, err_len, "%s: expected key=value, got '%.*s'", v->name, (int)len, p);
            return NULL;
        }
        size_t klen = (size_t)(eq - p);
        int id = -1;
        for (int i = 0; i < N_KEYS; i++)
            if (strlen(key_defs[i].name) == klen && !strncasecmp(key_defs[i].name, p, klen)) id = i;
        if (id < 0 || !key_defs[id].applies(v)) {
            char keys[512];
            key_list(v, keys, sizeof keys);
            fail(err, err_len, "%s key '%.*s' for %s (its keys: %s)", id < 0 ? "unknown" : "inapplicable", (int)klen,
                 p, v->name, keys);
            return NULL;
        }
        if (!parse_value(&s, (key_id_t)id, eq + 1, len - klen - 1, err, err_len)) return NULL;
        s.set |= 1ull << id; /* a later value of the same key wins (sweeps append) */
        p = end ? end + 1 : NULL;
    }
    if (!spec_finish(&s, err, err_len)) return NULL;
    search_spec_t *out = xmalloc(sizeof *out);
    *out = s;
    return out;
}

void search_spec_free(search_spec_t *s) { free(s); }

bool search_spec_is_timed(const search_spec_t *s) { return s->seconds > 0; }

bool search_spec_ponders(const search_spec_t *s) { return s->v->match && s->ponder && s->reuse; }

bool search_spec_set_threads(search_spec_t *s, uint32_t n)
{
    if (!s->v->match || (s->set & (1ull << K_THREADS)) || n < 1) return false;
    s->threads = n > NODE_MAX_FLIGHTS ? NODE_MAX_FLIGHTS : n;
    if (s->check) s->threads = 1;
    return true;
}

uint64_t search_ram_mb(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / (1024 * 1024) : 0;
}

bool search_spec_set_memory(search_spec_t *s, uint64_t mb)
{
    if (!s->v->match || (s->set & (1ull << K_MEMORY))) return false;
    s->memory_mb = mb;
    return true;
}

uint64_t search_spec_seed(const search_spec_t *s) { return s->seed; }

static void print_value(const search_spec_t *s, key_id_t id, FILE *out)
{
    switch (id) {
    case K_PLAYOUTS: fprintf(out, "%llu", (unsigned long long)s->playouts); break;
    case K_NODES: fprintf(out, "%llu", (unsigned long long)s->nodes); break;
    case K_LAMBDA: fprintf(out, "%g", s->lambda); break;
    case K_PTOP: fprintf(out, "%llu", (unsigned long long)s->ptop); break;
    case K_PSEC: fprintf(out, "%llu", (unsigned long long)s->psec); break;
    case K_BIAS: fprintf(out, "%g", s->bias); break;
    case K_REF: isinf(s->ref) ? fputs("inf", out) : fprintf(out, "%g", s->ref); break;
    case K_C: fprintf(out, "%g", s->c); break;
    case K_EPS: fprintf(out, "%g", s->eps); break;
    case K_DECAY: fprintf(out, "%g", s->decay); break;
    case K_MAST: fputs(s->mast ? "on" : "off", out); break;
    case K_SHARE: fputs(s->share ? "on" : "off", out); break;
    case K_SECONDS: fprintf(out, "%g", s->seconds); break;
    case K_SEED: fprintf(out, "%llu", (unsigned long long)s->seed); break;
    case K_THREADS: fprintf(out, "%u", s->threads); break;
    case K_AMAF: fputs(s->amaf == AMAF_DENSE ? "dense" : s->amaf == AMAF_SPARSE ? "sparse" : "auto", out); break;
    case K_CHECK: fputs(s->check ? "on" : "off", out); break;
    case K_SOLVER: fputs(s->solver ? "on" : "off", out); break;
    case K_REUSE: fputs(s->reuse ? "on" : "off", out); break;
    case K_PONDER: fputs(s->ponder ? "on" : "off", out); break;
    case K_NESTED: fputs(s->nested ? "on" : "off", out); break;
    case K_NST: fputs(s->nst ? "on" : "off", out); break;
    case K_LGR: fputs(s->lgr ? "on" : "off", out); break;
    case K_CACHE: fputs(s->cache ? "on" : "off", out); break;
    case K_LOOKAHEAD: fputs(s->lookahead ? "on" : "off", out); break;
    case K_LOSTVISIT: fputs(s->lostvisit ? "on" : "off", out); break;
    case K_RBONUS: fprintf(out, "%g", s->rbonus); break;
    case K_OPPC: fprintf(out, "%g", s->oppc); break;
    case K_MEMORY:
        fprintf(out, "%llu", (unsigned long long)(s->memory_mb ? s->memory_mb : engine_default_memory_mb()));
        break;
    case K_PLAYOUT:
        fputs(s->playout == PLAYOUT_SWITCH ? "switch" : s->playout == PLAYOUT_AUTO ? "auto" : playout_strategies[s->playout].name, out);
        break;
    case K_STRATEGIES:
        for (uint32_t i = 0; i < s->n_strategies; i++)
            fprintf(out, "%s%s", i ? "," : "", playout_strategies[s->strategies[i]].name);
        break;
    case K_B: fprintf(out, "%g", s->ss_b); break;
    case K_K: fprintf(out, "%g", s->rave_k); break;
    case K_DEPTH: fprintf(out, "%u", s->depth); break;
    case K_TT: fprintf(out, "%llu", (unsigned long long)s->tt_mb); break;
    case K_LEVEL: fprintf(out, "%u", s->level); break;
    case N_KEYS: break;
    }
}

void search_spec_print(const search_spec_t *s, FILE *out)
{
    fputs(s->v->name, out);
    bool timed = search_spec_is_timed(s), first = true;
    for (int i = 0; i < N_KEYS; i++) {
        if (!key_defs[i].applies(s->v)) continue;
        if (i == K_SECONDS && !timed) continue;
        if ((i == K_PLAYOUTS || i == K_PTOP || i == K_DEPTH) && timed) continue;
        if ((i == K_STRATEGIES || i == K_B) && s->playout != PLAYOUT_SWITCH) continue;
        fputc(first ? ':' : ',', out);
        first = false;
        fprintf(out, "%s=", key_defs[i].name);
        print_value(s, (key_id_t)i, out);
    }
}

void search_players_help(FILE *out)
{
    fputs("Player specs: ALGO[:key=value,...], e.g. grave2:nodes=200,lambda=0.5,seed=7\n\nalgorithms:\n", out);
    for (size_t i = 0; i < search_n_variants; i++)
        fprintf(out, "  %-8s %s\n", search_variants[i].name, search_variants[i].summary);
    for (size_t i = 0; i < search_n_other_variants; i++)
        fprintf(out, "  %-8s %s\n", search_other_variants[i].name, search_other_variants[i].summary);
    fputs("\nkeys (default; range; meaning; algorithms):\n", out);
    for (int i = 0; i < N_KEYS; i++) {
        const key_def_t *kd = &key_defs[i];
        char range[64];
        switch (kd->type) {
        case KT_ONOFF: snprintf(range, sizeof range, "on|off"); break;
        case KT_AMAF: snprintf(range, sizeof range, "auto|dense|sparse"); break;
        case KT_PLAYOUT: snprintf(range, sizeof range, "a strategy|switch"); break;
        case KT_LIST: snprintf(range, sizeof range, "strategies"); break;
        case KT_INT: {
            char hi[32];
            snprintf(range, sizeof range, "%.0f..%s", kd->lo, int_bound(kd->hi, hi, sizeof hi));
            break;
        }
        case KT_REAL: snprintf(range, sizeof range, "%g..%g%s", kd->lo, kd->hi, i == K_REF ? "|inf" : ""); break;
        }
        fprintf(out, "  %-9s %-8s %-24s %s\n            for:", kd->name, kd->def[0] ? kd->def : "-", range,
                kd->meaning);
        for (size_t j = 0; j < search_n_variants; j++)
            if (kd->applies(&search_variants[j])) fprintf(out, " %s", search_variants[j].name);
        for (size_t j = 0; j < search_n_other_variants; j++)
            if (kd->applies(&search_other_variants[j])) fprintf(out, " %s", search_other_variants[j].name);
        fputc('\n', out);
    }
    fputs("\nBudgets (docs/players.md has examples): uct/grave/mc run P playouts; uctr/graver keep at most\n"
          "N nodes and recycle the least recently used leaf; uct2/grave2 split N into\n"
          "N_top = N - round(lambda*N) and N_sec = round(lambda*N) and run N_top x N_sec playouts;\n"
          "uctr2/graver2 run ptop x psec playouts within the same N. seconds=S replaces the playout\n"
          "budget by a time limit. A later key overrides an earlier one.\n"
          "Playouts (section 14): playout=mobility|md|eval plays greedily by that heuristic one ply\n"
          "ahead; playout=switch,strategies=mast,mobility,md,eval,b=4 lets a UCB1 bandit per role\n"
          "pick the strategy of each simulation. ab:depth=D and nmcs:level=L are not MCTS.\n",
          out);
}

void spec_budget(const search_spec_t *s, budget_t *b)
{
    memset(b, 0, sizeof *b);
    b->timed = search_spec_is_timed(s);
    if (s->v->tree == TREE_SINGLE) {
        b->p = b->timed ? UINT64_MAX : s->playouts;
        b->n = s->v->recycle ? (uint32_t)s->nodes : 0;
    } else if (s->v->tree == TREE_TWO) {
        b->n_sec = n_sec_of(s);
        b->n_top = (uint32_t)s->nodes - b->n_sec;
        b->p_top = b->timed && s->v->recycle ? UINT64_MAX : s->ptop;
        b->p_sec = s->psec;
    }
}

void search_agresti_coull(double x, double n, double *lo, double *hi)
{
    const double z = 1.959963984540054;
    if (n <= 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    double nt = n + z * z, pt = (x + z * z / 2) / nt, h = z * sqrt(pt * (1 - pt) / nt);
    *lo = pt - h < 0 ? 0 : pt - h;
    *hi = pt + h > 1 ? 1 : pt + h;
}
