"""The panel as a run's votes show it, in words: each family's rates with their 95%
intervals and what they rest on, for the text report, the markdown summary and the HTML
page (`consensus report`)."""

from __future__ import annotations

from consensus.model.calibration import Rate
from consensus.model.panel import FamilyEstimate, PanelEstimate

HEAD = ("family", "judge: confirms a real claim", "doubts a false one", "its reports real",
        "rests on")  # fmt: skip
TITLE = "Judges, as this run's votes show them"
NOTE = (
    "Estimated from this run's votes and reports (and the repository's labels and earlier "
    "runs, when there are any), with 95% intervals. A blind spot every judge shares cannot "
    "show in votes: only labelled claims reveal it."
)


def interval(rate: Rate) -> str:
    return f"{rate.value:.2f} [{rate.low:.2f}, {rate.high:.2f}]"


def rests_on(family: FamilyEstimate) -> str:
    """ "anthropic judged 9 claims here: refuted 4 of the 5 the panel rejected, confirmed 3
    of the 4 it verified; 120 labelled claims; 80 claims of earlier runs"."""
    plural = "claim" if family.judged == 1 else "claims"
    text = f"{family.family} judged {family.judged} {plural} here"
    said = []
    if family.rejected:
        refuted = f"refuted {family.refuted_rejected} of the {family.rejected}"
        said.append(f"{refuted} the panel rejected")
    if family.verified:
        said.append(f"confirmed {family.confirmed_verified} of the {family.verified} it verified")
    if said:
        text += ": " + ", ".join(said)
    if family.labelled:
        text += f"; {family.labelled} labelled claims"
    if family.pooled >= 1:
        text += f"; {family.pooled:.0f} claims of earlier runs"
    return text


def panel_rows(panel: PanelEstimate) -> list[tuple[str, str, str, str, str]]:
    """One row per family, in the order of HEAD."""
    return [
        (f.family, interval(f.tpr), interval(f.tnr), interval(f.precision), rests_on(f))
        for f in panel.families
    ]


def panel_lines(panel: PanelEstimate) -> list[str]:
    """The text report's lines: one per family."""
    lines = [f"{TITLE} ({panel.judged} of {panel.claims} claims judged):"]
    for family, tpr, tnr, precision, rests in panel_rows(panel):
        lines.append(
            f"  {family}: confirms a real claim {tpr} · doubts a false one {tnr} · its "
            f"reports real {precision} — {rests}"
        )
    return lines
