/* message.c - parsing GGP protocol messages (see message.h). */
#include "player/proto/message.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

typedef struct head_word {
    const char *key;
    msg_kind_t kind;
    uint32_t n_items; /* including the head */
} head_word_t;

/* Forms of §5.2; the item counts are exact (a trailing explanation or a
 * message id is not part of the protocol we speak). */
static const head_word_t head_words[] = {
    {"info", MSG_INFO, 1},   {"ping", MSG_PING, 1}, {"preview", MSG_PREVIEW, 3}, {"start", MSG_START, 6},
    {"play", MSG_PLAY, 3},   {"stop", MSG_STOP, 3}, {"abort", MSG_ABORT, 2},
};

const char *ggp_msg_kind_name(msg_kind_t k)
{
    for (size_t i = 0; i < sizeof head_words / sizeof *head_words; i++)
        if (head_words[i].kind == k) return head_words[i].key;
    return "?";
}

static bool fail(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return false;
}

/* The exact bytes of an atom. */
static char *atom_bytes(const src_t *src, const sexpr_t *x)
{
    return xstrndup(src->text + x->off, x->end - x->off);
}

/* A clock: a decimal integer of seconds (§5.3). */
static bool parse_clock(const symtab_t *st, const sexpr_t *x, const char *what, uint32_t *out, char *err,
                        size_t err_len)
{
    long v;
    if (x->is_list || !symtab_int_value(st, x->sym, &v))
        return fail(err, err_len, "%s is not an integer number of seconds", what);
    if (v < 0 || v > (long)MSG_MAX_CLOCK_S)
        return fail(err, err_len, "%s %ld is out of range (0..%u seconds)", what, v, MSG_MAX_CLOCK_S);
    *out = (uint32_t)v;
    return true;
}

void kif_text_parse(kif_text_t *k, const char *name, const char *text, size_t len)
{
    k->arena = arena_new(4096);
    k->syms = symtab_new();
    k->src = src_new(name, text, len);
    diag_t d;
    diag_init(&d, NULL);
    k->errors = sx_parse(k->arena, k->syms, k->src, &d, &k->forms, &k->n);
}

void kif_text_free(kif_text_t *k)
{
    src_free(k->src);
    symtab_free(k->syms);
    arena_free(k->arena);
    *k = (kif_text_t){0};
}

void diag_capture_open(diag_capture_t *c, unsigned max_errors)
{
    c->text = NULL;
    c->len = 0;
    diag_init(&c->d, open_memstream(&c->text, &c->len));
    c->d.show_source = false;
    c->d.max_errors = max_errors;
}

void diag_capture_close(diag_capture_t *c)
{
    fclose(c->d.out);
    c->d.out = NULL;
    if (!c->text) c->text = xstrdup("");
}

void diag_first_error(const char *text, const char *prefix, char *out, size_t out_len)
{
    const char *p = strstr(text, "error: ");
    p = p ? p + 7 : text;
    snprintf(out, out_len, "%s: %.*s", prefix, (int)strcspn(p, "\n"), p);
}

