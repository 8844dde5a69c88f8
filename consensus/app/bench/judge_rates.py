"""`consensus calibrate`: each provider's true-positive and true-negative rate as a judge,
measured on labelled claims, written as a calibration the weighed votes use.

Every configured provider is asked once about every labelled claim, with the prompt and
the verdict schema its votes use in a review; `confirmed` on a real claim counts for its
TPR, `refuted` or `uncertain` on a false one for its TNR (uncertain counts against a
claim, as it does when votes are weighed); a failed call counts for neither. Providers of
one family add up. The calls are journaled like a review's (a re-run pays only for what
was not answered) and the budget applies.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import yaml
from pydantic import ValidationError

from consensus.app.jobs import RawDiff, review_diff
from consensus.app.journal_port import RunJournal
from consensus.app.services import Services
from consensus.errors import ConfigError
from consensus.model.base import Frozen, VerdictKind
from consensus.model.calibration import Calibration, FamilyCalibration, JudgeCounts
from consensus.model.claim import Claim
from consensus.model.diff import ReviewDiff
from consensus.model.findings import Usage
from consensus.model.labels import LabelledClaim
from consensus.ports import ModelClient, ModelPrice, TokenCounter
from consensus.review.guard import GuardedClient
from consensus.review.ledger import Ledger
from consensus.review.verify import Panel, poll, verification_request
from consensus.settings.config import ProviderSettings, Settings

OUTPUT_TOKENS_PER_CALL = 120  # a verdict and a short reason


def read_labels(text: str, *, source: str) -> tuple[LabelledClaim, ...]:
    """The labelled claims of a JSONL file; an invalid line is an error naming it."""
    labels = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            labels.append(LabelledClaim.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as exc:
            problem = str(exc).splitlines()[0] if isinstance(exc, json.JSONDecodeError) else (
                "; ".join(f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}"
                          for e in exc.errors())
            )  # fmt: skip
            raise ConfigError(
                source, f"line {number}", problem, fix="see docs/calibration.md"
            ) from exc
    if not labels:
        raise ConfigError(source, None, "holds no labelled finding", fix="one JSON object a line")
    seen: set[str] = set()
    for label in labels:
        if label.id in seen:
            raise ConfigError(source, label.id, "is used twice", fix="give each finding its own id")
        seen.add(label.id)
    return tuple(labels)


@dataclass(frozen=True)
class Labelled:
    """A labelled claim made ready for judges: its parsed diff and the claim itself."""

    label: LabelledClaim
    diff: ReviewDiff
    claim: Claim


def prepared(labels: Sequence[LabelledClaim], settings: Settings, source: str) -> list[Labelled]:
    """Each label's diff parsed and redacted as a review's is; its place must be in it."""
    out = []
    for label in labels:
        diff = review_diff(RawDiff(label.diff, filtered=False), settings)
        changed = diff.file(label.path)
        if changed is None:
            raise ConfigError(
                source, label.id, f"names {label.path}, which its diff does not change",
                fix="give the path as the diff's +++ line does",
            )  # fmt: skip
        claim = Claim(
            fingerprint=hashlib.sha256(label.id.encode()).hexdigest()[:16],
            path=label.path,
            line=label.line,
            end_line=label.end_line or label.line,
            title=label.title,
            body=label.body,
            evidence=label.evidence,
            category=label.category,
            severity=label.severity,
            families=frozenset(),
            providers=(),
        )
        out.append(Labelled(label, diff, claim))
    return out


class PlannedProvider(Frozen):
    model: str
    family: str
    calls: int
    tokens_in: int
    cost_usd: float | None  # None: no known price


class CalibrationPlan(Frozen):
    claims: int
    real: int
    providers: tuple[PlannedProvider, ...]

    @property
    def calls(self) -> int:
        return sum(p.calls for p in self.providers)

    @property
    def cost_usd(self) -> float | None:
        costs = [p.cost_usd for p in self.providers]
        return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)


def plan(
    labelled: Sequence[Labelled],
    providers: Sequence[ProviderSettings],
    counter: TokenCounter,
    prices: Mapping[str, ModelPrice | None],
) -> CalibrationPlan:
    """What calibrating would ask and cost, without calling anyone."""
    planned = []
    for provider in providers:
        tokens = sum(
            counter.count(provider.model, verification_request(item.claim, item.diff, provider))
            for item in labelled
        )
        price = prices.get(provider.model)
        cost = None
        if price is not None:
            output = len(labelled) * OUTPUT_TOKENS_PER_CALL * price.output_per_token
            cost = round(tokens * price.input_per_token + output, 6)
        planned.append(
            PlannedProvider(
                model=provider.model,
                family=provider.voting_family,
                calls=len(labelled),
                tokens_in=tokens,
                cost_usd=cost,
            )
        )
    real = sum(item.label.real for item in labelled)
    return CalibrationPlan(claims=len(labelled), real=real, providers=tuple(planned))


class ProviderResult(Frozen):
    model: str
    family: str
    counts: JudgeCounts
    failed: int
    usage: Usage


class CalibrationRun(Frozen):
    run_id: str
    results: tuple[ProviderResult, ...]
    calibration: Calibration
    note: str  # why it stopped before every claim was judged ("" when it did not)


def run_id_for(labelled: Sequence[Labelled], providers: Sequence[ProviderSettings]) -> str:
    payload = json.dumps(
        [[i.label.model_dump(mode="json") for i in labelled], [p.model for p in providers]],
        sort_keys=True,
    )
    return "calibrate-" + hashlib.sha256(payload.encode()).hexdigest()[:12]


async def calibrate(
    labelled: Sequence[Labelled],
    providers: Sequence[ProviderSettings],
    settings: Settings,
    services: Services,
    earlier: Calibration | None = None,
) -> CalibrationRun:
    """Ask every provider about every claim; the counts, and the calibration they make
    (reporter counts of `earlier` are kept: calibrating judges does not measure them)."""
    models = services.models.with_patterns(settings.redact)
    journal = services.journal()
    try:
        return await _calibrate(labelled, providers, settings, models, journal, earlier)
    finally:
        journal.close()


async def _calibrate(
    labelled: Sequence[Labelled],
    providers: Sequence[ProviderSettings],
    settings: Settings,
    client: ModelClient,
    journal: RunJournal,
    earlier: Calibration | None,
) -> CalibrationRun:
    base_id = run_id_for(labelled, providers)
    run_id, _ = journal.resolve_run(base_id, fresh=False, resume=None)
    journal.start_run(run_id, base_id, "calibrate", json.dumps({"labels": len(labelled)}))
    ledger = Ledger(settings.budget)
    ledger.without_plan()
    recorded = journal.recording_client(run_id, GuardedClient(client, ledger),
                                        on_served=ledger.credit)  # fmt: skip
    counts = {p.model: {"confirmed_real": 0, "missed_real": 0, "refuted_false": 0,
                        "confirmed_false": 0, "failed": 0} for p in providers}  # fmt: skip
    note = ""
    for item in labelled:
        judges = Panel(item.diff, providers, settings, recorded, ledger, None)
        votes, note = await poll(item.claim, judges)
        for vote in votes:
            tally = counts[vote.model]
            if vote.verdict is None:
                tally["failed"] += 1
            elif item.label.real:
                hit = vote.verdict is VerdictKind.CONFIRMED
                tally["confirmed_real" if hit else "missed_real"] += 1
            else:
                hit = vote.verdict is not VerdictKind.CONFIRMED
                tally["refuted_false" if hit else "confirmed_false"] += 1
        if note:
            break
    usage = ledger.verification
    results = tuple(
        ProviderResult(
            model=p.model,
            family=p.voting_family,
            counts=JudgeCounts(**{k: v for k, v in counts[p.model].items() if k != "failed"}),
            failed=counts[p.model]["failed"],
            usage=usage.get(p.model, Usage()),
        )
        for p in providers
    )
    calibration = merged(results, earlier)
    journal.finish_run(
        run_id,
        status="paused" if note else "done",
        report=calibration.model_dump_json(),
        cost_usd=sum(r.usage.cost_usd for r in results),
    )
    return CalibrationRun(run_id=run_id, results=results, calibration=calibration, note=note)


def merged(results: Sequence[ProviderResult], earlier: Calibration | None) -> Calibration:
    """Each family's judge counts (its providers added up) beside `earlier`'s reporter
    counts; a family this run did not judge keeps what `earlier` held."""
    families = dict(earlier.families) if earlier is not None else {}
    judged: dict[str, JudgeCounts] = {}
    for r in results:
        before = judged.get(r.family, JudgeCounts())
        judged[r.family] = JudgeCounts(
            confirmed_real=before.confirmed_real + r.counts.confirmed_real,
            missed_real=before.missed_real + r.counts.missed_real,
            refuted_false=before.refuted_false + r.counts.refuted_false,
            confirmed_false=before.confirmed_false + r.counts.confirmed_false,
        )
    for family, counts in judged.items():
        reporter = families[family].reporter if family in families else None
        families[family] = FamilyCalibration(judge=counts, reporter=reporter)
    return Calibration(families=dict(sorted(families.items())))


def calibration_yaml(calibration: Calibration) -> str:
    """The calibration file's text (the format docs/calibration.md describes)."""
    data = calibration.model_dump(mode="json", exclude_none=True)
    return "# written by `consensus calibrate`\n" + yaml.safe_dump(data, sort_keys=False)
