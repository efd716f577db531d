"""Fonts for the red team's third round: a font that draws other letters than its character map
names, and a font whose glyphs draw nothing. Both are made from Aileron Regular, the font that
Pillow ships inside its own code (``PIL.ImageFont.load_default``), so nothing is read from the
system's font folders.

A document that uses such a font shows a reader one text and gives every reading of its
characters another: the character map is the only thing a text layer keeps of a font.
"""

from __future__ import annotations

import base64
import functools
import inspect
import io
import re
import string

LETTERS = string.ascii_lowercase


@functools.cache
def aileron() -> bytes:
    """The TrueType bytes of Aileron Regular, as Pillow ships them."""
    from PIL import ImageFont

    blobs = re.findall(r'b64decode\(\s*b"""(.*?)"""', inspect.getsource(ImageFont.load_default), re.S)
    if not blobs:
        raise RuntimeError("this Pillow has no built-in TrueType font")
    return base64.b64decode(blobs[-1])


def _save(font: object) -> bytes:
    buf = io.BytesIO()
    font.save(buf)  # type: ignore[attr-defined]
    return buf.getvalue()


def _rename(font: object, family: str) -> None:
    name = font["name"]  # type: ignore[index]
    for rec in list(name.names):
        if rec.nameID in (1, 4, 6, 16, 17):
            name.removeNames(nameID=rec.nameID)
    for nid, value in ((1, family), (2, "Regular"), (4, family), (6, family.replace(" ", "")), (16, family)):
        name.setName(value, nid, 3, 1, 0x409)
        name.setName(value, nid, 1, 0, 0)


def remapped(shows: dict[str, str], family: str = "Exhibit Sans") -> bytes:
    """Aileron with its character map changed: character ``c`` is drawn as the glyph of
    ``shows[c]`` (upper case follows lower case). Kerning and substitutions are dropped, so
    each glyph is drawn as it is."""
    from fontTools.ttLib import TTFont

    font = TTFont(io.BytesIO(aileron()))
    for tag in ("GSUB", "GPOS", "GDEF", "kern", "FFTM"):
        if tag in font:
            del font[tag]
    font["OS/2"].fsType = 0  # installable: a word processor uses an embedded font only then
    full = dict(shows) | {k.upper(): v.upper() for k, v in shows.items() if k.isalpha()}
    for table in font["cmap"].tables:  # tables may share one mapping: each gets a new one
        if not table.isUnicode():
            continue
        old = dict(table.cmap)
        table.cmap = old | {ord(c): old[ord(d)] for c, d in full.items() if ord(d) in old}
    _rename(font, family)
    return _save(font)


def rot13() -> dict[str, str]:
    return {c: LETTERS[(i + 13) % 26] for i, c in enumerate(LETTERS)}


def permutation(seed: int) -> dict[str, str]:
    import random

    shuffled = list(LETTERS)
    random.Random(seed).shuffle(shuffled)
    return dict(zip(LETTERS, shuffled, strict=True))


def encode(text: str, shows: dict[str, str]) -> str:
    """The characters to store so that a font of :func:`remapped` (``shows``) draws ``text``."""
    back = {v: k for k, v in shows.items()} | {v.upper(): k.upper() for k, v in shows.items()}
    return "".join(back.get(ch, ch) for ch in text)


def blank(family: str = "Exhibit Blank") -> bytes:
    """A font whose every printable ASCII character is a glyph that draws nothing and takes no
    room: text set in it is in every text layer and nowhere on the page."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    chars = [chr(c) for c in range(33, 127)]
    names = [".notdef", "space", *(f"g{ord(c)}" for c in chars)]
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(names)
    fb.setupCharacterMap({32: "space", **{ord(c): f"g{ord(c)}" for c in chars}})
    empty = TTGlyphPen(None).glyph()
    fb.setupGlyf({n: empty for n in names})
    fb.setupHorizontalMetrics({n: (0, 0) for n in names})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": family, "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=800, sTypoDescender=-200, usWinAscent=800, usWinDescent=200, fsType=0)
    fb.setupPost()
    return _save(fb.font)


def obfuscate(font: bytes, key: str) -> bytes:
    """The font as a .docx embeds it (ECMA-376 part 1, 17.8.1): its first 32 bytes XORed with
    the font key, a GUID whose bytes are taken in reverse order."""
    k = bytes.fromhex(key.strip("{}").replace("-", ""))[::-1]
    head = bytes(b ^ k[i % 16] for i, b in enumerate(font[:32]))
    return head + font[32:]
