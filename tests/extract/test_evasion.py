"""Disguised and hidden copies of a stored contract, through extraction, normalisation and the
sampled index: each is found, an unrelated document is not, and what cannot be read is stored
with the reason (``documents.unreadable``). The gate's exit codes are tested in test_gate.py."""

from __future__ import annotations

import gzip
import io
import zipfile

import pytest

from auditor.corpus.ingest import ingest
from auditor.engine.query import query_text
from auditor.extract import extract_bytes
from auditor.store.db import Store
from tests.extract.test_edgar import HEADER
from tests.support import synth
from tests.support.fixtures_build import make_docx, make_edgar_submission

ZW = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u034f"]
CYRILLIC = str.maketrans({"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441",
                          "x": "\u0445", "y": "\u0443", "A": "\u0410", "E": "\u0415", "O": "\u041e",
                          "T": "\u0422", "H": "\u041d", "M": "\u041c"})


def disguise(text: str) -> str:
    """Homoglyphs for half the words, a zero-width character inside every other word."""
    out = []
    for i, word in enumerate(text.split(" ")):
        if i % 2:
            word = word.translate(CYRILLIC)
        if len(word) > 3 and i % 2 == 0:
            word = word[:2] + ZW[i % len(ZW)] + word[2:]
        out.append(word)
    return " ".join(out)


@pytest.fixture(scope="module")
def contract() -> str:
    return synth.contract(4242, 6_000, kind="lease")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, contract):
    d = tmp_path_factory.mktemp("evasion")
    (d / "lease.txt").write_text(contract)
    (d / "other.txt").write_text(synth.contract(4343, 6_000, kind="credit"))
    with Store(d / "corpus.db") as store:
        ingest(store, [d / "lease.txt", d / "other.txt"], workers=1)
    return d / "corpus.db"


def _found(db, text: str, threshold: float = 0.8) -> bool:
    with Store(db) as store:
        lease = store.scalar("SELECT id FROM documents WHERE path LIKE '%lease.txt'")
        result = query_text(store, text, threshold)
    return any(m.doc_id == lease and m.direction == "in-query" for m in result.matches)


def _html(body: str) -> bytes:
    return f"<html><body><p>Cover page of the filing.</p>{body}</body></html>".encode()


def _docx_with_footnote(text: str) -> bytes:
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    paras = "".join(f"<w:p><w:r><w:t xml:space='preserve'>{p}</w:t></w:r></w:p>" for p in text.split("\n") if p)
    notes = f'<?xml version="1.0"?><w:footnotes xmlns:w="{w}"><w:footnote w:id="1">{paras}</w:footnote></w:footnotes>'
    return make_docx(["Cover page."], extra_files={"word/footnotes.xml": notes.encode()})


def _edgar_zip(text: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("ex10.txt", text)
    return make_edgar_submission(HEADER, [{"type": "EX-10.1", "filename": "ex10.zip", "data": buf.getvalue()}])


def _escape(text: str) -> str:
    import html

    return html.escape(text).replace("\n", "<br>")


HIDING = {
    "zero-width and homoglyphs in text": lambda c: disguise(c).encode(),
    "&#8203; references in HTML": lambda c: _html("<p>" + _escape(c).replace("e", "e&#8203;") + "</p>"),
    "svg text": lambda c: _html(f"<svg><text>{_escape(c)}</text></svg>"),
    "iframe srcdoc": lambda c: _html(f"<iframe srcdoc=\"{_escape('<p>' + _escape(c) + '</p>')}\"></iframe>"),
    "noscript": lambda c: _html(f"<noscript>{_escape(c)}</noscript>"),
    "template": lambda c: _html(f"<template><p>{_escape(c)}</p></template>"),
    "object fallback": lambda c: _html(f"<object data='x.swf'><p>{_escape(c)}</p></object>"),
    "docx footnote": lambda c: _docx_with_footnote(disguise(c)),
    "utf-16 head, utf-8 tail": lambda c: ("Cover page.\n" * 40).encode("utf-16-le") + c.encode(),
    "false charset cp037": lambda c: b'<html><head><meta charset="cp037"></head>' + _html(_escape(c)),
    "edgar zip exhibit": lambda c: _edgar_zip(c),
    "edgar gz of utf-16": lambda c: make_edgar_submission(HEADER, [
        {"type": "EX-10.1", "filename": "ex10.txt.gz", "data": gzip.compress(c.encode("utf-16"), mtime=0)}]),
}


def _texts(data: bytes) -> str:
    ex = extract_bytes(data, "x")
    assert ex.unreadable is None
    return "\n".join([ex.text] + [r.text for r in ex.readings] + [p.extracted.text for p in ex.parts if p.extracted])


@pytest.mark.parametrize("how", sorted(HIDING))
def test_a_hidden_or_disguised_copy_is_found(corpus, contract, how):
    assert _found(corpus, _texts(HIDING[how](contract)))


@pytest.mark.parametrize("how", sorted(HIDING))
def test_an_unrelated_document_hidden_the_same_way_is_not(corpus, how):
    assert not _found(corpus, _texts(HIDING[how](synth.contract(4545, 6_000, kind="lease"))))


def test_ingest_records_why_a_document_cannot_be_read(tmp_path, contract):
    import random

    from tests.extract.test_extract import _CID_FONT, _cid_run, _font_pdf

    d = tmp_path / "batch"
    d.mkdir()
    (d / "clean.txt").write_text(contract)
    content = b"BT /F1 11 Tf 72 740 Td " + _cid_run(contract[:200].replace("\n", " ")) + b" ET"
    (d / "cid.pdf").write_bytes(_font_pdf(content, _CID_FONT))
    r = random.Random(7)
    (d / "gibberish.txt").write_bytes(bytes(r.choice([*range(0xA0, 0x100), 0x20, 0x20]) for _ in range(4000)))
    doc = ('<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY x "hidden">]><w:document '
           'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r>'
           "<w:t>The Lessee &x; shall pay the rent.</w:t></w:r></w:p></w:body></w:document>")
    (d / "entity.docx").write_bytes(make_docx([], document_xml=doc))
    with Store(tmp_path / "c.db") as store:
        ingest(store, [d], workers=1)
        rows = {r["path"].rsplit("/", 1)[1]: r["unreadable"]
                for r in store.rows("SELECT path, unreadable FROM documents")}
        assert store.document(store.resolve(str(d / "clean.txt")))["unreadable"] is None
    assert rows["clean.txt"] is None
    assert "without a Unicode mapping" in rows["cid.pdf"]
    assert "gibberish" in rows["gibberish.txt"]
    assert "entity reference" in rows["entity.docx"]
