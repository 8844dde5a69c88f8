"""The figures blocks of the GitHub section: API requests and model calls per Action run.

`benchmarks/github_bench.py` runs `consensus action` twice on one head against the
loopback GitHub (a first run, then a re-run on a fresh runner) for each number of
findings, counts the requests by endpoint and the model calls, and hands them here as
`GitHubResults`; `github_figures` is pure (one run's counts → the markdown of its blocks).
Counts, not times: they do not move with the load of the machine.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.sim.sections import table, verdict

REQUEST_TARGET = 12  # GitHub API requests per run, first run or re-run
RERUN_CALLS_TARGET = 0  # model calls on a re-run of the same head


@dataclass(frozen=True)
class GitHubRun:
    """A first run and a re-run on the same head, for one number of findings."""

    findings: int
    first: dict[str, int]  # "METHOD /endpoint" → requests
    rerun: dict[str, int]
    first_calls: int  # model calls
    rerun_calls: int


@dataclass(frozen=True)
class GitHubResults:
    files: int
    runs: tuple[GitHubRun, ...]  # fewest findings first; the endpoints are of the first


def most_requests(g: GitHubRun) -> int:
    """The requests of the busier of the two runs."""
    return max(sum(g.first.values()), sum(g.rerun.values()))


def github_met(r: GitHubResults) -> bool:
    requests = max(most_requests(g) for g in r.runs)
    calls = max(g.rerun_calls for g in r.runs)
    return requests <= REQUEST_TARGET and calls <= RERUN_CALLS_TARGET


def _counts_table(r: GitHubResults) -> str:
    rows = [
        (
            f"{g.findings:,}",
            str(sum(g.first.values())),
            str(sum(g.rerun.values())),
            f"≤ {REQUEST_TARGET} per run: {verdict(most_requests(g) <= REQUEST_TARGET)}",
            str(g.first_calls),
            str(g.rerun_calls),
            f"{RERUN_CALLS_TARGET} on a re-run: {verdict(g.rerun_calls <= RERUN_CALLS_TARGET)}",
        )
        for g in r.runs
    ]
    head = (
        "findings",
        "GitHub requests, first run",
        "re-run",
        "target",
        "model calls, first run",
        "re-run",
        "target",
    )
    return table(head, "rrrlrrl", rows)


def _endpoints_table(g: GitHubRun) -> str:
    endpoints = sorted(set(g.first) | set(g.rerun))
    rows = [(f"`{e}`", str(g.first.get(e, 0)), str(g.rerun.get(e, 0))) for e in endpoints]
    rows.append(("all", str(sum(g.first.values())), str(sum(g.rerun.values()))))
    return table(("request", "first run", "re-run"), "lrr", rows)


def github_figures(r: GitHubResults) -> dict[str, str]:
    first = r.runs[0]
    totals = {n for g in r.runs for n in (sum(g.first.values()), sum(g.rerun.values()))}
    findings = " and ".join(f"{g.findings:,}" for g in r.runs)
    if len(totals) == 1:
        requests = f"{min(totals)} on every run, first run or re-run, with {findings} findings"
    else:
        requests = f"from {min(totals)} to {max(totals)} over the runs with {findings} findings"
    summary = (
        f"A PR of {r.files} files. GitHub requests per run: {requests}. Targets (≤ "
        f"{REQUEST_TARGET} requests per run, {RERUN_CALLS_TARGET} model calls on a re-run): "
        f"{verdict(github_met(r))}."
    )
    by_endpoint = f"By request, with {first.findings:,} findings:\n\n" + _endpoints_table(first)
    return {"github": _counts_table(r) + "\n\n" + summary, "github-endpoints": by_endpoint}
