"""The Spark audit on a standalone cluster (a master and two workers on this machine) gives the
SQLite audit, finish included: the pairs cross processes, the families, groups and spans are
computed in the workers' Python processes, and the driver receives what the report prints.

The master and the workers are the Spark distribution that PySpark ships (``spark-class``),
bound to 127.0.0.1, one core and 1 GB each. They are started by the fixture and stopped by it,
by their process ids.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auditor.extras import spark_missing

_why = spark_missing()
if _why:
    pytest.skip(f"Spark engine tests skipped: {_why}", allow_module_level=True)

from auditor.corpus.ingest import ingest  # noqa: E402
from auditor.engine.audit import run_audit  # noqa: E402
from auditor.engine.spark_engine import run_audit_spark, session  # noqa: E402
from auditor.store.db import Store  # noqa: E402
from tests.support import synth  # noqa: E402
from tests.support.same_audit import assert_same  # noqa: E402

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spark_class() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


def _wait_for(log: Path, text: str, proc: subprocess.Popen, seconds: float = 120) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            raise RuntimeError(f"{log.name} exited ({proc.returncode}): {log.read_text()[-2000:]}")
        time.sleep(0.5)
    raise RuntimeError(f"no {text!r} in {log} after {seconds} s: {log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    d = tmp_path_factory.mktemp("spark-cluster")
    port = _free_port()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "SPARK_WORKER_DIR": str(d / "work"), "SPARK_LOG_DIR": str(d)}
    started: list[subprocess.Popen] = []
    logs: list = []

    def start(name: str, *args: str) -> tuple[subprocess.Popen, Path]:
        log = d / f"{name}.log"
        logs.append(log.open("w"))
        p = subprocess.Popen([str(_spark_class()), *args], stdout=logs[-1], stderr=subprocess.STDOUT, env=env)
        started.append(p)
        return p, log

    try:
        master, mlog = start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                             "--port", str(port), "--webui-port", str(_free_port()))
        _wait_for(mlog, "I have been elected leader", master)
        url = f"spark://127.0.0.1:{port}"
        for i in range(2):
            w, wlog = start(f"worker-{i}", "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1",
                            "--cores", "1", "--memory", "1g", "--webui-port", str(_free_port()))
            _wait_for(wlog, "Successfully registered with master", w)
        yield url
    finally:
        for p in reversed(started):
            p.terminate()
        for p in started:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for f in logs:
            f.close()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("cluster-corpus")
    docs = d / "docs"
    docs.mkdir()
    contracts = [synth.contract(900 + i, 6_000) for i in range(3)]
    for i, c in enumerate(contracts):
        (docs / f"contract-{i}.txt").write_text(c)
    (docs / "f-verbatim.txt").write_text(synth.filing(910, 20_000, exhibits=[contracts[0]])[0])
    (docs / "f-partial.txt").write_text(synth.filing(911, 20_000, exhibits=[synth.partial(contracts[1], 0.85, 2)])[0])
    for day in (1, 2, 3):  # a family
        (docs / f"cert-{day}.txt").write_text(synth.certification(930, f"May {day}, 2024"))
    (docs / "tiny.txt").write_text("Section 1. Definitions.")
    with Store(d / "corpus.db") as s:
        ingest(s, [docs], workers=1)
        yield s


def test_a_standalone_cluster_gives_the_sqlite_audit(cluster, store, tmp_path):
    spark = session(cluster, config={"spark.ui.enabled": "false", "spark.executor.memory": "768m",
                                     "spark.executor.cores": "1", "spark.cores.max": "2",
                                     "spark.sql.shuffle.partitions": "4", "spark.pyspark.python": sys.executable,
                                     "spark.driver.host": "127.0.0.1", "spark.driver.memory": "1g"})
    try:
        ref = run_audit(store, 0.8)
        got = run_audit_spark(store, 0.8, spark=spark, master=cluster, workdir=tmp_path / "work")
        executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1  # less the driver
        assert executors == 2
        assert len(ref.containing) >= 2 and ref.families
        assert_same(ref, got)
    finally:
        spark.stop()
