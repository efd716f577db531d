"""Human-readable renderings of a report (placeholder until the full renderer lands)."""

from __future__ import annotations

import html as _html
import json
from typing import Any


def markdown(report: dict[str, Any]) -> str:
    return "# Containment audit\n\n```json\n" + json.dumps(report["controls"], indent=2) + "\n```\n"


def html(report: dict[str, Any]) -> str:
    return "<!doctype html><meta charset=utf-8><pre>" + _html.escape(markdown(report)) + "</pre>"
