"""The gate's rendered reading (auditor.gating.render): what Chromium shows of a new document is
audited against the corpus, and a rendering that disagrees with the extraction fails closed."""

from __future__ import annotations

import html as htmllib
import os
import random
import shutil
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.gating import GateOptions, run_gate
from auditor.store.db import Store
from tests.support import synth

pytestmark = pytest.mark.skipif(not shutil.which("chromium"), reason="needs Debian's chromium")


def shadow_disguise(text: str, seed: int) -> bytes:
    """The words of ``text`` in a shuffled order in the source, put back in order by named slots
    of a declarative shadow root (no CSS, no script), with junk words that no slot shows."""
    words = text.split()[:400]
    rng = random.Random(seed)
    order = list(range(len(words)))
    rng.shuffle(order)
    slots = " ".join(f'<slot name="w{i}"></slot>' for i in range(len(words)))
    light = "".join(f'<span slot="w{i}">{htmllib.escape(words[i])} </span><span>junk{rng.randrange(10**6)} </span>'
                    for i in order)
    return f'<html><body><div><template shadowrootmode="open"><p>{slots}</p></template>{light}</div></body></html>'.encode()


@pytest.fixture
def corpus(tmp_path: Path) -> dict:
    contract = synth.contract(7101, 4_000, kind="lease")
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "lease.txt").write_text(contract)
    for i in range(3):
        (tmp_path / "corpus" / f"other-{i}.txt").write_text(synth.contract(7110 + i, 6_000))
    with Store(tmp_path / "c.db") as store:
        ingest(store, [tmp_path / "corpus"], workers=1)
    return {"dir": tmp_path, "db": tmp_path / "c.db", "contract": contract}


def gate(corpus: dict, files: dict[str, bytes], **opts):
    batch = corpus["dir"] / f"batch-{len(list(corpus['dir'].iterdir()))}"
    batch.mkdir()
    for name, data in files.items():
        (batch / name).write_bytes(data)
    return run_gate(GateOptions(db=corpus["db"], inputs=[batch], dry_run=True, workers=1, out=batch / "out", **opts))


def test_a_copy_that_only_the_renderer_puts_in_order_is_found_under_the_rendering(corpus):
    g = gate(corpus, {"exhibit.html": shadow_disguise(corpus["contract"], 1)})
    assert g.status == "FAILED" and "chromium" in g.renderers
    found = [f for f in g.findings if f.reading == "render:chromium"]
    assert found and Path(str(found[0].other["path"])).name == "lease.txt"


@pytest.mark.slow
def test_an_unrelated_agreement_disguised_the_same_fails_closed_and_an_ordinary_page_passes(corpus):
    other = synth.contract(7199, 4_000, kind="supply")
    page = "".join(f"<p>{htmllib.escape(p)}</p>" for p in synth.contract(7198, 4_000).split("\n\n"))
    g = gate(corpus, {"disguised.html": shadow_disguise(other, 2), "ordinary.html": f"<html><body>{page}</body></html>".encode()})
    by = {Path(f.file).name: f for f in g.findings if f.level == "error"}
    assert set(by) == {"disguised.html"} and by["disguised.html"].kind == "not-auditable"
    assert by["disguised.html"].new["code"] == "render_mismatch"
    assert "shows text the stored reading lacks" in by["disguised.html"].new["message"]


def test_render_never_says_what_was_not_checked(corpus):
    g = gate(corpus, {"exhibit.html": shadow_disguise(corpus["contract"], 3)}, render="never")
    assert not g.renderers and any(n.startswith("--render never") for n in g.notes)
    assert not any(f.reading == "render:chromium" for f in g.findings)


def test_render_always_fails_closed_where_no_renderer_is_installed(corpus, tmp_path, monkeypatch):
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("python3", "sh"):
        if shutil.which(tool):
            os.symlink(shutil.which(tool), bare / tool)
    monkeypatch.setenv("PATH", str(bare))
    page = b"<html><body><p>" + synth.contract(7197, 2_000).encode() + b"</p></body></html>"
    g = gate(corpus, {"page.html": page}, render="always")
    [f] = [f for f in g.findings if f.level == "error"]
    assert f.kind == "not-auditable" and f.new["code"] == "render_missing" and "apt install chromium" in f.new["message"]
    g = gate(corpus, {"page.html": page})  # auto: not rendered, and said so
    assert g.status == "PASSED" and any("not rendered (Chromium is not installed" in n for n in g.notes)
