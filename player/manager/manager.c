/* manager.c - running a match over HTTP and its record (see manager.h). */
#include "player/manager/manager.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/rng.h"
#include "base/xalloc.h"
#include "gdl/sexpr.h"
#include "player/manager/http_client.h"
#include "player/proto/message.h"

/* IL replies are recorded up to this many bytes. */
#define IL_MAX 512

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* KIF text with GGP-Base's spacing: "( mark 1 1 )". Malloc'd. */
static char *kif_spaced(const char *text)
{
    size_t n = strlen(text);
    char *out = xmalloc(3 * n + 1);
    size_t k = 0;
    bool need_space = false;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)text[i];
        if (isspace(c)) {
            i++;
            continue;
        }
        if (need_space) out[k++] = ' ';
        if (c == '(' || c == ')') {
            out[k++] = (char)c;
            i++;
        } else {
            while (i < n && !isspace((unsigned char)text[i]) && text[i] != '(' && text[i] != ')') out[k++] = text[i++];
        }
        need_space = true;
    }
    out[k] = '\0';
    return out;
}

/* ---- the record ---- */

static void record_add_state(match_record_t *rec, const game_t *g, const game_state_t *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    game_state_print(g, s, f, false);
    fclose(f);
    char *inner = kif_spaced(buf);
    free(buf);
    XVEC_RESERVE(&rec->states, &rec->cap_states, rec->n_states + 1);
    /* state_times and errors follow the capacity of states. */
    rec->state_times = xreallocarray(rec->state_times, rec->cap_states, sizeof *rec->state_times);
    rec->errors = xreallocarray(rec->errors, rec->cap_states * rec->n_roles, sizeof *rec->errors);
    rec->states[rec->n_states] = *inner ? xasprintf("( %s )", inner) : xstrdup("( )");
    free(inner);
    rec->state_times[rec->n_states] = clock_epoch_ms();
    for (uint32_t r = 0; r < rec->n_roles; r++) rec->errors[rec->n_states * rec->n_roles + r] = xstrdup("");
    rec->n_states++;
}

static void record_set_error(match_record_t *rec, size_t state, uint32_t role, char *text)
{
    char **slot = &rec->errors[state * rec->n_roles + role];
    free(*slot);
    *slot = text;
}

/* Length of the valid UTF-8 sequence at s (1 to 4 bytes), or 0 when it is
 * not one (stray continuation, overlong form, surrogate, beyond U+10FFFF,
 * cut short by the NUL). */
static size_t utf8_len(const unsigned char *s)
{
    size_t n;
    uint32_t min;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2, min = 0x80;
    else if ((s[0] & 0xf0) == 0xe0) n = 3, min = 0x800;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4) n = 4, min = 0x10000;
    else return 0;
    uint32_t cp = s[0] & (0x3fu >> (n - 1));
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    return cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0 : n;
}

/* JSON text is UTF-8 (RFC 8259 §8.1): characters are kept as they are, so
 * a reply in another script stays readable; a player's bytes need not be
 * UTF-8, and a byte that is not is replaced by U+FFFD so that the record
 * is always valid JSON. */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        unsigned char c = *p;
        size_t n = 1;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c == '\n') fputs("\\n", out);
        else if (c == '\t') fputs("\\t", out);
        else if (c == '\r') fputs("\\r", out);
        else if (c < 0x20 || c == 0x7f) fprintf(out, "\\u%04x", c);
        else if ((n = utf8_len(p)) != 0) fwrite(p, 1, n, out);
        else fputs("\xef\xbf\xbd", out), n = 1;
        p += n;
    }
    fputc('"', out);
}

/* An array of rows of strings: [["a","b"],["c","d"]]. */
static void json_rows(FILE *out, char *const *cells, size_t rows, uint32_t cols)
{
    fputc('[', out);
    for (size_t i = 0; i < rows; i++) {
        fputs(i ? ",\n [" : "[", out);
        for (uint32_t c = 0; c < cols; c++) {
            if (c) fputc(',', out);
            json_string(out, cells[i * cols + c]);
        }
        fputc(']', out);
    }
    fputc(']', out);
}

