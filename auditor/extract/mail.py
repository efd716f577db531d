"""Email (``.eml``, MIME text saved as ``.txt`` such as PACER's notices of electronic filing)
and MHTML web archives (``.mht``, ``.mhtml``), read as a mail reader or a browser shows them.

Parsed by Python's :mod:`email` package with ``policy.default``: transfer encodings are decoded
(quoted-printable soft line breaks join the word they split, base64 becomes its text), bodies
are decoded by their charset (an unknown charset falls back to the detection plain text uses),
and encoded words in headers are decoded.

The stored text is the body a mail reader shows: the text parts of the message in order, and of
a ``multipart/alternative`` the last part a reader can show (HTML before plain text, as mail
readers prefer it), read as HTML by :mod:`auditor.extract.html`. The headers are metadata
(``meta["email"]``: from, to, cc, subject, date, message-id), and the Date header is a dated
source (``email:date``). Attachments, and attached messages, are the document's parts: each is
read by the reader of its format and stored as a child document, as the documents of an EDGAR
submission are; what no reader reads (an image) is recorded as a skipped part. An MHTML page
is its root HTML part, with the archive's style sheets applied; its images and scripts are
parts.

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


def _text_of(part: Message, warnings: list[str]) -> str:
    """A text part's content, decoded by its charset; an unknown or wrong charset falls back to
    the detection plain text uses."""
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
    def __init__(self, limits: Limits, depth: int) -> None:
        self.limits = limits
        self.depth = depth
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
        stack: list[tuple[Message, list[str]]] = [(part, css)]
        while stack:
            p, sheets = stack.pop()
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
                    stack.append((shown, sheets))
                elif ctype == "multipart/related" and children:
                    root = self._root(p, children)
                    more = [_safe_text(c, self.warnings) for c in children
                            if c is not root and c.get_content_type() == "text/css"]
                    for c in reversed(children):
                        if c is not root and c.get_content_type() != "text/css":
                            stack.append((c, []))
                    stack.append((root, sheets + more))
                else:
                    stack.extend((c, sheets) for c in reversed(children))
                continue
            self.leaf(p, sheets)

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
    def _root(p: Message, children: list[Message]) -> Message:
        start = (p.get_param("start") or "")
        if isinstance(start, str) and start:
            for c in children:
                if (c.get("content-id") or "").strip() == start.strip():
                    return c
        return children[0]

    def _plain(self, part: Message) -> str:
        if part.is_multipart():
            return "\n\n".join(self._plain(c) for c in part.get_payload() if isinstance(c, Message))
        ctype = part.get_content_type()
        if ctype == "text/html":
            return self._html(_safe_text(part, self.warnings), [], record=False)
        return _safe_text(part, self.warnings) if ctype.startswith("text/") else ""

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

    def leaf(self, p: Message, sheets: list[str]) -> None:
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
            text = _text_of(p, self.warnings)
            self.body.append(self._html(text, sheets) if ctype == "text/html" else text)
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


def _safe_text(part: Message, warnings: list[str]) -> str:
    try:
        return _text_of(part, warnings)
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


def shown_html(data: bytes, limits: Limits = Limits()) -> str:
    """The body of a message (or an MHTML archive's page) as HTML, as a mail reader or a browser
    draws it: each part of the body the reader stores, in order (an HTML part with the archive's
    style sheets, a plain text part as preformatted text). Its rendering is the gate's check of
    the reading (:mod:`auditor.gating.render`); attachments are parts, rendered on their own."""
    import base64

    msg = email.message_from_bytes(data, policy=email.policy.default)
    r = _Reader(limits, 0)
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
    r = _Reader(limits, depth)
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
