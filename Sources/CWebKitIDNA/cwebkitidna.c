#include <unicode/uidna.h>
#include "cwebkitidna.h"

/* ICU's C API names carry a version suffix through macros; compiling here lets the C compiler resolve them. */
int32_t radarblock_idna_to_ascii(const uint16_t *src, int32_t length, uint16_t *dest, int32_t capacity) {
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
