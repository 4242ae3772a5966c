/* server.c - libmicrohttpd front end of the player (see server.h).
 *
 * One epoll thread of libmicrohttpd does all the socket I/O, so an idle or
 * slow connection costs a socket and a small buffer, never a thread. A
 * complete request is suspended and handed to a thread of its own, which
 * runs session_handle (it blocks until the move is chosen) and resumes the
 * connection with the reply. Beside libmicrohttpd's list we keep our own
 * table of connections, oldest first, to enforce what an idle timeout
 * cannot (issue 13): absolute header and body deadlines, a limit per client
 * address, and room for new connections made by dropping the oldest
 * unfinished ones, so that the game manager is never locked out. */
#include "player/proto/server.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/xalloc.h"

/* Connections held at most (before the fd limit lowers it): idle ones cost
 * a socket and libmicrohttpd's lazily touched buffer each. */
#define SERVER_MAX_CONNECTIONS 2048
/* Descriptors left for the log, rule files and the rest of the process. */
#define SERVER_FD_RESERVE 64
/* Slots libmicrohttpd keeps above our limit: a drop takes effect at its
 * next loop, and a new connection must be accepted meanwhile. */
#define SERVER_SPARE 32
/* Connections one client address may hold (IPv6: one /64). */
#define SERVER_PER_ADDRESS 256
/* From accept to the end of the headers, and from there to the end of the
 * body. GGP-Base sends a request in one write right after connecting
 * (§5.1), and a 70 KB START takes well under a second on any link. */
#define SERVER_HEADER_MS 4000
#define SERVER_BODY_MS 4000
/* From queuing a reply to closing: the reply is a few hundred bytes. */
#define SERVER_REPLY_MS 4000
/* libmicrohttpd's buffer per connection. Over 32 KB it is mmap'd rather
 * than malloc'd, so that connections opened and dropped by the hundred
 * thousand leave no fragments on the heap (RSS stays flat, bench/soak.sh);
 * only the pages a request touches are resident. */
#define SERVER_CONNECTION_MEMORY (64 * 1024)
/* libmicrohttpd's idle timeout, only a backstop behind the deadlines. */
#define SERVER_IDLE_S 30
/* Requests answered at once (each on its own thread): a PLAY holds one
 * for its play clock; beyond this a request is answered 503 busy. */
#define SERVER_MAX_WORKERS 32
/* Only START and PREVIEW carry rules: any other message over this is
 * refused as it arrives (413), not buffered up to the body limit. Bodies
 * over it are parsed at most SERVER_MAX_LARGE at a time (the reader's
 * nodes take about 40 times a body: 32 workers on 8 MB bodies were 10 GB),
 * the rest answered 503 busy. */
#define SERVER_SMALL_BODY (64 * 1024)
#define SERVER_MAX_LARGE 2

typedef enum conn_stage {
    CONN_HEADERS, /* accepted, headers not complete */
    CONN_BODY,    /* headers in, body arriving */
    CONN_BUSY,    /* complete, in session_handle: no deadline */
    CONN_REPLY,   /* reply queued, being sent */
} conn_stage_t;

/* One accepted connection (libmicrohttpd's socket context). Fields are
 * guarded by server.mu; the list is in accept order, oldest first. */
typedef struct conn {
    struct conn *prev, *next;
    int fd;
    uint8_t key[16];    /* client address as IPv6 (IPv4 mapped), /64 for IPv6 */
    uint64_t accept_ns; /* no byte of the request can be earlier (§5.3) */
    uint64_t stage_ns;  /* when the current stage began */
    conn_stage_t stage;
    bool dropped;       /* shut down by us; libmicrohttpd closes it next */
} conn_t;

