"""Where a bench's inputs come from: the suite, the published figures, each PR's diff.

`martian-offline` is downloaded from its public repository at the pinned commit through
the GitHub API ($GITHUB_API_URL, so a GitHub Enterprise or test server can stand in) and
cached under the consensus home, never copied into this repository; a suite FILE is read
from disk. A PR's diff is read through the GitHub API (the PR's files and their patches,
as a review of that PR reads them) and cached too, with its head commit, so a re-score or
a resumed bench asks GitHub nothing again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from consensus.bench import martian
from consensus.bench.martian import PublishedFigures
from consensus.bench.suite import Suite, SuitePR, load_suite
from consensus.errors import ConfigError, GitHubError, UsageError
from consensus.ingest.pull_diff import build_pull_diff
from consensus.ports import Log, PullReader

TOKEN_NOTE = (
    "reading the benchmark and each PR's diff through the GitHub API: set GITHUB_TOKEN "
    "(any token that can read public repositories): without one GitHub allows 60 requests "
    "an hour, and a full run needs a few per pull request (its diff, the files judges read)"
)


@dataclass(frozen=True)
class LoadedSuite:
    suite: Suite
    published_judge: str | None = None  # the benchmark's results directory for our judge
    published: tuple[PublishedFigures, ...] = ()


@dataclass(frozen=True)
class PullSource:
    """A PR's diff as the review reads it, and the commit its files are read at."""

    diff: str
    head_sha: str | None
    notes: tuple[str, ...] = ()


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".part")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def cached_file(
    open_data: Callable[[str], PullReader], cache: Path, repo: str, ref: str, path: str
) -> str:
    """`path` of `repo` at `ref`: from the cache, else downloaded into it."""
    local = cache / path
    if local.is_file():
        return local.read_text(encoding="utf-8")
    text = open_data(repo).read_file(path, ref)
    if text is None:
        raise GitHubError(
            f"{repo} has no file {path} at {ref[:12]}",
            fix="check GITHUB_API_URL: the benchmark is read from github.com",
        )
    _write(local, text)
    return text


def load_martian(
    open_data: Callable[[str], PullReader], home: Path, judge: str, log: Log
) -> LoadedSuite:
    """The benchmark's goldens (and the published figures of `judge`, if it is one of
    the benchmark's judges), downloaded once at the pinned commit."""
    cache = home / "bench" / martian.NAME / martian.COMMIT
    if not (cache / martian.LICENCE_PATH).is_file():
        log(TOKEN_NOTE)

    def read(path: str) -> str:
        return cached_file(open_data, cache, martian.REPOSITORY, martian.COMMIT, path)

    licence = read(martian.LICENCE_PATH)
    goldens = {project: read(martian.golden_path(project)) for project in martian.PROJECTS}
    suite = martian.martian_suite(goldens, licence)
    log(f"benchmark: Martian's Code Review Bench, offline part, from {martian.source_line()}")
    log(f"licence: {suite.licence} (the benchmark's data is theirs, downloaded, not ours)")
    log(f"cached in {cache}")
    judge_dir = martian.judge_dir_for(judge)
    if judge_dir is None:
        log(
            f"the judge {judge} is none of the benchmark's judges "
            f"({', '.join(martian.JUDGES)}): no published figures are shown beside ours"
        )
        return LoadedSuite(suite)
    published = martian.published_figures(read(martian.evaluations_path(judge_dir)), judge_dir)
    return LoadedSuite(suite, judge_dir, tuple(published))


def load_suite_spec(
    spec: str, *, open_data: Callable[[str], PullReader], home: Path, judge: str, log: Log
) -> LoadedSuite:
    """`martian-offline`, or the path of a JSONL suite."""
    if spec == martian.NAME:
        return load_martian(open_data, home, judge, log)
    path = Path(spec)
    if not path.is_file():
        raise UsageError(
            f"--suite {spec}: neither a known suite nor a file",
            fix=f"use --suite {martian.NAME} or the path of a JSONL suite (docs/benchmarks.md)",
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), None, f"unreadable ({exc})") from None
    return LoadedSuite(load_suite(text, source=str(path)))


def pull_source(
    pr: SuitePR, *, open_pulls: Callable[[str], PullReader], home: Path, fetch: bool = True
) -> PullSource | None:
    """The PR's diff: inline in the suite, cached, or (with `fetch`) read from GitHub.
    None when it is not cached and `fetch` is off."""
    if pr.diff is not None:
        return PullSource(diff=pr.diff, head_sha=None)
    assert pr.repo is not None and pr.number is not None  # SuitePR holds one or the other
    cache = home / "bench" / "pulls" / pr.repo / f"{pr.number}.json"
    if cache.is_file():
        data = json.loads(cache.read_text(encoding="utf-8"))
        return PullSource(str(data["diff"]), data.get("head_sha"), tuple(data.get("notes", ())))
    if not fetch:
        return None
    host = open_pulls(pr.repo)
    info = host.pull_request(pr.number)
    built = build_pull_diff(host.pull_files(pr.number), changed_files=info.changed_files)
    notes = (*built.notes, *(f"{s.path}: {s.reason}" for s in built.skipped))
    _write(cache, json.dumps({"diff": built.text, "head_sha": info.head_sha, "notes": notes}))
    return PullSource(built.text, info.head_sha, notes)
