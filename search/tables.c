/* tables.c - interning of (role, move) keys and joint moves, and the MAST
 * table (grave-spec §2.2, §3.3, §9).
 *
 * Keys are dense and given in order of first use, so AMAF tables, MAST and
 * the marginal tables of simultaneous nodes can be arrays; the rules engine
 * may discover new moves during a match, so every table here grows. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "search/search_internal.h"

void keys_init(keys_t *ks, uint32_t k)
{
    memset(ks, 0, sizeof *ks);
    ks->k = k;
    ks->of = xcalloc(k ? k : 1, sizeof *ks->of);
    ks->of_len = xcalloc(k ? k : 1, sizeof *ks->of_len);
}

void keys_free(keys_t *ks)
{
    for (uint32_t r = 0; r < ks->k; r++) free(ks->of[r]);
    free(ks->of);
    free(ks->of_len);
    free(ks->role);
    free(ks->move);
    memset(ks, 0, sizeof *ks);
}

uint32_t keys_get(keys_t *ks, uint32_t role, uint32_t move)
{
    if (move >= ks->of_len[role]) {
        uint32_t len = ks->of_len[role] ? ks->of_len[role] : 16;
        while (len <= move) len *= 2;
        ks->of[role] = xreallocarray(ks->of[role], len, sizeof **ks->of);
        for (uint32_t i = ks->of_len[role]; i < len; i++) ks->of[role][i] = NIL;
        ks->of_len[role] = len;
    }
    uint32_t *slot = &ks->of[role][move];
    if (*slot == NIL) {
        if (ks->n == ks->cap) {
            ks->cap = ks->cap ? ks->cap * 2 : 64;
            ks->role = xreallocarray(ks->role, ks->cap, sizeof *ks->role);
            ks->move = xreallocarray(ks->move, ks->cap, sizeof *ks->move);
        }
        ks->role[ks->n] = role;
        ks->move[ks->n] = move;
        *slot = ks->n++;
    }
    return *slot;
}

/* ---- joint moves ----------------------------------------------------------- */

void joints_init(joints_t *j, uint32_t k)
{
    memset(j, 0, sizeof *j);
    j->k = k;
}

void joints_free(joints_t *j)
{
    free(j->moves);
    free(j->table);
    memset(j, 0, sizeof *j);
}

static uint64_t joint_hash(const uint32_t *m, uint32_t k)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (uint32_t i = 0; i < k; i++) h = (h ^ m[i]) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

static void joints_rehash(joints_t *j, uint32_t tcap)
{
    free(j->table);
    j->table = xmalloc((size_t)tcap * sizeof *j->table);
    for (uint32_t i = 0; i < tcap; i++) j->table[i] = NIL;
    j->tcap = tcap;
    for (uint32_t id = 0; id < j->n; id++) {
        uint32_t i = (uint32_t)joint_hash(j->moves + (size_t)id * j->k, j->k) & (tcap - 1);
        while (j->table[i] != NIL) i = (i + 1) & (tcap - 1);
        j->table[i] = id;
    }
}

uint32_t joints_find(const joints_t *j, const uint32_t *joint)
{
    if (!j->tcap) return NIL;
    uint32_t mask = j->tcap - 1;
    for (uint32_t i = (uint32_t)joint_hash(joint, j->k) & mask;; i = (i + 1) & mask) {
        uint32_t id = j->table[i];
        if (id == NIL || !memcmp(j->moves + (size_t)id * j->k, joint, (size_t)j->k * sizeof *joint)) return id;
    }
}

uint32_t joints_intern(joints_t *j, const uint32_t *joint)
{
    if ((j->n + 1) * 2 > j->tcap) joints_rehash(j, j->tcap ? j->tcap * 2 : 64);
    uint32_t mask = j->tcap - 1;
    for (uint32_t i = (uint32_t)joint_hash(joint, j->k) & mask;; i = (i + 1) & mask) {
        uint32_t id = j->table[i];
        if (id == NIL) {
            if (j->n == j->cap) {
                j->cap = j->cap ? j->cap * 2 : 64;
                j->moves = xreallocarray(j->moves, (size_t)j->cap * j->k, sizeof *j->moves);
            }
            memcpy(j->moves + (size_t)j->n * j->k, joint, (size_t)j->k * sizeof *joint);
            j->table[i] = j->n;
            return j->n++;
        }
        if (!memcmp(j->moves + (size_t)id * j->k, joint, (size_t)j->k * sizeof *joint)) return id;
    }
}

/* ---- MAST ------------------------------------------------------------------ */

void mast_init(mast_t *m) { memset(m, 0, sizeof *m); }

void mast_free(mast_t *m)
{
    free(m->n);
    free(m->w);
    free(m->q);
    memset(m, 0, sizeof *m);
}

