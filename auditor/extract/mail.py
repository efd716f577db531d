"""Email (``.eml``, MIME text saved as ``.txt`` such as PACER's notices of electronic filing)
and MHTML web archives (``.mht``, ``.mhtml``), read as a mail reader or a browser shows them.

Parsed by Python's :mod:`email` package with ``policy.default``: transfer encodings are decoded
(quoted-printable soft line breaks join the word they split, and in a message the transport padding
after them is deleted as RFC 2045 asks; base64 becomes its text), bodies
are decoded by their charset (an unknown charset falls back to the detection plain text uses),
and encoded words in headers are decoded.

The stored text is the body a mail reader shows: the text parts of the message in order, and of
a ``multipart/alternative`` the last part a reader can show (HTML before plain text, as mail
readers prefer it), read as HTML by :mod:`auditor.extract.html`. The headers are metadata
(``meta["email"]``: from, to, cc, subject, date, message-id), and the Date header is a dated
source (``email:date``). Attachments, and attached messages, are the document's parts: each is
read by the reader of its format and stored as a child document, as the documents of an EDGAR
submission are; what no reader reads (an image) is recorded as a skipped part. An MHTML page
is its root HTML part (the first part, as a browser takes it), drawn as a browser draws it.

What a page refers to in its ``multipart/related`` (RFC 2557) is drawn where the page refers to
it, as a mail reader or a browser draws it: a picture, a frame's page or a style sheet named by
its Content-ID (``cid:``) or by its Content-Location (an absolute URL, or one relative to the
page's own location); a style sheet imported by ``url()`` or by a string (``@import "x.css"``),
from the page or from another sheet. The page's reference becomes a ``data:`` URL of the part
(:class:`_Related`): the HTML reader then applies the style sheet and reads the frame in place,
and the gate's rendering draws the picture, which OCR reads. A part the page does not refer to
is not drawn: an attachment. A ``text/plain`` body sent as ``format=flowed`` (RFC 3676) is read
with its flowed lines joined, as a mail reader joins them (``delsp=yes`` deletes the space that
ends a flowed line).

Other readings, which a gate audits too: ``email:source`` (the bytes as a text editor shows
them), ``email:headers`` (every header, decoded), ``email:alternative`` (the alternatives a
reader does not show), and the HTML body's own readings.
"""

from __future__ import annotations

import contextvars
import email
import email.policy
import html
import platform
import re
from email.message import EmailMessage, Message
from typing import Any

from auditor.errors import ExtractionError, refusal
from auditor.extract import model
from auditor.extract.common import Extracted, Limits, Part, Reading, check_text, storable
from auditor.extract.detect import looks_like_mail  # noqa: F401  (it lives with the other formats' detection)
from auditor.extract.text import decode_text
from auditor.text import dates

#: The MIME structures the reader models (RFC 2046, 1847, 6522): parts in order, one of
#: alternatives, a root with what it refers to, a signed body with its signature.
_MULTIPART = frozenset({"multipart/mixed", "multipart/alternative", "multipart/related", "multipart/signed",
                        "multipart/report", "multipart/digest", "multipart/parallel", "multipart/form-data"})
#: The alternatives it knows a mail reader's choice among: another body type (AMP for email,
#: which some readers show instead of HTML) is outside the model.
_ALTERNATIVES = frozenset({"text/plain", "text/html"})

refusal("too_deep", "save the innermost attached messages on their own (as .eml) and ingest them")

_MAX_DEPTH = 4  # messages attached to messages
#: pictures a body draws by Content-ID (``<img src="cid:...">``): read by OCR of the gate's rendering
_PICTURES = frozenset({"image/png", "image/jpeg", "image/gif"})
_DEPTH: contextvars.ContextVar[int] = contextvars.ContextVar("auditor_mail_depth", default=0)
_SHOWN = ("from", "to", "cc", "subject", "date", "message-id")


def _header(msg: Message, name: str) -> str:
    try:
        values = msg.get_all(name) or []
        return "; ".join(str(v) for v in values)[:2000]
    except Exception:  # a malformed header the policy cannot parse
        raw = msg.get(name, failobj="")
        return str(raw)[:2000]


#: A quoted-printable soft line break followed by transport padding (RFC 2045 6.7, rule 3): spaces
#: or tabs a transport added after the ``=``, which a decoder must delete before the line break.
_QP_PADDED = re.compile(r"=[ \t]+(?=\r?\n)")


