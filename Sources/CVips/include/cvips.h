// libvips (https://www.libvips.org/API/8.14/), loaded when it is first needed: the one bridge
// between the app and the libvips of Debian 12's libvips42. Only Images/VipsImageRef.swift and
// Images/VipsFailure.swift import this module (privately).
//
// libvips pulls in about a hundred shared libraries (GLib, every image codec, X11, curl…):
// linked, the dynamic loader mapped and relocated them all at every start, before the first line
// of the server ran: a C program that only links libvips costs 43 ms of CPU and 11 MiB more
// than one that does not, on this project's AMD EPYC machine (docs/photos.md). So the executable does
// not link it: cvips_open() loads it with dlopen and looks up each function below, once per
// process, when the first photo arrives, and every other function here calls through what it found.
// Call cvips_open() first and call nothing else unless it returned 0.
//
// libvips' operations take their optional arguments as a NULL-terminated variadic list, which Swift
// cannot call, so each operation the app uses is one small function here with its arguments spelled
// out. Every function that makes an image returns a new reference (NULL on failure, with the message
// in libvips' error buffer); the caller owns it and releases it with cvips_unref.
#ifndef CVIPS_H
#define CVIPS_H

#define VIPS_DISABLE_COMPAT 1
#include <stddef.h>
#include <vips/vips.h>

/// Loads libvips and finds every function this bridge calls; thread-safe, and only the first call
/// does anything. 0 when libvips can be used; otherwise -1, with why in `message` (at most `size`
/// bytes, NUL-terminated), and every later call returns -1 with the same message.
int cvips_open(char *message, size_t size);

// libvips' own functions, under the bridge's names.
int cvips_init(const char *program);
void cvips_block_untrusted(int blocked);
void cvips_block_operation(const char *name, int blocked);
void cvips_cache_off(void);
void cvips_set_concurrency(int threads);
/// libvips' error buffer, copied and cleared; free it with cvips_free.
char *cvips_error_buffer_copy(void);
VipsSource *cvips_source_new_from_file(const char *path);
int cvips_image_get_width(const VipsImage *image);
int cvips_image_get_height(const VipsImage *image);
int cvips_image_get_bands(const VipsImage *image);
VipsImage *cvips_image_copy_memory(VipsImage *image);
/// Every pixel of `image` in a buffer the caller frees with cvips_free; its length in `size`.
void *cvips_image_write_to_memory(VipsImage *image, size_t *size);
/// Releases a reference to an image or a source (g_object_unref).
void cvips_unref(void *object);
/// Frees what libvips allocated for the caller (g_free).
void cvips_free(void *memory);

/// Routes libvips' own warnings, messages and debug lines (log domain "VIPS") to nowhere;
/// criticals and errors still go to GLib's default handler. Failures are reported through the
/// error buffer instead (cvips_error_buffer_copy).
void cvips_silence_warnings(void);

/// Fixes glibc's mmap threshold at 128 KiB (mallopt(3), which turns the dynamic threshold off):
/// otherwise it rises to the largest block freed, and the decoded photos' buffers that follow
/// come from the heap and stay in the process after each upload (docs/photos.md, "Memory and time").
void cvips_return_large_buffers(void);

/// Loads a JPEG's header from `source`; pixels are decoded later, on demand, top to bottom
/// (sequential access), shrunk by `shrink` (1, 2, 4 or 8) in the decoder itself. Any decoding
/// error, truncation included, fails the pipeline (fail_on=error) rather than leaving grey rows.
VipsImage *cvips_load_jpeg(VipsSource *source, int shrink);
/// Loads a PNG's header (the chunks before the image data); as cvips_load_jpeg, without shrinking.
VipsImage *cvips_load_png(VipsSource *source);
/// Loads a WebP's header; its first frame is decoded later, scaled by `scale` (0 < scale <= 1)
/// in libwebp itself.
VipsImage *cvips_load_webp(VipsSource *source, double scale);
/// Loads a GIF's header; only its first frame is ever decoded (n=1).
VipsImage *cvips_load_gif(VipsSource *source);
/// Loads a HEIF's header: its primary image, never an embedded thumbnail (thumbnail=false: a
/// thumbnail can show something other than the image, such as the uncropped original). libheif
/// applies the container's rotation and mirroring itself; libvips then drops the EXIF orientation.
VipsImage *cvips_load_heif(VipsSource *source);
/// Loads a WebP held in memory, for checks of what this app made; `buffer` must outlive the image.
VipsImage *cvips_load_webp_buffer(const void *buffer, size_t length);

/// The largest square in the middle of `in` (vips_extract_area): a view, nothing is computed.
VipsImage *cvips_centre_square(VipsImage *in);
/// A `side` x `side` square of `in` (vips_thumbnail_image): resized so that its shorter side is
/// `side` (down or up), premultiplied while resizing when it has alpha, turned upright by its EXIF
/// orientation (vips_autorot), then cropped to the centre. An image with an embedded ICC profile is
/// transformed with it to sRGB (the built-in "srgb" profile); one without is taken to be sRGB
/// already, or converted by vips_colourspace (CMYK, greyscale, 16 bits).
///
/// Pass a square (cvips_centre_square): vips_thumbnail_image resizes the whole image before it
/// crops, and holds the resized image in memory to turn and crop it, so a 10,000 x 1 image would
/// become 5,120,000 x 512 px (7.8 GB) on the way to a 512 px square.
VipsImage *cvips_square_thumbnail(VipsImage *in, int side);
/// `in` as 8-bit sRGB (or sRGB with alpha), for reading pixel values.
VipsImage *cvips_srgb_bytes(VipsImage *in);
/// A copy of `in`, sharing its pixels, with every metadata field removed: EXIF (the blob and the
/// exif-ifd* fields parsed from it), XMP, IPTC, the ICC profile, orientation, resolution names,
/// comments, GIF and PNG extras. What is left is the header: size, bands, format, interpretation.
VipsImage *cvips_without_metadata(VipsImage *in);
/// Encodes `in` as lossy WebP at `quality` (1-100). Returns a buffer that the caller frees with
/// cvips_free, and its length in `length`; NULL on failure.
///
/// `strip` asks for no metadata, but Debian 12's libvips 8.14.1 ignores it (fixed upstream in
/// 8.14.2, "fix strip arg to webpsave"; 8.15 renamed it keep=none) and always adds an EXIF chunk
/// made from the image's fields, plus XMP and ICC chunks when the image has them. So callers
/// pass an image from cvips_without_metadata and remove any metadata chunk from the result.
void *cvips_save_webp(VipsImage *in, int quality, size_t *length);

#endif
