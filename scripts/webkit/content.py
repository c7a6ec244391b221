"""Bodies the proxy serves, chosen so that every element's load/error event fires quickly and truthfully.

A load that reaches the proxy always gets a well-formed answer of the right kind (a PNG for images,
CSS for style sheets, a real font for fonts, a short WAV for media ...), so a load that *fails* in the
page while the proxy saw it means something other than content blocking went wrong.
"""

import io
import struct
import wave
import zlib

HTML_EMPTY = b"<!DOCTYPE html><html><head><meta charset=utf-8></head><body></body></html>"


def _png_1x1():
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)  # 1x1 RGBA
    idat = zlib.compress(b"\x00\x00\x00\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _wav():
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(b"\x80" * 800)  # 0.1 s of silence
    return buf.getvalue()


def _font():
    # Any real TrueType font makes the FontFace load succeed; fall back to junk (the load then ends in
    # an error event, which the harness still distinguishes from blocking through the proxy log).
    for path in (
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    ):
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError:
            continue
    return b"not a font"


PNG = _png_1x1()
WAV = _wav()
FONT = _font()
SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg"><symbol id="i" viewBox="0 0 1 1">'
    b'<rect width="1" height="1"/></symbol></svg>'
)

_BY_TYPE = {
    "top-document": (200, "text/html; charset=utf-8", HTML_EMPTY),
    "child-document": (200, "text/html; charset=utf-8", HTML_EMPTY),
    "script": (200, "application/javascript", b"/* radarblock harness */\n"),
    "style-sheet": (200, "text/css", b"/* radarblock harness */\n"),
    "image": (200, "image/png", PNG),
    "font": (200, "font/ttf", FONT),
    "media": (200, "audio/wav", WAV),
    "svg-document": (200, "image/svg+xml", SVG),
    "fetch": (200, "application/json", b"{}"),
    "ping": (204, "text/plain", b""),
    "other": (200, "text/plain", b""),
}


def body_for(hint, url, accept):
    """(status, content-type, body, extra headers) for a request the harness did not route explicitly."""
    if hint in _BY_TYPE:
        status, ctype, body = _BY_TYPE[hint]
        return status, ctype, body, []
    path = url.split("?", 1)[0].split("#", 1)[0].lower()
    for ext, t in (
        (".js", "script"),
        (".css", "style-sheet"),
        (".png", "image"),
        (".gif", "image"),
        (".jpg", "image"),
        (".ttf", "font"),
        (".woff", "font"),
        (".woff2", "font"),
        (".wav", "media"),
        (".mp3", "media"),
        (".svg", "svg-document"),
        (".html", "child-document"),
    ):
        if path.endswith(ext):
            status, ctype, body = _BY_TYPE[t]
            return status, ctype, body, []
    if "text/html" in accept:
        return 200, "text/html; charset=utf-8", HTML_EMPTY, []
    if accept.startswith("image/"):
        return 200, "image/png", PNG, []
    if "text/css" in accept:
        return 200, "text/css", b"", []
    return 200, "text/plain", b"", []
