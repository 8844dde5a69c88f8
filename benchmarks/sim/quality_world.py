"""Quality benchmark: what the decision machinery (align → score → verify) posts.

A simulation in the way MAKER analyses voting. Synthetic pull requests carry known bugs
(some carry none: clean PRs); a panel of simulated reviewers (distinct provider families)
each finds a bug with its own recall, invents its own false positives, misplaces lines by
up to its own offset (the product's path audit moves a finding that quotes code to where
the code is) and words every finding in a paraphrase of its own (the class of the
problem, its cause, symptom or fix; another category with `category_noise`; a report that
starts above the problem line spans down to it with probability `cover`, as models cite a
block). Models agree
on wrong things: some inventions are reported by two families, and some *severe* ones by
three (a wrong consensus). consensus's own credential scan reports committed keys at the
lines the models report them. Verifiers are fake ModelClients that read the verification
prompt, look the finding up in the ground truth and answer as the judges of a preset
(benchmarks/sim/judge_presets.py) do: a real claim confirmed with the family's TPR, a false one
refuted with its TNR; a self-preferring judge asked about a claim its own family made
confirms it first with probability `self_preference`. The product is given the judges'
calibration when `calibrated`, else it estimates them from each run's votes. A "same
problem?" question is answered right with probability `same_accuracy`.

Everything between the reviews and the posted findings is the product's REAL code: align
(with its open questions put to the simulated verifier), score, the scan's settle, verify.
Earlier versions of that code are not run: their figures are recorded, with the commit they
were measured at, in benchmarks/results/recorded.json, and printed beside this run's.

    python benchmarks/quality_bench.py [--prs 1000] [--seed 1] [--judges agreeable] [--no-sweep]
    python benchmarks/quality_bench.py --presets [--prs 1000] [--seed 1]   # quality_rules.py

A posted finding (status consensus or verified) is a true positive when it lies within
MATCH_LINES lines of a true bug in the same file; recall counts the bugs some posted
finding matches. A duplicate is a further posted finding about a problem (real or
invented) already posted. Figures are micro-averaged over all PRs.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import json
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.sim import merge_corpus  # noqa: E402
from benchmarks.sim.baseline import ROUND_ONE, Baseline, load  # noqa: E402
from benchmarks.sim.baseline import TODAY as TODAY_VERSION  # noqa: E402
from benchmarks.sim.judge_presets import (  # noqa: E402
    AGREEABLE,
    PRESETS,
    Judge,
    JudgePreset,
)
from benchmarks.sim.quality_catalog import KINDS, SEVERE, VARIABLES, Kind  # noqa: E402
from consensus.decide.align import align, open_questions  # noqa: E402
from consensus.decide.score import score  # noqa: E402
from consensus.decide.wording import similarity  # noqa: E402
from consensus.ingest import detections as scan  # noqa: E402
from consensus.inspect.snapshot import split_lines  # noqa: E402
from consensus.model.base import FileStatus, Severity, Status  # noqa: E402
from consensus.model.calibration import Calibration  # noqa: E402
from consensus.model.diff import ChangedFile, DiffLine, Hunk, Redaction, ReviewDiff  # noqa: E402
from consensus.model.findings import (  # noqa: E402
    LINE_WINDOW,
    Cluster,
    Finding,
    ModelReview,
    ScoredCluster,
)
from consensus.model.history import PanelTally  # noqa: E402
from consensus.model.panel import PanelEstimate  # noqa: E402
from consensus.model.reply import ReplyFinding, ReviewReply  # noqa: E402
from consensus.ports import CompletionRequest  # noqa: E402
from consensus.review.audit import audit  # noqa: E402
from consensus.review.grounding import ground  # noqa: E402
from consensus.review.judge_tools import Looker  # noqa: E402
from consensus.review.ledger import Ledger  # noqa: E402
from consensus.review.pipeline import anchor_reader, coverage  # noqa: E402
from consensus.review.sameness import ask_same_problem  # noqa: E402
from consensus.review.verify import Reading, verify  # noqa: E402
from consensus.settings.config import ProviderSettings, Settings  # noqa: E402
from consensus.testing import FakeModelClient  # noqa: E402
from consensus_sim.script import drawn_verdict  # noqa: E402

MATCH_LINES = 3  # a finding this close to a true bug (same file) is about that bug
BUG_SPACING = 10  # true bugs of one file are at least this far apart
FP_CLEARANCE = 8  # invented problems are placed at least this far from any other problem
SEV = (Severity.INFO, Severity.LOW, Severity.MEDIUM, Severity.HIGH, Severity.CRITICAL)
HEADLINE = (0.75, 2)  # threshold and k of the default configuration


# --------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class Reviewer:
    model: str
    family: str
    recall: float
    fp_per_pr: float
    noise: int  # a reported line is off by up to this many lines, either way


@dataclass(frozen=True)
class SimParams:
    reviewers: tuple[Reviewer, ...]
    prs: int = 1_000
    seed: int = 1
    judges: JudgePreset = AGREEABLE  # how the simulated verifiers answer
    calibrated: bool = False  # the product is given the judges' calibration (labels) …
    labels: JudgePreset | None = None  # … or another preset's (None: the judges' own)
    label_cases: int = 1_000  # … measured on this many real and as many false claims
    history: PanelTally | None = None  # earlier runs' counts, as .consensus/learned.yml pools them
    shared_fp_per_pr: float = 0.5  # invented problems reported by two reviewers at once
    shared3_fp_per_pr: float = 0.3  # severe invented problems three families report
    clean_share: float = 0.2  # PRs with no bug at all
    two_line_keys: float = 0.5  # a committed key with its secret on the next line
    cover: float = 0.5  # a report starting above the problem spans down to its line
    bugs: tuple[int, int] = (3, 6)
    severity_noise: float = 0.25  # a reviewer reports a severity one level off
    category_noise: float = 0.3  # a reviewer files a problem under an alternative category
    same_accuracy: float = 0.9  # the "same problem?" verifier: right with this probability
    # The set-up: an inspector and voters configured by name, which then judge the
    # claims their own families made unless independence keeps them out.
    configured_judges: tuple[str, tuple[str, ...]] = (
        "anthropic/claude-sonnet-4-5",
        ("openai/gpt-5.1", "gemini/gemini-2.5-pro"),
    )
    rule: str = "weighed"  # inspector.rule of "now" (the product's default)
    thresholds: tuple[float, ...] = (0.5, 0.75, 1.0)
    ks: tuple[int, ...] = (1, 2, 3)
    sweep: bool = True  # every threshold and k through today's code as well
    check_consensus: bool = False
    paraphrase: bool = True  # False: every reviewer words, files and rates a problem alike
    concurrency: int = 16
    # Give verify the head files for code context. Off by default: the verdicts here do not
    # read it, and verify re-redacts the whole file for every finding.
    with_source: bool = False
    # Every finding quotes the code of the line it is about (as models asked for `evidence`
    # do; its reported line still off as above), and an invention quotes code that is not
    # there with probability `fabricated`. Off by default: half the findings quote, as before.
    evidence_all: bool = False
    fabricated: float = 0.1


DEFAULT_REVIEWERS = (
    Reviewer("openai/gpt-5.1", "openai", 0.8, 2.0, 1),
    Reviewer("anthropic/claude-sonnet-4-5", "anthropic", 0.7, 2.0, 2),
    Reviewer("gemini/gemini-2.5-pro", "google", 0.6, 2.0, 3),
    Reviewer("ollama/qwen2.5-coder:14b", "qwen", 0.4, 2.0, 2),
)
DEFAULT = SimParams(reviewers=DEFAULT_REVIEWERS)


# --------------------------------------------------------------------------- synthetic PRs


@dataclass(frozen=True)
class Problem:
    """A true bug, or an invented one (a false positive) at one place."""

    path: str
    line: int
    kind: Kind
    var: str
    severity: Severity
    real: bool


@dataclass(frozen=True)
class SimPR:
    diff: ReviewDiff
    texts: Mapping[str, str]  # head version of each file
    bugs: tuple[Problem, ...]
    reviews: tuple[tuple[Finding, ...], ...]  # per reviewer, in panel order
    origin: Mapping[Finding, Problem]
    shared: frozenset[Problem]  # invented problems that two or three families reported
    reporters: Mapping[Problem, frozenset[str]]  # families that reported each problem

    @property
    def clean(self) -> bool:
        return not self.bugs

    def about(self, finding: Finding) -> Problem | None:
        """The problem a finding (a model's, or the scan's) is about."""
        if finding in self.origin:
            return self.origin[finding]
        return about_bug(self.bugs, finding.path, finding.line, finding.end_line)


def _file(rng: random.Random, n: int) -> tuple[str, int, int, list[str]]:
    path = f"src/app/{rng.choice(('api', 'db', 'jobs', 'auth', 'io'))}_{n}.py"
    start, length = rng.randint(1, 150), rng.randint(40, 90)
    lines = [
        f"    step_{i} = transform_{i % 7}(step_{max(i - 1, 0)}, limit={rng.randint(1, 99)})"
        for i in range(start + length)
    ]
    return path, start, length, lines


def _place(
    rng: random.Random, spots: list[tuple[str, int]], taken: list[tuple[str, int]], gap: int
) -> tuple[str, int] | None:
    rng.shuffle(spots)
    for path, line in spots:
        if all(p != path or abs(line - t) >= gap for p, t in taken):
            return path, line
    return None


def _severity(rng: random.Random, base: Severity, noise: float) -> Severity:
    if rng.random() >= noise:
        return base
    index = SEV.index(base) + rng.choice((-1, 1))
    return SEV[min(max(index, 1), len(SEV) - 1)]


def _report(
    rng: random.Random,
    params: SimParams,
    reviewer: Reviewer,
    problem: Problem,
    span: tuple[int, int],
    code: str,
) -> ReplyFinding:
    """One reviewer's report of a problem, as its reply would state it."""
    kind = problem.kind
    title, body = rng.choice(kind.phrasings)
    offset = rng.randint(-reviewer.noise, reviewer.noise)
    line = min(max(problem.line + offset, span[0]), span[1])
    end_line = min(line + rng.choice((0, 0, 0, 1, 2)), span[1])
    if offset < 0 and rng.random() < params.cover:  # a block that holds the problem line
        end_line = min(problem.line + rng.choice((0, 0, 1)), span[1])
    category = kind.categories[0]
    if len(kind.categories) > 1 and rng.random() < params.category_noise:
        category = rng.choice(kind.categories[1:])
    severity = _severity(rng, problem.severity, params.severity_noise)
    quote = rng.random() < 0.5
    if not params.paraphrase:  # one wording, category and severity for every reviewer
        title, body = kind.phrasings[0]
        category, severity, quote = kind.categories[0], problem.severity, True
    evidence = code.strip() if quote else None
    if params.evidence_all:  # drawn apart: the PR's other draws stay as they were
        evidence = code.strip()
        if (
            not problem.real
            and _draw(params.seed, "fabricated", reviewer.model, problem.path, problem.line)
            < params.fabricated
        ):
            evidence = kind.code.format(v=problem.var).strip()  # the code it claims is there
    return ReplyFinding(
        path=problem.path,
        line=line,
        end_line=end_line,
        severity=severity,
        category=category,
        title=title.format(v=problem.var),
        body=body.format(v=problem.var),
        evidence=evidence,
        confidence=round(rng.uniform(0.5, 0.95), 2),
    )


