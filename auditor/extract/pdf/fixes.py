"""Fixes to pdfminer.six, applied in the PDF child before it parses: where pdfminer loops,
or lays out glyphs where a viewer does not draw them. Each is applied once per process and
marked, so applying it again is harmless.

A reference cycle (``3 0 obj 4 0 R endobj`` and ``4 0 obj 3 0 R endobj``, a few hundred bytes)
makes pdfminer.six's ``resolve1`` spin forever, so every such PDF would cost the whole time
limit. The child follows chains of indirect references itself and fails the PDF
(``pdf_error``) as soon as a chain comes back to an object it already passed.
"""

from __future__ import annotations

from auditor.sandbox.pool import Fail

MAX_CHAIN = 10_000


def guard_reference_cycles() -> None:
    """Make ``PDFObjRef.resolve`` follow a whole chain of references, failing on a cycle.

    pdfminer.six resolves with ``while isinstance(x, PDFObjRef): x = x.resolve()``, which never
    ends when the chain loops. Returning the end of the chain keeps that loop's result and ends
    it after one step; a chain that revisits an object raises instead.
    """
    from pdfminer.pdftypes import PDFObjRef

    if getattr(PDFObjRef.resolve, "_auditor_guarded", False):
        return
    one_step = PDFObjRef.resolve

    def resolve(self: PDFObjRef, default: object = None) -> object:
        seen = {self.objid}
        x = one_step(self, default)
        while isinstance(x, PDFObjRef):
            if x.objid in seen or len(seen) > MAX_CHAIN:
                raise Fail("pdf_error", "PDF has a cycle of indirect references (object "
                           f"{x.objid} is reached again from object {self.objid})")
            seen.add(x.objid)
            x = one_step(x, default)
        return x

    resolve._auditor_guarded = True  # type: ignore[attr-defined]
    PDFObjRef.resolve = resolve  # type: ignore[method-assign]


def widths_by_encoding() -> None:
    """Make a glyph of a standard font as wide as the font draws it, whatever its ToUnicode map says.

    pdfminer.six keys the widths of the 14 standard fonts by character and finds a glyph's
    character through the ToUnicode map first: a map that names other characters (Cyrillic
    look-alikes for Latin letters) leaves those glyphs without a width, so every glyph after
    one is laid out where a viewer does not draw it and lines fall apart into fragments. The
    width is the glyph's, so it is also looked up by the character the font's own encoding names.
    """
    from pdfminer.pdffont import PDFSimpleFont

    if getattr(PDFSimpleFont.char_width, "_auditor_guarded", False):
        return
    by_unicode_map = PDFSimpleFont.char_width

    def char_width(self: PDFSimpleFont, cid: int) -> float:
        width = by_unicode_map(self, cid)
        if width == self.default_width * self.hscale and self.unicode_map is not None:
            own = self.widths.get(self.cid2unicode.get(cid, ""))
            if isinstance(own, (int, float)) and own > 0:
                return float(own) * self.hscale
        return width

    char_width._auditor_guarded = True  # type: ignore[attr-defined]
    PDFSimpleFont.char_width = char_width  # type: ignore[method-assign,assignment]


# A compressed stream may inflate to at most this many times its size beyond _FREE bytes, and
# to at most the limit the request sets (Limits.pdf_max_stream_bytes); the streams of one PDF
# together to at most _TOTAL_TIMES that limit. Real content streams inflate under 10 times.
_RATIO = 100
_FREE = 2 * 2**20
_TOTAL_TIMES = 4
_BUDGET = {"stream": 64 * 2**20, "left": 256 * 2**20}


def _over(made: int, given: int, stream_cap: int) -> Fail:
    return Fail("pdf_bomb", f"a compressed stream of the PDF inflates past {made:,} bytes from {given:,} "
                f"(the limit for it is {stream_cap:,}): a decompression bomb, refused before it is "
                "parsed")


def _cap(given: int) -> int:
    return min(_BUDGET["stream"], max(_FREE, _RATIO * given), _BUDGET["left"])


def _spend(n: int) -> None:
    _BUDGET["left"] -= n


class _Inflater:
    """A ``zlib.decompressobj`` that stops at the budget (pdfminer feeds it a byte at a time)."""

    def __init__(self) -> None:
        import zlib

        self._d = zlib.decompressobj()
        self.given = self.made = 0

    def decompress(self, data: bytes) -> bytes:
        self.given += len(data)
        cap = _cap(self.given)
        out = self._d.decompress(data, cap - self.made + 1)
        self.made += len(out)
        if self.made > cap or self._d.unconsumed_tail:
            raise _over(self.made, self.given, cap)
        _spend(len(out))
        return out


class _BoundedZlib:
    """Stands for the zlib module in ``pdfminer.pdftypes``: inflation stops at the budget, with the
    results of zlib below it (a truncated stream raises ``zlib.error``, which sends pdfminer to
    its own byte-by-byte recovery, as before)."""

    def __init__(self) -> None:
        import zlib

        self.error = zlib.error
        self._zlib = zlib

    def decompress(self, data: bytes) -> bytes:
        d = self._zlib.decompressobj()
        cap = _cap(len(data))
        out = d.decompress(data, cap + 1)
        if len(out) > cap or d.unconsumed_tail:
            raise _over(len(out), len(data), cap)
        if not d.eof:
            raise self._zlib.error("Error -5 while decompressing data: incomplete or truncated stream")
        _spend(len(out))
        return out

    def decompressobj(self) -> _Inflater:
        return _Inflater()


def bound_inflation(max_stream_bytes: int) -> None:
    """Stop every stream's inflation (Flate, LZW) at a byte budget, for the PDF about to be read:
    a 391 KB flate bomb cost the whole PDF timeout (issue 40), and now fails at once as
    ``pdf_bomb``. pdfminer.six inflates whole streams with no limit of its own."""
    import pdfminer.pdftypes as types
    from pdfminer.lzw import LZWDecoder

    _BUDGET["stream"] = max(1, int(max_stream_bytes))
    _BUDGET["left"] = _TOTAL_TIMES * _BUDGET["stream"]
    if isinstance(types.zlib, _BoundedZlib):
        return

    def lzwdecode(data: bytes) -> bytes:
        import io

        cap, made, out = _cap(len(data)), 0, []
        for chunk in LZWDecoder(io.BytesIO(data)).run():
            made += len(chunk)
            if made > cap:
                raise _over(made, len(data), cap)
            out.append(chunk)
        _spend(made)
        return b"".join(out)

    types.zlib = _BoundedZlib()  # type: ignore[assignment]
    types.lzwdecode = lzwdecode
