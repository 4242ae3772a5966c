/* tourn_rec.c - the record of a tournament or a round robin and its
 * per-game CSV (see tourn_rec.h). */
#include "player/cli/tourn_rec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/rng.h"
#include "base/xalloc.h"
#include "player/cli/outfile.h"

/* Per kind (trec_kind): the first line starts with the mark; the column
 * header of a round robin adds b_seconds to the tournament's. */
static const char *const meta_marks[] = {"# ggp tournament,", "# ggp roundrobin,"};
static const char *const kind_names[] = {"tournament", "roundrobin"};
static const char header[] = "game,seed,a_role,goals,outcome,a_searches,a_playouts,a_seconds,a_nodes_peak,"
                             "a_bytes_peak,a_seat,a_spec,b_spec,a_bytes_per_node,steps,moves_hash";
static const char rr_header_tail[] = ",b_seconds";
enum { N_COLS = 16, N_COLS_RR = 17 };
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

int trec_csv_split(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;;) {
        if (n == max) return max + 1;
        if (*p != '"') {
            f[n++] = p;
            char *c = strchr(p, ',');
            if (!c) return n;
            *c = '\0';
            p = c + 1;
            continue;
        }
        char *w = ++p;
        f[n++] = w;
        for (;;) {
            if (!*p) return -1;
            if (*p == '"' && p[1] != '"') break;
            if (*p == '"') p++;
            *w++ = *p++;
        }
        p++;
        char end = *p;
        *w = '\0';
        if (!end) return n;
        if (end != ',') return -1;
        p++;
    }
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

uint32_t trec_number(const trec_t *r, size_t i)
{
    return (uint32_t)(r->m.kind == TREC_ROUNDROBIN ? i : i % r->m.games);
}

static bool number_in_shard(const trec_meta_t *m, uint32_t n) { return n % m->shards == m->shard; }

bool trec_in_shard(const trec_t *r, const trec_meta_t *shard, size_t i)
{
    return number_in_shard(shard, trec_number(r, i));
}

void trec_setup(const trec_t *r, size_t i, trec_game_t *g)
{
    g->seed = rng_derive(r->m.seed, trec_number(r, i));
    g->a_seat = (uint32_t)(i % r->m.games % r->m.n_roles);
}

/* Of the game numbers 0..n-1, how many are m's shard's. */
static uint32_t count_in_shard(uint64_t n, const trec_meta_t *m)
{
    return n > m->shard ? (uint32_t)((n - m->shard + m->shards - 1) / m->shards) : 0;
}

/* The games of a shard over all points. */
static uint32_t trec_shard_games(const trec_meta_t *m, size_t n_pts)
{
    if (m->kind == TREC_ROUNDROBIN) return count_in_shard((uint64_t)m->games * n_pts, m);
    return (uint32_t)(count_in_shard(m->games, m) * n_pts);
}

static void meta_copy(trec_meta_t *d, const trec_meta_t *s)
{
    *d = *s;
    d->roles = xstrdup(s->roles);
    d->rules = xstrdup(s->rules);
    d->a = xstrdup(s->a ? s->a : "");
    d->b = xstrdup(s->b ? s->b : "");
    d->sweep = xstrdup(s->sweep ? s->sweep : "");
    d->engine = xstrdup(s->engine ? s->engine : "");
    d->players = xcalloc(s->n_players ? s->n_players : 1, sizeof *d->players);
    for (uint32_t i = 0; i < s->n_players; i++) d->players[i] = xstrdup(s->players[i]);
}

