"""The CI formats the gate writes, checked against their published schemas (tests/data/README.md)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
from lxml import etree

DATA = Path(__file__).resolve().parents[1] / "data"


@functools.cache
def _sarif_validator() -> jsonschema.Draft4Validator:
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


@functools.cache
def _junit_schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(DATA / "junit-10.xsd")))


def validate_sarif(log: dict[str, Any]) -> None:
    """Raise with every violation of the OASIS SARIF 2.1.0 schema."""
    errors = sorted(_sarif_validator().iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:20])


def validate_junit(data: bytes) -> etree._Element:
    """Parse with a strict XML 1.0 parser (no recovery) and validate against the JUnit XSD."""
    root = etree.fromstring(data, etree.XMLParser(recover=False, resolve_entities=False))
    schema = _junit_schema()
    assert schema.validate(root), "\n".join(str(e) for e in schema.error_log)
    return root
