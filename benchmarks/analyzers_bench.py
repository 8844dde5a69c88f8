"""The analyzers' wall time on a 40-file pull request, beside the model phase's.

A real tree: encode/httpx (60 Python files; the mirror `fetch` brings, cloned locally, or
any git repository given with `--repo`; without one, a generated tree of 40 modules). A
feature branch changes 40 of its Python files: each gets a new function, every fourth one
with an undefined name (ruff's F821), the others with a logic slip ruff cannot see. Then,
`--repeat` times each:

- **ruff** through the product's adapter (adapters/repository_analyzers.py): the head's 40 files and
  the base's written to scratch folders, ruff run on each side, the results filtered to
  the change (added lines, new against the base);
- **semgrep**, where it is installed (it is not a dependency), with the pinned ruleset on
  the head's 40 files;
- **the review without analyzers**: the product's pipeline (review/pipeline.review) with
  three model families behind the real litellm adapter, answering over HTTP on 127.0.0.1
  at once (consensus_sim/provider_server.py): the model phase with no model latency, so
  the figure is consensus's own work and litellm's, a floor under any real provider;
- **the review with ruff**: the same, ruff in the vote (it runs beside the models' calls).

    python benchmarks/analyzers_bench.py [--repo PATH] [--repeat 3]
        [--markdown benchmarks/results/analyzers.md]

`--markdown` writes the figures into the section's figures block; `python
benchmarks/report.py` then assembles BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sim.sections import Machine, machine_line, write_figures  # noqa: E402
from consensus.adapters.repository_analyzers import RepositoryAnalyzers, find_tool  # noqa: E402
from consensus.adapters.sources import GitRevision  # noqa: E402
from consensus.app.wiring import model_client  # noqa: E402
from consensus.ingest.review_diff import ingest  # noqa: E402
from consensus.model.analysis import AnalyzerRun  # noqa: E402
from consensus.model.diff import ReviewDiff  # noqa: E402
from consensus.ports import ModelPrice  # noqa: E402
from consensus.review.job import ReviewJob  # noqa: E402
from consensus.review.pipeline import ReviewServices, review  # noqa: E402
from consensus.settings.analyzer_sources import AnalyzerSettings  # noqa: E402
from consensus.settings.config import ProviderSettings, Settings  # noqa: E402
from consensus.settings.personas import load_personas, select_personas  # noqa: E402
from consensus_sim.provider_server import (  # noqa: E402
    FakeProviderServer,
    Script,
    Step,
    prompt_text,
    reply,
)

MIRROR = Path("/work/.mirror/encode+httpx/repo")
FILES = 40
MODELS = ("gpt-bench", "claude-bench", "llama-bench")


@dataclass(frozen=True)
class Planted:
    path: str
    line: int
    caught: bool  # an undefined name ruff reports, or a logic slip it cannot see


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com", *args]
    return subprocess.run(command, cwd=repo, check=True, capture_output=True, text=True).stdout


def checkout(source: Path | None, into: Path) -> tuple[Path, str]:
    """A working clone of `source` (or a generated repository) on `main`; its name."""
    repo = into / "repo"
    if source is not None:
        subprocess.run(["git", "clone", "-q", str(source), str(repo)], check=True)
        git(repo, "checkout", "-q", "-B", "main")
        head = git(repo, "rev-parse", "--short=12", "HEAD").strip()
        return repo, f"{source.parent.name.replace('+', '/')} at {head}"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for n in range(FILES):
        body = "".join(
            f"def step_{k}(value, factor={k}):\n    total = value * factor\n    return total\n\n\n"
            for k in range(60)
        )
        (repo / f"module_{n:02}.py").write_text(f'"""Module {n}."""\nimport os\n\n\n{body}')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "generated")
    return repo, f"a generated tree of {FILES} modules"


def plant(repo: Path) -> list[Planted]:
    """A feature branch changing FILES Python files: a new function in each."""
    git(repo, "checkout", "-q", "-b", "feature")
    listed = git(repo, "ls-files", "*.py").split()
    chosen = [p for p in listed if (repo / p).stat().st_size > 200][:FILES]
    planted = []
    for n, path in enumerate(chosen):
        text = (repo / path).read_text()
        caught = n % 4 == 0
        body = "    return totl\n" if caught else "    return amount * (100 - percent) / 10\n"
        added = f"\n\ndef bench_discount_{n}(amount, percent):\n{body}"
        (repo / path).write_text(text.rstrip("\n") + "\n" + added)
        planted.append(Planted(path, len((text.rstrip("\n") + "\n" + added).splitlines()), caught))
    git(repo, "commit", "-q", "-am", "discounts everywhere")
    return planted


def responder(planted: list[Planted]) -> Callable[[dict[str, Any]], Step]:
    """Each model reports the planted lines of the files its prompt shows."""

    def answer(body: dict[str, Any]) -> Step:
        prompt = prompt_text(body)
        if "describe the same defect?" in prompt:
            return reply(json.dumps({"verdict": "same", "reason": "The same line."}))
        if "You are an independent verifier" in prompt:
            return reply(json.dumps({"verdict": "confirmed", "reason": "Read the code."}))
        found = [
            {
                "path": p.path,
                "line": p.line,
                "severity": "high",
                "category": "bug",
                "title": "Undefined name `totl`" if p.caught else "Discount divides by 10",
                "body": "`totl` is never defined." if p.caught else "`/ 10` should be `/ 100`.",
            }
            for p in planted
            if f"{p.path}" in prompt
        ]
        return reply(json.dumps({"findings": found}))

    return answer


class Counter:
    def count(self, model: str, text: str) -> int:
        return len(text) // 4

    def context_window(self, model: str) -> int | None:
        return 200_000

    def price(self, model: str) -> ModelPrice | None:
        return None


def job_for(diff: ReviewDiff, url: str) -> ReviewJob:
    providers = tuple(
        ProviderSettings(
            model=f"openai/{m}", api_base=f"{url}/v1", api_key_env="BENCH_KEY", family=m[:-6]
        )
        for m in MODELS
    )
    return ReviewJob(
        diff=diff,
        settings=Settings(personas=("correctness",), concurrency=16),
        providers=providers,
        personas=tuple(select_personas(load_personas([]), ["correctness"])),
    )


@dataclass(frozen=True)
class Results:
    tree: str
    files: int
    lines_added: int
    ruff: list[float]
    without: list[float]
    with_ruff: list[float]
    run: AnalyzerRun
    semgrep: list[float]  # empty where semgrep is not installed
    semgrep_results: int
    posted_without: int
    posted_with: int
    corroborated: int
    names: int  # undefined names planted
    named: int  # of them, those ruff reported
    machine: Machine


def measure(source: Path | None, repeat: int) -> Results:
    load = os.getloadavg()[0]
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with tempfile.TemporaryDirectory() as scratch:
        repo, tree = checkout(source, Path(scratch))
        planted = plant(repo)
        diff = ingest(git(repo, "diff", "main...feature"))
        analyzers = RepositoryAnalyzers(
            (AnalyzerSettings(name="ruff"),),
            (),
            repo,
            GitRevision(repo, "feature"),
            GitRevision(repo, "main"),
        )
        ruff, without, with_ruff = [], [], []
        run = analyzers.analyze_now(diff)[0]
        for _ in range(repeat):
            started = time.perf_counter()
            run = analyzers.analyze_now(diff)[0]
            ruff.append(time.perf_counter() - started)
        semgrep, semgrep_results = [], 0
        if find_tool("semgrep") is not None:
            spec = (AnalyzerSettings(name="semgrep"),)
            scanner = RepositoryAnalyzers(spec, (), repo, GitRevision(repo, "feature"))
            for _ in range(repeat):
                started = time.perf_counter()
                [scanned] = scanner.analyze_now(diff)
                semgrep.append(time.perf_counter() - started)
                semgrep_results = len(scanned.results)
        script = Script()
        for model in MODELS:
            script.respond(model, responder(planted))
        client = model_client({"BENCH_KEY": "sk-bench", "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
        with FakeProviderServer(script) as server:
            job = job_for(diff, server.url)
            asyncio.run(review(job, ReviewServices(client, Counter())))  # litellm's import
            reports = {}
            for _ in range(repeat):
                for label, times, chosen in (
                    ("without", without, None),
                    ("with", with_ruff, analyzers),
                ):
                    services = ReviewServices(client, Counter(), analyzers=chosen)
                    started = time.perf_counter()
                    reports[label] = asyncio.run(review(job, services))
                    times.append(time.perf_counter() - started)
    posted = {k: sum(1 for f in r.findings if f.status.posted) for k, r in reports.items()}
    corroborated = sum(
        1
        for f in reports["with"].findings
        if f.status.posted and "also reported by ruff" in (f.reason or "")
    )
    found = {(r.path, r.line) for r in run.results if r.rule == "F821"}
    return Results(
        names=sum(1 for p in planted if p.caught),
        named=sum(1 for p in planted if p.caught and (p.path, p.line) in found),
        tree=tree,
        files=len(diff.files),
        lines_added=sum(f.added for f in diff.files),
        ruff=ruff,
        without=without,
        with_ruff=with_ruff,
        run=run,
        semgrep=semgrep,
        semgrep_results=semgrep_results,
        posted_without=posted["without"],
        posted_with=posted["with"],
        corroborated=corroborated,
        machine=Machine.now(load),
    )


def figures(results: Results) -> str:
    med = statistics.median
    ruff, without, with_ruff = med(results.ruff), med(results.without), med(results.with_ruff)
    kept = len(results.run.results)
    dropped = ", ".join(f"{count} {reason}" for reason, count in results.run.dropped) or "none"
    rows = [
        machine_line(results.machine),
        "",
        f"{results.files} changed Python files of {results.tree}, {results.lines_added} lines "
        f"added; {len(results.ruff)} runs each, medians (worst in brackets).",
        "",
        "| phase | wall time (s) |",
        "|---|---:|",
        f"| ruff, head and base, filtered to the change | {ruff:.2f} ({max(results.ruff):.2f}) |",
        *(
            [
                f"| semgrep, the pinned ruleset, head only | {med(results.semgrep):.2f} "
                f"({max(results.semgrep):.2f}) |"
            ]
            if results.semgrep
            else ["| semgrep | not installed here |"]
        ),
        f"| the review without analyzers (3 families, instant providers) | {without:.2f} "
        f"({max(results.without):.2f}) |",
        f"| the review with ruff in the vote | {with_ruff:.2f} ({max(results.with_ruff):.2f}) |",
        "",
        f"ruff reported {results.named} of the {results.names} undefined names planted and kept "
        f"{kept} results in all (left out: {dropped})"
        + (f"; semgrep kept {results.semgrep_results}" if results.semgrep else "")
        + ". Posted findings: "
        f"{results.posted_without} without ruff, {results.posted_with} with it, "
        f'{results.corroborated} of them corroborated ("also reported by ruff"). The review '
        f"with ruff took {with_ruff - without:.2f} s more than without it, on providers that "
        "answer at once.",
    ]
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, help="a git repository (default: httpx's mirror)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", type=Path, help="write the figures into this section file")
    args = parser.parse_args()
    if find_tool("ruff") is None:
        print("ruff is not installed: pip install 'consensus-review[analyzers]'")
        return 2
    source = args.repo or (MIRROR if MIRROR.exists() else None)
    results = measure(source, args.repeat)
    text = figures(results)
    print(text)
    if args.markdown:
        write_figures(args.markdown, {"analyzers": text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