def _unpadded(part: Message) -> None:
    """Delete the transport padding after the soft line breaks of a quoted-printable part, as
    RFC 2045 asks of a decoder and mail servers and readers do (Dovecot, Go's and Perl's decoders):
    the break then joins the word it cut. Python's decoder, like Chromium's for an MHTML archive,
    keeps such a break, and splits the word."""
    if (part.get("content-transfer-encoding") or "").strip().lower() != "quoted-printable":
        return
    raw = part.get_payload(decode=False)
    if isinstance(raw, str) and _QP_PADDED.search(raw):
        part.set_payload(_QP_PADDED.sub("=", raw))


def _text_of(part: Message, warnings: list[str], mail: bool = True) -> str:
    """A text part's content, decoded by its charset; an unknown or wrong charset falls back to
    the detection plain text uses. A mail reader's part (``mail``) is decoded as RFC 2045 asks
    (:func:`_unpadded`); an MHTML archive's as Chromium decodes it."""
    if mail:
        _unpadded(part)
    try:
        content = part.get_content()  # type: ignore[attr-defined]
        if isinstance(content, str):
            return content
    except (LookupError, UnicodeError, KeyError, ValueError, AssertionError) as e:
        warnings.append(f"part {part.get_content_type()}: declared charset unusable ({type(e).__name__}); detected")
    return decode_text(_payload(part, warnings))[0]


_NOT_BASE64 = re.compile(rb"[^A-Za-z0-9+/]")


def _payload(part: Message, warnings: list[str]) -> bytes:
    """A leaf part's bytes, its transfer encoding undone. Base64 is decoded leniently, as mail
    readers do: characters outside the alphabet and a broken last group are dropped (the
    ``email`` package would hand back the encoded text instead)."""
    if (part.get("content-transfer-encoding") or "").strip().lower() == "base64":
        import base64

        encoded = part.get_payload(decode=False)
        raw = encoded.encode("ascii", "replace") if isinstance(encoded, str) else b""
        clean = _NOT_BASE64.sub(b"", raw.split(b"=", 1)[0])
        if len(clean) % 4 == 1:
            warnings.append(f"part {part.get_content_type()}: base64 ends in a broken group, dropped")
        clean = clean[: len(clean) - len(clean) % 4] if len(clean) % 4 == 1 else clean + b"=" * (-len(clean) % 4)
        return base64.b64decode(clean)
    decoded = part.get_payload(decode=True)
    return decoded if isinstance(decoded, bytes) else b""


