/* test_traces_lanes.c - the propnet's playouts side by side replayed on
 * every corpus game that grounds (the body is test_propnet_lanes.c; a
 * test of its own for the `slow` label: grounding the whole corpus takes
 * minutes). */
#define LANES_CORPUS
#include "test_propnet_lanes.c"
