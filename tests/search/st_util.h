/* st_util.h - helpers shared by the search tests (static, header-only:
 * every test file is its own executable). */
#ifndef GGP_TESTS_SEARCH_ST_UTIL_H
#define GGP_TESTS_SEARCH_ST_UTIL_H

#include "testutil.h"

#include "games/registry.h"
#include "gdl/load.h"
#include "reasoner/game.h"

/* Path of a game of the shared corpus, or NULL when the corpus is absent
 * (for a test whose other parts still run). Four rotating buffers, so a
 * few paths can be alive at once. */
static inline const char *st_shared_game_if(const char *name)
{
    static char buf[4][1024];
    static int i;
    const char *dir = tu_shared("games");
    if (!dir) return NULL;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
    return buf[i];
}

/* Same, but when the corpus is absent the test is skipped (cmocka skip(),
 * after tu_shared's message): call it before allocating anything. */
static inline const char *st_shared_game(const char *name)
{
    const char *path = st_shared_game_if(name);
    if (!path) skip();
    return path;
}

/* A compiled game with a context at its initial state. */
typedef struct tgame {
    gdl_loaded_t l;
    game_t *g;
    game_ctx_t *ctx;
    game_state_t *st;
} tgame_t;

static inline bool tg_load_engine(tgame_t *t, const char *path, engine_kind_t engine)
{
    memset(t, 0, sizeof *t);
    if (!path) return false; /* a corpus game when the corpus is absent */
    if (native_game_named(path)) { /* "go9": a native game (games/registry.h) */
        char err[256];
        t->g = native_game_open(path, err, sizeof err);
        if (!t->g) fail_msg("%s: %s", path, err);
        t->ctx = game_ctx_new(t->g);
        t->st = game_state_new(t->g);
        game_initial(t->ctx, t->st);
        game_ctx_set_state(t->ctx, t->st);
        return true;
    }
    tu_diag_t td;
    tu_diag_open(&td);
    const char *err = NULL;
    if (!gdl_load_file(path, &td.d, &t->l, &err)) fail_msg("cannot read %s: %s", path, err);
    if (t->l.errors) fail_msg("%s: %s", path, tu_diag_text(&td));
    game_options_t opt = {.engine = engine, .quiet = true};
    t->g = game_compile(t->l.prog, &opt, &td.d);
    if (!t->g) {
        printf("note: %s does not compile with engine %d: %s\n", path, (int)engine, tu_diag_text(&td));
        tu_diag_close(&td);
        gdl_loaded_free(&t->l);
        return false;
    }
    tu_diag_close(&td);
    t->ctx = game_ctx_new(t->g);
    t->st = game_state_new(t->g);
    game_initial(t->ctx, t->st);
    game_ctx_set_state(t->ctx, t->st);
    return true;
}

static inline bool tg_load(tgame_t *t, const char *path) { return tg_load_engine(t, path, ENGINE_AUTO); }

static inline void tg_free(tgame_t *t)
{
    game_state_free(t->st);
    game_ctx_free(t->ctx);
    game_free(t->g);
    gdl_loaded_free(&t->l);
}

static inline const char *data_file(const char *name)
{
    static char buf[4][1024];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/tests/search/data/%s", GGP_SOURCE_DIR, name);
    return buf[i];
}

/* Run `ggp ARGS` (the built binary); its exit status into *status and its
 * output returned (never NULL; the caller frees it). */
static inline char *st_run_ggp(const char *args, int *status)
{
    char cmd[4096 + 512];
    snprintf(cmd, sizeof cmd, "%s %s", GGP_BIN, args);
    char *out = NULL;
    *status = tu_run(cmd, &out);
    return out ? out : calloc(1, 1);
}

#endif
