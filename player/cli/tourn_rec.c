/* tourn_rec.c - the record of a tournament and its per-game CSV (see
 * tourn_rec.h). */
#include "player/cli/tourn_rec.h"

#include "player/cli/games_csv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/xalloc.h"

static const char meta_mark[] = "# ggp tournament,";
static const char header[] = "game,seed,a_role,goals,outcome,a_searches,a_playouts,a_seconds,a_nodes_peak,"
                             "a_bytes_peak,a_seat,a_spec,b_spec,a_bytes_per_node,steps,moves_hash";
enum { N_COLS = 16 };
static const char *const outcome_names[] = {"loss", "draw", "win", "failed"};

/* ---- CSV fields --------------------------------------------------------- */

/* A field, quoted when it must be (always: quote), with "" for ". */
void trec_csv_field(const char *s, bool quote, FILE *out)
{
    quote = quote || strpbrk(s, ",\"\n\r") != NULL;
    if (quote) fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    if (quote) fputc('"', out);
}


static bool u64_of(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return *s >= '0' && *s <= '9' && !*end && !errno;
}

static bool u32_of(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!u64_of(s, &v) || v > UINT32_MAX) return false;
    *out = (uint32_t)v;
    return true;
}

static void fmt(char *err, size_t n, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *err, size_t n, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(err, n, f, ap);
    va_end(ap);
}

/* ---- the record ---------------------------------------------------------- */

bool trec_in_shard(const trec_meta_t *m, uint32_t k) { return k % m->shards == m->shard; }

/* The games of a shard over all points. */
static uint32_t trec_shard_games(const trec_meta_t *m, size_t n_pts)
{
    uint32_t per_point = m->games > m->shard ? (m->games - m->shard + m->shards - 1) / m->shards : 0;
    return (uint32_t)(per_point * n_pts);
}

static void meta_copy(trec_meta_t *d, const trec_meta_t *s)
{
    *d = *s;
    d->roles = xstrdup(s->roles);
    d->rules = xstrdup(s->rules);
    d->a = xstrdup(s->a);
    d->b = xstrdup(s->b);
    d->sweep = xstrdup(s->sweep ? s->sweep : "");
}

static void trec_meta_free(trec_meta_t *m)
{
    free(m->roles);
    free(m->rules);
    free(m->a);
    free(m->b);
    free(m->sweep);
    memset(m, 0, sizeof *m);
}

/* Split the roles ("x;o") into r->role; false if empty names or too many. */
static bool split_roles(trec_t *r)
{
    r->roles_buf = xstrdup(r->m.roles);
    uint32_t n = 0;
    for (char *p = r->roles_buf;; p++) {
        char *semi = strchr(p, ';');
        if (n == TREC_MAX_ROLES || semi == p || !*p) return false;
        /* names go into the CSV unquoted, as ROLE=GOAL;... */
        for (const char *c = p; *c && c != semi; c++)
            if (strchr(",\"= \t", *c)) return false;
        r->role[n++] = p;
        if (!semi) break;
        *semi = '\0';
        p = semi;
    }
    r->m.n_roles = n;
    return true;
}

/* The points: A alone, or A with KEY=V for each swept value. */
static bool split_sweep(trec_t *r, char *err, size_t err_size)
{
    const char *sweep = r->m.sweep;
    if (!*sweep) {
        r->n_pts = 1;
        r->a_texts = xcalloc(1, sizeof *r->a_texts);
        r->a_texts[0] = xstrdup(r->m.a);
        return true;
    }
    const char *eq = strchr(sweep, '=');
    if (!eq || eq == sweep || (size_t)(eq - sweep) >= sizeof r->key || !eq[1]) {
        fmt(err, err_size, "bad value for --sweep: '%s' (expected KEY=V1,V2,...)", sweep);
        return false;
    }
    memcpy(r->key, sweep, (size_t)(eq - sweep));
    r->values_buf = xstrdup(eq + 1);
    r->n_pts = 1;
    for (const char *p = r->values_buf; *p; p++) r->n_pts += *p == ',';
    r->a_texts = xcalloc(r->n_pts, sizeof *r->a_texts);
    r->values = xcalloc(r->n_pts, sizeof *r->values);
    char *v = r->values_buf;
    for (size_t i = 0; i < r->n_pts; i++) {
        char *comma = strchr(v, ',');
        if (comma) *comma = '\0';
        if (!*v) {
            fmt(err, err_size, "--sweep has an empty value");
            return false;
        }
        r->values[i] = v;
        size_t len = strlen(r->m.a) + strlen(r->key) + strlen(v) + 3;
        r->a_texts[i] = xmalloc(len);
        snprintf(r->a_texts[i], len, "%s%s%s=%s", r->m.a, strchr(r->m.a, ':') ? "," : ":", r->key, v);
        v = comma ? comma + 1 : v + strlen(v);
    }
    return true;
}

