"""GitHub API requests per review: `consensus action` against the loopback fake GitHub.

A PR of 40 files, two providers that agree on N findings (25 by default, then 100 to show
the count does not grow with findings), the real GitHub adapter (PyGithub) and the real
pipeline. Prints the requests of a first run (posts the review and the summary) and of a
re-run on the same head (posts nothing new, edits the summary), by endpoint, and the model
calls of each: the re-run runs on a fresh runner (no journal, as on GitHub's runners) and
carries every decision from the summary's state (0 model calls).

    python benchmarks/github_bench.py [--files 40] [--findings 25]
        [--markdown benchmarks/results/github.md]

`--markdown` writes this run's counts into the section's figures blocks
(`benchmarks/sim/github_figures.py`); `python benchmarks/report.py` then assembles
BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.sim.github_figures import (  # noqa: E402
    REQUEST_TARGET,
    GitHubResults,
    GitHubRun,
    github_figures,
)
from benchmarks.sim.sections import write_figures  # noqa: E402
from consensus.action.main import run  # noqa: E402
from consensus.adapters.github import GitHubHost  # noqa: E402
from consensus_sim.github_server import FakeGitHub, PullRequest  # noqa: E402
from consensus_sim.provider_server import FakeProviderServer, Script, prompt_text, reply  # noqa: E402

REPO = "acme/service"


def module(n: int, changed: bool) -> str:
    lines = [f"def helper_{n}_{i}(value):\n    return value + {i}\n" for i in range(30)]
    if changed:
        lines[10] = f"def helper_{n}_10(value):\n    return eval(value)  # changed {n}\n"
    return "".join(lines)


def patch(n: int) -> str:
    before, after = module(n, False).splitlines(), module(n, True).splitlines()
    body = [f" {line}" for line in before[18:20]]
    body += [f"-{before[20]}", f"-{before[21]}", f"+{after[20]}", f"+{after[21]}"]
    body += [f" {line}" for line in before[22:24]]
    return "@@ -19,6 +19,6 @@\n" + "\n".join(body)


def world(github: FakeGitHub, files: int, provider_url: str) -> None:
    repo = github.repo(REPO)
    config = (
        "providers:\n"
        f"  - {{model: openai/gpt-test, api_base: '{provider_url}/v1', api_key_env: FAKE_KEY}}\n"
        f"  - {{model: openai/claude-test, api_base: '{provider_url}/v1', api_key_env: FAKE_KEY}}\n"
        "personas: [correctness]\n"
    )
    base = {f"src/m{n:02d}.py": module(n, False) for n in range(files)}
    head = {f"src/m{n:02d}.py": module(n, True) for n in range(files)}
    repo.snapshots["b" * 40] = {**base, ".consensus.yml": config}
    repo.snapshots["h" * 40] = head
    listed = [
        {"filename": path, "status": "modified", "additions": 2, "deletions": 2, "patch": patch(n)}
        for n, path in enumerate(sorted(head))
    ]
    repo.pulls[1] = PullRequest(number=1, head_sha="h" * 40, base_sha="b" * 40, files=listed)


def script(findings: int, files: int) -> Script:
    items = [
        {
            "path": f"src/m{n % files:02d}.py",
            "line": 21 + (n // files) % 2,
            "severity": "high",
            "category": ["security", "bug", "performance"][n // (2 * files) % 3],
            "title": f"eval of untrusted input #{n}",
            "body": "Never eval user input.",
        }
        for n in range(findings)
    ]
    text = json.dumps({"findings": items})
    verdict = json.dumps({"verdict": "confirmed", "reason": "yes"})
    answer = Script()
    for model in ("gpt-test", "claude-test"):
        answer.respond(
            model,
            lambda body: reply(verdict if "verifier" in prompt_text(body) else text),
        )
    return answer


def measure(files: int, findings: int) -> tuple[Counter[str], Counter[str], list[int], float]:
    with (
        FakeGitHub() as github,
        FakeProviderServer(script(findings, files)) as providers,
        tempfile.TemporaryDirectory(prefix="github-bench-") as folder,
    ):
        world(github, files, providers.url)
        tmp = Path(folder)
        event = tmp / "event.json"
        event.write_text(json.dumps({"action": "opened", "pull_request": {"number": 1}}))
        env = {
            **os.environ,
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_WORKSPACE": str(tmp),
            "RUNNER_TEMP": str(tmp),
            "FAKE_KEY": "sk-fake",
        }
        host = GitHubHost(REPO, token="ghs_fake", base_url=github.url, write_interval_s=0)
        counts, calls = [], []
        started = time.perf_counter()
        for attempt in range(2):
            before, sent = len(github.requests), len(providers.log)
            runner = {**env, "CONSENSUS_HOME": str(tmp / f"runner-{attempt}")}  # no journal
            code = run(runner, log=lambda line: None, host=host)
            assert code == 0, code
            done = github.requests[before:]
            counts.append(Counter(f"{r.method} {_endpoint(r.path)}" for r in done))
            calls.append(len(providers.log) - sent)
        return counts[0], counts[1], calls, time.perf_counter() - started


def _endpoint(path: str) -> str:
    rest = path.split(f"/repos/{REPO}", 1)[-1]
    parts = rest.split("/")
    if len(parts) > 2 and parts[1] == "contents":
        return "/contents/…"
    return "/".join("N" if p.isdigit() else p for p in parts) or "/"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--findings", type=int, default=25)
    parser.add_argument("--markdown", type=Path, help="write the counts into this section file")
    args = parser.parse_args()
    print(f"PR of {args.files} files; GitHub API requests per `consensus action` run")
    print(
        f"{'findings':>9} {'first run':>10} {'re-run':>7} {'target':>7}  "
        "model calls: first run / re-run (target 0)  wall"
    )
    runs = []
    for findings in (args.findings, args.findings * 4):
        first, again, calls, wall = measure(args.files, findings)
        runs.append(GitHubRun(findings, dict(first), dict(again), calls[0], calls[1]))
        total, rerun = sum(first.values()), sum(again.values())
        print(
            f"{findings:>9} {total:>10} {rerun:>7} {'<= ' + str(REQUEST_TARGET):>7}  "
            f"{calls[0]:>11} / {calls[1]:<28}  {wall:.1f}s"
        )
    print("\nby endpoint, first run with", runs[0].findings, "findings:")
    for endpoint, count in sorted(runs[0].first.items()):
        print(f"  {count:>3}  {endpoint}")
    print("by endpoint, re-run on the same head:")
    for endpoint, count in sorted(runs[0].rerun.items()):
        print(f"  {count:>3}  {endpoint}")
    if args.markdown:
        write_figures(args.markdown, github_figures(GitHubResults(args.files, tuple(runs))))
        print(f"wrote the counts into {args.markdown}; now run python benchmarks/report.py")


if __name__ == "__main__":
    main()
