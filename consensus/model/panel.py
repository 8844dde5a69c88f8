"""What a run learned of its panel: each provider family's rates as a judge and as a
reporter, estimated from the run's own votes (decide/panel_rates.py), with what they rest
on, and the soft counts the run adds to the repository's history (model/history.py)."""

from __future__ import annotations

from consensus.model.base import Frozen
from consensus.model.calibration import Rate
from consensus.model.history import PanelTally


class FamilyEstimate(Frozen):
    """One family's estimated rates, with 95% intervals, and what they rest on here."""

    family: str
    tpr: Rate  # as a judge: confirms a real claim
    tnr: Rate  # as a judge: refutes (or doubts) a false one
    precision: Rate  # as a reporter: its claims that are real
    judged: int = 0  # claims it judged in this run
    rejected: int = 0  # of those, the ones the panel rejected
    refuted_rejected: int = 0  # … that it refuted or doubted
    verified: int = 0  # of those, the ones the panel verified
    confirmed_verified: int = 0  # … that it confirmed
    labelled: int = 0  # labelled claims behind the rates (a calibration, the learnings)
    pooled: float = 0.0  # claims' worth of earlier runs behind them


class PanelEstimate(Frozen):
    """The panel as this run's votes (and the repository's history) show it."""

    families: tuple[FamilyEstimate, ...] = ()
    claims: int = 0  # claims the estimate read (every model finding's cluster)
    judged: int = 0  # of them, the ones judges were asked about
    tally: PanelTally = PanelTally()  # what this run adds to the history
