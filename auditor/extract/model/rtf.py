"""The RTF reader's model (:mod:`auditor.extract.legacy`: striprtf, with footnotes, headers,
footers and text boxes read after the body).

Modelled: the control words of :data:`WORDS` (text, paragraphs, tables, lists, character and
paragraph formatting that draws the same words in the same order, section and document
settings, fields whose result is read); the destinations the reader reads (:data:`READ`) and
those it skips that draw no text (:data:`INERT`: font, colour and style tables, document
properties, list definitions, pictures, field codes, bookmarks, comments, themes).

Outside (each named): a control word not listed, a destination the reader skips that draws
something (``\\object``, an equation, ``\\do`` drawing objects, an unknown ``\\*`` destination),
hidden text ``\\v`` and deletions (also refused as ``rtf-hidden``), text squeezed
(``\\charscalex``, ``\\expnd``), lifted (``\\up``, ``\\dn``), set under 3 pt or vertically, many text
boxes or frames placed by position, text the colour of a background.
"""

from __future__ import annotations

import re

from auditor.extract.model import Outside
from auditor.extract.model.odf import PLACED_FRAMES, same_colour

#: Control words the reader models (it reads text and breaks; the rest draws the same words in
#: the same order, or holds settings that draw none).
WORDS = frozenset("""
rtf ansi mac pc pca ansicpg deff adeff deflang deflangfe adeflang uc u upr ud par pard line tab cell row
nestcell nestrow nesttableprops nonesttables sect sectd page column plain emdash endash emspace enspace
qmspace bullet lquote rquote ldblquote rdblquote zwj zwnj ltrmark rtlmark zwbo zwnbo
b i ul ulc uld uldb uldash uldashd uldashdd ulhair ulnone ulth ulthd ulw ulwave uldbwave ulthdash
ulthdashd ulthdashdd ulthldash ulldash ululdbwave strike striked caps scaps outl shad embo impr f fs af
afs ab ai aul alang lang langfe langnp langfenp noproof loch hich dbch rtlch ltrch kerning cf cb
highlight chcbpat chcfpat chshdng chbrdr super sub nosupersub charscalex expnd expndtw up dn cs fcs
accnone accdot acccomma acccircle accunderdot animtext chyperlink ctint cshade insrsid charrsid
revised revauth revdttm revauthdel revdttmdel crauth crdate
s ql qr qc qj qd fi li ri lin rin sa sb sl slmult saauto sbauto keep keepn widctlpar nowidctlpar
hyphpar intbl itap ilvl ls outlinelevel pagebb noline aspalpha aspnum faauto faroman fahang facenter
favar fafixed adjustright nosnaplinegrid contextualspace spv tx tqr tqc tqdec tldot tlhyph tlul tlth
tleq tb brdrt brdrb brdrl brdrr brdrbtw brdrbar box brdrs brdrth brdrsh brdrdb brdrdot brdrdash
brdrhair brdrinset brdroutset brdrtriple brdrtnthsg brdrthtnsg brdrtnthtnsg brdrwavy brdrnone brdrnil
brdrtbl brdrw brdrcf brsp cbpat cfpat shading pararsid pardirnatural partightenfactor ltrpar rtlpar
levelnumbers leveltext listtext pnlvlbody pndec pnucltr pnucrm pnlcltr pnlcrm pnstart pnindent pnhang
pnrnot pnlvlblt pnlvlcont pnf pnfs pnb pni pncaps pnscaps pnul pnuld pnuldb pnulnone pnqc pnql pnqr
pnsp pnprev pntxta pntxtb
trowd irow irowband trgaph trleft trql trqr trqc trrh trhdr trkeep trautofit trftsWidth trftsWidthA
trftsWidthB trwWidth trwWidthA trwWidthB trpaddl trpaddr trpaddt trpaddb trpaddfl trpaddfr trpaddft
trpaddfb trspdl trspdr trspdt trspdb trspdfl trspdfr trspdft trspdfb trbrdrt trbrdrb trbrdrl trbrdrr
trbrdrh trbrdrv trcbpat trcfpat trshdng tblind tblindtype tbllkhdrrows tbllkhdrcols tbllklastrow
tbllklastcol tbllknocolband tbllkbestfit tbllkshading tbllkborder tbllkfont tbllkcolor tblrsid
lastrow ltrrow rtlrow taflags cellx clbrdrt clbrdrb clbrdrl clbrdrr clcbpat clcfpat clshdng
clshdrawnil clpadl clpadr clpadt clpadb clpadfl clpadfr clpadft clpadfb clvertalt clvertalc clvertalb
clvmgf clvmrg clmgf clmrg clwWidth clftsWidth cltxlrtb clhidemark clheight clNoWrap clFitText gaph
ts tsrowd tsvertalt tsbrdrt tsbrdrb tsbrdrl tsbrdrr tsbrdrh tsbrdrv tsbrdrdgl tsbrdrdgr
paperw paperh margl margr margt margb gutter margmirror landscape facingp deftab widowctrl ftnbj
ftnnar ftnstart ftnrstcont ftnrstpg aenddoc aftnnar aftnnrlc aftnrstcont aftnstart formshade
viewkind viewscale viewzk vieww viewh fet endnhere sbknone sbkpage sbkcol sbkodd sbkeven pgwsxn pghsxn
marglsxn margrsxn margtsxn margbsxn guttersxn lndscpsxn titlepg headery footery pgnstarts pgndec
pgnucrm pgnlcrm pgnucltr pgnlcltr pgncont pgnrestart linex linemod linestarts linerestart lineppage
linecont cols colsx colno colsr colw linebetcol ltrsect rtlsect sectunlocked sectrsid sectdefaultcl
sectlinegrid sectspecifyl sftnbj sftnnar saftnnar saftnnrlc sftnrstpg sftnrstcont saftnrstcont
pgbrdrhead pgbrdrfoot pgbrdropt pgbrdrt pgbrdrb pgbrdrl pgbrdrr
field fldinst fldrslt fldlock flddirty fldedit fldpriv footnote ftnalt chftn chftnsep chftnsepc
chpgn chdate chtime chdpl chdpa bkmkstart bkmkend
fonttbl fcharset fprq fnil froman fswiss fmodern fscript fdecor ftech fbidi falt panose fname fbias
fttruetype ftnil fontemb fontfile cpg flomajor fhimajor fdbmajor fbimajor flominor fhiminor fdbminor
fbiminor colortbl red green blue ctextone ctexttwo cbackgroundone cbackgroundtwo caccentone caccenttwo
caccentthree caccentfour caccentfive caccentsix chyperlink cfollowedhyperlink cmaindarkone
cmaindarktwo cmainlightone cmainlighttwo expandedcolortbl cssrgb csgray
stylesheet sbasedon snext slink sautoupd shidden slocked ssemihidden sunhideused sqformat spriority
styrsid additive sreply spersonal scompose
info title subject author operator keywords comment doccomm company manager category hlinkbase
creatim revtim printim buptim yr mo dy hr min sec version vern edmins nofpages nofwords nofchars
nofcharsws id userprops propname proptype staticval linkval docvar generator
listtable list listid listtemplateid listhybrid listsimple listrestarthdn listname liststyleid
listlevel levelnfc levelnfcn leveljc leveljcn levelfollow levelstartat levelspace levelindent
leveltemplateid levellegal levelnorestart levelold levelprev levelprevspace lvltentative
listoverridetable listoverride listoverridecount listoverridestartat listoverrideformat lfolevel
ls listpicture pnseclvl pn
pict picprop picscalex picscaley piccropl piccropr piccropt piccropb picw pich picwgoal pichgoal
picbmp picbpp wmetafile emfblip pngblip jpegblip macpict dibitmap wbitmap wbmbitspixel wbmplanes
wbmwidthbytes bliptag blipuid blipupi bin shppict nonshppict defshp sp sn sv
rsidtbl rsid rsidroot mmathPr mmathFont mbrkBin mbrkBinSub msmallFrac mdispDef mlMargin mrMargin
mdefJc mwrapIndent mwrapRight mintLim mnaryLim minterSp mintraSp mpostSp mpreSp latentstyles
lsdstimax lsdlockeddef lsdsemihiddendef lsdunhideuseddef lsdqformatdef lsdprioritydef lsdlockedexcept
lsdsemihidden lsdunhideused lsdqformat lsdpriority lsdlocked themedata colorschememapping datastore
xmlnstbl xmlns defchp defpap wgrffmtfilter themelang themelangfe themelangcs stshfdbch stshfloch
stshfhich stshfbi fchars lchars
annotation atnid atnauthor atndate atnicn atnparent atnref atntime atrfstart atrfend
ftnsep ftnsepc aftnsep aftnsepc aftnsepc revtbl revprop pgdsctbl pgdsc pgdscuse pgdscnxt pgdscno
htmautsp noxlattoyen expshrtn noultrlspc dntblnsbdb nospaceforul nolnhtadjtbl noqfpromote wrapdefault
donotembedsysfont relyonvml donotembedlingdata grfdocevents showplaceholdtext ignoremixedcontent
saveinvalidxml horzdoc ilfomacatclnup validatexml showxmlerrors trackmoves trackformatting
dghspace dgvspace dghorigin dgvorigin dghshow dgvshow dgmargin jexpand jcompress splytwnine
ftnlytwnine useltbaln alntblind lytcalctblwd lyttblrtgr lnbrkrule nobrkwrptbl snaptogridincell
allowfieldendsel wrppunct asianbrkrule nouicompat nofeaturethrottle newtblstyruls nogrowautofit
usenormstyforlist noindnmbrts felnbrelev nocxsptable indrlsweleven noafcnsttbl afelev hwelev
spltpgpar notcvasp notbrkcnstfrctbl notvatxbx krnprsnet cachedcolbal hyphauto hyphcaps hyphhotz
hyphconsec psz cgrid jclisttab lytexcttp lnongrid nojkernpunct formprot rempersonalinfo
donotshowmarkup utinl yts cocoartf cocoasubrtf cocoaplatform cocoatextscaling fromtext pardeftab
abitableprops abicellprops abiendcell abiendtable abinodiroverride updnprop pgptbl pgp ipgp rdf
listtag datafield svb c
""".split())  # noqa: SIM905
#: Destinations the reader reads (with a body of their own: notes, headers, footers, field
#: results, text boxes), whose control words are checked as the body's.
READ = frozenset("""
rtf footnote header headerl headerr headerf footer footerl footerr footerf fldrslt field shptxt
listtext
""".split())  # noqa: SIM905
#: The style sheet and its styles: their control words format the text and are checked as the
#: body's; their text is the styles' names, never drawn.
STYLES = frozenset(["stylesheet", "cs", "ts"])
#: Destinations the reader skips that draw no text (tables of fonts, colours and lists,
#: properties, pictures, field codes, bookmarks, comments, settings).
INERT = frozenset("""
fonttbl colortbl info title subject author operator keywords comment doccomm company manager category
hlinkbase creatim revtim printim buptim userprops propname staticval docvar generator listtable list
listlevel leveltext levelnumbers listname listoverridetable listoverride lfolevel listpicture
pnseclvl pn pntxta pntxtb pntext pict picprop blipuid shppict nonshppict sp sn sv fldinst bkmkstart
bkmkend annotation atnid atnauthor atndate atnicn atnparent atnref atntime atrfstart atrfend ftnsep
ftnsepc aftnsep aftnsepc revtbl rsidtbl latentstyles lsdlockedexcept themedata colorschememapping
datastore xmlnstbl defchp defpap falt panose fname flomajor fhimajor fdbmajor fbimajor flominor
fhiminor fdbminor fbiminor wgrffmtfilter mmathPr expandedcolortbl fchars lchars pgdsctbl pgdsc
listtag rdf pgptbl pgp abitableprops abicellprops abiendcell abiendtable updnprop datafield svb
upr ud tc xe txe rxe ffdeftext ffformat ffhelptext ffl ffname ffstattext formfield fontemb fontfile
fldtype generator pgdscno nesttableprops background
""".split())  # noqa: SIM905
#: shapes and their parts: read where their text box is (``\\shptxt``), otherwise pictures
SHAPE = frozenset(["shp", "shpinst", "shprslt", "shpgrp"])
_TOKEN = re.compile(r"\\bin(\d{1,9}) ?|\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'[0-9a-fA-F]{2}|\\([^a-zA-Z])|([{}])")
_VERTICAL = frozenset({"cltxtbrl", "cltxbtlr", "cltxlrtbv", "cltxtbrlv", "stextflow", "frmtxtbrl", "frmtxbtlr",
                       "frmtxlrtbv", "frmtxtbrlv", "horzvert"})
