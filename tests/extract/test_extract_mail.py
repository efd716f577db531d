"""Email and MHTML read as a mail reader and a browser show them (issues #36, #40): bodies
decoded, HTML parts read as HTML, headers as metadata, the Date as a dated source, attachments
as parts. The messages are written here as mail programs write them (Python's own ``email``
package composes them, with the encodings mail programs use), around licence texts."""

from __future__ import annotations

import base64
import quopri
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from html import escape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.errors import ExtractionError
from auditor.extract import extract_bytes
from auditor.extract.detect import detect_format, looks_like_mail
from auditor.text.normalize import words
from tests.support.fixtures_build import make_docx
from tests.support.licences import licence

DATE = format_datetime(datetime(2024, 3, 5, 14, 30, tzinfo=UTC))


def text_of(i: int, n: int = 6) -> str:
    return "\n\n".join([" ".join(p.split()) for p in licence(i).split("\n\n") if p.strip()][:n])


def message(**headers: str) -> EmailMessage:
    m = EmailMessage()
    m["From"] = headers.get("from", "Clerk of Court <ecf@court.example.gov>")
    m["To"] = headers.get("to", "Counsel <counsel@firm.example>")
    m["Subject"] = headers.get("subject", "Activity in Case 1:24-cv-00001 Notice of Electronic Filing")
    m["Date"] = headers.get("date", DATE)
    m["Message-ID"] = "<1@court.example.gov>"
    return m


def reading(ex, name: str) -> str:
    return next(r.text for r in ex.readings if r.name == name)


def test_quoted_printable_soft_breaks_do_not_split_words():
    body = text_of(1)
    m = message()
    m.set_content(body, cte="quoted-printable")
    raw = m.as_bytes()
    assert b"=\n" in raw  # long lines were softly broken, inside words
    ex = extract_bytes(raw, "notice.eml")
    assert ex.format == "email" and ex.extractor == "python-email"
    assert words(ex.text) == words(body)
    assert ex.meta["email"]["subject"].startswith("Activity in Case")
    assert ex.meta["dates"] == {"email:date": DATE}
    assert "Notice of Electronic Filing" not in ex.text  # headers are metadata, not words
    assert "Notice of Electronic Filing" in reading(ex, "email:headers")


def test_a_base64_html_body_in_another_charset_is_decoded_and_read_as_html():
    body = text_of(2)
    html = "<html><body>" + "".join(f"<p>{escape(p)}</p>" for p in body.split("\n\n")) + \
           "<!-- a comment no reader sees --><div style='display:none'>zebra quartz</div></body></html>"
    m = message()
    m.set_content("\u00c9t\u00e9: see the HTML part.", charset="iso-8859-1")
    m.add_alternative(html, subtype="html", charset="utf-8", cte="base64")
    ex = extract_bytes(m.as_bytes(), "")
    assert words(ex.text) == words(body)  # the HTML alternative is shown
    assert "zebra" not in words(ex.text) and "zebra" in words(reading(ex, "html:all-text"))
    assert "\u00e9t\u00e9" in reading(ex, "email:alternative").lower()


def test_attachments_are_parts_read_by_their_format_and_nested_messages_flattened():
    body, attached = text_of(3, 2), text_of(4)
    inner = message(subject="Forwarded")
    inner.set_content("The forwarded note.")
    inner.add_attachment(attached.encode(), maintype="text", subtype="plain", filename="inner.txt")
    m = message()
    m.set_content(body)
    m.add_attachment(make_docx(attached.split("\n\n")), maintype="application",
                     subtype="vnd.openxmlformats-officedocument.wordprocessingml.document", filename="order.docx")
    m.add_attachment(inner)
    m.add_attachment(b"\x89PNG\r\n\x1a\n" + b"\0" * 64, maintype="image", subtype="png", filename="seal.png")
    ex = extract_bytes(m.as_bytes(), "n.eml")
    assert words(ex.text) == words(body)
    got = [(p.meta["sequence"], p.status, p.code, p.extracted.format if p.extracted else None) for p in ex.parts]
    assert got == [("1", "ok", None, "docx"), ("2", "ok", None, "email"), ("2.1", "ok", None, "text"),
                   ("3", "skipped", "binary:png", None)]
    assert words(ex.parts[0].extracted.text) == words(attached)
    assert ex.parts[0].meta["filename"] == "order.docx" and ex.parts[0].meta["message"]["date"] == DATE
    assert words(ex.parts[2].extracted.text) == words(attached)


