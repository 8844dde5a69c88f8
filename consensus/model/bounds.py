"""The bounds of what a repository's own files may set (`.consensus.yml`, its saved
workflows and personas, `.consensus/learned.yml`, a calibration file): every list, mapping,
number and text has one, generous for real use, so that a pull request that edits those
files on the target branch cannot make a run ask hundreds of judges, read thousands of
patterns or hold an unbounded count. Past a bound, the file's error names the key, the
bound and the value (settings/problems.py); the configuration reference shows each one.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

MAX_PROVIDERS = 16  # providers, voters: a panel of more families than any vendor list
MAX_PERSONAS = 32
MAX_PATTERNS = 256  # paths, exclude, sensitive paths: .gitignore lines
MAX_REGEXES = 64  # redact, ignore.title
MAX_LOGINS = 64  # agents, bots, authors, reviewers, labels
MAX_FOLDERS = 16  # persona_dirs, guideline files
MAX_INSTRUCTIONS = 64  # path_instructions entries
MAX_FAMILIES = 64  # families a learnings or calibration file keeps counts of
MAX_LEARNED = 5_000  # suppressions, fixes
MAX_COUNT = 1_000_000_000  # one count of outcomes, labels or pooled votes
MAX_WINDOW = 100_000_000  # tokens of a context window
MAX_TOKENS = 1_000_000_000  # tokens of a budget
MAX_USD = 100_000.0  # US dollars of a budget
MAX_ANALYZERS = 8  # analyzers a review runs (ruff, semgrep)
MAX_SARIF_FILES = 16  # SARIF files a review reads: one per tool an earlier CI step ran

# A name: a model string, a family, a persona id, a login, a label.
Name = Annotated[str, StringConstraints(max_length=200)]
# A .gitignore pattern or a path from the repository's root.
Glob = Annotated[str, StringConstraints(max_length=1_000)]
# A regular expression (RE2 runs it in linear time; its size is what it costs to compile).
Regex = Annotated[str, StringConstraints(max_length=500)]
# Instructions a person wrote for the reviewers.
Prose = Annotated[str, StringConstraints(max_length=20_000)]
