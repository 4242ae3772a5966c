/* trace_io.c - reading, writing and replaying reference traces (see
 * trace_io.h). */
#include "player/cli/trace_io.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/clock.h"
#include "base/xalloc.h"
#include "gdl/sexpr.h"
#include "gdl/symbols.h"

static void strvec_push(strvec_t *v, const char *s);

/* ---------------------------------------------------------------------- */
/* Canonical texts                                                        */

struct canon {
    symtab_t *st;
    char **slots; /* open addressing, NULL = empty */
    size_t cap, n;
    FILE *ms; /* a memory stream that sx_print writes into */
    char *ms_buf;
    size_t ms_len;
};

static uint64_t text_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

canon_t *canon_new(void)
{
    canon_t *c = xcalloc(1, sizeof *c);
    c->st = symtab_new();
    c->cap = 1024;
    c->slots = xcalloc(c->cap, sizeof *c->slots);
    c->ms = open_memstream(&c->ms_buf, &c->ms_len);
    if (!c->ms) abort();
    return c;
}

void canon_free(canon_t *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->cap; i++) free(c->slots[i]);
    free(c->slots);
    fclose(c->ms);
    free(c->ms_buf);
    symtab_free(c->st);
    free(c);
}

/* The interned copy of a string (already canonical). */
static const char *canon_intern(canon_t *c, const char *s, size_t len)
{
    if (2 * (c->n + 1) > c->cap) {
        size_t cap = c->cap * 2;
        char **slots = xcalloc(cap, sizeof *slots);
        for (size_t i = 0; i < c->cap; i++) {
            if (!c->slots[i]) continue;
            size_t j = text_hash(c->slots[i], strlen(c->slots[i])) & (cap - 1);
            while (slots[j]) j = (j + 1) & (cap - 1);
            slots[j] = c->slots[i];
        }
        free(c->slots);
        c->slots = slots;
        c->cap = cap;
    }
    size_t j = text_hash(s, len) & (c->cap - 1);
    for (; c->slots[j]; j = (j + 1) & (c->cap - 1))
        if (!strncmp(c->slots[j], s, len) && c->slots[j][len] == '\0') return c->slots[j];
    c->slots[j] = xstrndup(s, len);
    c->n++;
    return c->slots[j];
}

/* The interned canonical text of one parsed form (parsed with c->st). */
static const char *canon_sexpr(canon_t *c, const sexpr_t *x)
{
    fseeko(c->ms, 0, SEEK_SET);
    sx_print(c->ms, c->st, x);
    off_t len = ftello(c->ms);
    fflush(c->ms);
    return canon_intern(c, c->ms_buf, (size_t)len);
}

/* Read text as a sequence of KIF forms and append the canonical text of
 * each to out. Returns false (and reports to d, if any) when it does not
 * parse. */
static bool canon_forms(canon_t *c, const char *text, size_t len, diag_t *d, strvec_t *out)
{
    diag_t quiet;
    if (!d) {
        diag_init(&quiet, NULL);
        d = &quiet;
    }
    src_t *src = src_new("<text>", text, len);
    arena_t *a = arena_new(1 << 14);
    sexpr_t **forms;
    size_t n;
    unsigned errors = sx_parse(a, c->st, src, d, &forms, &n);
    if (!errors)
        for (size_t i = 0; i < n; i++) strvec_push(out, canon_sexpr(c, forms[i]));
    arena_free(a);
    src_free(src);
    return errors == 0;
}

static void strvec_push(strvec_t *v, const char *s)
{
    XVEC_RESERVE(&v->v, &v->cap, v->n + 1);
    v->v[v->n++] = s;
}

