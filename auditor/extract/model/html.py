"""The HTML reader's model (:mod:`auditor.extract.html`): the elements and attributes whose effect
on what a browser draws it reproduces.

An element is modelled when it is in :data:`ELEMENTS`, or when no browser knows its name (not in
:data:`KNOWN`): a browser draws an unknown element (``ix:nonNumeric``, ``o:p``) as an inline box
around its content, which is the reader's default. A valid custom element name (a hyphen, no
colon) is modelled only in a page without scripts: a script can give it a shadow tree. An element
a browser knows and the reader does not model (``slot``, ``canvas``, ``applet``) is outside the
model.

An attribute is modelled when it is a global one of :data:`GLOBAL`, one of its element's in
:data:`ATTRIBUTES`, ``data-*``, ``aria-*``, an event handler (scripts are not run: what they
write is checked by :mod:`auditor.extract.scripts`), a namespace declaration or prefixed name,
any attribute of an element no browser knows but the global ones, any attribute no browser
knows (not in :data:`KNOWN_ATTRIBUTES`: a browser draws nothing for it; a style sheet's attribute
selectors and ``attr()`` are evaluated by the cascade), or one of :data:`OWNERS` on an element
that does not own it. Every other attribute is outside the model.
"""

from __future__ import annotations

import re

#: Every element the HTML Living Standard defines, with the obsolete ones browsers still parse.
KNOWN = frozenset("""
a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption cite
code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption
figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label
legend li link main map mark math menu meta meter nav noscript object ol optgroup option output p
param picture pre progress q rp rt ruby s samp script search section select selectedcontent slot
small source span strong style sub summary sup svg table tbody td template textarea tfoot th thead
time title tr track u ul var video wbr acronym applet basefont bgsound big blink center dir font
frame frameset image isindex keygen listing marquee menuitem multicol nextid nobr noembed noframes
plaintext portal rb rtc spacer strike tt xmp
""".split())  # noqa: SIM905

#: The elements the reader models: drawn as blocks, cells, inline text, replaced content (images
#: by their alt text, form fields by their values, frames and objects by their data: documents),
#: hidden (head content, templates, closed details, unselected options, what an audio or video
#: player holds: a player draws its pictures, never its fallback), or a drawing (svg, math). A
#: ``<marquee>`` stays outside: its box clips what scrolls through it, and a box sized by CSS
#: could show a reader none of its words.
ELEMENTS = frozenset("""
a abbr address area article aside audio b base bdi bdo blockquote body br button caption cite code col
colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure
footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li
link main map mark math menu meta meter nav noscript object ol optgroup option output p param
picture pre progress q rp rt ruby s samp script search section select small source span strong style
sub summary sup svg table tbody td template textarea tfoot th thead time title tr u ul var wbr
acronym basefont big center dir font frame frameset image listing nobr noembed noframes plaintext rb
strike tt xmp video track
""".split())  # noqa: SIM905

#: Attributes of every element whose effect the reader models (``hidden``, ``dir``, ``style``,
#: ``lang`` for quotes) or that draw nothing (identity, links, tooltips read in all-text, RDFa's
#: metadata: ``property``, ``content``, ``typeof``; a style sheet's ``attr()`` is the cascade's).
GLOBAL = frozenset("""
accesskey autocapitalize autocorrect autofocus class contenteditable dir draggable enterkeyhint
hidden id inert inputmode itemid itemprop itemref itemscope itemtype lang nonce spellcheck style
tabindex title translate writingsuggestions xmlns role name is slot
about content datatype inlist prefix property resource typeof vocab
""".split())  # noqa: SIM905

#: Every global attribute a browser acts on; those not in :data:`GLOBAL` are outside the model
#: (``popover``: hidden until a script or a button opens it).
KNOWN_GLOBAL = GLOBAL | frozenset(
    "popover part exportparts virtualkeyboardpolicy anchor headingoffset headingreset".split())  # noqa: SIM905