class _Reader:
    def __init__(self, limits: Limits, depth: int, archive: bool = False) -> None:
        self.limits = limits
        self.depth = depth
        self.archive = archive  # an MHTML archive a browser opens (not a message a mail reader shows)
        self.body: list[str] = []
        self.pages: list[str] = []  # each shown body part as HTML, as a mail reader draws it (shown_html)
        self.pictures: dict[str, tuple[str, bytes, str]] = {}  # Content-ID -> a picture part (type, bytes, name)
        self.unreadable: list[str] = []
        self.warnings: list[str] = []
        self.readings: list[Reading] = []
        self.hidden: list[str] = []  # alternatives a reader does not show
        self.outside = model.Outside()  # constructs outside the reader's model (MIME structures, HTML)
        self.attachments: list[tuple[str, str, bytes, bool]] = []  # (name, type, bytes, an attached message)
        self.formats: set[str] = set()

    def visit(self, part: Message, css: list[str]) -> None:
        stack: list[tuple[Message, list[str], _Related | None]] = [(part, css, None)]
        while stack:
            p, sheets, related = stack.pop()
            if related is not None and id(p) in related.used:
                continue  # drawn where the page refers to it
            ctype = p.get_content_type()
            if p.is_multipart() and not ctype.startswith("message/"):
                children = [c for c in p.iter_parts()] if isinstance(p, EmailMessage) else list(p.get_payload())
                if ctype not in _MULTIPART:
                    self.outside.add("email", f"structure {ctype}")
                if ctype == "multipart/alternative" and children:
                    for c in children:
                        if not (c.get_content_type() in _ALTERNATIVES or c.is_multipart()):
                            self.outside.add("email", f"alternative body {c.get_content_type()}")
                    shown = self._preferred(children)
                    for c in children:
                        if c is not shown:
                            self.hidden.append(self._plain(c))
                    stack.append((shown, sheets, related))
                elif ctype == "multipart/related" and children:
                    root = self._root(p, children, self.archive)
                    mine = _Related(p, children, root, self.warnings, self.archive)
                    for c in reversed(children):
                        if c is not root:
                            stack.append((c, [], mine))
                    stack.append((root, sheets, mine))
                else:
                    stack.extend((c, sheets, related) for c in reversed(children))
                continue
            self.leaf(p, sheets, related)

    @staticmethod
    def _preferred(children: list[Message]) -> Message:
        """The alternative a mail reader shows: the last one it can show (RFC 2046 puts the
        richest last), HTML or a multipart holding it before plain text."""
        shown = [c for c in children if c.get_content_disposition() != "attachment"] or children
        for c in reversed(shown):
            if c.get_content_type() == "text/html" or (c.is_multipart() and not c.get_content_type().startswith("message/")):
                return c
        for c in reversed(shown):
            if c.get_content_type() == "text/plain":
                return c
        return shown[-1]

    @staticmethod
    def _root(p: Message, children: list[Message], archive: bool = False) -> Message:
        """The part a reader shows of a ``multipart/related``: the one its ``start`` parameter names
        (RFC 2387), else the first. A browser opening an MHTML archive shows the first part,
        whatever ``start`` says (Chromium does)."""
        start = (p.get_param("start") or "")
        if isinstance(start, str) and start and not archive:
            for c in children:
                if (c.get("content-id") or "").strip() == start.strip():
                    return c
        return children[0]

    def _plain(self, part: Message) -> str:
        if part.is_multipart():
            return "\n\n".join(self._plain(c) for c in part.get_payload() if isinstance(c, Message))
        ctype = part.get_content_type()
        if ctype == "text/html":
            return self._html(_safe_text(part, self.warnings, not self.archive), [], record=False)
        return _safe_text(part, self.warnings, not self.archive) if ctype.startswith("text/") else ""

    def _html(self, html: str, sheets: list[str], record: bool = True) -> str:
        from auditor.extract.html import html_to_text

        styles = "".join(f"<style>{s}</style>" for s in sheets)
        data = b"\xef\xbb\xbf" + (styles + html).encode("utf-8", "surrogatepass")  # the BOM: MIME's charset wins
        try:
            ex = html_to_text(data, self.limits)
        except ExtractionError as e:
            if e.code == "empty":
                return ""
            raise
        if record:
            self.formats.add("html")
            self.readings.extend(ex.readings)
            self.warnings.extend(ex.warnings)
            if ex.unreadable:
                self.unreadable.append(f"HTML body: {ex.unreadable}")
            self.outside.extend(ex.unmodelled)
        return ex.text

    def _plain_text(self, text: str) -> str:
        """A plain-text body as a text viewer shows it (:func:`auditor.extract.text.read_plain`):
        a mail reader shows the body as a text file is shown, so a line-number margin, columns,
        bidirectional controls and letter spacing are read as they are in a text file; the body as
        stored is then a reading (``text:as-stored``, ``text:logical-order``)."""
        from auditor.extract.text import read_plain

        ex = read_plain(text, self.limits)
        self.readings.extend(ex.readings)
        self.warnings.extend(ex.warnings)
        if ex.unreadable:
            self.unreadable.append(f"plain-text body: {ex.unreadable}")
        return ex.text

    def leaf(self, p: Message, sheets: list[str], related: _Related | None = None) -> None:
        ctype = p.get_content_type()
        disposition = p.get_content_disposition()
        filename = p.get_filename() or ""
        if ctype.startswith("message/") and p.is_multipart():  # an attached message
            inner = p.get_payload()
            msg = inner[0] if isinstance(inner, list) and inner else inner
            raw = _message_bytes(msg, self.warnings) if isinstance(msg, Message) else b""
            self.attachments.append((filename or "attached message.eml", ctype, raw, True))
            return
        inline = disposition == "inline" or (disposition is None and not filename)  # as mail readers show parts
        if inline and ctype == "text/enriched":
            self.outside.add("email", "body text/enriched (its formatting commands are stored as words)")
        if inline and ctype in ("text/plain", "text/html", "text/enriched"):
            text = _text_of(p, self.warnings, mail=not self.archive)
            if ctype == "text/html" and related is not None:
                text = related.inline(text, p)
            elif ctype == "text/plain" and str(p.get_param("format") or "").lower() == "flowed":
                text = unflow(text, str(p.get_param("delsp") or "").lower() == "yes")
            self.body.append(self._html(text, sheets) if ctype == "text/html" else
                             self._plain_text(text) if ctype == "text/plain" else text)
            self.pages.append("".join(f"<style>{s}</style>" for s in sheets) + text if ctype == "text/html" else
                              "<pre style='white-space:pre-wrap;font-family:monospace'>" + html.escape(text) + "</pre>")
            return
        cid = (p.get("content-id") or "").strip().strip("<>")
        if ctype in _PICTURES and cid and disposition != "attachment":
            self.pictures[cid] = (ctype, _payload(p, self.warnings), filename)
            return
        self.attachments.append((filename, ctype, _payload(p, self.warnings), False))

    def drawn(self) -> dict[str, tuple[str, bytes]]:
        """The pictures the body draws (``<img src="cid:...">``), by Content-ID; the others are
        attachments again (called once the message is visited)."""
        html = "\n".join(self.pages).lower()
        out = {}
        for cid, (ctype, raw, filename) in self.pictures.items():
            if f"cid:{cid.lower()}" in html:
                out[cid] = (ctype, raw)
            else:
                self.attachments.append((filename, ctype, raw, False))
        self.pictures = {}
        return out


