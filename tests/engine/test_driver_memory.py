"""What a Spark audit's driver holds per document stays on disk or streams (issue #38).

The driver reads an export through ``ExportStore``: its rows per document sit in a scratch
SQLite file, and its texts are read a row group at a time, skipping the row groups that hold
none of the ids asked for. Novelty, one row per document, comes back from the executors into
``spark_finish.RowsOnDisk``. No Java needed: tests/engine/test_spark.py checks the Spark side.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="auditor export needs the [spark] extra (pyarrow)")

import pyarrow.parquet as pq

from auditor.corpus.ingest import ingest
from auditor.engine import export
from auditor.engine.export_store import ExportStore
from auditor.engine.pairs import Contained, Pairs, Span
from auditor.engine.spark_finish import ContainedOnDisk, ParquetPairs, RowsOnDisk
from auditor.errors import NoDocument
from auditor.store.db import Store
from tests.support import synth


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A store and its export with one text per row group (``TEXT_ROW_GROUP_CHARS = 1``)."""
    d = tmp_path_factory.mktemp("driver")
    docs = d / "docs"
    docs.mkdir()
    for i in range(6):
        (docs / f"contract-{i}.txt").write_text(synth.contract(640 + i, 1_500))
    with Store(d / "corpus.db") as store:
        ingest(store, [docs], workers=1)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(export, "TEXT_ROW_GROUP_CHARS", 1)
            export.export_parquet(store, d / "parquet")
        yield store, d / "parquet"


@pytest.fixture
def groups_read(monkeypatch):
    """The number of rows of every row group read from a Parquet file, in order."""
    seen: list[int] = []
    real = pq.ParquetFile.read_row_group

    def spy(self, i, *args, **kwargs):
        t = real(self, i, *args, **kwargs)
        seen.append(t.num_rows)
        return t

    monkeypatch.setattr(pq.ParquetFile, "read_row_group", spy)
    return seen


def test_texts_are_read_one_row_group_at_a_time(exported, groups_read):
    store, out = exported
    want = {int(i): t for i, t in store.conn.execute("SELECT id, 1 FROM documents")}
    ids = sorted(want)
    assert len(ids) == 6
    src = ExportStore(out)
    got = list(src.texts_of(ids))
    assert got == [(i, store.text(i)) for i in ids]
    assert groups_read == [1] * len(ids)  # one text per row group here: never more at once


def test_row_groups_without_an_asked_id_are_not_read(exported, groups_read):
    store, out = exported
    ids = [int(r[0]) for r in store.conn.execute("SELECT id FROM documents ORDER BY id")]
    src = ExportStore(out)
    assert list(src.texts_of([ids[3]])) == [(ids[3], store.text(ids[3]))]
    assert groups_read == [1]  # the one group that holds it
    groups_read.clear()
    assert list(src.texts_of([max(ids) + 1000])) == []
    assert groups_read == []  # no group's id range holds it: nothing read
    with pytest.raises(NoDocument):
        src.text(max(ids) + 1000)
    assert src.text(ids[0]) == store.text(ids[0])


def test_an_export_rows_sit_in_a_scratch_file_removed_with_it(exported):
    store, out = exported
    src = ExportStore(out)
    path = Path(src.conn.execute("PRAGMA database_list").fetchone()[2])
    assert path.is_file() and path.stat().st_size > 0  # on disk, not an in-memory database
    cols = "id, sha256, path, n_words, meta"
    assert src.rows(f"SELECT {cols} FROM documents ORDER BY id") == store.rows(
        f"SELECT {cols} FROM documents ORDER BY id")
    other = ExportStore(out)
    assert Path(other.conn.execute("PRAGMA database_list").fetchone()[2]) != path  # each its own
    del src
    gc.collect()
    assert not path.parent.exists()
    assert other.scalar("SELECT count(*) FROM documents") == 6


def test_rows_on_disk_is_a_mapping_kept_in_a_file():
    rows = RowsOnDisk(((i, i % 7, 100 + i) for i in range(25_000)), at_once=4_000)
    assert len(rows) == 25_000 and rows[0] == (0, 100) and rows[24_999] == (24_999 % 7, 25_099)
    assert rows.get(12) == (5, 112)
    assert rows.get(25_000) is None and 25_000 not in rows and -1 not in rows  # absent keys
    with pytest.raises(KeyError):
        rows[25_000]
    assert list(rows)[:3] == [0, 1, 2]
    path = Path(rows._conn.execute("PRAGMA database_list").fetchone()[2])
    assert path.is_file()
    del rows
    gc.collect()
    assert not path.parent.exists()
    assert not RowsOnDisk(iter(())) and len(RowsOnDisk([])) == 0  # empty: falsy, as {} is


