"""Which changed files matter most: the order a review that may not finish spends in.

Pure. A file's tier comes from what ingest already knows about it: tests and
documentation last (a test of a security feature is still a test), files where a secret
was redacted and security-relevant paths (authentication, crypto, secrets, permissions,
CI workflows, dependency manifests) first, then source code, then configuration and build
files; within a tier the larger change first, then the path. A budget stop then leaves
the least important files unreviewed.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from enum import IntEnum

from consensus.model.diff import ChangedFile


class Tier(IntEnum):
    SECURITY = 0
    SOURCE = 1
    CONFIG = 2
    TESTS = 3
    DOCS = 4


_SECURITY = re.compile(
    r"(auth|login|passw|secret|token|crypt|cipher|session|permission|acl|oauth|jwt|csrf|"
    r"sanitiz|escape|security|credential|privilege|sudo|\.github/workflows/|dockerfile|"
    r"requirements[^/]*\.txt$|package\.json$|pyproject\.toml$|setup\.(py|cfg)$|go\.mod$|"
    r"cargo\.toml$|gemfile$|pom\.xml$|build\.gradle)",
    re.IGNORECASE,
)
_TESTS = re.compile(
    r"(^|/)(tests?|spec|__tests__|testing)/|(^|/)(test_[^/]*|[^/]*_test\.\w+|"
    r"[^/]*\.(test|spec)\.\w+|conftest\.py)$",
    re.IGNORECASE,
)
_DOCS = re.compile(
    r"(^|/)(docs?|examples?)/|\.(md|rst|txt|adoc)$|(^|/)(changes|changelog|"
    r"license|authors|notice)[^/]*$",
    re.IGNORECASE,
)
_CONFIG = re.compile(
    r"\.(ya?ml|toml|ini|cfg|json|lock|xml)$|(^|/)(makefile|\.[^/]+rc)$", re.IGNORECASE
)


def tier(changed: ChangedFile, redacted: Collection[str] = ()) -> Tier:
    path = changed.path
    if path in redacted:
        return Tier.SECURITY
    if _TESTS.search(path):
        return Tier.TESTS
    if _DOCS.search(path):
        return Tier.DOCS
    if _SECURITY.search(path):
        return Tier.SECURITY
    if _CONFIG.search(path):
        return Tier.CONFIG
    return Tier.SOURCE


def risk_order(files: Sequence[ChangedFile], redacted: Collection[str] = ()) -> list[ChangedFile]:
    """`files`, riskiest first: by tier, then the larger change, then the path."""
    return sorted(files, key=lambda f: (tier(f, redacted), -(f.added + f.removed), f.path))
