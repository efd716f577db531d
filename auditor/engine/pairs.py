"""What the audit finds, as values: located spans, pairs (as parallel arrays), families and
contained documents with their best containers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from auditor.text.score import Estimate


@dataclass(slots=True)
class Span:
    start: int  # character offsets in the container's stored text
    end: int
    words: int
    shingles: int  # shingles of the contained document matched in this span
    pages: tuple[int, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"start": self.start, "end": self.end, "words": self.words,
                             "shingles": self.shingles}
        if self.pages:
            d["pages"] = list(self.pages)
        return d


@dataclass(slots=True)
class Pair:
    """One scored pair with its location: what a report shows of a best container or a miss."""

    contained: int
    container: int
    estimate: Estimate
    exact: float | None = None
    spans: list[Span] = field(default_factory=list)

    @property
    def containment(self) -> float:
        """The verdict value: exact when verified, else the estimate."""
        return self.exact if self.exact is not None else self.estimate.estimate


@dataclass
class Pairs:
    """Scored pairs as parallel arrays: 48 bytes a pair, whatever the corpus throws at it.

    ``shared`` and ``shingles`` are the exact counts (``|S(A) & S(B)|`` and ``|S(A)|``), or -1
    for a pair that was not verified. Both engines fill them with integers, and every float is
    derived from them by the same expression, so their results are identical.
    """

    contained: np.ndarray
    container: np.ndarray
    hits: np.ndarray
    sampled: np.ndarray
    shared: np.ndarray
    shingles: np.ndarray

    @classmethod
    def empty(cls) -> Pairs:
        return cls(*(np.empty(0, np.int64) for _ in range(6)))

    @classmethod
    def concat(cls, parts: list[Pairs]) -> Pairs:
        if not parts:
            return cls.empty()
        return cls(*(np.concatenate([getattr(p, f) for p in parts]).astype(np.int64, copy=False)
                     for f in ("contained", "container", "hits", "sampled", "shared", "shingles")))

    def __len__(self) -> int:
        return len(self.contained)

    def take(self, index: np.ndarray) -> Pairs:
        return Pairs(self.contained[index], self.container[index], self.hits[index],
                     self.sampled[index], self.shared[index], self.shingles[index])

    @property
    def verified(self) -> np.ndarray:
        return self.shingles >= 0

    @property
    def exact(self) -> np.ndarray:
        """Exact containment of verified pairs (NaN for the others)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.shingles > 0, self.shared / np.maximum(self.shingles, 1),
                            np.where(self.shingles == 0, 0.0, np.nan))

    @property
    def estimate(self) -> np.ndarray:
        return self.hits / np.maximum(self.sampled, 1)

    def sort(self, *keys: str) -> Pairs:
        """Sorted by the named fields, the first the primary key."""
        return self.take(np.lexsort(tuple(getattr(self, k) for k in reversed(keys))))

    def pair(self, i: int) -> Pair:
        shingles = int(self.shingles[i])
        exact = None if shingles < 0 else (int(self.shared[i]) / shingles if shingles else 0.0)
        return Pair(int(self.contained[i]), int(self.container[i]),
                    Estimate.of(int(self.hits[i]), int(self.sampled[i])), exact)

    def slices(self, at_once: int = 50_000) -> Iterator[Pairs]:
        """The pairs in order, ``at_once`` at a time (views, not copies). A Spark audit's
        containing pairs (``spark_finish.ParquetPairs``) read them from disk the same way, so a
        caller that goes through every pair never holds them all."""
        for s in range(0, len(self), at_once):
            yield self.take(slice(s, s + at_once))  # type: ignore[arg-type]

    def rows(self, at_once: int = 50_000) -> Iterator[tuple[int, int, int, int, int, int]]:
        """(contained, container, hits, sampled, shared, shingles) per pair, as Python ints made
        a slice at a time (all 3.5 M pairs of a large family at once would take 700 MB)."""
        for s in range(0, len(self), at_once):
            e = s + at_once
            yield from zip(self.contained[s:e].tolist(), self.container[s:e].tolist(), self.hits[s:e].tolist(),
                           self.sampled[s:e].tolist(), self.shared[s:e].tolist(), self.shingles[s:e].tolist(),
                           strict=True)


@dataclass
class Family:
    """Documents that contain one another (A in B and B in A at the threshold), connected.

    Variants of one licence, a contract and its retyped copy, an exhibit filed twice: their
    pairwise findings say one thing, so they are reported once, as a family, with the range of
    the pairwise containments. Pairs with documents outside stay findings.
    """

    members: list[int]
    pairs: int = 0
    low: float = 1.0
    high: float = 0.0


@dataclass
class Contained:
    """One contained document and what contains it (outside its own family)."""

    doc: int
    containers: np.ndarray  # container ids, best first
    values: np.ndarray  # their exact containment, aligned
    best: list[Pair]  # the first few containers, scored and located
    family: int | None = None
    boilerplate: bool = False
    groups: int = 0  # unrelated containers (container_groups), counted when there are enough containers
    count: int = -1  # containers in all, when ``containers`` holds only the first (a Spark finish)

    @property
    def n_containers(self) -> int:
        """How many documents contain it (outside its family)."""
        return self.count if self.count >= 0 else len(self.containers)