def _contained(doc: int, containers: list[int]) -> Contained:
    import numpy as np

    pairs = Pairs(*(np.array(x, np.int64) for x in ([doc] * len(containers), containers, [9] * len(containers),
                                                     [10] * len(containers), [90] * len(containers),
                                                     [100] * len(containers))))
    return Contained(doc, np.array(containers, np.int64), np.full(len(containers), 0.9),
                     [pairs.pair(i) for i in range(min(3, len(containers)))], None, doc % 5 == 0, count=len(containers))


def test_contained_on_disk_reads_back_in_order_with_the_spans_of_the_best_pairs():
    made = [_contained(d, [d + 1, d + 2, d + 3, d + 4][: 1 + d % 4]) for d in range(0, 9_000, 3)]
    on_disk = ContainedOnDisk(iter(made), at_once=700)
    span = {d: Span(d, d + 10, 2, 1, (1, 1) if d % 2 else None) for d in range(0, 9_000, 3)}
    on_disk.add_spans(((d, d + 1, [span[d]]) for d in range(0, 9_000, 3) if d % 7), at_once=500)
    assert len(on_disk) == len(made) == 3_000
    back = list(on_disk)
    assert [c.doc for c in back] == [c.doc for c in made]
    for c, m in zip(back, made, strict=True):
        assert c.containers.tolist() == m.containers.tolist() and c.n_containers == m.n_containers
        assert c.boilerplate == m.boilerplate and [p.container for p in c.best] == [p.container for p in m.best]
        assert c.best[0].spans == ([span[c.doc]] if c.doc % 7 else [])  # a pair without spans has none
        assert all(p.spans == [] for p in c.best[1:])
    assert on_disk[0].doc == 0 and on_disk[-1].doc == 8_997 and [c.doc for c in on_disk[1:3]] == [3, 6]
    with pytest.raises(IndexError):
        on_disk[3_000]
    assert [c.doc for c in on_disk][:2] == [0, 3]  # read again, from the start
    path = Path(on_disk._conn.execute("PRAGMA database_list").fetchone()[2])
    del on_disk, back
    gc.collect()
    assert not path.parent.exists()
    assert len(ContainedOnDisk([])) == 0 and list(ContainedOnDisk([])) == []


def _parquet_pairs(directory: Path, pairs: Pairs, files: int = 3) -> ParquetPairs:
    """``pairs`` written as ``containing/`` is: part files, sorted by (contained, container)."""
    import numpy as np
    import pyarrow as pa

    directory.mkdir()
    fields = ("contained", "container", "hits", "sampled", "shared", "shingles")
    for i, part in enumerate(np.array_split(np.arange(len(pairs)), files)):
        p = pairs.take(part)
        pq.write_table(pa.table({f: getattr(p, f) for f in fields}), directory / f"part-{i:05d}.parquet",
                       row_group_size=7)
    return ParquetPairs(directory, len(pairs))


def test_the_containing_pairs_are_read_a_slice_at_a_time(tmp_path):
    """A report counts the pairs inside families, and the run's findings rows go through every
    pair: from a Spark audit's ``containing/`` both read slices, never the whole table, and
    count what the arrays in memory count."""
    import numpy as np

    from auditor.engine.families import pairs_inside
    from auditor.engine.pairs import Family

    rng = np.random.default_rng(3)
    a = np.sort(rng.integers(1, 400, 500))
    b = rng.integers(1, 400, 500)
    shingles = rng.integers(300, 900, 500)
    pairs = Pairs(a, b, rng.integers(10, 40, 500), np.full(500, 40), shingles - rng.integers(0, 50, 500), shingles)
    fams = [Family(sorted({int(x) for x in a[:60]} | {int(x) for x in b[:60]})), Family([397, 398, 399])]
    disk = _parquet_pairs(tmp_path / "containing", pairs)
    want = pairs_inside(pairs, fams)
    assert 0 < want < len(pairs)
    assert pairs_inside(disk, fams) == want
    sizes = [len(p) for p in disk.slices(at_once=50)]
    assert sum(sizes) == 500 and max(sizes) <= 50
    from types import SimpleNamespace

    from auditor.report.pipeline import _finding_rows

    rows = list(_finding_rows(1, SimpleNamespace(containing=disk, families=fams, contained=[])))
    assert rows == list(_finding_rows(1, SimpleNamespace(containing=pairs, families=fams, contained=[])))
    assert len(rows) == 500 and {r[11] for r in rows} == {None, 0}  # inside the first family or not
    assert disk._loaded is None  # never loaded whole
    assert disk.contained.tolist() == a.tolist() and disk._loaded is not None  # the arrays, asked for, are
    assert pairs_inside(pairs, []) == 0 and pairs_inside(Pairs.empty(), fams) == 0
