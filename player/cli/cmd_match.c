/* cmd_match.c - `ggp match`: run one match between players over HTTP as a
 * game manager (player/manager/manager.h; shared/docs/gdl-protocol.md §5).
 * Built only with libcurl (GGP_HAVE_MANAGER): the player must not need it. */
#ifdef GGP_HAVE_MANAGER
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "gdl/sexpr.h"
#include "player/cli/commands.h"
#include "player/cli/common.h"
#include "player/cli/outfile.h"
#include "player/cli/trace_io.h"
#include "player/manager/http_client.h"
#include "player/manager/manager.h"
#include "player/proto/message.h"
#include "reasoner/game.h"

static const char match_help[] =
    "usage: ggp match FILE.kif --startclock S --playclock P [--out match.json]\n"
    "                 [--grace-ms G] [--connect-ms C] [--seed N] [--max-steps N]\n"
    "                 [--engine E] [--load-ms MS] [--memory MB] [--verbose] [--quiet]\n"
    "                 URL...\n"
    "\n"
    "Run one match of the game in FILE.kif between GGP players reached over HTTP,\n"
    "one URL per role in the order of the role facts (e.g. http://127.0.0.1:9147/).\n"
    "Every player gets START, then PLAY until the game ends, then STOP, all players\n"
    "at once. A reply that is late (clock + grace), missing, unparsable or illegal\n"
    "is replaced by a random legal move and recorded as TO, CE or 'IL <reply>'\n"
    "(CE: no connection, or an HTTP status other than 2xx). A player that cannot\n"
    "be reached at START aborts the match before it starts.\n"
    "\n"
    "  --startclock S   seconds for START (metagaming; at least 1)\n"
    "  --playclock P    seconds per move (at least 1)\n"
    "  --out FILE       the match record (GGP-Base JSON), rewritten after every\n"
    "                   step under a temporary name and renamed into place\n"
    "  --grace-ms G     network grace added to each clock (default 1000)\n"
    "  --connect-ms C   connect timeout (default 5000)\n"
    "  --seed N         seed of the substitute moves (default 1)\n"
    "  --max-steps N    abort a game longer than this (default 100000)\n"
    "  --engine E       the manager's reasoner: auto (default), propnet or rules\n"
    "                   (rules loads a monster's rules soonest)\n"
    "  --load-ms MS     load budget: past it the load fails naming the\n"
    "                   relation it was computing (default: none)\n"
    "  --memory MB      memory budget of loading (default 2048)\n"
    "  --verbose        one line per request on stderr (time, reply, error)\n"
    "  --quiet          no line per step\n"
    "\n"
    "Prints a line per step as it is played, 'step N: ROLE=MOVE ...' (a move\n"
    "that replaced a bad reply is followed by [TO], [CE] or [IL]). The last line\n"
    "is 'goals ROLE=V ...' for a completed match, or 'aborted: REASON' when a\n"
    "defect of the rules or a missing player stopped it. stderr gets one line per\n"
    "player: 'errors: URL: 3 TO, 1 CE' (or none).\n"
    "\n"
    "exit status: 0 match completed, 1 invalid rules or match aborted,\n"
    "             2 usage or I/O error\n";

/* START's rules list: every form of the file, as the file spells it, in
 * GGP-Base's spacing and without comments (GGP-Base's message tokenizer
 * does not know comments; §1.1). NULL if the file does not parse. */
static char *rules_text(const gdl_loaded_t *l)
{
    arena_t *a = arena_new(1 << 16);
    symtab_t *st = symtab_new();
    diag_t d;
    diag_init(&d, NULL);
    sexpr_t **forms;
    size_t n;
    char *buf = NULL;
    size_t len = 0;
    if (sx_parse(a, st, l->src, &d, &forms, &n) == 0) {
        FILE *f = open_memstream(&buf, &len);
        fputc('(', f);
        for (size_t i = 0; i < n; i++) {
            char *t = ggp_sx_text(st, forms[i], true);
            fprintf(f, " %s", t);
            free(t);
        }
        fputs(" )", f);
        fclose(f);
    }
    symtab_free(st);
    arena_free(a);
    return buf;
}

/* "ggp.<game>.<epoch ms>" with the game name reduced to safe characters. */
static char *make_match_id(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strcspn(base, ".");
    if (n > 60) n = 60;
    char name[64];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)base[i];
        name[k++] = (isalnum(c) || c == '_' || c == '-') ? (char)c : '_';
    }
    name[k] = '\0';
    char *id = xmalloc(k + 48);
    sprintf(id, "ggp.%s.%lld", k ? name : "game", (long long)clock_epoch_ms());
    return id;
}