def test_a_notice_saved_as_txt_is_a_message_and_a_memo_is_not():
    m = message()
    m.set_content(text_of(5), cte="quoted-printable")
    nef = b"Return-Path: <ecf@court.example.gov>\nReceived: from court by mx; " + DATE.encode() + b"\n" + m.as_bytes()
    assert detect_format(nef, "NEF 1-24-cv-00001.txt") == "email"
    memo = b"To: All staff\nFrom: General Counsel\nSubject: Retention policy\n\n" + text_of(5).encode()
    assert detect_format(memo, "memo.txt") == "text"  # no header only mail carries
    ex = extract_bytes(memo, "memo.txt")
    assert ex.text.startswith("To: All staff")
    assert not looks_like_mail(b"Subject: x\nnot a header line\n\nbody", "x.eml")


def test_a_message_with_a_broken_base64_attachment_decodes_what_it_can():
    m = message()
    m.set_content("See the attached order.")
    m.add_attachment(text_of(6).encode(), maintype="text", subtype="plain", filename="order.txt")
    raw = m.as_bytes()
    head, _, tail = raw.rpartition(b"\n--")
    broken = head.rstrip(b"\n") + b"QK>\n--" + tail  # a stray character and a broken last group
    ex = extract_bytes(broken, "x.eml")
    assert words(ex.parts[0].extracted.text)[:50] == words(text_of(6))[:50]


def test_mhtml_is_its_page_with_the_archives_style_sheets_applied():
    page = text_of(7, 3)
    html = ("<html><head><link rel=stylesheet href='https://court.example.gov/site.css'></head><body>"
            + "".join(f"<p>{escape(p)}</p>" for p in page.split("\n\n"))
            + "<p class='skip'>zebra quartz mango</p></body></html>")
    raw = ("From: <Saved by Blink>\nSnapshot-Content-Location: https://court.example.gov/opinions\n"
           f"Subject: Opinions\nDate: {DATE}\nMIME-Version: 1.0\n"
           'Content-Type: multipart/related; type="text/html"; boundary="----B"\n\n'
           "------B\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n"
           "Content-Location: https://court.example.gov/opinions\n\n"
           + quopri.encodestring(html.encode()).decode()
           + "\n------B\nContent-Type: text/css\nContent-Transfer-Encoding: quoted-printable\n"
           "Content-Location: https://court.example.gov/site.css\n\n.skip { display: none }\n"
           "------B\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n"
           "Content-Location: https://court.example.gov/seal.png\n\n"
           + base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 32).decode() + "\n------B--\n").encode()
    ex = extract_bytes(raw, "opinions.mhtml")
    assert ex.format == "mhtml" and words(ex.text) == words(page)
    assert [(p.status, p.code) for p in ex.parts] == [("skipped", "binary:png")]


def test_messages_nested_too_deep_are_refused():
    inner = message()
    inner.set_content("The innermost note of the matter.")
    for _ in range(6):
        outer = message()
        outer.set_content("Forwarded.")
        outer.add_attachment(inner)
        inner = outer
    ex = extract_bytes(inner.as_bytes(), "x.eml")
    assert any(p.code == "too_deep" for p in ex.parts)


def test_a_message_with_nothing_to_read_says_so():
    with pytest.raises(ExtractionError) as e:
        extract_bytes(b"From: a@b.example\nTo: c@d.example\nMIME-Version: 1.0\n\n\n", "x.eml")
    assert e.value.code == "empty"