_TABLE = ["align", "valign", "width", "height", "bgcolor", "border", "char", "charoff", "nowrap", "background"]
#: Per element, the attributes the reader models (presentational hints it applies, or that do not
#: change which words are drawn or their order: sizes, borders, alignment, links, form state).
ATTRIBUTES: dict[str, frozenset[str]] = {k: frozenset(v.split()) for k, v in {
    "a": "href target rel rev download hreflang type referrerpolicy ping charset coords shape alt",
    "audio": "src controls controlslist autoplay loop muted preload crossorigin",
    "area": "alt coords shape href target rel download referrerpolicy nohref ping",
    "base": "href target",
    "basefont": "color face size",
    "blockquote": "cite type",
    "body": "bgcolor background alink link vlink text leftmargin topmargin marginwidth marginheight onload",
    "br": "clear",
    "button": "type value disabled form formaction formenctype formmethod formnovalidate formtarget "
              "popovertarget popovertargetaction command commandfor",
    "caption": "align",
    "col": "span " + " ".join(_TABLE),
    "colgroup": "span " + " ".join(_TABLE),
    "data": "value",
    "del": "cite datetime",
    "details": "open",
    "dialog": "open",
    "dir": "compact",
    "div": "align",
    "dl": "compact",
    "embed": "src type width height align hspace vspace",
    "fieldset": "disabled form",
    "font": "color face size",
    "form": "action method enctype accept-charset autocomplete novalidate target rel",
    "frame": "src name frameborder scrolling noresize marginwidth marginheight longdesc",
    "frameset": "rows cols border frameborder framespacing",
    "h1": "align", "h2": "align", "h3": "align", "h4": "align", "h5": "align", "h6": "align",
    "head": "profile",
    "hr": "align color noshade size width",
    "html": "version manifest xml:lang",
    "iframe": "src srcdoc width height allow allowfullscreen loading referrerpolicy sandbox frameborder "
              "scrolling marginwidth marginheight align longdesc hspace vspace",
    "img": "src alt srcset sizes width height loading decoding crossorigin referrerpolicy usemap ismap "
           "fetchpriority align border hspace vspace longdesc lowsrc",
    "input": "type value placeholder checked disabled readonly required size maxlength minlength min max "
             "step pattern list multiple form autocomplete accept alt src width height formaction "
             "formenctype formmethod formnovalidate formtarget dirname align border hspace vspace",
    "ins": "cite datetime",
    "label": "for form",
    "legend": "align",
    "li": "value type",
    "link": "href rel type media sizes crossorigin integrity referrerpolicy as hreflang charset "
            "disabled blocking fetchpriority color imagesrcset imagesizes rev",
    "map": "name",
    "menu": "compact",
    "meta": "content http-equiv charset scheme media property",
    "meter": "value min max low high optimum",
    "object": "data type width height name form usemap typemustmatch align border hspace vspace "
              "classid codebase codetype declare standby archive",
    "ol": "start reversed type compact",
    "optgroup": "label disabled",
    "option": "value label selected disabled",
    "output": "for form",
    "p": "align",
    "param": "value valuetype type",
    "pre": "width wrap",
    "progress": "value max",
    "q": "cite",
    "script": "src type async defer crossorigin integrity nomodule referrerpolicy charset language event "
              "for blocking fetchpriority",
    "select": "multiple size disabled required form autocomplete",
    "source": "src srcset sizes type media width height",
    "style": "media type blocking",
    "table": "summary cellpadding cellspacing frame rules datapagesize hspace vspace " + " ".join(_TABLE),
    "tbody": " ".join(_TABLE), "thead": " ".join(_TABLE), "tfoot": " ".join(_TABLE),
    "td": "colspan rowspan headers scope abbr axis " + " ".join(_TABLE),
    "th": "colspan rowspan headers scope abbr axis " + " ".join(_TABLE),
    "tr": " ".join(_TABLE),
    "template": "",
    "textarea": "rows cols placeholder disabled readonly required maxlength minlength wrap form "
                "autocomplete dirname",
    "time": "datetime",
    "ul": "type compact",
    "video": "src controls controlslist autoplay loop muted preload crossorigin width height poster playsinline "
             "disablepictureinpicture disableremoteplayback",
    "track": "src kind srclang label",
}.items()}


