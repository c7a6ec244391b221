#ifndef RADARBLOCK_CSYSTEM_H
#define RADARBLOCK_CSYSTEM_H
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

#endif
