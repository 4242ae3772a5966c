/* fuzz_message.c - libFuzzer target for the GGP message parser
 * (player/proto/message.h): any bytes must give either a message or a
 * one-line reason, never a crash, a leak or a read out of bounds. Accepted
 * messages are printed back and re-parsed, and must mean the same. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "player/proto/message.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ggp_msg_t m;
    char err[256];
    if (!ggp_msg_parse((const char *)data, size, &m, err, sizeof err)) {
        assert(err[0] != '\0' && strchr(err, '\n') == NULL);
        return 0;
    }
    /* Moves re-read as the same number of terms. */
    for (uint32_t i = 0; i < m.n_moves; i++) {
        kif_text_t k;
        kif_text_parse(&k, "<move>", m.moves[i], strlen(m.moves[i]));
        assert(k.errors == 0 && k.n == 1);
        kif_text_free(&k);
    }
    if (m.rules) {
        char *t = ggp_sx_text(m.syms, m.rules, true);
        kif_text_t k;
        kif_text_parse(&k, "<rules>", t, strlen(t));
        assert(k.errors == 0 && k.n == 1 && k.forms[0]->is_list && k.forms[0]->n == m.rules->n);
        kif_text_free(&k);
        free(t);
    }
    ggp_msg_free(&m);
    return 0;
}
