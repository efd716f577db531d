"""The bundled demo corpus (``auditor demo``), shipped as data: see :mod:`~auditor.demo.corpus`."""

from auditor.demo.corpus import CORPUS_ZIP, write_corpus

__all__ = ["CORPUS_ZIP", "write_corpus"]
