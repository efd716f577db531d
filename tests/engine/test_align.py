"""Word alignment for the side-by-side view: faithful to both texts, marking every difference."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.engine.align import align, word_diff
from auditor.text.normalize import words
from tests.support import synth

LEASE = ("The Tenant shall pay the Rent promptly on the first day of each month, without demand.\n\n"
         "Section 2. The Landlord shall maintain the roof and the structure of the building in good repair. "
         "Section 3. Either party may terminate this Lease upon ninety days' written notice to the other.")


def _sides(hunk: dict) -> tuple[str, str]:
    return "".join(p[1] for p in hunk["pieces"]), "".join(p[2] for p in hunk["pieces"])


def test_identical_text_in_another_layout_has_no_difference():
    container = "PREAMBLE.\n" + LEASE.upper().replace(". ", ".\n") + "\nSIGNATURES"
    start = container.index("THE TENANT")
    end = container.index("OTHER.") + len("OTHER")
    a = align(LEASE, container, (start, end)).as_dict()
    assert a["hunks"] == [] and a["hunks_total"] == 0
    n = len(words(LEASE))
    assert a["words"] == {"contained": n, "container": n, "same": n, "changed": 0, "deleted": 0, "inserted": 0}
    assert a["container"] == [start, end] and a["skipped_after"] == n


def test_a_changed_word_a_deleted_page_header_and_an_inserted_clause_are_marked():
    edited = (LEASE.replace("promptly", "immediately")
              .replace("Section 2.", "any deduction whatsoever. Section 2.")
              .replace("Section 3. Either", "Section 3. Either"))
    contained = LEASE.replace("Section 3.", "Page 1 of 9\nLEASE\nSection 3.")
    a = align(contained, edited).as_dict()
    kinds = [(p[0], p[1], p[2]) for h in a["hunks"] for p in h["pieces"] if p[0] not in ("same", "gap")]
    assert kinds == [("changed", "promptly", "immediately"),
                     ("inserted", "", "any deduction whatsoever"),
                     ("deleted", "Page 1 of 9\nLEASE", "")]
    w = a["words"]
    assert w["changed"] == 1 and w["deleted"] == 5 and w["inserted"] == 3
    assert w["same"] + w["changed"] + w["deleted"] == w["contained"]
    assert word_diff(a["hunks"][0]).startswith("The Tenant shall pay the Rent [-promptly-]{+immediately+} on")


def test_unrelated_text_is_all_difference():
    a = align("alpha beta gamma delta", "one two three four five").as_dict()
    assert a["words"]["same"] == 0 and a["hunks_total"] == 1
    assert [p[0] for p in a["hunks"][0]["pieces"]] == ["changed"]


def test_a_long_run_keeps_its_ends_and_counts_the_middle():
    inserted = " ".join(f"word{i}" for i in range(500))
    container = LEASE.replace("Section 2.", inserted + " Section 2.")
    a = align(LEASE, container, segment_words=40).as_dict()
    [hunk] = a["hunks"]
    pieces = [p for p in hunk["pieces"] if p[0] != "same"]
    assert [p[0] for p in pieces] == ["inserted", "elided", "inserted"]
    assert pieces[0][2].startswith("word0 ") and pieces[0][2].endswith("word19")
    assert pieces[1] == ["elided", 0, 460]
    assert pieces[2][2].startswith("word480") and pieces[2][2].endswith("word499")


def test_hunks_are_bounded_and_the_rest_counted():
    text = synth.contract(3, 20_000)
    ws = text.split(" ")
    edited = " ".join(w + "X" if i % 200 == 100 else w for i, w in enumerate(ws))
    a = align(text, edited, max_hunks=5).as_dict()
    assert len(a["hunks"]) == 5 and a["hunks_total"] > 5 and a["skipped_after"] == 0
    assert all(h["skipped"] > 0 for h in a["hunks"][1:])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["the", "Tenant", "shall", "pay", "rent", "Rent,", "\n\n", "non-", "exclusive",
                                 "§ 2.", "Page 1", "(a)", "“quoted”", "x"]), min_size=1, max_size=60),
       st.lists(st.tuples(st.integers(0, 59), st.sampled_from(["", "NEW", "the", "Page 9\n"])), max_size=8))
def test_pieces_are_each_side_verbatim_and_the_counts_add_up(tokens, edits):
    a_text = " ".join(tokens)
    b_tokens = list(tokens)
    for at, what in edits:
        if at < len(b_tokens):
            b_tokens[at] = what
    b_text = "head " + " ".join(b_tokens) + " tail"
    r = align(a_text, b_text, segment_words=10_000).as_dict()
    for h in r["hunks"]:
        left, right = _sides(h)
        assert left == a_text[h["a"][0] : h["a"][1]]
        assert right == b_text[h["b"][0] : h["b"][1]]
        for kind, lt, rt in h["pieces"]:
            if kind == "changed":
                assert lt and rt
            elif kind == "deleted":
                assert lt and not rt
            elif kind == "inserted":
                assert rt and not lt
    w = r["words"]
    assert w["same"] + w["changed"] + w["deleted"] == w["contained"] == len(words(a_text))
    assert (r["hunks_total"] == 0) == (w["same"] == w["contained"] == w["container"])


def _split(text: str, filler: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` cut in two at a line end, ``filler`` between the halves; the halves' ranges."""
    cut = text.index("\n", len(text) // 2)
    container = "HEAD\n" + text[:cut] + "\n" + filler + "\n" + text[cut + 1:]
    first = (5, 5 + cut)
    second = (first[1] + 2 + len(filler), len(container))
    return container, [first, second]


def test_a_match_split_over_two_ranges_is_aligned_with_both():
    text, filler = synth.contract(3, 8_000), synth.contract(4, 12_000)
    container, ranges = _split(text, filler)
    one = align(text, container, ranges[0]).as_dict()
    assert one["words"]["deleted"] > 400  # against the first range alone, half is "only in the contained"
    both = align(text, container, ranges).as_dict()
    assert both["words"]["deleted"] == 0 and [r[0] for r in both["ranges"]] == [r[0] for r in ranges]
    assert both["outside"] == len(words(filler)) and both["words"]["container"] == len(words(text))
    assert both["hunks_total"] == 0  # no difference: none shown


def test_the_words_between_two_ranges_are_one_piece_and_not_a_difference():
    text, filler = synth.contract(5, 6_000), synth.contract(6, 9_000)
    container, ranges = _split(text, filler)
    cut = text.index("\n", len(text) // 2)
    edited = container[: ranges[1][0]] + "INSERTED WORDS " + container[ranges[1][0]:]
    r = align(text, edited, [ranges[0], (ranges[1][0], ranges[1][1] + len("INSERTED WORDS "))]).as_dict()
    [hunk] = r["hunks"]
    kinds = [p[0] for p in hunk["pieces"]]
    assert kinds.index("between") < kinds.index("inserted") and r["words"]["inserted"] == 2
    assert hunk["pieces"][kinds.index("between")] == ["between", 0, len(words(filler))]
    left = "".join(p[1] for p in hunk["pieces"] if p[0] != "between")
    assert left == text[hunk["a"][0]:hunk["a"][1]] and hunk["a"][0] < cut < hunk["a"][1]
    assert "words of the container between two spans" in word_diff(hunk)


def test_a_range_that_only_repeats_the_others_is_left_out():
    text = synth.contract(7, 8_000)
    clause = text[1000:1600]
    start = text.index(" ", 1000) + 1
    container = text + "\n" + synth.contract(8, 9_000) + "\n" + clause
    ranges = [(0, len(text)), (len(container) - len(clause) + (start - 1000), len(container))]
    r = align(text, container, ranges).as_dict()
    assert r["repeats"] == 1 and "ranges" not in r and r["hunks_total"] == 0
    assert r["words"]["inserted"] == 0  # the quoted clause is not "only in the container"
