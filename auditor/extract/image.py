"""Pictures (PNG, JPEG, GIF, TIFF, BMP, WebP) read as a reader sees them: the words they show,
read by OCR (:mod:`auditor.extract.ocr`, the engine PDF pages use). One reader serves a picture
file, which is a document (a TIFF scan of a court filing, a page photographed), and a picture
inside a submission (an EDGAR GRAPHIC: a logo, a signature, a chart), which is data: its words
are one more reading of the submission (:mod:`auditor.extract.data`).

The pixels are untrusted. Each frame (a page of a multi-page TIFF, a frame of a GIF) is decoded
and recognised in a child of :mod:`auditor.sandbox.pool` (the ``imageocr`` job), with the memory
limit of the PDF reader and a deadline per frame (``Limits.ocr_page_timeout``), so a
decompression or pixel bomb costs one child, never the caller. A frame over ``MAX_PIXELS`` is
not decoded (``image_too_large``); a file with more frames than ``Limits.max_pdf_pages`` is read
up to that many and the rest are unread.

A logo reads as a few words or none. A frame where OCR finds at least ``MANY_WORDS`` words with a
mean confidence under ``MIN_CONFIDENCE`` shows text that OCR cannot read reliably: it is *unread*
(as a PDF page is), and a document with more than a quarter of its frames unread is refused
whole (``unreadable``), so a blurred copy of a contract fails closed.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass, field
from typing import Any

from auditor.errors import ExtractionError, fix_for, refusal
from auditor.extract.common import Extracted, Limits, auditor_version, storable
from auditor.sandbox import pool as sandbox
from auditor.sandbox.pool import Fail

#: binary kinds (:func:`auditor.extract.detect.binary_kind`) this module reads
IMAGE_KINDS = ("png", "jpg", "gif", "tiff", "bmp", "webp")
#: pixels of one frame at most (a 600 dpi US letter scan is 34 million)
MAX_PIXELS = 64_000_000
#: a picture at most this wide and high is read at twice its size: the pictures of a screen page
#: (96 dpi charts and logos) hold letters too small for OCR, which reads them at twice the size
#: with a mean confidence of 80-88 instead of 50-55 (benchmarks/RESULTS.md, 2026-12-03)
UPSCALE_BELOW = 1200
#: a frame with this many words or more, OCR'd under MIN_CONFIDENCE, shows text not read reliably
MANY_WORDS = 40
MIN_CONFIDENCE = 60.0
#: a document with a larger share of unread frames is refused whole (as a PDF with unread pages)
MAX_UNREAD_SHARE = 0.25
_DEFAULT_DPI = 300

_COPY = "ingest a sharper copy, or a copy with the text itself (PDF with a text layer, .docx, plain text)"
refusal("image_error", f"the picture cannot be decoded (damaged or not a picture): {_COPY}")
refusal("image_too_large", f"the picture is larger than the reader decodes ({MAX_PIXELS} pixels a frame): "
                           f"scale it down, or {_COPY}")
refusal("image_unread", f"OCR cannot read what the picture shows: {_COPY}")
refusal("image-text", f"OCR cannot read more than a quarter of the picture's frames: {_COPY}")


@dataclass
class Frame:
    """One frame's recognition (0-based ``index``), or why it could not be read (``code``)."""

    index: int
    text: str = ""
    confidence: float = 0.0
    words: int = 0
    digest: str = ""
    cached: bool = False
    dpi: int = _DEFAULT_DPI
    size: tuple[int, int] = (0, 0)
    code: str | None = None
    message: str | None = None

    @property
    def illegible(self) -> bool:
        """It shows a paragraph's worth of words that OCR reads with low confidence."""
        return self.code is None and self.words >= MANY_WORDS and self.confidence < MIN_CONFIDENCE

    @property
    def reason(self) -> str | None:
        """Why the frame is unread, with its fix, or None."""
        if self.code is not None:
            return f"frame {self.index + 1}: OCR failed ({self.code}: {self.message}): {fix_for(self.code) or _COPY}"
        if self.illegible:
            return (f"frame {self.index + 1}: OCR finds {self.words} words at a mean confidence of {self.confidence:.0f}, "
                    f"under {MIN_CONFIDENCE:.0f}: it shows text that OCR cannot read reliably; {_COPY}")
        return None


