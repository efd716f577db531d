"""Legacy word-processor files built byte by byte, from the published formats, for the tests of
their readers: an OLE2 compound file ([MS-CFB]) holding streams, a Word 97 document
([MS-DOC]: a FIB, one piece of 8-bit text) and a WordPerfect 5.1 document.

They are as small as the formats allow, so a test that antiword or wpd2text reads them shows
the converter is wired, limited and recorded, not that every Word feature is read.
"""

from __future__ import annotations

import struct

_END, _FREE, _FATSECT = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD
_SECTOR = 512
_MINI_CUTOFF = 4096


def _dir_entry(name: str, kind: int, *, left: int = _FREE, right: int = _FREE, child: int = _FREE,
               start: int = _END, size: int = 0) -> bytes:
    encoded = (name + "\0").encode("utf-16-le")
    return (encoded.ljust(64, b"\0") + struct.pack("<HBB", len(encoded), kind, 1)
            + struct.pack("<III", left, right, child) + b"\0" * 16 + struct.pack("<I", 0) + b"\0" * 16
            + struct.pack("<IQ", start, size))


def make_ole(streams: dict[str, bytes]) -> bytes:
    """An OLE2 compound file (version 3) whose root storage holds ``streams``, each padded to
    the mini-stream cutoff so that no mini stream is needed. Names sort by length then upper
    case, as [MS-CFB] orders siblings; they hang as a chain of right siblings."""
    names = sorted(streams, key=lambda n: (len(n), n.upper()))
    data = {n: streams[n].ljust(_MINI_CUTOFF, b"\0") for n in names}
    starts, sector = {}, 0
    chains: list[int] = []
    for n in names:
        count = -(-len(data[n]) // _SECTOR)
        starts[n] = sector
        chains += [sector + i + 1 for i in range(count - 1)] + [_END]
        sector += count
    dir_sector = sector
    chains.append(_END)  # the directory: one sector (up to four entries)
    minifat_sector = sector + 1
    chains.append(_END)  # a mini FAT with no entry in use (some readers need one)
    ministream_sector = sector + 2
    chains.append(_END)  # the root's mini stream: one empty sector
    fat_sector = sector + 3
    chains.append(_FATSECT)
    fat = struct.pack(f"<{len(chains)}I", *chains).ljust(_SECTOR, b"\xff")
    entries = [_dir_entry("Root Entry", 5, child=1 if names else _FREE, start=ministream_sector, size=64)]
    for i, n in enumerate(names, 1):
        entries.append(_dir_entry(n, 2, right=i + 1 if i < len(names) else _FREE, start=starts[n],
                                  size=len(data[n])))
    directory = b"".join(entries).ljust(_SECTOR, b"\0")
    header = (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 16 + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)
              + b"\0" * 6 + struct.pack("<IIIIIIIII", 0, 1, dir_sector, 0, _MINI_CUTOFF, minifat_sector, 1, _END, 0)
              + struct.pack("<I", fat_sector) + b"\xff" * (109 * 4 - 4))
    assert len(header) == _SECTOR
    body = b"".join(data[n].ljust(-(-len(data[n]) // _SECTOR) * _SECTOR, b"\0") for n in names)
    return header + body + directory + b"\xff" * _SECTOR + b"\0" * _SECTOR + fat


def make_doc(paragraphs: list[str]) -> bytes:
    """A Word 97 document: a FIB (nFib 193), the text as one piece of cp1252 ("compressed")
    characters, paragraphs ended by carriage returns, and its piece table in ``1Table``."""
    text = "".join(p + "\r" for p in paragraphs).encode("cp1252")
    fc_min = 0x800
    word = bytearray(fc_min)
    struct.pack_into("<HH", word, 0, 0xA5EC, 193)  # wIdent, nFib
    struct.pack_into("<H", word, 0x0A, 0x0200)  # flags: fWhichTblStm (the table stream is 1Table)
    struct.pack_into("<II", word, 0x18, fc_min, fc_min + len(text))  # fcMin, fcMac
    struct.pack_into("<H", word, 0x20, 14)  # csw
    struct.pack_into("<H", word, 0x3E, 22)  # cslw
    struct.pack_into("<I", word, 0x40, fc_min + len(text))  # cbMac
    struct.pack_into("<I", word, 0x4C, len(text))  # ccpText
    struct.pack_into("<H", word, 0x98, 93)  # cbRgFcLcb
    # the piece table: CPs 0 and n, one PCD whose fc (bit 30 set: 8-bit text) is doubled
    plc = struct.pack("<II", 0, len(text)) + struct.pack("<HIH", 0, (fc_min * 2) | 0x40000000, 0)
    clx = b"\x02" + struct.pack("<I", len(plc)) + plc
    word += text
    # character and paragraph properties: one FKP page each, one run of default properties
    fkps = []
    for _ in range(2):
        word += b"\0" * (-len(word) % 512)
        page = bytearray(512)
        struct.pack_into("<II", page, 0, fc_min, fc_min + len(text))
        page[511] = 1  # crun
        fkps.append(len(word) // 512)
        word += page
    chpx = struct.pack("<III", fc_min, fc_min + len(text), fkps[0])
    papx = struct.pack("<III", fc_min, fc_min + len(text), fkps[1])
    # a style sheet with no style: cbStshi, then an STSHI of 18 bytes (cstd 0, cbSTDBaseInFile 10)
    stsh = struct.pack("<H", 18) + struct.pack("<HHHHHH", 0, 10, 1, 0, 15, 0) + b"\0" * 6
    table = clx + chpx + papx + stsh
    struct.pack_into("<II", word, 0xA2, len(clx) + len(chpx) + len(papx), len(stsh))  # fcStshf, lcbStshf
    struct.pack_into("<II", word, 0x1A2, 0, len(clx))  # fcClx, lcbClx
    struct.pack_into("<II", word, 0xFA, len(clx), len(chpx))  # fcPlcfBteChpx, lcbPlcfBteChpx
    struct.pack_into("<II", word, 0x102, len(clx) + len(chpx), len(papx))  # fcPlcfBtePapx, lcbPlcfBtePapx
    return make_ole({"WordDocument": bytes(word), "1Table": table})


def make_wpd(paragraphs: list[str]) -> bytes:
    """A WordPerfect 5.1 document: the 16-byte prefix, then the text, paragraphs ended by hard
    returns (0x0A)."""
    body = b"".join(p.encode("ascii") + b"\x0a" for p in paragraphs)
    prefix = b"\xffWPC" + struct.pack("<I", 16) + bytes([1, 10, 0, 1]) + b"\0\0\0\0"
    return prefix + body
