"""CONTAIN007 ``covered-by-batch``: a stored contract split over three new documents, each piece
padded so that no pair reaches the threshold, fails the gate (as plain files, and as three parts
of one EDGAR submission); so does the unpadded split, and a split of a new document within its
batch; an unrelated batch passes. Through the real CLI, on a small generated corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from auditor.corpus.ingest import ingest
from auditor.gating.cover import split_cover
from auditor.store.db import Store
from auditor.text.shingle import shingle_text
from tests.support import synth
from tests.support.fixtures_build import make_edgar_submission
from tests.support.formats import validate_sarif

ROOT = Path(__file__).resolve().parents[2]


def shingles(text: str) -> np.ndarray:
    s = shingle_text(text, keep_all=True).all
    assert s is not None
    return s


def containment(a: str, b: str) -> float:
    sa = shingles(a)
    return float(np.isin(sa, shingles(b)).sum() / len(sa))


def thirds(text: str) -> list[str]:
    """Three runs of whole paragraphs with about a third of the words each."""
    paras = text.split("\n\n")
    total = sum(len(p.split()) for p in paras)
    out: list[list[str]] = [[]]
    acc = 0
    for p in paras:
        if acc >= total * len(out) / 3 and len(out) < 3:
            out.append([])
        out[-1].append(p)
        acc += len(p.split())
    return ["\n\n".join(x) for x in out]


def padded(piece: str, seed: int, share: float = 0.41) -> str:
    """``piece`` with new prose around it, so that about ``share`` of the result is new."""
    filler = synth.filing(seed, 60_000)[0].split("\n\n")
    want = len(piece.split()) * share / (1 - share)
    head, tail, n = [], [], 0
    for i, p in enumerate(filler[5:]):
        if n >= want:
            break
        (head if i % 2 else tail).append(p)
        n += len(p.split())
    return "\n\n".join([*head, piece, *tail]) + "\n"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("cover")
    lease = synth.contract(7101, 24_000, kind="lease")
    other = synth.contract(7102, 24_000, kind="credit")
    (root / "corpus").mkdir()
    (root / "corpus" / "lease.txt").write_text(lease)
    (root / "corpus" / "credit.txt").write_text(other)
    (root / "corpus" / "10-k.txt").write_text(synth.filing(7103, 80_000)[0])
    cwd = Path.cwd()
    os.chdir(root)
    try:
        with Store(root / "corpus.db") as store:
            ingest(store, [Path("corpus")], batch="corpus", workers=1)
    finally:
        os.chdir(cwd)
    pieces = [padded(p, 7200 + i) for i, p in enumerate(thirds(lease))]
    return {"root": root, "lease": lease, "pieces": pieces, "plain": thirds(lease)}


def gate(root: Path, out: str, *inputs: str) -> tuple[int, dict, subprocess.CompletedProcess]:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "AUDITOR_DB")}
    env.update({"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"})
    r = subprocess.run([sys.executable, "-m", "auditor", "gate", "--db", "corpus.db", "--dry-run", "--out", out,
                        "--sarif", f"{out}/g.sarif", "--junit", f"{out}/junit.xml", *inputs],
                       cwd=root, env=env, capture_output=True, text=True, timeout=300)
    return r.returncode, json.loads((root / out / "gate.json").read_text()), r


def write(root: Path, name: str, files: dict[str, str | bytes]) -> str:
    (root / name).mkdir()
    for f, content in files.items():
        (root / name / f).write_bytes(content if isinstance(content, bytes) else content.encode())
    return name


def test_the_padded_pieces_are_contained_pairwise_nowhere(world):
    for p in world["pieces"]:
        assert 0.5 < containment(p, world["lease"]) < 0.7  # about 0.59: the piece is mostly the lease
        assert containment(world["lease"], p) < 0.45  # the lease is a third in each piece


def test_a_contract_split_into_padded_pieces_fails_the_gate(world):
    root, pieces = world["root"], world["pieces"]
    b = write(root, "split", {f"part-{i}.txt": p for i, p in enumerate(pieces, 1)})
    code, g, r = gate(root, "out-split", b)
    assert code == 1, r.stdout + r.stderr
    assert {f["kind"] for f in g["findings"]} == {"covered-by-batch"}  # no pair is contained
    assert sorted(f["new"]["path"] for f in g["findings"]) == [f"{b}/part-{i}.txt" for i in (1, 2, 3)]
    for f in g["findings"]:
        assert f["rule"] == "CONTAIN007" and f["level"] == "error" and f["other"]["path"] == "corpus/lease.txt"
        assert not f["covered_is_new"] and not f["new_is_contained"]
        assert sorted(p["path"] for p in f["pieces"]) == [f"{b}/part-{i}.txt" for i in (1, 2, 3)]
        shares = [p["covered"] for p in f["pieces"]]
        assert all(0.2 < s < 0.5 for s in shares) and f["containment"] == pytest.approx(sum(shares))
        assert f["containment"] >= 0.95
        assert f["spans"] and f["location"]["region"]["startLine"] > 1  # the lines of the lease in the piece
        assert "together cover corpus/lease.txt" in f["message"] and "part-2.txt" in f["message"]
    assert {d["status"] for d in g["documents"]} == {"failed"}
    sarif = json.loads((root / "out-split" / "g.sarif").read_text())
    validate_sarif(sarif)
    rules = [x["id"] for x in sarif["runs"][0]["tool"]["driver"]["rules"]]
    assert "CONTAIN007" in rules and {x["ruleId"] for x in sarif["runs"][0]["results"]} == {"CONTAIN007"}
    junit = (root / "out-split" / "junit.xml").read_text()
    assert junit.count('type="CONTAIN007 covered-by-batch"') == 3 and "pieces: " in junit


def test_three_parts_of_one_edgar_submission_fail_the_gate(world):
    root, pieces = world["root"], world["pieces"]
    sub = make_edgar_submission(
        {"accession_number": "0000950123-24-000777", "form_type": "8-K", "filing_date": "20240601",
         "company_name": "SPLITCO", "cik": "0000777777"},
        [{"type": f"EX-99.{i}", "filename": f"ex99-{i}.txt", "description": f"PART {i}", "text": p}
         for i, p in enumerate(pieces, 1)])
    b = write(root, "edgar", {"8-k.txt": sub})
    code, g, r = gate(root, "out-edgar", b)
    assert code == 1, r.stdout + r.stderr
    assert {f["kind"] for f in g["findings"]} == {"covered-by-batch"}
    parts = sorted(f["new"]["path"] for f in g["findings"])
    assert parts == [f"{b}/8-k.txt#{i}" for i in (1, 2, 3)]
    f = g["findings"][0]
    assert sorted(p["path"] for p in f["pieces"]) == parts and f["new"]["edgar"]["part"]["type"].startswith("EX-99")


def test_the_unpadded_split_still_fails(world):
    root = world["root"]
    b = write(root, "plain-split", {f"p{i}.txt": p for i, p in enumerate(world["plain"], 1)})
    code, g, r = gate(root, "out-plain", b)
    assert code == 1, r.stdout + r.stderr
    kinds = {(f["kind"], f["new"]["path"]) for f in g["findings"]}
    assert {k for k, _ in kinds} == {"new-in-corpus", "covered-by-batch"}
    assert {p for k, p in kinds if k == "new-in-corpus"} == {f"{b}/p{i}.txt" for i in (1, 2, 3)}


@pytest.mark.slow
def test_a_split_within_the_batch_and_an_unrelated_batch(world):
    root = world["root"]
    memo = synth.contract(7301, 24_000, kind="supply")
    b = write(root, "within", {"memo.txt": memo, **{f"x{i}.txt": padded(p, 7400 + i)
                                                   for i, p in enumerate(thirds(memo), 1)}})
    code, g, r = gate(root, "out-within", b)
    assert code == 1, r.stdout + r.stderr
    assert {(f["kind"], f["other"]["path"]) for f in g["findings"]} == {("covered-by-batch", f"{b}/memo.txt")}
    assert all(f["covered_is_new"] and "also in this batch" in f["message"] for f in g["findings"])
    assert sorted(f["new"]["path"] for f in g["findings"]) == [f"{b}/x{i}.txt" for i in (1, 2, 3)]
    # unrelated new documents, padded the same way: nothing to report
    b = write(root, "unrelated", {f"u{i}.txt": padded(p, 7500 + i)
                                  for i, p in enumerate(thirds(synth.contract(7601, 24_000, kind="lease")), 1)})
    code, g, r = gate(root, "out-unrelated", b)
    assert code == 0, r.stdout + r.stderr
    assert g["findings"] == [] and g["status"] == "PASSED"


def test_split_cover_rules():
    held = {1: np.arange(0, 35), 2: np.arange(30, 65), 3: np.arange(60, 95)}
    sizes = {1: 60, 2: 60, 3: 60}
    steps = split_cover(100, held, sizes, 0.8)
    assert steps is not None and [(s.key, len(s.explained)) for s in steps] == [(1, 35), (3, 35), (2, 25)]
    assert split_cover(100, {**held, 4: np.arange(0, 80)}, {**sizes, 4: 80}, 0.8) is None  # one reaches it alone
    assert split_cover(100, {1: np.arange(0, 35), 2: np.arange(30, 65)}, sizes, 0.8) is None  # 65% together
    assert split_cover(0, {}, {}, 0.8) is None
