"""MkDocs hooks: pages of the site that live outside docs/, each kept in one place.

The benchmark results are written by the scripts in benchmarks/ and CONTRIBUTING.md sits at the
repository's root, where GitHub shows it. The site takes them as they are instead of a copy. Their
links into docs/ are written for GitHub (``docs/how-to/...``); in the site, docs/ is the root.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ("CONTRIBUTING.md", "CHANGELOG.md", "benchmarks/RESULTS.md", "benchmarks/HISTORY.md", "benchmarks/REDTEAM.md",
           "benchmarks/MUTATION.md", "benchmarks/scaling.png")


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path in OUTSIDE:
        files.append(File(path, src_dir=str(ROOT), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri in OUTSIDE and "/" not in page.file.src_uri:
        return re.sub(r"\]\(docs/", "](", markdown)
    return markdown
