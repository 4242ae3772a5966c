/* test_traces_propnet.c - every reference trace of a game that the propnet
 * grounds replays with the propnet engine (the shared body is
 * test_traces.c; one ctest test per engine). */
#define TRACES_ENGINE ENGINE_PROPNET
#include "test_traces.c"