void record_write_json(const match_record_t *rec, FILE *out)
{
    fputs("{\"matchId\":", out);
    json_string(out, rec->match_id);
    fputs(",\"randomToken\":", out);
    json_string(out, rec->random_token);
    fprintf(out, ",\"startTime\":%lld,\"startClock\":%u,\"playClock\":%u,\"previewClock\":-1", (long long)rec->start_time,
            rec->start_clock, rec->play_clock);
    fprintf(out, ",\n\"isCompleted\":%s,\"isAborted\":%s", rec->completed ? "true" : "false",
            rec->aborted ? "true" : "false");
    if (rec->aborted && rec->abort_reason) {
        fputs(",\"abortReason\":", out);
        json_string(out, rec->abort_reason);
    }
    fputs(",\n\"states\":[", out);
    for (size_t i = 0; i < rec->n_states; i++) {
        if (i) fputs(",\n ", out);
        json_string(out, rec->states[i]);
    }
    fputs("],\n\"moves\":", out);
    json_rows(out, rec->moves, rec->n_states ? rec->n_states - 1 : 0, rec->n_roles);
    fputs(",\n\"errors\":", out);
    json_rows(out, rec->errors, rec->n_states, rec->n_roles);
    fputs(",\n\"stateTimes\":[", out);
    for (size_t i = 0; i < rec->n_states; i++) fprintf(out, "%s%lld", i ? "," : "", (long long)rec->state_times[i]);
    fputc(']', out);
    if (rec->completed) {
        fputs(",\n\"goalValues\":[", out);
        for (uint32_t r = 0; r < rec->n_roles; r++) fprintf(out, "%s%d", r ? "," : "", rec->goals[r]);
        fputc(']', out);
    }
    fputs(",\n\"playerNamesFromHost\":[", out);
    for (uint32_t r = 0; r < rec->n_roles; r++) {
        if (r) fputc(',', out);
        json_string(out, rec->player_names[r]);
    }
    fputs("],\"scrambled\":false}\n", out);
}

void record_free(match_record_t *rec)
{
    for (size_t i = 0; i < rec->n_states; i++) free(rec->states[i]);
    for (size_t i = 0; i < rec->n_states * rec->n_roles; i++) free(rec->errors[i]);
    for (size_t i = 0; rec->n_states && i < (rec->n_states - 1) * rec->n_roles; i++) free(rec->moves[i]);
    for (uint32_t r = 0; r < rec->n_roles && rec->player_names; r++) free(rec->player_names[r]);
    free(rec->player_names);
    free(rec->states);
    free(rec->state_times);
    free(rec->errors);
    free(rec->moves);
    free(rec->goals);
    free(rec->match_id);
    free(rec->abort_reason);
    *rec = (match_record_t){0};
}

/* ---- replies ---- */

/* Trim and parse a reply as exactly one term (pitfall 22). On success
 * returns the trimmed text (malloc'd); the caller checks legality. */
static char *reply_term(const char *body, size_t len)
{
    while (len && isspace((unsigned char)*body)) body++, len--;
    while (len && isspace((unsigned char)body[len - 1])) len--;
    if (!len) return NULL;
    kif_text_t k;
    kif_text_parse(&k, "<reply>", body, len);
    char *out = (k.errors == 0 && k.n == 1) ? xstrndup(body, len) : NULL;
    kif_text_free(&k);
    return out;
}

/* "IL <reply>" with the reply on one line and bounded. */
static char *il_text(const http_result_t *r)
{
    const char *b = r->body ? r->body : "";
    size_t len = r->len;
    while (len && isspace((unsigned char)*b)) b++, len--;
    while (len && isspace((unsigned char)b[len - 1])) len--;
    bool cut = len > IL_MAX;
    if (cut) len = IL_MAX;
    char *s = xmalloc(len + 8);
    memcpy(s, "IL ", 3);
    /* control bytes as '?': a NUL would end the text early ("IL a" for
     * the reply "a\0junk", a legal move recorded as illegal) */
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)b[i];
        s[3 + i] = ch == '\n' || ch == '\r' || ch == '\t' ? ' ' : ch < 0x20 || ch == 0x7f ? '?' : b[i];
    }
    strcpy(s + 3 + len, cut ? "..." : "");
    return s;
}

