/* fuzz_trace.c - libFuzzer target for the reference traces that `ggp
 * replay` reads (player/cli/trace_io.h): the input is a trace's text, read
 * as a file would be and, when it reads, replayed against tic-tac-toe
 * compiled once (the propnet). Any bytes give either diagnostics at a line
 * and column or a replay verdict ("NAME: ok", a divergence, or
 * "incomplete"), never a crash, a leak or a read out of bounds.
 *
 * The seeds (tests/fuzz/seeds/trace/) are traces of this game written by
 * `ggp trace`, so the fuzzer starts from lines that replay. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "gdl/ast.h"
#include "gdl/validate.h"
#include "player/cli/trace_io.h"
#include "reasoner/game.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* like assert(), also in release builds */
#define CHECK(x) ((x) ? (void)0 : abort())

static game_t *game;

static void game_once(void)
{
    if (game) return;
    diag_t d;
    diag_init(&d, stderr);
    const char *err = NULL;
    src_t *src = src_read_file(GGP_SOURCE_DIR "/games/tictactoe.kif", &err); /* the bundled game */
    CHECK(src != NULL);
    symtab_t *st = symtab_new(); /* kept: the game's names live in it */
    unsigned errors = 0;
    program_t *p = gdl_parse_src(src, st, &d, &errors);
    gdl_info_t info = {0};
    if (errors == 0) errors += gdl_validate(p, &d, &info);
    CHECK(errors == 0);
    game_options_t opt = {.engine = ENGINE_PROPNET, .quiet = true};
    game = game_compile(p, &opt, &d);
    CHECK(game != NULL);
    gdl_info_free(&info);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    game_once();
    char *msgs = NULL;
    size_t msgs_len = 0;
    FILE *mf = open_memstream(&msgs, &msgs_len);
    diag_t d;
    diag_init(&d, mf);
    canon_t *c = canon_new();
    trace_t t;
    int rc = trace_read_src(src_new("<fuzz>", (const char *)data, size), c, &d, &t);
    fclose(mf);
    CHECK(rc == 0 || rc == 2);
    /* a trace that does not read says where: "<fuzz>:LINE:COL: error: ..." */
    if (rc == 2) CHECK(msgs_len > 0 && strstr(msgs, "error: ") != NULL);
    free(msgs);
    if (rc == 0) {
        game_texts_t gt;
        game_texts_init(&gt, game, c);
        char *out = NULL;
        size_t len = 0;
        FILE *of = open_memstream(&out, &len);
        replay_result_t r = trace_replay(&gt, &t, "T", of, false, 1000);
        fclose(of);
        CHECK(r == REPLAY_OK || r == REPLAY_DIVERGED || r == REPLAY_INCOMPLETE);
        /* a verdict, line by line, each naming the trace */
        CHECK(len > 0 && out[len - 1] == '\n' && !strncmp(out, "T: ", 3));
        /* ok: the last line says so */
        size_t last = len - 1;
        while (last > 0 && out[last - 1] != '\n') last--;
        CHECK((r == REPLAY_OK) == !strncmp(out + last, "T: ok (", 7));
        free(out);
        game_texts_free(&gt);
        trace_free(&t);
    }
    canon_free(c);
    return 0;
}
