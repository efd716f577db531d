"""How many real documents each format's allow-list refuses (issue #40), and why.

    .venv/bin/python benchmarks/allowlist.py                      # every corpus found here
    .venv/bin/python benchmarks/allowlist.py --only edgar         # corpora whose name holds edgar
    .venv/bin/python benchmarks/allowlist.py --dir my-files       # one more directory of files
    .venv/bin/python benchmarks/allowlist.py --only fixtures --ext docx,ipynb   # some formats only

Each corpus is ingested as a gate ingests it (``auditor.corpus.ingest.ingest`` into a fresh
store, the gate's readings on, in the sandboxed children), and the store's ``unmodelled``
column is read back: per format, the documents stored, the documents holding a construct
outside the model (a gate refuses them: CONTAIN006), and the constructs by how many documents
use them. Corpora (only those present on the machine are read):

* ``edgar-html``: the EDGAR HTML filings in /work/notes/real/edgar-html (not in the repository);
* ``edgartools``: the EDGAR fixtures (HTML, XML, text) of the edgartools git mirror;
* ``court``: the court web pages, dockets and opinions (HTML, XML, text, email) that
  juriscraper's git mirror ships as test examples (freelawproject/juriscraper);
* ``licences``: the licence texts installed packages ship (tests/support/realtext.py);
* ``demo``: the demo corpus (auditor/demo);
* ``fixtures``: public fixtures of other formats (docx, odt, rtf, pdf...) found in git mirrors
  under /work/.mirror (python-docx, pdfminer.six, odfpy, striprtf...), when present;
* ``office-*``: when LibreOffice is installed, the licence texts and LibreOffice's own templates
  (/usr/lib/libreoffice/share/template, real ODF) converted by it to flat ODF, .odt, RTF and
  Word 2003 XML (``office-fodt``, ``office-odt``, ``office-rtf``, ``office-wordml``), and the
  templates as they are (``office-templates``);
* ``--dir``: any directory given.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MIRRORS = Path("/work/.mirror")
EDGAR_HTML = Path("/work/notes/real/edgar-html")
#: file name endings taken from git mirrors as fixtures of other formats
FIXTURE_EXT = (".docx", ".odt", ".ott", ".fodt", ".rtf", ".pdf", ".eml", ".mht", ".mhtml", ".rst", ".ipynb", ".svg")
TEMPLATES = Path("/usr/lib/libreoffice/share/template")
#: LibreOffice's export filters of the office formats the auditor reads
OFFICE = {"fodt": "fodt", "odt": "odt", "rtf": "rtf", "wordml": "xml:MS Word 2003 XML"}


def _office(tmp: Path, licences: Path, only: str) -> dict[str, Path]:
    """Licence texts and LibreOffice's templates converted by LibreOffice to each office format."""
    import shutil

    if shutil.which("soffice") is None or only not in "office-templates office-fodt office-odt office-rtf office-wordml":
        return {}
    found: dict[str, Path] = {}
    templates = sorted(TEMPLATES.rglob("*.ott")) + sorted(TEMPLATES.rglob("*.odt")) if TEMPLATES.is_dir() else []
    if templates and only in "office-templates":
        d = tmp / "office-templates"
        d.mkdir()
        for i, t in enumerate(templates):
            (d / f"{i:03d}-{t.name}").write_bytes(t.read_bytes())
        found["office-templates"] = d
    sources = sorted(licences.iterdir()) + templates
    for name, to in OFFICE.items():
        if only not in f"office-{name}":
            continue
        d = tmp / f"office-{name}"
        subprocess.run(["soffice", f"-env:UserInstallation=file://{tmp}/lo-profile", "--headless", "--convert-to",
                        to, "--outdir", str(d), *map(str, sources)], capture_output=True, check=False, timeout=3600)
        if d.is_dir():
            found[f"office-{name}"] = d
    return found


def _from_mirror(repo: Path, out: Path, keep: tuple[str, ...], grep: str | None, limit: int) -> int:
    names = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "HEAD", "--name-only"], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    picked = sorted(n for n in names if n.lower().endswith(keep) and (grep is None or grep in n.lower()))[:limit]
    for i, name in enumerate(picked):
        blob = subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{name}"], capture_output=True, check=False)
        if blob.returncode == 0 and blob.stdout:
            (out / f"{i:04d}-{Path(name).name}").write_bytes(blob.stdout)
    return len(picked)


