"""`auditor near-dups` and `auditor lsh-curve`: options and printing. All logic lives in
:mod:`auditor.engine.neardup`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Literal

import click
from rich.table import Table

from auditor.cli.common import doc_line, open_store, out
from auditor.console import markup
from auditor.engine import neardup
from auditor.engine.measures.minhash import DEFAULT_M, DEFAULT_SEED
from auditor.engine.measures.preprocess import Preprocess
from auditor.engine.neardup import DEFAULT_BANDS, DEFAULT_K, DEFAULT_ROWS, METHODS

ARTICLE_POINTS = (1 / 3, 0.5, 0.9)  # the near-duplicate article's worked probabilities


def _preprocessing_line(p: dict[str, Any]) -> str:
    parts = ["lower-case" if p["lowercase"] else "case kept (normalisation still case-folds)",
             "stop words removed" if p["stopwords"] else "stop words kept",
             "Porter stems" if p["stem"] else "no stemming",
             "HTML main content (jusText)" if p["html"] == "main" else "HTML full content"]
    return ", ".join(parts)


def _score(method: str, p: dict[str, Any]) -> str:
    if method == "exact":
        return f"same fingerprint {p['fingerprint']}"
    if method == "simhash":
        return f"Hamming distance {p['hamming']} ({p['simhash']['a']} / {p['simhash']['b']})"
    if method == "minhash":
        return f"estimate {p['estimate']:.4f} (standard error {p['standard_error']:.4f})"
    sh = p["shingles"]
    return f"{method} {p['score']:.4f} ({sh['shared']} shared of {sh['a']} and {sh['b']})"


@click.command("near-dups")
@click.option("--db", "db", required=True, type=click.Path(dir_okay=False, path_type=Path), envvar="AUDITOR_DB",
              help="The corpus store (must exist: build it with `auditor ingest`). Env: AUDITOR_DB.")
@click.option("--method", type=click.Choice(METHODS), required=True,
              help="exact fingerprints, exact Jaccard, MinHash estimate, simhash, or S3.")
@click.option("--threshold", type=float, default=None,
              help="Similarity at or above which a pair is listed (jaccard 0.9, minhash 0.9, s3 0.82), "
                   "or Hamming distance at or below it (simhash 3). exact takes none.")
@click.option("--k", type=int, default=DEFAULT_K, show_default=True, help="Words per shingle (jaccard, minhash).")
@click.option("--perm", "m", type=int, default=DEFAULT_M, show_default=True, help="MinHash values m per sketch.")
@click.option("--bands", type=int, default=DEFAULT_BANDS, show_default=True, help="LSH bands b (minhash).")
@click.option("--rows", type=int, default=DEFAULT_ROWS, show_default=True, help="LSH rows r per band (minhash).")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="MinHash hash-function seed.")
@click.option("--stopwords/--no-stopwords", default=True, show_default=True,
              help="Drop Lucene's English stop words.")
@click.option("--stem/--no-stem", default=True, show_default=True, help="Porter-stem the words.")
@click.option("--lowercase/--no-lowercase", default=True, show_default=True,
              help="Lower-case (the normalisation case-folds anyway).")
@click.option("--html", type=click.Choice(["full", "main"]), default="full", show_default=True,
              help="HTML documents: full text, or main content re-read from the source (jusText).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def near_dups(
    db: Path, method: str, threshold: float | None, k: int, m: int, bands: int, rows: int, seed: int,
    stopwords: bool, stem: bool, lowercase: bool, html: Literal["full", "main"], as_json: bool,
) -> None:
    """Near-duplicate pairs and clusters with provenance, stored as a run.

    \b
    Candidates are found without comparing all pairs: fingerprint groups (exact), prefix
    filtering (jaccard, s3: misses nothing), LSH banding (minhash), permuted tables (simhash).
    Preprocessing defaults to the CopyCat study's; every choice is recorded with the run.
    \b
    auditor near-dups --db corpus.db --method simhash
    auditor near-dups --db corpus.db --method s3 --threshold 0.9 --no-stem
    """
    pre = Preprocess(lowercase=lowercase, stopwords=stopwords, stem=stem, html=html)
    with open_store(db) as store:
        r = neardup.near_duplicates(store, method, threshold, k=k, m=m, seed=seed, bands=bands, rows=rows,
                            preprocess=pre, command=" ".join(["auditor", *sys.argv[1:]]))
    if as_json:
        click.echo(json.dumps(r.as_dict(), indent=2, sort_keys=True))
        return
    s = r.summary
    bound = "" if r.threshold is None else (f" <= {r.threshold}" if method == "simhash" else f" >= {r.threshold}")
    out.print(f"[bold]near-dups {method}{bound}[/]; {_preprocessing_line(r.params['preprocessing'])}",
              highlight=False)
    out.print(f"{s['documents']} documents ({s['not_measurable']} too short to measure), "
              f"{s['candidates']} candidate pairs ({s['candidates_by']})", highlight=False)
    if "candidate_probability_at_threshold" in s:
        out.print(f"a pair at exactly {r.threshold} becomes a candidate with probability "
                  f"{s['candidate_probability_at_threshold']:.4f} (S-curve threshold "
                  f"{s['lsh_threshold']:.3f}; see `auditor lsh-curve`)", highlight=False)
    for note in s["text_notes"]:
        out.print(f"  note: document {note['doc_id']}: {markup(note['note'])}", highlight=False)
    if not r.pairs:
        out.print("no near-duplicate pair", highlight=False)
    for i, c in enumerate(r.clusters):
        out.print(f"[bold]cluster {i + 1}[/] ({len(c)} documents)", highlight=False)
        for d in c:
            out.print(f"  {doc_line(r.documents[d])}", highlight=False, soft_wrap=True)
        for p in (p for p in r.pairs if p["cluster"] == i):
            out.print(f"    {p['a']} ~ {p['b']}: {_score(method, p)}", highlight=False)
    out.print(f"{s['pairs']} pairs in {s['clusters']} clusters; run {markup(r.run_id)}", highlight=False)


@click.command("lsh-curve")
@click.option("--bands", "b", type=click.IntRange(min=1), default=DEFAULT_BANDS, show_default=True,
              help="Bands b.")
@click.option("--rows", "r", type=click.IntRange(min=1), default=DEFAULT_ROWS, show_default=True,
              help="Rows r per band (m = b r MinHash values).")
@click.option("--points", type=click.IntRange(min=2), default=11, show_default=True,
              help="Evenly spaced resemblances from 0 to 1.")
@click.option("--at", "at", type=click.FloatRange(0, 1), multiple=True,
              help="Further resemblances to show (always: the article's 1/3, 0.5 and 0.9).")
@click.option("--json", "as_json", is_flag=True)
def lsh_curve(b: int, r: int, points: int, at: tuple[float, ...], as_json: bool) -> None:
    """Probability 1-(1-J^r)^b that LSH banding makes a pair of resemblance J a candidate.

    \b
    auditor lsh-curve --bands 20 --rows 10
    """
    c = neardup.lsh_curve(b, r, points, (*ARTICLE_POINTS, *at))
    if as_json:
        click.echo(json.dumps(c, indent=2, sort_keys=True))
        return
    out.print(f"{b} bands of {r} rows (m = {b * r}): threshold (1/b)^(1/r) = {c['threshold']:.4f}",
              highlight=False)
    t = Table()
    t.add_column("J", justify="right")
    t.add_column("P(candidate)", justify="right")
    for row in c["curve"]:
        t.add_row(f"{row['j']:.4f}", f"{row['probability']:.4f}")
    out.print(t)

