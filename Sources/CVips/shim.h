// libvips, the image library (https://www.libvips.org/API/8.14/), from Debian's libvips-dev
// (8.14 in Debian 12). Only Images/VipsImageRef*.swift import this module (privately).
//
// libvips' operations take their optional arguments as a NULL-terminated variadic list, which Swift
// cannot call, so each call the app makes is one small function here with its arguments spelled
// out. Every function that makes an image returns a new reference (NULL on failure, with the
// message in libvips' error buffer); the caller owns it and releases it with g_object_unref.

// Leave out libvips' vips7 and C++-era compatibility declarations: nothing here uses them.
#define VIPS_DISABLE_COMPAT 1
// A one-line message naming the package, instead of a cascade of errors, when it is missing.
#if !__has_include(<vips/vips.h>)
#error "vips/vips.h not found: install Debian's libvips-dev (deploy/dev.sh does: see the README)"
#else
#include <vips/vips.h>
#include <malloc.h>

/// Fixes glibc's mmap threshold at 128 KiB (mallopt(3), which turns the dynamic threshold off):
/// otherwise it rises to the largest block freed, and the decoded photos' buffers that follow
/// come from the heap and stay in the process after each upload (docs/photos.md, "Memory and time").
static inline void cvips_return_large_buffers(void) {
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}

/// Discards a GLib log message. libvips logs a warning for damage it can decode around ("Corrupt
/// JPEG data"), one per bad upload; those would land on the server's standard error unformatted.
static void cvips_discard_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain;
    (void)level;
    (void)message;
    (void)data;
}

/// Routes libvips' own warnings, messages and debug lines (log domain "VIPS") to nowhere;
/// criticals and errors still go to GLib's default handler. Failures are reported through the
/// error buffer instead (vips_error_buffer_copy).
static inline void cvips_silence_warnings(void) {
    g_log_set_handler("VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG),
                      cvips_discard_log, NULL);
}

/// Loads a JPEG's header from `source`; pixels are decoded later, on demand, top to bottom
/// (sequential access), shrunk by `shrink` (1, 2, 4 or 8) in the decoder itself. Any decoding
/// error, truncation included, fails the pipeline (fail_on=error) rather than leaving grey rows.
static inline VipsImage *cvips_load_jpeg(VipsSource *source, int shrink) {
    VipsImage *out = NULL;
    if (vips_jpegload_source(source, &out, "shrink", shrink, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR,
                             NULL))
        return NULL;
    return out;
}

/// Loads a PNG's header (the chunks before the image data); as cvips_load_jpeg, without shrinking.
static inline VipsImage *cvips_load_png(VipsSource *source) {
    VipsImage *out = NULL;
    if (vips_pngload_source(source, &out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL))
        return NULL;
    return out;
}

/// Loads a WebP's header; its first frame is decoded later, scaled by `scale` (0 < scale <= 1)
/// in libwebp itself.
static inline VipsImage *cvips_load_webp(VipsSource *source, double scale) {
    VipsImage *out = NULL;
    if (vips_webpload_source(source, &out, "scale", scale, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR,
                             NULL))
        return NULL;
    return out;
}

/// Loads a GIF's header; only its first frame is ever decoded (n=1).
static inline VipsImage *cvips_load_gif(VipsSource *source) {
    VipsImage *out = NULL;
    if (vips_gifload_source(source, &out, "n", 1, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL))
        return NULL;
    return out;
}

/// Loads a HEIF's header: its primary image, never an embedded thumbnail (thumbnail=false: a
/// thumbnail can show something other than the image, such as the uncropped original). libheif
/// applies the container's rotation and mirroring itself; libvips then drops the EXIF orientation.
static inline VipsImage *cvips_load_heif(VipsSource *source) {
    VipsImage *out = NULL;
    if (vips_heifload_source(source, &out, "thumbnail", FALSE, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                             VIPS_FAIL_ON_ERROR, NULL))
        return NULL;
    return out;
}

