// The bridge of include/cvips.h: libvips loaded with dlopen, its functions called through the
// addresses dlsym found. GLib and GObject are linked (two small libraries, which libvips shares
// with the process), so releasing and freeing never needs libvips.
#include "cvips.h"

#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// Each libvips function the bridge calls; the type of each pointer is its declaration in vips.h.
#define CVIPS_FUNCTIONS(X) \
    X(vips_init) \
    X(vips_block_untrusted_set) \
    X(vips_operation_block_set) \
    X(vips_cache_set_max) \
    X(vips_cache_set_max_mem) \
    X(vips_cache_set_max_files) \
    X(vips_concurrency_set) \
    X(vips_error_buffer_copy) \
    X(vips_source_new_from_file) \
    X(vips_image_get_width) \
    X(vips_image_get_height) \
    X(vips_image_get_bands) \
    X(vips_image_get_typeof) \
    X(vips_image_get_fields) \
    X(vips_image_remove) \
    X(vips_image_copy_memory) \
    X(vips_image_write_to_memory) \
    X(vips_jpegload_source) \
    X(vips_pngload_source) \
    X(vips_webpload_source) \
    X(vips_gifload_source) \
    X(vips_heifload_source) \
    X(vips_webpload_buffer) \
    X(vips_extract_area) \
    X(vips_thumbnail_image) \
    X(vips_colourspace) \
    X(vips_cast) \
    X(vips_copy) \
    X(vips_webpsave_buffer)

// The addresses, written once inside pthread_once and only read after it returned (which
// orders the writes before every read).
static struct {
#define CVIPS_FIELD(name) __typeof__(name) *name;
    CVIPS_FUNCTIONS(CVIPS_FIELD)
#undef CVIPS_FIELD
} vips;

static pthread_once_t opened = PTHREAD_ONCE_INIT;
static int open_result = -1;
static char open_message[256];

/// The soname of Debian 12's libvips (libvips42), the one libvips-dev's headers describe.
static const char library_name[] = "libvips.so.42";

static void open_library(void) {
    // RTLD_LOCAL: libvips' symbols serve only this bridge. GLib and GObject are the process's own
    // (linked), so libvips shares them.
    void *handle = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(open_message, sizeof open_message, "cannot load %s: %s", library_name, dlerror());
        return;
    }
#define CVIPS_LOOK_UP(name)                                                              \
    vips.name = (__typeof__(name) *)dlsym(handle, #name);                                                     \
    if (!vips.name) {                                                                           \
        snprintf(open_message, sizeof open_message, "%s has no %s", library_name, #name);       \
        return;                                                                                 \
    }
    CVIPS_FUNCTIONS(CVIPS_LOOK_UP)
#undef CVIPS_LOOK_UP
    open_result = 0;
}

int cvips_open(char *message, size_t size) {
    pthread_once(&opened, open_library);
    if (open_result != 0 && message && size > 0) snprintf(message, size, "%s", open_message);
    return open_result;
}

int cvips_init(const char *program) { return vips.vips_init(program); }
void cvips_block_untrusted(int blocked) { vips.vips_block_untrusted_set(blocked ? TRUE : FALSE); }
void cvips_block_operation(const char *name, int blocked) { vips.vips_operation_block_set(name, blocked ? TRUE : FALSE); }

void cvips_cache_off(void) {
    vips.vips_cache_set_max(0);
    vips.vips_cache_set_max_mem(0);
    vips.vips_cache_set_max_files(0);
}

void cvips_set_concurrency(int threads) { vips.vips_concurrency_set(threads); }
char *cvips_error_buffer_copy(void) { return vips.vips_error_buffer_copy(); }
VipsSource *cvips_source_new_from_file(const char *path) { return vips.vips_source_new_from_file(path); }
int cvips_image_get_width(const VipsImage *image) { return vips.vips_image_get_width(image); }
int cvips_image_get_height(const VipsImage *image) { return vips.vips_image_get_height(image); }
int cvips_image_get_bands(const VipsImage *image) { return vips.vips_image_get_bands(image); }
VipsImage *cvips_image_copy_memory(VipsImage *image) { return vips.vips_image_copy_memory(image); }
void *cvips_image_write_to_memory(VipsImage *image, size_t *size) { return vips.vips_image_write_to_memory(image, size); }
void cvips_unref(void *object) { g_object_unref(object); }
void cvips_free(void *memory) { g_free(memory); }

static void discard_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain;
    (void)level;
    (void)message;
    (void)data;
}