/* After every step: a line "step N: role=move ..." (unless --quiet), and
 * the record (--out) rewritten whole. */
typedef struct record_sink {
    const char *path;
    bool in_place;  /* path is not a regular file (a device, a pipe): only the final record goes there */
    bool failed;    /* the last write failed (each failure reported once); the match goes on */
    bool reported;
    const game_t *g;
    FILE *steps;    /* stdout, or NULL with --quiet */
    size_t printed; /* steps printed so far */
} record_sink_t;

/* A recorded move "( mark 1 1 )" as the rules write it: "(mark 1 1)". */
static void print_move(const char *m, FILE *out)
{
    for (const char *p = m; *p; p++) {
        if ((p[0] == '(' && p[1] == ' ') || (p[0] == ' ' && p[1] == ')')) {
            fputc(p[0] == '(' ? '(' : ')', out);
            p++;
        } else {
            fputc(*p, out);
        }
    }
}

static void print_steps(record_sink_t *k, const match_record_t *rec)
{
    uint32_t nr = rec->n_roles;
    for (; k->printed + 1 < rec->n_states; k->printed++) {
        size_t s = k->printed;
        fprintf(k->steps, "step %zu:", s + 1);
        for (uint32_t r = 0; r < nr; r++) {
            fprintf(k->steps, " %s=", game_role_name(k->g, r));
            print_move(rec->moves[s * nr + r], k->steps);
            const char *e = rec->errors[(s + 1) * nr + r];
            if (*e) fprintf(k->steps, " [%.2s]", e); /* TO, CE or IL: the move is a substitute */
        }
        fputc('\n', k->steps);
    }
    /* stdout gone (ggp match | head): the match goes on without its lines */
    if (fflush(k->steps) != 0 || ferror(k->steps)) k->steps = NULL;
}

static void on_record(const match_record_t *rec, void *arg)
{
    record_sink_t *k = arg;
    if (k->steps) print_steps(k, rec);
    if (!k->path) return;
    bool last = rec->completed || rec->aborted;
    /* A record rewritten in place would be one JSON document per step;
     * after a failure, the steps wait for the final record, which is
     * always tried (a full disk or a missing folder may be back by then). */
    if (!last && (k->in_place || k->failed)) return;
    out_file_t o;
    bool ok = out_file_open(&o, k->reported ? NULL : "match", k->path); /* a failure is reported once */
    if (ok) {
        record_write_json(rec, o.f);
        ok = out_file_commit(&o);
    }
    k->failed = !ok;
    k->reported = k->reported || !ok;
}

/* "errors: URL: 3 TO, 1 CE, 2 IL" (or "none") for every player. */
static void print_error_summary(const match_record_t *rec, char *const *urls, FILE *out)
{
    static const char *const kinds[] = {"TO", "CE", "IL"};
    uint32_t nr = rec->n_roles;
    for (uint32_t r = 0; r < nr; r++) {
        unsigned count[3] = {0};
        for (size_t s = 0; s < rec->n_states; s++)
            for (int k = 0; k < 3; k++) count[k] += !strncmp(rec->errors[s * nr + r], kinds[k], 2);
        fprintf(out, "errors: %s:", urls[r]);
        const char *sep = " ";
        for (int k = 0; k < 3; k++) {
            if (!count[k]) continue;
            fprintf(out, "%s%u %s", sep, count[k], kinds[k]);
            sep = ", ";
        }
        fputs(*sep == ' ' ? " none\n" : "\n", out);
    }
}

