// A one-line message naming the package, instead of a cascade of errors, when it is missing.
#if !__has_include(<crypt.h>)
#error "crypt.h not found: install Debian's libcrypt-dev (deploy/dev.sh does: see the README)"
#else
#include <crypt.h>
#endif