bool trec_init(trec_t *r, const trec_meta_t *meta, char *err, size_t err_size)
{
    memset(r, 0, sizeof *r);
    meta_copy(&r->m, meta);
    bool ok = true;
    const char *texts[] = {r->m.roles, r->m.rules, r->m.a, r->m.b, r->m.sweep};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (strpbrk(texts[i], "\n\r")) {
            fmt(err, err_size, "a line break in '%s'", texts[i]);
            ok = false;
        }
    if (ok && (!split_roles(r) || r->m.n_roles < 2)) {
        fmt(err, err_size, "bad roles '%s' (2 to %d names joined by ';', without ',', '\"', '=' or spaces)", r->m.roles, TREC_MAX_ROLES);
        ok = false;
    }
    if (ok && (!r->m.games || !r->m.shards || r->m.shard >= r->m.shards)) {
        fmt(err, err_size, "bad games %u or shard %u/%u", r->m.games, r->m.shard, r->m.shards);
        ok = false;
    }
    ok = ok && split_sweep(r, err, err_size);
    if (ok && r->n_pts * r->m.games > TREC_MAX_GAMES) {
        fmt(err, err_size, "too many games: %zu points of %u (at most %d in all)", r->n_pts, r->m.games,
            TREC_MAX_GAMES);
        ok = false;
    }
    if (!ok) {
        trec_free(r);
        return false;
    }
    r->m.shard_games = trec_shard_games(&r->m, r->n_pts);
    r->games = xcalloc(r->n_pts * r->m.games, sizeof *r->games);
    return true;
}

void trec_free(trec_t *r)
{
    for (size_t i = 0; r->a_texts && i < r->n_pts; i++) free(r->a_texts[i]);
    free(r->a_texts);
    free(r->values);
    free(r->values_buf);
    free(r->roles_buf);
    free(r->games);
    trec_meta_free(&r->m);
    memset(r, 0, sizeof *r);
}

int trec_outcome(const int *goals, uint32_t n_roles, uint32_t a_seat)
{
    int best_b = -1000;
    for (uint32_t s = 0; s < n_roles; s++)
        if (s != a_seat && goals[s] > best_b) best_b = goals[s];
    int a = goals[a_seat];
    return a > best_b ? TREC_WIN : a == best_b ? TREC_DRAW : TREC_LOSS;
}

/* ---- writing ---------------------------------------------------------------- */

static void meta_field(const char *key, const char *value, FILE *out)
{
    size_t len = strlen(key) + strlen(value) + 2;
    char *kv = xmalloc(len);
    snprintf(kv, len, "%s=%s", key, value);
    fputc(',', out);
    trec_csv_field(kv, false, out);
    free(kv);
}

void trec_write_head(const trec_t *r, FILE *out)
{
    const trec_meta_t *m = &r->m;
    fprintf(out, "%sgames=%u,seed=%" PRIu64 ",shard=%u/%u,shard_games=%u", meta_mark, m->games, m->seed, m->shard,
            m->shards, m->shard_games);
    meta_field("roles", m->roles, out);
    meta_field("rules", m->rules, out);
    fprintf(out, ",rules_hash=%016" PRIx64, m->rules_hash);
    meta_field("a", m->a, out);
    meta_field("b", m->b, out);
    meta_field("sweep", m->sweep, out);
    fprintf(out, "\n%s\n", header);
}

void trec_write_row(const trec_t *r, size_t i, FILE *out)
{
    const trec_game_t *g = &r->games[i];
    fprintf(out, "%zu,%" PRIu64 ",%s,", i % r->m.games, g->seed, r->role[g->a_seat]);
    for (uint32_t s = 0; s < r->m.n_roles; s++) fprintf(out, "%s%s=%d", s ? ";" : "", r->role[s], g->goals[s]);
    fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64 ",%" PRIu64 ",%u,", outcome_names[g->outcome + 1],
            g->a.searches, g->a.playouts, g->a.seconds, g->a.nodes_peak, g->a.bytes_peak, g->a_seat);
    trec_csv_field(r->a_texts[i / r->m.games], true, out);
    fputc(',', out);
    trec_csv_field(r->m.b, true, out);
    fprintf(out, ",%" PRIu64 ",%u,%016" PRIx64 "\n", g->a.bytes_per_node, g->steps, g->moves_hash);
}

/* ---- reading ------------------------------------------------------------------ */

