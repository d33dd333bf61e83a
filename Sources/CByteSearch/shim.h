// The byte search the quote search index uses: memmem(3), which Swift's Glibc module does not
// include. Only Store's Search/ByteSearch+Glibc.swift imports this module (privately).
#include <stddef.h>

// glibc declares memmem only under _GNU_SOURCE, and <string.h> comes from Swift's prebuilt Glibc
// module, so a macro here cannot change that; this is the same prototype (memmem(3)).
extern void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);
