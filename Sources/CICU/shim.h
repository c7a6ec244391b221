// Only for its compiler and linker flags (pkg-config icu-uc): C code includes ICU; Swift never imports this.
#include <unicode/uidna.h>
