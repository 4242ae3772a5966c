/* server.c - libmicrohttpd front end of the player (see server.h). */
#include "player/proto/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/clock.h"
#include "base/xalloc.h"

/* Idle seconds before a connection that sends nothing more is dropped. */
#define SERVER_IDLE_S 30
/* Connections served at once (each has a thread). */
#define SERVER_MAX_CONNECTIONS 64

struct server {
    server_config_t cfg;
    struct MHD_Daemon *daemon;
    uint16_t port;
};

typedef struct request {
    uint64_t arrival_ns;
    char *body;
    size_t len, cap;
    bool too_big;
    bool answered; /* a response was queued on the first call */
} request_t;

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

static void log_too_big(server_t *sv, const request_t *rq, const char *reason)
{
    session_log(sv->cfg.session, NULL, "?", MHD_HTTP_CONTENT_TOO_LARGE, reason, rq->arrival_ns, NULL);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    server_t *sv = cls;
    request_t *rq = *con_cls;
    char reason[160];
    if (!rq) {
        /* First call: only the headers are in. The clock starts here. */
        rq = xcalloc(1, sizeof *rq);
        rq->arrival_ns = clock_now_ns();
        *con_cls = rq;
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(cl, &end, 10);
            if (errno == 0 && end != cl && v > sv->cfg.max_body) {
                snprintf(reason, sizeof reason, "request body of %llu bytes is over the limit of %zu bytes", v,
                         sv->cfg.max_body);
                log_too_big(sv, rq, reason);
                rq->answered = true;
                return send_text(c, MHD_HTTP_CONTENT_TOO_LARGE, reason);
            }
        }
        return MHD_YES;
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
        XVEC_RESERVE(&rq->body, &rq->cap, rq->len + n + 1);
        memcpy(rq->body + rq->len, upload, n);
        rq->len += n;
        rq->body[rq->len] = '\0';
        return MHD_YES;
    }
    /* The whole request is in. */
    if (!strcmp(method, MHD_HTTP_METHOD_POST) || (!strcmp(method, MHD_HTTP_METHOD_GET) && url && url[0] && url[1])) {
        if (rq->too_big) {
            snprintf(reason, sizeof reason, "request body is over the limit of %zu bytes", sv->cfg.max_body);
            log_too_big(sv, rq, reason);
            return send_text(c, MHD_HTTP_CONTENT_TOO_LARGE, reason);
        }
        /* GET /<message>: libmicrohttpd has already unescaped the path. */
        const char *body = rq->body ? rq->body : "";
        size_t len = rq->len;
        if (!strcmp(method, MHD_HTTP_METHOD_GET)) {
            body = url + 1;
            len = strlen(body);
        }
        char *reply = NULL;
        int status = session_handle(sv->cfg.session, body, len, rq->arrival_ns, &reply);
        enum MHD_Result rc = send_text(c, (unsigned)status, reply);
        free(reply);
        return rc;
    }
    /* OPTIONS preflight and anything else: a blank 200 (§5.1). */
    return send_text(c, MHD_HTTP_OK, "");
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    request_t *rq = *con_cls;
    if (!rq) return;
    free(rq->body);
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

server_t *server_start(const server_config_t *cfg, char *err, size_t err_len)
{
    const char *bind = cfg->bind && *cfg->bind ? cfg->bind : "0.0.0.0";
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;
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
    sv->daemon = MHD_start_daemon(flags, cfg->port, NULL, NULL, on_request, sv, MHD_OPTION_SOCK_ADDR,
                                  (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
                                  (unsigned)SERVER_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
                                  (unsigned)SERVER_IDLE_S, MHD_OPTION_NOTIFY_COMPLETED, on_completed, sv,
                                  MHD_OPTION_EXTERNAL_LOGGER, on_mhd_error, sv, MHD_OPTION_END);
    if (!sv->daemon) {
        snprintf(err, err_len, "cannot listen on %s port %u (address in use or not available)", bind,
                 (unsigned)cfg->port);
        free(sv);
        return NULL;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(sv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    sv->port = di ? di->port : cfg->port;
    return sv;
}

uint16_t server_port(const server_t *sv) { return sv->port; }

void server_stop(server_t *sv)
{
    if (!sv) return;
    MHD_stop_daemon(sv->daemon);
    free(sv);
}
