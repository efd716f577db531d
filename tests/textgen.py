"""Deterministic filler text for tests that need words but not legal prose."""

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
