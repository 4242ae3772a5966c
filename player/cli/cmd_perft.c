/* cmd_perft.c - `ggp perft FILE.kif --depth D`: count the game tree to a
 * depth, as chess engines do to check move generation (issue "The reasoner",
 * item 5). Figures are checked against known counts in
 * tests/player/test_cli_tools.c (tic-tac-toe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/trace_io.h"

static const char perft_help[] =
    "usage: ggp perft FILE.kif --depth D [--engine propnet|rules|auto]\n"
    "                 [--ground-ms MS] [--eliminate-after N] [--memory MB]\n"
    "                 [--load-ms MS] [--quiet]\n"
    "\n"
    "Walk the game tree depth-first from the initial state, playing every joint\n"
    "move (one legal move per role) and stopping at terminal states, and print\n"
    "for each depth d = 1..D:\n"
    "  depth d: paths=P states=S terminals=T\n"
    "  P  joint-move sequences of length d (nodes of the tree at depth d);\n"
    "  S  distinct states among them (game_state_equal);\n"
    "  T  those of the P paths that end in a terminal state at exactly depth d\n"
    "     (as chess perft counts leaves at exactly d; terminal paths do not go on).\n"
    "Then the total time. States at every depth are kept to count S, so memory\n"
    "grows with S.\n"
    "\n"
    "  --depth D         depth to reach, 1..64 (required)\n"
    CLI_HELP_LOAD_OPTIONS
    "  --load-ms MS      load budget: past it the load fails naming the\n"
    "                    relation it was computing (default: none)\n"
    "  --quiet           do not report which engine was chosen\n"
    "\n"
    "exit status: 0 done, 1 the game does not compile, 2 usage or I/O error\n";

/* A set of states (open addressing on game_state_hash). */
typedef struct state_set {
    game_state_t **slot;
    uint64_t *hash;
    size_t cap, n;
} state_set_t;

typedef struct perft {
    const game_t *g;
    game_ctx_t *ctx;
    uint32_t nr, depth;
    game_state_t **st;      /* [depth+1]: the state at each depth of the path */
    move_id_t **legal;      /* [depth][role * cap]: copies of the legal moves */
    uint32_t **n_legal;     /* [depth][role] */
    size_t *legal_cap;      /* [depth] per role */
    move_id_t *joint;       /* [depth * nr] */
    uint64_t *paths, *terms; /* [depth+1] */
    state_set_t *sets;      /* [depth+1] */
    uint64_t stuck;         /* non-terminal states where a role has no move */
} perft_t;

static void set_insert(const game_t *g, state_set_t *s, const game_state_t *x)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        game_state_t **slot = xcalloc(cap, sizeof *slot);
        uint64_t *hash = xcalloc(cap, sizeof *hash);
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slot[i]) continue;
            size_t j = s->hash[i] & (cap - 1);
            while (slot[j]) j = (j + 1) & (cap - 1);
            slot[j] = s->slot[i];
            hash[j] = s->hash[i];
        }
        free(s->slot);
        free(s->hash);
        s->slot = slot;
        s->hash = hash;
        s->cap = cap;
    }
    uint64_t h = game_state_hash(g, x);
    size_t j = h & (s->cap - 1);
    for (; s->slot[j]; j = (j + 1) & (s->cap - 1))
        if (s->hash[j] == h && game_state_equal(g, s->slot[j], x)) return;
    s->slot[j] = game_state_new(g);
    game_state_copy(g, s->slot[j], x);
    s->hash[j] = h;
    s->n++;
}

static void set_free(state_set_t *s)
{
    for (size_t i = 0; i < s->cap; i++)
        if (s->slot[i]) game_state_free(s->slot[i]);
    free(s->slot);
    free(s->hash);
}

/* The state p->st[d] (d < depth) is the context's current state and is not
 * terminal: count and visit its children. */
