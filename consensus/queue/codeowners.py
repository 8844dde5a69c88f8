"""CODEOWNERS: who owns a path. Pure.

GitHub's rules: one pattern and its owners per line, `#` comments, gitignore-style
patterns, and the LAST matching line wins (a line without owners leaves a path unowned).
Owners are `@login` or `@org/team`; e-mail owners cannot be requested as reviewers and
are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from consensus.ingest.pathfilter import Glob
from consensus.model.base import Frozen

# Where GitHub looks, in this order; the first that exists is used.
CODEOWNERS_PATHS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")


class OwnerRule(Frozen):
    pattern: str
    owners: tuple[str, ...]  # logins and org/team names, without '@'


def parse_codeowners(text: str) -> tuple[OwnerRule, ...]:
    rules = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        pattern, *owners = line.split()
        names = tuple(o[1:] for o in owners if o.startswith("@") and len(o) > 1)
        rules.append(OwnerRule(pattern=pattern, owners=names))
    return tuple(rules)


def owners_of(path: str, rules: Sequence[OwnerRule]) -> tuple[str, ...]:
    """The owners of `path`: those of the last rule that matches it."""
    for rule in reversed(rules):
        if Glob(rule.pattern).matches(path):
            return rule.owners
    return ()


def owners_of_all(paths: Iterable[str], rules: Sequence[OwnerRule]) -> tuple[str, ...]:
    """Everyone who owns at least one of `paths`, sorted."""
    found: set[str] = set()
    for path in paths:
        found.update(owners_of(path, rules))
    return tuple(sorted(found, key=str.lower))