def corpora(tmp: Path, extra: list[Path], only: str = "", ext: tuple[str, ...] = FIXTURE_EXT) -> dict[str, Path]:
    found: dict[str, Path] = {}
    if EDGAR_HTML.is_dir() and only in "edgar-html":
        found["edgar-html"] = EDGAR_HTML
    edgartools = MIRRORS / "dgunning+edgartools" / "repo"
    if edgartools.exists() and only in "edgartools":
        d = tmp / "edgartools"
        d.mkdir()
        _from_mirror(edgartools, d, (".html", ".htm", ".xml", ".txt"), "fixtures", 400)
        found["edgartools"] = d
    juriscraper = MIRRORS / "freelawproject+juriscraper" / "repo"
    if juriscraper.exists() and only in "court":
        d = tmp / "court"
        d.mkdir()
        _from_mirror(juriscraper, d, (".html", ".htm", ".xml", ".txt", ".eml"), "tests/examples/", 2000)
        found["court"] = d
    from tests.support.realtext import licence_files

    d = tmp / "licences"
    d.mkdir()
    for i, (name, text) in enumerate(licence_files().items()):
        (d / f"{i:03d}-{name.replace('/', '_')}.txt").write_text(text, encoding="utf-8")
    found["licences"] = d
    found.update(_office(tmp, d, only))
    import zipfile

    demo = ROOT / "auditor" / "demo" / "files" / "corpus.zip"
    if demo.exists():
        d = tmp / "demo"
        with zipfile.ZipFile(demo) as z:
            z.extractall(d)
        found["demo"] = d
    if MIRRORS.is_dir() and only in "fixtures":
        d = tmp / "fixtures"
        d.mkdir()
        n = 0
        for repo in sorted(MIRRORS.iterdir()):
            if repo.name.startswith("dgunning+edgartools") or not (repo / "repo").exists():
                continue
            n += _from_mirror(repo / "repo", d, ext, None, 150)
        if n:
            found["fixtures"] = d
    for i, e in enumerate(extra):
        found[f"dir{i}:{e.name}"] = e
    return found


def measure(name: str, folder: Path, work: Path) -> dict:
    from auditor.corpus.ingest import ingest
    from auditor.store.db import Store

    t0 = time.perf_counter()
    with Store(work / f"{name.replace(':', '_')}.db") as store:
        result = ingest(store, [folder], batch=name, workers=2)
        rows = store.conn.execute("SELECT format, unmodelled, path FROM documents WHERE n_words > 0 "
                                  "ORDER BY path, id").fetchall()
    per: dict[str, dict] = {}
    for fmt, names, path in rows:
        p = per.setdefault(fmt, {"documents": 0, "refused": 0, "constructs": collections.Counter(), "refusals": {}})
        p["documents"] += 1
        got = json.loads(names) if names else []
        if got:
            p["refused"] += 1
            p["constructs"].update(got)
            p["refusals"][str(Path(path).relative_to(folder)) if Path(path).is_relative_to(folder) else path] = got
    return {"corpus": name, "seconds": round(time.perf_counter() - t0, 1), "failed": result.counts["failed"],
            "formats": {f: {**v, "constructs": dict(v["constructs"].most_common())} for f, v in sorted(per.items())}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--dir", type=Path, action="append", default=[])
    ap.add_argument("--ext", default="", help="fixtures of these file name endings only (comma list)")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--documents", action="store_true", help="also name each refused document and its constructs")
    args = ap.parse_args()
    os.environ.setdefault("AUDITOR_NO_CACHE", "1")
    load = os.getloadavg()
    print(f"# allow-list refusals, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, load {load[0]:.2f}")
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        (t / "db").mkdir()
        ext = tuple(f".{e.strip().lstrip('.')}" for e in args.ext.split(",") if e.strip()) or FIXTURE_EXT
        for name, folder in corpora(t, args.dir, args.only, ext).items():
            if args.only not in name:
                continue
            r = measure(name, folder, t / "db")
            out.append(r)
            print(f"\n## {name} ({r['seconds']} s, {r['failed']} inputs not ingested)")
            for fmt, v in r["formats"].items():
                print(f"{fmt:10} {v['refused']:4} of {v['documents']:4} documents outside the model")
                for c, n in list(v["constructs"].items())[:15]:
                    print(f"    {n:4}  {c}")
                if args.documents:
                    for doc, got in v["refusals"].items():
                        print(f"    {doc}: {'; '.join(got)}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
