"""What every format's extractor returns, the limits it works under, and the checks every
stored text passes (storable in SQLite, not empty, not over the size limit)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version

from auditor.errors import ExtractionError, refusal

# What to do about the refusals every format's reader can raise (auditor.errors.refusal).
refusal("too_large", "if it is a real document, raise --max-file-mb (ingest, gate); else leave it out")
refusal("text_too_long", "if it is a real document, raise --max-text-chars (ingest), or split it")
refusal("empty", "nothing to read: if a reader sees text in it, ingest a copy that holds the text")
refusal("binary", "it is not a format the auditor reads (a word processor's own format, such as WordPerfect "
                  "or Word 97-2003, or other binary data): open it in the program that made it, save it as "
                  "PDF, .docx or plain text, and ingest that")
refusal("internal_error", "a bug in the auditor: run it again with AUDITOR_DEBUG=1 and report the message "
                          "and the file's format")


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 100 * 2**20
    max_text_chars: int = 20_000_000
    pdf_timeout: float = 120.0
    pdf_memory: int = 2 * 2**30
    max_pdf_pages: int = 5000
    #: bytes one compressed PDF stream may inflate to (``pdf_bomb`` beyond; the streams of a PDF
    #: together to four times this, and a stream beyond 2 MiB to at most 100 times its size)
    pdf_max_stream_bytes: int = 64 * 2**20
    #: OCR of PDF pages: "auto" (pages whose text layer misses what they show), "always", "never"
    ocr: str = "auto"
    #: seconds to render and recognise one page
    ocr_page_timeout: float = 60.0
    #: EDGAR documents read from one submission; the rest are recorded as one failed part.
    max_parts: int = 1000
    # Enforced by ingest, which extracts every input in an auditor.sandbox.pool child process:
    #: seconds for one input file, all its parts and PDFs included;
    timeout: float = 300.0
    #: address-space limit of that child, in bytes;
    memory: int = 2**30
    #: seconds for a whole ingest batch (None: no limit); inputs left over are recorded for a re-run.
    budget: float | None = None


@dataclass
class Extracted:
    format: str
    text: str
    extractor: str
    extractor_version: str
    encoding: str | None = None
    page_offsets: list[int] | None = None
    meta: dict = field(default_factory=dict)
    parts: list[Part] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unreadable: str | None = None
    """Why (part of) this document's text could not be read, so it cannot be audited; the
    text that could be read is still returned and stored."""
    unmodelled: list[str] = field(default_factory=list)
    """The constructs of this document outside its reader's model (:mod:`auditor.extract.model`),
    each named once (``"html: element <slot>"``): a gate does not vouch for such a document."""
    readings: list[Reading] = field(default_factory=list)
    """Other ways a reader could see this document than ``text`` (its visible reading, the one
    stored and audited): the gate audits each of them too."""


@dataclass(frozen=True)
class Reading:
    """One reading of a document other than its visible text: every text node, the other side
    of an alternative, the bytes as plain text, what an EDGAR envelope holds outside its
    documents. A hostile submitter can hide a copy from one reading, not from all of them.

    ``name`` is stable and short (``all-text``, ``docx:choice``, ``as-plain-text``...), ``why``
    says in one sentence what the reading is.
    """

    name: str
    text: str
    why: str


@dataclass
class Part:
    raw: bytes
    meta: dict
    status: str
    extracted: Extracted | None
    code: str | None = None
    message: str | None = None
    data: bytes | None = None
    """A part skipped as data, not prose (XBRL, JSON, a picture...), that a reader of data can read
    (:mod:`auditor.extract.data`): its content, which a gate reads (:mod:`auditor.extract.prepare`)."""


@functools.cache
def version_of(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "unknown"


def auditor_version() -> str:
    from auditor import __version__

    return __version__


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(text: str, warnings: list[str]) -> str:
    """Normalise line ends; replace NUL and lone surrogates, which SQLite text cannot hold."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text or not text.isascii():
        text, n = _UNSTORABLE.subn("\ufffd", text)
        if n:
            warnings.append(f"replaced {n} NUL or lone surrogate characters with U+FFFD")
    return text


def check_text(text: str, what: str, limits: Limits) -> str:
    if not text.strip():
        raise ExtractionError("empty", f"{what} has no text")
    if len(text) > limits.max_text_chars:
        raise ExtractionError(
            "text_too_long", f"{what} gives {len(text)} characters, more than the limit of {limits.max_text_chars}")
    return text


def inherit(marked: set[str], parent: dict[str, str]) -> set[str]:
    """``marked`` styles and every style based on one of them, through ``parent`` (style name ->
    the style it is based on, ``""`` for none). A cycle of parents ends the walk."""
    out = set(marked)
    for name in parent:
        seen, p = set(), name
        while p and p not in seen:
            seen.add(p)
            if p in marked:
                out.add(name)
                break
            p = parent.get(p, "")
    return out