const char *trec_meta_differs(const trec_meta_t *want, const trec_meta_t *got, bool with_shard)
{
    if (want->rules_hash != got->rules_hash || strcmp(want->roles, got->roles)) return "other rules (another FILE.kif?)";
    if (want->games != got->games) return "another number of games (another --games?)";
    if (want->seed != got->seed) return "another seed (another --seed?)";
    if (strcmp(want->a, got->a)) return "another player A (another --a?)";
    if (strcmp(want->b, got->b)) return "another player B (another --b?)";
    if (strcmp(want->sweep, got->sweep)) return "another sweep (another --sweep?)";
    if (with_shard && (want->shard != got->shard || want->shards != got->shards)) return "another shard (another --shard?)";
    return NULL;
}

/* One metadata field KEY=VALUE into m; false if the value is bad. Unknown
 * keys are skipped (a later version may add some). */
static bool meta_set(trec_meta_t *m, const char *key, const char *v, unsigned *seen)
{
    static const char *const keys[] = {"games", "seed", "shard", "shard_games", "roles", "rules", "rules_hash",
                                       "a",     "b",    "sweep"};
    size_t i = 0;
    while (i < sizeof keys / sizeof *keys && strcmp(keys[i], key)) i++;
    if (i == sizeof keys / sizeof *keys) return true;
    if (*seen & (1u << i)) return false;
    *seen |= 1u << i;
    char *end;
    switch (i) {
    case 0: return u32_of(v, &m->games) && m->games >= 1;
    case 1: return u64_of(v, &m->seed);
    case 2: {
        const char *slash = strchr(v, '/');
        char num[16];
        if (!slash || (size_t)(slash - v) >= sizeof num) return false;
        memcpy(num, v, (size_t)(slash - v));
        num[slash - v] = '\0';
        return u32_of(num, &m->shard) && u32_of(slash + 1, &m->shards) && m->shard < m->shards;
    }
    case 3: return u32_of(v, &m->shard_games);
    case 4: m->roles = xstrdup(v); return true;
    case 5: m->rules = xstrdup(v); return true;
    case 6:
        errno = 0;
        m->rules_hash = strtoull(v, &end, 16);
        return strlen(v) == 16 && !*end && !errno;
    case 7: m->a = xstrdup(v); return true;
    case 8: m->b = xstrdup(v); return true;
    default: m->sweep = xstrdup(v); return true;
    }
}

/* The next line of f (its newline cut), or NULL at f->keep; *nul is set
 * when it holds a NUL byte. */
static char *next_line(trec_file_t *f, bool *nul)
{
    if (f->at >= f->keep) return NULL;
    char *line = f->src->text + f->at;
    char *nl = memchr(line, '\n', f->keep - f->at);
    *nl = '\0';
    *nul = strlen(line) != (size_t)(nl - line);
    if (nl > line && nl[-1] == '\r') nl[-1] = '\0';
    f->at = (size_t)(nl - f->src->text) + 1;
    f->line++;
    return line;
}

static bool parse_meta(trec_file_t *f, char *err, size_t err_size)
{
    bool nul;
    char *line = next_line(f, &nul);
    size_t ml = strlen(meta_mark);
    if (!line || nul || strncmp(line, meta_mark, ml)) {
        fmt(err, err_size,
            "%s:1: not a per-game CSV of 'ggp tournament' (its first line is not '# ggp tournament,...': another "
            "file, or one of an older version)",
            f->path);
        return false;
    }
    char *fields[32];
    int n = csv_split(line + ml, fields, 31);
    if (n < 0 || n > 31) {
        fmt(err, err_size, "%s:1: bad metadata line (%s)", f->path, n < 0 ? "a quote not closed" : "too many fields");
        return false;
    }
    unsigned seen = 0;
    for (int i = 0; i < n; i++) {
        char *eq = strchr(fields[i], '=');
        if (eq) *eq = '\0';
        if (!eq || !meta_set(&f->m, fields[i], eq + 1, &seen)) {
            fmt(err, err_size, "%s:1: bad metadata field '%s'", f->path, fields[i]);
            return false;
        }
    }
    if (seen != (1u << 10) - 1) {
        fmt(err, err_size, "%s:1: metadata line without all of games, seed, shard, shard_games, roles, rules, "
                           "rules_hash, a, b, sweep", f->path);
        return false;
    }
    line = next_line(f, &nul);
    if (!line || nul || strcmp(line, header)) {
        fmt(err, err_size, "%s:2: not the column header of this version of 'ggp tournament'", f->path);
        return false;
    }
    return true;
}

bool trec_file_from(trec_file_t *f, src_t *src, char *err, size_t err_size)
{
    memset(f, 0, sizeof *f);
    f->src = src;
    f->path = src->name;
    f->keep = src->len;
    while (f->keep && src->text[f->keep - 1] != '\n') f->keep--;
    if (!parse_meta(f, err, err_size)) {
        trec_file_close(f);
        return false;
    }
    return true;
}

