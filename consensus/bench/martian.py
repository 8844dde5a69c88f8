"""Martian's Code Review Bench, offline part: where its files are and how to read them.

The benchmark (github.com/withmartian/code-review-benchmark, MIT licence) is never copied
into this repository: `consensus bench --suite martian-offline` downloads these files at
the pinned commit and caches them. Its layout at that commit:

    LICENSE
    offline/golden_comments/<project>.json   a list of PRs: {"pr_title", "url" (a pull
                                             request on GitHub), "comments": [{"comment",
                                             "severity": "Low|Medium|High|Critical"}], …}
    offline/results/<judge>/evaluations.json {pr url: {tool: {"tp", "fp", "fn", "skipped",
                                             …}}}, one directory per judge model
                                             (`openai_gpt-5.2`: the model with "/" as "_")

Published figures are summed as the benchmark's dashboard sums them: precision =
tp / (tp + fp), recall = tp / (tp + fn) over every PR a tool was not skipped on. Its
scoring skips a PR without golden comments (none at the pinned commit); so does the suite
read here, rather than taking it for a clean PR. Pure: texts in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from consensus.bench.suite import Golden, Suite, SuitePR, suite_of
from consensus.errors import ConfigError
from consensus.model.base import Frozen

NAME = "martian-offline"
REPOSITORY = "withmartian/code-review-benchmark"
COMMIT = "012d68202e56280855b85abb956410086008a7b2"  # 2026-03-05, "Fix author separation"
LICENCE_PATH = "LICENSE"
PROJECTS = ("cal_dot_com", "discourse", "grafana", "keycloak", "sentry")
JUDGES = (
    "anthropic_claude-opus-4-5-20251101",
    "anthropic_claude-sonnet-4-5-20250929",
    "openai_gpt-5.2",
)
_PULL_URL = re.compile(r"^https://github\.com/([^/]+/[^/]+)/pull/(\d+)/?$")


def golden_path(project: str) -> str:
    return f"offline/golden_comments/{project}.json"


def evaluations_path(judge_dir: str) -> str:
    return f"offline/results/{judge_dir}/evaluations.json"


def source_line() -> str:
    return f"https://github.com/{REPOSITORY} at {COMMIT[:12]}"


def judge_dir_for(model: str) -> str | None:
    """The benchmark's results directory judged by `model`, if it is one of its three.

    Matched on the model's own name, whatever route reaches it: `openai/gpt-5.2`,
    `gpt-5.2`, `openrouter/anthropic/claude-opus-4-5-20251101` all name a judge there."""
    name = model.rsplit("/", 1)[-1].lower()
    for judge in JUDGES:
        if judge.split("_", 1)[1].lower() == name:
            return judge
    return None


def licence_summary(text: str) -> str:
    """The licence's name and its copyright line: "MIT License, Copyright (c) 2025 …"."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    copyright_line = next((line for line in lines if line.lower().startswith("copyright")), "")
    return ", ".join(part for part in (lines[0] if lines else "", copyright_line) if part)


def martian_suite(goldens: Mapping[str, str], licence: str) -> Suite:
    """The suite from the golden comment files (project → the file's text)."""
    prs: list[SuitePR] = []
    for project in PROJECTS:
        where = f"{REPOSITORY}:{golden_path(project)}"
        try:
            entries = json.loads(goldens[project])
        except (KeyError, json.JSONDecodeError) as exc:
            raise ConfigError(where, None, f"unreadable ({exc})", fix=REFETCH) from None
        if not isinstance(entries, list):
            raise ConfigError(where, None, "not a list of pull requests", fix=REFETCH)
        for index, entry in enumerate(entries):
            pr = _pr(entry, project, f"{where}[{index}]")
            if pr.goldens:  # the benchmark skips a PR without goldens: so do we
                prs.append(pr)
    return suite_of(NAME, source_line(), prs, where=REPOSITORY, licence=licence_summary(licence))


REFETCH = "delete the cached copy (its path is printed above) and run again"


def _pr(entry: object, project: str, where: str) -> SuitePR:
    if not isinstance(entry, dict):
        raise ConfigError(where, None, "not an object", fix=REFETCH)
    url = str(entry.get("url") or "")
    match = _PULL_URL.match(url)
    if match is None:
        raise ConfigError(where, "url", f"not a pull request URL: {url!r}", fix=REFETCH)
    comments = entry.get("comments") or []
    goldens = tuple(
        Golden(comment=str(c.get("comment") or ""), severity=c.get("severity"))
        for c in comments
        if isinstance(c, dict)
    )
    return SuitePR(
        id=url.removeprefix("https://github.com/").replace("/pull/", "#"),
        repo=match.group(1),
        number=int(match.group(2)),
        title=str(entry.get("pr_title") or ""),
        url=url,
        project=project,
        goldens=goldens,
    )


class PublishedFigures(Frozen):
    """One tool's published result under one judge, summed over the benchmark's PRs."""

    tool: str
    judge: str
    prs: int
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def published_figures(text: str, judge: str) -> list[PublishedFigures]:
    """Every tool's figures from one judge's evaluations.json, by tool name."""
    where = f"{REPOSITORY}:{evaluations_path(judge)}"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(where, None, f"not JSON ({exc.msg})", fix=REFETCH) from None
    if not isinstance(data, dict):
        raise ConfigError(where, None, "not an object keyed by pull request", fix=REFETCH)
    sums: dict[str, list[int]] = {}
    for tools in data.values():
        for tool, result in (tools or {}).items():
            if not isinstance(result, dict) or result.get("skipped"):
                continue
            counts = sums.setdefault(str(tool), [0, 0, 0, 0])
            counts[0] += 1
            for n, key in enumerate(("tp", "fp", "fn"), 1):
                counts[n] += int(result.get(key) or 0)
    return [
        PublishedFigures(tool=tool, judge=judge, prs=n, tp=tp, fp=fp, fn=fn)
        for tool, (n, tp, fp, fn) in sorted(sums.items())
    ]
