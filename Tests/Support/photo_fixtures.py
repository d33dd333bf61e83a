#!/usr/bin/env python3
"""Remakes the photo fixtures committed in Tests/Support/Photos/, which Tests/ImagesTests feeds to
PhotoProcessor and the app's tests upload. The tests read the committed files and need no Python;
this tool is only for changing them. The images are made with tools no one here wrote: Pillow and
pillow-heif from PyPI, and LittleCMS through Pillow's ImageCms for the expected colours. Only the
two PNG bombs are written by hand, since no image library will encode a 3.6-gigapixel image.

usage: photo_fixtures.py OUTPUT_DIR [--fuzz-seeds]

    python3 -m venv /tmp/fixtures && /tmp/fixtures/bin/pip install pillow pillow-heif
    /tmp/fixtures/bin/python Tests/Support/photo_fixtures.py Tests/Support/Photos

Writes the files named in main() into OUTPUT_DIR, and manifest.json, which tells the tests what
each file holds (size, marker, expected colours) and its SHA-256, which the tests check before
they trust the rest. The set stays under BUDGET bytes in all (the tests check that too). The
Adobe RGB profile comes from Debian's libgs-common, or from the file $ADOBE_RGB_ICC names.
With --fuzz-seeds it writes the seed corpus of Fuzz/FuzzPhotoProcessor.swift instead: one tiny
image of each format, with the metadata the fixtures have, kept in Fuzz/corpus-photo/.
Exits 2 with a message naming the packages when Pillow or pillow-heif is missing.
"""

import hashlib
import io
import json
import os
import struct
import sys
import zlib

try:
    from PIL import Image, ImageCms, ImageDraw, TiffImagePlugin
    import pillow_heif
except ImportError as error:
    sys.stderr.write(
        f"photo_fixtures.py: {error}. The photo tests make their images with Pillow and pillow-heif:\n"
        "    python3 -m pip install pillow pillow-heif\n"
    )
    sys.exit(2)

# Text that must never come out of the processor: it goes into every kind of metadata below.
SECRET = "QB-SECRET-HOME-51.5007N"
# Adobe RGB (1998), shipped by Debian's libgs-common (a dependency of libvips-dev).
ADOBE_RGB = os.environ.get("ADOBE_RGB_ICC", "/usr/share/color/icc/ghostscript/a98.icc")

GREY = (128, 128, 128)
RED = (230, 20, 20)


def exif_with_location(orientation=None):
    """EXIF with a GPS position, a description, a camera and, if given, an orientation."""
    exif = Image.Exif()
    exif[0x010E] = SECRET  # ImageDescription
    exif[0x010F] = "QuotebookPhone"  # Make
    exif[0x0110] = "Model QB-1"  # Model
    if orientation is not None:
        exif[0x0112] = orientation
    gps = {
        0x0001: "N",  # GPSLatitudeRef
        0x0002: (51.0, 30.0, 2.52),  # GPSLatitude
        0x0003: "W",  # GPSLongitudeRef
        0x0004: (0.0, 7.0, 39.9),  # GPSLongitude
    }
    exif[0x8825] = gps  # GPSInfo IFD
    return exif


def xmp_packet():
    return (
        '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>'
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:description="' + SECRET + '"/>'
        "</rdf:RDF></x:xmpmeta>"
        '<?xpacket end="w"?>'
    ).encode()


def with_iptc(jpeg):
    """`jpeg` with a Photoshop APP13 segment holding an IPTC caption, right after SOI."""
    caption = SECRET.encode()
    iptc = b"\x1c\x02\x78" + struct.pack(">H", len(caption)) + caption  # 2:120 Caption/Abstract
    resource = b"8BIM" + struct.pack(">H", 0x0404) + b"\x00\x00" + struct.pack(">I", len(iptc)) + iptc
    payload = b"Photoshop 3.0\x00" + resource
    segment = b"\xff\xed" + struct.pack(">H", len(payload) + 2) + payload
    return jpeg[:2] + segment + jpeg[2:]


def oriented_jpeg(path):
    """300 x 200 as stored, EXIF orientation 6 (turn 90° clockwise to show): a person sees it
    200 x 300. A red square at stored x 60-99, y 10-49 shows at x 150-189, y 60-99; after the
    centred square crop (rows 50-249) that is the square's top right corner, at x 150-189,
    y 10-49 of 200. Unturned, the crop would put it at the top left."""
    image = Image.new("RGB", (300, 200), GREY)
    ImageDraw.Draw(image).rectangle((60, 10, 99, 49), fill=RED)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=95, subsampling=0, exif=exif_with_location(orientation=6),
               xmp=xmp_packet(), comment=SECRET)
    data = with_iptc(buffer.getvalue())
    with open(path, "wb") as file:
        file.write(data)
    return {"stored": [300, 200], "marker": {"x": [150, 190], "y": [10, 50], "of": 200, "rgb": list(RED)},
            "background": list(GREY)}


