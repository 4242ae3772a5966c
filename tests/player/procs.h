/* procs.h - child processes and fake players for the end-to-end protocol
 * tests: `ggp serve` started on a free loopback port (it prints the port),
 * always reaped; fake players on threads that never answer or answer
 * garbage; and a reader for the arrays of strings of a match record. Every
 * wait is bounded in count and time. */
#ifndef GGP_TESTS_PLAYER_PROCS_H
#define GGP_TESTS_PLAYER_PROCS_H

#include <fcntl.h>
#include <time.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "rawhttp.h"

/* Skips the test (cmocka's skip: reported as skipped, not passed) unless
 * this ggp was built with the game manager (libcurl, optional). */
static inline void procs_require_manager(void)
{
    if (tu_run(GGP_BIN " match --help", NULL) == 0) return;
    printf("note: ggp was built without libcurl (no 'ggp match'); skipping\n");
    skip();
}

/* ---- ggp serve children ---- */

#define PROCS_MAX 8
static pid_t procs_pids[PROCS_MAX];

typedef struct serve_proc {
    pid_t pid;
    uint16_t port;
    char url[64];
    char log_path[256];
} serve_proc_t;

static inline void procs_reap(pid_t pid)
{
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    for (int i = 0; i < 300; i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid) goto done;
        tu_sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
done:
    for (int i = 0; i < PROCS_MAX; i++)
        if (procs_pids[i] == pid) procs_pids[i] = 0;
}

/* Teardown for every test: no child outlives it. */
static inline int procs_reap_all(void **state)
{
    (void)state;
    for (int i = 0; i < PROCS_MAX; i++) procs_reap(procs_pids[i]);
    return 0;
}

/* Start `ggp serve --port 0 --bind 127.0.0.1 --log LOG --memory 256 <extra...>` and
 * read the port it prints. Returns false if it did not come up in 10 s. */
static inline bool serve_start(serve_proc_t *p, const char *log_path, const char *const *extra)
{
    memset(p, 0, sizeof *p);
    size_t ll = strlen(log_path);
    if (ll >= sizeof p->log_path) return false;
    memcpy(p->log_path, log_path, ll + 1);
    int fds[2];
    if (pipe(fds) != 0) return false;
    /* a 256 MB tree bound: the default (half the RAM, at most 4 GB) costs
     * the load about 1.5 s under AddressSanitizer (its shadow of the tree),
     * past these tests' 2 s start clocks on a busy CI machine */
    const char *argv[32] = {GGP_BIN, "serve", "--port", "0", "--bind", "127.0.0.1", "--log", log_path, "--memory", "256"};
    int n = 10;
    for (; extra && *extra && n < 30; extra++) argv[n++] = *extra;
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execv(GGP_BIN, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    p->pid = pid;
    for (int i = 0; i < PROCS_MAX; i++)
        if (!procs_pids[i]) {
            procs_pids[i] = pid;
            break;
        }
    bool eof;
    char line[256] = "";
    size_t len = 0;
    uint64_t end = clock_now_ns() + 10000000000ULL;
    while (!strchr(line, '\n') && clock_now_ns() < end && len + 1 < sizeof line) {
        struct pollfd pf = {.fd = fds[0], .events = POLLIN};
        if (poll(&pf, 1, 100) <= 0) continue;
        ssize_t k = read(fds[0], line + len, sizeof line - 1 - len);
        if (k <= 0) break;
        len += (size_t)k;
        line[len] = '\0';
    }
    (void)eof;
    close(fds[0]);
    const char *colon = strrchr(line, ':');
    if (!strstr(line, "listening on 127.0.0.1:") || !colon) return false;
    p->port = (uint16_t)atoi(colon + 1);
    snprintf(p->url, sizeof p->url, "http://127.0.0.1:%u/", (unsigned)p->port);
    return p->port != 0;
}

/* Lines of a file that contain needle. */
static inline int count_lines_with(const char *path, const char *needle)
{
    char *text = tu_read_file(path);
    if (!text) return 0;
    int n = 0;
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        if (strstr(line, needle)) n++;
    }
    free(text);
    return n;
}

/* ---- fake players ---- */

/* SILENT never answers; GARBAGE answers "( bogus move" to everything;
 * HTTP500, UTF8 and NUL answer START with "ready", then every other request
 * with HTTP 500 and the body "noop" (a legal move for the role not in
 * control), with "h\xc3\xa9llo\xff" (UTF-8, then a byte that is not), or
 * with "noop\0junk" (a legal move, a NUL, more). */
typedef enum { FAKE_SILENT, FAKE_GARBAGE, FAKE_HTTP500, FAKE_UTF8, FAKE_NUL } fake_kind_t;

typedef struct fake_player {
    fake_kind_t kind;
    int listen_fd;
    uint16_t port;
    char url[64];
    atomic_bool stop;
    atomic_int requests;
    int held[64]; /* FAKE_SILENT: connections kept open, unanswered */
    int n_held;
    /* called with the request's number (1 = the first) before it is
     * answered, on the fake's thread; or NULL (set before fake_start's
     * thread sees a request: fake_start_hooked) */
    void (*hook)(int request, void *arg);
    void *hook_arg;
    pthread_t thread;
} fake_player_t;

/* Read one request (headers and Content-Length bytes), bounded. Returns
 * whether it was a START. */
