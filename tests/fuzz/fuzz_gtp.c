/* fuzz_gtp.c - libFuzzer target for the GTP session (player/gtp/gtp.h):
 * any bytes as a command stream must give responses, never a crash, a leak
 * or a read out of bounds. The searcher is random, so that a genmove costs
 * next to nothing. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "player/gtp/gtp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    gtp_options_t o = {.spec = "random", .game = "go9", .seed = 1};
    char err[256];
    gtp_t *g = gtp_new(&o, err, sizeof err);
    assert(g);
    FILE *in = fmemopen((void *)data, size, "r");
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (in && out) gtp_run(g, in, out);
    if (in) fclose(in);
    if (out) fclose(out);
    free(text);
    gtp_free(g);
    return 0;
}