#: attributes whose URL a browser loads and draws in place (``href`` only on ``<link>``)
_URL_ATTRS = re.compile(r"""(\b(?:src|data|background|poster|href)\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)
_SRCSET = re.compile(r"""(\b(?:srcset|imagesrcset)\s*=\s*)(?:"([^"]*)"|'([^']*)')""", re.I)
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))\s*\)""", re.I)
#: ``@import "sheet.css"``: a style sheet imported by a string, not by ``url()`` (CSS allows both)
_CSS_IMPORT = re.compile(r"""(@import\s+)(?:"([^"]*)"|'([^']*)')""", re.I)
_TAG = re.compile(r"<[a-zA-Z][^<>]*>")
_MAX_INLINE_DEPTH = 4  # frames inside frames


class _Related:
    """The parts of one ``multipart/related`` by Content-ID and Content-Location, and which of
    them a page referred to (``used``: drawn in place, not read again as parts)."""

    def __init__(self, p: Message, children: list[Message], root: Message, warnings: list[str],
                 archive: bool = False) -> None:
        self.archive = archive  # an MHTML archive: its parts decoded as Chromium decodes them
        import urllib.parse

        self.warnings = warnings
        self.used: set[int] = set()
        self.by_cid: dict[str, Message] = {}
        self.by_url: dict[str, Message] = {}
        base = str(p.get("content-base") or p.get("content-location") or root.get("content-location") or "").strip()
        self.base = base
        for c in children:
            cid = str(c.get("content-id") or "").strip().strip("<>")
            if cid:
                self.by_cid.setdefault(cid.lower(), c)
            loc = str(c.get("content-location") or "").strip()
            if loc:
                own = str(c.get("content-base") or base)
                self.by_url.setdefault(_url_key(urllib.parse.urljoin(own, loc)), c)

    def _part(self, ref: str, base: str) -> Message | None:
        import urllib.parse

        ref = ref.strip()
        if ref[:4].lower() == "cid:":
            return self.by_cid.get(urllib.parse.unquote(ref[4:]).strip("<>").lower())
        if not ref or ref[:5].lower() in ("data:", "javas") or ref.startswith("#"):
            return None
        return self.by_url.get(_url_key(urllib.parse.urljoin(base, ref)))

    def inline(self, html: str, page: Message, depth: int = 0) -> str:
        """The page's references to parts of the archive written as ``data:`` URLs of those parts."""
        base = str(page.get("content-location") or self.base or "").strip()

        def data_url(ref: str, css: bool = False) -> str | None:
            import base64

            part = self._part(ref, base)
            if part is None or part is page or part.is_multipart():
                return None
            ctype = part.get_content_type()
            if ctype == "text/html" and depth < _MAX_INLINE_DEPTH and not css:
                self.used.add(id(part))
                body = self.inline(_safe_text(part, self.warnings, not self.archive), part, depth + 1)
                return "data:text/html;charset=utf-8;base64," + base64.b64encode(body.encode("utf-8", "surrogatepass")).decode()
            if ctype == "text/css" and depth < _MAX_INLINE_DEPTH:
                self.used.add(id(part))
                sheet = self._css(_safe_text(part, self.warnings, not self.archive), part, depth + 1)
                return "data:text/css;charset=utf-8;base64," + base64.b64encode(sheet.encode("utf-8", "surrogatepass")).decode()
            if ctype in _PICTURES or ctype == "image/svg+xml":
                self.used.add(id(part))
                return f"data:{ctype};base64," + base64.b64encode(_payload(part, self.warnings)).decode()
            return None

        def attr(m: re.Match[str]) -> str:
            name = m.group(1).split("=")[0].strip().lower()
            tag = m.string[: m.start()].rsplit("<", 1)[-1].split(None, 1)[0].lower() if "<" in m.string[: m.start()] else ""
            if name == "href" and tag != "link":
                return m.group(0)  # a link a reader follows, not something drawn in place
            ref = next(g for g in m.groups()[1:] if g is not None)
            got = data_url(ref)
            quote = "'" if m.group(3) is not None else '"'
            return f"{m.group(1)}{quote}{got}{quote}" if got else m.group(0)

        def srcset(m: re.Match[str]) -> str:
            items = []
            for item in (m.group(2) if m.group(2) is not None else m.group(3)).split(","):
                url, _, size = item.strip().partition(" ")
                got = data_url(url)
                items.append(f"{got or url} {size}".strip())
            return f'{m.group(1)}"{", ".join(items)}"'

        def tag(m: re.Match[str]) -> str:
            return _SRCSET.sub(srcset, _URL_ATTRS.sub(attr, m.group(0)))

        out = _TAG.sub(tag, html)
        out = _CSS_IMPORT.sub(lambda m: self._css_import(m, data_url), out)
        return _CSS_URL.sub(lambda m: self._css_url(m, data_url), out)

    def _css(self, sheet: str, part: Message, depth: int) -> str:
        import urllib.parse

        base = urllib.parse.urljoin(self.base, str(part.get("content-location") or ""))

        def data_url(ref: str, css: bool = True) -> str | None:
            import base64

            got = self._part(ref, base)
            if got is None or got is part or got.is_multipart():
                return None
            ctype = got.get_content_type()
            if ctype == "text/css" and depth < _MAX_INLINE_DEPTH:  # a sheet the sheet imports
                self.used.add(id(got))
                inner = self._css(_safe_text(got, self.warnings, not self.archive), got, depth + 1)
                return "data:text/css;charset=utf-8;base64," + base64.b64encode(inner.encode("utf-8", "surrogatepass")).decode()
            if ctype not in (*_PICTURES, "image/svg+xml"):
                return None
            self.used.add(id(got))
            return f"data:{ctype};base64," + base64.b64encode(_payload(got, self.warnings)).decode()

        sheet = _CSS_IMPORT.sub(lambda m: self._css_import(m, data_url), sheet)
        return _CSS_URL.sub(lambda m: self._css_url(m, data_url), sheet)

    @staticmethod
    def _css_import(m: re.Match[str], data_url: Any) -> str:
        ref = m.group(2) if m.group(2) is not None else m.group(3)
        got = data_url(ref, True)
        return f'{m.group(1)}url("{got}")' if got else m.group(0)

    @staticmethod
    def _css_url(m: re.Match[str], data_url: Any) -> str:
        ref = next((g for g in m.groups() if g is not None), "")
        got = data_url(ref, True)
        return f'url("{got}")' if got else m.group(0)


