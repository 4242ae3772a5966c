/* propnet.c - placeholder until the propositional network lands. */
#include "reasoner/engine.h"

game_t *propnet_compile(const program_t *p, const game_options_t *opt, diag_t *d, char *reason, size_t reason_len)
{
    (void)p;
    (void)opt;
    (void)d;
    snprintf(reason, reason_len, "the propnet engine is not built yet");
    return NULL;
}
