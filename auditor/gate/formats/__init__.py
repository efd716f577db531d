"""The gate's CI outputs, one small module per format, each naming the spec it follows:
:mod:`~auditor.gate.formats.junit` (JUnit XML), :mod:`~auditor.gate.formats.sarif` (SARIF 2.1.0),
:mod:`~auditor.gate.formats.summary` (the Markdown step summary) and
:mod:`~auditor.gate.formats.annotations` (GitHub workflow commands).

Each is a pure function of a :class:`~auditor.gate.findings.GateResult`; a new format is a new
module here, written from ``write_artifacts`` in :mod:`auditor.gate.admission`.
"""