/* The name in an INFO reply ((name X) (status Y)), or NULL. */
static char *info_name(const char *body, size_t len)
{
    kif_text_t k;
    kif_text_parse(&k, "<info>", body, len);
    char *name = NULL;
    if (k.errors == 0 && k.n == 1 && k.forms[0]->is_list) {
        for (uint32_t i = 0; i < k.forms[0]->n && !name; i++) {
            const sexpr_t *x = k.forms[0]->items[i];
            if (x->is_list && x->n == 2 && !x->items[0]->is_list && !x->items[1]->is_list &&
                !strcmp(symtab_key(k.syms, x->items[0]->sym), "name"))
                name = xstrndup(body + x->items[1]->off, x->items[1]->end - x->items[1]->off);
        }
    }
    kif_text_free(&k);
    return name;
}

/* The error a transport outcome is recorded as: "TO", "CE", or NULL for
 * a reply. A reply with a status other than 2xx is the player's server
 * failing (a 500 page, a 404 for a wrong path), not a move. */
static const char *outcome_error(const http_result_t *res)
{
    if (res->outcome == HTTP_TIMEOUT) return "TO";
    if (res->outcome == HTTP_CONN_ERROR || res->status < 200 || res->status > 299) return "CE";
    return NULL;
}

static void log_request(const match_config_t *cfg, const char *what, uint32_t r, const http_result_t *res,
                        const char *err)
{
    if (!cfg->verbose) return;
    const char *kind = res->outcome == HTTP_REPLY ? "reply" : res->outcome == HTTP_TIMEOUT ? "timeout" : "conn-error";
    fprintf(cfg->verbose, "%s role %u (%s): %.0f ms %s", what, r, cfg->urls[r], res->ms, kind);
    if (res->outcome == HTTP_REPLY) fprintf(cfg->verbose, " %ld '%.100s'", res->status, res->body);
    else fprintf(cfg->verbose, " (%s)", res->error);
    if (err && *err) fprintf(cfg->verbose, " -> %s", err);
    fputc('\n', cfg->verbose);
    fflush(cfg->verbose);
}

/* ---- the match ---- */

static void send_all(const match_config_t *cfg, uint32_t n, char *body, uint64_t timeout_ms, http_result_t *res)
{
    char **bodies = xcalloc(n, sizeof *bodies);
    for (uint32_t r = 0; r < n; r++) bodies[r] = body;
    http_post_round(cfg->urls, bodies, n, timeout_ms, cfg->connect_ms, res);
    free(bodies);
}

/* The joint move as PLAY/STOP carry it: "( ( mark 1 1 ) noop )". */
static char *joint_text(const match_record_t *rec, size_t step)
{
    size_t len = 4;
    for (uint32_t r = 0; r < rec->n_roles; r++) len += strlen(rec->moves[step * rec->n_roles + r]) + 1;
    char *s = xmalloc(len + 1);
    strcpy(s, "(");
    for (uint32_t r = 0; r < rec->n_roles; r++) {
        strcat(s, " ");
        strcat(s, rec->moves[step * rec->n_roles + r]);
    }
    strcat(s, " )");
    return s;
}

static void abort_match(match_record_t *rec, char *reason)
{
    rec->aborted = true;
    rec->abort_reason = reason;
}

static void record_changed(const match_config_t *cfg, const match_record_t *rec)
{
    if (cfg->on_record) cfg->on_record(rec, cfg->on_record_arg);
}

/* START to every player. A player that cannot be reached is not in the
 * match: returns false with the match aborted (the others get ABORT from
 * the caller, only they). Other errors go to errors[0] (§5.4). */