bool ggp_msg_parse(const char *body, size_t len, ggp_msg_t *m, char *err, size_t err_len)
{
    *m = (ggp_msg_t){0};
    m->arena = arena_new(len < 4096 ? 4096 : 1 << 16);
    m->syms = symtab_new();
    m->src = src_new("<message>", body, len);

    diag_capture_t dc;
    diag_capture_open(&dc, 1);
    sexpr_t **forms;
    size_t n;
    unsigned errors = sx_parse(m->arena, m->syms, m->src, &dc.d, &forms, &n);
    diag_capture_close(&dc);
    bool ok = false;
    if (errors) {
        diag_first_error(dc.text, "malformed message", err, err_len);
        goto out;
    }
    if (n == 0) {
        fail(err, err_len, "empty message");
        goto out;
    }
    if (n > 1) {
        fail(err, err_len, "%zu forms in the message, expected one", n);
        goto out;
    }
    const sexpr_t *x = forms[0];
    if (!x->is_list || x->n == 0 || x->items[0]->is_list) {
        fail(err, err_len, "a message is a list starting with a word such as (info) or (play ...)");
        goto out;
    }
    const char *key = symtab_key(m->syms, x->items[0]->sym);
    const head_word_t *hw = NULL;
    for (size_t i = 0; i < sizeof head_words / sizeof *head_words; i++)
        if (!strcmp(head_words[i].key, key)) hw = &head_words[i];
    if (!hw) {
        fail(err, err_len, "unknown message '%.40s'", symtab_spelling(m->syms, x->items[0]->sym));
        goto out;
    }
    m->kind = hw->kind;
    if (x->n != hw->n_items) {
        fail(err, err_len, "%s takes %u argument%s, got %u", hw->key, hw->n_items - 1, hw->n_items == 2 ? "" : "s",
             x->n - 1);
        goto out;
    }
    switch (hw->kind) {
    case MSG_INFO:
    case MSG_PING:
        break;
    case MSG_PREVIEW:
        if (!x->items[1]->is_list) {
            fail(err, err_len, "preview: the rules must be a list");
            goto out;
        }
        m->rules = x->items[1];
        if (!parse_clock(m->syms, x->items[2], "preview clock", &m->start_clock, err, err_len)) goto out;
        break;
    case MSG_START:
        if (x->items[1]->is_list || x->items[2]->is_list) {
            fail(err, err_len, "start: the match id and the role must be words");
            goto out;
        }
        if (!x->items[3]->is_list) {
            fail(err, err_len, "start: the rules must be a list");
            goto out;
        }
        if (!parse_clock(m->syms, x->items[4], "start clock", &m->start_clock, err, err_len)) goto out;
        if (!parse_clock(m->syms, x->items[5], "play clock", &m->play_clock, err, err_len)) goto out;
        m->match_id = atom_bytes(m->src, x->items[1]);
        m->role = atom_bytes(m->src, x->items[2]);
        m->rules = x->items[3];
        break;
    case MSG_PLAY:
    case MSG_STOP:
    case MSG_ABORT:
        if (x->items[1]->is_list) {
            fail(err, err_len, "%s: the match id must be a word", hw->key);
            goto out;
        }
        m->match_id = atom_bytes(m->src, x->items[1]);
        if (hw->kind == MSG_ABORT) break;
        /* Any atom in the moves slot means "no moves" (§5.2). */
        if (!x->items[2]->is_list) {
            m->moves_nil = true;
            break;
        }
        m->n_moves = x->items[2]->n;
        m->moves = xcalloc(m->n_moves ? m->n_moves : 1, sizeof *m->moves);
        for (uint32_t i = 0; i < m->n_moves; i++) m->moves[i] = ggp_sx_text(m->syms, x->items[2]->items[i], false);
        break;
    }
    ok = true;
out:
    free(dc.text);
    if (!ok) ggp_msg_free(m);
    return ok;
}

void ggp_msg_take(ggp_msg_t *m, arena_t **arena, symtab_t **syms, src_t **src)
{
    *arena = m->arena;
    *syms = m->syms;
    *src = m->src;
    m->arena = NULL;
    m->syms = NULL;
    m->src = NULL;
}

void ggp_msg_free(ggp_msg_t *m)
{
    for (uint32_t i = 0; i < m->n_moves; i++) free(m->moves[i]);
    free(m->moves);
    free(m->match_id);
    free(m->role);
    src_free(m->src);
    symtab_free(m->syms);
    arena_free(m->arena);
    *m = (ggp_msg_t){0};
}

static void sx_text_rec(FILE *f, const symtab_t *st, const sexpr_t *x, bool spaced)
{
    if (!x->is_list) {
        fputs(symtab_spelling(st, x->sym), f);
        return;
    }
    fputs(spaced ? "( " : "(", f);
    for (uint32_t i = 0; i < x->n; i++) {
        if (i) fputc(' ', f);
        sx_text_rec(f, st, x->items[i], spaced);
    }
    fputs(spaced ? (x->n ? " )" : ")") : ")", f);
}

char *ggp_sx_text(const symtab_t *st, const sexpr_t *x, bool spaced)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sx_text_rec(f, st, x, spaced);
    fclose(f);
    return buf;
}
