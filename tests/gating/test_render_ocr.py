"""OCR of what the gate's renderers draw (auditor.gating.render): the pictures of an HTML page
are a reading the gate audits, and a .docx whose embedded font draws its own letters is vouched
for while one that draws other letters fails closed and is found. The stored contract is a
licence an installed package ships; the logo is import-linter's. Slow: Chromium, LibreOffice
and Tesseract run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.gating import GateOptions, run_gate
from auditor.store.db import Store
from tests.extract.test_render_ocr import img, logo, png
from tests.support import redteam_build as b
from tests.support import redteam_fonts as fonts
from tests.support import synth
from tests.support.realtext import licence
from tests.support.redteam_round3 import _FONT_RPR, docx_with_font

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (shutil.which("chromium") and shutil.which("soffice")),
                                 reason="needs Debian's chromium and LibreOffice")]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("ocr-gate")
    (d / "corpus").mkdir()
    (d / "corpus" / "stored-contract.txt").write_text(licence("BSD"))
    (d / "corpus" / "lease.txt").write_text(synth.contract(7301, 5_000, kind="lease"))
    with Store(d / "c.db") as store:
        ingest(store, [d / "corpus"], workers=1)
    return {"dir": d, "db": d / "c.db"}


def gate(corpus: dict, name: str, files: dict[str, bytes]):
    batch = corpus["dir"] / name
    batch.mkdir()
    for file, data in files.items():
        (batch / file).write_bytes(data)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AUDITOR_NO_CACHE", "1")
        return run_gate(GateOptions(db=corpus["db"], inputs=[batch], dry_run=True, workers=1, out=batch / "out"))


def errors(g) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in g.findings:
        if f.level == "error":
            out.setdefault(Path(f.file).name, []).append(f)
    return out


def test_a_picture_of_the_stored_contract_is_found_and_pictures_of_other_text_pass(corpus):
    g = gate(corpus, "pictures", {
        "exhibit.html": b.page("<p>Exhibit 10.1, as filed with the registration statement.</p>" + img(png(licence("BSD")))),
        "unrelated.html": b.page("<p>Exhibit 10.2, the supply agreement, as signed.</p>"
                                 + img(png(synth.contract(7302, 3_000, kind="supply")))),
        "ordinary.html": b.page(img(logo(), "width:90px") + "".join(
            f"<p>{p}</p>" for p in synth.contract(7303, 4_000, kind="employment").split("\n\n"))),
    })
    by = errors(g)
    assert set(by) == {"exhibit.html"}, {k: [f.sentence() for f in v] for k, v in by.items()}
    [found] = by["exhibit.html"]
    assert found.reading == "ocr:chromium-pictures" and Path(str(found.other["path"])).name == "stored-contract.txt"
    assert g.renderers.get("ocr", "").startswith("tesseract")
    assert any(n.startswith("OCR read what the renderers drew: 0 page(s)") and "3 picture(s) of 3 document(s)" in n
               for n in g.notes), g.notes


def test_an_embedded_font_is_vouched_for_when_it_draws_its_letters_and_found_when_it_draws_others(corpus):
    own = docx_with_font(b.docx_paras(synth.contract(7304, 3_000, kind="purchase"), rpr=_FONT_RPR), fonts.remapped({}))
    other = docx_with_font(b.docx_paras(fonts.encode(licence("BSD"), fonts.rot13()), rpr=_FONT_RPR),
                           fonts.remapped(fonts.rot13()))
    g = gate(corpus, "fonts", {"ordinary.docx": own, "exhibit.docx": other})
    by = errors(g)
    assert set(by) == {"exhibit.docx"}, {k: [f.sentence() for f in v] for k, v in by.items()}
    codes = {f.new.get("code") for f in by["exhibit.docx"]}
    assert {"render_mismatch", "not_auditable"} <= codes  # the font stays outside the model
    assert any(f.reading == "ocr:libreoffice" and Path(str(f.other["path"])).name == "stored-contract.txt"
               for f in by["exhibit.docx"])
    assert any("document(s) with embedded fonts (1 vouched for)" in n for n in g.notes), g.notes


def test_without_the_rendering_an_embedded_font_is_not_vouched_for(corpus):
    own = docx_with_font(b.docx_paras(synth.contract(7305, 3_000, kind="purchase"), rpr=_FONT_RPR), fonts.remapped({}))
    batch = corpus["dir"] / "never"
    batch.mkdir()
    (batch / "ordinary.docx").write_bytes(own)
    g = run_gate(GateOptions(db=corpus["db"], inputs=[batch], dry_run=True, workers=1, out=batch / "out",
                             render="never"))
    [f] = errors(g)["ordinary.docx"]
    assert f.new["code"] == "not_auditable" and "embedded font" in f.new["message"]
