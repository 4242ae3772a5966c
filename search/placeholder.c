/* placeholder.c - keeps the library non-empty until search.c lands. */
typedef int ggp_search_placeholder_t;
