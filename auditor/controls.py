"""Positive and negative controls: proof, inside every report, that the detector can see.

A detector that finds nothing may be one that cannot find anything. Before any finding is
reported, known cases go through the very same path as real documents (files written to disk,
``ingest``: extraction, normalisation, shingling, sampling; then ``run_audit``: candidates,
estimates, exact verification) in a scratch store built with the corpus's own index parameters:

- *embedded*: a contract inside a much larger filing must score at least 0.95 and be found;
- *reformatted*: the same contract laid out again must score at least the threshold and be
  found (or fall in its duplicate group);
- *unrelated*: a different contract that shares ordinary boilerplate must score at most 0.1
  and not be found.

Two sources: the fixture documents in ``controls/`` with their manifest, and controls built
from the corpus under audit (a seeded choice of its own documents: one embedded in another,
one reformatted, an unrelated pair). The scratch store is thrown away, so controls never leak
into the corpus's findings.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import json
import os
import random
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from auditor.cache import cache_dir
from auditor.corpus.ingest import ingest
from auditor.engine.audit import AuditResult, run_audit
from auditor.engine.universe import universe
from auditor.errors import ControlsFailed, UsageError
from auditor.index.sampled import SampledIndex, ShingleCache
from auditor.store import gzfile
from auditor.store.db import Store
from auditor.text.reformat import reformat
from auditor.text.score import Estimate
from auditor.text.shingle import Params, sample, shingle_hashes, shingle_set

EMBEDDED_MIN = 0.95
UNRELATED_MAX = 0.10
DRAWS = 25  # documents tried as the contained one before a corpus is taken to have no unrelated pair


@dataclass
class ControlResult:
    name: str
    kind: str  # embedded | reformatted | unrelated
    source: str  # fixture | corpus
    contained: str
    container: str
    operator: str  # ">=" (embedded, reformatted) or "<=" (unrelated)
    expected: float  # the pass bound: score operator expected
    score: float  # exact containment of `contained` in `container`
    estimate: float
    hits: int
    sampled: int
    found: bool  # reported by the audit (finding or duplicate group)
    passed: bool
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def bound(self) -> str:
        """The pass bound as people read it: ``>= 0.9500``."""
        return f"{self.operator} {self.expected:.4f}"

    def failure(self) -> str:
        """Why this control failed, in words (the same in messages and reports)."""
        why = f"{self.name} ({self.kind}) scored {self.score:.4f}, expected {self.bound}"
        if self.kind != "unrelated" and not self.found:
            why += " and to be found"
        if self.kind == "unrelated" and self.found:
            why += " and not to be found"
        return why + (f" [{self.note}]" if self.note else "")


@dataclass
class ControlsResult:
    results: list[ControlResult]
    seed: int
    directory: str | None
    note: str = ""  # why corpus-drawn controls were not run, if they were not
    cached: str | None = None  # the cache key the fixture controls' results were read under

    @property
    def passed(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    @property
    def failed(self) -> list[ControlResult]:
        return [r for r in self.results if not r.passed]

    def summary(self) -> str:
        return ", ".join(f"{r.name} {r.score:.4f}" for r in self.results)

    def raise_if_failed(self) -> None:
        if not self.results:
            raise ControlsFailed("no control could be run; refusing to report")
        if self.failed:
            raise ControlsFailed("; ".join(r.failure() for r in self.failed),
                                 [r.as_dict() for r in self.results])


def default_controls_dir() -> Path | None:
    """``$AUDITOR_CONTROLS``, else the controls installed with the package, else ``controls/``
    of the source checkout this module runs from (an editable install).

    A wheel carries the top-level ``controls/`` as the package data ``auditor/_data/controls/``
    (see pyproject.toml), so an installed auditor finds its fixtures outside any checkout.
    """
    env = os.environ.get("AUDITOR_CONTROLS")
    if env:
        return Path(env)
    installed = importlib.resources.files("auditor") / "_data" / "controls"
    checkout = Path(__file__).resolve().parent.parent / "controls"
    for where in (installed, checkout):
        # ingest reads the fixtures as files: only a directory on disk will do (not a zip)
        if isinstance(where, Path) and (where / "manifest.json").is_file():
            return where
    return None


def fixtures_digest(directory: Path) -> str | None:
    """sha256 over the control manifest and every file it names, so a report says which controls."""
    manifest = directory / "manifest.json"
    if not manifest.is_file():
        return None
    names = sorted({n for c in json.loads(manifest.read_text())["controls"]
                    for n in (c["contained"], c["container"])})
    h = hashlib.sha256(manifest.read_bytes())
    for n in names:
        h.update(f"\n{n}\t".encode() + hashlib.sha256((directory / n).read_bytes()).hexdigest().encode())
    return h.hexdigest()


# -- the fixture controls' cache ---------------------------------------------------------------

@functools.cache
def code_digest() -> str:
    """sha256 over the auditor's own source files: a development install changes its code
    without changing its version."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def fixture_key(params: Params, threshold: float, directory: Path) -> str:
    """What the fixture controls' result depends on: the code and its version, the packages
    that shape text and numbers, Python's Unicode version, the index parameters, the threshold
    and the fixtures themselves. The same key gives the same result (it is deterministic)."""
    import platform

    from auditor import __version__
    from auditor.versions import shaping_versions

    parts = {"tool": __version__, "code": code_digest(), "python": platform.python_version(),
             "params": params.as_dict(), "threshold": threshold, "fixtures": fixtures_digest(directory),
             "packages": shaping_versions()}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _cached(key: str) -> list[ControlResult] | None:
    where = cache_dir()
    path = where / "controls" / f"{key}.json" if where else None
    if path is None or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") != key:
            return None
        return [ControlResult(**r) for r in data["results"]]
    except (OSError, ValueError, TypeError, KeyError):
        return None  # an unreadable entry is recomputed, never trusted


