/* hostile.h - a thread that holds hostile connections open against one or
 * more loopback ports, re-opening each one the server closes: idle sockets
 * that never send a byte, slowloris requests that send one more header byte
 * every second, and POSTs whose body stops after a few bytes and then
 * trickles (issue 13; shared/docs/gdl-protocol.md §5.1). Bounded in count
 * (HOSTILE_MAX) and in re-connections per tick; loopback only. */
#ifndef GGP_TESTS_PLAYER_HOSTILE_H
#define GGP_TESTS_PLAYER_HOSTILE_H

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <time.h>

#include "rawhttp.h"

#define HOSTILE_MAX 2048
/* (Re-)connections per second: enough to refill what the server drops at
 * once, bounded so that the test's own churn does not eat the shared CPU. */
#define HOSTILE_CONNECTS_PER_S 2000

typedef enum { HOSTILE_IDLE, HOSTILE_SLOWLORIS, HOSTILE_HALF_BODY } hostile_kind_t;

typedef struct hostile_conn {
    int fd;            /* -1: to be (re)opened */
    uint16_t port;
    hostile_kind_t kind;
    bool head_sent;    /* the first bytes are out */
    uint64_t next_ns;  /* next trickled byte */
    uint64_t opened_ns;
} hostile_conn_t;

typedef struct hostile {
    hostile_conn_t conns[HOSTILE_MAX];
    int n;
    atomic_bool stop;
    atomic_int opened;           /* connections made, re-connections included */
    atomic_int closed_by_server; /* EOF or reset seen from the server */
    atomic_int open_now;
    atomic_int max_open;
    atomic_uint_fast64_t max_life_ms; /* longest life of a connection the server closed */
    pthread_t thread;
} hostile_t;

/* How many sockets this process may still open, keeping `reserve` for
 * everything else; raises the soft limit to the hard one first. */
static inline int hostile_fd_budget(int reserve)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1000000) return 1000000;
    return (int)rl.rlim_cur > reserve ? (int)rl.rlim_cur - reserve : 0;
}

static inline void hostile_open(hostile_t *h, hostile_conn_t *k, uint64_t now)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0) return;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(k->port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EINPROGRESS) {
        close(fd);
        return;
    }
    k->fd = fd;
    k->head_sent = false;
    k->opened_ns = now;
    k->next_ns = now + 1000000000ULL;
    atomic_fetch_add(&h->opened, 1);
    int open = atomic_fetch_add(&h->open_now, 1) + 1;
    if (open > atomic_load(&h->max_open)) atomic_store(&h->max_open, open);
}

static inline void hostile_close(hostile_t *h, hostile_conn_t *k, bool by_server, uint64_t now)
{
    close(k->fd);
    k->fd = -1;
    atomic_fetch_sub(&h->open_now, 1);
    if (!by_server) return;
    atomic_fetch_add(&h->closed_by_server, 1);
    uint64_t life = (now - k->opened_ns) / 1000000ULL;
    if (life > atomic_load(&h->max_life_ms)) atomic_store(&h->max_life_ms, life);
}

/* Send the opening bytes, then one more byte a second. A failed send
 * (not connected yet, buffer full) is tried again on a later tick. */
static inline void hostile_feed(hostile_conn_t *k, uint64_t now)
{
    static const char slow_head[] = "POST / HTTP/1.0\r\nHost: 127.0.0.1\r\nX-Slow: ";
    static const char body_head[] = "POST / HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: text/acl\r\n"
                                    "Content-Length: 4000\r\n\r\n( play m1 ";
    if (k->kind == HOSTILE_IDLE) return;
    if (!k->head_sent) {
        const char *head = k->kind == HOSTILE_SLOWLORIS ? slow_head : body_head;
        size_t len = k->kind == HOSTILE_SLOWLORIS ? sizeof slow_head - 1 : sizeof body_head - 1;
        if (send(k->fd, head, len, MSG_NOSIGNAL) == (ssize_t)len) k->head_sent = true;
        return;
    }
    if (now < k->next_ns) return;
    if (send(k->fd, "a", 1, MSG_NOSIGNAL) == 1) k->next_ns = now + 1000000000ULL;
}

static inline void *hostile_main(void *arg)
{
    hostile_t *h = arg;
    struct pollfd *pf = calloc((size_t)h->n, sizeof *pf);
    uint64_t t0 = clock_now_ns();
    int64_t made = 0;
    while (!atomic_load(&h->stop)) {
        uint64_t now = clock_now_ns();
        int64_t allowed = (int64_t)((now - t0) / 1000000ULL) * HOSTILE_CONNECTS_PER_S / 1000 + 100;
        for (int i = 0; i < h->n; i++) {
            hostile_conn_t *k = &h->conns[i];
            if (k->fd < 0 && made < allowed) {
                hostile_open(h, k, now);
                made++;
            }
            if (k->fd >= 0) hostile_feed(k, now);
            pf[i] = (struct pollfd){.fd = k->fd, .events = POLLIN};
        }
        if (poll(pf, (nfds_t)h->n, 50) <= 0) continue;
        now = clock_now_ns();
        for (int i = 0; i < h->n; i++) {
            hostile_conn_t *k = &h->conns[i];
            if (k->fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[512];
            ssize_t r = recv(k->fd, buf, sizeof buf, MSG_DONTWAIT);
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) hostile_close(h, k, true, now);
        }
    }
    for (int i = 0; i < h->n; i++)
        if (h->conns[i].fd >= 0) hostile_close(h, &h->conns[i], false, 0);
    free(pf);
    return NULL;
}

/* Hold n connections, spread over the ports and the three kinds. */
static inline bool hostile_start(hostile_t *h, int n, const uint16_t *ports, int n_ports)
{
    memset(h, 0, sizeof *h);
    h->n = n < HOSTILE_MAX ? n : HOSTILE_MAX;
    for (int i = 0; i < h->n; i++) {
        h->conns[i].fd = -1;
        h->conns[i].port = ports[i % n_ports];
        h->conns[i].kind = (hostile_kind_t)((i / n_ports) % 3);
    }
    return pthread_create(&h->thread, NULL, hostile_main, h) == 0;
}

static inline void hostile_stop(hostile_t *h)
{
    atomic_store(&h->stop, true);
    pthread_join(h->thread, NULL);
}

#endif