static bool start_players(const match_config_t *cfg, const game_t *g, match_record_t *rec, http_result_t *res,
                          bool *reached)
{
    uint32_t nr = rec->n_roles;
    char **bodies = xcalloc(nr, sizeof *bodies);
    for (uint32_t r = 0; r < nr; r++)
        bodies[r] = xasprintf("( START %s %s %s %u %u )", cfg->match_id, game_role_name(g, r), cfg->rules_text,
                              cfg->start_clock, cfg->play_clock);
    http_post_round(cfg->urls, bodies, nr, (uint64_t)cfg->start_clock * 1000 + cfg->grace_ms, cfg->connect_ms, res);
    char *why = NULL;
    for (uint32_t r = 0; r < nr; r++) {
        const char *e = outcome_error(&res[r]);
        record_set_error(rec, 0, r, xstrdup(e ? e : ""));
        log_request(cfg, "start", r, &res[r], e);
        reached[r] = !e || res[r].outcome == HTTP_TIMEOUT;
        if (!reached[r]) {
            char *one = res[r].outcome == HTTP_REPLY
                            ? xasprintf("player %s (role %s) answered START with HTTP status %ld", cfg->urls[r],
                                        game_role_name(g, r), res[r].status)
                            : xasprintf("player %s (role %s) cannot be reached: %s", cfg->urls[r],
                                        game_role_name(g, r), res[r].error);
            char *both = why ? xasprintf("%s; %s", why, one) : NULL;
            free(why);
            why = both ? both : one;
            if (both) free(one);
        }
        http_result_free(&res[r]);
        free(bodies[r]);
    }
    free(bodies);
    if (why) abort_match(rec, why);
    return why == NULL;
}