def _count(rng: random.Random, mean: float) -> int:
    whole = int(mean)
    return whole + (1 if rng.random() < mean - whole else 0)


def make_pr(params: SimParams, index: int) -> SimPR:
    """One synthetic PR, its true bugs and every reviewer's findings; a function of the seed."""
    rng = random.Random(f"{params.seed}:{index}")
    files = [_file(rng, n) for n in range(rng.randint(2, 5))]
    spans = {path: (start, start + length - 1) for path, start, length, _ in files}
    spots = [(path, line) for path, (lo, hi) in spans.items() for line in range(lo, hi + 1)]
    content = {path: lines for path, _, _, lines in files}
    bugs: list[Problem] = []
    redactions: list[Redaction] = []
    clean = rng.random() < params.clean_share
    for _ in range(0 if clean else rng.randint(*params.bugs)):
        spot = _place(rng, spots, [(b.path, b.line) for b in bugs], BUG_SPACING)
        if spot is None:
            break
        kind, var = rng.choice(KINDS), rng.choice(VARIABLES)
        bugs.append(Problem(*spot, kind, var, _severity(rng, kind.severity, 0.3), real=True))
        content[spot[0]][spot[1] - 1] = kind.code.format(v=var)
        if kind.name == "secret":  # the scan finds what the redaction took out
            redactions.append(Redaction(path=spot[0], line=spot[1], kind="stripe-key", added=True))
            if rng.random() < params.two_line_keys and spot[1] < spans[spot[0]][1]:
                content[spot[0]][spot[1]] = f'    {var}_secret = "whsec_9f8e7d6c5b4a3f2e1d"'
                redactions.append(
                    Redaction(path=spot[0], line=spot[1] + 1, kind="stripe-secret", added=True)
                )

    taken = [(b.path, b.line) for b in bugs]

    def invent(kinds: Sequence[Kind] = KINDS, severe: bool = False) -> Problem | None:
        spot = _place(rng, spots, taken, FP_CLEARANCE)
        if spot is None:
            return None
        kind = rng.choice(kinds)
        taken.append(spot)
        severity = rng.choice((Severity.HIGH, Severity.CRITICAL)) if severe else kind.severity
        return Problem(*spot, kind, rng.choice(VARIABLES), severity, real=False)

    n_reviewers = len(params.reviewers)
    own: list[list[Problem]] = [[] for _ in params.reviewers]
    shared: set[Problem] = set()
    severe_kinds = [k for k in KINDS if k.name in SEVERE]
    for size, mean in ((2, params.shared_fp_per_pr), (3, params.shared3_fp_per_pr)):
        if n_reviewers < size:
            continue
        for _ in range(_count(rng, mean)):
            group = rng.sample(range(n_reviewers), size)
            problem = invent(severe_kinds, severe=True) if size == 3 else invent()
            if problem is not None:
                shared.add(problem)
                for n in group:
                    own[n].append(problem)
    diff = ReviewDiff(
        files=tuple(_changed(path, spans[path], content[path]) for path in spans),
        redactions=tuple(redactions),
    )
    reviews: list[tuple[Finding, ...]] = []
    origin: dict[Finding, Problem] = {}
    reporters: dict[Problem, set[str]] = {}
    for n, reviewer in enumerate(params.reviewers):
        # A shared invented problem is one of this reviewer's false positives, not extra.
        for _ in range(max(0, _count(rng, reviewer.fp_per_pr) - len(own[n]))):
            problem = invent()
            if problem is not None:
                own[n].append(problem)
        found = [b for b in bugs if rng.random() < reviewer.recall] + own[n]
        findings = []
        for problem in found:
            at = content[problem.path][problem.line - 1]
            said = _report(rng, params, reviewer, problem, spans[problem.path], at)
            # The product's path audit: a finding quoting code moves to where the code is.
            kept, _ = audit(
                ReviewReply(findings=[said]),
                diff=diff,
                chunk_paths=list(spans),
                provider=reviewer.model,
                family=reviewer.family,
                persona="correctness",
                chunk=0,
            )
            for finding in kept:
                findings.append(finding)
                origin[finding] = problem
                reporters.setdefault(problem, set()).add(reviewer.family)
        reviews.append(tuple(findings))
    texts = {path: "\n".join(lines) + "\n" for path, lines in content.items()}
    return SimPR(
        diff,
        texts,
        tuple(bugs),
        tuple(reviews),
        origin,
        frozenset(shared),
        {p: frozenset(f) for p, f in reporters.items()},
    )