def test_an_html_body_with_inline_images_is_preferred_to_the_plain_alternative():
    body = text_of(8)
    m = message()
    m.set_content("Plain version: see the HTML.")
    m.add_alternative("<html><body>" + "".join(f"<p>{escape(p)}</p>" for p in body.split("\n\n"))
                      + "<img src='cid:seal'></body></html>", subtype="html")
    html_part = m.get_payload()[1]
    html_part.add_related(b"\x89PNG\r\n\x1a\n" + b"\0" * 32, maintype="image", subtype="png", cid="<seal>")
    ex = extract_bytes(m.as_bytes(), "x.eml")
    assert words(ex.text) == words(body)  # multipart/related (HTML + image) is the richer alternative
    # the picture the body draws is the body's: not a part (skipped, it failed a gate closed), but
    # drawn on the page the gate renders, where OCR reads it
    assert ex.parts == []
    from auditor.extract.mail import shown_html

    assert "src='data:image/png;base64," in shown_html(m.as_bytes()) and "cid:seal" not in shown_html(m.as_bytes())


def test_a_zip_attachment_is_read_member_by_member():
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("order.txt", text_of(9))
    m = message()
    m.set_content("The order is in the zip.")
    m.add_attachment(buf.getvalue(), maintype="application", subtype="zip", filename="orders.zip")
    ex = extract_bytes(m.as_bytes(), "x.eml")
    (part,) = ex.parts
    assert part.status == "ok" and words(part.extracted.text) == words(text_of(9))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([
    b"Content-Type: multipart/mixed; boundary=b\n", b"Content-Transfer-Encoding: base64\n",
    b"Content-Transfer-Encoding: quoted-printable\n", b"Content-Type: text/html; charset=x-unknown\n",
    b"Content-Type: message/rfc822\n", b"Content-Disposition: attachment; filename=a.doc\n", b"\n", b"--b\n",
    b"--b--\n", b"PGh0bWw+PGJvZHk+aGk8L2JvZHk+PC9odG1sPg==\n", b"soft=\nbreak =E9t=E9\n", b"{\\rtf1 x}\n",
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\n", b"Subject: =?utf-8?b?w6l0w6k=?=\n", b"<p>text</p>\n",
]), max_size=40), st.binary(max_size=60))
def test_any_message_shape_gives_storable_text_or_a_coded_error(pieces, tail):
    data = b"From: a@b.example\nTo: c@d.example\nMIME-Version: 1.0\n" + b"".join(pieces) + tail
    try:
        ex = extract_bytes(data, "x.eml")
    except ExtractionError as e:
        assert e.code and str(e)
        return
    for text in [ex.text, *(p.extracted.text for p in ex.parts if p.extracted)]:
        text.encode("utf-8")
        assert "\x00" not in text and "\r" not in text


def _archive(parts: list[tuple[str, str, bytes]], start: str | None = None) -> bytes:
    """An MHTML archive as a browser saves one: parts named by Content-Location."""
    param = f'; start="{start}"' if start else ""
    head = ("From: <Saved by Blink>\nSnapshot-Content-Location: https://court.example.gov/opinions\n"
            f"Subject: Opinions\nDate: {DATE}\nMIME-Version: 1.0\n"
            f'Content-Type: multipart/related; type="text/html"; boundary="----B"{param}\n\n')
    body = "".join(f"------B\nContent-Type: {ctype}\nContent-Transfer-Encoding: base64\nContent-Location: {loc}\n"
                   + (f"Content-ID: {start}\n" if start and loc.endswith("cover.html") else "")
                   + "\n" + base64.b64encode(data).decode() + "\n" for loc, ctype, data in parts)
    return (head + body + "------B--\n").encode()


