/* placeholder.c - keeps the library non-empty until its first module lands. */
typedef int ggp_placeholder_t;