def adobe_rgb_jpeg(path):
    """A flat colour tagged Adobe RGB: shown right only if converted to sRGB with the profile."""
    colour = (40, 200, 60)
    image = Image.new("RGB", (240, 160), colour)
    profile = open(ADOBE_RGB, "rb").read()
    image.save(path, "JPEG", quality=100, subsampling=0, icc_profile=profile)
    transform = ImageCms.buildTransform(ImageCms.ImageCmsProfile(io.BytesIO(profile)), ImageCms.createProfile("sRGB"),
                                        "RGB", "RGB", renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
    expected = ImageCms.applyTransform(Image.new("RGB", (1, 1), colour), transform).getpixel((0, 0))
    return {"stored": [240, 160], "tagged": list(colour), "srgb": list(expected)}


def heic(path):
    image = Image.new("RGB", (400, 300), (30, 60, 200))
    ImageDraw.Draw(image).rectangle((150, 100, 249, 199), fill=(250, 220, 30))
    pillow_heif.register_heif_opener()
    image.save(path, "HEIF", quality=90, exif=exif_with_location().tobytes(), xmp=xmp_packet())
    return {"stored": [400, 300]}


def png_with_alpha(path):
    from PIL import PngImagePlugin

    image = Image.new("RGBA", (640, 480), (0, 128, 255, 255))
    ImageDraw.Draw(image).rectangle((0, 0, 639, 59), fill=(0, 0, 0, 0))
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", SECRET)
    info.add_itxt("XML:com.adobe.xmp", xmp_packet().decode())
    image.save(path, "PNG", pnginfo=info, exif=exif_with_location(orientation=1))
    return {"stored": [640, 480]}


def gif(path):
    """Two frames, red then green: only the first one counts."""
    frames = [Image.new("RGB", (120, 80), colour) for colour in ((220, 0, 0), (0, 220, 0))]
    frames[0].save(path, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0, comment=SECRET)
    return {"stored": [120, 80], "first": [220, 0, 0]}


def webp(path):
    image = Image.new("RGB", (500, 700), (90, 160, 90))
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    image.save(path, "WEBP", quality=90, exif=exif_with_location(orientation=1), xmp=xmp_packet(), icc_profile=srgb)
    return {"stored": [500, 700]}


def plain(path, size, mode="RGB", colour=(200, 100, 50), **options):
    Image.new(mode, size, colour).save(path, **options)
    return {"stored": list(size)}


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_bomb(path, side=60000, truncate_to=None):
    """A valid 1-bit greyscale PNG of side x side px, all black: 3.6 gigapixels, which decoded
    as RGB would take 10.8 GB. Deflate cannot beat about 1:1032, so the image data (450 MB of
    zero bytes) compresses to about 440 KB; `truncate_to` keeps only that many bytes of it, for
    the few-KB variant whose header says the same.

    zlib compresses one 1000-row block, ended with a full flush (which resets its state, so the
    same block always compresses to the same bytes); the stream is that block's bytes repeated,
    an empty final block and the Adler-32 of the whole: the same stream, in a tenth of the time."""
    assert side % 1000 == 0
    block = bytes(1 + (side + 7) // 8) * 1000  # 1000 rows: filter byte 0, then the row's bits
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    compressed = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    checksum = 1
    for _ in range(side // 1000):
        checksum = zlib.adler32(block, checksum)
    final_empty_block = b"\x03\x00"  # BFINAL=1, fixed Huffman, end-of-block
    stream = b"\x78\xda" + compressed * (side // 1000) + final_empty_block + struct.pack(">I", checksum)
    if truncate_to is not None:
        stream = stream[:truncate_to]
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", stream) + png_chunk(b"IEND", b"")
    with open(path, "wb") as file:
        file.write(data)
    return {"stored": [side, side], "bytes": len(data)}


def detailed_jpeg(path, progressive=False, truncated=False):
    """A detailed 800 x 600 JPEG (noise, a few hundred KB: large enough that the server spools
    its upload to a file), whole or cut after half its bytes."""
    image = Image.effect_noise((800, 600), 60).convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=90, progressive=progressive)
    data = buffer.getvalue()
    kept = data[: len(data) // 2] if truncated else data
    with open(path, "wb") as file:
        file.write(kept)
    return {"stored": [800, 600], "bytes": len(kept), "whole": len(data)}


def large_jpeg(path):
    """A 12-megapixel photo-like JPEG: gradients and light noise, as a phone's 4000 x 3000 would
    be, at a quality that keeps it near 2 MB (the budget)."""
    noise = Image.effect_noise((4000, 3000), 6)
    red = Image.linear_gradient("L").resize((4000, 3000))
    blue = red.transpose(Image.Transpose.ROTATE_90).resize((4000, 3000))
    image = Image.merge("RGB", (red, noise, blue))
    image.save(path, "JPEG", quality=75, exif=exif_with_location(orientation=1))
    return {"stored": [4000, 3000], "bytes": os.path.getsize(path)}


def fuzz_seeds(at):
    """Tiny images of every accepted format (and a TIFF), a few hundred bytes each."""
    pillow_heif.register_heif_opener()
    image = Image.new("RGB", (24, 16), GREY)
    ImageDraw.Draw(image).rectangle((2, 2, 9, 7), fill=RED)
    exif = exif_with_location(orientation=6)
    image.save(at("oriented.jpg"), "JPEG", quality=80, exif=exif)
    image.save(at("progressive.jpg"), "JPEG", quality=80, progressive=True)
    image.convert("CMYK").save(at("cmyk.jpg"), "JPEG", quality=80)
    image.save(at("plain.png"), "PNG", exif=exif)
    image.convert("RGBA").save(at("alpha.png"), "PNG")
    image.convert("P").save(at("still.gif"), "GIF")
    image.save(at("lossy.webp"), "WEBP", quality=70, exif=exif)
    image.save(at("lossless.webp"), "WEBP", lossless=True)
    image.save(at("photo.heic"), "HEIF", quality=50)
    image.save(at("image.tiff"), "TIFF")


VARIANTS = 48
# The whole set's size limit, in bytes: it is committed, so every clone carries it.
BUDGET = 4 * 1024 * 1024


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def at(name):
        return os.path.join(out, name)

    if "--fuzz-seeds" in sys.argv[2:]:
        fuzz_seeds(at)
        return
    for name in os.listdir(out):
        os.remove(at(name))
    manifest = {
        "secret": SECRET,
        "oriented.jpg": oriented_jpeg(at("oriented.jpg")),
        "adobe-rgb.jpg": adobe_rgb_jpeg(at("adobe-rgb.jpg")),
        "photo.heic": heic(at("photo.heic")),
        "alpha.png": png_with_alpha(at("alpha.png")),
        "animated.gif": gif(at("animated.gif")),
        "photo.webp": webp(at("photo.webp")),
        "odd.png": plain(at("odd.png"), (333, 777), format="PNG"),
        "tiny.png": plain(at("tiny.png"), (3, 2), format="PNG"),
        "wide.png": plain(at("wide.png"), (10000, 1), colour=(10, 200, 30), format="PNG"),
        "tall.jpg": plain(at("tall.jpg"), (8, 10000), colour=(10, 200, 30), format="JPEG", quality=95),
        "grey16.png": plain(at("grey16.png"), (600, 400), mode="I;16", colour=30000, format="PNG"),
        "cmyk.jpg": plain(at("cmyk.jpg"), (300, 300), mode="CMYK", colour=(0, 255, 255, 0), format="JPEG", quality=95),
        "image.tiff": plain(at("image.tiff"), (100, 100), format="TIFF"),
        "bomb.png": png_bomb(at("bomb.png")),
        "bomb-small.png": png_bomb(at("bomb-small.png"), truncate_to=4096),
        "detailed.jpg": detailed_jpeg(at("detailed.jpg")),
        "truncated.jpg": detailed_jpeg(at("truncated.jpg"), truncated=True),
        "truncated-progressive.jpg": detailed_jpeg(at("truncated-progressive.jpg"), progressive=True, truncated=True),
        "large.jpg": large_jpeg(at("large.jpg")),
    }
    # Photos for the app's upload tests, each a colour of its own (so its WebP is too).
    for index in range(VARIANTS):
        colour = (index * 6 % 256, 255 - index * 5 % 256, (index * 37) % 256)
        manifest[f"variant-{index}.png"] = plain(at(f"variant-{index}.png"), (40, 30), colour=colour, format="PNG")
    with open(at("text.jpg"), "w") as file:
        file.write("This is a text file named .jpg, not an image.\n")
    with open(at("drawing.svg"), "w") as file:
        file.write('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>\n')
    open(at("empty.jpg"), "wb").close()
    for name in ("text.jpg", "drawing.svg", "empty.jpg"):
        manifest[name] = {}
    total = 0
    for name in sorted(os.listdir(out)):
        with open(at(name), "rb") as file:
            data = file.read()
        manifest[name]["sha256"] = hashlib.sha256(data).hexdigest()
        total += len(data)
    if total > BUDGET:
        sys.exit(f"photo_fixtures.py: the set is {total} bytes, over its budget of {BUDGET}")
    with open(at("manifest.json"), "w") as file:
        json.dump(manifest, file, indent=1)


if __name__ == "__main__":
    main()
