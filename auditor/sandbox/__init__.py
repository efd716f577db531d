"""Layer 2, sandbox: untrusted input is parsed in killable, memory-limited child processes.

:mod:`.pool` starts and feeds the children (``python -m auditor.sandbox JOB``); :mod:`.lifetime`
makes them die with their parent. It holds no format's reading rules: the jobs are those of
:mod:`auditor.extract` (``pdf``: :mod:`auditor.extract.pdf.job`; ``prepare``:
:mod:`auditor.extract.prepare`), found by name in ``pool.JOBS``. A child imports only this layer, :mod:`auditor.extract`
and :mod:`auditor.text` (tests/project/test_layout.py checks it): never the store or the batch machinery.
"""
