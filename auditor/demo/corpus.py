"""The bundled demo: a small corpus assembled from overlapping sources, then the full audit.

The story it tells: an EDGAR 10-K submission carries a lease as exhibit EX-10.1 and a supply
agreement inside its HTML body; a data room holds the same lease as a PDF; a vendor feed holds a
consulting agreement reformatted, which a 10-Q filing also quotes in full; some contracts appear
nowhere else, one only half; one contract was saved twice; a snippet is too short to sample; one
PDF is corrupt. The audit must find exactly the containments, and say why it skipped the rest.

The corpus ships as data (``files/corpus.zip``, written by ``tools/build_demo.py`` from the
generator under ``tests/support``): the installed package carries no text generator.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path, PurePosixPath

CORPUS_ZIP = Path(__file__).resolve().parent / "files" / "corpus.zip"
SOURCES = ("edgar", "data-room", "vendor-feed", "filings")


def write_corpus(root: Path) -> dict[str, int]:
    """Unpack the demo corpus under ``root`` (replacing it); returns file counts per source."""
    if root.exists():
        shutil.rmtree(root)
    counts = dict.fromkeys(SOURCES, 0)
    with zipfile.ZipFile(CORPUS_ZIP) as z:
        for info in sorted(z.infolist(), key=lambda i: i.filename):
            name = PurePosixPath(info.filename)
            if info.is_dir() or name.is_absolute() or ".." in name.parts or name.parts[0] not in counts:
                continue  # the zip is ours, but an unpacker never writes outside its root
            target = root.joinpath(*name.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(info))
            counts[name.parts[0]] += 1
    return counts
