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

``--render``: ``auto`` (the default) renders the formats whose renderer is installed and notes
the others; ``always`` fails closed where no renderer can draw a document of a format that has
one; ``never`` renders nothing. A format without a renderer (plain text, EDGAR's SGML envelope)
is not rendered, and the report's notes say so.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from auditor.errors import ExtractionError, UsageError
from auditor.extract.render import Rendering, RenderInput, missing, render_many, renderer_for
from auditor.gating.batch import BatchView, Sighting, sighting_provenance
from auditor.gating.classify import Locator
from auditor.gating.findings import Finding
from auditor.store.db import Store
from auditor.text.shingle import distinct, text_shingles

MODES = ("auto", "always", "never")
TOLERANCE = 0.15  # share of a side's shingles the other side may lack before the reading fails closed


@dataclass
class Agreement:
    """How far the rendering and the stored text agree, in distinct 5-word shingles."""

    rendered: int
    stored: int
    shared: int

    @property
    def shown_stored(self) -> float:
        """The share of what the page shows that the store holds."""
        return self.shared / self.rendered if self.rendered else 1.0

    @property
    def stored_shown(self) -> float:
        """The share of what the store holds that the page shows."""
        return self.shared / self.stored if self.stored else 1.0

    def problem(self) -> str | None:
        low = 1 - TOLERANCE
        parts = []
        if self.shown_stored < low:
            parts.append(f"the rendered page shows text the stored reading lacks ({self.shown_stored:.0%} of "
                         "the page's shingles are stored)")
        if self.stored_shown < low:
            parts.append(f"the stored reading holds text the rendered page does not show ({self.stored_shown:.0%} "
                         "of its shingles are on the page)")
        return "; ".join(parts) or None


@dataclass
class Rendered:
    """What the rendering step did for the batch: findings, and what it could not render."""

    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    renderers: dict[str, str] = field(default_factory=dict)  # renderer -> version, of those that ran
    unrendered: dict[str, list[str]] = field(default_factory=dict)  # reason -> paths


def agreement(store: Store, rendered: str, stored: str) -> Agreement:
    params = store.params
    a = distinct(text_shingles(rendered, params)[1])
    b = distinct(text_shingles(stored, params)[1])
    return Agreement(len(a), len(b), len(np.intersect1d(a, b, assume_unique=True)))


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
    for s in view.sightings:
        if s.doc_id in seen:
            continue
        seen.add(s.doc_id)
        doc = store.document(s.doc_id)
        renderer = renderer_for(doc["format"])
        if renderer is None:
            continue
        why = missing(renderer)
        if why:
            if mode == "always":
                out.findings.append(_finding(store, s, loc, "render_missing", f"not rendered: {why}"))
            else:
                out.unrendered.setdefault(why, []).append(s.display)
            continue
        data = _part_bytes(s, doc["sha256"]) if s.part else _bytes(s, doc["sha256"])
        if data is None:
            out.findings.append(_finding(store, s, loc, "render_failed", "not rendered: the file changed or "
                                         "went away after it was ingested, so its rendering is not of this document"))
            continue
        name = str(s.meta.get("filename") or s.resolved) if s.part else s.resolved
        todo.append((s, RenderInput(doc["format"], data, name)))
    for (s, _), r in zip(todo, render_many([d for _, d in todo], timeout=timeout), strict=True):
        if isinstance(r, ExtractionError):
            out.findings.append(_finding(store, s, loc, r.code, f"not rendered: {r}"))
            continue
        out.renderers[r.renderer] = r.version
        _keep(store, s.doc_id, r)
        problem = agreement(store, r.text, store.text(s.doc_id)).problem()
        if problem:
            out.findings.append(_finding(store, s, loc, "render_mismatch", f"{r.renderer} {r.version}: {problem}"))
    for why, paths in sorted(out.unrendered.items()):
        out.notes.append(f"not rendered ({why}): {len(paths)} document(s), the first {paths[0]}; their extraction was "
                         "not checked against a rendering")
    return out


def _bytes(s: Sighting, sha256: str | None) -> bytes | None:
    """The file's bytes, when they are still those ingested (``sha256``, when given)."""
    try:
        data = Path(s.resolved).read_bytes()
    except OSError:
        return None
    return data if sha256 is None or hashlib.sha256(data).hexdigest() == sha256 else None


def _part_bytes(s: Sighting, sha256: str) -> bytes | None:
    """What an EDGAR part's ``<TEXT>`` holds, unwrapped (its HTML, or its decoded file), when the
    submission still holds the part ingested."""
    from auditor.extract import edgar

    data = _bytes(s, None)
    if data is None:
        return None
    for d in edgar.parse(data).documents:
        if hashlib.sha256(d.raw).hexdigest() == sha256:
            return edgar.content(d.raw).payload
    return None


def _keep(store: Store, doc_id: int, r: Rendering) -> None:
    from auditor.text.entry import prepare_text
    from auditor.text.shingle import WordHasher

    p = prepare_text(r.text, store.params, WordHasher(store.params.seed))
    if not p["n_shingles"]:
        return
    with store.write("reading", {"doc_id": doc_id, "name": f"render:{r.renderer}"}):
        store.insert_reading(doc_id, {
            "name": f"render:{r.renderer}", "why": f"what {r.renderer} ({r.version}) shows of the document",
            "text": r.text, "n_words": p["n_words"], "n_shingles": p["n_shingles"], "norm_sha256": p["norm_sha256"]})


def _finding(store: Store, s: Sighting, loc: Locator, code: str, message: str) -> Finding:
    new = {**sighting_provenance(store, s), "code": code, "message": message}
    f = Finding("not-auditable", new, None, True, None, "not auditable")
    loc.locate(f, s)
    return f