def test_mhtml_frames_and_pictures_are_drawn_where_the_page_refers_to_them():
    paras = text_of(9, 4).split("\n\n")
    frames = "".join(f"<iframe src='frames/f{i}.html'></iframe>" for i in range(len(paras)))
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 32
    raw = _archive([("https://court.example.gov/opinions", "text/html", f"<html><body>{frames}<img src='seal.png'>"
                     "</body></html>".encode())]
                   + [(f"https://court.example.gov/frames/f{i}.html", "text/html", f"<p>{escape(paras[i])}</p>".encode())
                      for i in reversed(range(len(paras)))]
                   + [("https://court.example.gov/seal.png", "image/png", png)])
    ex = extract_bytes(raw, "opinions.mhtml")
    assert words(ex.text) == words(" ".join(paras))  # in the page's order, not the parts' stored (reversed) one
    assert ex.parts == []  # the picture is the page's: drawn on the gate's rendering, where OCR reads it
    from auditor.extract.mail import shown_html

    assert "data:image/png;base64," in shown_html(raw, name="opinions.mhtml")
    unused = _archive([("https://court.example.gov/opinions", "text/html", f"<p>{escape(paras[0])}</p>".encode()),
                       ("https://court.example.gov/seal.png", "image/png", png)])
    assert [(p.status, p.code) for p in extract_bytes(unused, "o.mhtml").parts] == [("skipped", "binary:png")]


def test_an_mhtml_archive_shows_its_first_part_and_an_email_the_part_start_names():
    first, cover = text_of(10, 2), text_of(11, 2)
    parts = [("https://court.example.gov/opinions", "text/html", f"<p>{escape(first)}</p>".encode()),
             ("https://court.example.gov/cover.html", "text/html", f"<p>{escape(cover)}</p>".encode())]
    raw = _archive(parts, start="<cover@example>")
    assert words(extract_bytes(raw, "o.mhtml").text)[: len(words(first))] == words(first)
    assert words(extract_bytes(raw, "o.eml").text)[: len(words(cover))] == words(cover)


def test_a_flowed_body_is_read_with_its_lines_joined():
    body = text_of(12, 2)
    cut = []
    for w in body.split(" "):
        cut += [w[i: i + 4] + " " for i in range(0, len(w), 4)]
        cut[-1] += " "  # the word's own space, kept when delsp=yes deletes the flowed one
    flowed = "\n".join(cut).rstrip() + "\n"
    for delsp, text in ((True, flowed), (False, "\n".join(w + " " for w in body.split(" ")).rstrip() + "\n")):
        m = message()
        m.set_content(text, params={"format": "flowed", **({"delsp": "yes"} if delsp else {})})
        assert words(extract_bytes(m.as_bytes(), "x.eml").text) == words(body)
    fixed = message()
    fixed.set_content(flowed)  # not flowed: its lines are what a reader shows
    assert words(extract_bytes(fixed.as_bytes(), "y.eml").text) != words(body)


def test_a_plain_text_body_is_read_as_a_text_file_is_shown():
    """A mail reader shows a plain-text body as a text viewer shows a file: a pleading margin
    is skipped and lines stored backwards after U+202E read forwards (red team round 6: 0.29 and
    0.00 where the reader shows the whole text). The body as stored is a reading."""
    import textwrap

    body = text_of(12, 4)
    lines = textwrap.wrap(body, 56)
    numbered = "\n".join(f"{k % 28 + 1:>2}  {line}" for k, line in enumerate(lines + [""] * (28 - len(lines) % 28)))
    m = message()
    m.set_content(numbered + "\n")
    ex = extract_bytes(m.as_bytes(), "x.eml")
    assert words(ex.text) == words(body)
    assert not words(reading(ex, "text:as-stored"))[0].isalpha()
    m = message()
    m.set_content("\n".join("\u202e" + line[::-1] for line in lines) + "\n")
    ex = extract_bytes(m.as_bytes(), "y.eml")
    assert words(ex.text) == words(body) and "text:logical-order" in [r.name for r in ex.readings]


def test_an_ordinary_plain_text_body_is_read_as_it_is():
    body = "\n".join(f"{i}. {p}" for i, p in enumerate(text_of(12, 4).split("\n\n"), 1))
    m = message()
    m.set_content(body + "\n")
    ex = extract_bytes(m.as_bytes(), "x.eml")
    assert ex.text.strip() == body and not [r for r in ex.readings if r.name.startswith("text:")]


