"""MkDocs hooks of the documentation site (mkdocs.yml `hooks:`).

- The configuration reference is generated from the settings models at every build
  (`consensus.settings.reference`): docs/configuration.md holds a marker where it goes.
- BENCHMARKS.md, assembled by benchmarks/report.py at the repository's root, is served as a
  page of the site, so the benchmark pages link to its sections and the strict build
  checks those links.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

from consensus.settings.reference import MARKER, settings_reference

ROOT = Path(__file__).resolve().parents[2]
SERVED = ("BENCHMARKS.md",)  # files of the repository's root served as pages


def on_files(files: Files, config: Any) -> Files:
    for name in SERVED:
        files.append(File(name, str(ROOT), config["site_dir"], config["use_directory_urls"]))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    if page.file.src_uri in SERVED:  # written for GitHub at the root: docs/x.png is x.png here
        return markdown.replace("](docs/", "](")
    if MARKER in markdown:
        return markdown.replace(MARKER, settings_reference())
    return markdown