static void perft_visit(perft_t *p, uint32_t d)
{
    uint32_t nr = p->nr;
    uint32_t max_n = 0;
    for (uint32_t r = 0; r < nr; r++) {
        const move_id_t *m;
        uint32_t n = game_legal(p->ctx, r, &m);
        if (n == 0) {
            p->stuck++;
            return;
        }
        p->n_legal[d][r] = n;
        if (n > max_n) max_n = n;
    }
    /* Copy the moves (a row of width max_n per role): the arrays from
     * game_legal die when the state changes, which the recursion does. */
    XVEC_RESERVE(&p->legal[d], &p->legal_cap[d], (size_t)nr * max_n);
    for (uint32_t r = 0; r < nr; r++) {
        const move_id_t *m;
        game_legal(p->ctx, r, &m);
        memcpy(p->legal[d] + (size_t)r * max_n, m, p->n_legal[d][r] * sizeof *m);
    }
    uint32_t *idx = xcalloc(nr ? nr : 1, sizeof *idx);
    move_id_t *joint = p->joint + (size_t)d * nr;
    bool at_parent = true;
    for (;;) {
        for (uint32_t r = 0; r < nr; r++) joint[r] = p->legal[d][(size_t)r * max_n + idx[r]];
        if (!at_parent) game_ctx_set_state(p->ctx, p->st[d]);
        game_next(p->ctx, joint, p->st[d + 1]);
        p->paths[d + 1]++;
        set_insert(p->g, &p->sets[d + 1], p->st[d + 1]);
        game_ctx_set_state(p->ctx, p->st[d + 1]);
        at_parent = false;
        if (game_is_terminal(p->ctx)) p->terms[d + 1]++;
        else if (d + 1 < p->depth) perft_visit(p, d + 1);
        /* next joint move (odometer over the roles, last role fastest) */
        uint32_t r = nr;
        while (r > 0 && ++idx[r - 1] == p->n_legal[d][r - 1]) idx[--r] = 0;
        if (r == 0) break;
    }
    free(idx);
}

int cmd_perft(int argc, char **argv)
{
    game_options_t opts = {.engine = ENGINE_AUTO};
    uint64_t depth = 0;
    const cli_opt_t own[] = {CLI_OPT_U64("--depth", &depth, 1, 64)};
    cli_list_t files = {0};
    int rc;
    if (!cli_args_parse("perft", perft_help, argc, argv, own, 1, &opts, &files, &rc)) return rc;
    const char *file = files.n ? files.v[0] : NULL;
    size_t n_files = files.n;
    cli_list_free(&files);
    if (n_files != 1 || !depth) {
        fprintf(stderr, "ggp perft: %s\n%s", n_files != 1 ? "expected one rule file" : "--depth is required", perft_help);
        return EXIT_USAGE;
    }

    gdl_loaded_t l;
    game_t *g = cli_game_open("perft", file, &opts, &l, &rc);
    if (!g) return rc;

    uint32_t D = (uint32_t)depth, nr = game_num_roles(g);
    perft_t p = {.g = g, .ctx = game_ctx_new(g), .nr = nr, .depth = D};
    p.st = xcalloc(D + 1, sizeof *p.st);
    for (uint32_t i = 0; i <= D; i++) p.st[i] = game_state_new(g);
    p.legal = xcalloc(D, sizeof *p.legal);
    p.legal_cap = xcalloc(D, sizeof *p.legal_cap);
    p.n_legal = xcalloc(D, sizeof *p.n_legal);
    for (uint32_t i = 0; i < D; i++) p.n_legal[i] = xcalloc(nr ? nr : 1, sizeof **p.n_legal);
    p.joint = xcalloc((size_t)D * (nr ? nr : 1), sizeof *p.joint);
    p.paths = xcalloc(D + 1, sizeof *p.paths);
    p.terms = xcalloc(D + 1, sizeof *p.terms);
    p.sets = xcalloc(D + 1, sizeof *p.sets);

    uint64_t t0 = clock_now_ns();
    game_initial(p.ctx, p.st[0]);
    game_ctx_set_state(p.ctx, p.st[0]);
    if (!game_is_terminal(p.ctx)) perft_visit(&p, 0);
    double ms = (double)(clock_now_ns() - t0) / 1e6;

    uint64_t total = 0;
    for (uint32_t i = 1; i <= D; i++) {
        printf("depth %u: paths=%llu states=%zu terminals=%llu\n", i, (unsigned long long)p.paths[i], p.sets[i].n,
               (unsigned long long)p.terms[i]);
        total += p.paths[i];
    }
    if (p.stuck)
        printf("note: %llu non-terminal state%s where a role has no legal move (a defect of the rules) %s not expanded\n",
               (unsigned long long)p.stuck, p.stuck == 1 ? "" : "s", p.stuck == 1 ? "was" : "were");
    printf("time: %.1f ms, %llu node%s (%.0f nodes/s)\n", ms, (unsigned long long)total, total == 1 ? "" : "s",
           ms > 0 ? (double)total / ms * 1e3 : 0.0);

    for (uint32_t i = 0; i <= D; i++) {
        game_state_free(p.st[i]);
        set_free(&p.sets[i]);
    }
    for (uint32_t i = 0; i < D; i++) {
        free(p.legal[i]);
        free(p.n_legal[i]);
    }
    free(p.st);
    free(p.legal);
    free(p.legal_cap);
    free(p.n_legal);
    free(p.joint);
    free(p.paths);
    free(p.terms);
    free(p.sets);
    game_ctx_free(p.ctx);
    game_free(g);
    gdl_loaded_free(&l);
    return EXIT_OK;
}