struct server {
    server_config_t cfg;
    struct MHD_Daemon *daemon;
    uint16_t port;
    unsigned limit;      /* connections held before the oldest unfinished is dropped */
    unsigned per_address;
    uint64_t header_ns, body_ns;
    pthread_mutex_t mu;
    pthread_cond_t cv;   /* monotonic: the sweeper's wake-ups, workers ending */
    conn_t *head, *tail;
    unsigned n_live;     /* connections in the list not dropped */
    unsigned n_workers;
    unsigned n_large; /* of them, large requests (SERVER_MAX_LARGE) */
    bool stopping;
    uint64_t sweep_at;   /* when the sweeper wakes next */
    pthread_t sweeper;
    server_counts_t counts;
};

typedef struct request {
    conn_t *conn;       /* NULL only if libmicrohttpd gave no socket context */
    uint64_t arrival_ns;
    char *body;
    size_t len, cap;
    bool too_big;
    bool large;         /* over SERVER_SMALL_BODY: counted in n_large while handled */
    bool not_rules;     /* refused as too big for a message that carries no rules */
    bool answered;      /* a response was queued */
    bool has_reply;     /* the worker has set status and reply */
    int status;
    char *reply;
} request_t;

typedef struct job {
    server_t *sv;
    struct MHD_Connection *c;
    request_t *rq;
} job_t;

/* ---- the connection table ---- */

static void addr_key(uint8_t key[16], const struct sockaddr *sa)
{
    memset(key, 0, 16);
    if (!sa) return;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in4 = (const struct sockaddr_in *)(const void *)sa;
        key[10] = key[11] = 0xff;
        memcpy(key + 12, &in4->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        memcpy(key, &in6->sin6_addr, 16);
        /* One host gets a whole /64: count it as one address. A mapped
         * IPv4 address (dual stack) stays whole, as its own IPv4 does. */
        if (!IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) memset(key + 8, 0, 8);
    }
}

/* When k's current stage runs out (UINT64_MAX: never). */
static uint64_t conn_due(const server_t *sv, const conn_t *k)
{
    switch (k->stage) {
    case CONN_HEADERS:
        return k->stage_ns + sv->header_ns;
    case CONN_BODY:
        return k->stage_ns + sv->body_ns;
    case CONN_REPLY:
        return k->stage_ns + (uint64_t)SERVER_REPLY_MS * 1000000ULL;
    case CONN_BUSY:
        break;
    }
    return UINT64_MAX;
}

/* Shut the socket down; libmicrohttpd sees the end of stream at its next
 * loop and closes it. Safe from any thread under mu: the descriptor is
 * closed only after on_connection(CLOSED) has taken k out of the list. */
static void drop(server_t *sv, conn_t *k, uint64_t *counter)
{
    if (!k || k->dropped) return;
    shutdown(k->fd, SHUT_RDWR);
    k->dropped = true;
    sv->n_live--;
    (*counter)++;
}

static void set_stage(server_t *sv, conn_t *k, conn_stage_t stage)
{
    if (!k) return;
    pthread_mutex_lock(&sv->mu);
    k->stage = stage;
    k->stage_ns = clock_now_ns();
    if (conn_due(sv, k) < sv->sweep_at) pthread_cond_broadcast(&sv->cv);
    pthread_mutex_unlock(&sv->mu);
}

/* The oldest connection still reading its request, other than skip, of
 * the given address (NULL: any). Requests being answered are never taken. */
static conn_t *oldest_unfinished(server_t *sv, const conn_t *skip, const uint8_t *key)
{
    for (conn_t *k = sv->head; k; k = k->next)
        if (k != skip && !k->dropped && k->stage <= CONN_BODY && (!key || !memcmp(k->key, key, 16))) return k;
    return NULL;
}

/* A new connection came in: keep its address under its limit and the total
 * under ours by dropping the oldest unfinished connections. The newcomer
 * is never the one dropped, so a game manager that connects and sends at
 * once (§5.1) always gets in, even from the address of the attacker (all
 * of loopback is 127.0.0.1); its request is done long before it would
 * become the oldest. */