@dataclass
class Picture:
    """What OCR read of a picture: each frame, the engine, and the frames left unread."""

    frames: list[Frame] = field(default_factory=list)
    n_frames: int = 0
    engine: dict[str, Any] = field(default_factory=dict)
    kind: str = ""

    @property
    def unread(self) -> list[Frame]:
        return [f for f in self.frames if f.reason is not None]

    @property
    def text(self) -> str:
        return "\f".join(f.text for f in self.frames)


class _Worker(sandbox.Worker):
    job = "imageocr"
    prefix = "ocr_"
    what = "OCR of a picture"
    retire_after = 500


_POOL = sandbox.register(sandbox.Pool(_Worker))


def _frame(data: bytes, index: int, limits: Limits) -> tuple[Frame, int, dict[str, Any]]:
    """Frame ``index`` recognised in a child: the frame, the file's frame count and the engine."""
    # ocr_* codes' fixes are declared with the PDF OCR job; import it so that they are known here
    from auditor.extract.pdf import ocr as _pdf_ocr  # noqa: F401

    timeout = limits.ocr_page_timeout
    try:
        msg, _ = _POOL.run({"frame": int(index), "timeout": float(timeout)}, data,
                           memory=int(limits.pdf_memory), deadline=time.monotonic() + timeout)
    except ExtractionError as e:
        return Frame(index, code=e.code, message=str(e)), 0, {}
    try:
        return (Frame(index, storable(str(msg["text"]), []), float(msg["confidence"]), int(msg["words"]),
                      str(msg["digest"]), bool(msg.get("cached")), int(msg["dpi"]),
                      (int(msg["size"][0]), int(msg["size"][1]))),
                int(msg["frames"]), dict(msg["engine"]))
    except (KeyError, TypeError, ValueError, IndexError):
        return Frame(index, code="ocr_crash", message="the OCR worker gave a malformed result"), 0, {}


def read_picture(data: bytes, kind: str, limits: Limits) -> Picture:
    """Every frame of a picture recognised, each in a child with its own deadline. Raises
    ``ocr_unavailable`` when no OCR engine is installed, and ``image_error`` or
    ``image_too_large`` when its first frame cannot be decoded: then nothing of it can be read."""
    if limits.ocr == "never":
        raise ExtractionError("image_unread", f"{kind} picture: OCR is off (--ocr never), and a picture is read by "
                                              "OCR: run with --ocr auto")
    first, n, engine = _frame(data, 0, limits)
    if first.code in ("ocr_unavailable", "image_error", "image_too_large"):
        raise ExtractionError(first.code, f"{kind} picture: {first.message}")
    out = Picture([first], max(n, 1), engine, kind)
    for i in range(1, min(out.n_frames, limits.max_pdf_pages)):
        frame, _, _ = _frame(data, i, limits)
        out.frames.append(frame)
    return out


def extract_image(data: bytes, limits: Limits, name: str = "") -> Extracted:
    """A picture file as a document: the words of each frame (pages of a TIFF scan), one page each.

    A picture that shows no words (a photograph, a logo OCR reads nothing in) has an empty text: it
    cannot hold a stored document. Frames OCR cannot read are named in ``meta["unread_pages"]``;
    beyond a quarter of them the document is ``unreadable`` (``image-text``)."""
    from auditor.extract.detect import binary_kind

    kind = binary_kind(data) or "image"
    pic = read_picture(data, kind, limits)
    texts = [f.text if f.reason is None else "" for f in pic.frames]
    texts = [t if not t or t.endswith("\n") else t + "\n" for t in texts]
    offsets, at = [], 0
    for t in texts:
        offsets.append(at)
        at += len(t)
    text = "".join(texts)
    if len(text) > limits.max_text_chars:
        raise ExtractionError("text_too_long", f"OCR of the picture gives {len(text)} characters, more than the "
                              f"limit of {limits.max_text_chars}")
    meta: dict[str, Any] = {"ocr": {**pic.engine, "kind": kind, "frames": [
        {"page": f.index + 1, "confidence": f.confidence, "words": f.words, "image_sha256": f.digest,
         "dpi": f.dpi, "size": list(f.size)} for f in pic.frames if f.code is None]}}
    unread = [{"page": f.index + 1, "reason": f.reason} for f in pic.unread]
    unread += [{"page": i + 1, "reason": f"frame {i + 1}: not read, the picture has more frames than "
                                          f"--max-pdf-pages ({limits.max_pdf_pages})"}
               for i in range(len(pic.frames), pic.n_frames)]
    unreadable = None
    if unread:
        meta["unread_pages"] = unread[:100]
        meta["unread_share"] = round(len(unread) / max(pic.n_frames, 1), 4)
        if len(unread) > MAX_UNREAD_SHARE * pic.n_frames:
            unreadable = (f"image-text: {len(unread)} of {pic.n_frames} frame(s) of the picture cannot be read: "
                          f"{unread[0]['reason']}")
    return Extracted("image", text, "auditor.image", auditor_version(),
                     page_offsets=offsets if pic.n_frames > 1 else None, meta=meta,
                     warnings=[f"read by OCR: {pic.n_frames} frame(s) of a {kind} picture"], unreadable=unreadable)


