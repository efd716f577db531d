"""The rendered reading of each new document, and its check against the extraction.

A reader models a format; a hostile submitter looks for what the model misses. So a gate asks a
real renderer too (:mod:`auditor.extract.render`: Chromium, LibreOffice, pdfium) and uses what
it shows in two ways:

- as one more reading of the document, audited against the corpus like the others
  (:mod:`auditor.gating.readings`): a stored contract that the page shows is a finding, whatever
  the extraction made of it;
- as a check of the extraction: when the rendering and the stored text disagree by more than
  ``TOLERANCE`` of either one's shingles, the document is not auditable (CONTAIN006,
  ``render-mismatch``). It fails closed: the tool does not read it as a reader does.

The renderer's text is its character codes, not what it draws. So OCR (Tesseract, through
:mod:`auditor.extract.render`) reads what it draws, where the codes may not say it:

- a .docx whose only constructs outside the model are fonts it embeds: every page of
  LibreOffice's rendering (``MAX_OCR_PAGES`` at most). Its words are compared with the stored
  text; within ``OCR_TOLERANCE`` the fonts draw what the text holds and the gate vouches for
  them (``Rendered.vouched``), else the document fails closed (``render-mismatch``). Either way
  the OCR text is the reading ``ocr:libreoffice``: a stored contract a font draws is a finding.
- any other HTML or office rendering: the pictures it draws that could hold a line of words
  (an ``<img>`` of a scanned page; a logo or a signature costs a fraction of a second, and the
  cache keeps what was read). Their text is the reading ``ocr:<renderer>-pictures``, audited
  like the others; it is not compared with the stored text, which never holds it.

``--render``: ``auto`` (the default) renders the formats whose renderer is installed and notes
the others; ``always`` fails closed where no renderer can draw a document of a format that has
one; ``never`` renders nothing. A format without a renderer (plain text, EDGAR's SGML envelope)
is not rendered, and the report's notes say so.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from auditor.errors import ExtractionError, UsageError, refusal
from auditor.extract.model.docx import embedded_fonts
from auditor.extract.render import (
    Rendering,
    RenderInput,
    Seen,
    missing,
    ocr_pages,
    ocr_pictures,
    render_many,
    renderer_for,
)
from auditor.gating.batch import BatchView, Sighting, sighting_provenance
from auditor.gating.classify import Locator
from auditor.gating.findings import Finding
from auditor.store.db import Store
from auditor.text.shingle import distinct, text_shingles

MODES = ("auto", "always", "never")
TOLERANCE = 0.15  # share of a side's shingles the other side may lack before the reading fails closed
#: share of its words that OCR of a rendering, or the stored text, may lack before the document
#: fails closed (and ``OCR_SLACK`` words more, for a short document): on renderings of real text
#: OCR (tessdata-fast) agrees on 94-100% of words, and a font that draws other letters leaves
#: 1-5% (benchmarks/RESULTS.md)
OCR_TOLERANCE = 0.15
OCR_SLACK = 5


@dataclass
class Agreement:
    """How far the rendering and the stored text agree, in distinct 5-word shingles (or, for a PDF,
    in words: :func:`word_agreement`)."""

    rendered: int
    stored: int
    shared: int
    unit: str = "shingles"

    @property
    def shown_stored(self) -> float:
        """The share of what the page shows that the store holds."""
        return self.shared / self.rendered if self.rendered else 1.0

    @property
    def stored_shown(self) -> float:
        """The share of what the store holds that the page shows."""
        return self.shared / self.stored if self.stored else 1.0

    def problem(self, tolerance: float = TOLERANCE, slack: int = 0) -> str | None:
        low = 1 - tolerance
        parts = []
        if self.shown_stored < low and self.rendered - self.shared > slack:
            parts.append(f"the rendered page shows text the stored reading lacks ({self.shown_stored:.0%} of "
                         f"the page's {self.unit} are stored)")
        if self.stored_shown < low and self.stored - self.shared > slack:
            parts.append(f"the stored reading holds text the rendered page does not show ({self.stored_shown:.0%} "
                         f"of its {self.unit} are on the page)")
        return "; ".join(parts) or None


@dataclass
class Rendered:
    """What the rendering step did for the batch: findings, and what it could not render."""

    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    renderers: dict[str, str] = field(default_factory=dict)  # renderer -> version, of those that ran
    unrendered: dict[str, list[str]] = field(default_factory=dict)  # reason -> paths
    #: doc id -> the constructs outside its model the rendering vouched for (embedded fonts OCR read)
    vouched: dict[int, list[str]] = field(default_factory=dict)
    #: what OCR read: documents, pages, pictures, seconds
    ocr: dict[str, float] = field(default_factory=dict)


#: a number that opens a line, as a list's marker: a renderer draws an ordered list's numbers, the
#: readers do not store them (markers are not text of the document); both sides lose them
_MARKER = re.compile(r"(?m)^[ \t]*\d{1,3}[.)][ \t]+")


def _unnumbered(text: str) -> str:
    """The text without a line-number margin, read by the plain-text reader's own margin rule
    (:func:`auditor.extract.layout.pleading_margin`): a page draws a plain-text body's margin,
    which the reader skips (a mail body on pleading paper), and which would otherwise break
    every shingle the two sides share. Both sides lose it, as both lose a list's markers: the
    check compares what the page shows with what is stored, not where margins are read."""
    from auditor.extract.layout import pleading_margin

    lines = text.replace("\r\n", "\n").replace("\r", "\n")
    got = pleading_margin(lines)
    return got.text if got is not None and got.unreadable is None else text


def agreement(store: Store, rendered: str, stored: str) -> Agreement:
    params = store.params
    a = distinct(text_shingles(_MARKER.sub("", _unnumbered(rendered)), params)[1])
    b = distinct(text_shingles(_MARKER.sub("", _unnumbered(stored)), params)[1])
    return Agreement(len(a), len(b), len(np.intersect1d(a, b, assume_unique=True)))


def word_agreement(rendered: str, stored: str) -> Agreement:
    """How far two texts agree in their normalised words, counted with repeats, in any order."""
    from collections import Counter

    from auditor.text.normalize import words_bytes

    a, b = Counter(words_bytes(rendered)), Counter(words_bytes(stored))
    return Agreement(sum(a.values()), sum(b.values()), sum((a & b).values()), unit="words")


def ocr_agreement(seen: str, stored: str) -> Agreement:
    """How far OCR of a rendering and the stored text agree, in their words of three characters
    or more that hold a letter, counted with repeats, in any order. OCR drops lone digits (the
    zeros of a table), single letters and rules; the words a contract is made of it reads. A font
    that draws other letters changes those words."""
    from collections import Counter

    from auditor.text.normalize import words_bytes

    def kept(text: str) -> Counter[bytes]:
        return Counter(w for w in words_bytes(text) if len(w) >= 3 and any(c >= 0x61 for c in w))

    a, b = kept(seen), kept(stored)
    return Agreement(sum(a.values()), sum(b.values()), sum((a & b).values()), unit="words")


@dataclass
class TwoWay:
    """The two checks of a PDF's rendering (:func:`pdf_agreement`), each in the direction it can
    judge: what the page shows that no glyph of the extraction holds, and what the stored
    reading holds that the page does not show."""

    shown: Agreement  # the rendering against every glyph the extraction found
    kept: Agreement  # the rendering against the stored reading

    def problem(self, tolerance: float = TOLERANCE, slack: int = 0) -> str | None:
        low = 1 - tolerance
        parts = []
        a, k = self.shown, self.kept
        if a.shown_stored < low and a.rendered - a.shared > slack:
            parts.append(f"the rendered page shows text the stored reading lacks ({a.shown_stored:.0%} of the page's "
                         f"{a.unit} are stored)")
        if k.stored_shown < low and k.stored - k.shared > slack:
            parts.append(f"the stored reading holds text the rendered page does not show ({k.stored_shown:.0%} of its "
                         f"{k.unit} are on the page)")
        return "; ".join(parts) or None


def pdf_agreement(store: Store, doc: dict, rendered: str, stored: str) -> TwoWay:
    """Whether pdfium and the extraction find the same words in a PDF, and whether the page shows
    the words the stored reading holds.

    pdfium's reading is the text layer, less the glyphs that do not change the page it draws
    (:func:`auditor.extract.render.unseen_chars`: the colour of what lies beneath, a font that
    draws nothing, a clip, optional content that is off, a cover). Its order is not a reading
    order: on 4 of 23 real court PDFs (line numbers of pleading paper, running heads, columns) it
    shares only 55-78% of its 5-word shingles with the stored text, though the words are the
    same. So words are compared, in any order, each way against what it can judge:

    - the page's words against every glyph the extraction found (the ``pdf:all-text`` reading,
      when the reader hid glyphs): an engine that parses other content (another revision of the
      file, other glyph codes) shows words no glyph holds;
    - the stored reading's words against the page's: a glyph the reader keeps and the drawing
      does not show is junk hidden from a reader. The other way (a glyph the page shows that the
      reader hides) is not judged here: a glyph drawn over another one is seen by the drawing
      whatever hides it, and the reader's model decides.

    Reading order is checked elsewhere, by the readings (``pdf:rows``)."""
    every = next((r["text"] for r in store.readings(doc["id"]) if r["name"] == "pdf:all-text"), None)
    seen, kept = _compared(doc, rendered, stored)
    return TwoWay(word_agreement(rendered, every) if every is not None else word_agreement(seen, kept),
                  word_agreement(seen, kept))


def render_batch(store: Store, view: BatchView, mode: str, loc: Locator, *, timeout: float = 60.0) -> Rendered:
    """Render each new document that has a renderer, store what it shows as the reading
    ``render:<renderer>``, and fail closed where it disagrees with the extraction."""
    if mode not in MODES:
        raise UsageError(f"--render must be one of {', '.join(MODES)}, not {mode!r}")
    out = Rendered()
    if mode == "never":
        out.notes.append("--render never: no document was rendered, so no rendered reading checked the extraction")
        return out
    seen: set[int] = set()
    todo: list[tuple[Sighting, RenderInput]] = []
    containers: dict[str, dict[str, bytes]] = {}  # a container's parts, by sha256, read once
    for s in view.sightings:
        if s.doc_id in seen:
            continue
        seen.add(s.doc_id)
        doc = store.document(s.doc_id)
        renderer = renderer_for(doc["format"])
        if renderer is None:
            if str(doc["format"]).endswith("-archive"):
                _archive(store, s, doc, loc, out, containers)
            continue
        why = missing(renderer)
        if why:
            if mode == "always":
                out.findings.append(_finding(store, s, loc, "render_missing", f"not rendered: {why}"))
            else:
                out.unrendered.setdefault(why, []).append(s.display)
            continue
        data = _part_bytes(s, doc["sha256"], containers) if s.part else _bytes(s, doc["sha256"])
        if data is None:
            out.findings.append(_finding(store, s, loc, "render_failed", "not rendered: the file changed or "
                                         "went away after it was ingested, so its rendering is not of this document"))
            continue
        name = str(s.meta.get("filename") or s.resolved) if s.part else s.resolved
        todo.append((s, RenderInput(doc["format"], data, name, doc.get("encoding"))))
    for (s, _), r in zip(todo, render_many([d for _, d in todo], timeout=timeout), strict=True):
        if isinstance(r, ExtractionError):
            out.findings.append(_finding(store, s, loc, r.code, f"not rendered: {r}"))
            continue
        out.renderers[r.renderer] = r.version
        _keep(store, s.doc_id, r)
        doc = store.document(s.doc_id)
        problem = (pdf_agreement(store, doc, r.text, store.text(s.doc_id)) if doc["format"] == "pdf"
                   else agreement(store, r.text, store.text(s.doc_id))).problem()
        if problem:
            out.findings.append(_finding(store, s, loc, "render_mismatch", f"{r.renderer} {r.version}: {problem}"))
        _read_drawn(store, s, loc, doc, r, mode, out)
    if out.ocr:
        o = out.ocr
        out.notes.append(f"OCR read what the renderers drew: {o.get('pages', 0):g} page(s) of {o.get('font_docs', 0):g} "
                         f"document(s) with embedded fonts ({len(out.vouched)} vouched for), {o.get('pictures', 0):g} "
                         f"picture(s) of {o.get('picture_docs', 0):g} document(s), in {o.get('seconds', 0):.1f} s")
    for why, paths in sorted(out.unrendered.items()):
        out.notes.append(f"not rendered ({why}): {len(paths)} document(s), the first {paths[0]}; their extraction was "
                         "not checked against a rendering")
    return out


def _read_drawn(store: Store, s: Sighting, loc: Locator, doc: dict, r: Rendering, mode: str, out: Rendered) -> None:
    """OCR of what the renderer drew (see the module's docstring): the pages of a .docx whose
    embedded fonts are all that is outside its model, else the pictures of the rendering."""
    if r.pdf is None:
        return
    unmodelled = list(doc.get("unmodelled") or [])
    fonts = embedded_fonts(unmodelled) if doc["format"] == "docx" else []
    if fonts and len(fonts) < len(unmodelled):
        return  # other constructs are outside the model: it fails closed whatever the fonts draw
    seen = ocr_pages(r.pdf) if fonts else ocr_pictures(r.pdf)
    if seen.code:
        _ocr_failed(store, s, loc, seen, mode, out, bool(fonts))
        return
    if not seen.texts:
        return
    o = out.ocr
    o["seconds"] = round(o.get("seconds", 0) + seen.seconds, 2)
    o["font_docs" if fonts else "picture_docs"] = o.get("font_docs" if fonts else "picture_docs", 0) + 1
    o["pages" if fonts else "pictures"] = o.get("pages" if fonts else "pictures", 0) + len(seen.texts)
    out.renderers["ocr"] = seen.engine
    name = f"ocr:{r.renderer}" if fonts else f"ocr:{r.renderer}-pictures"
    why = (f"what OCR ({seen.engine}) reads on the pages {r.renderer} drew" if fonts
           else f"what OCR ({seen.engine}) reads in the {len(seen.texts)} picture(s) {r.renderer} drew")
    _keep_text(store, s.doc_id, name, why, seen.text)
    if not fonts:
        return
    problem = ocr_agreement(seen.text, store.text(s.doc_id)).problem(OCR_TOLERANCE, OCR_SLACK)
    if problem:
        out.findings.append(_finding(store, s, loc, "render_mismatch", f"OCR ({seen.engine}) of the pages "
                                     f"{r.renderer} drew reads other words than the stored text, so the fonts it "
                                     f"embeds draw other letters than its characters: {problem}"))
    else:
        out.vouched[s.doc_id] = fonts


refusal("render_archive", "unpack the archive and gate the files it holds: each is then rendered and checked")


def _archive(store: Store, s: Sighting, doc: dict, loc: Locator, out: Rendered,
             containers: dict[str, dict[str, bytes]]) -> None:
    """An archive (a zip or gzip part) whose members include a document a renderer draws (a PDF,
    an office document, HTML): its reading was never checked against a rendering, and the gate
    does not draw an archive's members, so it fails closed (``render_archive``)."""
    from auditor.extract.archive import member_formats

    data = _part_bytes(s, doc["sha256"], containers) if s.part else _bytes(s, doc["sha256"])
    try:
        drawn = [f"{m} ({f})" for m, f in member_formats(data or b"", str(s.meta.get("filename") or s.resolved))
                 if renderer_for(f) is not None]
    except ExtractionError as e:
        drawn = [f"its members ({e.code})"]
    if drawn:
        out.findings.append(_finding(store, s, loc, "render_archive", "not rendered: the archive holds "
                                     f"{', '.join(drawn[:5])}{' and more' if len(drawn) > 5 else ''}, which a reader "
                                     "sees as a renderer draws it; the gate does not render an archive's members"))


def _ocr_failed(store: Store, s: Sighting, loc: Locator, seen: Seen, mode: str, out: Rendered, fonts: bool) -> None:
    """OCR could not read a rendering. An embedded font is then not vouched for (the document
    fails closed as outside the model). Pictures not read fail closed, unless no OCR engine is
    installed and --render is auto: then the report says so, as for a renderer not installed."""
    if seen.code == "ocr_unavailable" and mode == "auto":
        out.unrendered.setdefault(f"no OCR engine, so its {'pages' if fonts else 'pictures'} were not read: "
                                  f"{seen.message}", []).append(s.display)
    elif not fonts:
        out.findings.append(_finding(store, s, loc, seen.code or "ocr_error", f"pictures not read: {seen.message}"))
    else:
        out.notes.append(f"{s.display}: its embedded fonts were not vouched for by OCR: {seen.message}")


def _compared(doc: dict, rendered: str, stored: str) -> tuple[str, str]:
    """The two sides of the check. For a PDF, only the pages whose stored text is their text layer.

    pdfium's reading is a page's text layer. A page that OCR read (a scan, text drawn as outlines)
    has no layer, or one that misses what it shows, and its stored text is already a reading
    of pdfium's own rendering. A page that could not be read stores nothing; the gate reports
    it as not auditable. Neither page is compared with a text layer. Other pages are compared
    as they are. If pdfium finds another page count, the whole texts are compared."""
    meta = doc.get("meta") or {}
    skip = {int(p["page"]) for p in (meta.get("ocr") or {}).get("pages") or [] if p.get("used") == "ocr"}
    skip |= {int(p["page"]) for p in meta.get("unread_pages") or []}
    offsets = doc.get("page_offsets")
    shown = rendered.split("\f")
    if doc.get("format") != "pdf" or not skip or not offsets or len(shown) != len(offsets):
        return rendered, stored
    ends = [*offsets[1:], len(stored)]
    keep = [i for i in range(len(offsets)) if i + 1 not in skip]
    return "\f".join(shown[i] for i in keep), "".join(stored[offsets[i] : ends[i]] for i in keep)


def _bytes(s: Sighting, sha256: str | None) -> bytes | None:
    """The file's bytes, when they are still those ingested (``sha256``, when given)."""
    try:
        data = Path(s.resolved).read_bytes()
    except OSError:
        return None
    return data if sha256 is None or hashlib.sha256(data).hexdigest() == sha256 else None


def _part_bytes(s: Sighting, sha256: str, containers: dict[str, dict[str, bytes]] | None = None) -> bytes | None:
    """What a part holds, when its container still holds the part ingested: an EDGAR part's
    ``<TEXT>`` unwrapped (its HTML, or its decoded file); the bytes of any other container's part
    (an email's attachment, an archive's member), found by reading the container again.
    ``containers`` keeps each container's parts for the next part of the same file."""
    from auditor.extract import edgar

    data = _bytes(s, None)
    if data is None:
        return None
    if edgar.is_submission(data):
        for d in edgar.parse(data).documents:
            if hashlib.sha256(d.raw).hexdigest() == sha256:
                return edgar.content(d.raw).payload
        return None
    parts = containers.get(s.resolved) if containers is not None else None
    if parts is None:
        parts = _parts_of(data, s.resolved)
        if containers is not None:
            containers[s.resolved] = parts
    return parts.get(sha256)


def _parts_of(data: bytes, name: str) -> dict[str, bytes]:
    """The parts a container (an email, an archive) holds, by the sha256 of their bytes, as the
    ingest read them (:attr:`auditor.extract.common.Extracted.parts`)."""
    from auditor.extract import extract_bytes

    try:
        ex = extract_bytes(data, name)
    except ExtractionError:
        return {}
    return {hashlib.sha256(p.raw).hexdigest(): p.raw for p in ex.parts}


def _keep(store: Store, doc_id: int, r: Rendering) -> None:
    _keep_text(store, doc_id, f"render:{r.renderer}", f"what {r.renderer} ({r.version}) shows of the document", r.text)


def _keep_text(store: Store, doc_id: int, name: str, why: str, text: str) -> None:
    """One more reading of a document, when it has a shingle to audit."""
    from auditor.text.entry import prepare_text
    from auditor.text.shingle import WordHasher

    p = prepare_text(text, store.params, WordHasher(store.params.seed))
    if not p["n_shingles"]:
        return
    with store.write("reading", {"doc_id": doc_id, "name": name}):
        store.insert_reading(doc_id, {
            "name": name, "why": why, "text": text, "n_words": p["n_words"], "n_shingles": p["n_shingles"],
            "norm_sha256": p["norm_sha256"]})


def _finding(store: Store, s: Sighting, loc: Locator, code: str, message: str) -> Finding:
    new = {**sighting_provenance(store, s), "code": code, "message": message}
    f = Finding("not-auditable", new, None, True, None, "not auditable")
    loc.locate(f, s)
    return f