_POSITIONED = frozenset({"posy", "posyt", "posyb", "posyc", "posyin", "posyout", "posyil", "pvpg"})


def check(rtf: str, outside: Outside) -> None:
    """Name the control words and destinations of an RTF document outside the model."""
    stack: list[tuple[str, int]] = []  # per open group: what it is ("read", "style", "inert", "shape"), font size
    state, size = "read", 24
    fresh = star = False
    placed = 0
    colours: set[int] = set()
    backgrounds: set[int] = set()
    table: list[str | None] = []
    i, n = 0, len(rtf)
    while i < n:
        m = _TOKEN.search(rtf, i)
        text = rtf[i:m.start() if m else n]
        if size < _MIN_SIZE and state == "read" and text.strip() and stack:
            outside.add("rtf", f"text set under 3 pt (\\fs{size})")
        if not m:
            break
        i = m.end()
        if m.group(1):
            i += int(m.group(1))  # binary data of a picture
            continue
        word, arg, sym, brace = m.group(2), m.group(3), m.group(4), m.group(5)
        if brace == "{":
            stack.append((state, size))
            fresh, star = True, False
            continue
        if brace == "}":
            state, size = stack.pop() if stack else ("read", 24)
            fresh = star = False
            continue
        if sym == "*" and fresh:
            star = True
            continue
        if not word:
            if m.group(0).startswith("\\'") and size < _MIN_SIZE and state == "read" and stack:
                outside.add("rtf", f"text set under 3 pt (\\fs{size})")
            fresh = False
            continue
        if fresh and state == "shape":
            if word == "shptxt":
                state = "read"
                placed += 1
        elif fresh and state != "inert":
            if word in INERT:
                state = "inert"
            elif word in SHAPE:
                state = "shape"
            elif word in STYLES:
                state = "style"
            elif word in READ:
                state = "read"
                placed += word == "shptxt"
            elif star or word in _SKIPPED:
                name = ("\\*\\" if star else "\\") + word
                outside.add("rtf", f"destination {name} (the reader skips it; a reader may see it)")
                state = "inert"
        fresh = star = False
        if state == "inert" or state == "shape":
            if word == "colortbl":
                table = _colour_table(rtf, i)
            continue
        _word(word, arg, outside, colours, backgrounds)
        placed += word in _POSITIONED
        if word == "fs":
            size = int(arg) if arg else 24
        elif word == "plain":
            size = 24
        elif word == "u" and size < _MIN_SIZE and state == "read" and stack:
            outside.add("rtf", f"text set under 3 pt (\\fs{size})")
    if placed > PLACED_FRAMES:
        outside.add("rtf", f"{placed} text boxes or frames placed by position: the reader cannot tell their order")
    page = _page_colour(rtf)
    if page:
        table.append(page)
        backgrounds.add(len(table))
    for c in sorted(colours):
        for b in sorted(backgrounds):
            cc = table[c - 1] if 0 < c <= len(table) else None
            bb = table[b - 1] if 0 < b <= len(table) else None
            if cc and bb and same_colour(cc, bb) and not cc == bb == "FFFFFF":  # white: rtf-hidden
                outside.add("rtf", f"text coloured \\cf{c} (#{cc}) on a paragraph, cell or page background of that "
                            "colour: the reader does not place text on its background")


