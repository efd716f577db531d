"""Deterministic test documents: filler prose, and small corpora of legal documents."""

from __future__ import annotations

import random

_VOCAB = None


def prose(seed: int, n_words: int) -> str:
    """Deterministic filler text: sentences of words from a fixed made-up vocabulary."""
    global _VOCAB
    if _VOCAB is None:
        r = random.Random(0)
        _VOCAB = sorted({"".join(r.choice("bcdfghklmnprstvz") + r.choice("aeiou") for _ in range(r.randint(2, 4)))
                         for _ in range(6000)})
    r = random.Random(seed)
    out, sentence = [], []
    for i in range(n_words):
        sentence.append(r.choice(_VOCAB))
        if len(sentence) >= r.randint(8, 20) or i == n_words - 1:
            out.append(" ".join(sentence).capitalize() + ".")
            sentence = []
    return "\n".join(" ".join(out[i:i + 5]) for i in range(0, len(out), 5)) + "\n"


def write_contract_in_filing(directory, seed: int, *, unrelated: int = 1) -> str:
    """``contract.txt`` (12 KB), ``filing.txt`` (60 KB, the contract inside) and ``unrelated``
    other contracts (``other-N.txt``) under ``directory``; returns the contract's text."""
    from pathlib import Path

    from tests.support import synth

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    contract = synth.contract(seed, 12_000)
    (d / "contract.txt").write_text(contract)
    (d / "filing.txt").write_text(synth.filing(seed + 1, 60_000, exhibits=[contract])[0])
    for i in range(unrelated):
        (d / f"other-{i + 1}.txt").write_text(synth.contract(seed + 2 + i, 12_000 + 3_000 * i))
    return contract
