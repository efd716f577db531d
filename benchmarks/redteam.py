"""The red team of issue #25: disguised batches through ``auditor gate --dry-run``, checked
against what real readers show.

    .venv/bin/python benchmarks/redteam.py                 # build the corpus, gate every case
    .venv/bin/python benchmarks/redteam.py --oracle        # also render each case with the readers
    .venv/bin/python benchmarks/redteam.py --only html-    # the cases whose id contains html-

1. A corpus store of stored contracts: licence texts others wrote (/usr/share/common-licenses,
   the Python licence that the interpreter ships), synthetic contracts and filings
   (``tests.support.synth``), so the corpus-drawn controls have material.
2. The catalogue of tests/support/redteam_cases.py: disguised batches, each carrying a stored
   contract that a reader sees in full, and clean batches.
3. Each batch through the gate (``auditor.gating.admission.run_gate``, a dry run in a rolled-back
   transaction; the damaged-index cases on a damaged copy of the store). A disguised batch must
   not pass; a clean one must.
4. With ``--oracle``, what a reader sees: HTML and plain text rendered by headless Chromium
   (a screenshot of the screen, not a print: print style sheets differ), .docx by LibreOffice
   (exported to PDF), PDF by poppler (pdftoppm); each page read back by Tesseract OCR, and the
   stored contract's 5-word-shingle containment in that reading measured as the audit measures
   it. A case is valid when the reader shows the contract (containment >= 0.8). Results are
   cached by the rendered bytes' digest in the work directory.
5. benchmarks/REDTEAM.md (the table) and benchmarks/results-redteam.json, the same for the same
   code and corpus (no time, path or run id in them).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.redteam_cases import Case, View, all_cases  # noqa: E402

LICENCES = Path("/usr/share/common-licenses")
STORED_LICENCES = ("Apache-2.0", "Artistic", "BSD", "CC0-1.0", "MPL-2.0", "LGPL-2.1", "GPL-3", "GFDL-1.3")
UNSTORED_LICENCES = ("MPL-1.1", "GPL-2")  # by others too, not in the corpus: clean batches
SYNTH = {"lease": (7101, "lease"), "credit": (7102, "credit"), "supply": (7103, "supply"),
         "consulting": (7104, "consulting")}
FILINGS = (7201, 7202, 7203)
THRESHOLD = 0.8


# -- corpus -------------------------------------------------------------------------------------

def corpus_texts() -> tuple[dict[str, str], dict[str, str], list[str]]:
    """(stored texts by key, unstored texts by key, notes). A licence the system lacks is
    replaced by a synthetic contract under its name, and the notes say so."""
    from tests.support import synth

    stored: dict[str, str] = {}
    notes = []
    for i, name in enumerate(STORED_LICENCES):
        path = LICENCES / name
        if path.is_file():
            stored[name] = path.read_text("utf-8")
        else:
            stored[name] = synth.contract(7300 + i, 8_000, kind="license")
            notes.append(f"{path} missing: a synthetic licence agreement stands in for {name}")
    python_licence = Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt"
    if python_licence.is_file():
        stored["Python-LICENSE"] = python_licence.read_text("utf-8")
    else:
        stored["Python-LICENSE"] = synth.contract(7310, 8_000, kind="license")
        notes.append(f"{python_licence} missing: a synthetic licence agreement stands in for Python-LICENSE")
    for key, (seed, kind) in SYNTH.items():
        stored[key] = synth.contract(seed, 5_000, kind=kind)
    unstored = {name: (LICENCES / name).read_text("utf-8") for name in UNSTORED_LICENCES if (LICENCES / name).is_file()}
    return stored, unstored, notes


def corpus_files(stored: dict[str, str]) -> dict[str, str]:
    from tests.support import synth

    files = {f"{key}.txt": text for key, text in stored.items()}
    for seed in FILINGS:
        files[f"filing-{seed}.txt"] = synth.filing(seed, 40_000)[0]
    return files


def build_corpus(work: Path, files: dict[str, str]) -> Path:
    """The corpus store, rebuilt only when its files changed."""
    from auditor.corpus.ingest import ingest
    from auditor.store.db import Store

    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()
    db = work / "corpus.db"
    stamp = work / "corpus.sha256"
    if db.is_file() and stamp.is_file() and stamp.read_text() == digest:
        return db
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        p.unlink(missing_ok=True)
    folder = work / "corpus"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, text in sorted(files.items()):
        (folder / name).write_text(text, "utf-8")
    with Store(db) as store:
        result = ingest(store, [folder], batch="corpus", source="redteam", workers=1)
        if result.problems:
            raise SystemExit(f"corpus ingest problems: {result.problems}")
    stamp.write_text(digest)
    return db


# -- damage to the store (the damaged-index family) ---------------------------------------------------

def damaged_copy(db: Path, work: Path, damage: str, payload: str) -> Path:
    """A copy of the store whose payload's index row was altered behind the tool's back (with
    sqlite3, as anyone with the file can), not through :class:`~auditor.store.db.Store`."""
    import sqlite3

    from auditor.store.db import Store

    copy = work / f"damaged-{damage}.db"
    for p in (copy, Path(f"{copy}-wal"), Path(f"{copy}-shm")):
        p.unlink(missing_ok=True)
    with Store(db) as src:
        src.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(db, copy)
    if damage.endswith("-via-store"):  # written through the store, as a buggy or older tool would: custody logs it
        with Store(copy) as store, store.write():
            doc = store.scalar("SELECT id FROM documents WHERE path LIKE ?", (f"%/{payload}.txt",))
            store.conn.execute("UPDATE index_docs SET sampled = zeroblob(length(sampled)) WHERE doc_id = ?", (doc,))
        return copy
    conn = sqlite3.connect(copy)
    try:
        doc = conn.execute("SELECT id FROM documents WHERE path LIKE ?", (f"%/{payload}.txt",)).fetchone()[0]
        other = conn.execute("SELECT id FROM documents WHERE path LIKE '%/GPL-3.txt'").fetchone()[0]
        with conn:
            if damage == "zero-sampled":
                conn.execute("UPDATE index_docs SET sampled = zeroblob(length(sampled)) WHERE doc_id = ?", (doc,))
            elif damage == "empty-sampled":
                conn.execute("UPDATE index_docs SET sampled = x'', n_sampled = 0 WHERE doc_id = ?", (doc,))
            elif damage == "other-sampled":
                conn.execute("UPDATE index_docs SET sampled = (SELECT sampled FROM index_docs WHERE doc_id = ?), "
                             "n_sampled = (SELECT n_sampled FROM index_docs WHERE doc_id = ?) WHERE doc_id = ?",
                             (other, other, doc))
            else:
                raise ValueError(damage)
    finally:
        conn.close()
    return copy


# -- the gate ---------------------------------------------------------------------------------------

def gate_case(case: Case, db: Path, work: Path, render: str = "auto") -> dict:
    """Gate one batch (dry run) and say how it was decided: status, exit code, the failing
    findings (kind, reading, the corpus document named) and the fail-closed codes."""
    from auditor.errors import AuditorError
    from auditor.gating.admission import GateOptions, run_gate

    folder = work / "cases" / case.family / case.name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, data in case.files.items():
        (folder / name).write_bytes(data)
    out = work / "out" / case.family / case.name
    shutil.rmtree(out, ignore_errors=True)
    store = damaged_copy(db, work, case.damage, case.payload or "") if case.damage else db
    try:
        g = run_gate(GateOptions(db=store, inputs=[folder], batch=f"redteam-{case.id}", dry_run=True, out=out, render=render,
                                 workers=1, cwd=folder))
    except AuditorError as e:
        return {"status": "REFUSED", "exit": 2, "caught_by": [f"refused: {type(e).__name__}: {_short(str(e))}"],
                "names_payload": False}
    exit_code = {"PASSED": 0, "FAILED": 1}.get(g.status, 2)
    caught, names_payload = [], False
    for f in g.findings:
        if f.level != "error":
            continue
        if f.kind in ("not-auditable", "ingest-error"):
            codes = re.findall(r"\b([a-z]+(?:-[a-z0-9]+)+):", str(f.new.get("message") or ""))
            if f.new.get("code") not in (None, "not_auditable"):  # the finding's own code, not a version string
                codes = [str(f.new["code"])]
            part = f" ({f.new.get('part')})" if f.new.get("part") else ""
            caught.append(f"{f.kind}: {', '.join(codes) or f.new.get('code')}{part}")
        else:
            other = Path(str((f.other or {}).get("path") or "")).stem
            names_payload |= other == case.payload
            caught.append(f"{f.kind} {other} {f.containment:.2f} via {f.reading or 'text'}")
    if g.status == "REFUSED":
        caught.append("refused: controls failed")
    return {"status": g.status, "exit": exit_code, "caught_by": sorted(set(caught)), "names_payload": names_payload}


def stored_readings(case: Case) -> list[dict]:
    """What the extractor makes of each file of a batch that passed: the start of its visible
    text, its other readings and why it is unreadable, if it is (for the hole's report)."""
    from auditor.errors import ExtractionError
    from auditor.extract import extract_bytes

    out = []
    for name, data in sorted(case.files.items()):
        try:
            ex = extract_bytes(data, name)
        except ExtractionError as e:
            out.append({"file": name, "error": e.code})
            continue
        for label, part in [(name, ex)] + [(f"{name}#{i + 1}", p.extracted) for i, p in enumerate(ex.parts) if p.extracted]:
            out.append({"file": label, "format": part.format, "text": _short(part.text, 120),
                        "readings": sorted({r.name for r in part.readings}), "unreadable": part.unreadable})
    return out


def _short(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    text = re.sub(r"(?<![\w:/])/[^ ]*/", "…/", text)  # no machine paths in the results
    return text if len(text) <= n else text[: n - 1] + "…"


# -- the readers (oracle) ---------------------------------------------------------------------------

CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio"]
SCREEN = (1280, 12000)


def _run(cmd: list[str], timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, timeout=timeout, check=False)


def render(view: View, tmp: Path) -> tuple[list[Path], Path | None]:
    """Images of what a reader shows, and the PDF it made (for pdftotext), if any."""
    if view.kind in ("markdown", "gfm", "github", "rst", "notebook", "nbconvert", "jupyter-streams", "rst-docutils",
                     "rst-html4", "feedparser"):
        view = View(view.label + ".html", "html", markup_html(view.kind, view.data))
    scale = 2 if view.kind == "html-2x" else 1  # a screen of two device pixels per CSS pixel
    if view.kind == "html-2x":
        view = View(view.label, "html", view.data)
    if view.kind in ("html", "text"):
        suffix = Path(view.label).suffix.lower() if view.kind == "html" else ""
        src = tmp / f"view{suffix if suffix in ('.svg', '.mhtml', '.mht', '.xhtml', '.xml') else '.html'}"
        if view.kind == "text":
            src.write_text("<!DOCTYPE html><meta charset='utf-8'><pre style='white-space:pre-wrap;font:16px monospace'>"
                           + _escape(_decode(view.data)) + "</pre>", "utf-8")
        else:
            src.write_bytes(view.data)
        shot = tmp / "screen.png"
        profile = tempfile.mkdtemp(prefix="redteam-chromium-")
        try:
            _run([*CHROMIUM, f"--user-data-dir={profile}", f"--window-size={SCREEN[0]},{SCREEN[1] // scale}",
                  f"--force-device-scale-factor={scale}", f"--screenshot={shot}", "--virtual-time-budget=3000",
                  src.as_uri()])
        finally:
            shutil.rmtree(profile, ignore_errors=True)
        return (_slices(shot, tmp) if shot.is_file() else []), None
    if view.kind in ("docx", "office"):
        suffix = Path(view.label).suffix.lower() if view.kind == "office" else ".docx"
        src = tmp / ("view.odt" if view.label.endswith(".odt") else f"view{suffix}")
        src.write_bytes(view.data)
        profile = tmp / "lo-profile"
        _run(["soffice", f"-env:UserInstallation={profile.as_uri()}", "--headless", "--convert-to", "pdf", "--outdir",
              str(tmp), str(src)], timeout=300)
        made = tmp / "view.pdf"
        return (_pages(made, tmp) if made.is_file() else []), (made if made.is_file() else None)
    if view.kind == "pdf":
        src = tmp / "view.pdf"
        src.write_bytes(view.data)
        return _pages(src, tmp), src
    return [], None


def markup_html(kind: str, data: bytes) -> bytes:
    """A Markdown, reStructuredText or notebook file as its reader renders it, as HTML for
    Chromium: markdown-it (CommonMark, as GitHub's cmark is), docutils (the reference rST
    reader), and a notebook as Jupyter shows it (Markdown cells rendered, each output in its
    richest form: HTML before plain text)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    text = _decode(data)
    if kind == "markdown":
        return ("<!DOCTYPE html><meta charset='utf-8'>" + md.render(text)).encode()
    if kind == "gfm":  # GitHub's Markdown: footnotes drawn at the end, in the order they are referred to
        from mdit_py_plugins.footnote import footnote_plugin

        return ("<!DOCTYPE html><meta charset='utf-8'>" + md.use(footnote_plugin).render(text)).encode()
    if kind == "github":  # GitHub's own cmark-gfm: its extensions, raw HTML kept, the tag filter on (as github.com)
        import cmarkgfm
        from cmarkgfm.cmark import Options

        body = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
        return ("<!DOCTYPE html><meta charset='utf-8'>" + body).encode()
    if kind == "rst-html4":  # docutils' rst2html: the html4css1 writer and its style sheet
        from docutils.core import publish_string

        return publish_string(text, writer_name="html4css1", settings_overrides={"report_level": 5, "halt_level": 5,
                                                                                 "file_insertion_enabled": False})
    if kind == "rst":
        from docutils.core import publish_string

        return publish_string(text, writer_name="html5", settings_overrides={"report_level": 5, "halt_level": 5,
                                                                             "file_insertion_enabled": False,
                                                                             "raw_enabled": False})
    if kind == "rst-docutils":  # docutils as rst2html runs it: its defaults (raw HTML inserted), as Sphinx does
        from docutils.core import publish_string

        return publish_string(text, writer_name="html5", settings_overrides={"report_level": 5, "halt_level": 5,
                                                                             "file_insertion_enabled": False})
    if kind in ("nbconvert", "jupyter-streams"):  # Jupyter's own exporter (nbviewer, `jupyter nbconvert --to html`)
        import nbformat
        from nbconvert import HTMLExporter
        from traitlets.config import Config

        # jupyter-streams: a stream's carriage returns overwrite the line, as JupyterLab, the Notebook and
        # VS Code show it (nbconvert's own CoalesceStreamsPreprocessor, off by default in its HTML export)
        config = Config({"CoalesceStreamsPreprocessor": {"enabled": kind == "jupyter-streams"}})
        body, _ = HTMLExporter(template_name="lab", config=config).from_notebook_node(nbformat.reads(text, as_version=4))
        return body.encode()
    if kind == "feedparser":  # a feed reader: feedparser's reading of each entry, drawn as HTML
        import feedparser

        feed = feedparser.parse(data)
        items = "".join(f"<article><h2>{_escape(e.get('title', ''))}</h2>{e.get('summary', '')}</article>" for e in feed.entries)
        return f"<!DOCTYPE html><meta charset='utf-8'><h1>{_escape(feed.feed.get('title', ''))}</h1>{items}".encode()
    cells = []
    for cell in json.loads(text).get("cells", []):
        src = "".join(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            cells.append(md.render(src))
            continue
        cells.append(f"<pre>{_escape(src)}</pre>")
        for o in cell.get("outputs", []):
            d = o.get("data") or {}
            picture = next((m for m in ("image/png", "image/jpeg", "image/gif") if m in d), None)
            if "text/html" in d:
                cells.append("".join(d["text/html"]))
            elif picture:  # Jupyter draws the picture, not the plain text beside it
                cells.append(f"<img alt='' src='data:{picture};base64,{''.join(d[picture]).strip()}'>")
            elif "text/plain" in d or "text" in o:
                cells.append(f"<pre>{_escape(''.join(d.get('text/plain') or o.get('text') or ''))}</pre>")
    return ("<!DOCTYPE html><meta charset='utf-8'>" + "".join(cells)).encode()


def _decode(data: bytes) -> str:
    for bom, enc in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
        if data.startswith(bom):
            return data.decode(enc, "replace")
    return data.decode("utf-8", "replace")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _pages(pdf_path: Path, tmp: Path) -> list[Path]:
    _run(["pdftoppm", "-r", "150", "-gray", "-png", str(pdf_path), str(tmp / "page")])
    return sorted(tmp.glob("page*.png"))


def _slices(png: Path, tmp: Path, height: int = 3000) -> list[Path]:
    """A tall screenshot cut into slices (Tesseract reads them faster), blank bottom dropped."""
    from PIL import Image, ImageOps

    img = Image.open(png).convert("L")
    box = ImageOps.invert(img).getbbox()
    if box is None:
        return []
    img = img.crop((0, 0, img.width, min(img.height, box[3] + 20)))
    out = []
    for i, top in enumerate(range(0, img.height, height)):
        piece = img.crop((0, max(0, top - 40), img.width, min(img.height, top + height)))
        path = tmp / f"slice{i:03d}.png"
        piece.save(path)
        out.append(path)
    return out


def ocr(images: list[Path]) -> str:
    """Tesseract's reading of the images, in order (one process for all of them)."""
    if not images:
        return ""
    listing = images[0].parent / "images.txt"
    listing.write_text("".join(f"{p}\n" for p in images))
    r = subprocess.run(["tesseract", str(listing), "-", "--psm", "3"], capture_output=True, timeout=900, check=False,
                       env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"})
    return r.stdout.decode("utf-8", "replace")


def containment(contract: str, text: str) -> float:
    import numpy as np

    from auditor.text.shingle import shingle_text

    a = shingle_text(contract, keep_all=True).all
    if not len(a):
        return 0.0
    b = shingle_text(text, keep_all=True).all
    return round(float(len(np.intersect1d(a, b)) / len(np.unique(a))), 3)


def read_view(view: View, contract: str, cache: Path, rendering: bool = True) -> dict | None:
    """What a reader shows of one view: the contract's containment in its OCR reading (and in
    the text layer of the PDF the reader made, if any), and how many junk words it shows."""
    from tests.support.redteam_build import JUNK

    key = hashlib.sha256(view.kind.encode() + b"\0" + view.data + b"\0" + hashlib.sha256(contract.encode()).digest()).hexdigest()
    hit = cache / f"{key}.json"
    if hit.is_file():
        return json.loads(hit.read_text())
    if not rendering:
        return None
    with tempfile.TemporaryDirectory(prefix="redteam-view-") as t:
        tmp = Path(t)
        images, made = render(view, tmp)
        seen = ocr(images)
        layer = _run(["pdftotext", "-layout", str(made), "-"]).stdout.decode("utf-8", "replace") if made else ""
    junk = sum(len(re.findall(rf"\b{w}\b", seen, re.I)) for w in JUNK)
    result = {"reader": {"html": "chromium", "html-2x": "chromium (2x screen)", "text": "chromium (text)", "docx": "libreoffice", "office": "libreoffice", "pdf": "poppler",
                         "markdown": "markdown-it + chromium", "gfm": "markdown-it (footnotes) + chromium",
                         "github": "cmark-gfm (GitHub) + chromium", "rst": "docutils + chromium",
                         "rst-html4": "docutils rst2html (html4css1) + chromium",
                         "rst-docutils": "docutils (defaults) + chromium", "notebook": "notebook + chromium",
                         "nbconvert": "nbconvert + chromium", "jupyter-streams": "nbconvert (streams as Jupyter) + chromium",
                         "feedparser": "feedparser + chromium"}[view.kind],
              "view": view.label, "ocr": containment(contract, seen) if contract else None,
              "text_layer": containment(contract, layer) if (contract and made) else None,
              "junk_seen": junk, "ocr_words": len(seen.split())}
    cache.mkdir(parents=True, exist_ok=True)
    hit.write_text(json.dumps(result, sort_keys=True))
    return result


def readers(cases: list[Case], results: list[dict], stored: dict[str, str], cache: Path, render: bool, jobs: int) -> None:
    """What the readers show of each disguised case (rendered now with ``render``, else only what
    the cache holds), into each result's ``readers`` and ``reader_valid``."""
    from concurrent.futures import ThreadPoolExecutor

    todo = [(r, v, stored[c.payload]) for c, r in zip(cases, results, strict=True) if c.payload for v in c.all_views()]
    t0 = time.monotonic()

    def one(item: tuple[dict, View, str]) -> tuple[dict, dict | None]:
        r, v, text = item
        return r, read_view(v, text, cache, render)

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        for n, (r, seen) in enumerate(pool.map(one, todo), 1):
            if seen is None:
                continue
            r.setdefault("readers", []).append(seen)
            r["reader_valid"] = bool(r["by_eye"]) or any((x["ocr"] or 0) >= THRESHOLD for x in r["readers"])
            if render:
                print(f"  reader [{n}/{len(todo)}] {r['id']} {seen['view']}: {seen['reader']} {seen['ocr']}"
                      f" junk {seen['junk_seen']}", flush=True)
    if render:
        print(f"{len(todo)} views read in {time.monotonic() - t0:.0f} s", file=sys.stderr)


# -- report -------------------------------------------------------------------------------------------

def verdict(case: Case, gate: dict) -> str:
    if case.family == "clean":
        return "ok" if gate["status"] == "PASSED" else "FALSE ALARM"
    return "PASSED = hole" if gate["status"] == "PASSED" else "caught"


def write_report(results: list[dict], notes: list[str], md: Path, js: Path, oracle: bool) -> None:
    from tests.support.redteam_cases import DROPPED

    js.write_text(json.dumps({"format": "containment-auditor-redteam/1", "threshold": THRESHOLD, "notes": notes,
                              "dropped": DROPPED, "cases": results}, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    invalid = [r for r in results if r.get("reader_valid") is False]
    disguised = [r for r in results if r["family"] != "clean" and r.get("reader_valid") is not False]
    holes = [r for r in disguised if r["verdict"] != "caught"]
    clean = [r for r in results if r["family"] == "clean"]
    alarms = [r for r in clean if r["verdict"] != "ok"]
    lines = [
        "# Red team: disguised batches through `auditor gate` (issue #25)",
        "",
        "Written by `benchmarks/redteam.py` (cases in `tests/support/redteam_cases.py`); do not edit by hand.",
        "",
        f"**{len(disguised) - len(holes)} of {len(disguised)} disguised batches caught, {len(holes)} passed "
        f"(holes); {len(clean) - len(alarms)} of {len(clean)} clean batches passed.**",
        "",
    ]
    if oracle:
        lines += [f"Readers: the documents of each case rendered by a real reader and read back by OCR (see below; "
                  "an archive or RTF is not rendered); "
                  f"{len(invalid)} case(s) where the reader does not show the contract are marked *not shown*.", ""]
    lines += ["| family | batches | caught | passed (holes) |", "|---|---|---|---|"]
    for fam in dict.fromkeys(r["family"] for r in results):
        rows = [r for r in results if r["family"] == fam and r.get("reader_valid") is not False]
        good = sum(r["verdict"] in ("caught", "ok") for r in rows)
        lines.append(f"| {fam} | {len(rows)} | {good if fam != 'clean' else '-'} | "
                     f"{len(rows) - good if fam != 'clean' else f'{good} passed, as they must'} |")
    lines += ["", "By principle and format (caught/cases; clean: passed/cases):", "", principle_table(results)]
    lines += ["", "*Caught*: the gate did not pass (exit 1 or 2): a finding naming the stored contract (its kind, the "
              "containment and the reading it was found under: `text` is the visible reading), a fail-closed "
              "code (`not-auditable: CODE`), an input it could not read (`ingest-error`) or a refusal.", ""]
    lines += ["| # | family | case | what a reader sees | reader (OCR containment) | gate | how it was caught |",
              "|---|---|---|---|---|---|---|"]
    for i, r in enumerate(results, 1):
        rd = "; ".join(f"{x['reader']} {x['ocr']:.2f}" + (f", junk {x['junk_seen']}" if x.get("junk_seen") else "")
                       for x in r.get("readers", []) if x.get("ocr") is not None) or "-"
        if r.get("by_eye"):
            rd += f"; by eye: {r['by_eye']}"
        if r.get("reader_valid") is False:
            rd += " *not shown*"
        how = "<br>".join(_md(c) for c in r["caught_by"]) or "-"
        mark = {"caught": "caught", "ok": "passed (clean)", "PASSED = hole": "**PASSED = hole**",
                "FALSE ALARM": "**FAILED (clean!)**"}[r["verdict"]]
        lines.append(f"| {i} | {r['family']} | {r['name']} | {_md(r['sees'])} | {rd} | {mark} | {how} |")
    lines += ["", "## Holes", ""]
    for r in holes:
        lines.append(f"- `{r['id']}`: a reader sees {_md(r['sees'])}.")
        for x in r.get("stored", []):
            if x.get("error"):
                lines.append(f"  - `{x['file']}`: not read ({x['error']})")
                continue
            lines.append(f"  - `{x['file']}` ({x['format']}) stored: \"{_md(x['text'])}\"; other readings: "
                         f"{', '.join(x['readings']) or 'none'}; unreadable: {_md(str(x['unreadable']))}")
    if not holes:
        lines.append("None.")
    lines += ["", "## Cases the reader does not show as claimed", ""]
    lines += [f"- `{r['id']}`: {_md('; '.join(str(x) for x in r.get('readers', [])))}" for r in invalid] or ["None."]
    lines += ["", "## Dropped after the readers were checked", ""]
    lines += [f"- `{k}`: {_md(v)}" for k, v in sorted(DROPPED.items())]
    lines += ["", "## Clean batches that failed", ""]
    lines += [f"- `{r['id']}`: {'; '.join(r['caught_by'])}" for r in alarms] or ["None."]
    if notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    md.write_text("\n".join(lines) + "\n" + METHOD)


def principle_table(results: list[dict]) -> str:
    """Disguised batches the gate did not pass, of those a reader shows, by principle (rows) and
    format (columns), each cell ``caught/cases``; clean batches as ``passed/cases``."""
    rows = [r for r in results if r.get("reader_valid") is not False]
    fmts = sorted({r["format"] for r in rows})
    lines = ["| principle | " + " | ".join(fmts) + " | all |", "|---" * (len(fmts) + 2) + "|"]
    for principle in dict.fromkeys(r["principle"] for r in rows):
        mine = [r for r in rows if r["principle"] == principle]
        cells = []
        for f in [*fmts, None]:
            sel = [r for r in mine if f is None or r["format"] == f]
            good = sum(r["verdict"] in ("caught", "ok") for r in sel)
            cells.append(f"{good}/{len(sel)}" if sel else "")
        lines.append(f"| {principle} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


METHOD = """
## How the readers were checked

On this machine (Debian bookworm packages): Chromium 156, LibreOffice 7.4.7, poppler 22.12,
Tesseract 5.3 (`apt-get install tesseract-ocr`). The readings are cached by the bytes rendered
(`benchmarks/redteam-work/oracle-cache`), so a run without `--oracle` reports what the cache
holds.

- **HTML** pages: headless Chromium (`--screenshot` of a 1280 px wide window, so screen style
  sheets apply, not print ones), the screenshot read by Tesseract OCR. An EDGAR part is rendered
  as the SEC shows it, the part's HTML alone.
- **Plain text** (.txt, .md, .log, and an EDGAR submission file): shown by Chromium as a text
  editor shows it (the bytes decoded by their BOM or as UTF-8, in a `<pre>`, bidi applied), then OCR.
- **.docx**: LibreOffice (headless, exported to PDF), pages rasterised by poppler's pdftoppm at
  150 dpi, then OCR.
- **PDF**: poppler's pdftoppm at 150 dpi, then OCR.
- The "reader" column is the stored contract's 5-word-shingle containment in the OCR text,
  measured with the auditor's own normalisation; `junk N` counts junk words the OCR saw. A
  disguised case is valid when its reader shows the contract (>= 0.80); OCR misreads cost a few
  points.
- Limits of the oracle: LibreOffice is not Word (where Word and LibreOffice differ the case notes
  say which one the case follows); OCR reads underlined, struck or letter-spaced text poorly, so
  those cases were also looked at as images.

## Out of scope

- **Paraphrase** (synonym swaps, reordered clauses, rewording): containment measures shared
  5-word sequences, so a contract rewritten word by word is not contained in its source. That
  is a limit of the measure, not a disguise of the reading, and no case here tries it.
"""


# -- main -----------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "redteam-work")
    ap.add_argument("--only", default=None, help="run the cases whose id contains this")
    ap.add_argument("--oracle", action="store_true", help="render each case with the real readers (slow, cached)")
    ap.add_argument("--round", type=int, default=None, help="run the cases of this round only (3; 2 is rounds 1-2)")
    ap.add_argument("--jobs", type=int, default=3, help="readers rendering at once (default 3)")
    ap.add_argument("--no-write", action="store_true", help="print, do not write REDTEAM.md and the JSON")
    ap.add_argument("--render", choices=("auto", "always", "never"), default="auto",
                    help="the gate's rendered reading (default auto, as users run it); never measures the readers' "
                         "models alone (the report is not written)")
    args = ap.parse_args(argv)
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    stored, unstored, notes = corpus_texts()
    db = build_corpus(work, corpus_files(stored))
    cases = all_cases({**stored, **unstored})
    if args.only:
        cases = [c for c in cases if args.only in c.id]
    if args.round is not None:
        cases = [c for c in cases if c.round == args.round]
    results = []
    t0 = time.monotonic()
    try:
        for n, case in enumerate(cases, 1):
            gate = gate_case(case, db, work, args.render)
            r = {"id": case.id, "family": case.family, "name": case.name, "format": case.fmt, "payload": case.payload,
                 "sees": case.sees, "round": case.round, "principle": case.principle, **gate, "note": case.note, "by_eye": case.by_eye,
                 "files": {k: hashlib.sha256(v).hexdigest() for k, v in sorted(case.files.items())}}
            r["verdict"] = verdict(case, gate)
            if r["verdict"] != "caught" and case.family != "clean":
                r["stored"] = stored_readings(case)
            print(f"[{n}/{len(cases)}] {case.id}: {gate['status']} {'; '.join(gate['caught_by'])}", flush=True)
            results.append(r)
    finally:
        from auditor.extract.pdf import worker as pdf_worker

        pdf_worker.shutdown()
    print(f"{len(results)} cases gated in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    readers(cases, results, stored, work / "oracle-cache", render=args.oracle, jobs=args.jobs)
    print(principle_table(results))
    if not args.no_write and not args.only and args.round is None and args.render == "auto":
        write_report(results, notes, ROOT / "benchmarks" / "REDTEAM.md", ROOT / "benchmarks" / "results-redteam.json",
                     any(r.get("readers") for r in results))
    holes = [r["id"] for r in results if r["verdict"] in ("PASSED = hole", "FALSE ALARM")]
    print(f"holes and false alarms: {len(holes)}", *holes, sep="\n  ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
