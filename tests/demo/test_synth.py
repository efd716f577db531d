"""The synthetic corpus generator: determinism, sizes, containment structure, layouts."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import lxml.html
import numpy as np
import pytest

from auditor.errors import UsageError
from auditor.text.normalize import words
from auditor.text.shingle import shingle_text
from tests.support import synth

ROOT = Path(__file__).resolve().parents[2]


def shingles(text: str) -> np.ndarray:
    s = shingle_text(text, keep_all=True).all
    assert s is not None
    return s


def containment(a: str, b: str) -> float:
    """|S(a) ∩ S(b)| / |S(a)| over all 5-word shingles."""
    sa, sb = shingles(a), shingles(b)
    return len(np.intersect1d(sa, sb, assume_unique=True)) / len(sa)


def html_body_text(doc: str) -> str:
    return lxml.html.fromstring(doc).find("body").text_content()


@pytest.fixture(scope="module")
def contracts() -> list[str]:
    return [synth.contract(seed, 12_000 + 1_500 * seed) for seed in range(12)]


def test_same_seed_same_text_different_seed_different_text():
    assert synth.contract(7) == synth.contract(7)
    assert synth.contract(7) != synth.contract(8)
    assert synth.filing(3, 50_000) == synth.filing(3, 50_000)
    assert synth.filing(3, 50_000)[0] != synth.filing(4, 50_000)[0]
    assert synth.reformat(synth.contract(7), 1) == synth.reformat(synth.contract(7), 1)
    assert synth.reformat(synth.contract(7), 1) != synth.reformat(synth.contract(7), 2)


def test_output_does_not_depend_on_hash_seed_or_process():
    code = (
        "import hashlib; from tests.support import synth; "
        "t = synth.contract(11, 15000) + synth.filing(12, 40000)[0] + synth.reformat(synth.contract(13), 4); "
        "print(hashlib.sha256(t.encode()).hexdigest())"
    )
    here = synth.contract(11, 15000) + synth.filing(12, 40000)[0] + synth.reformat(synth.contract(13), 4)
    expected = hashlib.sha256(here.encode()).hexdigest()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == expected


@pytest.mark.parametrize("target", [6_000, 12_000, 20_000, 30_000, 60_000])
def test_contract_size_within_ten_percent(target):
    for seed in range(8):
        assert abs(len(synth.contract(seed, target)) / target - 1) <= 0.10


def test_every_kind_and_an_unknown_one():
    for kind in synth.CONTRACT_KINDS:
        text = synth.contract(1, 12_000, kind=kind)
        assert text.splitlines()[0].isupper()
        assert "ARTICLE 1" in text and ("IN WITNESS WHEREOF" in text or "have signed" in text)
    with pytest.raises(UsageError):
        synth.contract(1, kind="treaty")


def test_contract_has_the_parts_of_a_contract():
    text = synth.contract(21, 20_000, kind="license")
    assert "DEFINITIONS" in text and "MISCELLANEOUS" in text
    assert '" means ' in text  # defined terms in quotes
    assert "/s/ " in text and "By: " in text
    assert "\n\n2.1 " in text


def test_unrelated_contracts_share_only_a_little_boilerplate(contracts):
    values = [containment(a, b) for i, a in enumerate(contracts) for j, b in enumerate(contracts) if i != j]
    assert max(values) < 0.1
    assert 0.005 < float(np.mean(values)) < 0.05  # ordinary boilerplate recurs
    assert sum(v > 0 for v in values) > 0.9 * len(values)


def test_vocabulary_is_large():
    vocab = {w for seed in range(6) for w in words(synth.contract(seed, 20_000))}
    assert len(vocab) > 2_500


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: synth.rewrap(t, 60, indent=4),
        lambda t: synth.rewrap(t, 100),
        synth.curly_quotes,
        synth.upper_headings,
        lambda t: synth.hyphenate_line_ends(synth.rewrap(t, 55), 55),
    ],
    ids=["rewrap60", "rewrap100", "curly", "upper", "hyphenate"],
)
def test_layout_changes_keep_the_word_sequence(contracts, fn):
    for text in contracts[:4]:
        out = fn(text)
        assert out != text
        assert words(out) == words(text)


def test_hyphenation_breaks_words_at_line_ends(contracts):
    out = synth.hyphenate_line_ends(synth.rewrap(contracts[0], 50), 50)
    broken = [ln for ln in out.splitlines() if ln.endswith("-") and ln[-2].isalpha()]
    assert len(broken) >= 5
    assert all(len(ln) <= 50 for ln in out.splitlines() if ln in broken)


def test_page_furniture():
    text = synth.rewrap(synth.contract(2, 20_000), 70)
    out = synth.add_page_furniture(text, 40, "ACME CORP - EXHIBIT 10.2")
    pages = out.split("\f")
    assert len(pages) == -(-len(text.rstrip("\n").split("\n")) // 40)
    assert all("ACME CORP - EXHIBIT 10.2" in p for p in pages)
    assert f"Page {len(pages)} of {len(pages)}" in pages[-1]


def test_reformatted_contract_still_contains_the_original(contracts):
    for seed, text in enumerate(contracts):
        out = synth.reformat(text, seed)
        assert "\f" in out and "\u201c" in out
        assert containment(text, out) >= 0.95  # the auditor's question: is the contract in it?
        assert containment(out, text) >= 0.90  # page furniture is the only addition


def test_html_rendering(contracts):
    text = contracts[3] + "\nSmith & Jones <Holdings> \"quoted\"\n"
    doc = synth.to_html(text, "An Agreement")
    assert doc.isascii()
    assert "<h2>" in doc and "<p>" in doc and "<b>" in doc and "<i>" in doc
    assert "&amp;" in doc and "&lt;Holdings&gt;" in doc and "&#8220;" in doc
    assert words(html_body_text(doc)) == words(text)


def test_html_parts_match_whole_conversion(contracts):
    parts = [contracts[0], synth.partial(contracts[1], 0.5, 1), contracts[2]]
    doc, spans = synth.to_html_parts(parts, "t")
    assert doc == synth.to_html("\n\n".join(parts), "t")
    for part, (a, b) in zip(parts, spans, strict=True):
        assert words(lxml.html.fromstring(f"<div>{doc[a:b]}</div>").text_content()) == words(part)


@pytest.mark.parametrize("fraction", [0.5, 0.7, 0.85])
def test_partial_is_a_verbatim_run_of_about_fraction_of_the_words(contracts, fraction):
    for seed, text in enumerate(contracts[:6]):
        part = synth.partial(text, fraction, seed)
        assert part.strip() in text
        share = synth.word_count(part) / synth.word_count(text)
        assert abs(share - fraction) < 0.05
        assert synth.partial(text, fraction, seed) == part
    with pytest.raises(UsageError):
        synth.partial(contracts[0], 0, 1)


def test_filing_spans_point_at_the_inserted_texts(contracts):
    ex = [contracts[0], contracts[1]]
    text, spans = synth.filing(31, 200_000, exhibits=ex, positions=[0.7, 0.2])
    assert abs(len(text) / 200_000 - 1) < 0.05
    assert [text[a:b] for a, b in spans] == [e.strip("\n") for e in ex]
    assert spans[1][1] < spans[0][0]  # positions are honoured
    assert text.startswith("UNITED STATES") and "Item 1A. Risk Factors" in text
    assert containment(contracts[0], text) == 1.0

    default, dspans = synth.filing(32, 80_000, exhibits=ex)
    assert [default[a:b] for a, b in dspans] == [e.strip("\n") for e in ex]
    with pytest.raises(UsageError):
        synth.filing(33, 50_000, exhibits=ex, positions=[0.5])


def test_unrelated_contract_is_not_in_a_filing(contracts):
    text, _ = synth.filing(41, 300_000, exhibits=[contracts[5]])
    assert containment(contracts[6], text) < 0.1
    assert containment(contracts[5], text) == 1.0


def test_benchmark_generator_tiny_run(tmp_path):
    def run(out: Path) -> str:
        res = subprocess.run(
            [sys.executable, str(ROOT / "tests" / "support" / "generate.py"), "--out", str(out), "--size-mb", "0.3", "--seed", "3"],
            capture_output=True, text=True, check=True,
        )
        assert "files" in res.stdout and "MB" in res.stdout
        return (out / "truth.json").read_text(encoding="utf-8")

    raw = run(tmp_path / "a")
    assert run(tmp_path / "b") == raw  # deterministic, byte for byte
    truth = json.loads(raw)
    root = tmp_path / "a"
    assert truth["params"]["seed"] == 3
    files = {f["path"]: f for f in truth["files"]}
    for f in truth["files"]:
        data = (root / f["path"]).read_bytes()
        assert len(data) == f["bytes"] and hashlib.sha256(data).hexdigest() == f["sha256"]
    assert {f["format"] for f in files.values()} == {"text", "html", "edgar"}
    kinds = {p["kind"] for p in truth["placements"]}
    assert kinds == {"verbatim", "exhibit", "reformatted", "partial85", "partial70", "partial50"}
    assert truth["unplaced"] and all(u in files for u in truth["unplaced"])
    for p in truth["placements"]:
        assert p["contract"] in files and p["container"] in files
        assert files[p["container"]]["kind"] == "filing"
        assert p["must_find"] == (p["kind"] in {"verbatim", "exhibit", "reformatted", "partial85"})
        assert p["must_find"] == (p["containment"] >= 0.8)
        container = (root / p["container"]).read_text(encoding="utf-8")
        a, b = p["span"]
        contract = (root / p["contract"]).read_text(encoding="utf-8")
        inserted = container[a:b]
        if p["kind"] == "exhibit":
            assert "<TYPE>EX-10" in container and p["sequence"] >= 2
        if p["kind"] in ("verbatim", "exhibit"):
            if inserted.startswith("<html>"):
                got = html_body_text(inserted)
            elif inserted.startswith("<"):
                got = html_body_text(f"<html><body>{inserted}</body></html>")
            else:
                got = inserted
            want = html_body_text(contract) if p["contract"].endswith(".htm") else contract
            assert words(got) == words(want)
    edgar = next(root / f for f in files if files[f]["format"] == "edgar")
    head = edgar.read_text(encoding="utf-8")[:2000]
    for field in ("<SEC-DOCUMENT>", "<SEC-HEADER>", "ACCESSION NUMBER:", "CONFORMED SUBMISSION TYPE:\t10-K",
                  "FILED AS OF DATE:", "COMPANY CONFORMED NAME:", "CENTRAL INDEX KEY:", "<TYPE>10-K", "<SEQUENCE>1"):
        assert field in head
