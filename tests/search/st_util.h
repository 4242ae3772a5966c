/* st_util.h - helpers shared by the search tests (static, header-only:
 * every test file is its own executable). */
#ifndef GGP_TESTS_SEARCH_ST_UTIL_H
#define GGP_TESTS_SEARCH_ST_UTIL_H

#include "testutil.h"

/* Path of a game of the shared corpus, or NULL (the test skips). Four
 * rotating buffers, so a few paths can be alive at once. */
static inline const char *st_shared_game(const char *name)
{
    static char buf[4][1024];
    static int i;
    const char *dir = tu_shared("games");
    if (!dir) return NULL;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
    return buf[i];
}

#endif