/// Loads a WebP held in memory, for checks of what this app made; `buffer` must outlive the image.
static inline VipsImage *cvips_load_webp_buffer(const void *buffer, size_t length) {
    VipsImage *out = NULL;
    if (vips_webpload_buffer((void *)buffer, length, &out, "fail_on", VIPS_FAIL_ON_ERROR, NULL))
        return NULL;
    return out;
}

/// The largest square in the middle of `in` (vips_extract_area): a view, nothing is computed.
static inline VipsImage *cvips_centre_square(VipsImage *in) {
    VipsImage *out = NULL;
    int width = vips_image_get_width(in);
    int height = vips_image_get_height(in);
    int side = width < height ? width : height;
    if (vips_extract_area(in, &out, (width - side) / 2, (height - side) / 2, side, side, NULL))
        return NULL;
    return out;
}

/// A `side` x `side` square of `in` (vips_thumbnail_image): resized so that its shorter side is
/// `side` (down or up), premultiplied while resizing when it has alpha, turned upright by its EXIF
/// orientation (vips_autorot), then cropped to the centre. An image with an embedded ICC profile is
/// transformed with it to sRGB (the built-in "srgb" profile); one without is taken to be sRGB
/// already, or converted by vips_colourspace (CMYK, greyscale, 16 bits).
///
/// Pass a square (cvips_centre_square): vips_thumbnail_image resizes the whole image before it
/// crops, and holds the resized image in memory to turn and crop it, so a 10,000 x 1 image would
/// become 5,120,000 x 512 px (7.8 GB) on the way to a 512 px square.
static inline VipsImage *cvips_square_thumbnail(VipsImage *in, int side) {
    VipsImage *out = NULL;
    const char *export_profile = vips_image_get_typeof(in, VIPS_META_ICC_NAME) ? "srgb" : NULL;
    if (vips_thumbnail_image(in, &out, side, "height", side, "size", VIPS_SIZE_BOTH, "crop", VIPS_INTERESTING_CENTRE,
                             "export_profile", export_profile, "intent", VIPS_INTENT_RELATIVE, NULL))
        return NULL;
    return out;
}

/// `in` as 8-bit sRGB (or sRGB with alpha), for reading pixel values.
static inline VipsImage *cvips_srgb_bytes(VipsImage *in) {
    VipsImage *srgb = NULL;
    VipsImage *out = NULL;
    if (vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL))
        return NULL;
    int failed = vips_cast(srgb, &out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(srgb);
    return failed ? NULL : out;
}

/// A copy of `in`, sharing its pixels, with every metadata field removed: EXIF (the blob and the
/// exif-ifd* fields parsed from it), XMP, IPTC, the ICC profile, orientation, resolution names,
/// comments, GIF and PNG extras. What is left is the header: size, bands, format, interpretation.
static inline VipsImage *cvips_without_metadata(VipsImage *in) {
    VipsImage *out = NULL;
    if (vips_copy(in, &out, NULL))
        return NULL;
    gchar **fields = vips_image_get_fields(out);
    for (int i = 0; fields[i]; i++)
        vips_image_remove(out, fields[i]);  // the header's own fields are not removable: a no-op
    g_strfreev(fields);
    return out;
}

/// Encodes `in` as lossy WebP at `quality` (1-100). Returns a g_malloc'd buffer that the caller
/// frees with g_free, and its length in `length`; NULL on failure.
///
/// `strip` asks for no metadata, but Debian 12's libvips 8.14.1 ignores it (fixed upstream in
/// 8.14.2, "fix strip arg to webpsave"; 8.15 renamed it keep=none) and always adds an EXIF chunk
/// made from the image's fields, plus XMP and ICC chunks when the image has them. So callers
/// pass an image from cvips_without_metadata and remove any metadata chunk from the result.
static inline void *cvips_save_webp(VipsImage *in, int quality, size_t *length) {
    void *buffer = NULL;
    if (vips_webpsave_buffer(in, &buffer, length, "Q", quality, "strip", TRUE, NULL))
        return NULL;
    return buffer;
}
#endif
