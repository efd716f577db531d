"""The extraction sandbox: limits, protocol failures, dying with the parent, and the PDF guards."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict

import pytest

from auditor.corpus.ingest import _POOL, _PrepareWorker
from auditor.errors import ExtractionError
from auditor.extract import Limits, extract_bytes
from auditor.extract.pdf import worker as pdf_worker
from auditor.extract.prepare import handle
from auditor.text.shingle import Params
from tests.support import hostile
from tests.support.fixtures_build import make_docx, make_pdf
from tests.support.textgen import prose


def code_of(data: bytes, **limits) -> str:
    with pytest.raises(ExtractionError) as info:
        extract_bytes(data, limits=Limits(**limits))
    return info.value.code


@pytest.mark.parametrize("kind", ["contents", "pages"])
def test_a_pdf_whose_references_loop_fails_at_once_instead_of_spinning(kind):
    data = hostile.cycle_pdf(kind)
    assert len(data) < 800
    with pytest.raises(ExtractionError) as info:
        extract_bytes(data, limits=Limits(pdf_timeout=600))  # a regression would hang here for 10 min
    assert info.value.code == "pdf_error" and "cycle of indirect references" in str(info.value)
    assert extract_bytes(make_pdf([prose(1, 80)])).text.split()[:3] == prose(1, 80).split()[:3]


def prepare_request(data_name: str = "x.txt", **limits) -> dict:
    return {"name": data_name, "timeout": 60, "limits": asdict(Limits(**limits)), "params": Params().as_dict()}


def test_the_prepare_job_gives_what_ingest_stores():
    text = prose(2, 300)
    answer, blobs = _POOL.run(prepare_request(), text.encode(), memory=2**30, deadline=time.monotonic() + 60)
    in_process = handle(prepare_request(), text.encode())
    assert answer["doc"] == in_process[0]["doc"] and blobs == in_process[1]
    assert blobs[answer["doc"]["text"]].decode() == extract_bytes(text.encode()).text


def test_an_unexpected_exception_in_the_child_is_an_internal_error():
    bad = prepare_request()
    bad["limits"]["no_such_limit"] = 1  # Limits(**...) raises TypeError inside the child
    worker = _PrepareWorker(2**30)
    try:
        with pytest.raises(ExtractionError) as info:
            worker.call(bad, b"some text", time.monotonic() + 60)
        assert info.value.code == "internal_error" and "TypeError" in str(info.value)
        answer, _ = worker.call(prepare_request(), prose(3, 100).encode(), time.monotonic() + 60)
        assert answer["doc"]["n_words"] > 0  # the same child goes on serving
    finally:
        worker.close()


@pytest.mark.slow
def test_a_docx_bomb_fails_on_the_memory_limit_and_a_normal_docx_does_not(tmp_path):
    bomb = tmp_path / "bomb.docx"
    hostile.docx_bomb(bomb, 600 * 2**20)
    assert bomb.stat().st_size < 6 * 2**20
    memory = 384 * 2**20
    deadline = time.monotonic() + 120
    with pytest.raises(ExtractionError) as info:
        _POOL.run(prepare_request("bomb.docx"), bomb.read_bytes(), memory=memory, deadline=deadline)
    assert info.value.code == "memory"
    normal = make_docx([prose(4, 200), prose(5, 200)])
    answer, _ = _POOL.run(prepare_request("fine.docx"), normal, memory=memory, deadline=deadline)
    assert answer["doc"]["format"] == "docx" and answer["doc"]["n_words"] > 300


def test_cancel_kills_the_child_at_once():
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    worker = pdf_worker._Worker(2**30)
    try:
        with pytest.raises(ExtractionError) as info:
            worker.call({"max_pages": 5000, "max_chars": 10**9, "timeout": 600}, hostile.slow_pdf(),
                        time.monotonic() + 600, cancel)
        assert info.value.code == "pdf_cancelled"
        assert worker.proc.returncode is not None
    finally:
        worker.close()


def test_a_child_started_from_a_short_lived_thread_outlives_that_thread():
    """PR_SET_PDEATHSIG fires when the forking *thread* ends: children are forked by a spawner
    thread that lives as long as the process, so a caller's thread may come and go."""
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("w", pdf_worker._Worker(2**30)))
    t.start()
    t.join()
    worker = box["w"]
    try:
        result = worker.extract(make_pdf(["Still here."]), {"max_pages": 10, "max_chars": 10**6, "timeout": 60},
                                time.monotonic() + 60)
        assert result.pages[0].split() == ["Still", "here."]
    finally:
        worker.close()


HOLDER = """
import json, sys, time
sys.path.insert(0, {root!r})
from dataclasses import asdict
from auditor.extract.pdf import worker as pdf_worker
from auditor.extract import Limits
from auditor.corpus.ingest import _PrepareWorker
from auditor.text.shingle import Params
from tests.support.hostile import slow_pdf
pdf = slow_pdf()
requests = [(pdf_worker._Worker(2**30), {{"max_pages": 5000, "max_chars": 10**9, "timeout": 600}}),
            (_PrepareWorker(2**30), {{"name": "slow.pdf", "timeout": 600, "params": Params().as_dict(),
                                     "limits": asdict(Limits(pdf_timeout=600, timeout=600))}})]
for w, req in requests:  # both busy on a PDF that takes minutes; the answers are never read
    w.proc.stdin.write(json.dumps({{**req, "size": len(pdf)}}).encode() + b"\\n" + pdf)
    w.proc.stdin.flush()
print("ready", flush=True)
time.sleep(600)
"""


@pytest.mark.slow
def test_busy_children_die_with_a_parent_killed_by_sigkill():
    """Busy children never read their stdin's end of file: only PR_SET_PDEATHSIG (or the
    watchdog) can stop them when the parent is gone."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    holder = subprocess.Popen([sys.executable, "-c", HOLDER.format(root=root)], stdout=subprocess.PIPE, text=True)
    kids: dict = {}
    try:
        assert holder.stdout.readline().strip() == "ready"

        def three_busy():  # the PDF child, the prepare child and the PDF child it started
            kids = hostile.descendants(holder.pid)
            return kids if len(kids) == 3 else None
        kids = hostile.wait_for(three_busy, 60) or {}
        assert kids, hostile.descendants(holder.pid)
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        gone = hostile.wait_for(lambda: not any(hostile.alive(p, s) for p, s in kids.items()), 10)
        assert gone, [hostile.cmdline(p) for p, s in kids.items() if hostile.alive(p, s)]
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
        for p, s in kids.items():  # survivors of a failed test, reparented by now
            if hostile.alive(p, s):
                os.kill(p, signal.SIGKILL)
