"""Layer 2, sandbox: untrusted input is parsed in killable, memory-limited child processes.

:mod:`.pool` starts and feeds the children (``python -m auditor.sandbox JOB``), :mod:`.pdfworker`
is the PDF job (pdfminer.six, page by page). A child imports only this layer, :mod:`auditor.extract`
and :mod:`auditor.text` (tests/project/test_layout.py checks it): never the store or the batch machinery.
"""
