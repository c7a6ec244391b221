#ifndef RADARBLOCK_CHTTPFETCH_H
#define RADARBLOCK_CHTTPFETCH_H
/* One bounded HTTP(S) GET through libcurl (curl_easy_setopt is variadic, so Swift cannot call it). The body is
   collected after content decoding and the transfer is aborted the moment it passes max_bytes; the timeout
   covers the whole exchange, body included. */
#include <stddef.h>

enum rb_fetch_outcome { RB_FETCH_OK = 0, RB_FETCH_TOO_LARGE = 1, RB_FETCH_TIMED_OUT = 2, RB_FETCH_FAILED = 3 };

typedef struct {
    long status;
    unsigned char *body;
    size_t length;
    char *etag;           /* NULL when absent */
    char *last_modified;  /* NULL when absent */
    char error[256];
} rb_fetch_result;

/* Returns an rb_fetch_outcome; `out` must be released with rb_fetch_free whatever the outcome. */
int rb_fetch(const char *url, const char *if_none_match, const char *if_modified_since,
             long timeout_ms, size_t max_bytes, rb_fetch_result *out);
void rb_fetch_free(rb_fetch_result *out);

#endif
