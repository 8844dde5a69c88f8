"""The model phase, before and after a change, side by side in one run.

action_bench.py measures this checkout; this one answers "did my change help?", which
one-off runs on a shared machine cannot: the ratio moves with the other users' load by
more than most changes move it. So, round after round, it alternates processes that run
action_bench's model phase (the 40-file review, fan-out over ideal) on two versions of
the code, both against one fake provider (this checkout's, in a process of its own):

- `before`: the commit given by --before, exported with `git archive` to a temp folder;
- `after`: this checkout;
- `floor` (with --floor): this checkout's pipeline with a bare aiohttp client instead of
  litellm, i.e. what the fan-out costs with no client work at all.

--fake before runs the fake provider of the `before` tree instead (to tell a change to
the fake from a change to the product).

Each process does its own warm-up, then --runs reviews; a version's figure is the median
of all its runs, with the load average beside each round. The before and after reports
must be the same JSON once the run id and the two timing fields are cleared: the same
replies give the same report whichever code asked.

    python benchmarks/phase_compare.py --before REF [--rounds 4] [--runs 5]
        [--latency 0.3] [--files 40] [--floor] [--fake before|after]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

import action_bench  # noqa: E402

TARGETS = {0.3: 1.20, 1.5: 1.10}

# Runs in the child, on the code of the tree it is started in (PYTHONPATH = that tree).
CHILD = r"""
import json, math, os, sys, time, types
root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "benchmarks")); sys.path.insert(0, root)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
import action_bench
provider = types.SimpleNamespace(url=sys.argv[2], latency=float(sys.argv[3]))
files, runs, mode = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
if mode == "floor":
    from phase_compare import floor_phase
    ideal, results = floor_phase(provider, files, runs)
else:
    ideal, results = action_bench.model_phase(provider, files, runs)
