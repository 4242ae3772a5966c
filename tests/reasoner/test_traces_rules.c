/* test_traces_rules.c - every reference trace replays with the rules engine
 * (the shared body is test_traces.c; one ctest test per engine). */
#define TRACES_ENGINE ENGINE_RULES
#include "test_traces.c"
