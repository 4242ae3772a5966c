/* validate.c - static checks of a GDL description (see validate.h).
 *
 * FIRST CUT: only roles and the required relations are checked here; the
 * full checks (arity, safety, stratification, recursion restriction,
 * keyword placement) are to come. */
#include "gdl/validate.h"

#include <stdlib.h>

#include "base/xalloc.h"

unsigned gdl_validate(const program_t *p, diag_t *d, gdl_info_t *info)
{
    unsigned errors = 0;
    gdl_info_t tmp = {0};
    size_t cap = 0;
    bool seen_legal = false, seen_goal = false, seen_terminal = false;
    for (size_t i = 0; i < p->n_rules; i++) {
        const rule_t *r = p->rules[i];
        if (r->n_body) tmp.n_rules++;
        else tmp.n_facts++;
        sym_t h = r->head->sym;
        if (h == SYM_ROLE && r->n_body == 0 && term_arity(r->head) == 1 && term_is_ground(r->head)) {
            XVEC_RESERVE(&tmp.roles, &cap, tmp.n_roles + 1);
            tmp.roles[tmp.n_roles++] = r->head->args[0]->sym;
        }
        seen_legal |= h == SYM_LEGAL;
        seen_goal |= h == SYM_GOAL;
        seen_terminal |= h == SYM_TERMINAL;
    }
    if (tmp.n_roles == 0) {
        diag_error(d, p->src, 0, "no 'role' facts: a game needs at least one role");
        errors++;
    }
    if (!seen_legal || !seen_goal || !seen_terminal) {
        diag_error(d, p->src, 0, "the description defines no '%s'",
                   !seen_legal ? "legal" : !seen_goal ? "goal" : "terminal");
        errors++;
    }
    if (info) *info = tmp;
    else gdl_info_free(&tmp);
    return errors;
}

void gdl_info_free(gdl_info_t *info)
{
    free(info->roles);
    info->roles = NULL;
}