void cvips_silence_warnings(void) {
    g_log_set_handler("VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG),
                      discard_log, NULL);
}

void cvips_return_large_buffers(void) { mallopt(M_MMAP_THRESHOLD, 128 * 1024); }

VipsImage *cvips_load_jpeg(VipsSource *source, int shrink) {
    VipsImage *out = NULL;
    if (vips.vips_jpegload_source(source, &out, "shrink", shrink, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR,
                                  NULL))
        return NULL;
    return out;
}

VipsImage *cvips_load_png(VipsSource *source) {
    VipsImage *out = NULL;
    if (vips.vips_pngload_source(source, &out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL))
        return NULL;
    return out;
}

VipsImage *cvips_load_webp(VipsSource *source, double scale) {
    VipsImage *out = NULL;
    if (vips.vips_webpload_source(source, &out, "scale", scale, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR,
                                  NULL))
        return NULL;
    return out;
}

VipsImage *cvips_load_gif(VipsSource *source) {
    VipsImage *out = NULL;
    if (vips.vips_gifload_source(source, &out, "n", 1, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL))
        return NULL;
    return out;
}

VipsImage *cvips_load_heif(VipsSource *source) {
    VipsImage *out = NULL;
    if (vips.vips_heifload_source(source, &out, "thumbnail", FALSE, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                                  VIPS_FAIL_ON_ERROR, NULL))
        return NULL;
    return out;
}

VipsImage *cvips_load_webp_buffer(const void *buffer, size_t length) {
    VipsImage *out = NULL;
    if (vips.vips_webpload_buffer((void *)buffer, length, &out, "fail_on", VIPS_FAIL_ON_ERROR, NULL))
        return NULL;
    return out;
}

VipsImage *cvips_centre_square(VipsImage *in) {
    VipsImage *out = NULL;
    int width = vips.vips_image_get_width(in);
    int height = vips.vips_image_get_height(in);
    int side = width < height ? width : height;
    if (vips.vips_extract_area(in, &out, (width - side) / 2, (height - side) / 2, side, side, NULL))
        return NULL;
    return out;
}

VipsImage *cvips_square_thumbnail(VipsImage *in, int side) {
    VipsImage *out = NULL;
    const char *export_profile = vips.vips_image_get_typeof(in, VIPS_META_ICC_NAME) ? "srgb" : NULL;
    if (vips.vips_thumbnail_image(in, &out, side, "height", side, "size", VIPS_SIZE_BOTH, "crop", VIPS_INTERESTING_CENTRE,
                                  "export_profile", export_profile, "intent", VIPS_INTENT_RELATIVE, NULL))
        return NULL;
    return out;
}

VipsImage *cvips_srgb_bytes(VipsImage *in) {
    VipsImage *srgb = NULL;
    VipsImage *out = NULL;
    if (vips.vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL))
        return NULL;
    int failed = vips.vips_cast(srgb, &out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(srgb);
    return failed ? NULL : out;
}

VipsImage *cvips_without_metadata(VipsImage *in) {
    VipsImage *out = NULL;
    if (vips.vips_copy(in, &out, NULL))
        return NULL;
    gchar **fields = vips.vips_image_get_fields(out);
    for (int i = 0; fields[i]; i++)
        vips.vips_image_remove(out, fields[i]);  // the header's own fields are not removable: a no-op
    g_strfreev(fields);
    return out;
}

void *cvips_save_webp(VipsImage *in, int quality, size_t *length) {
    void *buffer = NULL;
    if (vips.vips_webpsave_buffer(in, &buffer, length, "Q", quality, "strip", TRUE, NULL))
        return NULL;
    return buffer;
}