bool manager_run(const match_config_t *cfg, const game_t *g, match_record_t *rec)
{
    uint32_t nr = game_num_roles(g);
    *rec = (match_record_t){0};
    rec->match_id = xstrdup(cfg->match_id);
    rec->start_time = clock_epoch_ms();
    rec->start_clock = cfg->start_clock;
    rec->play_clock = cfg->play_clock;
    rec->n_roles = nr;
    rec->goals = xcalloc(nr, sizeof *rec->goals);
    rng_t rng;
    rng_seed(&rng, rng_derive(cfg->seed, (uint64_t)rec->start_time));
    static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    for (int i = 0; i < 32; i++) rec->random_token[i] = alnum[rng_below(&rng, sizeof alnum - 1)];
    rng_seed(&rng, cfg->seed); /* substitute moves depend on the seed only */

    http_result_t *res = xcalloc(nr, sizeof *res);
    game_ctx_t *ctx = game_ctx_new(g);
    game_state_t *st = game_state_new(g);
    move_id_t *joint = xcalloc(nr, sizeof *joint);

    /* Names, from INFO (a short probe; the URL when there is no answer). */
    rec->player_names = xcalloc(nr, sizeof *rec->player_names);
    send_all(cfg, nr, "( INFO )", 1000 + cfg->grace_ms, res);
    for (uint32_t r = 0; r < nr; r++) {
        log_request(cfg, "info", r, &res[r], NULL);
        char *name = res[r].outcome == HTTP_REPLY ? info_name(res[r].body, res[r].len) : NULL;
        rec->player_names[r] = name ? name : xstrdup(cfg->urls[r]);
        http_result_free(&res[r]);
    }

    game_initial(ctx, st);
    game_ctx_set_state(ctx, st);
    record_add_state(rec, g, st);
    record_changed(cfg, rec);

    bool *reached = xcalloc(nr, sizeof *reached);
    start_players(cfg, g, rec, res, reached);

    size_t step = 0;
    while (!rec->aborted && !game_is_terminal(ctx)) {
        if (step >= cfg->max_steps) {
            abort_match(rec, xasprintf("the game did not end within %u step%s", cfg->max_steps,
                                             cfg->max_steps == 1 ? "" : "s"));
            break;
        }
        /* Substitutes drawn in advance (GGP-Base PlayRequestThread). */
        bool stuck = false;
        for (uint32_t r = 0; r < nr && !stuck; r++) {
            const move_id_t *moves;
            uint32_t n = game_legal(ctx, r, &moves);
            if (n == 0) {
                abort_match(rec, xasprintf("defect of the rules: role %s has no legal move in state %zu",
                                           game_role_name(g, r), step));
                stuck = true;
            } else {
                joint[r] = moves[rng_below(&rng, n)];
            }
        }
        if (stuck) break;
        char *moves_text = step ? joint_text(rec, step - 1) : xstrdup("NIL");
        char *body = xasprintf("( PLAY %s %s )", cfg->match_id, moves_text);
        free(moves_text);
        send_all(cfg, nr, body, (uint64_t)cfg->play_clock * 1000 + cfg->grace_ms, res);
        free(body);
        char what[32];
        snprintf(what, sizeof what, "play %zu", step + 1);
        char **errs = xcalloc(nr, sizeof *errs);
        for (uint32_t r = 0; r < nr; r++) {
            const char *e = outcome_error(&res[r]);
            if (e) {
                errs[r] = xstrdup(e);
            } else {
                char *term = res[r].truncated ? NULL : reply_term(res[r].body, res[r].len);
                move_id_t mv;
                if (term && game_move_from_text(ctx, r, term, strlen(term), &mv)) {
                    joint[r] = mv;
                    errs[r] = xstrdup("");
                } else {
                    errs[r] = il_text(&res[r]);
                }
                free(term);
            }
            log_request(cfg, what, r, &res[r], errs[r]);
            http_result_free(&res[r]);
        }
        rec->moves = xreallocarray(rec->moves, (step + 1) * nr, sizeof *rec->moves);
        for (uint32_t r = 0; r < nr; r++) rec->moves[step * nr + r] = kif_spaced(game_move_name(g, r, joint[r], false));
        game_ctx_play(ctx, joint);
        record_add_state(rec, g, game_ctx_state(ctx));
        for (uint32_t r = 0; r < nr; r++) record_set_error(rec, step + 1, r, errs[r]);
        free(errs);
        step++;
        record_changed(cfg, rec);
    }

    if (!rec->aborted) {
        for (uint32_t r = 0; r < nr && !rec->aborted; r++) {
            int v = game_goal(ctx, r);
            if (v < 0)
                abort_match(rec, xasprintf("defect of the rules: %s goal value for role %s in the final state",
                                           v == GAME_GOAL_MULTIPLE ? "more than one" : "no", game_role_name(g, r)));
            else
                rec->goals[r] = v;
        }
    }
    if (rec->aborted) {
        /* No STOP after an ABORT (pitfall 23); none to a player that
         * could not be reached at START (it would only time out again). */
        char *body = xasprintf("( ABORT %s )", cfg->match_id);
        char **bodies = xcalloc(nr, sizeof *bodies);
        for (uint32_t r = 0; r < nr; r++) bodies[r] = reached[r] ? body : NULL;
        http_post_round(cfg->urls, bodies, nr, 1000 + cfg->grace_ms, cfg->connect_ms, res);
        free(bodies);
        free(body);
        for (uint32_t r = 0; r < nr; r++) {
            if (reached[r]) log_request(cfg, "abort", r, &res[r], NULL);
            http_result_free(&res[r]);
        }
    } else {
        rec->completed = true;
        char *moves_text = step ? joint_text(rec, step - 1) : xstrdup("NIL");
        char *body = xasprintf("( STOP %s %s )", cfg->match_id, moves_text);
        free(moves_text);
        send_all(cfg, nr, body, (uint64_t)cfg->play_clock * 1000 + cfg->grace_ms, res);
        free(body);
        for (uint32_t r = 0; r < nr; r++) {
            log_request(cfg, "stop", r, &res[r], NULL);
            http_result_free(&res[r]);
        }
    }
    record_changed(cfg, rec);
    free(reached);
    free(joint);
    game_state_free(st);
    game_ctx_free(ctx);
    free(res);
    return rec->completed;
}
