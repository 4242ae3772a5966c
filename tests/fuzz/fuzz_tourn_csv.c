/* fuzz_tourn_csv.c - libFuzzer target for the per-game CSV of `ggp
 * tournament` and `ggp roundrobin` (player/cli/tourn_rec.h), which `ggp
 * results merge` reads from untrusted files: any bytes give either rows or one "FILE:LINE:
 * reason" line, never a crash, a leak or a read out of bounds. Rows read
 * are written back and must read again the same. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "player/cli/tourn_rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* like assert(), also in release builds */
#define CHECK(x) ((x) ? (void)0 : abort())

static void check_error(const char *err)
{
    CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
    CHECK(!strncmp(err, "<fuzz>", 6));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    trec_file_t f;
    char err[1024];
    if (!trec_file_from(&f, src_new("<fuzz>", (const char *)data, size), err, sizeof err)) {
        check_error(err);
        return 0;
    }
    trec_t r;
    trec_meta_t whole = f.m;
    whole.shard = 0;
    whole.shards = 1;
    if (trec_init(&r, &whole, err, sizeof err)) {
        trec_game_t g;
        size_t i;
        int got;
        while ((got = trec_file_next(&f, &r, &i, &g, err, sizeof err)) > 0) {
            CHECK(i < r.n_pts * r.m.games);
            r.games[i] = g;
            /* written back, it reads the same */
            char *text = NULL;
            size_t len = 0;
            FILE *out = open_memstream(&text, &len);
            trec_write_head(&r, out);
            trec_write_row(&r, i, out);
            fclose(out);
            trec_file_t again;
            char err2[1024];
            trec_game_t g2;
            size_t i2;
            bool ok = trec_file_from(&again, src_new("<fuzz>", text, len), err2, sizeof err2);
            CHECK(ok);
            int got2 = trec_file_next(&again, &r, &i2, &g2, err2, sizeof err2);
            CHECK(got2 == 1);
            CHECK(i2 == i && g2.outcome == g.outcome && g2.moves_hash == g.moves_hash && g2.seed == g.seed);
            trec_file_close(&again);
            free(text);
        }
        if (got < 0) check_error(err);
        trec_free(&r);
    }
    trec_file_close(&f);
    return 0;
}