static void make_room(server_t *sv, conn_t *newcomer)
{
    unsigned same = 0;
    for (conn_t *k = sv->head; k; k = k->next)
        if (!k->dropped && !memcmp(k->key, newcomer->key, 16)) same++;
    if (same > sv->per_address)
        drop(sv, oldest_unfinished(sv, newcomer, newcomer->key), &sv->counts.dropped_room);
    if (sv->n_live > sv->limit) drop(sv, oldest_unfinished(sv, newcomer, NULL), &sv->counts.dropped_room);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    server_t *sv = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        conn_t *k = xcalloc(1, sizeof *k);
        const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ad = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        k->fd = fd ? fd->connect_fd : -1;
        addr_key(k->key, ad ? ad->client_addr : NULL);
        k->accept_ns = k->stage_ns = clock_now_ns();
        k->stage = CONN_HEADERS;
        *socket_context = k;
        pthread_mutex_lock(&sv->mu);
        k->prev = sv->tail;
        if (sv->tail) sv->tail->next = k;
        else sv->head = k;
        sv->tail = k;
        sv->n_live++;
        sv->counts.accepted++;
        if (k->fd < 0) drop(sv, k, &sv->counts.dropped_room); /* cannot happen; never track a bad fd */
        make_room(sv, k);
        if (conn_due(sv, k) < sv->sweep_at) pthread_cond_broadcast(&sv->cv);
        pthread_mutex_unlock(&sv->mu);
        return;
    }
    conn_t *k = *socket_context;
    if (!k) return;
    pthread_mutex_lock(&sv->mu);
    if (k->prev) k->prev->next = k->next;
    else sv->head = k->next;
    if (k->next) k->next->prev = k->prev;
    else sv->tail = k->prev;
    if (!k->dropped) sv->n_live--;
    pthread_mutex_unlock(&sv->mu);
    free(k);
    *socket_context = NULL;
}

/* Drop the connections past their deadline; sleep until the next one is
 * due (at most 1 s, and woken earlier when a sooner one appears). */
static void *sweeper_main(void *arg)
{
    server_t *sv = arg;
    pthread_mutex_lock(&sv->mu);
    while (!sv->stopping) {
        uint64_t now = clock_now_ns(), next = now + 1000000000ULL;
        for (conn_t *k = sv->head; k; k = k->next) {
            if (k->dropped) continue;
            uint64_t due = conn_due(sv, k);
            if (due <= now) drop(sv, k, &sv->counts.dropped_late);
            else if (due < next) next = due;
        }
        sv->sweep_at = next;
        struct timespec ts = {.tv_sec = (time_t)(next / 1000000000ULL), .tv_nsec = (long)(next % 1000000000ULL)};
        pthread_cond_timedwait(&sv->cv, &sv->mu, &ts);
    }
    pthread_mutex_unlock(&sv->mu);
    return NULL;
}

