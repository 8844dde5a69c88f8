"""`.consensus/learned.yml` as tables a person reads: counts, rates and their 95% Wilson
score intervals (how much evidence each rate rests on). Pure."""

from __future__ import annotations

from consensus.model.calibration import wilson
from consensus.settings.learned import Learned, OutcomeCounts


def rate(successes: int, n: int) -> str:
    """`63% [41–80%] of 12`, or `– of 0`."""
    if n <= 0:
        return "– of 0"
    measured = wilson(successes, n)
    return f"{measured.value:.0%} [{measured.low:.0%}–{measured.high:.0%}] of {n}"


def _reporter_row(name: str, counts: OutcomeCounts, width: int) -> str:
    decided = counts.fixed + counts.dismissed
    return (
        f"{name:<{width}}  {counts.fixed:>5}  {counts.dismissed:>9}  {counts.left:>4}  "
        f"{rate(counts.fixed, decided)}"
    )


def uncredited_note(lost: dict[str, int]) -> str:
    """What is said of outcomes that name no reporter (`lost`: outcome → how many)."""
    kinds = ", ".join(f"{n} {kind}" for kind, n in lost.items())
    return (
        f"credited to no one: {sum(lost.values())} outcome(s) ({kinds}), recorded by an "
        "earlier version of consensus that did not keep who reported a finding a push fixed; "
        "counted under `uncredited`, in no family's or persona's counts"
    )


def render_learned(learned: Learned, *, source: str) -> str:
    """Reporters (fixed rate among decided findings), judges (TPR on real findings, TNR on
    false ones) and suppressions, each rate with its interval."""
    lines = [f"{source}: counted through {learned.updated_through or '(nothing yet)'}", ""]
    names = [*learned.families, *learned.personas, "family", "persona"]
    width = max(len(n) for n in names)
    for title, rows in (
        ("family", {k: v.reporter for k, v in learned.families.items()}),
        ("persona", dict(learned.personas)),
    ):
        lines.append(f"{title:<{width}}  fixed  dismissed  left  fixed rate [95% CI]")
        lines += [_reporter_row(k, v, width) for k, v in sorted(rows.items())] or ["(none)"]
        lines.append("")
    lost = {kind: n for kind, n in learned.uncredited.model_dump().items() if n}
    if lost:
        lines += [uncredited_note(lost), ""]
    lines.append(
        f"{'judge':<{width}}  TPR (confirms real) [95% CI]    TNR (refutes false) [95% CI]"
    )
    for family, entry in sorted(learned.families.items()):
        judge = entry.judge
        tpr = rate(judge.confirmed_real, judge.confirmed_real + judge.missed_real)
        tnr = rate(judge.refuted_false, judge.refuted_false + judge.confirmed_false)
        lines.append(f"{family:<{width}}  {tpr:<30}  {tnr}")
    lines += ["", f"suppressions: {len(learned.suppressions)}"]
    for rule in learned.suppressions:
        origin = f" (#{rule.pr}, {rule.by})" if rule.pr else ""
        lines.append(f'  {rule.path}  {rule.kind}  "{rule.words}": {rule.reason}{origin}')
    return "\n".join(lines)