int cmd_match(int argc, char **argv)
{
    /* A closed stdout (ggp match | head) or a pipe reader gone must not
     * end the match half played: the step lines stop, the match and its
     * record go on (print_steps). */
    signal(SIGPIPE, SIG_IGN);
    const char *out_path = NULL;
    /* The clocks are at least 1 s: 0 is "not given". */
    uint64_t start = 0, play = 0, grace = 1000, connect = 5000, seed = 1, max_steps = 100000;
    bool verbose = false, quiet = false;
    game_options_t opt = {.engine = ENGINE_AUTO, .quiet = true};
    const cli_opt_t opts[] = {
        CLI_OPT_FLAG("--verbose", NULL, &verbose),
        CLI_OPT_FLAG("--quiet", "-q", &quiet),
        CLI_OPT_U64("--startclock", &start, 1, 86400),
        CLI_OPT_U64("--playclock", &play, 1, 86400),
        CLI_OPT_STR("--out", &out_path),
        CLI_OPT_U64("--grace-ms", &grace, 0, 600000),
        CLI_OPT_U64("--connect-ms", &connect, 1, 600000),
        CLI_OPT_U64("--seed", &seed, 0, UINT64_MAX),
        CLI_OPT_U64("--max-steps", &max_steps, 1, 100000000),
        CLI_OPT_ENGINE(&opt.engine),
        CLI_OPT_BUDGETS(&opt),
    };
    cli_list_t args = {0}; /* the rule file, then the URLs */
    int rc;
    if (!cli_opts_parse("match", match_help, opts, sizeof opts / sizeof opts[0], argc, argv, &args, &rc)) return rc;
    rc = EXIT_USAGE;
    const char *file = args.n ? args.v[0] : NULL;
    /* The URLs are argv's strings, which are char *: the cast only gives
     * back what the list's const took. */
    char *const *urls = args.n ? (char *const *)args.v + 1 : NULL;
    uint32_t n_urls = args.n ? (uint32_t)args.n - 1 : 0;
    if (!file || !start || !play || n_urls == 0) {
        fprintf(stderr, "ggp match: need FILE.kif, --startclock, --playclock and one URL per role\n%s", match_help);
        goto out;
    }

    gdl_loaded_t l;
    game_t *g = cli_game_open("match", file, &opt, &l, &rc);
    if (!g) goto out;
    uint32_t nr = game_num_roles(g);
    char *rules = NULL;
    record_sink_t sink = {.path = out_path, .g = g, .steps = quiet ? NULL : stdout};
    struct stat out_st;
    sink.in_place = out_path && stat(out_path, &out_st) == 0 && !S_ISREG(out_st.st_mode);
    if (nr != n_urls) {
        fprintf(stderr, "ggp match: %s has %u role%s (", file, nr, nr == 1 ? "" : "s");
        for (uint32_t r = 0; r < nr; r++) fprintf(stderr, "%s%s", r ? " " : "", game_role_name(g, r));
        fprintf(stderr, ") but %u URL%s given\n", n_urls, n_urls == 1 ? " was" : "s were");
        goto done;
    }
    /* A record that cannot be created fails before any player is called. */
    out_file_t probe;
    if (out_path) {
        if (!out_file_open(&probe, "match", out_path)) goto done;
        out_file_discard(&probe);
    }
    rules = l.prog ? rules_text(&l) : NULL; /* a native game has no GDL to send */
    if (!rules) {
        fprintf(stderr, "ggp match: %s: cannot re-read the rules\n", file);
        goto done;
    }
    if (!http_client_init()) {
        fprintf(stderr, "ggp match: cannot initialise libcurl\n");
        goto done;
    }
    char *id = make_match_id(file);
    match_config_t cfg = {.match_id = id,
                          .rules_text = rules,
                          .start_clock = (uint32_t)start,
                          .play_clock = (uint32_t)play,
                          .grace_ms = grace,
                          .connect_ms = connect,
                          .urls = urls,
                          .seed = seed,
                          .max_steps = (uint32_t)max_steps,
                          .verbose = verbose ? stderr : NULL,
                          .on_record = on_record,
                          .on_record_arg = &sink};
    match_record_t rec;
    bool completed = manager_run(&cfg, g, &rec);
    http_client_cleanup();
    rc = sink.failed ? EXIT_USAGE : completed ? EXIT_OK : EXIT_FAIL;
    print_error_summary(&rec, urls, stderr);
    printf("match %s: %zu step%s\n", id, rec.n_states - 1, rec.n_states - 1 == 1 ? "" : "s");
    printf("errors");
    for (uint32_t r = 0; r < nr; r++) {
        unsigned bad = 0;
        for (size_t s = 0; s < rec.n_states; s++) bad += rec.errors[s * nr + r][0] != '\0';
        printf(" %s=%u", game_role_name(g, r), bad);
    }
    printf("\n");
    if (completed) {
        printf("goals");
        for (uint32_t r = 0; r < nr; r++) printf(" %s=%d", game_role_name(g, r), rec.goals[r]);
        printf("\n");
    } else {
        printf("aborted: %s\n", rec.abort_reason ? rec.abort_reason : "unknown reason");
    }
    record_free(&rec);
    free(id);
done:
    free(rules);
    game_free(g);
    gdl_loaded_free(&l);
out:
    cli_list_free(&args);
    return rc;
}

#else
typedef int ggp_cmd_match_unavailable_t; /* built without libcurl */
#endif
