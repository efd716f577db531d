"""The custody log's pure part: row digests, the running digest of the live state, entries and
their chaining. No I/O: :mod:`auditor.store.custody.log` reads and writes the store.

**Rows.** Every tracked row (``log.TRACKED``) has a digest: sha256 over its table, its key and
each declared column that is not NULL, as SQLite's type name and the value's bytes
(``CAST(x AS BLOB)``), each length-prefixed. A NULL column adds nothing, so declaring a new
nullable column changes no digest until a value is written to it.

**State.** The live state is the multiset of row digests, summarised by a homomorphic set hash
(LtHash, Bellare and Micciancio 1997; parameters of Lewi et al., "Securing update propagation
with homomorphic hashing", 2019): each row digest is expanded by SHAKE-256 to 1,024 16-bit
lanes and the lanes of all rows are added modulo 2**16. Adding or removing a row is one vector
addition, so a writer updates the state in O(rows it wrote), and the state's sha256 commits to
every row without an order.

**Entries.** An entry is canonical JSON: ``seq`` (1, 2, ... without gaps), ``prev`` (the previous
entry's hash; zeros for the first), ``at``, ``by``, ``action`` and ``detail`` (what the write
was), ``changes`` (sha256 of its rows: ``[table, key, old, new]`` for each row it changed, old or
new ``None`` for a row it added or removed), ``rows`` (their number) and ``state`` (the live
state after it). Its hash is the sha256 of those bytes, as transparency logs and git chain their
records: changing any entry changes every hash after it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

LANES = 1024  # 16-bit lanes: 2,048 bytes per element
GENESIS_PREV = "0" * 64
Row = list[Any]  # [table, key, old digest or None, new digest or None]


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def row_digest(table: str, key: int | str, names: Sequence[str], cells: Sequence[Any]) -> str:
    """The digest of one row: ``cells`` holds, for each of ``names``, SQLite's ``typeof`` and the
    value as bytes (``CAST(x AS BLOB)``), flat: ``[type1, bytes1, type2, bytes2, ...]``."""
    parts = [f"{table}\x00{type(key).__name__}\x00{key}\x00".encode()]
    for name, kind, value in zip(names, cells[0::2], cells[1::2], strict=True):
        if kind == "null" or value is None:
            continue
        raw = bytes(value)
        parts.append(f"{name}\x00{kind}\x00".encode() + len(raw).to_bytes(8, "big"))
        parts.append(raw)
    return hashlib.sha256(b"".join(parts)).hexdigest()


def expand(digests: Iterable[str]) -> np.ndarray:
    """The lanes of each digest, as rows of a uint16 array."""
    raw = b"".join(hashlib.shake_256(bytes.fromhex(d)).digest(2 * LANES) for d in digests)
    return np.frombuffer(raw, dtype="<u2").reshape(-1, LANES)


@dataclass
class State:
    """The running set hash of the live state (LtHash16)."""

    lanes: np.ndarray = field(default_factory=lambda: np.zeros(LANES, dtype="<u2"))

    @classmethod
    def from_bytes(cls, raw: bytes) -> State:
        lanes = np.frombuffer(bytes(raw), dtype="<u2")
        if lanes.shape != (LANES,):
            raise ValueError(f"a state holds {LANES} lanes, not {lanes.size}")
        return cls(lanes.copy())

    def to_bytes(self) -> bytes:
        return self.lanes.astype("<u2").tobytes()

    def add(self, digests: Iterable[str], sign: int = 1) -> None:
        for chunk in _chunks(list(digests), 4096):
            delta = expand(chunk).sum(axis=0, dtype="<u2")  # uint16 arithmetic wraps: modulo 2**16
            self.lanes = self.lanes + delta if sign > 0 else self.lanes - delta

    def remove(self, digests: Iterable[str]) -> None:
        self.add(digests, -1)

    def apply(self, rows: Iterable[Row]) -> None:
        """Each row's old digest out, its new one in (one expansion for a writer's few rows)."""
        rows = list(rows)
        old = [r[2] for r in rows if r[2] is not None]
        new = [r[3] for r in rows if r[3] is not None]
        if len(old) + len(new) > 4096:
            self.remove(old)
            self.add(new)
            return
        lanes = expand(old + new)
        self.lanes = self.lanes + lanes[len(old):].sum(axis=0, dtype="<u2") - lanes[: len(old)].sum(axis=0, dtype="<u2")

    def digest(self) -> str:
        return hashlib.sha256(self.to_bytes()).hexdigest()

    def copy(self) -> State:
        return State(self.lanes.copy())


def _chunks(items: list[str], n: int) -> Iterator[list[str]]:
    for a in range(0, len(items), n):
        yield items[a : a + n]


def rows_text(rows: Sequence[Row]) -> str:
    return canonical([list(r) for r in rows])


def changes_digest(rows_json: str) -> str:
    return hashlib.sha256(rows_json.encode("utf-8")).hexdigest()


def entry_body(seq: int, prev: str, at: str, by: str, action: str, detail: dict[str, Any],
               rows_json: str, n_rows: int, state: str) -> str:
    return canonical({"seq": seq, "prev": prev, "at": at, "by": by, "action": action, "detail": detail,
                      "changes": changes_digest(rows_json), "rows": n_rows, "state": state})


def entry_hash(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


@dataclass
class Entry:
    """One stored entry: its body (the hashed bytes), its rows and the hash stored with it."""

    seq: int
    body: str
    rows: str
    hash: str

    @property
    def fields(self) -> dict[str, Any]:
        value = json.loads(self.body)
        if not isinstance(value, dict):
            raise ValueError("not an object")
        return value

    def label(self) -> str:
        try:
            f = self.fields
            return f"custody entry {self.seq} ({f.get('action')}, {f.get('at')})"
        except ValueError:
            return f"custody entry {self.seq}"


def entry_problem(e: Entry, prev_hash: str) -> str | None:
    """What is wrong with one entry taken alone and with its link to the previous one."""
    if entry_hash(e.body) != e.hash:
        return "its content does not hash to the hash stored with it: it was edited"
    try:
        f = e.fields
        rows = json.loads(e.rows)
    except ValueError as err:
        return f"it is not a custody entry ({err})"
    if f.get("seq") != e.seq:
        return f"it says it is entry {f.get('seq')}: entries were renumbered"
    if f.get("prev") != prev_hash:
        return "it does not link to the entry before it: entries before it were edited, removed or inserted"
    if changes_digest(e.rows) != f.get("changes") or len(rows) != f.get("rows"):
        return "the rows stored with it are not the rows it recorded: they were edited"
    return None


@dataclass
class Replay:
    """The chain replayed from its first entry: what it says each row holds, the entry that last
    recorded each row, and the first entry that is wrong."""

    rows: dict[tuple[str, Any], str] = field(default_factory=dict)  # (table, key) -> digest
    by: dict[tuple[str, Any], int] = field(default_factory=dict)  # (table, key) -> entry seq
    labels: dict[int, str] = field(default_factory=dict)
    state: State = field(default_factory=State)
    head: Entry | None = None
    problems: list[tuple[int, str]] = field(default_factory=list)  # (seq, what)
    entries: int = 0
    broken: bool = False  # stopped at a broken entry: what follows it cannot be trusted


def replay(entries: Iterable[Entry]) -> Replay:
    """Verify every entry and its link, its changes against the rows as the chain had them, and
    its state against the replayed state; stop at the first broken link (what follows cannot
    be trusted)."""
    r = Replay()
    prev = GENESIS_PREV
    expected_seq = 1
    for e in entries:
        r.entries += 1
        if e.seq != expected_seq:
            r.problems.append((e.seq, f"entries {expected_seq} to {e.seq - 1} are missing from the log"
                               if e.seq > expected_seq else f"entry {e.seq} is out of order"))
            r.broken = True
            break
        expected_seq += 1
        why = entry_problem(e, prev)
        if why:
            r.problems.append((e.seq, why))
            r.broken = True
            break
        r.labels[e.seq] = e.label()
        rows = json.loads(e.rows)
        for table, key, old, new in rows:
            k = (table, key)
            if r.rows.get(k) != old:
                was = r.by.get(k)
                r.problems.append((e.seq, f"it changed {table} row {key} from a state the log never recorded"
                                   + (f" (the log last recorded it in entry {was})" if was else
                                      " (the log never recorded that row)")
                                   + ": the row was altered behind the store's back before this entry"))
            if new is None:
                r.rows.pop(k, None)
                r.by.pop(k, None)
            else:
                r.rows[k], r.by[k] = new, e.seq
        r.state.apply(rows)
        if r.state.digest() != e.fields.get("state"):
            r.problems.append((e.seq, "the state it records does not follow from the entries before it "
                               "and its changes"))
            r.state = State()  # the recorded state cannot be trusted; keep replaying the rows
            r.state.add(r.rows.values())
        prev = e.hash
        r.head = e
    return r
