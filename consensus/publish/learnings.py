"""From closed PRs' outcomes to `.consensus/learned.yml`, and back to what a review does
with it. Pure.

- `learn`: the file with the outcomes of PRs closed after its `updated_through` added:
  each reporting family's and persona's finding fixed / dismissed / left (an outcome that
  names no reporter, recorded by an earlier version, in `uncredited`); each judge's
  verdict against the outcome (fixed = real, dismissed = false); each finding a
  maintainer dismissed *with a reason* as a suppression (its directory and extension, its
  defect kind, its title, the reason); and each closed PR's last run's estimate of its
  panel (the state's `panel`), pooled (model/history.py) into `panel`. Only a PR with
  outcomes or with claims in that estimate is counted, and only it moves
  `updated_through`: a run with nothing new, or only PRs with neither (no model reviewed
  them, or their reviewers reported nothing), changes nothing;
- `suppression_for`: the suppression a new finding matches (path pattern, kind, and at
  least half of the suppression's words), so it goes to the summary, never inline;
  `came_back_for`: the fix of an earlier PR a new finding repeats (same file, kind, words),
  posted with "this came back after #N fixed it".

Every review's estimate of its panel starts from the file's family counts (labels) and
its pooled `panel` (settings/learned.py, `learned_calibration`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from consensus.decide.problem_kinds import kinds
from consensus.ingest.pathfilter import PathRules
from consensus.model.base import Category, FindingSource, Frozen, VerdictKind
from consensus.model.history import PanelTally
from consensus.model.report import ReportFinding
from consensus.publish.decided import FindingOutcome
from consensus.publish.plan import Marks
from consensus.settings.learned import (
    FamilyLearning,
    Fix,
    Learned,
    OutcomeCounts,
    Suppression,
)

# A static analyzer's rule (credited as "ruff:F821" beside "ruff": publish/records.py)
# dismissed this often, and more often than fixed, no longer posts on its own.
RULE_DISMISSALS = 2
MAX_SUPPRESSIONS = 500
MAX_FIXES = 300
_WORD = re.compile(r"[a-z0-9_]{3,}")


class ClosedPull(Frozen):
    """A closed PR's outcomes, as its summary's state recorded them at close."""

    number: int
    closed_at: str  # ISO 8601, as GitHub writes it
    outcomes: tuple[FindingOutcome, ...] = ()
    panel: PanelTally | None = None  # what its last run estimated of the panel


def counted(learned: Learned, pulls: Sequence[ClosedPull]) -> list[ClosedPull]:
    """The PRs `learn` counts: closed after `updated_through`, with outcomes or with claims
    its last run's estimate of the panel read; oldest first."""
    return sorted(
        (p for p in pulls if p.closed_at > learned.updated_through and _taught(p)),
        key=lambda p: (p.closed_at, p.number),
    )


def _taught(pull: ClosedPull) -> bool:
    return bool(pull.outcomes) or (pull.panel is not None and not pull.panel.empty)


def learn(learned: Learned, pulls: Sequence[ClosedPull]) -> Learned:
    """`learned` with the PRs closed after `updated_through` counted, oldest first."""
    new = counted(learned, pulls)
    if not new:
        return learned
    families = {k: v.model_dump() for k, v in learned.families.items()}
    personas = {k: v.model_dump() for k, v in learned.personas.items()}
    uncredited = learned.uncredited.model_dump()
    suppressions = list(learned.suppressions)
    known = {(s.path, s.kind, s.words) for s in suppressions}
    fixes = {(f.path, f.kind, f.words): f for f in learned.fixes}
    panel = learned.panel
    for pull in new:
        if pull.panel is not None:
            panel = pull.panel if panel is None else panel.plus(pull.panel)
        for outcome in pull.outcomes:
            if not outcome.credited:
                uncredited[outcome.outcome] += 1
            for family in outcome.families:
                entry = families.setdefault(family, FamilyLearning().model_dump())
                entry["reporter"][outcome.outcome] += 1
            for persona in outcome.personas:
                counts = personas.setdefault(persona, OutcomeCounts().model_dump())
                counts[outcome.outcome] += 1
            if outcome.outcome != "left":
                real = outcome.outcome == "fixed"
                for judge in outcome.judges:
                    verdict = _judge_key(judge.verdict, real=real)
                    if verdict:
                        entry = families.setdefault(judge.family, FamilyLearning().model_dump())
                        entry["judge"][verdict] += 1
            if outcome.outcome == "fixed":
                kind = finding_kind(outcome.title, "", outcome.category)
                words = " ".join(outcome.title.split())[:300]
                fixes.pop((outcome.path, kind, words), None)  # the newest PR last
                fixes[(outcome.path, kind, words)] = Fix(
                    path=outcome.path, kind=kind, words=words, pr=pull.number
                )
            rule = _suppression(outcome, pull.number)
            if rule is not None and (rule.path, rule.kind, rule.words) not in known:
                known.add((rule.path, rule.kind, rule.words))
                suppressions.append(rule)
    return Learned.model_validate(
        {
            "version": 1,
            "updated_through": new[-1].closed_at,
            "families": families,
            "personas": personas,
            "uncredited": uncredited,
            "suppressions": [s.model_dump() for s in suppressions[-MAX_SUPPRESSIONS:]],
            "fixes": [f.model_dump() for f in list(fixes.values())[-MAX_FIXES:]],
            "panel": panel.model_dump() if panel is not None else None,
        }
    )


