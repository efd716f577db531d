"""What an assembly keeps and drops, and why: the policy a user chooses, the reasons a plan
line gives, and the table that says which reason applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from auditor.errors import UsageError

if TYPE_CHECKING:
    pass


REDUNDANT = ("contained-in", "duplicate-of", "near-duplicate-of", "superseded-by", "covered-by")


OTHER_DROPS = ("withdrawn", "failed", "skipped", "not-auditable")


KEEPS = ("not-contained", "survivor", "containers-dropped", "boilerplate", "exhibit", "contained-kept", "newer")


SURVIVORS = ("earliest", "newest", "source", "largest")


DECISION_TABLE = {
    "keep": {
        "not-contained": "the run measured no document containing it",
        "survivor": "the documents measured to contain it are its copies (a family: they also "
                    "contain it), dropped in its favour by the survivor policy",
        "containers-dropped": "every document measured to contain it is dropped or withdrawn, and "
                              "none of the documents kept in their place was measured to contain it",
        "boilerplate": "boilerplate by measurement (contained in many documents), kept once as "
                       "the canonical copy (policy boilerplate=keep-once)",
        "exhibit": "an EDGAR exhibit contained in a kept document, kept as a separate document "
                   "(policy exhibits=separate)",
        "contained-kept": "contained in a kept document; the policy keeps contained documents "
                          "(policy contained=keep)",
        "newer": "contained only in kept documents that are older; the survivor policy newest "
                 "never drops a version in favour of an older one (an older version that holds text "
                 "this one cut, or an older copy kept for another reason)",
    },
    "drop": {
        "duplicate-of": "identical normalised text to the kept document (an exact duplicate)",
        "near-duplicate-of": "it contains the kept document and is contained in it, both at the "
                             "threshold (a family: a retyped, reformatted or lightly edited copy)",
        "superseded-by": "an older version of the kept document: they contain each other at the "
                         "threshold and the kept document's date is later",
        "contained-in": "contained in the kept document at the threshold (one way)",
        "covered-by": "its novel share (shingles found in no other kept document) is below the "
                      "policy's min_novel: the kept documents of its cover hold the rest; `kept` "
                      "names the one explaining the most (policy min_novel)",
        "withdrawn": "withdrawn from the corpus (its files are gone or it was withdrawn by hand)",
        "failed": "an input that could not be turned into text (failed at ingest)",
        "skipped": "an input ingest does not turn into text by design (an image, a spreadsheet, "
                   "pure XBRL, a special file), skipped at ingest",
        "not-auditable": "stored, but the audit cannot speak for it (too short to sample, no "
                         "text of its own such as an EDGAR submission envelope, or unreadable)",
    },
}


@dataclass(frozen=True)
class Policy:
    """How the plan chooses; written into the manifest.

    ``survivor``: which copy of a duplicate group or family is kept: ``earliest`` ingested
    (lowest id), ``newest`` (latest date, see :func:`survivor_key`), ``source``
    (``prefer_source`` order) or ``largest`` (most words); or several, comma-separated
    (``newest,source``), applied in order. Ties go to the richer provenance, then to the
    earliest ingested (the latest under ``newest``). With ``newest`` first, no document is
    dropped in favour of an older one. ``contained``: ``drop`` a document contained in a kept
    one, or ``keep`` it.
    ``boilerplate``: ``keep-once`` (a boilerplate document is not dropped for being contained;
    its copies are) or ``drop`` (like any contained document). ``exhibits``: ``dedupe`` (EDGAR
    exhibits like any document) or ``separate`` (never dropped for being contained in a kept
    document; their copies are still dropped).
    """

    survivor: str = "earliest"
    prefer_source: tuple[str, ...] = ()
    contained: str = "drop"
    boilerplate: str = "keep-once"
    exhibits: str = "dedupe"
    min_novel: float | None = None  # drop a kept document whose novel share is below this (gather's cover)

    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"contained": ("drop", "keep"),
               "boilerplate": ("keep-once", "drop"), "exhibits": ("dedupe", "separate")}

    def __post_init__(self) -> None:
        for name, allowed in self.CHOICES.items():
            if getattr(self, name) not in allowed:
                raise UsageError(f"policy {name}={getattr(self, name)!r}; expected one of {', '.join(allowed)}")
        criteria = self.survivor.split(",")
        bad = [c for c in criteria if c not in SURVIVORS]
        if bad or len(set(criteria)) != len(criteria):
            raise UsageError(f"policy survivor={self.survivor!r}; expected one of {', '.join(SURVIVORS)}, or "
                             "several of them comma-separated, each once (newest,source)")
        if "source" in criteria and not self.prefer_source:
            raise UsageError("survivor=source needs a preferred source order (--prefer-source edgar,data-room)")
        if self.min_novel is not None and not 0 < self.min_novel <= 1:
            raise UsageError(f"min_novel={self.min_novel}; expected a share in (0, 1]")

    @property
    def criteria(self) -> tuple[str, ...]:
        return tuple(self.survivor.split(","))

    @property
    def newest_first(self) -> bool:
        return self.criteria[0] == "newest"

    def as_dict(self) -> dict[str, Any]:
        return {"survivor": self.survivor, "prefer_source": list(self.prefer_source),
                "contained": self.contained, "boilerplate": self.boilerplate, "exhibits": self.exhibits,
                "min_novel": self.min_novel}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Policy:
        return cls(survivor=d["survivor"], prefer_source=tuple(d.get("prefer_source") or ()),
                   contained=d["contained"], boilerplate=d["boilerplate"], exhibits=d["exhibits"],
                   min_novel=d.get("min_novel"))