def _saved(page: str, sheets: dict[str, str]) -> bytes:
    """An MHTML archive of ``page`` and its style sheets (location -> text), as Chromium saves one."""
    base = "https://court.example.gov/"
    parts = [("opinions", "text/html", page)] + [(loc, "text/css", css) for loc, css in sheets.items()]
    return (("From: <Saved by Blink>\nSubject: Opinions\n" f"Date: {DATE}\nMIME-Version: 1.0\n"
             'Content-Type: multipart/related; type="text/html"; boundary="----B"\n\n')
            + "".join(f"------B\nContent-Type: {t}\nContent-Transfer-Encoding: 8bit\nContent-Location: {base}{loc}\n\n{d}\n"
                      for loc, t, d in parts) + "------B--\n").encode()


@pytest.mark.parametrize("head, sheets", [
    ("<style>@import \"site.css\";</style>", {"site.css": ".skip { display: none }"}),
    ("<style>@import 'https://court.example.gov/site.css' screen;</style>", {"site.css": ".skip { display: none }"}),
    ("<link rel=stylesheet href='site.css'>", {"site.css": "@import \"more.css\";", "more.css": ".skip { display: none }"}),
    ("<link rel=stylesheet href='site.css'>", {"site.css": "@import url(more.css);", "more.css": ".skip { display: none }"}),
])
def test_a_style_sheet_imported_by_a_string_or_by_a_sheet_is_applied(head, sheets):
    """``@import "sheet.css"`` and a sheet that imports another are style sheets a browser
    applies from the archive (red team round 6: they were outside the document, and the page
    failed closed whatever it held)."""
    page = text_of(7, 3)
    html = (f"<html><head>{head}</head><body>" + "".join(f"<p>{escape(p)}</p>" for p in page.split("\n\n"))
            + "<p class='skip'>zebra quartz mango</p></body></html>")
    ex = extract_bytes(_saved(html, sheets), "opinions.mhtml")
    assert words(ex.text) == words(page) and ex.unreadable is None and not ex.parts


def test_an_import_the_archive_does_not_hold_stays_outside_the_document():
    """A sheet imported from outside the archive is not guessed at: a page split into classed
    words it could hide fails closed, as before."""
    page = " ".join([text_of(7, 3)] * 3)
    body = " ".join(f"{escape(w)} <span class='j'>zebra</span>" for w in page.split())
    html = f"<html><head><style>@import \"https://cdn.example.com/x.css\";</style></head><body><p>{body}</p></body></html>"
    ex = extract_bytes(_saved(html, {}), "page.mhtml")
    assert "css-external" in (ex.unreadable or "")


def test_quoted_printable_transport_padding_is_deleted_as_rfc_2045_asks():
    """A soft line break whose ``=`` a transport padded with spaces still joins the word it cut
    (RFC 2045 6.7 rule 3, as Dovecot, Go and Perl decode it); Python's decoder kept the break and
    split every word (red team round 7: the stored credit agreement passed the gate). An MHTML
    archive is decoded as Chromium decodes it, which keeps such a break."""
    body = text_of(2)
    padded = "\n\n".join(" ".join(w[:2] + "= \n" + w[2:] if len(w) > 2 else w for w in p.split(" "))
                         for p in body.split("\n\n")) + "\n"
    head = ("From: a@example.com\nTo: b@example.com\nSubject: x\nMIME-Version: 1.0\n"
            "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n")
    assert words(extract_bytes((head + padded).encode(), "x.eml").text) == words(body)
    plain = "\n\n".join(" ".join(w[:2] + "=\n" + w[2:] if len(w) > 2 else w for w in p.split(" "))
                        for p in body.split("\n\n")) + "\n"
    assert words(extract_bytes((head + plain).encode(), "y.eml").text) == words(body)
    archive = ("From: <Saved by Blink>\nSubject: x\nMIME-Version: 1.0\nContent-Type: multipart/related; "
               'type="text/html"; boundary="B"\n\n--B\nContent-Type: text/html\nContent-Transfer-Encoding: '
               "quoted-printable\nContent-Location: https://example.com/a.html\n\n<p>" + padded + "</p>\n--B--\n")
    assert words(extract_bytes(archive.encode(), "a.mhtml").text) != words(body)