def picture_text(data: bytes, kind: str, limits: Limits) -> str:
    """The words a picture inside a submission shows (its frames' OCR, one after the other).
    Raises ExtractionError when a frame cannot be read (``image_unread``, with the frame's
    reason), when no OCR engine is installed, or when the picture cannot be decoded."""
    pic = read_picture(data, kind, limits)
    unread = pic.unread
    if unread:
        first = unread[0]
        raise ExtractionError(first.code if first.code in ("ocr_timeout", "ocr_memory") else "image_unread",
                              f"{kind} picture: {first.reason}")
    if pic.n_frames > len(pic.frames):
        raise ExtractionError("image_unread", f"{kind} picture: {pic.n_frames} frames, more than --max-pdf-pages "
                                              f"({limits.max_pdf_pages}) are read")
    return pic.text


# -- child side ------------------------------------------------------------------------------

def _open(data: bytes) -> Any:
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = None  # MAX_PIXELS below is checked per frame before it is decoded
    try:
        image = Image.open(io.BytesIO(data))
    except Exception as e:  # Pillow raises many kinds for a damaged file
        raise Fail("image_error", f"cannot decode it ({type(e).__name__}: {str(e)[:200]})") from e
    return image


def _pixels(image: Any, index: int) -> tuple[Any, int]:
    """Frame ``index`` as a grayscale image on white, and its resolution (dots per inch)."""
    from PIL import Image

    try:
        image.seek(index)
    except EOFError as e:
        raise Fail("image_error", f"the picture has no frame {index + 1}") from e
    w, h = image.size
    if w * h > MAX_PIXELS:
        raise Fail("image_too_large", f"frame {index + 1} is {w}x{h} pixels, over {MAX_PIXELS}")
    try:
        frame = image.copy() if getattr(image, "n_frames", 1) > 1 else image
        frame.load()
        if frame.mode in ("RGBA", "LA", "PA") or "transparency" in frame.info:
            white = Image.new("RGBA", frame.size, (255, 255, 255, 255))
            frame = Image.alpha_composite(white, frame.convert("RGBA"))
        gray = frame.convert("L")
    except Fail:
        raise
    except Exception as e:
        raise Fail("image_error", f"cannot decode frame {index + 1} ({type(e).__name__}: {str(e)[:200]})") from e
    dpi = image.info.get("dpi")
    try:
        x = float(dpi[0]) if isinstance(dpi, tuple) else 0.0
    except (TypeError, ValueError, IndexError):
        x = 0.0
    resolution = int(x) if 70 <= x <= 1200 else _DEFAULT_DPI
    if max(w, h) <= UPSCALE_BELOW and 4 * w * h <= MAX_PIXELS:
        gray = gray.resize((2 * w, 2 * h), Image.Resampling.LANCZOS)
        resolution *= 2
    return gray, resolution


def handle(request: dict, data: bytes) -> tuple[dict, list[bytes]]:
    """The ``imageocr`` job, in the child: one frame of a picture decoded and recognised."""
    from auditor.extract import ocr

    try:
        info = ocr.engine()
    except ExtractionError as e:
        raise Fail(e.code, str(e)) from e
    image = _open(data)
    frames = int(getattr(image, "n_frames", 1) or 1)
    gray, dpi = _pixels(image, int(request["frame"]))
    low, high = gray.getextrema()
    size = list(gray.size)
    if high - low < 32:  # one shade: no letter to read
        return {"text": "", "confidence": 0.0, "words": 0, "digest": "", "cached": False, "dpi": dpi,
                "size": size, "frames": frames, "engine": info}, []
    return {**ocr.recognise(gray, dpi), "dpi": dpi, "size": size, "frames": frames, "engine": info}, []


def classify(e: BaseException) -> tuple[str, str]:
    if isinstance(e, Fail):
        return e.code, str(e)
    if sandbox.is_memory_error(e):
        return "ocr_memory", "the OCR worker ran out of memory decoding the picture"
    return "ocr_error", f"{type(e).__name__}: {str(e)[:500]}"
