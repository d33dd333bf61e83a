// libvips' and GLib's declarations, for their types and constants; what CVips calls, it calls
// through the addresses it looks up in the libvips it loads (Sources/CVips/cvips.c).

// Leave out libvips' vips7 and C++-era compatibility declarations: nothing here uses them.
#define VIPS_DISABLE_COMPAT 1
// A one-line message naming the package, instead of a cascade of errors, when it is missing.
#if !__has_include(<vips/vips.h>)
#error "vips/vips.h not found: install Debian's libvips-dev (deploy/dev.sh does: see the README)"
#else
#include <vips/vips.h>
#endif
