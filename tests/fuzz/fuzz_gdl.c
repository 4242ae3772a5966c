/* fuzz_gdl.c - libFuzzer target for the GDL front end: arbitrary bytes
 * through sx_parse, gdl_build and gdl_validate. `ggp check` validates only
 * what parsed cleanly (gdl/load.c); here the validator
 * also runs on whatever gdl_build made of broken text, a superset of what
 * it ever sees. Diagnostics are written (to memory) as `ggp check` writes
 * them, source line and caret included: every error is "fuzz.kif:LINE:COL:
 * error: ...". Any crash, sanitizer report, leak or hang is a bug: bad
 * rules must only ever produce diagnostics. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "gdl/ast.h"
#include "gdl/validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *out = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&out, &len);
    diag_t d;
    diag_init(&d, mf);
    src_t *src = src_new("fuzz.kif", (const char *)data, size);
    symtab_t *st = symtab_new();
    unsigned errors = 0;
    program_t *p = gdl_parse_src(src, st, &d, &errors);
    gdl_info_t info;
    gdl_validate(p, &d, &info);
    gdl_info_free(&info);
    program_free(p);
    symtab_free(st);
    src_free(src);
    fclose(mf);
    /* an error says where: the first line of the report names the file */
    if (d.errors && strncmp(out, "fuzz.kif:", 9) && strncmp(out, "ggp: ", 5)) abort();
    free(out);
    return 0;
}
