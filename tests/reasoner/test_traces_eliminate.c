/* test_traces_eliminate.c - every reference trace of a game that the
 * propnet grounds replays with every rule's body variables eliminated
 * (`--eliminate-after 1`, rules.h RULES_ELIMINATE): the rewrite the
 * grounder only uses on rules that explode, checked for meaning on every
 * game (the shared body is test_traces.c). */
#define TRACES_ENGINE ENGINE_PROPNET
#define TRACES_EXTRA_ARGS " --eliminate-after 1"
#include "test_traces.c"
