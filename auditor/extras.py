"""What the optional Spark engine needs on this machine, checked before it is used.

Without these checks a missing extra surfaces as ``ModuleNotFoundError`` deep inside the audit,
and a missing Java as a Py4J gateway error after a long wait.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from auditor.errors import UsageError

SPARK_INSTALL = ("pip install 'containment-auditor[spark]' (from a clone of the repository: "
                 "pip install -e '.[spark]')")
JAVA_VERSIONS = (17, 21)  # what Spark 4 supports


def java_problem() -> str | None:
    """Why no usable Java runtime is found (as PySpark finds it: $JAVA_HOME, else PATH), or None."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    where = f"$JAVA_HOME ({home})" if home else "PATH"
    if not java or not os.access(java, os.X_OK):
        return (f"no Java runtime on {where}: Spark 4 needs Java {' or '.join(map(str, JAVA_VERSIONS))} "
                "(for example `apt-get install openjdk-17-jre-headless`, or set JAVA_HOME)")
    try:
        r = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"`{java} -version` did not run: {e}"
    if r.returncode != 0:
        return f"`{java} -version` failed (exit {r.returncode}): {(r.stderr or r.stdout).strip()[:200]}"
    m = re.search(r'version "(\d+)(?:\.(\d+))?', r.stderr + r.stdout)
    if m:
        major = int(m.group(2)) if m.group(1) == "1" else int(m.group(1))  # "1.8.0" is Java 8
        if major < min(JAVA_VERSIONS):
            return f"{java} is Java {major}; Spark 4 needs Java {' or '.join(map(str, JAVA_VERSIONS))}"
    return None


def spark_missing() -> str | None:
    """Why the Spark engine cannot run here (the extra or Java missing), or None."""
    absent = []
    for module in ("pyspark", "pyarrow", "pandas"):
        try:
            __import__(module)
        except ImportError:
            absent.append(module)
    if absent:
        return f"the Spark engine needs {', '.join(absent)}, which is not installed: {SPARK_INSTALL}"
    return java_problem()


def require_spark() -> None:
    """Raise ``UsageError`` (exit 2) saying what to install when the Spark engine cannot run."""
    why = spark_missing()
    if why:
        raise UsageError(why)
