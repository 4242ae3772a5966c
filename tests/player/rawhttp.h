/* rawhttp.h - a minimal HTTP client on raw sockets for the protocol tests:
 * it sends exactly the bytes given (HTTP/1.0, odd headers, partial or
 * oversized bodies) and reads until the server closes, as the Dresden
 * GameController does. Loopback only; every wait is bounded. */
#ifndef GGP_TESTS_PLAYER_RAWHTTP_H
#define GGP_TESTS_PLAYER_RAWHTTP_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"

/* A connected socket to 127.0.0.1:port, or -1. */
static inline int raw_connect(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static inline bool raw_send(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        len -= (size_t)n;
    }
    return true;
}

/* Read until EOF or until timeout_ms pass; returns what was read
 * (malloc'd, NUL-terminated); *eof says whether the server closed. */
static inline char *raw_read_all(int fd, int timeout_ms, bool *eof)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    *eof = false;
    uint64_t end = clock_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
    for (;;) {
        uint64_t now = clock_now_ns();
        if (now >= end) break;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = (int)((end - now) / 1000000ULL) + 1;
        if (poll(&p, 1, left) <= 0) continue;
        if (len + 1024 > cap) buf = realloc(buf, cap *= 2);
        ssize_t n = recv(fd, buf + len, cap - len - 1, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            *eof = true;
            break;
        }
        len += (size_t)n;
    }
    buf[len] = '\0';
    return buf;
}

/* One whole exchange: connect, send, read until close. NULL if the
 * connection failed. */
static inline char *raw_exchange(uint16_t port, const char *req, size_t len, int timeout_ms, bool *eof)
{
    int fd = raw_connect(port);
    if (fd < 0) return NULL;
    raw_send(fd, req, len);
    char *r = raw_read_all(fd, timeout_ms, eof);
    close(fd);
    return r;
}

/* A POST of body, in GGP-Base's form (§5.1), with the given version. */
static inline char *raw_post(uint16_t port, const char *version, const char *body, int timeout_ms, bool *eof)
{
    size_t n = strlen(body);
    char *req = malloc(n + 512);
    int k = sprintf(req,
                    "POST / HTTP/%s\r\nAccept: text/delim\r\nHost: localhost\r\nSender: GAMESERVER\r\n"
                    "Receiver: ggp\r\nContent-Type: text/acl\r\nContent-Length: %zu\r\n\r\n%s",
                    version, n, body);
    char *r = raw_exchange(port, req, (size_t)k, timeout_ms, eof);
    free(req);
    return r;
}

/* The body of a response (after the blank line), or "". */
static inline const char *raw_body(const char *resp)
{
    const char *p = resp ? strstr(resp, "\r\n\r\n") : NULL;
    return p ? p + 4 : "";
}

/* The status code of a response, or -1. */
static inline int raw_status(const char *resp)
{
    int code;
    if (!resp || sscanf(resp, "HTTP/%*d.%*d %d", &code) != 1) return -1;
    return code;
}

/* Whether the response head has the header line (case-insensitive name). */
static inline bool raw_has_header(const char *resp, const char *name, const char *value)
{
    const char *end = strstr(resp, "\r\n\r\n");
    size_t nl = strlen(name);
    for (const char *p = strstr(resp, "\r\n"); p && (!end || p < end); p = strstr(p + 2, "\r\n")) {
        const char *h = p + 2;
        if (!strncasecmp(h, name, nl) && h[nl] == ':') {
            const char *v = h + nl + 1;
            while (*v == ' ') v++;
            size_t vl = strcspn(v, "\r");
            if (!value || (strlen(value) == vl && !strncmp(v, value, vl))) return true;
        }
    }
    return false;
}

#endif
