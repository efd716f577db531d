"""Mutation testing of the core: does the suite notice when the code is broken on purpose?

    python benchmarks/mutation.py [MODULE ...] [--workers 2] [--work DIR] [--markdown FILE]

For each core module (score, shingle, normalize, index, audit, controls) mutmut 3 rewrites every
function into many mutants (an operator, a constant, a comparison, an argument changed or
dropped), and runs, for each mutant, the tests that call the function; a mutant that no test
fails on *survives*. mutmut and not cosmic-ray: mutmut records which tests reach which function
and runs only those for a mutant, forking from a warm process, so a module takes minutes, not
the hours of one full test command per mutant.

Each module is run on its own, in a scratch copy of the checkout (``--work``, default
``$TMPDIR/auditor-mutation``), with the test files of ``MODULES`` below (the fast ones: tests
marked ``slow`` are left out), under ``nice -n 19`` and with at most ``--workers`` worker
processes. Mutants are forked from mutmut's fork server, never from a process that ran tests,
so no cache of a clean run (the normaliser's piece cache) hides a mutant.

The results go to ``benchmarks/results-mutation.json`` and ``benchmarks/MUTATION.md``: killed /
total per module, the time taken, and every surviving mutant with its diff and the reason it
changes no result (``EQUIVALENT`` below), or marked UNEXPLAINED. Not run in CI (too slow).
Needs ``pip install -e '.[mutation]'``.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: module -> the tests that may kill its mutants (pytest arguments; mutmut runs, per mutant, those
#: of them that reach the mutated function). The module's own test file, plus the end-to-end tests
#: of its rule where the rule is only visible end to end (score: the straddling pairs of run_audit).
MODULES: dict[str, list[str]] = {
    "text.score": ["tests/text/test_score.py", "tests/engine/test_audit.py", "-k", "test_score or straddling or estimated_below"],
    "text.shingle": ["tests/text/test_shingle.py", "tests/index/test_index.py"],
    "index.builder": ["tests/index/test_index.py"],
    "text.entry": ["tests/index/test_index.py"],
    "controls": ["tests/controls/test_controls.py", "tests/project/test_packaging.py::test_auditor_controls_overrides_every_other_location",
                 "tests/project/test_packaging.py::test_installed_controls_come_before_a_checkout"],
    "text.normalize": ["tests/text/test_normalize.py"],
    "index.sampled": ["tests/engine/test_audit.py"],
    "engine.audit": ["tests/engine/test_audit.py"],
    "engine.verify": ["tests/engine/test_audit.py"],
    "engine.short": ["tests/engine/test_audit.py"],
    "engine.families": ["tests/engine/test_audit.py"],
}

#: module -> the functions mutated (mutmut mutant-name globs), where not all of them are. The
#: audit's modules have about 2,300 mutants, most in I/O, pools, descriptions and bookkeeping around
#: its rules. Its rules are mutated: candidate generation (the prefix principle, both ways of
#: counting hits), the straddling rule's use and the histogram of unverified estimates, the
#: exhaustive search of short documents and its exact counts (``_Block``), membership, mutual pairs
#: and families, the grouping and ranking of containers.
FUNCTIONS: dict[str, list[str]] = {
    "index.sampled": ["xǁSampledIndexǁcandidates__mutmut_*", "xǁSampledIndexǁhits_of__mutmut_*",
                      "xǁSampledIndexǁholds__mutmut_*", "x_ranges__mutmut_*", "x_exact_min_hits__mutmut_*"],
    "engine.audit": ["x_candidate_pairs__mutmut_*", "x_group_by_contained__mutmut_*", "x_histogram__mutmut_*",
                     "x__rank__mutmut_*"],
    "engine.verify": ["x_member__mutmut_*", "xǁ_Blockǁ__init____mutmut_*", "xǁ_Blockǁcount__mutmut_*"],
    "engine.short": ["x_exhaustive_pairs__mutmut_*"],
    "engine.families": ["x_mutual_mask__mutmut_*", "x_families_of__mutmut_*"],
}

#: Surviving mutants explained: (function, text of the mutated line, why) - mostly mutants that
#: change no result. Matched on the function and the mutated line (``*``: any line), so the list
#: survives renumbering.
_CLAMP = ("the clamp is unreachable: for hits < n the upper Wilson bound is 1 - O(1/n) in exact "
          "arithmetic, far below 1 in floating point, and hits == n returns 1.0 before it")
_INT_DTYPE = ("the counts are integers either way: without the dtype they are int64 arrays, divided "
              "by a float64 array, so every float is the same")
_PATH = ("which path builds the rows (in this process, or a pool of spawned workers) and how the "
         "pool is set up: the rows are the same either way (tests/index/test_index.py compares one and "
         "two workers); only speed, and workers outliving a killed parent, differ")
_EMPTY = ("for n = 0 the hits == 0 and hits == n rules already give (0, 1); the empty mask only "
          "differs for negative counts, which no caller has")
_MASK = ("the mask holds 0 and 1 in any numeric type: _bounds converts it to int8 before taking "
         "differences, and 0/1 stored into the uint8 mask are the same")
_ZIP = ("a and b always have the same length: every run of ones in a mask padded with zeros has a "
        "start and an end")
_EMPTY_SEGMENT = ("adds a segment of length 0 (nothing between pos and a, or after the end): np.repeat "
                  "over its length gives it no character, so no offset changes")
_INT_LIST = ("the lists hold Python ints (bools for the flags): numpy's default dtype is int64 (bool) "
             "for them; only an empty text gives a float64 empty array, and it has no word to look up")
_CACHE_ONLY = ("the piece cache only saves time: _clean is a pure function, so a piece not cached, "
               "cached under another rule, or recomputed gives the same folded text")
_NO_SURROGATE_WORD = ("words_bytes turns every non-alphanumeric character, lone surrogates included, into "
                      "a space, so no word holds an encoded surrogate: the decode never meets an error, "
                      "the handler is never looked up, and codec names are case-insensitive")
_NO_SURROGATE_LEFT = ("the line before replaces every non-alphanumeric non-ASCII character, lone "
                      "surrogates included, by a space: the encode never meets a surrogate, the error "
                      "handler is never looked up, and codec names are case-insensitive")
_KEY_ORDER = ("the stored parameters are read back only through json.loads into Params "
              "(Store.params), so the order of their keys changes nothing")
EQUIVALENT: list[tuple[str, str, str]] = [
    ("wilson", "high = 1.0 if hits == n else min(2.0, (centre + half) / denom)", _CLAMP),
    ("wilson_arrays", "high = np.where(h == nn, 1.0, np.minimum(2.0, (centre + half) / denom))", _CLAMP),
    ("wilson_high", "p = np.asarray(hits, dtype=None) / n_arr", _INT_DTYPE + " (n_arr is float64)"),
    ("wilson_high", "p = np.asarray(hits, ) / n_arr", _INT_DTYPE + " (n_arr is float64)"),
    ("wilson_arrays", "h = np.asarray(hits, dtype=None)", _INT_DTYPE),
    ("wilson_arrays", "h = np.asarray(hits, )", _INT_DTYPE),
    ("wilson_arrays", "nn = np.broadcast_to(np.asarray(n, dtype=None), h.shape)", _INT_DTYPE),
    ("wilson_arrays", "nn = np.broadcast_to(np.asarray(n, ), h.shape)", _INT_DTYPE),
    ("wilson_arrays", "nf = np.maximum(nn, 1).astype(None)", "astype(None) is astype(float64)"),
    ("wilson_arrays", "empty = None", _EMPTY),
    ("wilson_arrays", "empty = nn < 0", _EMPTY),
    ("wilson_arrays", "return np.where(None, 0.0, low), np.where(empty, 1.0, high)", _EMPTY),
    ("wilson_arrays", "return np.where(empty, 0.0, low), np.where(None, 1.0, high)", _EMPTY),
    ("write_index_rows", '(doc_id, d["n_words"], d["n_shingles"], len(d["sampled"]) / 8, d["sampled"]),',
     "the blob length is a multiple of 8, and the INTEGER column stores 3.0 as 3"),
    ("_work", "store = Store(db, create=None)", "Store tests `not create`: None refuses a missing store as False does"),
    ("_prepared", "yield i, prepare_text(store.text(i), params, hasher, )",
     "prepare_text then fingerprints (its default) although not asked: the fingerprint is written only "
     "on a rebuild, which asks for it anyway; otherwise it is computed and dropped (time only)"),
    ("_prepared", "def _prepared(store: Store, ids: list[int], params: Params, workers: int, fingerprint: bool = True,",
     "a default no call takes: its one caller (build_index) always passes fingerprint="),
    ("_write", "def _write(store: Store, rows: list[tuple[int, dict]], params: Params, *, refingerprint: bool = True) -> None:",
     "a default no call takes: its one caller (build_index) always passes refingerprint="),
    ("build_index", "workers: int = 1,", _PATH),
    ("build_index", "for item in _prepared(store, ids, params, None, fingerprint=rebuild):",
     "None workers is 0 workers: both mean the default pool size (`workers or ...`)"),
    *(("build_index", f'store.set_meta("index_params", json.dumps(params.as_dict(), {arg}))', _KEY_ORDER)
      for arg in ("sort_keys=None", "", "sort_keys=False")),
    *(("_prepared", line, _PATH) for line in (
        "n = workers and min(2, os.cpu_count() or 1)",
        "n = workers or min(3, os.cpu_count() or 1)",
        "n = workers or min(2, os.cpu_count() and 1)",
        "n = workers or min(2, os.cpu_count() or 2)",
        "if n <= 1 and len(ids) < 8:",
        "if n < 1 or len(ids) < 8:",
        "if n <= 2 or len(ids) < 8:",
        "if n <= 1 or len(ids) <= 8:",
        "if n <= 1 or len(ids) < 9:",
        "with ProcessPoolExecutor(max_workers=None, mp_context=get_context(\"spawn\"),",
        "with ProcessPoolExecutor(max_workers=n, mp_context=None,",
        "with ProcessPoolExecutor(mp_context=get_context(\"spawn\"),",
        "with ProcessPoolExecutor(max_workers=n, initializer=die_with_parent, initargs=(os.getpid(),)) as pool:",
        "with ProcessPoolExecutor(max_workers=n, mp_context=get_context(None),",
        "initializer=None, initargs=(os.getpid(),)) as pool:",
        "initargs=(os.getpid(),)) as pool:",
        "initializer=die_with_parent, ) as pool:",
    )),
    ("skeleton_table_digest", "return hashlib.sha256(json.dumps(items, ).encode()).hexdigest()",
     "ensure_ascii=True is json.dumps's default"),
    ("word_offsets", 'mask = _ALNUM_ASCII[np.frombuffer(text.encode("ASCII"), dtype=np.uint8)]',
     "codec names are case-insensitive"),
    ("_alnum_mask", 'return _ALNUM_ASCII[np.frombuffer(s.encode("ASCII"), dtype=np.uint8)]',
     "codec names are case-insensitive"),
    ("_alnum_mask", 'cps = np.frombuffer(s.encode("UTF-32-LE", "surrogatepass"), dtype=np.uint32)',
     "codec names are case-insensitive"),
    *(("_alnum_mask", line, _MASK) for line in (
        "mask = np.zeros(len(cps), dtype=None)",
        "mask = np.zeros(len(cps), )",
        "vals = np.array([1 if chr(c).isalnum() else 0 for c in keys.tolist()], dtype=None)",
        "vals = np.array([1 if chr(c).isalnum() else 0 for c in keys.tolist()], )",
    )),
    ("_soft_hyphens", 'return _SOFT_HYPHEN_AT_BREAK.sub(lambda m: "-" * len(m.group()), text) if ("\\u00ad" in text) or True else text',
     "the test only skips the substitution where it has nothing to match (no soft hyphen)"),
    ("_clean", "for _ in range(7):",
     "a pass that changes nothing returns; one or two passes reach it (every table value is a "
     "fixpoint, tests/text/test_normalize.py), so the limit only decides when a text that never "
     "converges raises, and none does"),
    ("_clean", "raise AssertionError(None)",
     "only the message of an error no text reaches (see the loop limit above)"),
    *(("_clean_piece", line, _CACHE_ONLY) for line in (
        "out = None",
        "out = _CACHE.get(None)",
        "if len(piece) < _CACHE_MAX_PIECE:",
        "if len(_CACHE) > _CACHE_MAX_ENTRIES:",
        "_CACHE[piece] = None",
    )),
    *(("words", line, _NO_SURROGATE_WORD) for line in (
        'return [w.decode("utf-8", ) for w in words_bytes(text)]',
        'return [w.decode("UTF-8", "surrogatepass") for w in words_bytes(text)]',
        'return [w.decode("utf-8", "XXsurrogatepassXX") for w in words_bytes(text)]',
        'return [w.decode("utf-8", "SURROGATEPASS") for w in words_bytes(text)]',
    )),
    *(("words_bytes", f'return s.encode({codec}).translate(_BYTE_TABLE).split()', _NO_SURROGATE_LEFT) for codec in (
        '"utf-8", ', '"UTF-8", "surrogatepass"', '"utf-8", "XXsurrogatepassXX"', '"utf-8", "SURROGATEPASS"')),
    ("_fold_with_origin", "last = None", "s[None:i] is s[0:i]"),
    ("_bounds", "edges = np.diff(np.concatenate(([0], mask.astype(None), [0])))",
     "the mask holds 0 and 1: their differences (-1, 0, 1) are exact in float64 as in int8; only an "
     "unsigned type would wrap"),
    *(("words_with_offsets", f"return ([s[x:y] for x, y in zip(a.tolist(), b.tolist(), {strict})],", _ZIP)
      for strict in ("strict=None", "", "strict=False")),
    *(("_fold_with_origin", line, _EMPTY_SEGMENT) for line in ("if a >= pos:", "if pos <= len(text):")),
    ("_fold_with_origin", "seg_len.append(len(folded)), seg_a.append(a), seg_b.append(b), seg_ident.append(None)",
     "the flags become np.array(seg_ident, dtype=bool), where None is False"),
    ("_fold_with_origin", "keep[m.start() : m.end()] = None", "None stored in a bool array is False"),
    *(("_fold_with_origin", line, _INT_LIST) for line in (
        "a_arr, b_arr = np.array(seg_a, dtype=None), np.array(seg_b, dtype=np.int64)",
        "a_arr, b_arr = np.array(seg_a, ), np.array(seg_b, dtype=np.int64)",
        "a_arr, b_arr = np.array(seg_a, dtype=np.int64), np.array(seg_b, dtype=None)",
        "a_arr, b_arr = np.array(seg_a, dtype=np.int64), np.array(seg_b, )",
        "ident = np.repeat(np.array(seg_ident, dtype=None), lens)",
        "ident = np.repeat(np.array(seg_ident, ), lens)",
        "within = np.arange(int(lens.sum()), dtype=None) - np.repeat(np.cumsum(lens) - lens, lens)",
        "within = np.arange(int(lens.sum()), ) - np.repeat(np.cumsum(lens) - lens, lens)",
    )),
    ("corpus_controls", "small = sorted(rows, key=lambda r: (r[1], r[1]))[: max(1, len(rows) // 2)]",
     "the rows come from Store.select_in sorted by id, and sorted() is stable: ties in words stay in "
     "id order without the id in the key"),
    *(("corpus_controls", line, "the sample lengths are Python ints (a blob length is a multiple of 8, so "
       "/ 8 is a whole float): the int64 array is the same") for line in (
        "lens = np.array([len(r[2]) // 8 for r in rows], dtype=None)",
        "lens = np.array([len(r[2]) // 8 for r in rows], )",
        "lens = np.array([len(r[2]) / 8 for r in rows], dtype=np.int64)",
    )),
    ("corpus_controls", "return dict.fromkeys(ids, 2.0)",
     "a document with no sampled shingle counts as related to all: the estimates are only compared "
     "with 0.05 and 0.5, which 1.0 and 2.0 both exceed"),
    *(("corpus_controls", f"return dict(zip(ids, held.tolist(), {strict}))",
       "held has one entry per id (bincount's minlength), so zip's strictness never matters")
      for strict in ("strict=None", "", "strict=False")),
    ("corpus_controls", 'choice = ""',
     "the first draw always sets choice; before it the value is only read by `attempt == DRAWS and "
     "choice is not None`, which attempt 0 decides, and \"\" is not None like a draw"),
    *(("_evaluate", f"found = set(zip(audit.containing.contained.tolist(), audit.containing.container.tolist(), {strict}))",
       "Pairs holds parallel arrays of one length, so zip's strictness never matters")
      for strict in ("strict=None", "", "strict=False")),
    *(("_run_in_scratch", line, "names and labels inside the scratch directory and store, which are thrown "
       "away when the controls are scored: no result or report carries them") for line in (
        'with tempfile.TemporaryDirectory(prefix=None) as tmp:',
        'with tempfile.TemporaryDirectory(prefix="XXauditor-controls-XX") as tmp:',
        'with tempfile.TemporaryDirectory(prefix="AUDITOR-CONTROLS-") as tmp:',
        'docs = Path(tmp) / "XXdocsXX"',
        'docs = Path(tmp) / "DOCS"',
        'with Store(Path(tmp) / "XXcontrols.dbXX") as scratch:',
        'with Store(Path(tmp) / "CONTROLS.DB") as scratch:',
        'r = ingest(scratch, [docs / n for n, _ in files], batch=None,',
        'r = ingest(scratch, [docs / n for n, _ in files], source="controls", workers=1)',
        'source=None, workers=1)',
        'workers=1)',
        'source="XXcontrolsXX", workers=1)',
        'source="CONTROLS", workers=1)',
    )),
    *(("_run_in_scratch", line, "how many sandbox children extract the control files: the stored texts are "
       "the same (tests/corpus/test_ingest.py compares one and two workers); only speed differs") for line in (
        'source="controls", workers=None)',
        'source="controls", )',
        'source="controls", workers=2)',
    )),
    ("_run_in_scratch", 'dest.write_text(content, encoding="UTF-8")', "codec names are case-insensitive"),
    *(("_run_in_scratch", f'scratch.set_meta("index_params", json.dumps(params.as_dict(), {arg}))', _KEY_ORDER)
      for arg in ("sort_keys=None", "", "sort_keys=False")),
    ("run_controls", 'results = _run_in_scratch(params, [(n, directory / n) for n in names], manifest, "fixture",',
     "results is still the empty list there, so = and += give the same list"),
    ("mutual_mask", "base = int(max(containing.contained.max(), containing.container.max())) + 2",
     "any base above the largest id makes a * base + b one key per pair; a larger one only while the "
     "keys stay in int64, which ids of a SQLite store (far below 3 * 10^9) do"),
    *(("SampledIndex.hits_of", f"known = np.isin(hashes, self.uniq, {arg})",
       "both arrays are distinct (sampled hashes of one text; the index's distinct shingles): "
       "assume_unique only saves np.isin a deduplication") for arg in ("assume_unique=None", "", "assume_unique=False")),
    *(("SampledIndex.candidates", line, "only which of the two ways of counting hits is taken (all posting lists, "
       "or a binary search per candidate and shingle): both give the same counts, checked against brute "
       "force in tests/engine/test_audit.py; the rule is a cost estimate") for line in (
        "if postings - len(self.doc_ids) // 16 <= 2 * len(cands) * n:",
        "if postings + len(self.doc_ids) / 16 <= 2 * len(cands) * n:",
        "if postings + len(self.doc_ids) // 17 <= 2 * len(cands) * n:",
        "if postings + len(self.doc_ids) // 16 < 2 * len(cands) * n:",
        "if postings + len(self.doc_ids) // 16 <= 2 * len(cands) / n:",
        "if postings + len(self.doc_ids) // 16 <= 2 / len(cands) * n:",
        "if postings + len(self.doc_ids) // 16 <= 3 * len(cands) * n:",
        "if postings * len(self.doc_ids) // 16 <= 2 * len(cands) * n:",
        "if postings + len(self.doc_ids) * 16 <= 2 * len(cands) * n:",
    )),
    ("SampledIndex.candidates", "hits = np.bincount(held, )[cands]",
     "every candidate holds one of the document's shingles, so it is among ``held`` and the "
     "count array reaches it without minlength"),
    ("SampledIndex.candidates", "step = max(2, CANDIDATE_BLOCK // n)",
     "CANDIDATE_BLOCK // n is below 2 only for n above 2,000,000 sampled shingles, a text of 32 M "
     "words, over ten times the longest text ingest stores (max_text_chars 20 M characters)"),
    ("SampledIndex.candidates", "for a in range(0, len(cands), ):",
     "blocks of one start at every candidate: each writes the same counts over the slice it "
     "covers (time only)"),
    ("SampledIndex.candidates", 'rare = s[np.argsort(self.df[s], kind="STABLE")[: n - least + 1]]',
     "numpy reads the sort kind case-insensitively"),
    *(("families_of", line, "the graph is the same: every member is a contained document of a mutual pair, so "
       "the indices span all the nodes and the inferred shape is (nodes, nodes); any edge weight or dtype "
       "makes the same edges; its edges come in both directions, so weak, strong and undirected components "
       "are the same (scipy reads the connection name case-insensitively)") for line in (
        "graph = coo_array((np.ones(len(ai), np.int8), (ai, bi)), shape=None)",
        "graph = coo_array((np.ones(len(ai), np.int8), (ai, bi)), )",
        "graph = coo_array((np.ones(len(ai), None), (ai, bi)), shape=(len(nodes), len(nodes)))",
        "graph = coo_array((np.ones(len(ai), ), (ai, bi)), shape=(len(nodes), len(nodes)))",
        'k, label = connected_components(graph, directed=None, connection="weak")',
        'k, label = connected_components(graph, connection="weak")',
        "k, label = connected_components(graph, directed=True, )",
        'k, label = connected_components(graph, directed=False, connection="weak")',
        'k, label = connected_components(graph, directed=True, connection="WEAK")',
    )),
    *(("families_of", line, "an int fill value gives an int64 array anyway") for line in (
        "first = np.full(k, len(nodes), None)", "first = np.full(k, len(nodes), )")),
    *(("families_of", line, "each family's smallest member is a different node, so ``first`` has no ties for "
       "the sort to order (numpy reads the kind case-insensitively)") for line in (
        'rank[np.argsort(first, kind=None)] = np.arange(k)', "rank[np.argsort(first, )] = np.arange(k)",
        'rank[np.argsort(first, kind="STABLE")] = np.arange(k)')),
    ("families_of", 'order = np.argsort(fam, kind="STABLE")  # members ascending within a family (nodes are sorted)',
     "numpy reads the sort kind case-insensitively"),
    ("families_of", "bounds = np.searchsorted(fam[order], np.arange(k + 2))",
     "one more bound, past the last family, which no family reads"),
    ("families_of", "pairs = np.bincount(of_pair, )",
     "every family has a mutual pair (each member is the contained document of one), so the counts "
     "reach the last family without minlength"),
    *(("_Block.__init__", line, "the same values: sorted Python ints make an int64 array by default, and count "
       "is only the size fromiter allocates up front") for line in (
        "self.ids = np.array(sorted(sets), dtype=None)", "self.ids = np.array(sorted(sets), )",
        "self.lens = np.fromiter(map(len, arrays), np.int64, )")),
    *(("_Block.__init__", line, "a block without documents has no pair (``rows`` is empty), so ``count`` returns "
       "before it reads the vocabulary") for line in (
        "flat = np.concatenate(arrays) if arrays else np.empty(0, None)",
        "flat = np.concatenate(arrays) if arrays else np.empty(0, )",
        "flat = np.concatenate(arrays) if arrays else np.empty(1, np.uint64)")),
    *(("_Block.__init__", line, "the marks are only 0 and 1: as floats their cumulative sums are the same whole "
       "numbers (far below 2^53), written into the int64 counts; one slot more is never read") for line in (
        'self.mark = np.zeros(len(self.vocab) + 1, None)  # the last slot: "not in the vocabulary"',
        'self.mark = np.zeros(len(self.vocab) + 1, )  # the last slot: "not in the vocabulary"',
        'self.mark = np.zeros(len(self.vocab) + 2, bool)  # the last slot: "not in the vocabulary"')),
    *(("_Block.__init__", "self.of_container = {int(by[s]): (s, e) for s, e in zip(edges[:-1].tolist(), edges[1:].tolist(), "
       + strict, "edges[:-1] and edges[1:] always have the same length") for strict in ("strict=None)", ")")),
    *(("_Block.count", line, "the last slot (a container's shingle outside the vocabulary) is written but never "
       "read: the contained documents' numbers all lie in the vocabulary; clearing it is hygiene") for line in (
        "self.mark[len(self.vocab)] = None", "self.mark[len(self.vocab)] = True")),
    ("exhaustive_pairs", "if b >= a}",
     "the owners are sorted, so an empty run (b == a) only comes of an empty ``owner``, and every short "
     "document holds its own shingles: with one short document ``owner`` is not empty"),
    *(("exhaustive_pairs", line, "vocabulary numbers and document ids are whole numbers far below 2^53: the "
       "same values in int64, uint64 or float64, and an empty array is empty in any type") for line in (
        "doc_ids = np.array(docs, dtype=None)", "doc_ids = np.array(docs, )",
        "full = SampledIndex(doc_ids, [held.get(d, np.empty(0, np.int64)).astype(None) for d in docs])",
        "full = SampledIndex(doc_ids, [held.get(d, np.empty(0, None)).astype(np.uint64) for d in docs])",
        "full = SampledIndex(doc_ids, [held.get(d, np.empty(0, )).astype(np.uint64) for d in docs])")),
    ("_Block.__init__", "self.of_container = {int(by[s]): (s, e) for s, e in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=False)",
     "edges[:-1] and edges[1:] always have the same length"),
    *(("exhaustive_pairs", "held = {int(owner[a]): number[a:b] for a, b in zip(edges[:-1].tolist(), edges[1:].tolist(), "
       + strict, "edges[:-1] and edges[1:] always have the same length") for strict in ("strict=None)", ")", "strict=False)")),
    ("exhaustive_pairs", "full = SampledIndex(doc_ids, [held.get(d, np.empty(1, np.int64)).astype(np.uint64) for d in docs])",
     "not equivalent but not deterministic: np.empty(1) holds whatever memory numpy is handed, so a document "
     "holding none of the short documents' shingles gets one arbitrary number; it changes a result only when "
     "that number falls inside the (small) vocabulary, and then the near misses' exact values stop matching "
     "brute force (tests/engine/test_audit.py). In this run it did not"),
    ("exhaustive_pairs", "sampled = np.searchsorted(short.vocab, sample(short.sets[a], params.modulus)).astype(None)",
     "vocabulary numbers are small whole numbers: as float64 they compare equal to the same uint64 numbers"),
    ("_Block.count", "while a <= len(rows):  # pieces of at most GATHER_CHUNK shingles",
     "one more, empty, piece at the end: it writes no count"),
    *(("_Block.count", line, "only where the pieces of at most GATHER_CHUNK shingles are cut (a memory bound): "
       "every pair is counted in some piece, with the same count") for line in (
        'z = a + max(2, int(np.searchsorted(np.cumsum(self.lens[p[a:]]), GATHER_CHUNK, side="right")))',
        "z = a + max(1, int(np.searchsorted(np.cumsum(self.lens[p[a:]]), GATHER_CHUNK, )))")),
    ("_Block.count", "self.mark[b_ids] = None", "None stored in a bool array is False"),
    *(("_run_in_scratch", line, "killed outside mutmut's view: tests/controls/test_controls.py::test_controls_run_under_an_"
       "ascii_locale_with_documents_that_are_not fails on it (checked by hand), but it runs the controls in a "
       "subprocess (LC_ALL=C, UTF-8 mode off), and mutmut runs for a mutant only the tests that reach its "
       "function in-process") for line in (
        "dest.write_text(content, encoding=None)", "dest.write_text(content, )")),
    *(("candidate_pairs", line, "a pair's exact counts start as -1 ('not verified'), and every pair "
       "candidate_pairs returns is verified (verify_and_scan overwrites both), so the start value is never read")
      for line in ("np.full(m, n), np.full(m, +1), np.full(m, -1)))", "np.full(m, n), np.full(m, -2), np.full(m, -1)))",
                   "np.full(m, n), np.full(m, -1), np.full(m, +1)))", "np.full(m, n), np.full(m, -1), np.full(m, -2)))")),
    *(("histogram", line, "every caller passes float arrays (ratios), which asarray leaves float64") for line in (
        "return np.bincount(np.minimum((np.asarray(values, None) * bins).astype(np.int64), bins - 1),",
        "return np.bincount(np.minimum((np.asarray(values, ) * bins).astype(np.int64), bins - 1),")),
    ("group_by_contained", "cutoff = boilerplate_min(documents, )",
     "its one caller (finish) passes no rule, so the rule is the default either way"),
    *(("group_by_contained", f"for s, e in zip(edges[:-1].tolist(), edges[1:].tolist(), {strict}):",
       "edges[:-1] and edges[1:] always have the same length") for strict in ("strict=None", "", "strict=False")),
    ("group_by_contained", "break",
     "an empty run (s == e) only comes of no pairs at all (edges [0, 0]), where the loop ends either way"),
    *(("_ranges", line, "np.arange of an int total is int64 by default on this platform (64-bit Linux, where "
       "the tool runs)") for line in ("return shift + np.arange(total, dtype=None)", "return shift + np.arange(total, )")),
    ("SampledIndex.holds", "if not len(sid) and not len(doc_pos):",
     "with no value held but some documents, the general path sums an empty (documents, 0) array to the "
     "same int64 zeros; with no documents, the first test has returned"),
    *(("corpus_controls", line, "document ids are Python ints: the int64 array is the same") for line in (
        "index = SampledIndex(np.array(ids, dtype=None), samples)", "index = SampledIndex(np.array(ids, ), samples)")),
    *(("corpus_controls", f"return dict(zip(ids, (index.hits_of(sa) / len(sa)).tolist(), {strict}))",
       "hits_of gives one count per indexed document, so zip's strictness never matters")
      for strict in ("strict=None", "", "strict=False")),
    *(("exact_min_hits", line, "a start at or below the answer: the loop climbs to the same fewest hits "
       "(a step per hit missing, time only); the threshold is in (0, 1], so for n >= 1 the answer is "
       "at least 1 and a start of 1 is never above it") for line in (
        "h = max(1, math.ceil(threshold * n) - 1)",
        "h = max(0, math.ceil(threshold / n) - 1)",
        "h = max(0, math.ceil(threshold * n) - 2)",
    )),
    ("combine", "if n < 0:", "for n = 0 the general path returns the same empty uint64 array"),
    ("WordHasher.__call__", "if len(self._cache) >= _MAX_CACHED_WORDS:",
     "the cache only remembers hashes: starting it again one word earlier changes no hash"),
    ("WordHasher.__call__", "return np.fromiter(map(self._cache.__getitem__, words), dtype=np.uint64, )",
     "count is only the size to allocate up front; the array is the same"),
]

STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
          36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout",
          37: "caught by type check", -11: "segfault", -9: "segfault"}


def _file(module: str) -> str:
    """The source file of ``module`` (a dotted path under ``auditor``, as ``MODULES`` names it)."""
    return f"auditor/{module.replace('.', '/')}.py"


def _config(module: str, workers: int) -> str:
    tests = json.dumps(MODULES[module] + ["-m", "not slow"])
    return (
        "\n[tool.mutmut]\n"
        'source_paths = ["auditor"]\n'
        f'only_mutate = ["{_file(module)}"]\n'
        'also_copy = ["controls"]\n'
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:randomly"]\n'
        f"pytest_add_cli_args_test_selection = {tests}\n"
        'process_isolation = "forkserver"\n'
        # mutmut's default CPU limit is 30x a mutant's tests (+30 s): a mutant that loops in
        # test_audit.py then holds the one worker for 17 minutes. 6x (+30 s) still lets a
        # mutant that only slows the tests finish, and counts one that does not as a timeout.
        "timeout_multiplier = 3.0\n"
        "timeout_constant = 5.0\n"
        "use_git_change_detection = false\n"
    )


def _scratch(work: Path, module: str, workers: int) -> Path:
    """A copy of the checkout's code, tests and fixtures with this module's mutmut section."""
    d = work / module
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in ("auditor", "tests", "controls"):
        shutil.copytree(ROOT / name, d / name, ignore=ignore)
    text = (ROOT / "pyproject.toml").read_text()
    (d / "pyproject.toml").write_text(text + _config(module, workers))
    return d


def _mutmut() -> list[str]:
    exe = Path(sys.executable).with_name("mutmut")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "mutmut"]


def _diff(d: Path, name: str) -> tuple[str, str]:
    """(removed lines, added lines) of a mutant, from ``mutmut show``."""
    out = subprocess.run([*_mutmut(), "show", name], cwd=d, capture_output=True, text=True).stdout
    minus = [ln[1:].strip() for ln in out.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    plus = [ln[1:].strip() for ln in out.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    return "\n".join(minus), "\n".join(plus)


def _function(name: str) -> str:
    """``auditor.text.score.xǁEstimateǁof__mutmut_6`` -> ``Estimate.of``."""
    tail = name.rsplit(".", 1)[1]
    tail = re.sub(r"__mutmut_\d+$", "", tail)
    return tail[1:].strip("ǁ").replace("ǁ", ".") if "ǁ" in tail else tail[2:]


_SQL = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|VALUES|FROM|WHERE)\b", re.IGNORECASE)


def _reason(function: str, added: str, removed: str = "") -> str | None:
    for f, line, why in EQUIVALENT:
        if f == function and (line == "*" or line.strip() == added.strip()):
            return why
    if removed and added != removed and added.lower() == removed.lower() and _SQL.search(removed):
        return "only the case of SQL text changed: SQLite keywords, functions, table and column names are case-insensitive"
    return None


def _mutmut_run(d: Path, module: str, names: list[str], workers: int, timeout: float) -> float:
    """``mutmut run`` in the scratch copy ``d`` (all mutants, or those ``names``): seconds taken."""
    cmd = ["nice", "-n", "19", *_mutmut(), "run", "--max-children", str(workers), *names]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    t0 = time.monotonic()
    with open(d / "mutmut-run.log", "a") as log:
        proc = subprocess.Popen(cmd, cwd=d, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:  # out of time: stop mutmut, keep what it checked
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            code = 0
    if code != 0:
        tail = (d / "mutmut-run.log").read_text(errors="replace")[-3000:]
        raise SystemExit(f"mutmut failed on {module} (exit {code}):\n{tail}")
    return time.monotonic() - t0


def run_module(module: str, work: Path, workers: int, timeout: float, *, collect: float | None = None,
               recheck: dict | None = None) -> dict:
    """Mutate one module and collect the outcome.

    ``collect``: run nothing, collect the outcome of an earlier (possibly interrupted) run in
    ``work`` that took that many seconds. ``recheck``: the earlier run's result; after tests were
    added, its unexplained survivors and its mutants without tests are run again against the
    current tests (same source: a changed module needs a new run). Mutants it did not get to stay
    not checked.
    """
    d = work / module
    load = os.getloadavg()[0]
    if recheck is not None:
        if (d / _file(module)).read_bytes() != (ROOT / _file(module)).read_bytes():
            raise SystemExit(f"{_file(module)} changed since its run in {d}: run it again, not --recheck")
        codes = json.loads((d / "mutants" / f"{_file(module)}.meta").read_text())["exit_code_by_key"]
        explained = {s["mutant"] for s in recheck["survivors"] if _reason(s["function"], s["added"], s["removed"])}
        names = sorted(k for k, v in codes.items()
                       if STATUS.get(v) in ("survived", "no tests") and k not in explained)
        shutil.rmtree(d / "tests")
        shutil.copytree(ROOT / "tests", d / "tests", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis"))
        wall = recheck["wall_s"] + (_mutmut_run(d, module, names, workers, timeout) if names else 0.0)
    elif collect is None:
        d = _scratch(work, module, workers)
        (d / "mutmut-run.log").unlink(missing_ok=True)
        wall = _mutmut_run(d, module, [f"auditor.{module}.{f}" for f in FUNCTIONS.get(module, [])], workers, timeout)
    else:
        wall = collect
    meta = d / "mutants" / f"{_file(module)}.meta"
    if not meta.exists():
        raise SystemExit(f"no mutmut results for {module} in {d}")
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    patterns = [f"auditor.{module}.{f}" for f in FUNCTIONS.get(module, [])]
    if patterns:  # the other functions' mutants were not meant to run
        codes = {k: v for k, v in codes.items() if any(fnmatch.fnmatch(k, p) for p in patterns)}
    counts: dict[str, int] = {}
    survivors = []
    for name, code in sorted(codes.items(), key=lambda kv: _order(kv[0])):
        status = "not checked" if code is None else STATUS.get(code, "suspicious")
        counts[status] = counts.get(status, 0) + 1
        if status in ("survived", "no tests", "suspicious"):
            removed, added = _diff(d, name)
            function = _function(name)
            survivors.append({"mutant": name, "status": status, "function": function,
                              "removed": removed, "added": added, "reason": _reason(function, added, removed)})
    return {"module": module, "tests": MODULES[module], "functions": FUNCTIONS.get(module, ["all"]),
            "mutants": len(codes), "counts": counts,
            "killed": counts.get("killed", 0) + counts.get("timeout", 0) + counts.get("segfault", 0),
            "not_checked": counts.get("not checked", 0), "wall_s": round(wall, 1),
            "load": sorted({round(load, 1), round(os.getloadavg()[0], 1)}) if collect is None else None,
            "survivors": survivors}


def _order(name: str) -> tuple[str, int]:
    m = re.match(r"(.*)__mutmut_(\d+)$", name)
    return (m.group(1), int(m.group(2))) if m else (name, 0)


def _load(rows: list[dict]) -> str:
    loads = [x for r in rows for x in (r.get("load") or [])]
    return f", load average {min(loads):.1f}-{max(loads):.1f}" if loads else ""


def markdown(results: dict) -> str:
    rows = results["modules"]
    total = sum(r["mutants"] - r.get("not_checked", 0) for r in rows)
    killed = sum(r["killed"] for r in rows)
    equivalent = sum(1 for r in rows for s in r["survivors"] if s["reason"])
    unchecked = sum(r.get("not_checked", 0) for r in rows)
    out = [
        "# Mutation testing of the core",
        "",
        "Generated by `python benchmarks/mutation.py --workers 1 MODULE ...` (mutmut "
        f"{results['mutmut']}, Python {results['python']}, {results['workers']} worker(s) under "
        f"`nice -n 19` on a 2-core machine shared with other jobs{_load(rows)}). **Not run in CI**: "
        f"these runs took {results['wall_s'] / 60:.0f} minutes in all (the time of each module is in "
        "the table; where tests were added after a run, `--recheck` ran that run's survivors again "
        "and its time is included).",
        "",
        "A mutant is one small change to one function (an operator, a constant, a comparison, an "
        "argument changed or dropped). *Killed*: some test fails on it (a timeout or a crash counts "
        "as killed). *Survived*: every test passes; each survivor is listed below with the reason "
        "it changes no result, or UNEXPLAINED. *Not checked*: the run was stopped before it got to "
        "them (mutmut takes the mutants whose tests are fastest first).",
        "",
        "| module | tests | mutants checked | killed | survived (explained) | unexplained | not checked | time |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        eq = sum(1 for s in r["survivors"] if s["reason"])
        checked = r["mutants"] - r.get("not_checked", 0)
        out.append(f"| {_file(r['module'])} | {' '.join(Path(t).name for t in r['tests'])} | "
                   f"{checked} | {r['killed']} ({100 * r['killed'] / max(1, checked):.1f}%) | "
                   f"{len(r['survivors'])} ({eq}) | {len(r['survivors']) - eq} | {r.get('not_checked', 0)} | "
                   f"{r['wall_s'] / 60:.1f} min |")
    for module, why in sorted(results.get("not_run", {}).items()):
        out.append(f"| {_file(module)} | {' '.join(Path(t).name for t in MODULES[module])} | "
                   f"not run: {why} | | | | | |")
    out.append(f"| **all** | | {total} | {killed} ({100 * killed / max(1, total):.1f}%) | "
               f"{total - killed} ({equivalent}) | {total - killed - equivalent} | {unchecked} | "
               f"{results['wall_s'] / 60:.1f} min |")
    out += [""] + [f"{_file(m)}: {text}" for m, text in sorted(results.get("notes", {}).items())]
    out += ["", "What mutmut does not mutate: functions under a decorator other than `@classmethod`/"
            "`@staticmethod` (`score.min_hits` under `lru_cache`, `normalize._skeleton_table` under "
            "`functools.cache`), module-level constants and class bodies. `min_hits` is pinned by "
            "tests/text/test_score.py (its defining property, for many n and two z), the skeleton table's "
            "derivation by its digest (tests/text/test_normalize.py).", ""]
    for r in rows:
        if r.get("functions", ["all"]) != ["all"]:
            out.append(f"{_file(r['module'])}: only these functions were mutated (mutant-name globs): "
                       + ", ".join(f"`{f}`" for f in r["functions"]) + ".")
            out.append("")
    for r in rows:
        if not r["survivors"]:
            continue
        out += [f"## {_file(r['module'])}: surviving mutants", ""]
        for s in r["survivors"]:
            why = s["reason"] or "**UNEXPLAINED**"
            out += [f"- `{s['function']}` ({s['status']}): {why}", "  ```diff"]
            out += [f"  - {ln}" for ln in s["removed"].splitlines()]
            out += [f"  + {ln}" for ln in s["added"].splitlines()]
            out += ["  ```"]
        out.append("")
    return "\n".join(out) + "\n"


def _per_module(ap: argparse.ArgumentParser, items: list[str], flag: str, what: str) -> dict[str, str]:
    """``MODULE=TEXT`` options as {module: text}; anything else is a usage error."""
    out = {}
    for item in items:
        module, _, text = item.partition("=")
        if module not in MODULES or not text:
            ap.error(f"{flag} wants MODULE={what} with a core module: {item!r}")
        out[module] = text
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", metavar="MODULE", help=f"any of {', '.join(MODULES)} (default: all)")
    ap.add_argument("--workers", type=int, default=2, help="mutmut worker processes (at most 2 here)")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "auditor-mutation")
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results-mutation.json")
    ap.add_argument("--markdown", type=Path, default=ROOT / "benchmarks" / "MUTATION.md")
    ap.add_argument("--timeout", type=float, default=6 * 3600,
                    help="seconds per module; then mutmut is stopped and the mutants it did not get to "
                         "are reported as not checked")
    ap.add_argument("--collect", type=float, metavar="SECONDS",
                    help="run nothing: collect the modules' earlier runs in --work (interrupted ones too), "
                         "which took SECONDS")
    ap.add_argument("--recheck", action="store_true",
                    help="after adding tests: run the unexplained survivors and untested mutants of each "
                         "module's earlier run in --work again, against the current tests; the time adds to "
                         "the run's")
    ap.add_argument("--not-run", action="append", default=[], metavar="MODULE=REASON",
                    help="record that a module was not run, and why (shown in the results)")
    ap.add_argument("--note", action="append", default=[], metavar="MODULE=TEXT",
                    help="a note on a module's run, shown under the table (replaces its earlier note)")
    ap.add_argument("--render", action="store_true",
                    help="run nothing: rewrite the results with the current EQUIVALENT reasons")
    args = ap.parse_args(argv)
    modules = [] if args.render else args.modules or list(MODULES)
    unknown = sorted(set(modules) - set(MODULES))
    if unknown:
        ap.error(f"not a core module: {', '.join(unknown)}")
    previous = json.loads(args.json.read_text()) if args.json.exists() else {"modules": []}
    done = {r["module"]: r for r in previous.get("modules", [])}
    args.not_run_reasons = {**previous.get("not_run", {}), **_per_module(ap, args.not_run, "--not-run", "REASON")}
    for m in modules:
        args.not_run_reasons.pop(m, None)
    args.notes = {**previous.get("notes", {}), **_per_module(ap, args.note, "--note", "TEXT")}
    for m in modules:
        if not args.note:
            args.notes.pop(m, None)
    for m in modules:
        print(f"mutating {_file(m)} ...", flush=True)
        r = run_module(m, args.work, args.workers, args.timeout, collect=args.collect,
                       recheck=done[m] if args.recheck and m in done else None)
        done[m] = r
        print(f"  {r['killed']}/{r['mutants']} killed, {len(r['survivors'])} survived, {r['wall_s']:.0f} s",
              flush=True)
        for s in r["survivors"]:  # a changed EQUIVALENT list applies to modules not rerun too
            s["reason"] = _reason(s["function"], s["added"], s["removed"])
        _write(args, done)
    for r in done.values():
        for s in r["survivors"]:
            s["reason"] = _reason(s["function"], s["added"], s["removed"])
    _write(args, done)
    return 0


def _write(args: argparse.Namespace, done: dict[str, dict]) -> None:
    from importlib.metadata import version

    rows = [done[m] for m in MODULES if m in done]
    not_run = {m: why for m, why in args.not_run_reasons.items() if m not in done}
    results = {"mutmut": version("mutmut"), "python": platform.python_version(), "workers": args.workers,
               "wall_s": round(sum(r["wall_s"] for r in rows), 1), "modules": rows, "not_run": not_run,
               "notes": args.notes}
    args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    args.markdown.write_text(markdown(results))


if __name__ == "__main__":
    sys.exit(main())