def _word(word: str, arg: str | None, outside: Outside, colours: set[int], backgrounds: set[int]) -> None:
    value = int(arg) if arg else None
    if word not in _KNOWN:
        outside.add("rtf", f"control word \\{word}")
    elif word in _HIDDEN and value != 0:
        outside.add("rtf", f"hidden text or a deletion (\\{word})")
    elif word in _VERTICAL and value != 0:
        outside.add("rtf", f"text set vertically (\\{word})")
    elif word == "charscalex" and value is not None and value < 50:
        outside.add("rtf", f"text squeezed to {value}% of its width (\\charscalex)")
    elif (word == "expnd" and (value or 0) < -8) or (word == "expndtw" and (value or 0) < -40):
        outside.add("rtf", f"letters squeezed together (\\{word})")
    elif word in ("up", "dn") and (value or 6) > 24:
        outside.add("rtf", f"text lifted or lowered by more than 12 points (\\{word})")
    elif word == "cf" and value:
        colours.add(value)
    elif word in ("cb", "highlight", "chcbpat", "cbpat", "clcbpat", "trcbpat") and value:
        backgrounds.add(value)


_HIDDEN = frozenset({"v", "deleted", "webhidden"})
_MIN_SIZE = 6  # half-points: under 3 pt
_KNOWN = WORDS | READ | INERT | SHAPE | STYLES | _VERTICAL | _POSITIONED | _HIDDEN
#: destinations striprtf skips that draw something: outside unless listed as inert
_SKIPPED = frozenset("""
object objdata objclass objname result do dptxbxtext background mmath moMath moMathPara htmltag
mhtmltag private g hl hlfr hlloc hlsrc xform
""".split())  # noqa: SIM905


def _colour_table(rtf: str, start: int) -> list[str | None]:
    """The entries of ``\\colortbl`` from ``start`` (after the word) as RRGGBB (None: auto)."""
    end = rtf.find("}", start)
    out: list[str | None] = []
    for entry in rtf[start:end].split(";")[1:]:
        parts = {k: int(v) for k, v in re.findall(r"\\(red|green|blue)(\d{1,3})", entry)}
        out.append("".join(f"{min(parts.get(k, 0), 255):02X}" for k in ("red", "green", "blue")) if parts else None)
    return out


def _page_colour(rtf: str) -> str | None:
    """The page colour of ``{\\*\\background {\\shp ... fillColor}}`` as RRGGBB (RTF writes
    the shape's colour as a number, blue in the high byte)."""
    at = rtf.find("\\background")
    m = re.search(r"\\sn\s+fillColor\s*\}\s*\{\s*\\sv\s+(\d{1,9})", rtf[at:at + 4000]) if at >= 0 else None
    if not m:
        return None
    v = int(m.group(1))
    return f"{v & 0xFF:02X}{(v >> 8) & 0xFF:02X}{(v >> 16) & 0xFF:02X}"
