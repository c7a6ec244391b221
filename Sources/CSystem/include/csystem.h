#ifndef RADARBLOCK_CSYSTEM_H
#define RADARBLOCK_CSYSTEM_H

#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* Linux calls that Swift's Glibc module does not expose (they need _GNU_SOURCE), and compiler builtins that
   Swift has no spelling for. */

/* Atomically exchanges two paths (renameat2 RENAME_EXCHANGE). Returns 0 or -1 with errno set. */
int rb_rename_exchange(const char *from, const char *to);

/* Starts writing back `count` bytes of `fd` from `offset` to the disk, without waiting (sync_file_range,
   SYNC_FILE_RANGE_WRITE): a later fsync then has less left to wait for. A hint; returns 0 or -1. */
int rb_start_writeback(int fd, long long offset, long long count);

/* Starts loading the cache line at p for reading, without waiting for it (a hint: never faults). */
static inline void rb_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }

/* From now on a SIGBUS (a mapped file that shrank under its reader) writes `message` and a newline to stderr
   and exits with `status`, instead of a crash. The message is copied (at most 1 KB is kept). */
void rb_exit_on_sigbus(const char *message, int status);

/* Where a plain JSON string's bytes end: the offset of the first '"', '\\' or byte below 0x20 in p[0..<n] (n
   when there is none), with *high set when a byte of 0x80 or above comes before it. Request lines are mostly
   URLs inside strings: sixteen bytes at a time (SSE2, which every x86-64 has), elsewhere one at a time. */
static inline size_t rb_json_string_end(const uint8_t *p, size_t n, int *high) {
    size_t i = 0;
    unsigned h = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), lastControl = _mm_set1_epi8(0x1F);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        /* v <= 0x1F (unsigned) exactly when min(v, 0x1F) == v. */
        __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, lastControl), v);
        __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), control);
        unsigned stops = (unsigned)_mm_movemask_epi8(stop), highs = (unsigned)_mm_movemask_epi8(v);
        if (stops) {
            unsigned k = (unsigned)__builtin_ctz(stops);
            *high = (h | (highs & ((1u << k) - 1))) != 0;
            return i + k;
        }
        h |= highs;
    }
#endif
    for (; i < n; i++) {
        uint8_t b = p[i];
        if (b == '"' || b == '\\' || b < 0x20) break;
        h |= b & 0x80;
    }
    *high = h != 0;
    return i;
}

/* A bit per byte of p[0..<16] (bit k for p[k]) that is neither an ASCII digit nor a lowercase letter, nor, unless
   `lowercase_only`, an uppercase letter. URLs are mostly letters and digits: their parsers visit only the other
   bytes, found sixteen at a time (SSE2), elsewhere one at a time. */
static inline unsigned rb_non_alphanumeric_mask(const uint8_t *p, int lowercase_only) {
#if defined(__SSE2__)
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    /* b is in lo...hi exactly when b + (128 - lo), wrapping, is below -128 + (hi - lo + 1) as a signed byte. */
#define RB_IN_RANGE(lo, hi) \
    _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(128 - (lo)))), _mm_set1_epi8((char)(-128 + ((hi) - (lo) + 1))))
    __m128i ok = _mm_or_si128(RB_IN_RANGE('a', 'z'), RB_IN_RANGE('0', '9'));
    if (!lowercase_only) ok = _mm_or_si128(ok, RB_IN_RANGE('A', 'Z'));
#undef RB_IN_RANGE
    return ~(unsigned)_mm_movemask_epi8(ok) & 0xFFFFu;
#else
    unsigned m = 0;
    for (int k = 0; k < 16; k++) {
        uint8_t b = p[k];
        int ok = (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || (!lowercase_only && b >= 'A' && b <= 'Z');
        if (!ok) m |= 1u << k;
    }
    return m;
#endif
}

#endif