def _url_key(url: str) -> str:
    """A URL as parts are matched by it: without its fragment."""
    return url.split("#", 1)[0]


def unflow(text: str, delsp: bool = False) -> str:
    """A ``format=flowed`` body as a mail reader shows it (RFC 3676, 4.2): a line that ends in a
    space is joined to the next line of the same quotation depth; with ``delsp=yes`` that space
    is deleted (it was added to break a long word); a space opening a line is stuffing."""
    out: list[str] = []
    cur: str | None = None
    depth = -1
    for line in text.replace("\r\n", "\n").split("\n"):
        quotes = len(line) - len(line.lstrip(">"))
        body = line[quotes:]
        if body.startswith(" "):
            body = body[1:]
        flowed = body.endswith(" ") and body != "-- "
        if cur is not None and quotes != depth:
            out.append(">" * depth + (" " if depth else "") + cur)
            cur = None
        piece = body[:-1] if flowed and delsp else body
        cur = piece if cur is None else cur + piece
        depth = quotes
        if not flowed:
            out.append(">" * quotes + (" " if quotes else "") + cur)
            cur = None
    if cur is not None:
        out.append(">" * depth + (" " if depth else "") + cur)
    return "\n".join(out)


def _message_bytes(msg: Message, warnings: list[str]) -> bytes:
    """An attached message written out again, to be read as a message of its own; one the
    generator cannot write as 7-bit (a damaged part) is written as UTF-8."""
    try:
        return msg.as_bytes()
    except (UnicodeError, LookupError, ValueError, TypeError):
        warnings.append("an attached message could not be written as 7-bit mail: written as UTF-8")
    for write in (lambda: msg.as_bytes(policy=email.policy.default.clone(utf8=True)),
                  lambda: msg.as_string(policy=email.policy.default.clone(utf8=True)).encode("utf-8", "replace")):
        try:
            return write()
        except (UnicodeError, LookupError, ValueError, TypeError):
            continue
    warnings.append("an attached message could not be written out again: not read")
    return b""