def _remember(key: str, results: list[ControlResult]) -> None:
    """Best effort: a cache that cannot be written costs the next run its controls, nothing else."""
    where = cache_dir()
    if where is None or not all(r.passed for r in results):
        return  # failed controls are run again every time, never served from a cache
    try:
        (where / "controls").mkdir(parents=True, exist_ok=True)
        gzfile.write_text(where / "controls" / f"{key}.json",
                          json.dumps({"key": key, "results": [r.as_dict() for r in results]}, sort_keys=True),
                          shared=True)  # other runs may write the same entry at once
    except OSError:
        pass


def load_manifest(directory: Path) -> list[dict[str, Any]]:
    path = directory / "manifest.json"
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read the controls manifest {path}: {e}") from e
    controls = manifest.get("controls") if isinstance(manifest, dict) else None
    if not isinstance(controls, list) or not controls:
        raise UsageError(f"{path} lists no controls")
    for c in controls:
        missing = {"name", "kind", "contained", "container"} - set(c)
        if missing or c["kind"] not in ("embedded", "reformatted", "unrelated"):
            raise UsageError(f"{path}: bad control {c!r}")
        for f in (c["contained"], c["container"]):
            if not (directory / f).is_file():
                raise UsageError(f"{path}: control file {f} is missing")
    return controls


def _bound(kind: str, threshold: float, spec: dict[str, Any]) -> tuple[str, float]:
    """(operator, value) of the pass bound; manifest values may say "threshold"."""
    if kind == "unrelated":
        v = spec.get("max", UNRELATED_MAX)
        return "<=", threshold if v == "threshold" else float(v)
    default = EMBEDDED_MIN if kind == "embedded" else "threshold"
    v = spec.get("min", default)
    return ">=", threshold if v == "threshold" else float(v)


# -- corpus-drawn controls --------------------------------------------------------------------

def _paragraph_cut(text: str, at: float) -> int:
    """A paragraph (or line) boundary near the fraction ``at`` of ``text``."""
    i = int(len(text) * at)
    for sep in ("\n\n", "\n"):
        j = text.find(sep, i)
        if j != -1:
            return j + len(sep)
    return len(text)


#: Corpus documents a gate's controls may also draw from, besides its batch (a seeded choice).
GATE_EXTRA = 64
#: Documents a corpus audit's controls draw from, at most (a seeded choice): the draw reads
#: their sampled sets, so its cost must not grow with the corpus (10 M documents on Spark).
CORPUS_POOL = 2_000


