#include "chttpfetch.h"
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>

typedef struct {
    rb_fetch_result *out;
    size_t capacity;
    size_t max_bytes;
    int too_large;
} sink;

static size_t on_body(char *data, size_t size, size_t count, void *user) {
    sink *s = user;
    size_t n = size * count;
    if (s->out->length + n > s->max_bytes) { s->too_large = 1; return 0; } /* 0 aborts the transfer */
    if (s->out->length + n > s->capacity) {
        size_t want = s->capacity ? s->capacity : 65536;
        while (want < s->out->length + n) want *= 2;
        if (want > s->max_bytes) want = s->max_bytes;
        unsigned char *grown = realloc(s->out->body, want);
        if (!grown) return 0;
        s->out->body = grown;
        s->capacity = want;
    }
    memcpy(s->out->body + s->out->length, data, n);
    s->out->length += n;
    return n;
}

/* The value of header `name` in `line`, trimmed, or NULL. */
static char *header_value(const char *line, size_t n, const char *name) {
    size_t k = strlen(name);
    if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':') return NULL;
    const char *v = line + k + 1, *end = line + n;
    while (v < end && isspace((unsigned char)*v)) v++;
    while (end > v && isspace((unsigned char)end[-1])) end--;
    char *copy = malloc((size_t)(end - v) + 1);
    if (!copy) return NULL;
    memcpy(copy, v, (size_t)(end - v));
    copy[end - v] = 0;
    return copy;
}

static size_t on_header(char *data, size_t size, size_t count, void *user) {
    rb_fetch_result *out = ((sink *)user)->out;
    size_t n = size * count;
    if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) { /* a new response (after a redirect): forget the last one's */
        free(out->etag); out->etag = NULL;
        free(out->last_modified); out->last_modified = NULL;
        return n;
    }
    char *v;
    if ((v = header_value(data, n, "etag"))) { free(out->etag); out->etag = v; }
    else if ((v = header_value(data, n, "last-modified"))) { free(out->last_modified); out->last_modified = v; }
    return n;
}

int rb_fetch(const char *url, const char *if_none_match, const char *if_modified_since,
             long timeout_ms, size_t max_bytes, rb_fetch_result *out) {
    memset(out, 0, sizeof *out);
    CURL *curl = curl_easy_init();
    if (!curl) { strcpy(out->error, "cannot start libcurl"); return RB_FETCH_FAILED; }
    sink s = { out, 0, max_bytes, 0 };
    struct curl_slist *headers = NULL;
    char line[1024];
    if (if_none_match && strlen(if_none_match) < 900) {
        snprintf(line, sizeof line, "If-None-Match: %s", if_none_match);
        headers = curl_slist_append(headers, line);
    }
    if (if_modified_since && strlen(if_modified_since) < 900) {
        snprintf(line, sizeof line, "If-Modified-Since: %s", if_modified_since);
        headers = curl_slist_append(headers, line);
    }
    char error[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, ""); /* every encoding curl decodes; the cap counts decoded bytes */
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_bytes);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "radarblock");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &s);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    CURLcode code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out->status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (code == CURLE_OK) return RB_FETCH_OK;
    if (s.too_large || code == CURLE_FILESIZE_EXCEEDED) return RB_FETCH_TOO_LARGE;
    if (code == CURLE_OPERATION_TIMEDOUT) return RB_FETCH_TIMED_OUT;
    snprintf(out->error, sizeof out->error, "%s", error[0] ? error : curl_easy_strerror(code));
    return RB_FETCH_FAILED;
}

void rb_fetch_free(rb_fetch_result *out) {
    free(out->body);
    free(out->etag);
    free(out->last_modified);
    memset(out, 0, sizeof *out);
}