def _safe_text(part: Message, warnings: list[str], mail: bool = True) -> str:
    try:
        return _text_of(part, warnings, mail)
    except Exception as e:  # a damaged part is a warning, not the message's failure
        warnings.append(f"part {part.get_content_type()} unreadable: {type(e).__name__}")
        return ""


def _part(name: str, ctype: str, raw: bytes, attached_message: bool, seq: str, limits: Limits,
          context: dict[str, Any]) -> list[Part]:
    """An attachment as a part (its own attachments after it, numbered under it)."""
    from auditor.extract.archive import ARCHIVES
    from auditor.extract.data import readable
    from auditor.extract.detect import binary_kind, detect_format, extension, not_read
    from auditor.extract.nested import extract_format

    meta: dict[str, Any] = {"sequence": seq, "type": ctype, "message": context}
    if name:
        meta["filename"] = name
    if not raw.strip():
        return [Part(raw, meta, "skipped", None, "empty", "an empty attachment")]
    try:
        if attached_message:
            ex = extract_email(raw, limits, name)
        else:
            skip = not_read(raw, name)
            if skip is not None:  # data (a picture, JSON...): a gate reads it as data (extract.data)
                return [Part(raw, meta, "skipped", None, skip[0], skip[1], data=raw if readable(raw) else None)]
            fmt = detect_format(raw, name)
            if fmt == "binary" and binary_kind(raw) in ARCHIVES:  # a zip of filings: member by member
                from auditor.extract.archive import extract_archive

                fmt, ex = "archive", extract_archive(raw, name, limits)
            if fmt == "binary":
                kind = extension(name) or ctype.rpartition("/")[2] or "unknown"
                return [Part(raw, meta, "skipped", None, f"binary:{kind}",
                             f"a binary attachment ({ctype}, {len(raw)} bytes), not a document read here")]
            if fmt != "archive":
                ex = extract_format(fmt, raw, limits, name)
    except ExtractionError as e:
        status = "skipped" if e.code in ("empty", "binary") or ":" in e.code else "failed"
        return [Part(raw, meta, status, None, e.code, str(e))]
    inner, ex.parts = ex.parts, []
    ex.meta = {**meta, **ex.meta}  # as an EDGAR part's: the document says which message it came in
    out = [Part(raw, meta, "ok", ex)]
    for i, p in enumerate(inner, 1):  # a store keeps one level of parts: the nested ones follow
        p.meta = {**p.meta, "sequence": f"{seq}.{p.meta.get('sequence') or i}"}
        out.append(p)
    return out


def is_archive(name: str) -> bool:
    """Whether a file name says MHTML (``.mht``, ``.mhtml``): a browser opens it as an archive."""
    return name.lower().endswith((".mht", ".mhtml"))


