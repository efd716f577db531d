"""report.html in a real browser: headless Chromium at desktop and phone width.

A smoke test of the layout, not of pixels: the page renders, has content, and at 420 px nothing
runs off the right edge (tables become cards, long names and texts wrap). Skipped when Debian's
``chromium`` is not installed (``.ci/run`` installs it). Set ``AUDITOR_SCREENSHOTS=DIR`` to keep
the PNGs and look at them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from auditor.corpus.ingest import ingest
from auditor.report import render
from auditor.report.pipeline import audit_job
from tests.report.test_render import ok_report
from tests.support import synth

CHROMIUM = shutil.which("chromium")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                                   "(apt-get install chromium; .ci/run does)")]
PHONE, DESKTOP = 420, 1280


def screenshot(page: Path, out: Path, width: int, height: int) -> Path:
    """Chromium's own screenshot of ``page`` in a window of ``width`` x ``height`` CSS pixels."""
    with tempfile.TemporaryDirectory(prefix="auditor-chromium-") as profile:
        r = subprocess.run(
            [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", "--force-device-scale-factor=1", f"--user-data-dir={profile}",
             f"--screenshot={out}", f"--window-size={width},{height}", page.resolve().as_uri()],
            capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and out.is_file(), r.stderr[-2000:]
    keep = os.environ.get("AUDITOR_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(out, Path(keep) / out.name)
    return out


def ink(png: Path):
    """The screenshot as a boolean array: True where a pixel is not (near) white."""
    import numpy as np
    from PIL import Image

    with Image.open(png) as im:
        return np.asarray(im.convert("L")) < 235


@pytest.fixture(scope="module")
def audited_page(tmp_path_factory) -> Path:
    """A real audit: an edited contract inside a filing, so the page has a side-by-side view."""
    from auditor.store.db import Store

    d = tmp_path_factory.mktemp("shots")
    corpus = d / "corpus with a long directory name that has to wrap at phone width"
    corpus.mkdir()
    contract = synth.contract(41, 12_000)
    (corpus / "master-services-agreement-between-the-parties-final-executed-version.txt").write_text(contract)
    edited = contract.replace("shall", "will", 4).replace("Section 2", "Section 2 (as amended)", 1)
    (corpus / "annual-report.txt").write_text(synth.filing(42, 60_000, exhibits=[edited])[0])
    (corpus / "other.txt").write_text(synth.contract(43, 9_000))
    with Store(d / "c.db") as store:
        ingest(store, [corpus], workers=1)
        o = audit_job(store, 0.8, out=d / "report")
    assert o.report["findings"][0]["best"][0]["alignment"]["hunks"]
    return d / "report" / "report.html"


@pytest.fixture(scope="module")
def full_page(tmp_path_factory) -> Path:
    """Every section (boilerplate, families, failures), with hostile names, from a hand-built report."""
    page = tmp_path_factory.mktemp("full") / "report.html"
    page.write_text(render.html(ok_report()), encoding="utf-8")
    return page


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_audit_report_renders_with_content(audited_page, tmp_path, width):
    png = screenshot(audited_page, tmp_path / f"audit-{width}.png", width, 2400)
    a = ink(png)
    assert a.shape == (2400, width)
    assert a[:200].mean() > 0.2  # the verdict banner leads the page
    assert a.mean() > 0.02  # not a blank page


@pytest.mark.parametrize("page", ["audited_page", "full_page"])
def test_nothing_runs_off_the_right_edge_at_phone_width(request, tmp_path, page):
    path = request.getfixturevalue(page)
    png = screenshot(path, tmp_path / f"{page}-phone.png", PHONE, 16000)
    a = ink(png)
    rows = a.any(axis=1).nonzero()[0]
    assert len(rows) and rows.max() > 3000  # the whole (long) page was laid out
    edge = a[:, -6:]  # the body's padding: only a page wider than the screen puts ink there
    assert not edge.any(), f"ink at the right edge in rows {edge.any(axis=1).nonzero()[0][:10].tolist()}"


def test_a_table_wider_than_the_phone_would_be_caught(tmp_path):
    """The edge check above can fail: a page with an unbreakable wide table inks the edge."""
    page = tmp_path / "wide.html"
    page.write_text("<!DOCTYPE html><html><body style='margin:0'><table border=1><tr>"
                    + "".join(f"<td>column{i}</td>" for i in range(40)) + "</tr></table></body></html>")
    a = ink(screenshot(page, tmp_path / "wide.png", PHONE, 400))
    assert a[:, -6:].any()
