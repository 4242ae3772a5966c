/* http_client.c - parallel POSTs with libcurl (see http_client.h). */
#include "player/manager/http_client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/xalloc.h"

typedef struct post_job {
    const char *url;
    const char *body;
    uint64_t timeout_ms, connect_ms;
    http_result_t *res;
    size_t cap;
} post_job_t;

bool http_client_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }

void http_client_cleanup(void) { curl_global_cleanup(); }

static size_t on_data(char *data, size_t size, size_t nmemb, void *arg)
{
    post_job_t *j = arg;
    http_result_t *r = j->res;
    size_t n = size * nmemb;
    size_t room = HTTP_REPLY_MAX - r->len;
    size_t take = n < room ? n : room;
    XVEC_RESERVE(&r->body, &j->cap, r->len + take + 1);
    memcpy(r->body + r->len, data, take);
    r->len += take;
    r->body[r->len] = '\0';
    if (take < n) {
        r->truncated = true;
        return 0; /* stop reading: CURLE_WRITE_ERROR */
    }
    return n;
}

static void *post_one(void *arg)
{
    post_job_t *j = arg;
    http_result_t *r = j->res;
    uint64_t t0 = clock_now_ns();
    CURL *c = curl_easy_init();
    if (!c) {
        r->outcome = HTTP_CONN_ERROR;
        snprintf(r->error, sizeof r->error, "cannot create a curl handle");
        return NULL;
    }
    struct curl_slist *h = NULL;
    h = curl_slist_append(h, "Content-Type: text/acl");
    h = curl_slist_append(h, "Expect:");
    h = curl_slist_append(h, "Accept: text/delim");
    h = curl_slist_append(h, "Sender: GAMESERVER");
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, j->url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, j->body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(j->body));
    curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_0);
    curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
    curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)j->timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)j->connect_ms);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, j);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    CURLcode rc = curl_easy_perform(c);
    r->ms = (double)(clock_now_ns() - t0) / 1e6;
    if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && r->truncated)) {
        r->outcome = HTTP_REPLY;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
        if (!r->body) r->body = xstrdup("");
    } else {
        /* A timeout before the connection was made (a player whose
         * listen queue is full, a host that drops packets) is a player
         * that cannot be reached, not one that was slow to answer: START
         * aborts the match on it (manager.h) instead of playing on with
         * substitute moves. */
        curl_off_t connected_us = 0;
        bool never = rc == CURLE_OPERATION_TIMEDOUT &&
                     curl_easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &connected_us) == CURLE_OK && connected_us == 0;
        r->outcome = rc == CURLE_OPERATION_TIMEDOUT && !never ? HTTP_TIMEOUT : HTTP_CONN_ERROR;
        snprintf(r->error, sizeof r->error, "%.150s", *errbuf ? errbuf : curl_easy_strerror(rc));
        free(r->body);
        r->body = NULL;
        r->len = 0;
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

void http_post_round(char *const *urls, char *const *bodies, uint32_t n, uint64_t timeout_ms, uint64_t connect_ms,
                     http_result_t *results)
{
    post_job_t *jobs = xcalloc(n ? n : 1, sizeof *jobs);
    pthread_t *threads = xcalloc(n ? n : 1, sizeof *threads);
    bool *started = xcalloc(n ? n : 1, sizeof *started);
    for (uint32_t i = 0; i < n; i++) {
        results[i] = (http_result_t){0};
        jobs[i] = (post_job_t){.url = urls[i],
                               .body = bodies[i],
                               .timeout_ms = timeout_ms,
                               .connect_ms = connect_ms < timeout_ms ? connect_ms : timeout_ms,
                               .res = &results[i]};
        if (!bodies[i]) {
            results[i].outcome = HTTP_CONN_ERROR;
            snprintf(results[i].error, sizeof results[i].error, "not sent");
            continue;
        }
        started[i] = pthread_create(&threads[i], NULL, post_one, &jobs[i]) == 0;
        if (!started[i]) post_one(&jobs[i]); /* no thread: do it here */
    }
    for (uint32_t i = 0; i < n; i++)
        if (started[i]) pthread_join(threads[i], NULL);
    free(started);
    free(threads);
    free(jobs);
}

void http_result_free(http_result_t *r)
{
    free(r->body);
    *r = (http_result_t){0};
}