@dataclass(frozen=True)
class CorpusControls:
    """What :func:`corpus_controls` draws from the corpus."""

    files: list[tuple[str, str]]  # to write into the scratch store, as (name, text)
    controls: list[dict[str, Any]]  # the controls over them, as the manifest writes them
    note: str = ""  # why fewer controls, or none, were drawn (reported beside the results)
    failure: str | None = None  # why the corpus fails the controls before any is drawn


def corpus_controls(store: Store, seed: int, documents: list[int] | None = None,
                    draw_from: list[int] | None = None) -> CorpusControls:
    """Files to write and the controls over them, from the corpus's own documents (those the
    audit covers: ``documents``, else every stored one).

    ``draw_from``: where the audit looks (a gate's new documents): the controls are drawn from
    those, with up to ``GATE_EXTRA`` covered documents chosen by the seed beside them, so their
    cost is the batch's, not the corpus's; the same arguments draw the same controls. Without
    it, from up to ``CORPUS_POOL`` covered documents chosen by the seed.

    Documents of 300 words or more are drawn; a corpus of notices and clauses, which has fewer
    than two, draws from those of 40 words or more (the exhaustive path for short documents is
    then what the controls exercise). A corpus with fewer than two such documents yields none,
    with the reason in ``note``. A document whose stored text is long but normalises to almost
    no words is not drawn (a page of rules, a base64 blob: the audit says it is not auditable).
    When such documents are half of the long ones or more, the controls fail: a normaliser that
    destroys text must not pass by default.
    """
    covered = universe(store, documents)
    pool = covered.representatives
    looked_at: list[int] = []
    if draw_from is not None:
        looked_at = sorted({covered.representative[d] for d in draw_from if d in covered.representative})
        rest = sorted(set(pool) - set(looked_at))
        pick = random.Random(f"controls/{seed}/extra").sample(rest, min(GATE_EXTRA, len(rest)))
        pool = sorted(set(looked_at) | set(pick))
    elif len(pool) > CORPUS_POOL:
        pool = sorted(random.Random(f"controls/{seed}/pool").sample(sorted(pool), CORPUS_POOL))
    every = store.select_in("SELECT d.id, d.n_words, i.sampled, d.n_chars FROM documents d"
                            " JOIN index_docs i ON i.doc_id = d.id WHERE d.id IN ({})", pool)
    long = [r for r in every if r[3] >= 2000]
    lost = [r[0] for r in long if r[1] * 60 < r[3]]
    if len(lost) >= 2 and 2 * len(lost) >= len(long):  # the normalisation, not one document, is at fault
        return CorpusControls([], [], failure=f"{len(lost)} of {len(long)} documents of 2,000+ characters normalise "
                                               f"to almost no words (doc {lost[0]} first)")
    every = [r for r in every if r[0] not in set(lost)]  # one unreadable document is not drawn
    rows = [r for r in every if r[1] >= 300]
    if len(rows) < 2:
        rows = [r for r in every if r[1] >= 40]
    if len(rows) < 2:
        return CorpusControls([], [], f"corpus has {len(rows)} document(s) of 40+ words; corpus-drawn controls need 2")
    rng = random.Random(f"controls/{seed}")
    # the contained document comes from where the audit looks, when it holds one to draw
    first = [r for r in rows if r[0] in looked_at] if draw_from is not None else []
    small = sorted(first or rows, key=lambda r: (r[1], r[0]))[: max(1, len(first or rows) // 2)]
    ids = [r[0] for r in rows]
    samples = [np.frombuffer(r[2], dtype=np.uint64) for r in rows]
    index = SampledIndex(np.array(ids, dtype=np.int64), samples)
    position = {d: i for i, d in enumerate(ids)}

    def estimates(a: int) -> dict[int, float]:
        """Sampled containment of ``a`` in every drawn document, from the posting lists of its samples."""
        sa = samples[position[a]]
        if not len(sa):
            return dict.fromkeys(ids, 1.0)
        return dict(zip(ids, (index.hits_of(sa) / len(sa)).tolist(), strict=True))

    choice = None
    for attempt, (a_id, *_) in enumerate(rng.sample(small, len(small))):
        if attempt == DRAWS and choice is not None:
            break  # everything drawn so far is related to everything: a corpus of variants
        others = [r[0] for r in rows if r[0] != a_id]
        est = estimates(a_id)
        unrelated = [o for o in others if est[o] <= UNRELATED_MAX / 2]
        outside = [o for o in others if est[o] < 0.5] or others
        c_id = rng.choice(outside)
        b_pool = [o for o in unrelated if o != c_id] or unrelated
        choice = (a_id, c_id, rng.choice(b_pool) if b_pool else None)
        if b_pool:
            break
    assert choice is not None
    a_id, c_id, b_id = choice
    a_text = store.text(a_id)
    if b_id is not None:
        b_id = _truly_unrelated(store, a_text, b_id, sorted(o for o in unrelated if o != c_id))
    c_text = store.text(c_id)
    cut = _paragraph_cut(c_text, rng.uniform(0.3, 0.7))
    embedded = c_text[:cut] + "\n\n" + a_text.strip("\n") + "\n\n" + c_text[cut:]
    files = [
        ("corpus-a.txt", a_text),
        ("corpus-container.txt", embedded),
        ("corpus-a-reformatted.txt", reformat(a_text, seed)),
    ]
    label = f"doc {a_id}"
    controls = [
        {"name": "corpus-embedded", "kind": "embedded", "contained": "corpus-a.txt",
         "container": "corpus-container.txt",
         "note": f"{label} inserted into doc {c_id} at character {cut}"},
        {"name": "corpus-reformatted", "kind": "reformatted", "contained": "corpus-a.txt",
         "container": "corpus-a-reformatted.txt", "note": f"{label} re-laid-out (seed {seed})"},
    ]
    if b_id is None:
        return CorpusControls(files, controls, "no corpus document is unrelated to another; corpus-unrelated not run")
    files.append(("corpus-b.txt", store.text(b_id)))
    controls.append({"name": "corpus-unrelated", "kind": "unrelated", "contained": "corpus-a.txt",
                     "container": "corpus-b.txt", "note": f"{label} against doc {b_id}"})
    return CorpusControls(files, controls)


def _truly_unrelated(store: Store, a_text: str, drawn: int, pool: list[int]) -> int | None:
    """``drawn`` if ``a`` is exactly unrelated to it, else the first of ``pool`` that is.

    The draw is made on sampled estimates, and a short ``a`` has few samples: a 0/19 estimate
    hides a true 0.15 one time in twenty. A control expected near 0 is checked on every shingle
    before it is used, so it can only fail when the audit scores it wrong. None (the control is
    not run, and the note says so) when none of the first few is."""

    a = shingle_set(a_text, store.params)
    if not len(a):
        return drawn
    for b_id in ([drawn] + [o for o in pool if o != drawn])[:DRAWS]:
        b = shingle_hashes(store.text(b_id), store.params)
        if np.isin(a, b).sum() / len(a) <= UNRELATED_MAX / 2:
            return b_id
    return None


# -- running ----------------------------------------------------------------------------------

AuditFn = Callable[..., AuditResult]


def _evaluate(
    scratch: Store, controls: list[dict[str, Any]], where: dict[str, Path], source: str,
    threshold: float, audit_fn: AuditFn,
) -> list[ControlResult]:
    audit = audit_fn(scratch, threshold)
    found = set(zip(audit.containing.contained.tolist(), audit.containing.container.tolist(), strict=True))
    group_of = {m: g[0] for g in audit.duplicate_groups for m in g}
    cache = ShingleCache(scratch, scratch.params)
    out = []
    for c in controls:
        a = scratch.resolve(str(where[c["contained"]]))
        b = scratch.resolve(str(where[c["container"]]))
        ga, gb = group_of.get(a, a), group_of.get(b, b)
        _, all_a = cache.get(a)
        _, all_b = cache.get(b)
        score = (len(np.intersect1d(all_a, all_b, assume_unique=True)) / len(all_a)) if len(all_a) else 0.0
        sa, sb = sample(all_a, scratch.params.modulus), sample(all_b, scratch.params.modulus)
        est = Estimate.of(len(np.intersect1d(sa, sb, assume_unique=True)), len(sa))
        is_found = (ga, gb) in found or ga == gb
        op, value = _bound(c["kind"], threshold, c)
        within = score >= value if op == ">=" else score <= value
        passed = within and (is_found if op == ">=" else not is_found)
        out.append(ControlResult(
            name=c["name"], kind=c["kind"], source=source, contained=c["contained"],
            container=c["container"], operator=op, expected=value, score=score,
            estimate=est.estimate, hits=est.hits, sampled=est.sampled, found=is_found,
            passed=passed, note=c.get("note", ""),
        ))
    return out


def _run_in_scratch(
    params: Params, files: list[tuple[str, Path | str]], controls: list[dict[str, Any]],
    source: str, threshold: float, audit_fn: AuditFn,
) -> list[ControlResult]:
    with tempfile.TemporaryDirectory(prefix="auditor-controls-") as tmp:
        where: dict[str, Path] = {}
        docs = Path(tmp) / "docs"
        docs.mkdir()
        for name, content in files:
            dest = docs / name
            if isinstance(content, Path):
                dest.write_bytes(content.read_bytes())
            else:
                dest.write_text(content, encoding="utf-8")
            where[name] = dest
        with Store(Path(tmp) / "controls.db") as scratch:
            scratch.set_meta("index_params", json.dumps(params.as_dict(), sort_keys=True))
            r = ingest(scratch, [docs / n for n, _ in files], batch=f"controls-{source}",
                       source="controls", workers=1)
            bad = [f"{os.path.relpath(path, docs)} ({code}: {message})" for path, code, message in r.problems]
            if bad:  # named as in the manifest: the scratch directory is gone once this is read
                raise UsageError(f"{source} control documents could not be ingested: {'; '.join(bad)}")
            return _evaluate(scratch, controls, where, source, threshold, audit_fn)


def run_controls(
    store: Store,
    threshold: float = 0.8,
    *,
    directory: Path | None = None,
    seed: int = 0,
    corpus: bool = True,
    audit: AuditFn = run_audit,
    documents: list[int] | None = None,
    cache: bool = False,
    draw_from: list[int] | None = None,
) -> ControlsResult:
    """Run the fixture controls and the corpus-drawn controls with the store's parameters.

    :param documents: the documents the audit covers (corpus-drawn controls come from them).
    :param draw_from: where the audit looks (a gate's batch): corpus-drawn controls are drawn
        from these and a few covered documents beside them (:func:`corpus_controls`).

    :param audit: the engine's audit function (``run_audit``, or the Spark engine's), so the
        controls go through the same engine as the corpus.
    :param cache: read the fixture controls' passing result from the cache when one was recorded
        under the same key (:func:`fixture_key`), and record it otherwise; the corpus-drawn
        controls always run. (The fixtures do not depend on the corpus; a gate runs them on every
        pull request.)
    """
    params = store.params
    directory = directory or default_controls_dir()
    results: list[ControlResult] = []
    if directory is None:
        raise UsageError("no controls directory: this installation carries no fixture controls "
                         "(auditor/_data/controls); set AUDITOR_CONTROLS or --controls-dir")
    manifest = load_manifest(directory)
    names = sorted({c["contained"] for c in manifest} | {c["container"] for c in manifest})
    key = fixture_key(params, threshold, directory) if cache and audit is run_audit else None
    fixtures = _cached(key) if key else None
    cached = key if fixtures is not None else None
    if fixtures is None:
        fixtures = _run_in_scratch(params, [(n, directory / n) for n in names], manifest, "fixture",
                                   threshold, audit)
        if key:
            _remember(key, fixtures)
    results += fixtures
    note = ""
    if corpus:
        drawn = corpus_controls(store, seed, documents, draw_from)
        note = drawn.note
        if drawn.controls:
            results += _run_in_scratch(params, list(drawn.files), drawn.controls, "corpus", threshold, audit)
        elif drawn.failure is not None:
            results.append(ControlResult(
                name="corpus-embedded", kind="embedded", source="corpus", contained="-",
                container="-", operator=">=", expected=EMBEDDED_MIN, score=0.0, estimate=0.0, hits=0,
                sampled=0, found=False, passed=False, note=drawn.failure,
            ))
    return ControlsResult(results, seed, str(directory), note, cached)