def _changed(path: str, span: tuple[int, int], lines: list[str]) -> ChangedFile:
    lo, hi = span
    hunk = Hunk(
        old_start=lo - 1,
        old_length=0,
        new_start=lo,
        new_length=hi - lo + 1,
        lines=tuple(DiffLine(kind="+", text=lines[n - 1], new_line=n) for n in range(lo, hi + 1)),
    )
    return ChangedFile(path=path, status=FileStatus.MODIFIED, hunks=(hunk,), added=hi - lo + 1)


# --------------------------------------------------------------------------- verifiers

_LOCATION = re.compile(r"^Location: (?P<path>.+), lines (?P<line>\d+)-(?P<end>\d+)$", re.M)
_SIDE = re.compile(r"(?:First|Second) finding, lines (?P<line>\d+)-(?P<end>\d+) of (?P<path>.+):")
_TITLE = re.compile(r"^Title: (?P<title>.*)$", re.M)


def about_bug(bugs: Sequence[Problem], path: str, line: int, end_line: int) -> Problem | None:
    """The true bug a finding at path:line-end_line is about, if any."""
    for bug in bugs:
        if bug.path == path and line - MATCH_LINES <= bug.line <= end_line + MATCH_LINES:
            return bug
    return None


def _draw(*parts: object) -> float:
    digest = hashlib.sha256("\0".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def question_of(request: CompletionRequest) -> str:
    """The question a judge is asked: the first user message (tool results come after it)."""
    return next((m.content for m in request.messages if m.role == "user"), "")


class Verifier:
    """The simulated verifier panel, deterministic per (seed, request).

    Verification: a real claim confirmed with the judge family's TPR, a false one refuted
    with its TNR; a wrong answer is `uncertain` with the judge's share, else the opposite
    verdict; a verifier whose family reported the problem confirms it with probability
    `self_preference` first. A family asked again about a claim it has judged returns its
    first verdict with the preset's `repeat`, else answers afresh. "Same problem?": right
    with `same_accuracy`. `verdict` takes the rates to answer with (a judge that has read
    the code answers with others: benchmarks/sim/looking_verifier.py); the draw is the
    question's, whatever the rates."""

    def __init__(self, pr: SimPR, params: SimParams) -> None:
        self.pr, self.params = pr, params
        self.families = {r.model: r.family for r in params.reviewers}
        self.problems = set(pr.reporters)
        self.first: dict[tuple[str, str, int, int], str] = {}  # (family, claim) → 1st verdict

    def problem_at(self, path: str, line: int, end: int) -> Problem | None:
        near = [
            p
            for p in self.problems
            if p.path == path and line - MATCH_LINES <= p.line <= end + MATCH_LINES
        ]
        return min(near, key=lambda p: (abs(p.line - line), p.line), default=None)

    def claim(self, prompt: str) -> tuple[tuple[str, int, int], bool, Problem | None]:
        """Where the asked-about claim is, whether it is real, and the problem it is about."""
        where = _LOCATION.search(prompt)
        if where is None:
            raise AssertionError("the verification prompt no longer states the location")
        path, line, end = where["path"], int(where["line"]), int(where["end"])
        real = about_bug(self.pr.bugs, path, line, end) is not None
        return (path, line, end), real, self.problem_at(path, line, end)

    def family(self, request: CompletionRequest) -> str:
        return self.families.get(request.model, request.model)

    def verdict(self, request: CompletionRequest, prompt: str, judge: Judge | None = None) -> str:
        params, preset = self.params, self.params.judges
        (path, line, end), real, problem = self.claim(prompt)
        family = self.family(request)
        own = problem is not None and family in self.pr.reporters[problem]
        key = (family, path, line, end)
        again = _draw(params.seed, "repeat", request.model, prompt) < preset.repeat
        if key in self.first and again:
            return self.first[key]
        if own and _draw(params.seed, "self", request.model, prompt) < preset.self_preference:
            answer = "confirmed"
        else:
            judge = judge or preset.judge(family)
            answer = drawn_verdict(real, judge.tpr, judge.tnr, judge.uncertain,
                                   _draw(params.seed, request.model, prompt))  # fmt: skip
        self.first.setdefault(key, answer)
        return answer

    def _side(self, text: str) -> set[Problem | None]:
        where = _SIDE.search(text)
        assert where is not None, "the same-problem prompt no longer states the lines"
        path, line, end = where["path"], int(where["line"]), int(where["end"])
        titles = {t.strip() for t in _TITLE.findall(text)}
        return {
            self.pr.about(f)
            for review in self.pr.reviews
            for f in review
            if f.title in titles and f.path == path and line <= f.line <= end
        } or {about_bug(self.pr.bugs, path, line, end)}

    def same(self, prompt: str) -> str:
        first, _, second = prompt.partition("Second finding, lines")
        truth = bool(self._side(first) & self._side("Second finding, lines" + second) - {None})
        right = _draw(self.params.seed, "same", prompt) < self.params.same_accuracy
        return "same" if truth == right else "different"

    def answer(self, request: CompletionRequest) -> str:
        prompt = question_of(request)
        if "describe the same defect?" in prompt:
            return json.dumps({"verdict": self.same(prompt), "reason": "simulated"})
        return json.dumps({"verdict": self.verdict(request, prompt), "reason": "simulated"})


def verifier(pr: SimPR, params: SimParams) -> FakeModelClient:
    """The simulated verifier panel (`Verifier`) as a model client that costs nothing."""
    answer = Verifier(pr, params).answer
    return FakeModelClient(by_request=answer, tokens_in=0, tokens_out=0, cost_usd=0.0)


class _Source:
    def __init__(self, texts: Mapping[str, str]) -> None:
        self._texts = texts

    def read(self, path: str) -> str | None:
        return self._texts.get(path)


# --------------------------------------------------------------------------- the code under test


@dataclass(frozen=True)
class Decisions:
    """One version of the decision code: align, score, the scan's settle, verify."""

    name: str
    align: Callable[..., list[Cluster]]
    score: Callable[..., list[ScoredCluster]]
    detections: Callable[[ReviewDiff], list[Finding]]
    settle: Callable[[list[ScoredCluster]], list[ScoredCluster]]
    verify: Callable[..., Any]
    asks: bool  # puts align's open questions to a verifier
    checks_severe_consensus: bool
    independent: bool | None  # verify's judges (None: today's code has no such choice)
    configured: bool = False  # the inspector and voters of SimParams.configured_judges
    open_questions: Callable[..., list[Any]] = open_questions  # align's, when it asks
    ask: Callable[..., Any] = ask_same_problem  # sameness's
    rule: str | None = None  # inspector.rule (None: SimParams.rule)
    target: float = 0.9  # inspector.target_precision
    ground: Callable[..., list[Cluster]] | None = None  # claims held to their places (#44)


REPORTERS_JUDGE = (
    "now, but reporters may judge their own claims (as before judges were independent)"
)
NO_ASKING = 'now, without asking "same problem?"'


CONFIGURED = "configured inspector and voters"


def now(
    *,
    asks: bool = True,
    independent: bool = True,
    configured: bool = False,
    rule: str | None = None,
    target: float = 0.9,
) -> Decisions:
    name = "now" if asks and independent else (NO_ASKING if independent else REPORTERS_JUDGE)
    if configured:
        name = f"{CONFIGURED}, {'independent' if independent else 'reporters may judge'}"
    return Decisions(
        name=name,
        align=align,
        score=score,
        detections=scan.detections,
        settle=scan.settle,
        verify=verify,
        asks=asks,
        checks_severe_consensus=True,
        independent=independent,
        configured=configured,
        rule=rule,
        target=target,
        ground=ground,
    )


TODAY = "today (code before issues 11 and 16)"


def today(baseline: Baseline) -> Decisions:
    return Decisions(
        name=TODAY,
        align=baseline.align.align,
        score=baseline.score.score,
        detections=baseline.detections.detections,
        settle=baseline.detections.settle,
        verify=baseline.verify.verify,
        asks=False,
        checks_severe_consensus=False,
        independent=None,
    )


BEFORE = "one-comment rule, first version"


def before(baseline: Baseline) -> Decisions:
    """The decisions of the one-comment rule's first version (its figures are recorded)."""
    assert baseline.sameness is not None
    return Decisions(
        name=BEFORE,
        align=baseline.align.align,
        score=baseline.score.score,
        detections=baseline.detections.detections,
        settle=baseline.detections.settle,
        verify=baseline.verify.verify,
        asks=True,
        checks_severe_consensus=True,
        independent=True,
        open_questions=baseline.align.open_questions,
        ask=baseline.sameness.ask_same_problem,
    )


def settings_for(
    params: SimParams,
    threshold: float,
    k: int,
    configured: bool = False,
    rule: str | None = None,
    target: float = 0.9,
) -> Settings:
    """`configured`: the inspector and voters of `params.configured_judges`, as a user
    might set them; else none (the product's defaults). `rule`: inspector.rule (default
    `params.rule`); the judges' calibration when `params.calibrated`."""
    model, voters = params.configured_judges if configured else (None, ())
    families = sorted({r.family for r in params.reviewers})
    told = params.labels or params.judges
    calibration = Calibration()
    if params.calibrated:
        calibration = told.calibration(families, cases=params.label_cases)
    if params.history is not None:
        calibration = calibration.with_knowledge(Calibration(history=params.history))
    inspector = {
        "model": model,
        "voters": voters,
        "ahead_by": k,
        "check_consensus": params.check_consensus,
        "rule": rule or params.rule,
        "target_precision": target,
    }
    return Settings.model_validate(
        {
            "threshold": threshold,
            "concurrency": params.concurrency,
            "inspector": inspector,
            "budget": {"max_cost_usd": None, "max_tokens": None},
            "calibration": calibration,
        }
    )


def results_of(params: SimParams, pr: SimPR) -> list[ModelReview]:
    return [
        ModelReview(
            provider=r.model,
            family=r.family,
            persona="correctness",
            chunk=0,
            paths=tuple(f.path for f in pr.diff.files),
            findings=findings,
        )
        for r, findings in zip(params.reviewers, pr.reviews, strict=True)
    ]


@dataclass(frozen=True)
class Outcome:
    items: list[ScoredCluster]
    verify_calls: int
    same_calls: int
    panel: PanelEstimate | None = None  # the product's estimate of the judges (weighed rule)


async def decide(
    params: SimParams,
    pr: SimPR,
    code: Decisions,
    threshold: float,
    k: int | None,
    client: FakeModelClient | None = None,
    shared: dict[tuple[bool, float], tuple[list[ScoredCluster], int]] | None = None,
    looker: Looker | None = None,
) -> Outcome:
    """The PR's posted findings through one version of the code (k None: no verification);
    `client`: the verifier panel (default: `verifier`, the same answers on every run);
    `shared`: what align and score made of the PR for today's code, kept for the next
    rule that verifies the same PR (they decide nothing else differently); `looker`: the
    judges read the PR's trees through it (benchmarks/sim/looking_section.py)."""
    settings = settings_for(params, threshold, k or 2, code.configured, code.rule, code.target)
    client = client or verifier(pr, params)
    key = (code.asks and k is not None, threshold)
    if shared is not None and key in shared and code.align is align and k is not None:
        scored, same_calls = shared[key]
        return await _verified(params, pr, code, settings, client, scored, same_calls, looker)
    scored, same_calls = await _scored(params, pr, code, threshold, k, client, settings)
    if shared is not None and code.align is align:
        shared[key] = (scored, same_calls)
    if k is None:
        return Outcome(scored, 0, 0)
    return await _verified(params, pr, code, settings, client, scored, same_calls, looker)


async def _scored(
    params: SimParams,
    pr: SimPR,
    code: Decisions,
    threshold: float,
    k: int | None,
    client: FakeModelClient,
    settings: Settings,
) -> tuple[list[ScoredCluster], int]:
    """Align (asking "same problem?") and score: the clusters and the questions' calls."""
    results = results_of(params, pr)
    findings = [f for r in results for f in r.findings] + code.detections(pr.diff)
    panel = [ProviderSettings(model=r.model, family=r.family) for r in params.reviewers]
    ledger = Ledger(settings.budget)
    answers = {}
    if code.asks and k is not None:
        answers = await code.ask(
            code.open_questions(findings),
            diff=pr.diff,
            panel=panel,
            client=client,
            ledger=ledger,
            concurrency=params.concurrency,
        )
    same_calls = len(client.calls)
    clusters = code.align(findings, anchor_text=anchor_reader(pr.diff), **(
        {"answers": answers} if code.asks else {}))  # fmt: skip
    if code.ground is not None:  # against the head files, as a run with the trees reads them
        heads = {path: split_lines(text) for path, text in pr.texts.items()}
        clusters = code.ground(clusters, pr.diff, heads)
    extra = {"check_min_severity": Severity.HIGH} if code.checks_severe_consensus else {}
    scored = code.settle(
        code.score(
            clusters,
            coverage(results),
            threshold=threshold,
            verify_min_severity=Severity.MEDIUM,
            **extra,
        )
    )
    return scored, same_calls


async def _verified(
    params: SimParams,
    pr: SimPR,
    code: Decisions,
    settings: Settings,
    client: FakeModelClient,
    scored: list[ScoredCluster],
    same_calls: int,
    looker: Looker | None = None,
) -> Outcome:
    """Verification of the scored clusters; its calls are the client's beyond `same_calls`
    (those the client made before, or the ones a shared scoring made)."""
    before = len(client.calls)
    judges = {} if code.independent is None else {"independent": code.independent}
    verified = await code.verify(
        scored,
        diff=pr.diff,
        panel=[ProviderSettings(model=r.model, family=r.family) for r in params.reviewers],
        settings=settings,
        client=client,
        ledger=Ledger(settings.budget),
        reading=Reading(source=_Source(pr.texts) if params.with_source else None, looker=looker),
        **judges,
    )
    items = verified if isinstance(verified, list) else verified.items
    panel = None if isinstance(verified, list) else verified.panel
    return Outcome(items, len(client.calls) - before, same_calls, panel)


# --------------------------------------------------------------------------- evaluation


@dataclass
class Tally:
    """Posted findings and bugs over PRs, for one decision method."""

    tp: int = 0
    fp: int = 0
    found: int = 0
    bugs: int = 0
    calls: int = 0  # review calls (one per reviewer) and verification calls
    verify_calls: int = 0  # inspector and votes
    same_calls: int = 0  # "same problem?" questions
    prs: int = 0
    duplicates: int = 0  # posted findings about a problem another posted finding is about
    clean_prs: int = 0
    clean_posted: int = 0  # posted findings on PRs without a bug
    clean_unchecked: int = 0  # … of which posted without any verification
    clean_unopposed: int = 0  # inventions on them that reached consensus, no outside judge against
    unopposed_real: int = 0  # on every PR, claims that reached consensus, no outside judge against
    unopposed_invented: int = 0  # … real ones and inventions
    self_votes: int = 0  # verifier answers about a claim the verifier's own family made

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.bugs if self.bugs else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def per_pr(self, value: int) -> float:
        return value / self.prs if self.prs else 0.0


def tally(
    pr: SimPR,
    posted: Sequence[Cluster | Finding],
    calls: int = 0,
    same: int = 0,
    unchecked: int | None = None,
    self_votes: int = 0,
) -> Tally:
    """`unchecked`: how many of `posted` no verifier saw (default: all of them)."""
    hit: Counter[Problem] = Counter()
    about: Counter[Problem] = Counter()
    fp = 0
    for item in posted:
        members = item.members if isinstance(item, Cluster) else (item,)
        path, line, end = members[0].path, _line(item), _end(item)
        bug = about_bug(pr.bugs, path, line, end)
        if bug is None:
            fp += 1
        else:
            hit[bug] += 1
        about.update({p for m in members if (p := pr.about(m)) is not None})
    return Tally(
        tp=sum(hit.values()),
        fp=fp,
        found=len(hit),
        bugs=len(pr.bugs),
        calls=len(pr.reviews) + calls + same,
        verify_calls=calls,
        same_calls=same,
        prs=1,
        duplicates=sum(n - 1 for n in about.values()),
        clean_prs=int(pr.clean),
        clean_posted=len(posted) if pr.clean else 0,
        clean_unchecked=(len(posted) if unchecked is None else unchecked) if pr.clean else 0,
        self_votes=self_votes,
    )


def _line(item: Cluster | Finding) -> int:
    return item.line


def _end(item: Cluster | Finding) -> int:
    return item.end_line


def single(n: int, reviewer: Reviewer) -> str:
    return f"reviewer {n + 1} ({reviewer.family}, recall {reviewer.recall:g})"


def consensus_only(threshold: float) -> str:
    return f"consensus ≥ {threshold:g}, no verification"


def with_voting(threshold: float, k: int, code: str = "now") -> str:
    return f"{code}: consensus ≥ {threshold:g} + inspector and voting, k={k}"


UNION, MAJORITY = "union of all", "simple majority (> half the families)"


@dataclass
class Diagnosis:
    """Where findings go, on the headline configuration: the evidence behind the figures."""

    outcome: Counter[str] = field(default_factory=Counter)  # per found bug: its best status
    split: int = 0  # found bugs whose findings fell into more than one cluster
    split_pairs: Counter[str] = field(default_factory=Counter)  # why two findings stayed apart
    mixed: int = 0  # clusters merging findings about different problems
    fp_posted: Counter[str] = field(default_factory=Counter)  # posted FP clusters, by route


@dataclass(frozen=True)
class PRResult:
    tallies: dict[str, Tally]
    diagnosis: Diagnosis


Method = tuple[str, Decisions, float, int]


@dataclass(frozen=True)
class Old:
    """Earlier versions of the code, run beside today's when git has them."""

    today: Baseline | None = None  # before issues 11 and 16
    before: Baseline | None = None  # the one-comment rule's first version


def methods(params: SimParams, old: Old) -> list[Method]:
    """(name, code, threshold, k) of every verified method: the headline ones, then the sweep."""
    t, k = HEADLINE
    baseline = old.today
    chosen = [
        (with_voting(t, k), now(), t, k),
        (with_voting(t, k, NO_ASKING), now(asks=False), t, k),
        (with_voting(t, k, REPORTERS_JUDGE), now(independent=False), t, k),
        (with_voting(t, k, now(configured=True).name), now(configured=True), t, k),
        (with_voting(t, k, now(independent=False, configured=True).name),
         now(independent=False, configured=True), t, k),
    ]  # fmt: skip
    if old.before is not None:
        chosen.append((with_voting(t, k, BEFORE), before(old.before), t, k))
    if baseline is not None:
        chosen.append((with_voting(t, k, today(baseline).name), today(baseline), t, k))
    if params.sweep:
        for t, k in itertools.product(params.thresholds, params.ks):
            if (t, k) != HEADLINE:
                chosen.append((with_voting(t, k), now(), t, k))
        if baseline is not None:
            for t, k in itertools.product(params.thresholds, params.ks):
                if (t, k) != HEADLINE:
                    chosen.append((with_voting(t, k, "today"), today(baseline), t, k))
    return chosen


def evaluate(params: SimParams, pr: SimPR, old: Old) -> PRResult:
    """Every decision method on one PR."""
    out: dict[str, Tally] = {}
    for n, (reviewer, findings) in enumerate(zip(params.reviewers, pr.reviews, strict=True)):
        out[single(n, reviewer)] = tally(pr, findings)
    every = [f for review in pr.reviews for f in review] + scan.detections(pr.diff)
    clusters = align(every, anchor_text=anchor_reader(pr.diff))
    families = len({r.family for r in params.reviewers})
    out[UNION] = tally(pr, clusters)
    majority = [c for c in clusters if 2 * len(c.model_families) > families]
    out[MAJORITY] = tally(pr, majority)
    for t in params.thresholds:
        outcome = asyncio.run(decide(params, pr, now(asks=False), t, None))
        out[consensus_only(t)] = tally(pr, [s.cluster for s in outcome.items if s.status.posted])
    chosen = methods(params, old)
    outcomes = asyncio.run(_all(params, pr, chosen))
    for (name, *_), outcome in zip(chosen, outcomes, strict=True):
        items = [s for s in outcome.items if s.status.posted]
        unchecked = sum(1 for s in items if s.verification is None)
        own = sum(
            1
            for s in outcome.items
            if s.verification is not None
            for v in s.verification.votes
            if v.family in s.cluster.families
        )
        out[name] = tally(
            pr, [s.cluster for s in items], outcome.verify_calls, outcome.same_calls, unchecked,
            own,
        )  # fmt: skip
    return PRResult(out, diagnose(pr, outcomes[0].items))


async def _all(
    params: SimParams, pr: SimPR, chosen: Sequence[tuple[str, Decisions, float, int]]
) -> list[Outcome]:
    return list(await asyncio.gather(*(decide(params, pr, c, t, k) for _, c, t, k in chosen)))


_RANK = {
    "consensus": 0,
    "verified": 1,
    "undecided": 2,
    "rejected": 3,
    "unverified (routed)": 4,
    "unverified (low severity)": 5,
}


def _route(item: ScoredCluster) -> str:
    if item.status is Status.UNVERIFIED:
        return "unverified (routed)" if item.needs_verification else "unverified (low severity)"
    return str(item.status.value)


def diagnose(pr: SimPR, items: Sequence[ScoredCluster]) -> Diagnosis:
    diagnosis = Diagnosis()
    best: dict[Problem, str] = {}
    clusters_of: Counter[Problem] = Counter()
    for item in items:
        origins = {p for m in item.cluster.members if (p := pr.about(m)) is not None}
        diagnosis.mixed += len(origins) > 1
        for problem in origins:
            clusters_of[problem] += 1
            route = _route(item)
            if problem.real and _RANK[route] < _RANK.get(best.get(problem, ""), 99):
                best[problem] = route
        if item.status.posted and about_bug(pr.bugs, *_where(item.cluster)) is None:
            kind = "shared" if origins & pr.shared else "single"
            diagnosis.fp_posted[f"{item.status.value}, {kind} invention"] += 1
    diagnosis.outcome.update(best.values())
    diagnosis.outcome["missed by every reviewer"] += len(pr.bugs) - len(best)
    diagnosis.split = sum(1 for p in best if clusters_of[p] > 1)
    where = {m: n for n, item in enumerate(items) for m in item.cluster.members}
    for a, b in itertools.combinations(where, 2):
        problem = pr.about(a)
        if problem is not None and problem.real and problem is pr.about(b) and where[a] != where[b]:
            diagnosis.split_pairs[_why_apart(a, b)] += 1
    return diagnosis


def _where(cluster: Cluster) -> tuple[str, int, int]:
    return cluster.path, cluster.line, cluster.end_line


def _why_apart(a: Finding, b: Finding) -> str:
    gap = max(a.line, b.line) - min(max(a.line, a.end_line), max(b.line, b.end_line))
    if gap > LINE_WINDOW:
        return f"lines more than {LINE_WINDOW} apart"
    if a.family == b.family:
        return "one family (two personas or the scan twice)"
    if similarity(a, b) == 0.0:
        return "named different defects, or incompatible categories"
    return "open question answered (or settled by the words) as two problems"


@dataclass(frozen=True)
class SimResult:
    params: SimParams
    tallies: dict[str, Tally]
    diagnosis: Diagnosis
    seconds: float
    baseline: str  # "" when today's code was loaded, else why not
    before: str = "not asked for"  # "" when the first round's code was loaded, else why not


def simulate(params: SimParams, *, with_today: bool = True) -> SimResult:
    """`with_today`: also run the earlier versions of the code (benchmarks.sim.baseline)."""
    started = time.perf_counter()
    loaded = load(TODAY_VERSION) if with_today else "not asked for"
    first = load(ROUND_ONE) if with_today else "not asked for"
    baseline = loaded if isinstance(loaded, Baseline) else None
    old = Old(baseline, first if isinstance(first, Baseline) else None)
    totals: dict[str, Tally] = {}
    diagnosis = Diagnosis()
    for index in range(params.prs):
        result = evaluate(params, make_pr(params, index), old)
        for name, value in result.tallies.items():
            totals.setdefault(name, Tally()).add(value)
        diagnosis.outcome.update(result.diagnosis.outcome)
        diagnosis.fp_posted.update(result.diagnosis.fp_posted)
        diagnosis.split += result.diagnosis.split
        diagnosis.split_pairs.update(result.diagnosis.split_pairs)
        diagnosis.mixed += result.diagnosis.mixed
    why = "" if baseline is not None else str(loaded)
    why_not_before = "" if old.before is not None else str(first)
    return SimResult(params, totals, diagnosis, time.perf_counter() - started, why, why_not_before)


# --------------------------------------------------------------------------- output


def table(result: SimResult) -> str:
    rows = [
        '| method | precision | recall | F1 | verification calls / PR | of which "same '
        'problem?" | duplicates / PR | posted on clean PRs |',
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t in result.tallies.items():
        rows.append(
            f"| {name} | {t.precision:.3f} | {t.recall:.3f} | {t.f1:.3f} | "
            f"{t.per_pr(t.verify_calls + t.same_calls):.2f} | {t.per_pr(t.same_calls):.2f} | "
            f"{t.per_pr(t.duplicates):.3f} | {t.clean_posted} |"
        )
    return "\n".join(rows)


@dataclass(frozen=True)
class Figure:
    name: str
    today: float | None
    values: tuple[float | None, ...]  # one per compared column, the last is "now"
    target: str
    met: bool
    digits: int = 3


def _calls(t: Tally) -> float:
    return t.per_pr(t.verify_calls + t.same_calls)


def headline(result: SimResult) -> list[Figure]:
    """One problem, one comment: the recorded versions, now without asking, now; with
    the target of each (a column whose code was not loaded is None)."""
    t, k = HEADLINE
    old = result.tallies.get(with_voting(t, k, TODAY))
    columns = (
        result.tallies.get(with_voting(t, k, BEFORE)),
        result.tallies[with_voting(t, k, NO_ASKING)],
        result.tallies[with_voting(t, k)],
    )
    final = result.tallies[with_voting(t, k)]

    def of(value: Callable[[Tally], float]) -> tuple[float | None, tuple[float | None, ...]]:
        return (value(old) if old else None), tuple(value(c) if c else None for c in columns)

    limit = 1.3 * _calls(old) if old else None
    return [
        Figure("duplicates posted / PR", *of(lambda x: x.per_pr(x.duplicates)), "≤ 0.02",
               final.per_pr(final.duplicates) <= 0.02),
        Figure(f"posted findings on the {final.clean_prs} clean PRs",
               *of(lambda x: float(x.clean_posted)), "0", final.clean_posted == 0, 0),
        Figure("… of them posted without any verification",
               *of(lambda x: float(x.clean_unchecked)), "0", final.clean_unchecked == 0, 0),
        Figure("precision", *of(lambda x: x.precision), "≥ 0.95", final.precision >= 0.95),
        Figure("recall", *of(lambda x: x.recall), "≥ 0.93", final.recall >= 0.93),
        Figure("F1", *of(lambda x: x.f1), "", True),
        Figure("verification calls / PR (inspector, votes, \"same problem?\")", *of(_calls),
               f"≤ 1.3 × today{f' = {limit:.2f}' if limit else ''}",
               limit is None or _calls(final) <= limit, 2),
    ]  # fmt: skip


def headline_table(result: SimResult) -> str:
    today_name = "today" if not result.baseline else "today (not measured)"
    rows = [
        f"| figure (consensus ≥ 0.75, k=2) | {today_name} | after round 1 | now, without asking "
        "| now | target | |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for f in headline(result):
        fmt = f"{{:.{f.digits}f}}"
        old = "–" if f.today is None else fmt.format(f.today)
        values = " | ".join("–" if v is None else fmt.format(v) for v in f.values)
        verdict = "" if not f.target else ("met" if f.met else "NOT MET")
        rows.append(f"| {f.name} | {old} | {values} | {f.target} | {verdict} |")
    return "\n".join(rows)


def independence(result: SimResult, configured: bool = False) -> list[Figure]:
    """Independent judges: reporters may judge (before) against independent judges (now),
    with the product's default judges or with `configured_judges`."""
    t, k = HEADLINE
    before = result.tallies[with_voting(t, k, now(independent=False, configured=configured).name)]
    after = result.tallies[with_voting(t, k, now(configured=configured).name)]
    limit = 1.2 * _calls(before)
    return [
        Figure("precision", before.precision, (after.precision,),
               f"≥ {before.precision + 0.05:.3f} (before + 0.05)",
               after.precision >= before.precision + 0.05),
        Figure("recall", before.recall, (after.recall,),
               f"within 0.02 of {before.recall:.3f}", abs(after.recall - before.recall) <= 0.02),
        Figure("F1", before.f1, (after.f1,), "", True),
        Figure("answers by a verifier of a reporting family / PR",
               before.per_pr(before.self_votes), (after.per_pr(after.self_votes),), "0",
               after.self_votes == 0, 2),
        Figure("verification calls / PR", _calls(before), (_calls(after),),
               f"≤ 1.2 × before = {limit:.2f}", _calls(after) <= limit, 2),
    ]  # fmt: skip


def independence_table(result: SimResult, configured: bool = False) -> str:
    rows = [
        "| figure (consensus ≥ 0.75, k=2) | reporters may judge | independent judges (now) "
        "| target | |",
        "|---|---:|---:|---|---|",
    ]
    for f in independence(result, configured):
        fmt = f"{{:.{f.digits}f}}"
        before = "–" if f.today is None else fmt.format(f.today)
        verdict = "" if not f.target else ("met" if f.met else "NOT MET")
        rows.append(f"| {f.name} | {before} | {fmt.format(f.values[0])} | {f.target} | {verdict} |")
    return "\n".join(rows)


def describe(params: SimParams) -> str:
    panel = "; ".join(
        f"{r.model} (family {r.family}): recall {r.recall:g}, {r.fp_per_pr:g} false positives "
        f"per PR, line offset up to ±{r.noise}"
        for r in params.reviewers
    )
    return (
        f"{params.prs} PRs (seed {params.seed}), {params.clean_share:.0%} of them clean (no "
        f"bug), the others with {params.bugs[0]}–{params.bugs[1]} true bugs in 2–5 files; panel: "
        f"{panel}; per PR {params.shared_fp_per_pr:g} invented problems shared by two "
        f"families and {params.shared3_fp_per_pr:g} severe (high or critical) ones shared by "
        f"three (counted in their false positives); a report starting above the problem spans "
        f"down to its line with p={params.cover:g}; committed keys found by the scan too (the "
        f"secret on the next line with p={params.two_line_keys:g}); severity one level off with "
        f"p={params.severity_noise:g}, another category with p={params.category_noise:g}; "
        f"{params.judges.name} judges ({params.judges.describe()}), "
        f"{'calibrated' if params.calibrated else 'no calibration'}; "
        f'"same problem?" answered right with '
        f"p={params.same_accuracy:g}; verify_min_severity medium, check_consensus_min_severity "
        f"high, max_votes 2 × the lead to verify + 3, k ≥ 3 for security and critical findings "
        f"and a lead of k + 1 to verify a finding only one family reported (the product's rules)."
    )


def plot(result: SimResult, path: Path) -> None:
    import matplotlib  # the `bench` extra: only the benchmark needs it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    params = result.params
    groups: list[tuple[str, str, str, list[tuple[str, str]]]] = [
        ("single reviewers", "o", "tab:gray",
         [(single(n, r), f"reviewer {n + 1}") for n, r in enumerate(params.reviewers)]),
        ("union / simple majority", "s", "tab:orange",
         [(UNION, "union"), (MAJORITY, "majority")]),
        ("consensus only", "^", "tab:blue",
         [(consensus_only(t), f"≥{t:g}") for t in params.thresholds]),
        ("today's code + verification", "x", "tab:brown",
         [(with_voting(t, k, "today" if (t, k) != HEADLINE else TODAY), f"≥{t:g} k={k}")
          for t in params.thresholds for k in params.ks]),
        ("consensus + verification", "*", "tab:green",
         [(with_voting(t, k), f"≥{t:g} k={k}") for t in params.thresholds for k in params.ks]),
    ]  # fmt: skip
    fig, ax = plt.subplots(figsize=(8, 6), dpi=110)
    for legend, marker, color, members in groups:
        points = [(result.tallies[name], label) for name, label in members
                  if name in result.tallies]  # fmt: skip
        if not points:
            continue
        ax.scatter([t.recall for t, _ in points], [t.precision for t, _ in points], s=50,
                   label=legend, marker=marker, color=color)  # fmt: skip
        for t, label in points:
            ax.annotate(label, (t.recall, t.precision), fontsize=7, xytext=(4, 3),
                        textcoords="offset points")  # fmt: skip
    default = result.tallies.get(with_voting(*HEADLINE))
    if default is not None:
        ax.scatter([default.recall], [default.precision], s=260, facecolors="none",
                   edgecolors="tab:red", label="default: ≥0.75 + verification, k=2")  # fmt: skip
    ax.axhline(0.95, color="tab:green", lw=0.8, ls="--")
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_title(
        f"Simulated precision and recall, {params.prs} PRs, {params.judges.name} judges"
        f"\n(dashed: the 0.95 precision target)",
        fontsize=9,
    )
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def report(result: SimResult) -> str:
    lines = ["One problem, one comment; severe consensus checked:", ""]
    if result.baseline:
        lines += [f"(today's figures not measured in this run: {result.baseline})", ""]
    if result.before:
        lines += [f"(the first round's figures not measured in this run: {result.before})", ""]
    lines += [headline_table(result), ""]
    lines += [
        f"Independent verification (verifiers confirm their own family's claim "
        f"with p={result.params.judges.self_preference:g} whatever the truth):",
        "",
        "With the product's default judges (no inspector or voters configured):",
        "",
        independence_table(result),
        "",
        f"With a configured inspector ({result.params.configured_judges[0]}) and voters "
        f"({', '.join(result.params.configured_judges[1])}), as in the issue:",
        "",
        independence_table(result, configured=True),
        "",
        "All methods:",
        "",
        table(result),
    ]
    lines += ["", *diagnosis_lines(result)]
    pairs = merge_corpus.load()
    lines += ["", f"Merge corpus ({merge_corpus.CORPUS.relative_to(ROOT)}), through the real align "
              "(target: precision and recall each ≥ 0.95):", "",
              *merge_corpus.table(pairs)]  # fmt: skip
    return "\n".join(lines)


def diagnosis_lines(result: SimResult) -> list[str]:
    """Where the found bugs of the default method end up, as a list."""
    d = result.diagnosis
    lines = ["Where found bugs end up (now, consensus ≥ 0.75 + verification, k=2):"]
    lines += [f"- {name}: {count}" for name, count in sorted(d.outcome.items())]
    return [
        *lines,
        f"- found bugs split over several clusters: {d.split}",
        f"- pairs of findings about one bug left apart: {_counts(d.split_pairs) or 'none'}",
        f"- clusters mixing different problems: {d.mixed}",
        f"- posted false positives: {_counts(d.fp_posted) or 'none'}",
    ]


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{name}: {count}" for name, count in counter.most_common())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Quality benchmark (simulation).")
    parser.add_argument("--prs", type=int, default=DEFAULT.prs)
    parser.add_argument("--seed", type=int, default=DEFAULT.seed)
    parser.add_argument("--judges", choices=sorted(PRESETS), default=DEFAULT.judges.name)
    parser.add_argument("--rule", choices=("weighed", "ahead-by-k"), default=DEFAULT.rule)
    parser.add_argument(
        "--presets", action="store_true",
        help="every judge preset and the rules' frontier (benchmarks/sim/quality_rules.py)",
    )  # fmt: skip
    parser.add_argument("--shared-fp", type=float, default=DEFAULT.shared_fp_per_pr)
    parser.add_argument("--no-sweep", action="store_true", help="only the headline methods")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs" / "quality.png")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    if args.presets:
        from benchmarks.sim import quality_rules  # it imports this module: only when asked

        base = replace(DEFAULT, prs=args.prs, seed=args.seed)
        print(quality_rules.report(quality_rules.measure(base)))
        return 0
    params = replace(
        DEFAULT,
        prs=args.prs,
        seed=args.seed,
        judges=PRESETS[args.judges],
        rule=args.rule,
        shared_fp_per_pr=args.shared_fp,
        sweep=not args.no_sweep,
    )
    result = simulate(params)
    print(describe(params), end="\n\n")
    print(report(result))
    print(f"\n{params.prs} PRs in {result.seconds:.1f} s")
    if not args.no_plot:
        plot(result, args.plot)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
