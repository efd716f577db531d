"""What a user trips on (issue 39, "the small things"), each through the command line: sources in
findings, reports and stats; what cannot be audited counted at ingest; `show` by file name and
for a failed file; `query -`; a fix with every refusal; a family said in words; the
side-by-side view over every span; the letter-spacing notice only where it changed the words."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import cli
from tests.support import synth
from tests.support.realtext import licence, paragraphs
from tests.support.textgen import write_contract_in_filing


def run(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


def letter_spaced(text: str) -> str:
    """Text as a reader sees it in wide letter spacing, with no wider gaps between the words."""
    return " ".join(text.replace(" ", ""))


@pytest.fixture(scope="module")
def court(tmp_path_factory):
    """Two sources ingested with their labels (no --batch, so the batches are named by hashes):
    court-pdf holds a contract inside a filing, a damaged PDF, a damaged WordPerfect file, binary
    data, a text too short to audit and a letter-spaced one; doctor-pdf holds the Apache licence quoted whole in a brief,
    and another contract.txt."""
    d = tmp_path_factory.mktemp("court")
    court, doctor = d / "court", d / "doctor"
    write_contract_in_filing(court, 81)
    (court / "broken.pdf").write_bytes(b"%PDF-1.7\n" + bytes(100))
    (court / "memo.wpd").write_bytes(b"\xffWPC" + bytes(range(256)) * 20)  # WordPerfect's magic bytes
    (court / "blob.dat").write_bytes(bytes(range(1, 32)) * 200)  # control characters, no format
    (court / "short.txt").write_text("Exhibit four.\n")
    (court / "spaced.txt").write_text(letter_spaced(paragraphs(licence("MPL-2.0"))[2]) + "\n")
    apache = licence("Apache-2.0")
    (doctor / "notes").mkdir(parents=True)
    (doctor / "apache.txt").write_text(apache)
    (doctor / "brief.txt").write_text(synth.contract(90, 9_000) + "\n\n" + apache + "\n\n" + synth.contract(91, 6_000))
    (doctor / "notes" / "contract.txt").write_text(synth.contract(92, 8_000))
    db = d / "c.db"
    ingested = {}
    for source, where in (("court-pdf", court), ("doctor-pdf", doctor)):
        r = run("ingest", "--db", db, "--source", source, "--json", where)
        assert r.exit_code == 0, r.output
        ingested[source] = json.loads(r.stdout)
    r = run("audit", "--db", db, "--out", d / "rep")
    assert r.exit_code == 0, r.output
    return {"db": db, "dir": d, "court": court, "doctor": doctor, "ingested": ingested, "rep": d / "rep",
            "audit": r.stdout}


def names(rows: list[dict]) -> set[tuple[str, str]]:
    return {(Path(r["contained"]).name, Path(r["container"]).name) for r in rows}


# -- 1. sources ---------------------------------------------------------------------------------

def test_findings_name_and_filter_on_sources(court):
    db = court["db"]
    every = json.loads(run("findings", "--db", db, "--format", "json").stdout)
    assert {("contract.txt", "filing.txt"), ("apache.txt", "brief.txt")} <= names(every)
    pair = next(r for r in every if Path(r["contained"]).name == "apache.txt")
    assert pair["contained_sources"] == pair["container_sources"] == ["doctor-pdf"]
    doctor = json.loads(run("findings", "--db", db, "--source", "doctor-pdf", "--format", "json").stdout)
    assert names(doctor) == {("apache.txt", "brief.txt")}  # the court's pair is not the doctor's
    court_pairs = json.loads(run("findings", "--db", db, "--source", "court-pdf", "--format", "json").stdout)
    assert ("contract.txt", "filing.txt") in names(court_pairs) and ("apache.txt", "brief.txt") not in names(court_pairs)
    table = run("findings", "--db", db, "--source", "doctor-pdf")
    assert table.exit_code == 0 and "[doctor-pdf]" in table.stdout and "filing.txt" not in table.stdout
    rows = list(csv.DictReader(io.StringIO(run("findings", "--db", db, "--format", "csv").stdout)))
    assert {r["contained_sources"] for r in rows} == {"court-pdf", "doctor-pdf"}
    unknown = run("findings", "--db", db, "--source", "nobody")
    assert unknown.exit_code == 2 and "'court-pdf', 'doctor-pdf'" in unknown.stderr
    # the label given as a batch: it is not one (batches are named by hashes), and the error says what to type
    batch = run("findings", "--db", db, "--batch", "doctor-pdf")
    assert batch.exit_code == 2 and "--source doctor-pdf" in batch.stderr


@pytest.mark.slow
def test_reports_and_stats_name_the_sources_and_verify_still_holds(court):
    rep, db = court["rep"], court["db"]
    report = json.loads((rep / "report.json").read_text())
    by_name = {Path(d["path"]).name: d for d in report["documents"].values()}
    assert by_name["apache.txt"]["sources"] == ["doctor-pdf"] and by_name["filing.txt"]["sources"] == ["court-pdf"]
    md, html = (rep / "report.md").read_text(), (rep / "report.html").read_text()
    for text in (md, html):
        assert "source doctor-pdf" in text and "source court-pdf" in text
    s = json.loads(run("stats", "--db", db, "--json").stdout)
    by_source = {r["source"]: r for r in s["by_source"]}
    assert by_source["doctor-pdf"]["documents"] == 3 and by_source["doctor-pdf"]["failed"] == 0
    assert by_source["court-pdf"]["failed"] == 3 and by_source["court-pdf"]["not_auditable"] == 2
    assert {b["source"] for b in s["by_batch"]} == {"court-pdf", "doctor-pdf"}
    assert "by source" in run("stats", "--db", db).stdout
    v = run("verify", rep, "--db", db)
    assert v.exit_code == 0 and "verified" in v.stdout


# -- 2. what cannot be audited, at ingest -------------------------------------------------------

def test_ingest_counts_what_cannot_be_audited_apart_from_ok(court, tmp_path):
    out = court["ingested"]["court-pdf"]
    assert out["counts"]["ok"] == 3 and out["counts"]["not_auditable"] == 2 and out["counts"]["failed"] == 3
    why = {Path(p).name: reason for p, reason in out["not_auditable"]}
    assert set(why) == {"short.txt", "spaced.txt"}
    assert why["short.txt"].startswith("too short") and "letter-spaced" in why["spaced.txt"]
    assert court["ingested"]["doctor-pdf"]["counts"]["not_auditable"] == 0  # every one of them is read
    again = tmp_path / "src"
    again.mkdir()
    (again / "short.txt").write_text("Exhibit four.\n")
    (again / "contract.txt").write_text(synth.contract(7, 6_000))
    r = run("ingest", "--db", tmp_path / "n.db", again)
    assert r.exit_code == 0 and "ok=1 not_auditable=1 " in r.stdout
    assert "not auditable" in r.stderr and "short.txt" in r.stderr
    # and the audit says the same of them
    [line] = [ln for ln in court["audit"].splitlines() if "at >= 0.8 (" in ln]
    assert ", 2 not auditable, " in line


# -- 3. show ------------------------------------------------------------------------------------

def test_show_finds_a_unique_name_lists_an_ambiguous_one_and_explains_a_failed_file(court):
    db = court["db"]
    r = run("show", "--db", db, "apache.txt")
    assert r.exit_code == 0 and re.match(r"document \d+: \S+/doctor/apache\.txt", r.stdout)
    assert run("show", "--db", db, "court/filing.txt").exit_code == 0  # the end of a path
    both = run("show", "--db", db, "contract.txt")
    assert both.exit_code == 2 and "names 2 stored documents" in both.stderr
    assert "court/contract.txt" in both.stderr and "doctor/notes/contract.txt" in both.stderr
    assert run("show", "--db", db, "notes/contract.txt").exit_code == 0  # a longer path tells them apart
    failed = run("show", "--db", db, "memo.wpd")
    assert failed.exit_code == 1 and "no stored document" not in failed.output
    # wpd2text cannot read it (or is not installed): either way the reason, then what to do
    assert re.search(r"memo\.wpd failed to ingest \((convert_error|converter_missing)\): .*WordPerfect.*; fix: ",
                     failed.stdout) and "source court-pdf" in failed.stdout
    binary = run("show", "--db", db, "blob.dat")
    assert binary.exit_code == 1 and "failed to ingest (binary): binary data" in binary.stdout
    assert "WordPerfect" in binary.stdout  # the fix names what such data often is
    as_json = json.loads(run("show", "--db", db, "--json", "broken.pdf").stdout)
    assert as_json["stored"] is False and as_json["failures"][0]["code"] == "pdf_error"
    assert "complete copy" in as_json["failures"][0]["fix"]  # a header and nothing else: cut short
    nothing = run("show", "--db", db, "nothing-here.pdf")
    assert nothing.exit_code == 2 and "no stored document matches" in nothing.stderr
    assert run("show", "--db", db, ".txt").exit_code == 2  # a name ends at a path separator, not anywhere


# -- 4. query - ---------------------------------------------------------------------------------

def test_query_reads_standard_input(court):
    db = court["db"]
    contract = (court["court"] / "contract.txt").read_text()
    r = run("query", "--db", db, "--json", "-", input=contract[:9000])
    assert r.exit_code == 0, r.output
    [answer] = json.loads(r.stdout)
    assert answer["file"] == "-" and answer["error"] is None
    assert {Path(m["document"]["path"]).name for m in answer["matches"]} == {"contract.txt", "filing.txt"}
    assert answer["matches"][0]["document"]["sources"] == ["court-pdf"]
    other = run("query", "--db", db, "-", input=synth.contract(300, 6_000))
    assert other.exit_code == 0 and "no stored document contains it" in other.stdout


# -- 5. every refusal names its fix ----------------------------------------------------------------

def test_every_refusal_the_user_meets_names_its_fix(court):
    db = court["db"]
    for path, code, message in court["ingested"]["court-pdf"]["problems"]:
        assert "; fix: " in message, (path, code, message)
    s = json.loads(run("stats", "--db", db, "--json").stdout)
    assert {r["code"] for r in s["failures_by_code"]} - {"convert_error", "converter_missing"} == {"binary", "pdf_error"}
    assert len(s["failures_by_code"]) == 3 and all(r["fix"] for r in s["failures_by_code"])
    assert "WordPerfect" in run("stats", "--db", db).stdout
    report = json.loads((court["rep"] / "report.json").read_text())
    assert all("; fix: " in f["message"] for f in report["failed_inputs"])
    spaced = next(x for x in report["not_auditable"] if "letter-spaced" in x["reason"])
    assert "; fix: " in spaced["reason"]  # a reason not to audit names what to do, too
    shown = run("show", "--db", db, "spaced.txt")
    assert "NOT AUDITABLE: text not readable: letter-spaced:" in shown.stdout and "fix: ingest" in shown.stdout


# -- 6. a family in words -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def spans_and_families(tmp_path_factory):
    """Real licence texts: the MPL and a copy of it with a clause added (a family: each contains
    the other); the GPL inside a bundle split by 30 KB of other licences (two spans far apart);
    the LGPL in a bundle that lacks one of its sections (a real difference)."""
    d = tmp_path_factory.mktemp("spans")
    src = d / "src"
    src.mkdir()
    mpl, gpl, lgpl = licence("MPL-2.0"), licence("GPL-3.0"), licence("LGPL-3.0")
    (src / "mpl.txt").write_text(mpl)
    (src / "mpl-annotated.txt").write_text(mpl + "\n\n" + paragraphs(licence("EPL-2.0"))[3])
    (src / "gpl.txt").write_text(gpl)
    cut = gpl.index("\n", len(gpl) // 2)
    (src / "gpl-bundle.txt").write_text(gpl[:cut] + "\n\n" + licence("CDDL-1.0") + "\n\n" + licence("EPL-2.0")
                                        + "\n\n" + gpl[cut:])
    (src / "lgpl.txt").write_text(lgpl)
    section = lgpl.index("2. Conveying Modified Versions."), lgpl.index("3. Object Code Incorporating")
    (src / "lgpl-bundle.txt").write_text(synth.contract(41, 8_000) + "\n\n" + lgpl[:section[0]]
                                         + lgpl[section[1]:] + "\n\n" + synth.contract(42, 8_000))
    for i in range(2):
        (src / f"other-{i}.txt").write_text(synth.contract(60 + i, 12_000))
    db = d / "s.db"
    assert run("ingest", "--db", db, "-q", src).exit_code == 0
    r = run("audit", "--db", db, "--out", d / "rep")
    assert r.exit_code == 0, r.output
    return {"db": db, "rep": d / "rep", "audit": r.stdout, "report": json.loads((d / "rep" / "report.json").read_text())}


def test_a_family_is_said_to_be_pairs_that_are_not_findings(spans_and_families, tmp_path):
    out, report = spans_and_families["audit"], spans_and_families["report"]
    fam = report["families"]
    assert len(fam) == 1 and report["summary"]["family_pairs"] == 2
    assert "inside 1 family: documents of a family contain one another, so they are listed as a family, " \
           "not as findings" in out
    md = (spans_and_families["rep"] / "report.md").read_text()
    assert "2 of them inside 1 family" in md.split("\n")[2]  # the headline, in the same words
    # a corpus with only a family: the two lines no longer contradict each other
    src = tmp_path / "src"
    src.mkdir()
    mpl = licence("MPL-2.0")
    (src / "mpl.txt").write_text(mpl)
    (src / "mpl-annotated.txt").write_text(mpl + "\n\n" + paragraphs(licence("EPL-2.0"))[3])
    for i in range(3):
        (src / f"other-{i}.txt").write_text(synth.contract(70 + i, 12_000))
    assert run("ingest", "--db", tmp_path / "f.db", "-q", src).exit_code == 0
    only = run("audit", "--db", tmp_path / "f.db", "--out", tmp_path / "rep")
    assert only.exit_code == 0, only.output
    assert "0 contained documents at >= 0.8 (2 containing pairs, both inside 1 family:" in only.stdout
    assert "no document is contained in another at >= 0.8, apart from the members of 1 family" in only.stdout


def test_without_a_family_the_pairs_are_findings(court):
    [line] = [ln for ln in court["audit"].splitlines() if "at >= 0.8 (" in ln]
    assert line.startswith("2 contained documents at >= 0.8 (2 containing pairs), ") and "0 families" in line
    report = json.loads((court["rep"] / "report.json").read_text())
    assert report["summary"]["family_pairs"] == 0 and report["summary"]["containing_pairs"] == 2


# -- 7. the side-by-side view covers every span ---------------------------------------------------

def _finding(report: dict, name: str) -> dict:
    return next(f for f in report["findings"] if Path(report["documents"][str(f["doc_id"])]["path"]).name == name)


def test_a_match_split_over_two_spans_is_aligned_with_both(spans_and_families):
    report = spans_and_families["report"]
    best = _finding(report, "gpl.txt")["best"][0]
    assert best["containment"] > 0.99 and len(best["spans"]) == 2
    al = best["alignment"]
    assert len(al["ranges"]) == 2 and al["outside"] > 4_000  # the other licences between, left out
    assert al["words"]["deleted"] == 0 and al["words"]["same"] == al["words"]["contained"]
    md = (spans_and_families["rep"] / "report.md").read_text()
    gpl_section = md[md.index("/gpl.txt`\n"):]
    summary = gpl_section.split("Side by side")[1].split("\n")[0]
    assert "in 2 spans at characters" in summary and "only in the contained document" not in summary


def test_a_real_difference_is_still_shown_as_one(spans_and_families):
    report = spans_and_families["report"]
    best = _finding(report, "lgpl.txt")["best"][0]
    assert Path(report["documents"][str(best["container"])]["path"]).name == "lgpl-bundle.txt"
    al = best["alignment"]
    assert "ranges" not in al and al["words"]["deleted"] > 50  # the section the bundle lacks
    md = (spans_and_families["rep"] / "report.md").read_text()
    section = md[md.index("lgpl.txt`\n"):]
    assert re.search(r"[\d,]+ only in the contained document", section.split("Side by side")[1].split("\n")[0])
    assert "~~2\\. Conveying Modified Versions." in section  # struck: only in the contained document


# -- 8. the letter-spacing notice --------------------------------------------------------------

def _pdf(body: str, heading: str = "", spacing: float = 0) -> bytes:
    """A justified PDF (fpdf2), as a court order is set: a centred heading, paragraphs, a section
    divider "* * *" on its own line."""
    from fpdf import FPDF

    pdf = FPDF(format="letter")
    pdf.add_page()
    pdf.set_font("Times", size=12)
    if heading:
        pdf.set_char_spacing(spacing)
        pdf.multi_cell(0, 8, heading, align="C", new_x="LMARGIN", new_y="NEXT")
        pdf.set_char_spacing(0)
    half = len(body) // 2
    pdf.multi_cell(0, 6, body[:half], align="J", new_x="LMARGIN", new_y="NEXT")
    pdf.multi_cell(0, 6, "* * *", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.multi_cell(0, 6, body[half:], align="J", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


@pytest.mark.slow
def test_the_letter_spacing_notice_appears_only_where_rejoining_changed_the_words(tmp_path):
    body = " ".join(paragraphs(licence("Apache-2.0"))[3:8]).replace(", ", " . . . ", 4)  # Bluebook ellipses
    src = tmp_path / "src"
    src.mkdir()
    (src / "order.pdf").write_bytes(_pdf(body))
    (src / "agreement.pdf").write_bytes(_pdf(body, "SUPPLY AGREEMENT", spacing=3))
    db = tmp_path / "l.db"
    assert run("ingest", "--db", db, "-q", src).exit_code == 0
    order = json.loads(run("show", "--db", db, "--json", "--text", "order.pdf").stdout)
    assert not [w for w in order["warnings"] if "letter-spaced" in w]  # an ordinary justified document
    assert "* * *" in order["text"]  # stored as it stands: the same words either way
    agreement = json.loads(run("show", "--db", db, "--json", "--text", "agreement.pdf").stdout)
    assert any(re.fullmatch(r"rejoined \d+ letter-spaced words", w) for w in agreement["warnings"])
    assert agreement["text"].lstrip().startswith("SUPPLY AGREEMENT")
