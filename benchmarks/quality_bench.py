"""Quality benchmark: how much the decision machinery (align → score → verify) is worth.

A simulation in the way MAKER analyses voting. Synthetic pull requests carry known bugs;
a panel of simulated reviewers (distinct provider families) each finds a bug with its own
recall, invents its own false positives (some shared by two reviewers: the same invented
problem at the same place, worded differently), misplaces lines by up to its own offset
and words every finding from a pool of paraphrases. Their findings go through the
product's REAL `align`, `score` and `verify` (nothing here re-implements them); the
verifiers are fake ModelClients that read the verification prompt, look the finding's
location up in the ground truth and answer right with probability `accuracy`.

    python benchmarks/quality_bench.py [--prs 1000] [--seed 1] [--accuracy 0.85]

A posted finding (status consensus or verified) is a true positive when it lies within
MATCH_LINES lines of a true bug in the same file; recall counts the bugs some posted
finding matches. Figures are micro-averaged over all PRs.
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from consensus.decide.align import LINE_WINDOW, MERGE_THRESHOLD, align, similarity  # noqa: E402
from consensus.decide.score import score  # noqa: E402
from consensus.model.base import Category, FileStatus, Severity, Status  # noqa: E402
from consensus.model.diff import ChangedFile, DiffLine, Hunk, ReviewDiff  # noqa: E402
from consensus.model.findings import Cluster, Finding, ModelReview, ScoredCluster  # noqa: E402
from consensus.ports import CompletionRequest  # noqa: E402
from consensus.review.ledger import Ledger  # noqa: E402
from consensus.review.pipeline import anchor_reader, coverage  # noqa: E402
from consensus.review.verify import verify  # noqa: E402
from consensus.settings.config import BudgetSettings, InspectorSettings, ProviderSettings, Settings  # noqa: E402
from consensus.testing import FakeModelClient  # noqa: E402

MATCH_LINES = 3  # a finding this close to a true bug (same file) is about that bug
BUG_SPACING = 10  # true bugs of one file are at least this far apart
FP_CLEARANCE = 8  # invented problems are placed at least this far from any true bug
SEV = (Severity.INFO, Severity.LOW, Severity.MEDIUM, Severity.HIGH, Severity.CRITICAL)
B, S, P, CC, M = (
    Category.BUG,
    Category.SECURITY,
    Category.PERFORMANCE,
    Category.CONCURRENCY,
    Category.MAINTAINABILITY,
)


# --------------------------------------------------------------------------- the catalog


@dataclass(frozen=True)
class Kind:
    """A kind of problem: the code that has it, categories models file it under, wordings."""

    name: str
    code: str  # "{v}" is the variable
    categories: tuple[Category, ...]  # the first is the usual one
    severity: Severity
    phrasings: tuple[tuple[str, str], ...]  # (title, body); "{v}" is the variable


KINDS: tuple[Kind, ...] = (
    Kind("off-by-one", "    for i in range(len({v}) + 1):", (B,), Severity.HIGH, (
        ("Off-by-one: loop reads past the end of `{v}`",
         "`range(len({v}) + 1)` makes `{v}[i]` raise IndexError on the last iteration."),
        ("Loop bound is one too many",
         "The loop runs len({v}) + 1 times, so the final index does not exist."),
        ("IndexError on the last iteration over {v}",
         "Iterating up to len + 1 touches an element that is not there. Drop the `+ 1`."),
        ("Index out of range in loop over `{v}`",
         "The upper bound includes len({v}), which is not a valid index."),
        ("Fencepost error in the iteration",
         "The range end should be len({v}), not len({v}) + 1; the extra step crashes."),
    )),
    Kind("none", '    name = {v}.get("name").strip()', (B,), Severity.MEDIUM, (
        ("Possible None dereference on `{v}.get(...)`",
         "`.get()` returns None when the key is missing, and `.strip()` then raises."),
        ("Missing key crashes with AttributeError",
         "If the name is absent, get returns None and calling strip on it fails."),
        ("No None check before calling strip()",
         "The result of `{v}.get` can be None; guard it or give get a default."),
        ("'NoneType' object has no attribute 'strip'",
         "A record of {v} without a name makes this line throw. Pass a default to get."),
    )),
    Kind("sql", '    cur.execute(f"SELECT * FROM users WHERE id = {{{v}}}")', (S, B),
         Severity.CRITICAL, (
        ("SQL query built with f-string allows injection",
         "The query interpolates `{v}` with an f-string; a crafted value changes the query."),
        ("User input interpolated directly into SQL statement",
         "`{v}` comes from the request and is formatted into the SELECT. Bind it instead."),
        ("Possible SQL injection: use parameterized queries",
         "Building SQL from request data is injectable. Use a placeholder for {v}."),
        ("Unsanitized `{v}` concatenated into query string",
         "The value is not escaped before it reaches the database."),
    )),
    Kind("leak", "    handle = open({v})", (B, M), Severity.MEDIUM, (
        ("File handle is never closed",
         "`open({v})` is not closed on every path; use a `with` block."),
        ("Resource leak: file opened without a context manager",
         "The handle for {v} stays open when an exception is raised before close()."),
        ("Leaked file descriptor when parsing fails",
         "If parsing raises, the file opened from {v} is never released."),
        ("Use `with open(...)` so the file is released",
         "Each call leaves one more open file behind; long-running workers run out of them."),
    )),
    Kind("race", "    self.{v} += 1", (CC, B), Severity.HIGH, (
        ("Race condition on shared counter `{v}`",
         "Several threads increment `self.{v}` without a lock; updates can be lost."),
        ("Non-atomic increment is not thread-safe",
         "`+=` on a shared attribute is read-modify-write; guard `self.{v}` with a lock."),
        ("Lost updates under concurrent requests",
         "Two workers can read the same {v} and both write the value plus one."),
        ("Unsynchronized access to self.{v}",
         "The counter is mutated from worker threads with no mutex around it."),
    )),
    Kind("divzero", "    average = total / len({v})", (B,), Severity.MEDIUM, (
        ("Division by zero when `{v}` is empty",
         "`len({v})` is 0 for an empty list, so computing the average crashes."),
        ("ZeroDivisionError on empty input",
         "Nothing guards the empty case before dividing by the length of {v}."),
        ("Average of an empty list crashes",
         "Return early (or 0) when {v} has no elements."),
        ("Unchecked zero denominator len({v})",
         "The divisor can be zero; the request fails with a 500."),
    )),
    Kind("swallow", "    except Exception: pass  # {v}", (M, B), Severity.LOW, (
        ("Exception silently swallowed",
         "`except Exception: pass` hides failures while handling {v}; log or re-raise."),
        ("Broad except hides errors",
         "Catching every exception here masks real bugs in the {v} handling."),
        ("Errors from {v} are ignored",
         "Failures vanish without a trace, which makes debugging very hard."),
        ("Catch-all handler discards the exception",
         "At least log the error; better, catch only what you expect from {v}."),
    )),
    Kind("n+1", "    for u in {v}: orders.append(db.query(Order).filter_by(user=u).all())",
         (P, B), Severity.MEDIUM, (
        ("N+1 queries in loop over `{v}`",
         "One query per element of {v}; fetch all orders in one query with IN."),
        ("Database query inside a loop",
         "Each iteration over {v} hits the database; batch the lookups."),
        ("One SELECT per user will not scale",
         "For large {v} this issues thousands of round-trips; prefetch the orders."),
        ("Slow: per-item query in `{v}` loop",
         "Move the query out of the loop and group the orders by user in memory."),
    )),
    Kind("mutable-default", "def add_item(item, {v}=[]):", (B,), Severity.MEDIUM, (
        ("Mutable default argument `{v}=[]`",
         "The list is shared between calls; default to None and create it inside."),
        ("Default list is shared across calls",
         "Items appended to {v} in one call show up in the next one."),
        ("State leaks between invocations through default {v}",
         "Python evaluates the default once; every caller mutates the same list."),
        ("Use None instead of [] as the default for {v}",
         "A mutable default keeps its contents from one call to the next."),
    )),
    Kind("await", "    {v} = fetch_user(uid)", (B,), Severity.HIGH, (
        ("Coroutine `fetch_user` is never awaited",
         "`{v}` receives a coroutine object, not the user; add `await`."),
        ("Missing await on async call",
         "fetch_user is async; without await, {v} holds a coroutine."),
        ("{v} is a coroutine, not a result",
         "The async function is called but not awaited, so the value is never computed."),
        ("Async function called without await",
         "This triggers a RuntimeWarning and {v} is unusable downstream."),
    )),
    Kind("traversal", "    path = os.path.join(UPLOAD_DIR, {v})", (S, B), Severity.HIGH, (
        ("Path traversal via user-supplied `{v}`",
         "A name like ../../etc/passwd escapes UPLOAD_DIR."),
        ("Unvalidated filename joined into upload path",
         "`{v}` comes from the request; resolve it and check it stays inside the directory."),
        ("Directory traversal in file download",
         "os.path.join with an untrusted {v} allows ../ sequences."),
        ("Attacker can read arbitrary files",
         "The request controls {v}, which is used as a path without validation."),
    )),
    Kind("secret", '    {v} = "sk_live_51HxQ2eZvKYlo2C"', (S,), Severity.HIGH, (
        ("Hard-coded credential in source",
         "`{v}` holds a live key; load it from the environment instead."),
        ("Secret committed to the repository",
         "Anyone with read access to the repo can use {v}. Rotate it."),
        ("API key should come from configuration",
         "Do not keep {v} in code; read it from a secret store."),
        ("Live token exposed in code",
         "The literal assigned to {v} looks like a production key."),
    )),
    Kind("timeout", "    resp = requests.get({v})", (B, P), Severity.MEDIUM, (
        ("HTTP request without timeout",
         "`requests.get({v})` can hang forever; pass `timeout=`."),
        ("Call may block forever",
         "With no timeout, a stalled server blocks this worker indefinitely."),
        ("No timeout on outbound request to {v}",
         "Set a timeout so slow upstreams do not exhaust the worker pool."),
        ("Worker hangs if the remote server stalls",
         "requests has no default timeout; add one to the call on {v}."),
    )),
    Kind("is-literal", '    if {v} is "admin":', (B,), Severity.LOW, (
        ("Identity comparison with a string literal",
         "`is` compares identity; use `==` to compare `{v}`."),
        ("`is` used instead of `==`",
         "The check on {v} depends on string interning and can fail."),
        ("String compared with is, not ==",
         "Python warns about this (SyntaxWarning); the result for {v} is unreliable."),
        ("Role check may fail: is vs ==",
         "Interned strings make the {v} check pass in tests and fail in production."),
    )),
)  # fmt: skip

VARIABLES = (
    *("ids", "items", "rows", "user_id", "records", "payload", "users", "entries"),
    *("request_id", "filename", "count", "url", "api_key", "batch", "role", "config"),
)


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
    accuracy: float = 0.85  # verifier: right with this probability
    shared_fp_per_pr: float = 0.5  # invented problems reported by two reviewers at once
    bugs: tuple[int, int] = (3, 6)
    severity_noise: float = 0.25  # a reviewer reports a severity one level off
    category_noise: float = 0.3  # a reviewer files a problem under an alternative category
    thresholds: tuple[float, ...] = (0.5, 0.75, 1.0)
    ks: tuple[int, ...] = (1, 2, 3)
    check_consensus: bool = False
    paraphrase: bool = True  # False: every reviewer words, files and rates a problem alike
    concurrency: int = 16
    # Give verify the head files for code context. Off by default: the verdicts here do not
    # read it, and verify re-redacts the whole file for every finding (~85% of the run time).
    with_source: bool = False


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
    shared: frozenset[Problem]  # invented problems that two reviewers reported


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
) -> Finding:
    kind = problem.kind
    title, body = rng.choice(kind.phrasings)
    line = min(max(problem.line + rng.randint(-reviewer.noise, reviewer.noise), span[0]), span[1])
    end_line = min(line + rng.choice((0, 0, 0, 1, 2)), span[1])
    category = kind.categories[0]
    if len(kind.categories) > 1 and rng.random() < params.category_noise:
        category = rng.choice(kind.categories[1:])
    severity = _severity(rng, problem.severity, params.severity_noise)
    quote = rng.random() < 0.5
    if not params.paraphrase:  # one wording, category and severity for every reviewer
        title, body = kind.phrasings[0]
        category, severity, quote = kind.categories[0], problem.severity, True
    return Finding(
        provider=reviewer.model,
        family=reviewer.family,
        persona="correctness",
        chunk=0,
        path=problem.path,
        line=line,
        end_line=end_line,
        severity=severity,
        category=category,
        title=title.format(v=problem.var),
        body=body.format(v=problem.var),
        evidence=code.strip() if quote else None,
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
    for _ in range(rng.randint(*params.bugs)):
        spot = _place(rng, spots, [(b.path, b.line) for b in bugs], BUG_SPACING)
        if spot is None:
            break
        kind, var = rng.choice(KINDS), rng.choice(VARIABLES)
        bugs.append(Problem(*spot, kind, var, _severity(rng, kind.severity, 0.3), real=True))
        content[spot[0]][spot[1] - 1] = kind.code.format(v=var)

    def invent(taken: list[tuple[str, int]]) -> Problem | None:
        spot = _place(rng, spots, taken, FP_CLEARANCE)
        if spot is None:
            return None
        kind = rng.choice(KINDS)
        taken.append(spot)
        return Problem(*spot, kind, rng.choice(VARIABLES), kind.severity, real=False)

    taken = [(b.path, b.line) for b in bugs]
    own: list[list[Problem]] = [[] for _ in params.reviewers]
    shared: set[Problem] = set()
    if len(params.reviewers) >= 2:
        for _ in range(_count(rng, params.shared_fp_per_pr)):
            pair = rng.sample(range(len(params.reviewers)), 2)
            problem = invent(taken)
            if problem is not None:
                shared.add(problem)
                for n in pair:
                    own[n].append(problem)
    reviews: list[tuple[Finding, ...]] = []
    origin: dict[Finding, Problem] = {}
    for n, reviewer in enumerate(params.reviewers):
        # A shared invented problem is one of this reviewer's false positives, not extra.
        for _ in range(max(0, _count(rng, reviewer.fp_per_pr) - len(own[n]))):
            problem = invent(taken)
            if problem is not None:
                own[n].append(problem)
        found = [b for b in bugs if rng.random() < reviewer.recall] + own[n]
        findings = []
        for problem in found:
            finding = _report(
                rng,
                params,
                reviewer,
                problem,
                spans[problem.path],
                content[problem.path][problem.line - 1],
            )
            findings.append(finding)
            origin[finding] = problem
        reviews.append(tuple(findings))
    diff = ReviewDiff(files=tuple(_changed(path, spans[path], content[path]) for path in spans))
    texts = {path: "\n".join(lines) + "\n" for path, lines in content.items()}
    return SimPR(diff, texts, tuple(bugs), tuple(reviews), origin, frozenset(shared))


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


def about_bug(bugs: Sequence[Problem], path: str, line: int, end_line: int) -> Problem | None:
    """The true bug a finding at path:line-end_line is about, if any."""
    for bug in bugs:
        if bug.path == path and line - MATCH_LINES <= bug.line <= end_line + MATCH_LINES:
            return bug
    return None


def verifier(bugs: Sequence[Problem], accuracy: float, seed: int) -> FakeModelClient:
    """A fake verifier panel: right with probability `accuracy`, else split evenly between
    the opposite verdict and `uncertain`. Deterministic per (seed, request)."""

    def answer(request: CompletionRequest) -> str:
        prompt = request.messages[-1].content
        where = _LOCATION.search(prompt)
        if where is None:
            raise AssertionError("the verification prompt no longer states the location")
        real = about_bug(bugs, where["path"], int(where["line"]), int(where["end"])) is not None
        digest = hashlib.sha256(f"{seed}\0{request.model}\0{prompt}".encode()).digest()
        draw = int.from_bytes(digest[:8], "big") / 2**64
        if draw < accuracy:
            verdict = "confirmed" if real else "refuted"
        elif draw < accuracy + (1 - accuracy) / 2:
            verdict = "refuted" if real else "confirmed"
        else:
            verdict = "uncertain"
        return json.dumps({"verdict": verdict, "reason": "simulated"})

    return FakeModelClient(by_request=answer, tokens_in=0, tokens_out=0, cost_usd=0.0)


class _Source:
    def __init__(self, texts: Mapping[str, str]) -> None:
        self._texts = texts

    def read(self, path: str) -> str | None:
        return self._texts.get(path)


# --------------------------------------------------------------------------- evaluation


@dataclass
class Tally:
    """Posted findings and bugs over PRs, for one decision method."""

    tp: int = 0
    fp: int = 0
    found: int = 0
    bugs: int = 0
    calls: int = 0
    prs: int = 0
    duplicates: int = 0  # posted true positives about a bug another posted finding matched

    def add(self, other: Tally) -> None:
        for name in ("tp", "fp", "found", "bugs", "calls", "prs", "duplicates"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def strict_precision(self) -> float:
        """Precision when a second comment about an already-matched bug counts as wrong."""
        posted = self.tp + self.fp
        return (self.tp - self.duplicates) / posted if posted else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.bugs if self.bugs else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def tally(bugs: Sequence[Problem], posted: Sequence[tuple[str, int, int]], calls: int) -> Tally:
    hit: Counter[Problem] = Counter()
    fp = 0
    for path, line, end_line in posted:
        bug = about_bug(bugs, path, line, end_line)
        if bug is None:
            fp += 1
        else:
            hit[bug] += 1
    return Tally(
        tp=sum(hit.values()),
        fp=fp,
        found=len(hit),
        bugs=len(bugs),
        calls=calls,
        prs=1,
        duplicates=sum(hit.values()) - len(hit),
    )


def _where(cluster: Cluster) -> tuple[str, int, int]:
    return cluster.path, cluster.line, cluster.end_line


@dataclass
class Diagnosis:
    """Where findings go, on the headline configuration: the evidence behind the figures."""

    outcome: Counter[str] = field(default_factory=Counter)  # per found bug: its best status
    split: int = 0  # found bugs whose findings fell into more than one cluster
    # Why: each pair of findings about one bug that align left in different clusters.
    split_pairs: Counter[str] = field(default_factory=Counter)
    mixed: int = 0  # clusters merging findings about different problems
    fp_posted: Counter[str] = field(default_factory=Counter)  # posted FP clusters, by route


@dataclass(frozen=True)
class PRResult:
    tallies: dict[str, Tally]
    diagnosis: Diagnosis


def single(n: int, reviewer: Reviewer) -> str:
    return f"reviewer {n + 1} ({reviewer.family}, recall {reviewer.recall:g})"


def consensus_only(threshold: float) -> str:
    return f"consensus ≥ {threshold:g}, no verification"


def with_voting(threshold: float, k: int) -> str:
    return f"consensus ≥ {threshold:g} + inspector and voting, k={k}"


UNION, MAJORITY = "union of all", "simple majority (> half the families)"


def evaluate(params: SimParams, pr: SimPR, headline: tuple[float, int] = (0.75, 2)) -> PRResult:
    """Every decision method on one PR, through the product's align/score/verify."""
    n_reviews = len(params.reviewers)
    out: dict[str, Tally] = {}
    for n, (reviewer, findings) in enumerate(zip(params.reviewers, pr.reviews, strict=True)):
        posted = [(f.path, f.line, f.end_line) for f in findings]
        out[single(n, reviewer)] = tally(pr.bugs, posted, 1)
    results = [
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
    every = [f for review in results for f in review.findings]
    clusters = align(every, anchor_text=anchor_reader(pr.diff))
    families = len({r.family for r in params.reviewers})
    out[UNION] = tally(pr.bugs, [_where(c) for c in clusters], n_reviews)
    majority = [_where(c) for c in clusters if 2 * len(c.families) > families]
    out[MAJORITY] = tally(pr.bugs, majority, n_reviews)
    scored = {
        t: score(clusters, coverage(results), threshold=t, verify_min_severity=Severity.MEDIUM)
        for t in params.thresholds
    }
    for t, items in scored.items():
        posted = [_where(s.cluster) for s in items if s.status is Status.CONSENSUS]
        out[consensus_only(t)] = tally(pr.bugs, posted, n_reviews)
    configs = [(t, k) for t in params.thresholds for k in params.ks]
    checked = asyncio.run(_verify_all(params, pr, scored, configs))
    for (t, k), (items, calls) in zip(configs, checked, strict=True):
        posted = [_where(s.cluster) for s in items if s.status.posted]
        out[with_voting(t, k)] = tally(pr.bugs, posted, n_reviews + calls)
    diagnosis = Diagnosis()
    if headline in configs:
        diagnosis = diagnose(pr, checked[configs.index(headline)][0])
    return PRResult(out, diagnosis)


def settings_for(params: SimParams, threshold: float, k: int) -> Settings:
    return Settings(
        threshold=threshold,
        concurrency=params.concurrency,
        inspector=InspectorSettings(ahead_by=k, check_consensus=params.check_consensus),
        budget=BudgetSettings(max_cost_usd=None, max_tokens=None),
    )


async def _verify_all(
    params: SimParams,
    pr: SimPR,
    scored: Mapping[float, list[ScoredCluster]],
    configs: Sequence[tuple[float, int]],
) -> list[tuple[list[ScoredCluster], int]]:
    panel = [ProviderSettings(model=r.model, family=r.family) for r in params.reviewers]

    async def one(threshold: float, k: int) -> tuple[list[ScoredCluster], int]:
        client = verifier(pr.bugs, params.accuracy, params.seed)
        settings = settings_for(params, threshold, k)
        items = await verify(
            scored[threshold],
            diff=pr.diff,
            panel=panel,
            settings=settings,
            client=client,
            ledger=Ledger(settings.budget),
            source=_Source(pr.texts) if params.with_source else None,
        )
        return items, len(client.calls)

    return list(await asyncio.gather(*(one(t, k) for t, k in configs)))


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
        origins = {pr.origin[m] for m in item.cluster.members}
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
        same = pr.origin[a] is pr.origin[b] and pr.origin[a].real
        if same and where[a] != where[b]:
            diagnosis.split_pairs[_why_apart(a, b)] += 1
    return diagnosis


def _why_apart(a: Finding, b: Finding) -> str:
    gap = max(a.line, b.line) - min(max(a.line, a.end_line), max(b.line, b.end_line))
    if gap > LINE_WINDOW:
        return f"lines more than {LINE_WINDOW} apart"
    if similarity(a, b) < MERGE_THRESHOLD:
        return f"similarity below {MERGE_THRESHOLD:g}"
    return "similar enough, kept apart by average linkage"


@dataclass(frozen=True)
class SimResult:
    params: SimParams
    tallies: dict[str, Tally]
    diagnosis: Diagnosis
    seconds: float


def simulate(params: SimParams) -> SimResult:
    started = time.perf_counter()
    totals: dict[str, Tally] = {}
    diagnosis = Diagnosis()
    for index in range(params.prs):
        result = evaluate(params, make_pr(params, index))
        for name, value in result.tallies.items():
            totals.setdefault(name, Tally()).add(value)
        diagnosis.outcome.update(result.diagnosis.outcome)
        diagnosis.fp_posted.update(result.diagnosis.fp_posted)
        diagnosis.split += result.diagnosis.split
        diagnosis.split_pairs.update(result.diagnosis.split_pairs)
        diagnosis.mixed += result.diagnosis.mixed
    return SimResult(params, totals, diagnosis, time.perf_counter() - started)


# --------------------------------------------------------------------------- output


def table(result: SimResult) -> str:
    rows = [
        "| method | precision | recall | F1 | model calls / PR | duplicates / PR "
        "| precision, duplicates as wrong |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t in result.tallies.items():
        rows.append(
            f"| {name} | {t.precision:.3f} | {t.recall:.3f} | {t.f1:.3f} | "
            f"{t.calls / t.prs:.2f} | {t.duplicates / t.prs:.2f} | "
            f"{t.strict_precision:.3f} |"
        )
    return "\n".join(rows)


def targets(result: SimResult, headline: str = with_voting(0.75, 2)) -> list[tuple[str, bool]]:
    params = result.params
    singles = [result.tallies[single(n, r)] for n, r in enumerate(params.reviewers)]
    best_recall = max(t.recall for t in singles)
    best_f1 = max(t.f1 for t in singles)
    h = result.tallies[headline]
    return [
        (f"precision {h.precision:.3f} ≥ 0.90", h.precision >= 0.90),
        (
            f"recall {h.recall:.3f} ≥ best single reviewer's {best_recall:.3f}",
            h.recall >= best_recall,
        ),
        (f"F1 {h.f1:.3f} ≥ best single reviewer's {best_f1:.3f} + 0.10", h.f1 >= best_f1 + 0.10),
    ]


def describe(params: SimParams) -> str:
    panel = "; ".join(
        f"{r.model} (family {r.family}): recall {r.recall:g}, {r.fp_per_pr:g} false positives "
        f"per PR, line offset up to ±{r.noise}"
        for r in params.reviewers
    )
    return (
        f"{params.prs} PRs (seed {params.seed}), {params.bugs[0]}–{params.bugs[1]} true bugs "
        f"each in 2–5 files; panel: {panel}; {params.shared_fp_per_pr:g} invented problems per "
        f"PR shared by two reviewers (counted in their false positives); severity one level off "
        f"with p={params.severity_noise:g}, alternative category with "
        f"p={params.category_noise:g}; verifiers of accuracy {params.accuracy:g} (wrong answers "
        f"split evenly between the opposite verdict and `uncertain`); verify_min_severity "
        f"medium, check_consensus {str(params.check_consensus).lower()}, max_votes 2k+3, "
        f"k ≥ 3 for security and critical findings (the product's rule)."
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
        ("consensus + verification", "*", "tab:green",
         [(with_voting(t, k), f"≥{t:g} k={k}") for t in params.thresholds for k in params.ks]),
    ]  # fmt: skip
    fig, ax = plt.subplots(figsize=(8, 6), dpi=110)
    for legend, marker, color, members in groups:
        points = [(result.tallies[name], label) for name, label in members]
        ax.scatter([t.recall for t, _ in points], [t.precision for t, _ in points], s=50,
                   label=legend, marker=marker, color=color)  # fmt: skip
        for t, label in points:
            ax.annotate(label, (t.recall, t.precision), fontsize=7, xytext=(4, 3),
                        textcoords="offset points")  # fmt: skip
    default = result.tallies.get(with_voting(0.75, 2))
    if default is not None:
        ax.scatter([default.recall], [default.precision], s=260, facecolors="none",
                   edgecolors="tab:red", label="default: ≥0.75 + verification, k=2")  # fmt: skip
    ax.axhline(0.90, color="tab:green", lw=0.8, ls="--")
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_title(
        f"Simulated precision and recall, {params.prs} PRs, verifier accuracy "
        f"{params.accuracy:g}\n(dashed: the 0.90 precision target)",
        fontsize=9,
    )
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def report(result: SimResult) -> str:
    lines = [table(result), "", "Targets (default panel, consensus ≥ 0.75 + verification, k=2):"]
    lines += [f"- {'met' if ok else 'NOT MET'}: {text}" for text, ok in targets(result)]
    d = result.diagnosis
    lines += ["", "Where found bugs end up (consensus ≥ 0.75 + verification, k=2):"]
    lines += [f"- {name}: {count}" for name, count in sorted(d.outcome.items())]
    lines += [
        f"- found bugs split over several clusters: {d.split}",
        f"- pairs of findings about one bug left apart: {_counts(d.split_pairs)}",
        f"- clusters mixing different problems: {d.mixed}",
        f"- posted false positives: {_counts(d.fp_posted) or 'none'}",
    ]
    return "\n".join(lines)


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{name}: {count}" for name, count in counter.most_common())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Quality benchmark (simulation).")
    parser.add_argument("--prs", type=int, default=DEFAULT.prs)
    parser.add_argument("--seed", type=int, default=DEFAULT.seed)
    parser.add_argument("--accuracy", type=float, default=DEFAULT.accuracy)
    parser.add_argument("--shared-fp", type=float, default=DEFAULT.shared_fp_per_pr)
    parser.add_argument("--plot", type=Path, default=ROOT / "docs" / "quality.png")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    params = replace(
        DEFAULT,
        prs=args.prs,
        seed=args.seed,
        accuracy=args.accuracy,
        shared_fp_per_pr=args.shared_fp,
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