def shown_html(data: bytes, limits: Limits = Limits(), name: str = "") -> str:
    """The body of a message (or an MHTML archive's page) as HTML, as a mail reader or a browser
    draws it: each part of the body the reader stores, in order (an HTML part with the archive's
    style sheets, a plain text part as preformatted text). Its rendering is the gate's check of
    the reading (:mod:`auditor.gating.render`); attachments are parts, rendered on their own."""
    import base64

    msg = email.message_from_bytes(data, policy=email.policy.default)
    r = _Reader(limits, 0, is_archive(name))
    r.visit(msg, [])
    pictures = r.drawn()
    pages = r.pages
    if pictures:  # the pictures the body draws, in place of their Content-ID (a browser fetches nothing)
        def url(m: re.Match[str]) -> str:
            got = pictures.get(m.group(1)) or next((v for k, v in pictures.items() if k.lower() == m.group(1).lower()), None)
            return f"data:{got[0]};base64,{base64.b64encode(got[1]).decode()}" if got else m.group(0)
        pages = [re.sub(r"cid:([^\s\"'>)]+)", url, page) for page in pages]
    if len(pages) == 1:
        return pages[0]
    return "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>" + "<hr>".join(pages) + "</body></html>"


def extract_email(data: bytes, limits: Limits = Limits(), name: str = "") -> Extracted:
    """An Internet message or MHTML archive: the body a reader sees, headers as metadata,
    attachments as parts."""
    depth = _DEPTH.get()
    if depth >= _MAX_DEPTH:
        raise ExtractionError("too_deep", f"messages attached inside messages more than {_MAX_DEPTH} deep")
    token = _DEPTH.set(depth + 1)
    try:
        return _extract(data, limits, name, depth)
    finally:
        _DEPTH.reset(token)


def _extract(data: bytes, limits: Limits, name: str, depth: int) -> Extracted:
    msg = email.message_from_bytes(data, policy=email.policy.default)
    r = _Reader(limits, depth, is_archive(name))
    r.visit(msg, [])
    r.drawn()  # a picture the body draws is the body's (the rendering draws it, OCR reads it), not an attachment
    for d in msg.defects[:3]:
        r.warnings.append(f"message defect: {type(d).__name__}")
    headers = {k: _header(msg, k) for k in _SHOWN if msg.get(k) is not None}
    mhtml = msg.get_content_type() == "multipart/related" and "html" in r.formats
    context: dict[str, Any] = {k: headers[k] for k in ("subject", "from", "date") if k in headers}
    parts: list[Part] = []
    for i, (fname, ctype, raw, attached) in enumerate(r.attachments, 1):
        if len(parts) >= limits.max_parts:
            parts.append(Part(b"", {"sequence": str(i), "message": context}, "failed", None, "too_many_parts",
                              f"more than {limits.max_parts} attachments: the rest were not read"))
            break
        parts += _part(fname, ctype, raw, attached, str(i), limits, context)
    body = "\n\n".join(b.strip() for b in r.body if b.strip())
    text = storable(body, r.warnings)
    if not text.strip():
        if not parts:
            raise ExtractionError("empty", "the message has no text to read: no body and no attachment")
        r.warnings.append("the message has no body text: its attachments are its parts")
    else:
        text = check_text(text, "email body", limits)
    readings = list(r.readings)
    if len(data) <= limits.max_text_chars:  # a larger message is mostly its encoded attachments
        source, _ = decode_text(data)
        readings.append(Reading("email:source", storable(source, []),
                                "the message's bytes as a text editor shows them (headers, encoded parts)"))
    readings.append(Reading("email:headers", storable("\n".join(f"{k}: {_header(msg, k)}" for k in
                                                               dict.fromkeys(msg.keys())), []),
                            "every header of the message, decoded"))
    hidden = "\n\n".join(h for h in r.hidden if h.strip())
    if hidden:
        readings.append(Reading("email:alternative", storable(hidden, []),
                                "the alternative bodies a mail reader does not show (plain text beside HTML)"))
    meta: dict[str, Any] = {"email": headers} if headers else {}
    if headers.get("date"):
        meta.update(dates.recorded({"email:date": headers["date"][:dates.MAX_RAW]}))
    return Extracted("mhtml" if mhtml else "email", text, "python-email", platform.python_version(),
                     encoding="utf-8", meta=meta, parts=parts, warnings=r.warnings,
                     unreadable="; ".join(dict.fromkeys(r.unreadable)) or None, readings=readings,
                     unmodelled=r.outside.names())
