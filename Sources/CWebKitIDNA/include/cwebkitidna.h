#ifndef RADARBLOCK_CWEBKITIDNA_H
#define RADARBLOCK_CWEBKITIDNA_H
/* ICU's UTS #46 IDNA configured exactly as WebKit's URLParser configures it (URLParser.cpp,
   internationalDomainNameTranscoder and allowedNameToASCIIErrors), behind a plain C interface: ICU's
   headers clash with Foundation's bundled ICU when a Swift module imports them, so Swift sees only this. */
#include <stdint.h>

/* UTS #46 ToASCII of `src` (UTF-16) into `dest`; returns the length written, or -1 when WebKit would
   reject the host (ICU failure, a processing error WebKit does not tolerate, or an empty result). */
int32_t radarblock_idna_to_ascii(const uint16_t *src, int32_t length, uint16_t *dest, int32_t capacity);

#endif