#: Attributes of the HTML standard (and the obsolete ones browsers still act on) that the model
#: leaves out for some or all elements: on an element of :data:`KNOWN`, one of these outside its
#: :data:`ATTRIBUTES` is outside the model. An attribute no browser knows draws nothing.
SPEC_ONLY = frozenset("""
shadowrootmode shadowrootdelegatesfocus shadowrootclonable shadowrootserializable popovertarget
popovertargetaction autoplay controls controlslist loop muted poster playsinline preload kind srclang
default behavior direction scrollamount scrolldelay truespeed bgproperties
""".split())  # noqa: SIM905 (a list of names, kept as words)
KNOWN_ATTRIBUTES = KNOWN_GLOBAL | SPEC_ONLY | frozenset().union(*ATTRIBUTES.values())

#: Attributes a browser acts on only for some elements (their owners, from the HTML standard's
#: rendering section and its obsolete features). On any other element a browser draws nothing for
#: them; on an owner they are modelled only where :data:`ATTRIBUTES` gives them to it. Court
#: pages put ``alt`` on spans, ``scope`` on rows, ``nowrap`` on divisions, ``width`` on links
#: (a cell's markup left inside a broken ``<a>`` tag), ``cols`` on tables, ``size`` on icon links
#: and ``type`` on labels.
OWNERS: dict[str, frozenset[str]] = {k: frozenset(v.split()) for k, v in {
    "alt": "img area input applet",
    "scope": "th td",
    "span": "col colgroup",
    "text": "body",
    "wrap": "textarea pre",
    "nowrap": "td th",
    "for": "label output script",
    "href": "a area base link",
    "rel": "a area link form",
    "charset": "meta script link a",
    "width": "img iframe embed object video canvas table col colgroup tbody thead tfoot tr td th hr pre "
             "input marquee applet source image",
    "height": "img iframe embed object video canvas table col colgroup tbody thead tfoot tr td th hr pre "
              "input marquee applet source image",
    "size": "input select hr font basefont",
    "cols": "textarea frameset",
    "type": "a button input li ol ul link script style source object embed param blockquote menu menuitem "
            "textarea select",
}.items()}


#: A valid custom element name (HTML, "valid custom element name"): a lower-case ASCII letter
#: first, a hyphen, and no colon or upper-case ASCII letter. Only such an element can be defined
#: by a script, and given a shadow tree; ``gcse:searchbox-only`` (Google's search box, which its
#: script fills in as any script writes a page) cannot.
_CUSTOM = re.compile(r"^[a-z][^\x00-\x2c\x2f\x3a-\x5e\x60\x7b-\x7f\s]*$")


def element_modelled(tag: str, scripted: bool) -> bool:
    """Whether the reader models an HTML element of this (lower-case) name: one no browser knows
    is drawn inline around its content, unless a script can define it (a custom element)."""
    if tag in ELEMENTS:
        return True
    if tag in KNOWN:
        return False
    return not scripted or "-" not in tag or not _CUSTOM.match(tag)


def attribute_modelled(tag: str, name: str) -> bool:
    """Whether the reader models the attribute ``name`` (lower case) of an HTML element ``tag``."""
    if name in GLOBAL or name.startswith(("data-", "aria-", "on", "xmlns")) or ":" in name:
        return True
    if tag not in KNOWN:
        return name not in KNOWN_GLOBAL  # a browser acts on no other attribute of an element it does not know
    if name in ATTRIBUTES.get(tag, ()) or name not in KNOWN_ATTRIBUTES:
        return True
    owners = OWNERS.get(name)
    return owners is not None and tag not in owners
