"""CODEOWNERS: who owns a path. Pure.

GitHub's rules (docs: "About code owners"): one pattern and its owners per line, `#`
comments, and the LAST matching line wins (a line without owners leaves a path unowned).
Patterns are .gitignore patterns with three differences, which `Glob` follows:

- `docs/*` owns the files directly in `docs/` but not `docs/build/b.md` (in a .gitignore
  it would reach them through `docs/build`); `docs/`, `docs` and `docs/**` own everything
  below; a pattern without a slash matches at any depth (`*.js`), a leading `/` anchors;
- `!` negation is not supported and `[ ]` character classes are not either: GitHub skips
  such a line, and so do we, with the reason in `OwnerRule.problem`;
- a backslash does not escape a leading `#`: such a line stays a comment.

Patterns are case-sensitive. Owners are `@login` or `@org/team`; e-mail owners cannot be
requested as reviewers and are left out.
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
    line: int = 0  # in the file, from 1
    problem: str | None = None  # why GitHub skips this line; such a rule matches nothing


def parse_codeowners(text: str) -> tuple[OwnerRule, ...]:
    """Every rule in file order, the lines GitHub skips included (with their `problem`)."""
    rules = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "\\#")):
            continue
        pattern, *owners = line.split()
        names = tuple(o[1:] for o in owners if o.startswith("@") and len(o) > 1)
        rules.append(
            OwnerRule(pattern=pattern, owners=names, line=number, problem=_problem(pattern))
        )
    return tuple(rules)


def _problem(pattern: str) -> str | None:
    if pattern.startswith("!"):
        return "GitHub does not support '!' negation in CODEOWNERS: the line is skipped"
    if "[" in pattern and "]" in pattern[pattern.index("[") :]:
        return "GitHub does not support '[ ]' character ranges in CODEOWNERS: the line is skipped"
    return None


def owners_of(path: str, rules: Sequence[OwnerRule]) -> tuple[str, ...]:
    """The owners of `path`: those of the last valid rule that matches it."""
    for rule in reversed(rules):
        if rule.problem is None and Glob(rule.pattern).matches(path):
            return rule.owners
    return ()


def skipped_rules(rules: Sequence[OwnerRule]) -> list[str]:
    """One line for each rule GitHub skips: 'CODEOWNERS:3: `!x`: why'."""
    return [f"CODEOWNERS:{r.line}: `{r.pattern}`: {r.problem}" for r in rules if r.problem]


def owners_of_all(paths: Iterable[str], rules: Sequence[OwnerRule]) -> tuple[str, ...]:
    """Everyone who owns at least one of `paths`, sorted."""
    found: set[str] = set()
    for path in paths:
        found.update(owners_of(path, rules))
    return tuple(sorted(found, key=str.lower))