/* ---- requests ---- */

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    size_t n = strlen(text);
    struct MHD_Response *r = MHD_create_response_from_buffer(n, (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    /* GGP-Base's player headers (§5.1); close after every reply (pitfall 14). */
    if (n) MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/acl");
    MHD_add_response_header(r, "Access-Control-Allow-Origin", "*");
    MHD_add_response_header(r, "Access-Control-Allow-Methods", "POST, GET, OPTIONS");
    MHD_add_response_header(r, "Access-Control-Allow-Headers", "Content-Type");
    MHD_add_response_header(r, "Access-Control-Allow-Age", "86400");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    MHD_set_response_options(r, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END);
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* Queue a reply now (from libmicrohttpd's thread). */
static enum MHD_Result reply_now(server_t *sv, struct MHD_Connection *c, request_t *rq, unsigned status,
                                 const char *text)
{
    rq->answered = true;
    set_stage(sv, rq->conn, CONN_REPLY);
    return send_text(c, status, text);
}

static void log_refusal(server_t *sv, const request_t *rq, int status, const char *reason)
{
    session_log(sv->cfg.session, NULL, "?", status, reason, rq->arrival_ns, NULL);
}

/* A worker has resumed its connection; server_stop may be waiting. */
static void worker_done(server_t *sv, bool large)
{
    pthread_mutex_lock(&sv->mu);
    sv->n_workers--;
    if (large) sv->n_large--;
    pthread_cond_broadcast(&sv->cv);
    pthread_mutex_unlock(&sv->mu);
}

static void *worker_main(void *arg)
{
    job_t *j = arg;
    server_t *sv = j->sv;
    request_t *rq = j->rq;
    char *reply = NULL;
    rq->status = session_handle(sv->cfg.session, rq->body ? rq->body : "", rq->len, rq->arrival_ns, &reply);
    rq->reply = reply;
    rq->has_reply = true;
    bool large = rq->large;
    /* From here on rq belongs to libmicrohttpd's thread again: it calls
     * on_request, which queues the reply, and on_completed frees rq. */
    MHD_resume_connection(j->c);
    free(j);
    worker_done(sv, large);
    return NULL;
}

/* Hand a complete request to a thread of its own: session_handle blocks
 * until its deadline, and libmicrohttpd's thread must go on serving. */
static enum MHD_Result dispatch(server_t *sv, struct MHD_Connection *c, request_t *rq)
{
    pthread_mutex_lock(&sv->mu);
    bool late = rq->conn && rq->conn->dropped;
    bool large = rq->len > SERVER_SMALL_BODY;
    bool ok = !late && !sv->stopping && sv->n_workers < SERVER_MAX_WORKERS && (!large || sv->n_large < SERVER_MAX_LARGE);
    if (ok) {
        sv->n_workers++;
        sv->n_large += large;
        rq->large = large;
        if (rq->conn) {
            rq->conn->stage = CONN_BUSY;
            rq->conn->stage_ns = clock_now_ns();
        }
    }
    pthread_mutex_unlock(&sv->mu);
    if (late) return MHD_NO; /* dropped by the sweeper meanwhile: close */
    if (!ok) {
        log_refusal(sv, rq, MHD_HTTP_SERVICE_UNAVAILABLE,
                    large ? "too many large requests at once" : "too many requests at once");
        return reply_now(sv, c, rq, MHD_HTTP_SERVICE_UNAVAILABLE, "busy");
    }
    job_t *j = xcalloc(1, sizeof *j);
    *j = (job_t){.sv = sv, .c = c, .rq = rq};
    MHD_suspend_connection(c);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int rc = pthread_create(&t, &attr, worker_main, j);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        free(j);
        rq->status = MHD_HTTP_SERVICE_UNAVAILABLE;
        rq->reply = xstrdup("busy");
        rq->has_reply = true;
        bool lg = rq->large;
        MHD_resume_connection(c);
        worker_done(sv, lg);
    }
    return MHD_YES;
}

/* Whether a message's head word (the text starts "(word") is START or
 * PREVIEW, the messages that carry rules (any case: Dresden upper-cases
 * whole messages). */
static bool carries_rules(const char *b, size_t n)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)b[i])) i++;
    if (i == n || b[i++] != '(') return false;
    while (i < n && isspace((unsigned char)b[i])) i++;
    size_t w = i;
    while (i < n && isalpha((unsigned char)b[i])) i++;
    size_t len = i - w;
    if (i == n || !(isspace((unsigned char)b[i]) || b[i] == '(' || b[i] == ')')) return false;
    return (len == 5 && !strncasecmp(b + w, "start", 5)) || (len == 7 && !strncasecmp(b + w, "preview", 7));
}