static inline bool fake_read_request(int fd)
{
    bool eof;
    char buf[1 << 16];
    size_t len = 0;
    uint64_t end = clock_now_ns() + 3000000000ULL;
    while (clock_now_ns() < end && len + 1 < sizeof buf) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, 50) <= 0) continue;
        ssize_t k = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (k <= 0) break;
        len += (size_t)k;
        buf[len] = '\0';
        char *body = strstr(buf, "\r\n\r\n");
        char *cl = NULL;
        for (char *q = buf; *q && !cl; q++)
            if (!strncasecmp(q, "Content-Length:", 15)) cl = q;
        if (body && cl && (size_t)(buf + len - (body + 4)) >= (size_t)atol(cl + 15)) break;
    }
    (void)eof;
    buf[len] = '\0';
    return strstr(buf, "( START ") != NULL;
}

static inline void fake_reply_len(int fd, int status, const char *body, size_t len)
{
    char head[256];
    int n = snprintf(head, sizeof head, "HTTP/1.0 %d %s\r\nContent-Type: text/acl\r\nContent-Length: %zu\r\n\r\n",
                     status, status == 200 ? "OK" : "Internal Server Error", len);
    raw_send(fd, head, (size_t)n);
    raw_send(fd, body, len);
}

static inline void fake_reply(int fd, int status, const char *body) { fake_reply_len(fd, status, body, strlen(body)); }

static inline void *fake_main(void *arg)
{
    fake_player_t *f = arg;
    while (!atomic_load(&f->stop)) {
        struct pollfd pf = {.fd = f->listen_fd, .events = POLLIN};
        if (poll(&pf, 1, 50) <= 0) continue;
        int c = accept(f->listen_fd, NULL, NULL);
        if (c < 0) continue;
        int nth = atomic_fetch_add(&f->requests, 1) + 1;
        if (f->hook) f->hook(nth, f->hook_arg);
        if (f->kind == FAKE_SILENT && f->n_held < 64) {
            f->held[f->n_held++] = c;
            continue;
        }
        bool is_start = fake_read_request(c);
        if (f->kind == FAKE_GARBAGE) fake_reply(c, 200, "( bogus move");
        else if (is_start) fake_reply(c, 200, "ready");
        else if (f->kind == FAKE_HTTP500) fake_reply(c, 500, "noop");
        else if (f->kind == FAKE_NUL) fake_reply_len(c, 200, "noop\0junk", 9);
        else fake_reply(c, 200, "h\xc3\xa9llo\xff");
        close(c);
    }
    for (int i = 0; i < f->n_held; i++) close(f->held[i]);
    return NULL;
}

static inline bool fake_start_hooked(fake_player_t *f, fake_kind_t kind, void (*hook)(int, void *), void *arg)
{
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->hook = hook;
    f->hook_arg = arg;
    f->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (bind(f->listen_fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(f->listen_fd, 16) != 0 ||
        getsockname(f->listen_fd, (struct sockaddr *)&a, &al) != 0)
        return false;
    f->port = ntohs(a.sin_port);
    snprintf(f->url, sizeof f->url, "http://127.0.0.1:%u/", (unsigned)f->port);
    return pthread_create(&f->thread, NULL, fake_main, f) == 0;
}

static inline bool fake_start(fake_player_t *f, fake_kind_t kind) { return fake_start_hooked(f, kind, NULL, NULL); }

static inline void fake_stop(fake_player_t *f)
{
    atomic_store(&f->stop, true);
    pthread_join(f->thread, NULL);
    close(f->listen_fd);
}

/* ---- reading the match record ---- */

/* The strings of the JSON value after "key": an array of strings or an
 * array of arrays of strings, flattened; *rows gets the number of inner
 * arrays (or 1 for a flat array). Returns the count, -1 if absent. */
static inline int json_strings(const char *json, const char *key, char ***out, int *rows)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    *out = NULL;
    *rows = 0;
    if (!p) return -1;
    p += strlen(pat);
    int depth = 0, n = 0, cap = 0;
    bool nested = false;
    do {
        if (*p == '[') {
            depth++;
            if (depth == 2) {
                nested = true;
                (*rows)++;
            }
        } else if (*p == ']') {
            depth--;
        } else if (*p == '"') {
            char *s = malloc(strlen(p));
            size_t k = 0;
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1]) p++;
                s[k++] = *p;
            }
            s[k] = '\0';
            if (n == cap) *out = realloc(*out, (size_t)(cap = cap ? 2 * cap : 16) * sizeof **out);
            (*out)[n++] = s;
        } else if (!*p) {
            break;
        }
        p++;
    } while (depth > 0);
    if (!nested) *rows = 1;
    return n;
}

static inline void json_strings_free(char **s, int n)
{
    for (int i = 0; i < n; i++) free(s[i]);
    free(s);
}

/* A scratch folder for a test group (cmocka group setup and teardown), and
 * paths in it. */
static inline char *procs_tmpdir(void)
{
    static char dir[256];
    return dir;
}

static inline int procs_make_tmpdir(void **state)
{
    (void)state;
    memcpy(procs_tmpdir(), "/tmp/ggp_test_XXXXXX", sizeof "/tmp/ggp_test_XXXXXX");
    return mkdtemp(procs_tmpdir()) ? 0 : -1;
}

static inline int procs_remove_tmpdir(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", procs_tmpdir());
    return system(cmd) == 0 ? 0 : -1;
}

#endif