void mast_clear(mast_t *m)
{
    if (!m->cap) return;
    memset(m->n, 0, (size_t)m->cap * sizeof *m->n);
    memset(m->w, 0, (size_t)m->cap * sizeof *m->w);
    for (uint32_t i = 0; i < m->cap; i++) m->q[i] = 1.0;
}

void mast_reserve(mast_t *m, uint32_t keys)
{
    if (keys <= m->cap) return;
    uint32_t cap = m->cap ? m->cap : 64;
    while (cap < keys) cap *= 2;
    m->n = xreallocarray(m->n, cap, sizeof *m->n);
    m->w = xreallocarray(m->w, cap, sizeof *m->w);
    m->q = xreallocarray(m->q, cap, sizeof *m->q);
    memset(m->n + m->cap, 0, (size_t)(cap - m->cap) * sizeof *m->n);
    memset(m->w + m->cap, 0, (size_t)(cap - m->cap) * sizeof *m->w);
    for (uint32_t i = m->cap; i < cap; i++) m->q[i] = 1.0;
    m->cap = cap;
}

/* Keep a fraction gamma of every count and sum (spec §9, §16 A16). */
void mast_decay(mast_t *m, double gamma)
{
    for (uint32_t i = 0; i < m->cap; i++) {
        m->n[i] *= gamma;
        m->w[i] *= gamma;
        m->q[i] = m->n[i] > 0 ? m->w[i] / m->n[i] : 1.0; /* as computed from n and w */
    }
}

/* ---- NST: 2-grams of keys --------------------------------------------------- */

void nst_init(nst_t *t, uint32_t max)
{
    uint32_t m = 64;
    while (m < max && m < NST_MAX) m *= 2;
    if (m > max && m > 64) m /= 2; /* a power of two, at most max (64 at least) */
    *t = (nst_t){.max = m};
}

void nst_free(nst_t *t)
{
    free(t->tag);
    free(t->n);
    free(t->w);
    *t = (nst_t){0};
}

void nst_clear(nst_t *t)
{
    uint32_t max = t->max;
    nst_free(t);
    t->max = max;
}

void nst_decay(nst_t *t, double gamma)
{
    for (uint32_t i = 0; i < t->cap; i++) {
        t->n[i] *= gamma;
        t->w[i] *= gamma;
    }
}

static inline uint64_t nst_tag(uint32_t prev, uint32_t key) { return ((uint64_t)prev << 32 | key) + 1; }
static inline uint32_t nst_home(uint64_t tag, uint32_t cap)
{
    return (uint32_t)((tag * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1); /* Fibonacci hashing */
}

/* The slot of tag, or of the free slot where it would go (cap > 0). */
static uint32_t nst_slot(const nst_t *t, uint64_t tag)
{
    uint32_t mask = t->cap - 1, i = nst_home(tag, t->cap);
    while (t->tag[i] && t->tag[i] != tag) i = (i + 1) & mask;
    return i;
}

static void nst_grow(nst_t *t)
{
    nst_t old = *t;
    t->cap = old.cap ? old.cap * 2 : t->max < 512 ? 2 * t->max : 1024; /* cap <= 2 * max */
    t->tag = xcalloc(t->cap, sizeof *t->tag);
    t->n = xcalloc(t->cap, sizeof *t->n);
    t->w = xcalloc(t->cap, sizeof *t->w);
    for (uint32_t i = 0; i < old.cap; i++)
        if (old.tag[i]) {
            uint32_t j = nst_slot(t, old.tag[i]);
            t->tag[j] = old.tag[i];
            t->n[j] = old.n[i];
            t->w[j] = old.w[i];
        }
    free(old.tag);
    free(old.n);
    free(old.w);
}

void nst_add(nst_t *t, uint32_t prev, uint32_t key, double z)
{
    uint64_t tag = nst_tag(prev, key);
    uint32_t i = t->cap ? nst_slot(t, tag) : 0;
    if (!t->cap || !t->tag[i]) { /* a new pair */
        if (t->used >= t->max) return;
        if (!t->cap || (t->used + 1) * 2 > t->cap) {
            nst_grow(t);
            i = nst_slot(t, tag);
        }
        t->tag[i] = tag;
        t->used++;
    }
    t->n[i] += 1;
    t->w[i] += z;
}

bool nst_q(const nst_t *t, uint32_t prev, uint32_t key, double *q)
{
    if (!t->cap) return false;
    uint32_t i = nst_slot(t, nst_tag(prev, key));
    if (!t->tag[i] || t->n[i] < NST_MIN_VISITS) return false;
    *q = t->w[i] / t->n[i];
    return true;
}