/* First call: only the headers are in. */
static enum MHD_Result on_headers(server_t *sv, struct MHD_Connection *c, void **con_cls)
{
    request_t *rq = xcalloc(1, sizeof *rq);
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    rq->conn = ci ? ci->socket_context : NULL;
    /* The reply deadline counts from the request's first byte (§5.3). We
     * close after every reply, so a connection carries one request, and
     * its first byte came no earlier than the accept: counting from there
     * never gives us more time than the manager does, whatever the queue
     * or a slow client did to the headers. */
    rq->arrival_ns = rq->conn ? rq->conn->accept_ns : clock_now_ns();
    *con_cls = rq;
    set_stage(sv, rq->conn, CONN_BODY);
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(cl, &end, 10);
        if (errno == 0 && end != cl && v > sv->cfg.max_body) {
            char reason[160];
            snprintf(reason, sizeof reason, "request body of %llu bytes is over the limit of %zu bytes", v,
                     sv->cfg.max_body);
            log_refusal(sv, rq, MHD_HTTP_CONTENT_TOO_LARGE, reason);
            return reply_now(sv, c, rq, MHD_HTTP_CONTENT_TOO_LARGE, reason);
        }
    }
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    server_t *sv = cls;
    request_t *rq = *con_cls;
    if (!rq) return on_headers(sv, c, con_cls);
    if (rq->has_reply) {
        /* Resumed by its worker: send what the session answered. */
        rq->has_reply = false;
        enum MHD_Result rc = reply_now(sv, c, rq, (unsigned)rq->status, rq->reply);
        free(rq->reply);
        rq->reply = NULL;
        return rc;
    }
    if (rq->answered) {
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (rq->too_big || rq->len + n > sv->cfg.max_body) {
            /* Chunked or lying about its length: drop the rest, answer at the end. */
            rq->too_big = true;
            return MHD_YES;
        }
        bool was_small = rq->len <= SERVER_SMALL_BODY;
        XVEC_RESERVE(&rq->body, &rq->cap, rq->len + n + 1);
        memcpy(rq->body + rq->len, upload, n);
        rq->len += n;
        rq->body[rq->len] = '\0';
        if (was_small && rq->len > SERVER_SMALL_BODY && !carries_rules(rq->body, rq->len)) {
            rq->too_big = rq->not_rules = true; /* answered 413 at the end; the rest is dropped */
            free(rq->body);
            rq->body = NULL;
            rq->len = rq->cap = 0;
        }
        return MHD_YES;
    }
    /* The whole request is in. */
    bool is_get = !strcmp(method, MHD_HTTP_METHOD_GET);
    if (!strcmp(method, MHD_HTTP_METHOD_POST) || (is_get && url && url[0] && url[1])) {
        if (rq->too_big) {
            char reason[160];
            if (rq->not_rules)
                snprintf(reason, sizeof reason,
                         "request body is over %d bytes: only START and PREVIEW (they carry rules) may be longer",
                         SERVER_SMALL_BODY);
            else
                snprintf(reason, sizeof reason, "request body is over the limit of %zu bytes", sv->cfg.max_body);
            log_refusal(sv, rq, MHD_HTTP_CONTENT_TOO_LARGE, reason);
            return reply_now(sv, c, rq, MHD_HTTP_CONTENT_TOO_LARGE, reason);
        }
        if (is_get) {
            /* GET /<message>: libmicrohttpd has already unescaped the path. */
            free(rq->body);
            rq->body = xstrdup(url + 1);
            rq->len = strlen(rq->body);
        }
        return dispatch(sv, c, rq);
    }
    /* OPTIONS preflight and anything else: a blank 200 (§5.1). */
    return reply_now(sv, c, rq, MHD_HTTP_OK, "");
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    request_t *rq = *con_cls;
    if (!rq) return;
    free(rq->body);
    free(rq->reply);
    free(rq);
    *con_cls = NULL;
}

static void on_mhd_error(void *cls, const char *fmt, va_list ap)
{
    /* libmicrohttpd reports bind failures and broken clients here; the
     * reasons that matter reach the user through server_start's err. */
    (void)cls;
    (void)fmt;
    (void)ap;
}

/* ---- the daemon ---- */

/* Connections we may hold: the configured limit, else ours lowered to what
 * the descriptor limit leaves (each connection is one descriptor). */
