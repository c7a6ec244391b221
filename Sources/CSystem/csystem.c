#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include "csystem.h"

int rb_rename_exchange(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE);
}