print(json.dumps({
    "ratios": [r.fanout_s / ideal for r in results],
    "cpu_ms": [1000 * r.cpu_s / r.calls for r in results],
    "calls": results[0].calls,
    "reports": [r.report_json for r in results],
}))
"""


def floor_phase(provider: Any, files: int, runs: int) -> tuple[float, list[Any]]:
    """action_bench.model_phase with a bare aiohttp ModelClient (runs in the child)."""
    import asyncio
    import math
    import time

    import action_bench
    from review_bench import PERSONAS, PhaseClock, providers_for, synthetic_diff

    from consensus.app.wiring import token_counter
    from consensus.ingest.chunking import split_large_hunks
    from consensus.ingest.review_diff import ingest
    from consensus.review.job import ReviewJob
    from consensus.review.pipeline import ReviewServices, review
    from consensus.settings.config import Settings
    from consensus.settings.personas import load_personas, select_personas

    url, latency = provider.url, provider.latency
    diff = split_large_hunks(ingest(synthetic_diff(files), include=("**",), exclude=()))
    personas = select_personas(load_personas([]), PERSONAS)
    settings = Settings(personas=PERSONAS, budget={"max_cost_usd": None, "max_tokens": None})
    providers, counter, results = providers_for(url), token_counter(), []
    for _ in range(runs):
        clock, cpu_before = PhaseClock(), time.process_time()

        async def one(clock: PhaseClock) -> Any:
            async with BareClient() as client:
                return await review(
                    ReviewJob(
                        diff=diff,
                        settings=settings,
                        providers=tuple(providers),
                        personas=tuple(personas),
                    ),
                    ReviewServices(client, counter, clock=time.perf_counter, observer=clock),
                )

        report = asyncio.run(one(clock))
        cpu = time.process_time() - cpu_before
        marks = dict(clock.marks)
        fanout = marks["align and score"] - marks["fan-out"]
        json_report = action_bench.timeless_json(report)
        results.append(action_bench.PhaseRun(fanout, report.stats.calls, cpu, json_report))
    ideal = math.ceil(results[0].calls / settings.concurrency) * latency
    return ideal, results


class BareClient:
    """The ModelClient port over one aiohttp session: the request, the reply, no more."""

    async def __aenter__(self) -> BareClient:
        import aiohttp

        self._session = aiohttp.ClientSession()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._session.close()

    async def complete(self, request: Any) -> Any:
        import time

        from consensus.ports import Completion

        started = time.monotonic()
        provider, name = request.model.split("/", 1)
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        base = request.api_base or ""
        body: dict[str, object] = {"model": name, "messages": messages, "stream": False}
        path = {"openai": "/chat/completions", "anthropic": "/v1/messages"}.get(
            provider, "/api/chat"
        )
        if provider == "anthropic":
            body["system"] = " ".join(m["content"] for m in messages if m["role"] == "system")
            body["messages"] = [m for m in messages if m["role"] != "system"]
            body["max_tokens"] = 4096
        async with self._session.post(base + path, json=body) as response:
            reply = await response.json()
        if "choices" in reply:
            text = reply["choices"][0]["message"]["content"]
        elif "content" in reply:
            text = "".join(block.get("text", "") for block in reply["content"])
        else:
            text = reply["message"]["content"]
        return Completion(text=text, latency_s=time.monotonic() - started)


def export(ref: str, into: Path) -> Path:
    """The tree at `ref`, as `git archive` gives it."""
    archive = into / "before.tar"
    with archive.open("wb") as handle:
        subprocess.run(["git", "archive", ref], cwd=ROOT, check=True, stdout=handle)
    tree = into / "before"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def one_process(
    tree: Path, url: str, latency: float, files: int, runs: int, mode: str
) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), url, str(latency), str(files), str(runs), mode],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the {mode} process failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def without_run_id(report: str) -> str:
    data = json.loads(report)
    data["run_id"] = ""
    return json.dumps(data, sort_keys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit to compare against")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--runs", type=int, default=5, help="reviews per process")
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--floor", action="store_true", help="also a bare aiohttp client")
    parser.add_argument("--fake", choices=("before", "after"), default="after")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="consensus-phase-compare-"))
    trees = {"before": export(args.before, work), "after": ROOT}
    modes = ["before", "after"] + (["floor"] if args.floor else [])
    target = TARGETS.get(args.latency)
    print(f"model phase / ideal at {args.latency:g} s per call · {args.files} files · before =")
    print(f"  {args.before} · {args.rounds} rounds × {args.runs} runs per version, alternated")
    print(f"  the fake provider: the {args.fake} tree's")
    print(f"  machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    ratios: dict[str, list[float]] = {m: [] for m in modes}
    cpu: dict[str, list[float]] = {m: [] for m in modes}
    reports: dict[str, set[str]] = {m: set() for m in modes}
    with action_bench.ProviderProcess(args.latency, work, root=trees[args.fake]) as provider:
        for n in range(args.rounds):
            line = []
            for mode in modes:
                tree = trees.get(mode, ROOT)
                got = one_process(tree, provider.url, args.latency, args.files, args.runs, mode)
                ratios[mode] += got["ratios"]
                cpu[mode] += got["cpu_ms"]
                reports[mode].update(without_run_id(r) for r in got["reports"])
                line.append(f"{mode} {statistics.median(got['ratios']):.3f}")
            load = os.getloadavg()[0]
            print(f"  round {n + 1}: " + ", ".join(line) + f"  (load average {load:.1f})")
    print(f"\n  {'':<8} {'median':>8} {'best':>8} {'worst':>8} {'CPU/call':>10}   target")
    goal = "" if target is None else f"<= {target:.2f}"
    for mode in modes:
        median = statistics.median(ratios[mode])
        verdict = "" if target is None else ("met" if median <= target else "NOT MET")
        print(
            f"  {mode:<8} {median:>8.3f} {min(ratios[mode]):>8.3f} {max(ratios[mode]):>8.3f}"
            f" {statistics.median(cpu[mode]):>8.1f}ms   {goal} {verdict}"
        )
    same = reports["before"] == reports["after"] and len(reports["after"]) == 1
    print(f"  before and after: the same report (1 distinct JSON): {'yes' if same else 'NO'}")
    print(f"  (load average {os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