static unsigned connection_limit(const server_config_t *cfg)
{
    if (cfg->max_connections) return cfg->max_connections;
    unsigned limit = SERVER_MAX_CONNECTIONS;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        rlim_t spent = SERVER_FD_RESERVE + SERVER_SPARE;
        rlim_t room = rl.rlim_cur > spent + 16 ? rl.rlim_cur - spent : 16;
        if (room < limit) limit = (unsigned)room;
    }
    return limit;
}

static void server_free(server_t *sv)
{
    pthread_cond_destroy(&sv->cv);
    pthread_mutex_destroy(&sv->mu);
    free(sv);
}

server_t *server_start(const server_config_t *cfg, char *err, size_t err_len)
{
    const char *bind = cfg->bind && *cfg->bind ? cfg->bind : "0.0.0.0";
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, bind, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons(cfg->port);
    } else if (inet_pton(AF_INET6, bind, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(cfg->port);
        /* "::" accepts IPv4 too (pitfall 19). */
        flags |= !strcmp(bind, "::") ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
    } else {
        snprintf(err, err_len, "bad bind address '%s' (expected a numeric IPv4 or IPv6 address)", bind);
        return NULL;
    }
    server_t *sv = xcalloc(1, sizeof *sv);
    sv->cfg = *cfg;
    sv->limit = connection_limit(cfg);
    sv->per_address = cfg->per_address ? cfg->per_address : SERVER_PER_ADDRESS;
    sv->header_ns = (uint64_t)(cfg->header_ms ? cfg->header_ms : SERVER_HEADER_MS) * 1000000ULL;
    sv->body_ns = (uint64_t)(cfg->body_ms ? cfg->body_ms : SERVER_BODY_MS) * 1000000ULL;
    sv->sweep_at = UINT64_MAX;
    pthread_mutex_init(&sv->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sv->cv, &ca);
    pthread_condattr_destroy(&ca);
    sv->daemon = MHD_start_daemon(
        flags, cfg->port, NULL, NULL, on_request, sv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
        MHD_OPTION_CONNECTION_LIMIT, sv->limit + SERVER_SPARE, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVER_IDLE_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVER_CONNECTION_MEMORY,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, sv, MHD_OPTION_NOTIFY_COMPLETED, on_completed, sv,
        MHD_OPTION_EXTERNAL_LOGGER, on_mhd_error, sv, MHD_OPTION_END);
    if (!sv->daemon) {
        snprintf(err, err_len, "cannot listen on %s port %u (address in use or not available)", bind,
                 (unsigned)cfg->port);
        server_free(sv);
        return NULL;
    }
    if (pthread_create(&sv->sweeper, NULL, sweeper_main, sv) != 0) {
        snprintf(err, err_len, "cannot start a thread");
        MHD_stop_daemon(sv->daemon);
        server_free(sv);
        return NULL;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(sv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    sv->port = di ? di->port : cfg->port;
    return sv;
}

uint16_t server_port(const server_t *sv) { return sv->port; }

void server_counts(server_t *sv, server_counts_t *out)
{
    pthread_mutex_lock(&sv->mu);
    *out = sv->counts;
    out->open = sv->n_live;
    pthread_mutex_unlock(&sv->mu);
}

void server_stop(server_t *sv)
{
    if (!sv) return;
    pthread_mutex_lock(&sv->mu);
    sv->stopping = true;
    pthread_cond_broadcast(&sv->cv);
    pthread_mutex_unlock(&sv->mu);
    pthread_join(sv->sweeper, NULL);
    /* No new connections; the requests being answered finish and resume
     * their connections (libmicrohttpd must not be stopped with a
     * connection suspended); new requests get 503 meanwhile. */
    MHD_socket listen_fd = MHD_quiesce_daemon(sv->daemon);
    pthread_mutex_lock(&sv->mu);
    while (sv->n_workers) pthread_cond_wait(&sv->cv, &sv->mu);
    pthread_mutex_unlock(&sv->mu);
    MHD_stop_daemon(sv->daemon);
    if (listen_fd != MHD_INVALID_SOCKET) close(listen_fd);
    server_free(sv);
}
