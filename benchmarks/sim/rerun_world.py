"""Re-runs on the same head: do decisions flip, and what does a re-run cost?

The PRs and the panel are the quality simulation's (benchmarks/sim/quality_world.py). Its verifiers
answer as a function of the request; here they also *sample*: a call is answered afresh on
every run unless it carries a seed its provider honours (OpenAI, Gemini and Ollama do,
Anthropic does not), as real models at temperature > 0 do. Each PR is decided once, then
again three ways:

- **re-sampled**: every verification and "same problem?" call asked again without a seed
  and nothing carried (the baseline: what a reviewer without seeds or carry does);
- **fresh look**: asked again with the seeds the product now sends (what `/consensus
  review` and `full-review` do); providers without seeds still re-sample;
- **carried**: the first run's decisions go through the summary state (encoded, decoded)
  and are carried by `publish/carry.py` as an automatic re-run does: no call at all.

A flip is a finding whose status differs between the two runs (or that only one run
reported); a PR flips when what it posts differs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from benchmarks.sim.quality_world import DEFAULT, SimParams, SimPR, decide, make_pr, now, verifier
from consensus.decide.report import report_findings
from consensus.model.report import ProviderReport, Quorum, Report, ReportFinding
from consensus.ports import CompletionRequest, Message
from consensus.publish.carry import Carry, diff_digests, next_decisions, plan_carry
from consensus.publish.records import finding_records
from consensus.publish.state import PublishState, decode_state, encode_state
from consensus.testing import FakeModelClient

SEEDED_FAMILIES = frozenset({"openai", "google", "qwen"})  # Anthropic takes no seed
THRESHOLD, K = 0.75, 2
HEAD = "a1b2c3d" + "0" * 33


def sampling(pr: SimPR, params: SimParams, run: str, *, seeds: bool) -> FakeModelClient:
    """The panel on run `run`: an unseeded call is a new sample (its answer is drawn again);
    a seeded call to a provider that honours seeds is answered as on every other run."""
    families = {r.model: r.family for r in params.reviewers}
    answer = verifier(pr, params).by_request
    assert answer is not None

    def sampled(request: CompletionRequest) -> str:
        fixed = seeds and request.seed is not None and families[request.model] in SEEDED_FAMILIES
        if not fixed:  # a fresh sample: the simulated draw sees another request
            last = request.messages[-1]
            salted = Message(role=last.role, content=f"{last.content}\n<!-- sample {run} -->")
            request = request.model_copy(update={"messages": (*request.messages[:-1], salted)})
        return answer(request)

    return FakeModelClient(by_request=sampled)


@dataclass(frozen=True)
class Run:
    findings: list[ReportFinding]
    calls: int


async def run_once(params: SimParams, pr: SimPR, client: FakeModelClient) -> Run:
    outcome = await decide(params, pr, now(), THRESHOLD, K, client=client)
    return Run(report_findings(outcome.items), len(client.calls))


def report_of(params: SimParams, pr: SimPR, findings: list[ReportFinding]) -> Report:
    paths = [f.path for f in pr.diff.files]
    return Report(
        run_id="sim",
        findings=findings,
        providers=[
            ProviderReport(model=r.model, family=r.family, status="ok", files_seen=paths)
            for r in params.reviewers
        ],
        quorum=Quorum(families_answered=len(params.reviewers), min_providers=2, met=True),
        threshold=THRESHOLD,
    )


def carried(params: SimParams, pr: SimPR, first: Run) -> tuple[Run, int]:
    """The re-run an automatic run makes: the first run's state, encoded into the summary
    and read back, then carried; with the state line's length."""
    report = report_of(params, pr, first.findings)
    digests = diff_digests(pr.diff)
    decisions = next_decisions(
        report, Carry(), digests, head_sha=HEAD, basis="b" * 32, fresh_run=True
    )
    state = PublishState(
        head_sha=HEAD, records=finding_records(report.findings), decisions=decisions
    )
    line = encode_state(state)
    read = decode_state(line)
    assert read is not None
    carry = plan_carry(read, digests, basis="b" * 32, fresh=False)
    rest = [f.path for f in pr.diff.files if f.path not in carry.paths]
    assert not rest, f"not carried: {rest}"
    return Run(list(carry.findings), 0), len(line)


def flips(first: Sequence[ReportFinding], second: Sequence[ReportFinding]) -> int:
    before = {f.fingerprint: f.status for f in first}
    after = {f.fingerprint: f.status for f in second}
    return sum(1 for fp in before.keys() | after.keys() if before.get(fp) != after.get(fp))


def posted(findings: Sequence[ReportFinding]) -> frozenset[str]:
    return frozenset(f.fingerprint for f in findings if f.status.posted)


@dataclass
class Tally:
    prs: int = 0
    prs_flipped: int = 0  # what the PR posts differs between the runs
    decisions: int = 0  # findings of the first run
    flipped: int = 0  # findings whose status differs (or only one run has)
    calls: int = 0  # verification and "same problem?" calls of the second run
    state_chars: list[int] = field(default_factory=list)

    def add(self, first: Run, second: Run) -> None:
        self.prs += 1
        self.prs_flipped += posted(first.findings) != posted(second.findings)
        self.decisions += len(first.findings)
        self.flipped += flips(first.findings, second.findings)
        self.calls += second.calls


WAYS: dict[str, Callable[[SimParams, SimPR], FakeModelClient]] = {
    "re-sampled, no seeds, nothing carried": lambda p, pr: sampling(pr, p, "2", seeds=False),
    "fresh look, with seeds (/consensus review)": lambda p, pr: sampling(pr, p, "2", seeds=True),
}
CARRIED = "carried from the summary state (every automatic re-run)"


def simulate(params: SimParams = DEFAULT) -> dict[str, Tally]:
    tallies = {name: Tally() for name in [*WAYS, CARRIED]}
    first_calls = 0
    for index in range(params.prs):
        pr = make_pr(params, index)
        first = asyncio.run(run_once(params, pr, sampling(pr, params, "1", seeds=True)))
        first_calls += first.calls
        for name, client in WAYS.items():
            tallies[name].add(first, asyncio.run(run_once(params, pr, client(params, pr))))
        again, chars = carried(params, pr, first)
        tallies[CARRIED].add(first, again)
        tallies[CARRIED].state_chars.append(chars)
    tallies["first run"] = Tally(prs=params.prs, calls=first_calls)
    return tallies


def table(tallies: dict[str, Tally]) -> str:
    first = tallies.pop("first run")
    rows = [
        "| second run on the same head | PRs whose posted comments change | decisions that "
        "flip | verification calls / PR | target |",
        "|---|---:|---:|---:|---|",
    ]
    for name, t in tallies.items():
        target = "0 flips, 0 calls" if name == CARRIED else ""
        rows.append(
            f"| {name} | {t.prs_flipped} of {t.prs} ({t.prs_flipped / t.prs:.1%}) | "
            f"{t.flipped} of {t.decisions} | {t.calls / t.prs:.2f} | {target} |"
        )
    rows.append(f"| (the first run) | | | {first.calls / first.prs:.2f} | |")
    sizes = sorted(tallies[CARRIED].state_chars)
    rows += [
        "",
        f"State line of the summary comment per PR: median {sizes[len(sizes) // 2]:,} "
        f"characters, max {sizes[-1]:,} (limit 24,000).",
    ]
    return "\n".join(rows)