void strvec_free(strvec_t *v)
{
    free(v->v);
    *v = (strvec_t){0};
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sort in strcmp order and drop repeats. */
static void strvec_sort_unique(strvec_t *v)
{
    if (v->n < 2) return;
    qsort(v->v, v->n, sizeof *v->v, cmp_str);
    size_t k = 1;
    for (size_t i = 1; i < v->n; i++)
        if (v->v[i] != v->v[k - 1]) v->v[k++] = v->v[i]; /* interned: equal text, equal pointer */
    v->n = k;
}

/* ---------------------------------------------------------------------- */
/* A game seen as canonical texts                                         */

/* The single canonical form of a text the game produced (a move or role
 * name); falls back to the text itself if it is not one form. */
static const char *canon_one(canon_t *c, const char *text)
{
    strvec_t v = {0};
    const char *r;
    if (canon_forms(c, text, strlen(text), NULL, &v) && v.n == 1) r = v.v[0];
    else r = canon_intern(c, text, strlen(text));
    strvec_free(&v);
    return r;
}

void game_texts_init(game_texts_t *t, const game_t *g, canon_t *c)
{
    *t = (game_texts_t){.g = g, .canon = c, .n_roles = game_num_roles(g)};
    t->roles = xcalloc(t->n_roles ? t->n_roles : 1, sizeof *t->roles);
    t->moves = xcalloc(t->n_roles ? t->n_roles : 1, sizeof *t->moves);
    t->n_moves = xcalloc(t->n_roles ? t->n_roles : 1, sizeof *t->n_moves);
    for (uint32_t r = 0; r < t->n_roles; r++) t->roles[r] = canon_one(c, game_role_name(g, r));
    t->buf_out = open_memstream(&t->buf, &t->buf_len);
    if (!t->buf_out) abort();
}

void game_texts_free(game_texts_t *t)
{
    for (uint32_t r = 0; r < t->n_roles; r++) free(t->moves[r]);
    free(t->moves);
    free(t->n_moves);
    free(t->roles);
    fclose(t->buf_out);
    free(t->buf);
    *t = (game_texts_t){0};
}

static const char *game_texts_move(game_texts_t *t, uint32_t role, move_id_t m)
{
    if (m >= t->n_moves[role]) {
        uint32_t n = game_num_moves(t->g, role);
        if (n <= m) n = m + 1;
        t->moves[role] = xreallocarray(t->moves[role], n, sizeof **t->moves);
        memset(t->moves[role] + t->n_moves[role], 0, (n - t->n_moves[role]) * sizeof **t->moves);
        t->n_moves[role] = n;
    }
    if (!t->moves[role][m]) t->moves[role][m] = canon_one(t->canon, game_move_name(t->g, role, m, true));
    return t->moves[role][m];
}

void game_texts_state(game_texts_t *t, const game_state_t *s, strvec_t *out)
{
    out->n = 0;
    fseeko(t->buf_out, 0, SEEK_SET);
    game_state_print(t->g, s, t->buf_out, true);
    off_t len = ftello(t->buf_out);
    fflush(t->buf_out);
    if (!canon_forms(t->canon, t->buf, (size_t)len, NULL, out)) {
        /* Cannot happen with a correct printer; keep the raw text visible. */
        out->n = 0;
        strvec_push(out, canon_intern(t->canon, t->buf, (size_t)len));
    }
    strvec_sort_unique(out);
}

typedef struct named_move {
    const char *name;
    move_id_t id;
} named_move_t;

static int cmp_named(const void *a, const void *b)
{
    return strcmp(((const named_move_t *)a)->name, ((const named_move_t *)b)->name);
}

void game_texts_legal(game_texts_t *t, game_ctx_t *ctx, uint32_t role, strvec_t *out, move_id_t **ids, size_t *ids_cap)
{
    const move_id_t *moves;
    uint32_t n = game_legal(ctx, role, &moves);
    named_move_t *nm = xcalloc(n ? n : 1, sizeof *nm);
    for (uint32_t i = 0; i < n; i++) nm[i] = (named_move_t){game_texts_move(t, role, moves[i]), moves[i]};
    qsort(nm, n, sizeof *nm, cmp_named);
    out->n = 0;
    if (ids) XVEC_RESERVE(ids, ids_cap, n);
    for (uint32_t i = 0; i < n; i++) {
        strvec_push(out, nm[i].name);
        if (ids) (*ids)[i] = nm[i].id;
    }
    free(nm);
}

/* ---------------------------------------------------------------------- */
/* Reading traces                                                         */

static bool is_head(const canon_t *c, const sexpr_t *x, const char *name)
{
    return x->is_list && x->n > 0 && !x->items[0]->is_list && !strcmp(symtab_key(c->st, x->items[0]->sym), name);
}

static const char *atom_key(const canon_t *c, const sexpr_t *x)
{
    return x->is_list ? NULL : symtab_key(c->st, x->sym);
}

static int role_of(const trace_t *t, const char *name)
{
    for (uint32_t r = 0; r < t->n_roles; r++)
        if (t->roles[r] == name) return (int)r;
    return -1;
}

static bool read_step(canon_t *c, src_t *src, diag_t *d, trace_t *t, const sexpr_t *x, trace_step_t *s)
{
    s->off = x->off;
    s->terminal = is_head(c, x, "terminal");
    long k;
    if (x->n < 3 || x->items[1]->is_list || !symtab_int_value(c->st, x->items[1]->sym, &k) || k != (long)t->n_steps) {
        diag_error(d, src, x->off, "expected (%s %zu (state ...) ...)", s->terminal ? "terminal" : "step", t->n_steps);
        return false;
    }
    s->k = (uint32_t)k;
    s->legal = xcalloc(t->n_roles, sizeof *s->legal);
    s->has_legal = xcalloc(t->n_roles, sizeof *s->has_legal);
    bool has_state = false;
    uint32_t n_does = 0, n_goal = 0;
    for (uint32_t i = 2; i < x->n; i++) {
        const sexpr_t *it = x->items[i];
        if (is_head(c, it, "state")) {
            if (has_state) {
                diag_error(d, src, it->off, "a second (state ...)");
                return false;
            }
            has_state = true;
            for (uint32_t j = 1; j < it->n; j++) strvec_push(&s->state, canon_sexpr(c, it->items[j]));
            strvec_sort_unique(&s->state);
            continue;
        }
        bool legal = is_head(c, it, "legal"), does = is_head(c, it, "does"), goal = is_head(c, it, "goal");
        if (!legal && !does && !goal) {
            diag_error(d, src, it->off, "expected (state ...), (legal ROLE MOVE...), (does ROLE MOVE) or (goal ROLE VALUE)");
            return false;
        }
        if ((legal || does) && s->terminal) {
            diag_error(d, src, it->off, "(%s ...) in a terminal line", legal ? "legal" : "does");
            return false;
        }
        if (goal && !s->terminal) {
            diag_error(d, src, it->off, "(goal ...) in a step line (goals are given only at the terminal line)");
            return false;
        }
        const char *rk = it->n >= 2 ? atom_key(c, it->items[1]) : NULL;
        int r = rk ? role_of(t, canon_intern(c, rk, strlen(rk))) : -1;
        if (r < 0) {
            diag_error(d, src, it->off, "expected a role of the (roles ...) line after '%s'",
                       legal ? "legal" : does ? "does" : "goal");
            return false;
        }
        if (legal) {
            if (s->has_legal[r]) {
                diag_error(d, src, it->off, "a second (legal %s ...)", t->roles[r]);
                return false;
            }
            s->has_legal[r] = true;
            for (uint32_t j = 2; j < it->n; j++) strvec_push(&s->legal[r], canon_sexpr(c, it->items[j]));
            strvec_sort_unique(&s->legal[r]);
        } else if (does) {
            if (!s->does) s->does = xcalloc(t->n_roles, sizeof *s->does);
            if (it->n != 3 || s->does[r]) {
                diag_error(d, src, it->off, it->n != 3 ? "expected (does ROLE MOVE)" : "a second (does %s ...)",
                           t->roles[r]);
                return false;
            }
            s->does[r] = canon_sexpr(c, it->items[2]);
            n_does++;
        } else {
            if (!s->goal) s->goal = xcalloc(t->n_roles, sizeof *s->goal);
            long v;
            const char *vk = it->n == 3 ? atom_key(c, it->items[2]) : NULL;
            if (!vk || s->goal[r] ||
                (strcmp(vk, "error") && (!symtab_int_value(c->st, it->items[2]->sym, &v) || v < 0 || v > 100))) {
                diag_error(d, src, it->off,
                           s->goal && s->goal[r] ? "a second (goal %s ...)" : "expected (goal %s V), V 0..100 or error",
                           t->roles[r]);
                return false;
            }
            s->goal[r] = canon_intern(c, vk, strlen(vk));
            n_goal++;
        }
    }
    if (!has_state) {
        diag_error(d, src, x->off, "missing (state ...)");
        return false;
    }
    for (uint32_t r = 0; r < t->n_roles; r++) {
        if (!s->terminal && !s->has_legal[r]) {
            diag_error(d, src, x->off, "missing (legal %s ...)", t->roles[r]);
            return false;
        }
    }
    if (s->terminal && n_goal != t->n_roles) {
        diag_error(d, src, x->off, "a terminal line needs one (goal ROLE V) per role");
        return false;
    }
    if (n_does && n_does != t->n_roles) {
        diag_error(d, src, x->off, "a step line needs one (does ROLE MOVE) per role, or none at the end");
        return false;
    }
    return true;
}

static void step_free(trace_step_t *s, uint32_t n_roles)
{
    strvec_free(&s->state);
    if (s->legal)
        for (uint32_t r = 0; r < n_roles; r++) strvec_free(&s->legal[r]);
    free(s->legal);
    free(s->has_legal);
    free(s->does);
    free(s->goal);
}

void trace_free(trace_t *t)
{
    for (size_t i = 0; i < t->n_steps; i++) step_free(&t->steps[i], t->n_roles);
    free(t->steps);
    free(t->roles);
    *t = (trace_t){0};
}

int trace_read(const char *path, canon_t *c, diag_t *d, trace_t *t)
{
    *t = (trace_t){0};
    const char *err;
    src_t *src = src_read_text_file(path, &err);
    if (!src) {
        diag_error(d, NULL, 0, "cannot read %s: %s", path, err);
        return 2;
    }
    return trace_read_src(src, c, d, t);
}

int trace_read_src(src_t *src, canon_t *c, diag_t *d, trace_t *t)
{
    *t = (trace_t){0};
    arena_t *a = arena_new(1 << 16);
    sexpr_t **forms;
    size_t n;
    unsigned errors = sx_parse(a, c->st, src, d, &forms, &n);
    bool ok = errors == 0;
    if (ok && (n < 2 || !is_head(c, forms[0], "game") || forms[0]->n != 2 || forms[0]->items[1]->is_list)) {
        diag_error(d, src, n ? forms[0]->off : 0, "a trace starts with (game NAME)");
        ok = false;
    }
    if (ok && !is_head(c, forms[1], "roles")) {
        diag_error(d, src, forms[1]->off, "expected (roles ROLE...) on the second line");
        ok = false;
    }
    if (ok) {
        t->game = canon_sexpr(c, forms[0]->items[1]);
        t->n_roles = forms[1]->n - 1;
        t->roles = xcalloc(t->n_roles ? t->n_roles : 1, sizeof *t->roles);
        for (uint32_t r = 0; ok && r < t->n_roles; r++) {
            const sexpr_t *x = forms[1]->items[r + 1];
            if (x->is_list) {
                diag_error(d, src, x->off, "a role is a name");
                ok = false;
            } else {
                t->roles[r] = canon_sexpr(c, x);
                if (role_of(t, t->roles[r]) != (int)r) {
                    diag_error(d, src, x->off, "role '%s' listed twice", t->roles[r]);
                    ok = false;
                }
            }
        }
    }
    if (ok && n == 2) {
        diag_error(d, src, (uint32_t)src->len, "no (step 0 ...) line");
        ok = false;
    }
    if (ok) t->steps = xcalloc(n - 2, sizeof *t->steps);
    for (size_t i = 2; ok && i < n; i++) {
        const sexpr_t *x = forms[i];
        if (!is_head(c, x, "step") && !is_head(c, x, "terminal")) {
            diag_error(d, src, x->off, "expected (step K ...) or (terminal K ...)");
            ok = false;
            break;
        }
        trace_step_t *s = &t->steps[t->n_steps];
        ok = read_step(c, src, d, t, x, s);
        t->n_steps++;
        if (ok && i + 1 < n && (s->terminal || !s->does)) {
            diag_error(d, src, forms[i + 1]->off, "a line after the %s", s->terminal ? "terminal line" : "last step (a step without moves ends a trace)");
            ok = false;
        }
    }
    /* A trace ends with its terminal line or a step without moves: after a
     * step's moves, the file was cut short (at a line's end). */
    if (ok && t->n_steps && !t->steps[t->n_steps - 1].terminal && t->steps[t->n_steps - 1].does) {
        diag_error(d, src, t->steps[t->n_steps - 1].off, "the trace ends after the moves of step %u: no terminal line (cut short?)",
                   t->steps[t->n_steps - 1].k);
        ok = false;
    }
    arena_free(a);
    src_free(src);
    if (!ok) {
        trace_free(t);
        return 2;
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Replaying                                                              */

enum { DIFF_SHOW = 8 };

/* Write up to DIFF_SHOW items of a \ b (both sorted, unique, interned). */
static void write_minus(FILE *out, const strvec_t *a, const strvec_t *b)
{
    size_t shown = 0, more = 0, j = 0;
    for (size_t i = 0; i < a->n; i++) {
        while (j < b->n && strcmp(b->v[j], a->v[i]) < 0) j++;
        if (j < b->n && b->v[j] == a->v[i]) continue;
        if (shown < DIFF_SHOW) fprintf(out, "%s%s", shown++ ? " " : "", a->v[i]);
        else more++;
    }
    if (!shown) fputs("nothing", out);
    if (more) fprintf(out, " ... (%zu more)", more);
}

static bool same_set(const strvec_t *a, const strvec_t *b)
{
    if (a->n != b->n) return false;
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i] != b->v[i]) return false;
    return true;
}

/* "NAME: step K: WHAT differs: expected {only expected} got {only got}" */
static void report_diff(FILE *out, const char *name, const trace_step_t *s, const char *what, const strvec_t *exp,
                        const strvec_t *got)
{
    fprintf(out, "%s: %s %u: %s differs: expected ", name, s->terminal ? "terminal" : "step", s->k, what);
    write_minus(out, exp, got);
    fputs(" got ", out);
    write_minus(out, got, exp);
    fputs(" (only the differences are shown)\n", out);
}

static const char *goal_text(int v, char *buf, size_t n)
{
    if (v == GAME_GOAL_NONE) return "none (no goal value holds)";
    if (v == GAME_GOAL_MULTIPLE) return "several (more than one goal value holds)";
    snprintf(buf, n, "%d", v);
    return buf;
}

replay_result_t trace_replay(game_texts_t *gt, const trace_t *t, const char *name, FILE *out, bool quiet,
                             uint64_t time_limit_ms)
{
    uint64_t t0 = clock_now_ns();
    const game_t *g = gt->g;
    uint32_t nr = gt->n_roles;
    bool roles_ok = nr == t->n_roles;
    for (uint32_t r = 0; roles_ok && r < nr; r++) roles_ok = gt->roles[r] == t->roles[r];
    if (!roles_ok) {
        fprintf(out, "%s: roles differ: expected (roles", name);
        for (uint32_t r = 0; r < t->n_roles; r++) fprintf(out, " %s", t->roles[r]);
        fputs(") got (roles", out);
        for (uint32_t r = 0; r < nr; r++) fprintf(out, " %s", gt->roles[r]);
        fputs(")\n", out);
        return REPLAY_DIVERGED;
    }
    game_ctx_t *ctx = game_ctx_new(g);
    game_state_t *s = game_state_new(g);
    game_initial(ctx, s);
    game_ctx_set_state(ctx, s);
    strvec_t got = {0};
    move_id_t *joint = xcalloc(nr ? nr : 1, sizeof *joint);
    bool *multi_noted = xcalloc(nr ? nr : 1, sizeof *multi_noted);
    bool ok = true, incomplete = false;
    char nb[32];
    for (size_t i = 0; ok && i < t->n_steps; i++) {
        const trace_step_t *st = &t->steps[i];
        uint64_t spent_ms = (clock_now_ns() - t0) / 1000000;
        if (time_limit_ms && i > 0 && spent_ms > time_limit_ms) {
            fprintf(out, "%s: incomplete: stopped at line %zu of %zu after %.1f s (time limit); the lines before match\n",
                    name, i, t->n_steps, (double)spent_ms / 1e3);
            incomplete = true;
            break;
        }
        const char *label = st->terminal ? "terminal" : "step";
        game_texts_state(gt, game_ctx_state(ctx), &got);
        if (!same_set(&st->state, &got)) {
            report_diff(out, name, st, "state", &st->state, &got);
            ok = false;
            break;
        }
        bool term = game_is_terminal(ctx);
        if (term != st->terminal) {
            fprintf(out, "%s: %s %u: terminal differs: expected %s got %s\n", name, label, st->k,
                    st->terminal ? "terminal" : "non-terminal", term ? "terminal" : "non-terminal");
            ok = false;
            break;
        }
        if (term) {
            for (uint32_t r = 0; r < nr; r++) {
                int v = game_goal(ctx, r);
                const char *e = st->goal[r];
                if (!strcmp(e, "error")) {
                    if (v >= 0) {
                        fprintf(out, "%s: terminal %u: goal of %s differs: expected error (no single value) got %d\n",
                                name, st->k, t->roles[r], v);
                        ok = false;
                    } else if (!quiet) {
                        fprintf(out, "%s: terminal %u: note: goal of %s: %s, as the trace's 'error' says (a defect of the rules)\n",
                                name, st->k, t->roles[r], v == GAME_GOAL_NONE ? "no value holds" : "several values hold");
                    }
                } else if (v != atoi(e)) {
                    fprintf(out, "%s: terminal %u: goal of %s differs: expected %s got %s\n", name, st->k, t->roles[r],
                            e, goal_text(v, nb, sizeof nb));
                    ok = false;
                }
            }
            break;
        }
        for (uint32_t r = 0; ok && r < nr; r++) {
            char what[256];
            game_texts_legal(gt, ctx, r, &got, NULL, NULL);
            if (!same_set(&st->legal[r], &got)) {
                snprintf(what, sizeof what, "legal of %s", t->roles[r]);
                report_diff(out, name, st, what, &st->legal[r], &got);
                ok = false;
            } else if (got.n == 0 && !quiet) {
                fprintf(out, "%s: step %u: note: %s has no legal move in a non-terminal state (a defect of the rules)\n",
                        name, st->k, t->roles[r]);
            }
        }
        if (!ok) break;
        for (uint32_t r = 0; r < nr && !quiet; r++) {
            if (multi_noted[r] || game_goal(ctx, r) != GAME_GOAL_MULTIPLE) continue;
            multi_noted[r] = true;
            fprintf(out, "%s: step %u: note: %s has several goal values (a defect of the rules; noted once)\n", name,
                    st->k, t->roles[r]);
        }
        if (!st->does) break; /* the end of a cut playout */
        for (uint32_t r = 0; r < nr; r++) {
            const char *m = st->does[r];
            if (!game_move_from_text(ctx, r, m, strlen(m), &joint[r])) {
                fprintf(out, "%s: step %u: move of %s not accepted: %s\n", name, st->k, t->roles[r], m);
                ok = false;
                break;
            }
            const char *back = game_texts_move(gt, r, joint[r]);
            if (back != m) {
                fprintf(out, "%s: step %u: move of %s read as another move: %s became %s\n", name, st->k, t->roles[r],
                        m, back);
                ok = false;
                break;
            }
        }
        if (ok) game_ctx_play(ctx, joint);
    }
    if (ok && !incomplete && !quiet) fprintf(out, "%s: ok (%zu lines)\n", name, t->n_steps);
    free(multi_noted);
    free(joint);
    strvec_free(&got);
    game_state_free(s);
    game_ctx_free(ctx);
    return !ok ? REPLAY_DIVERGED : incomplete ? REPLAY_INCOMPLETE : REPLAY_OK;
}
