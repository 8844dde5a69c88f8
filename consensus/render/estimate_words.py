"""The judges as a run's votes show them, in words: each family's rates with their 95%
intervals and what they rest on, for the text report, the markdown summary and the HTML
page (`consensus report`)."""

from __future__ import annotations

from consensus.model.calibration import Rate
from consensus.model.panel import FamilyEstimate, PanelEstimate

HEAD = ("family", "judge: confirms a real finding", "doubts a false one", "its reports real",
        "rests on")  # fmt: skip
TITLE = "Judges, as this run's votes show them"
NOTE = (
    "Estimated from this run's votes and reports (and the repository's labels and earlier "
    "runs, when there are any), with 95% intervals. A blind spot every judge shares cannot "
    "show in votes: only labelled findings reveal it."
)


def interval(rate: Rate) -> str:
    return f"{rate.value:.2f} [{rate.low:.2f}, {rate.high:.2f}]"


def rests_on(family: FamilyEstimate) -> str:
    """ "anthropic judged 9 findings here: refuted 4 of the 5 the judges rejected, confirmed
    3 of the 4 they verified; 120 labelled findings; 80 findings of earlier runs"."""
    plural = "finding" if family.judged == 1 else "findings"
    text = f"{family.family} judged {family.judged} {plural} here"
    said = []
    if family.rejected:
        refuted = f"refuted {family.refuted_rejected} of the {family.rejected}"
        said.append(f"{refuted} the judges rejected")
    if family.verified:
        confirmed = f"confirmed {family.confirmed_verified} of the {family.verified}"
        said.append(f"{confirmed} they verified")
    if said:
        text += ": " + ", ".join(said)
    if family.labelled:
        text += f"; {family.labelled} labelled findings"
    if family.pooled >= 1:
        text += f"; {family.pooled:.0f} findings of earlier runs"
    return text


def panel_rows(panel: PanelEstimate) -> list[tuple[str, str, str, str, str]]:
    """One row per family, in the order of HEAD."""
    return [
        (f.family, interval(f.tpr), interval(f.tnr), interval(f.precision), rests_on(f))
        for f in panel.families
    ]


def panel_lines(panel: PanelEstimate) -> list[str]:
    """The text report's lines: one per family."""
    lines = [f"{TITLE} ({panel.judged} of {panel.claims} findings judged):"]
    for family, tpr, tnr, precision, rests in panel_rows(panel):
        lines.append(
            f"  {family}: confirms a real finding {tpr} · doubts a false one {tnr} · its "
            f"reports real {precision} — {rests}"
        )
    return lines