bool trec_file_open(trec_file_t *f, const char *path, char *err, size_t err_size)
{
    const char *why = NULL;
    src_t *src = src_read_file(path, &why);
    if (!src) {
        memset(f, 0, sizeof *f);
        fmt(err, err_size, "%s: %s", path, why ? why : "cannot read");
        return false;
    }
    return trec_file_from(f, src, err, err_size);
}

void trec_file_close(trec_file_t *f)
{
    src_free(f->src);
    trec_meta_free(&f->m);
    memset(f, 0, sizeof *f);
}

/* The goals "x=100;o=0" of r's roles into g; NULL or what is wrong. */
static const char *parse_goals(const trec_t *r, char *s, trec_game_t *g)
{
    char *save = NULL, *goal = strtok_r(s, ";", &save);
    for (uint32_t i = 0; i < r->m.n_roles; i++, goal = strtok_r(NULL, ";", &save)) {
        char *eq = goal ? strrchr(goal, '=') : NULL;
        if (!eq) return "goals of another game (not one per role)";
        *eq = '\0';
        if (strcmp(goal, r->role[i])) return "goals of another game (other roles)";
        char *end;
        errno = 0;
        long v = strtol(eq + 1, &end, 10);
        if (*end || end == eq + 1 || errno || v < -1000000 || v > 1000000) return "a goal that is not a number";
        g->goals[i] = (int)v;
    }
    return goal ? "goals of another game (more than one per role)" : NULL;
}

static const char *parse_row(const trec_file_t *f, const trec_t *r, char *line, size_t *idx, trec_game_t *g)
{
    char *c[N_COLS + 1];
    int n = csv_split(line, c, N_COLS);
    if (n < 0) return "a quote that is not closed";
    if (n != N_COLS) return "not 16 columns";
    uint32_t k, seat;
    if (!u32_of(c[0], &k) || k >= r->m.games) return "game number out of range (another --games?)";
    if (!trec_in_shard(&f->m, k)) return "a game of another shard (its number mod shards is not this file's shard)";
    if (!u64_of(c[1], &g->seed) || g->seed != rng_derive(r->m.seed, k)) return "another seed (another --seed?)";
    if (!u32_of(c[10], &seat) || seat != k % r->m.n_roles) return "A is not in seat game mod roles";
    g->a_seat = seat;
    if (strcmp(c[2], r->role[seat])) return "A's role is not the role of its seat";
    size_t p = 0;
    while (p < r->n_pts && strcmp(c[11], r->a_texts[p])) p++;
    if (p == r->n_pts) return "other players (another --a or --sweep?)";
    if (strcmp(c[12], r->m.b)) return "other players (another --b?)";
    g->outcome = -2;
    for (int o = 0; o < 4; o++)
        if (!strcmp(c[4], outcome_names[o])) g->outcome = o - 1;
    if (g->outcome == -2) return "unknown outcome";
    const char *bad = parse_goals(r, c[3], g);
    if (bad) return bad;
    if (g->outcome != TREC_FAILED && g->outcome != trec_outcome(g->goals, r->m.n_roles, seat))
        return "an outcome that does not follow from the goals";
    char *end;
    g->a.seconds = strtod(c[7], &end);
    if (*end || end == c[7] || !(g->a.seconds >= 0 && g->a.seconds < 1e12) || !u64_of(c[5], &g->a.searches) ||
        !u64_of(c[6], &g->a.playouts) || !u64_of(c[8], &g->a.nodes_peak) || !u64_of(c[9], &g->a.bytes_peak) ||
        !u64_of(c[13], &g->a.bytes_per_node) || !u32_of(c[14], &g->steps))
        return "a count that is not a number";
    errno = 0;
    g->moves_hash = strtoull(c[15], &end, 16);
    if (strlen(c[15]) != 16 || *end || errno) return "a moves_hash that is not 16 hex digits";
    if (g->outcome == TREC_FAILED) snprintf(g->error, sizeof g->error, "failed in an earlier run");
    g->done = true;
    *idx = p * r->m.games + k;
    return NULL;
}

int trec_file_next(trec_file_t *f, const trec_t *r, size_t *i, trec_game_t *g, char *err, size_t err_size)
{
    for (;;) {
        bool nul;
        char *line = next_line(f, &nul);
        if (!line) return 0;
        if (!*line && !nul) continue; /* a blank line */
        memset(g, 0, sizeof *g);
        const char *bad = nul ? "a NUL byte" : parse_row(f, r, line, i, g);
        if (!bad) return 1;
        fmt(err, err_size, "%s:%u: %s", f->path, f->line, bad);
        return -1;
    }
}
