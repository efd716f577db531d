"""The gate's CI outputs, one small module per format, each naming the spec it follows:
:mod:`~auditor.gating.formats.junit` (JUnit XML), :mod:`~auditor.gating.formats.sarif` (SARIF 2.1.0),
:mod:`~auditor.gating.formats.summary` (the Markdown step summary) and
:mod:`~auditor.gating.formats.annotations` (GitHub workflow commands).

Each is a pure function of a :class:`~auditor.gating.findings.GateResult`; a new format is a new
module here, written from ``write_artifacts`` in :mod:`auditor.gating.admission`.
"""