static void trec_meta_free(trec_meta_t *m)
{
    free(m->roles);
    free(m->rules);
    free(m->a);
    free(m->b);
    free(m->sweep);
    free(m->engine);
    for (uint32_t i = 0; m->players && i < m->n_players; i++) free(m->players[i]);
    free(m->players);
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
        for (size_t j = 0; j < i; j++)
            if (!strcmp(r->values[j], v)) { /* two points of one spec: their rows could not be told apart */
                fmt(err, err_size, "--sweep has the value '%s' twice", v);
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

/* The pairs of a round robin, in order: A the first player, B the second. */
static bool split_pairs(trec_t *r, char *err, size_t err_size)
{
    uint32_t n = r->m.n_players;
    if (n < 2 || n > TREC_MAX_PLAYERS) {
        fmt(err, err_size, "%u players (a round robin has 2 to %d)", n, TREC_MAX_PLAYERS);
        return false;
    }
    r->n_pts = (size_t)n * (n - 1) / 2;
    r->a_texts = xcalloc(r->n_pts, sizeof *r->a_texts);
    r->b_texts = xcalloc(r->n_pts, sizeof *r->b_texts);
    r->pair = xcalloc(2 * r->n_pts, sizeof *r->pair);
    size_t p = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++, p++) {
            r->pair[2 * p] = i;
            r->pair[2 * p + 1] = j;
            r->a_texts[p] = r->m.players[i]; /* not copied: up to 256 * 255 / 2 pairs */
            r->b_texts[p] = r->m.players[j];
        }
    return true;
}

/* The points of either kind; false with a message in err. */
static bool split_points(trec_t *r, char *err, size_t err_size)
{
    if (r->m.kind == TREC_ROUNDROBIN) return split_pairs(r, err, err_size);
    if (!split_sweep(r, err, err_size)) return false;
    r->b_texts = xcalloc(r->n_pts, sizeof *r->b_texts);
    for (size_t p = 0; p < r->n_pts; p++) r->b_texts[p] = r->m.b;
    return true;
}

bool trec_init(trec_t *r, const trec_meta_t *meta, char *err, size_t err_size)
{
    memset(r, 0, sizeof *r);
    meta_copy(&r->m, meta);
    bool ok = true;
    const char *texts[] = {r->m.roles, r->m.rules, r->m.a ? r->m.a : "", r->m.b ? r->m.b : "", r->m.sweep};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (strpbrk(texts[i], "\n\r")) {
            fmt(err, err_size, "a line break in '%s'", texts[i]);
            ok = false;
        }
    for (uint32_t i = 0; ok && i < r->m.n_players; i++)
        if (strpbrk(r->m.players[i], "\n\r")) {
            fmt(err, err_size, "a line break in '%s'", r->m.players[i]);
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
    ok = ok && split_points(r, err, err_size);
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
    for (size_t i = 0; r->a_texts && r->m.kind == TREC_TOURNAMENT && i < r->n_pts; i++) free(r->a_texts[i]);
    free(r->a_texts);
    free(r->b_texts);
    free(r->pair);
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

/* A run's step limit (0 read as the default). */
static uint32_t meta_max_steps(const trec_meta_t *m) { return m->max_steps ? m->max_steps : LOCAL_MAX_STEPS; }

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
    bool rr = m->kind == TREC_ROUNDROBIN;
    fprintf(out, "%s%s=%u,seed=%" PRIu64 ",shard=%u/%u,shard_games=%u", meta_marks[m->kind],
            rr ? "games_per_pair" : "games", m->games, m->seed, m->shard, m->shards, m->shard_games);
    meta_field("roles", m->roles, out);
    meta_field("rules", m->rules, out);
    fprintf(out, ",rules_hash=%016" PRIx64, m->rules_hash);
    if (rr) {
        for (uint32_t i = 0; i < m->n_players; i++) meta_field("player", m->players[i], out);
    } else {
        meta_field("a", m->a, out);
        meta_field("b", m->b, out);
        meta_field("sweep", m->sweep, out);
    }
    /* only when set: the files of earlier versions, and of runs without
     * --max-steps, stay alike */
    if (meta_max_steps(m) != LOCAL_MAX_STEPS) fprintf(out, ",max_steps=%u", meta_max_steps(m));
    if (m->engine && *m->engine) meta_field("engine", m->engine, out);
    fprintf(out, "\n%s%s\n", header, rr ? rr_header_tail : "");
}

void trec_write_row(const trec_t *r, size_t i, FILE *out)
{
    const trec_game_t *g = &r->games[i];
    fprintf(out, "%u,%" PRIu64 ",%s,", trec_number(r, i), g->seed, r->role[g->a_seat]);
    for (uint32_t s = 0; s < r->m.n_roles; s++) fprintf(out, "%s%s=%d", s ? ";" : "", r->role[s], g->goals[s]);
    fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64 ",%" PRIu64 ",%u,", outcome_names[g->outcome + 1],
            g->a.searches, g->a.playouts, g->a.seconds, g->a.nodes_peak, g->a.bytes_peak, g->a_seat);
    trec_csv_field(r->a_texts[i / r->m.games], true, out);
    fputc(',', out);
    trec_csv_field(r->b_texts[i / r->m.games], true, out);
    fprintf(out, ",%" PRIu64 ",%u,%016" PRIx64, g->a.bytes_per_node, g->steps, g->moves_hash);
    if (r->m.kind == TREC_ROUNDROBIN) fprintf(out, ",%.4f", g->b_seconds);
    fputc('\n', out);
}

/* ---- reading ------------------------------------------------------------------ */

/* Whether the players of two round robins differ. */
static bool players_differ(const trec_meta_t *x, const trec_meta_t *y)
{
    if (x->n_players != y->n_players) return true;
    for (uint32_t i = 0; i < x->n_players; i++)
        if (strcmp(x->players[i], y->players[i])) return true;
    return false;
}

const char *trec_meta_differs(const trec_meta_t *want, const trec_meta_t *got, bool with_shard)
{
    if (want->kind != got->kind)
        return got->kind == TREC_ROUNDROBIN ? "the CSV of another command (ggp roundrobin)"
                                            : "the CSV of another command (ggp tournament)";
    bool rr = want->kind == TREC_ROUNDROBIN;
    if (want->rules_hash != got->rules_hash || strcmp(want->roles, got->roles)) return "other rules (another FILE.kif?)";
    if (want->games != got->games)
        return rr ? "another number of games per pair (another --games-per-pair?)" : "another number of games (another --games?)";
    if (want->seed != got->seed) return "another seed (another --seed?)";
    if (rr && players_differ(want, got)) return "other players (other --player options, or in another order?)";
    if (strcmp(want->a, got->a)) return "another player A (another --a?)";
    if (strcmp(want->b, got->b)) return "another player B (another --b?)";
    if (strcmp(want->sweep, got->sweep)) return "another sweep (another --sweep?)";
    if (with_shard && (want->shard != got->shard || want->shards != got->shards)) return "another shard (another --shard?)";
    if (meta_max_steps(want) != meta_max_steps(got)) return "another step limit (another --max-steps?)";
    if (want->engine && *want->engine && got->engine && *got->engine && strcmp(want->engine, got->engine))
        return "another engine (another --engine, or auto fell back to the rules engine past its grounding budget?)";
    return NULL;
}

/* The metadata keys, in the order of meta_set's cases; which kinds have
 * each (bit 1 << kind); player= is given once per player. */
static const char *const meta_keys[] = {"games",  "seed",   "shard",     "shard_games", "roles",
                                        "rules",  "rules_hash", "a",      "b",           "sweep",
                                        "games_per_pair", "player", "max_steps", "engine"};
static const unsigned meta_kinds[] = {1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 2, 2, 3, 3};
enum { KEY_GAMES_PER_PAIR = 10, KEY_PLAYER = 11, KEY_MAX_STEPS = 12, KEY_ENGINE = 13 };
#define META_OPTIONAL (1u << KEY_MAX_STEPS | 1u << KEY_ENGINE)

/* A round robin's next player= into m; false past TREC_MAX_PLAYERS. */
static bool add_player(trec_meta_t *m, const char *v)
{
    if (m->n_players == TREC_MAX_PLAYERS) return false;
    m->players = xrealloc(m->players, (m->n_players + 1) * sizeof *m->players);
    m->players[m->n_players++] = xstrdup(v);
    return true;
}

/* One metadata field KEY=VALUE into m (whose kind is set); false if the
 * value is bad. Unknown keys, and those of the other kind, are skipped (a
 * later version may add some). */
static bool meta_set(trec_meta_t *m, const char *key, const char *v, unsigned *seen)
{
    size_t i = 0;
    while (i < sizeof meta_keys / sizeof *meta_keys && strcmp(meta_keys[i], key)) i++;
    if (i == sizeof meta_keys / sizeof *meta_keys || !(meta_kinds[i] & (1u << m->kind))) return true;
    if (i == KEY_PLAYER) {
        *seen |= 1u << i;
        return add_player(m, v);
    }
    if (*seen & (1u << i)) return false;
    *seen |= 1u << i;
    char *end;
    switch (i) {
    case KEY_GAMES_PER_PAIR: /* fall through: a round robin's points are its pairs */
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
    case KEY_MAX_STEPS: return u32_of(v, &m->max_steps) && m->max_steps >= 1;
    case KEY_ENGINE: m->engine = xstrdup(v); return true;
    default: m->sweep = xstrdup(v); return true;
    }
}

/* The keys a kind's metadata line must have (a round robin's players are
 * counted by trec_init). */
static unsigned meta_required(trec_kind kind)
{
    unsigned all = 0;
    for (size_t i = 0; i < sizeof meta_keys / sizeof *meta_keys; i++)
        if (meta_kinds[i] & (1u << kind)) all |= 1u << i;
    return all & ~META_OPTIONAL;
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
    size_t ml = 0;
    for (int k = TREC_TOURNAMENT; line && !nul && !ml && k <= TREC_ROUNDROBIN; k++)
        if (!strncmp(line, meta_marks[k], strlen(meta_marks[k]))) {
            f->m.kind = (trec_kind)k;
            ml = strlen(meta_marks[k]);
        }
    if (!ml) {
        fmt(err, err_size,
            "%s:1: not a per-game CSV of 'ggp tournament' or 'ggp roundrobin' (its first line is not '# ggp "
            "tournament,...' or '# ggp roundrobin,...': another file, or one of an older version)",
            f->path);
        return false;
    }
    enum { MAX_FIELDS = 16 + TREC_MAX_PLAYERS };
    char *fields[MAX_FIELDS + 1];
    int n = trec_csv_split(line + ml, fields, MAX_FIELDS);
    if (n < 0 || n > MAX_FIELDS) {
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
    if ((seen & ~META_OPTIONAL) != meta_required(f->m.kind)) {
        fmt(err, err_size, "%s:1: metadata line without all of %s", f->path,
            f->m.kind == TREC_ROUNDROBIN
                ? "games_per_pair, seed, shard, shard_games, roles, rules, rules_hash, player"
                : "games, seed, shard, shard_games, roles, rules, rules_hash, a, b, sweep");
        return false;
    }
    if (!f->m.sweep) f->m.sweep = xstrdup("");
    if (!f->m.a) f->m.a = xstrdup("");
    if (!f->m.b) f->m.b = xstrdup("");
    line = next_line(f, &nul);
    size_t hl = strlen(header);
    bool rr = f->m.kind == TREC_ROUNDROBIN;
    if (!line || nul || strncmp(line, header, hl) || strcmp(line + hl, rr ? rr_header_tail : "")) {
        fmt(err, err_size, "%s:2: not the column header of this version of 'ggp %s'", f->path, kind_names[f->m.kind]);
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

/* The point of a row whose game number is n (checked: in range, A's and
 * B's specs a and b those of the point) into *p; NULL or what is wrong. */
static const char *row_point(const trec_t *r, uint32_t n, const char *a, const char *b, size_t *p)
{
    if (r->m.kind == TREC_ROUNDROBIN) {
        if (n >= r->n_pts * r->m.games) return "game number out of range (another --games-per-pair or --player?)";
        *p = n / r->m.games;
        if (strcmp(a, r->a_texts[*p]) || strcmp(b, r->b_texts[*p]))
            return "other players for this game's pair (other --player options?)";
        return NULL;
    }
    if (n >= r->m.games) return "game number out of range (another --games?)";
    for (*p = 0; *p < r->n_pts && strcmp(a, r->a_texts[*p]); ++*p) continue;
    if (*p == r->n_pts) return "other players (another --a or --sweep?)";
    if (strcmp(b, r->m.b)) return "other players (another --b?)";
    return NULL;
}

static const char *parse_row(const trec_file_t *f, const trec_t *r, char *line, size_t *idx, trec_game_t *g)
{
    bool rr = r->m.kind == TREC_ROUNDROBIN;
    char *c[N_COLS_RR + 1];
    int n = trec_csv_split(line, c, rr ? N_COLS_RR : N_COLS);
    if (n < 0) return "a quote that is not closed";
    if (n != (rr ? N_COLS_RR : N_COLS)) return rr ? "not 17 columns" : "not 16 columns";
    uint32_t k, seat;
    size_t p = 0;
    if (!u32_of(c[0], &k)) return "game number out of range (not a number)";
    const char *bad = row_point(r, k, c[11], c[12], &p);
    if (bad && strncmp(bad, "other", 5)) return bad; /* out of range: before the shard */
    if (!number_in_shard(&f->m, k)) return "a game of another shard (its number mod shards is not this file's shard)";
    size_t i = rr ? k : p * r->m.games + k;
    if (!u64_of(c[1], &g->seed) || g->seed != rng_derive(r->m.seed, k)) return "another seed (another --seed?)";
    if (!u32_of(c[10], &seat) || seat != (rr ? k % r->m.games : k) % r->m.n_roles)
        return "A is not in seat game mod roles";
    g->a_seat = seat;
    if (strcmp(c[2], r->role[seat])) return "A's role is not the role of its seat";
    if (bad) return bad;
    g->outcome = -2;
    for (int o = 0; o < 4; o++)
        if (!strcmp(c[4], outcome_names[o])) g->outcome = o - 1;
    if (g->outcome == -2) return "unknown outcome";
    bad = parse_goals(r, c[3], g);
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
    if (rr) {
        g->b_seconds = strtod(c[16], &end);
        if (*end || end == c[16] || !(g->b_seconds >= 0 && g->b_seconds < 1e12)) return "a count that is not a number";
    }
    if (g->outcome == TREC_FAILED) snprintf(g->error, sizeof g->error, "failed in an earlier run");
    g->done = true;
    *idx = i;
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

/* ---- the CSV of a run being played ------------------------------------------- */

/* PATH opened for writing (not truncated) and locked for this run: two
 * runs appending to one CSV (a list typed twice, a requeued cluster job
 * whose first run still writes) interleave their rows into a file that
 * neither resume nor merge can read. The lock goes with the stream the
 * run appends through. -1 (said why) when it cannot be opened or another
 * run holds it. */
static int csv_lock(const char *cmd, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, "ggp %s: cannot write %s: %s\n", cmd, path, strerror(errno));
        return -1;
    }
    struct stat st; /* a device (--csv /dev/null, /dev/stdout) is not a record two runs share */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) fprintf(stderr, "ggp %s: %s is in use by another run (its lock is held)\n", cmd, path);
        else fprintf(stderr, "ggp %s: cannot lock %s: %s\n", cmd, path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static FILE *csv_start_locked(const trec_t *r, const char *cmd, const char *path, int fd)
{
    struct stat st; /* a device or a pipe (--csv /dev/stdout) is not truncated */
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    FILE *f = !regular || ftruncate(fd, 0) == 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "ggp %s: cannot write %s: %s\n", cmd, path, strerror(errno));
        close(fd);
        return NULL;
    }
    trec_write_head(r, f);
    if (!out_stream_sync(f, cmd, path)) {
        fclose(f);
        return NULL;
    }
    return f;
}

FILE *trec_csv_start(const trec_t *r, const char *cmd, const char *path)
{
    int fd = csv_lock(cmd, path);
    return fd < 0 ? NULL : csv_start_locked(r, cmd, path, fd);
}

uint32_t trec_write_games(const trec_t *r, FILE *out)
{
    uint32_t n = 0;
    trec_write_head(r, out);
    for (size_t i = 0; i < r->n_pts * r->m.games; i++)
        if (r->games[i].done) {
            trec_write_row(r, i, out);
            n++;
        }
    return n;
}

/* Whether another run holds the lock on the file at path (csv_lock). A
 * shared lock asks: it conflicts with that run's exclusive one, and on NFS
 * (flock emulated by byte-range locks) a read-only descriptor may take it,
 * where an exclusive one would fail with EBADF and say nothing. */
static bool csv_theirs(const char *path)
{
    int probe = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* (a FIFO: no wait for a writer) */
    bool theirs = probe >= 0 && flock(probe, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    if (probe >= 0) close(probe);
    return theirs;
}

bool trec_csv_reattach(const trec_t *r, const char *cmd, const char *path, FILE *f, bool last)
{
    struct stat mine, there;
    if (fstat(fileno(f), &mine) != 0 || !S_ISREG(mine.st_mode)) return true;
    if (stat(path, &there) == 0 && there.st_dev == mine.st_dev && there.st_ino == mine.st_ino) return true;
    /* Not stopping the run when this fails (its folder removed, say): the
     * games are in r, the summary is printed at the end, and the next
     * row tries again. The new file is written aside and locked before it
     * is renamed in (the lock goes with the file, csv_lock), and not
     * renamed over a file another run holds. */
    out_file_t o;
    uint32_t n = 0;
    int fd = -1;
    /* a device or a FIFO now at path is not a record (and opening a FIFO
     * nobody reads would block); another run's file is asked about before
     * writing (each game would write the whole record aside) and again
     * before the rename */
    bool theirs = csv_theirs(path), ok = !theirs && !(stat(path, &there) == 0 && !S_ISREG(there.st_mode));
    if (!ok && !theirs) fprintf(stderr, "ggp %s: cannot write %s: not a regular file\n", cmd, path);
    if (ok) ok = out_file_open(&o, cmd, path);
    if (ok) {
        n = trec_write_games(r, o.f);
        if (!o.tmp) errno = EINVAL; /* became a device meanwhile */
        fd = o.tmp ? fcntl(fileno(o.f), F_DUPFD_CLOEXEC, 0) : -1; /* the file's own description, kept past the commit */
        ok = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
        theirs = ok && csv_theirs(path);
        if (ok && !theirs) {
            ok = out_file_commit(&o);
        } else {
            if (!ok) fprintf(stderr, "ggp %s: cannot write %s: %s\n", cmd, path, strerror(errno));
            out_file_discard(&o);
            ok = false;
        }
    }
    /* the new file under f's descriptor, appending, so that f stays f (f
     * was flushed with its row: its buffer is empty) */
    int fl = ok ? fcntl(fd, F_GETFL) : -1;
    bool held = fl >= 0 && fcntl(fd, F_SETFL, fl | O_APPEND) == 0 && dup2(fd, fileno(f)) >= 0;
    if (held) (void)fcntl(fileno(f), F_SETFD, FD_CLOEXEC); /* as csv_lock opened it */
    if (theirs) {
        fprintf(stderr, "ggp %s: warning: %s was replaced while this run appended to it, and is in use by another run "
                        "(its lock is held): not written again%s\n", cmd, path, last ? "" : ": trying after the next game");
    } else if (!held) {
        if (ok) fprintf(stderr, "ggp %s: cannot write %s: %s\n", cmd, path, strerror(errno));
        fprintf(stderr, "ggp %s: warning: %s was removed or replaced while this run appended to it, and could not be "
                        "written again%s\n", cmd, path, last ? "" : ": trying after the next game");
    } else {
        fprintf(stderr, "ggp %s: warning: %s was removed or replaced while this run appended to it: written again "
                        "with the %u games finished so far\n", cmd, path, n);
    }
    if (fd >= 0) close(fd);
    return held;
}

/* Whether the file at path (size bytes) is the start of the header this
 * run would write, and nothing more: a run killed while it wrote the
 * header (a long one, a round robin's players, goes out in pieces) left
 * no game to keep, and --resume starts the file afresh. */
static bool head_cut(const trec_t *r, const char *path, size_t size)
{
    char *want = NULL;
    size_t want_len = 0;
    FILE *mem = open_memstream(&want, &want_len);
    if (!mem) return false;
    trec_write_head(r, mem);
    fclose(mem);
    bool cut = false;
    if (size < want_len) {
        FILE *in = fopen(path, "r");
        char *got = xmalloc(size + 1);
        cut = in && fread(got, 1, size, in) == size && !memcmp(got, want, size);
        if (in) fclose(in);
        free(got);
    }
    free(want);
    return cut;
}

FILE *trec_csv_resume(trec_t *r, const char *cmd, const char *path)
{
    int fd = csv_lock(cmd, path); /* before reading: another run could append meanwhile */
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size == 0) return csv_start_locked(r, cmd, path, fd);
    trec_file_t f;
    char err[1024];
    if (!trec_file_open(&f, path, err, sizeof err)) {
        if (head_cut(r, path, (size_t)st.st_size)) return csv_start_locked(r, cmd, path, fd);
        fprintf(stderr, "ggp %s: --resume: %s\n", cmd, err);
        close(fd);
        return NULL;
    }
    const char *differs = trec_meta_differs(&r->m, &f.m, true);
    bool ok = !differs;
    if (differs) fprintf(stderr, "ggp %s: --resume: %s:1: %s\n", cmd, path, differs);
    trec_game_t g;
    size_t i;
    for (int got; ok && (got = trec_file_next(&f, r, &i, &g, err, sizeof err)) != 0;) {
        ok = got > 0 && !r->games[i].done;
        if (got < 0) fprintf(stderr, "ggp %s: --resume: %s\n", cmd, err);
        else if (!ok) fprintf(stderr, "ggp %s: --resume: %s:%u: a second row for game %u\n", cmd, path, f.line, trec_number(r, i));
        else r->games[i] = g;
    }
    FILE *out = NULL;
    if (!ok) {
        /* reported */
    } else if (f.keep < f.src->len && ftruncate(fd, (off_t)f.keep) != 0) {
        fprintf(stderr, "ggp %s: cannot write %s: %s\n", cmd, path, strerror(errno));
    } else if (lseek(fd, 0, SEEK_END) < 0 || !(out = fdopen(fd, "a"))) {
        fprintf(stderr, "ggp %s: cannot write %s: %s\n", cmd, path, strerror(errno));
    }
    if (!out) close(fd);
    trec_file_close(&f);
    return out;
}