def _judge_key(verdict: VerdictKind, *, real: bool) -> str:
    if verdict is VerdictKind.CONFIRMED:
        return "confirmed_real" if real else "confirmed_false"
    if verdict is VerdictKind.REFUTED:
        return "missed_real" if real else "refuted_false"
    return ""  # uncertain says nothing either way


def path_pattern(path: str) -> str:
    """The pattern a suppression covers: the finding's directory, any depth, same extension
    (`src/app/db.py` → `src/app/**/*.py`); a person can widen or narrow it in the file."""
    pure = PurePosixPath(path)
    parent = "" if str(pure.parent) == "." else f"{pure.parent}/"
    name = f"*{pure.suffix}" if pure.suffix else pure.name
    return f"/{parent}**/{name}" if parent else f"/{name}"


def finding_kind(title: str, body: str, category: Category | None) -> str:
    """The defect kind a suppression is keyed on: the first its title names (else its body),
    else the category."""
    named = sorted(kinds(title.lower()) or kinds(body.lower()))
    return named[0] if named else (category.value if category else "other")


def _suppression(outcome: FindingOutcome, number: int) -> Suppression | None:
    if outcome.outcome != "dismissed" or not outcome.reason.strip() or not outcome.by:
        return None
    return Suppression(
        path=path_pattern(outcome.path),
        kind=finding_kind(outcome.title, "", outcome.category),
        words=" ".join(outcome.title.split())[:300],
        reason=outcome.reason[:300],
        pr=number,
        by=outcome.by,
    )


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def suppression_for(
    learned: Learned, *, path: str, title: str, body: str, category: Category | None
) -> Suppression | None:
    """The first suppression a finding matches: its path, its kind, and at least half of the
    suppression's words among the finding's title and body."""
    named = kinds(f"{title}\n{body}".lower()) | ({category.value} if category else set())
    said = _words(f"{title} {body}")
    for rule in learned.suppressions:
        if rule.kind != "other" and rule.kind not in named:
            continue
        if not PathRules([rule.path]).matches(path):
            continue
        wanted = _words(rule.words)
        if wanted and len(wanted & said) * 2 >= len(wanted):
            return rule
    return None


def came_back_for(
    learned: Learned, *, path: str, title: str, body: str, category: Category | None
) -> Fix | None:
    """The latest fix a finding repeats: the same file, kind and most of the words."""
    named = kinds(f"{title}\n{body}".lower()) | ({category.value} if category else set())
    said = _words(f"{title} {body}")
    for fix in reversed(learned.fixes):
        if fix.path != path or (fix.kind != "other" and fix.kind not in named):
            continue
        wanted = _words(fix.words)
        if wanted and len(wanted & said) * 2 >= len(wanted):
            return fix
    return None


def noisy_rule(learned: Learned, finding: ReportFinding) -> str:
    """Why an analyzer's finding that no model reported no longer posts on its own: its
    rule was dismissed at least RULE_DISMISSALS times on closed pull requests, and more
    often than fixed; "" when it still may."""
    if finding.found_by_models or not finding.status.posted:
        return ""
    for member in finding.members:
        if member.source is not FindingSource.ANALYZER or not member.rule:
            continue
        entry = learned.families.get(f"{member.family}:{member.rule}")
        counts = entry.reporter if entry is not None else OutcomeCounts()
        if counts.dismissed >= RULE_DISMISSALS and counts.dismissed > counts.fixed:
            return (
                f"{member.family} {member.rule} was dismissed {counts.dismissed} times where it "
                f"was posted before (fixed {counts.fixed}): it no longer posts on its own"
            )
    return ""


def learned_marks(learned: Learned, findings: Sequence[ReportFinding]) -> Marks:
    """What the summary (suppressed) or the inline comment (came back) says of a finding."""
    suppressed: dict[str, str] = {}
    came_back: dict[str, str] = {}
    for finding in findings:
        path, title, body, category = (
            finding.path,
            finding.title,
            finding.body,
            finding.category,
        )
        noisy = noisy_rule(learned, finding)
        if noisy:
            suppressed[finding.fingerprint] = noisy
            continue
        rule = suppression_for(learned, path=path, title=title, body=body, category=category)
        if rule is not None:
            why = f": {rule.reason}" if rule.reason else ""
            origin = f" in #{rule.pr}" if rule.pr else ""
            suppressed[finding.fingerprint] = f"suppressed by a maintainer's decision{origin}{why}"
            continue
        fix = came_back_for(learned, path=path, title=title, body=body, category=category)
        if fix is not None:
            came_back[finding.fingerprint] = f"This came back after #{fix.pr} fixed it."
    return Marks(suppressed=suppressed, came_back=came_back)
