#ifndef RADARBLOCK_CSYSTEM_H
#define RADARBLOCK_CSYSTEM_H
/* Linux calls that Swift's Glibc module does not expose (they need _GNU_SOURCE). */

/* Atomically exchanges two paths (renameat2 RENAME_EXCHANGE). Returns 0 or -1 with errno set. */
int rb_rename_exchange(const char *from, const char *to);

#endif
