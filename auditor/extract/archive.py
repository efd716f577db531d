"""Compressed parts (a uuencoded .gz or .zip exhibit): unpacked within one inflation limit,
each member read by the reader of its format (a .docx as a .docx, a PDF as a PDF, XML as its
text nodes), never as raw markup. What a member's reader does not read (an image, a
spreadsheet, XBRL, JSON: :func:`~auditor.extract.detect.not_read`) is named in ``unreadable``,
so the archive fails closed where the gate is concerned.

The limit holds for the archive as a whole, nested archives included: what an archive inflates
to at any depth counts against the same ``max_file_bytes``, and an archive nested deeper than
``_MAX_ARCHIVE_DEPTH`` is refused too. Either is ``too_large``, never swallowed as an unread
member: a ``.gz.gz`` bomb reported as "empty" would mislead whoever baselines it."""

from __future__ import annotations

import io
import zipfile
import zlib

from auditor.errors import ExtractionError, refusal
from auditor.extract.common import Extracted, Limits, auditor_version, check_text
from auditor.extract.detect import binary_kind, detect_format, not_read
from auditor.extract.docx import ZIP_ERRORS, read_member
from auditor.extract.nested import extract_format

refusal("archive_error", "the archive is damaged: unpack what can be unpacked, and ingest the files")

ARCHIVES = ("gz", "zip", "bz2", "xz")
_MAX_ARCHIVE_DEPTH = 2


def _unpack(data: bytes, kind: str, limit: int, total: int) -> list[tuple[str, bytes]]:
    """(name, bytes) of an archive's members, refusing to inflate past ``limit`` (what is left
    of the ``total`` the whole archive may inflate to)."""
    import bz2
    import gzip
    import lzma

    if kind == "zip":
        out: list[tuple[str, bytes]] = []
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for info in sorted(z.infolist(), key=lambda i: i.filename):
                    if info.is_dir():
                        continue
                    member = read_member(data, info.filename, limit)
                    limit -= len(member)
                    out.append((info.filename, member))
        except ZIP_ERRORS as e:
            raise ExtractionError("archive_error", f"unreadable zip: {type(e).__name__}: {e}") from e
        return out
    opener = {"gz": gzip.GzipFile, "bz2": bz2.BZ2File, "xz": lzma.LZMAFile}[kind]
    try:
        with opener(fileobj=io.BytesIO(data)) as f:  # type: ignore[operator]
            out_bytes = f.read(limit + 1)
    except (OSError, EOFError, lzma.LZMAError, ValueError, zlib.error) as e:
        raise ExtractionError("archive_error", f"unreadable {kind}: {type(e).__name__}: {e}") from e
    if len(out_bytes) > limit:
        raise ExtractionError("too_large", f"{kind} data inflates to more than {total} bytes"
                              + (" (nested archives included)" if limit < total else ""))
    return [("", out_bytes)]


def member_formats(data: bytes, name: str, limits: Limits = Limits(), depth: int = 0) -> list[tuple[str, str]]:
    """(member name, format) of each member of a compressed part, nested archives opened (their
    members named ``outer/inner``), within the same inflation limit as :func:`extract_archive`:
    what a gate needs to know of the documents an archive holds."""
    kind = binary_kind(data) or ""
    out: list[tuple[str, str]] = []
    for member, raw in _unpack(data, kind, limits.max_file_bytes, limits.max_file_bytes):
        label = member or (name[:-3] if name.lower().endswith(".gz") else name)
        if not_read(raw, label) is not None:
            continue
        fmt = detect_format(raw, label)
        if fmt == "binary" and binary_kind(raw) in ARCHIVES and depth < _MAX_ARCHIVE_DEPTH:
            out += [(f"{label}/{m}", f) for m, f in member_formats(raw, label, limits, depth + 1)]
        else:
            out.append((label, fmt))
    return out


def extract_archive(data: bytes, name: str, limits: Limits, depth: int = 0,
                    budget: list[int] | None = None) -> Extracted:
    """The text of every member of a compressed part (a uuencoded .gz or .zip exhibit), in name
    order; members that cannot be read are named in ``unreadable``.

    ``budget``: the bytes the whole archive may still inflate to (shared with nested calls).
    """
    budget = [limits.max_file_bytes] if budget is None else budget
    kind = binary_kind(data) or ""
    members = _unpack(data, kind, budget[0], limits.max_file_bytes)
    budget[0] -= sum(len(raw) for _, raw in members)
    texts: list[str] = []
    unreadable: list[str] = []
    warnings = [f"decompressed {kind} {name!r}: {len(members)} member(s)"]
    for member, raw in members:
        label = member or (name[:-3] if name.lower().endswith(".gz") else name)
        skip = not_read(raw, label)
        if skip is not None:
            unreadable.append(f"{label}: {skip[1]} ({skip[0]}), not read")
            continue
        fmt = detect_format(raw, label)
        inner = binary_kind(raw)
        try:
            if fmt == "binary" and inner in ARCHIVES:
                if depth >= _MAX_ARCHIVE_DEPTH:
                    raise ExtractionError("too_large", f"{label}: archives nested more than "
                                          f"{_MAX_ARCHIVE_DEPTH + 1} deep")
                ex = extract_archive(raw, label, limits, depth + 1, budget)
            elif fmt in ("binary", "edgar"):
                unreadable.append(f"{label}: {inner or fmt} content is not read")
                continue
            else:
                ex = extract_format(fmt, raw, limits, label)
        except ExtractionError as e:
            if e.code == "too_large":  # a bomb at any depth is the archive's failure
                raise
            if e.code != "empty":
                unreadable.append(f"{label}: {e}")
            continue
        if ex.unreadable:
            unreadable.append(f"{label}: {ex.unreadable}")
        texts.append(ex.text)
        warnings += ex.warnings
    if unreadable and not any(t.strip() for t in texts):
        raise ExtractionError("archive:unread", f"no member of {kind} archive {name!r} is read: " + "; ".join(unreadable))
    text = check_text("\n\n".join(t.strip("\n") for t in texts), f"{kind} archive", limits)
    return Extracted(f"{kind}-archive", text, "auditor.archive", auditor_version(), warnings=warnings,
                     unreadable="; ".join(unreadable) or None)
