// ICU's UTS #46 IDNA, configured exactly as WebKit's URLParser configures it (URLParser.cpp,
// internationalDomainNameTranscoder and allowedNameToASCIIErrors). ICU's C API names carry a version
// suffix through macros, which Swift cannot see; this inline wrapper lets the C compiler resolve them.
#include <stdint.h>
#include <unicode/uidna.h>

/// UTS #46 ToASCII of `src` (UTF-16) into `dest`; returns the length written, or -1 when WebKit would
/// reject the host (ICU failure, a processing error WebKit does not tolerate, or an empty result).
static inline int32_t radarblock_idna_to_ascii(const uint16_t *src, int32_t length, uint16_t *dest, int32_t capacity) {
    UErrorCode error = U_ZERO_ERROR;
    UIDNA *idna = uidna_openUTS46(UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ | UIDNA_NONTRANSITIONAL_TO_UNICODE
                                  | UIDNA_NONTRANSITIONAL_TO_ASCII, &error);
    if (U_FAILURE(error) || !idna)
        return -1;
    UIDNAInfo info = UIDNA_INFO_INITIALIZER;
    int32_t n = uidna_nameToASCII(idna, (const UChar *)src, length, (UChar *)dest, capacity, &info, &error);
    uidna_close(idna);
    const uint32_t allowed = UIDNA_ERROR_EMPTY_LABEL | UIDNA_ERROR_LABEL_TOO_LONG | UIDNA_ERROR_DOMAIN_NAME_TOO_LONG
        | UIDNA_ERROR_LEADING_HYPHEN | UIDNA_ERROR_TRAILING_HYPHEN | UIDNA_ERROR_HYPHEN_3_4;
    if (U_FAILURE(error) || (info.errors & ~allowed) || n <= 0)
        return -1;
    return n;
}
