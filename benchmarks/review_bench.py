"""Review benchmark: fan-out wall time, prompt economy, prompt-cache prefixes, start-up, align.

Runs the real pipeline and the real litellm client against the loopback fake provider
server (4 providers × 4 personas, fixed latency), on a synthetic 40-file diff. Prints each
figure beside its target. Figures, not assertions: the machines are shared and noisy.

    python benchmarks/review_bench.py [--latency 0.3] [--files 40]
        [--markdown benchmarks/results/review.md]

`--markdown` writes this run's figures into the section's figures block
(benchmarks/sim/sections.py); then run `python benchmarks/report.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.sim.sections import (  # noqa: E402
    Machine,
    ReviewResults,
    review_figures,
    write_figures,
)
from consensus.adapters.llm import LiteLLMClient  # noqa: E402
from consensus.app.wiring import planning_counter  # noqa: E402
from consensus.decide.align import align  # noqa: E402
from consensus.ingest.chunking import split_large_hunks  # noqa: E402
from consensus.ingest.review_diff import ingest  # noqa: E402
from consensus.ingest.view import render_file  # noqa: E402
from consensus.model.base import Category, Severity  # noqa: E402
from consensus.model.findings import Finding  # noqa: E402
from consensus.ports import CompletionRequest, Message  # noqa: E402
from consensus.review.job import ReviewJob  # noqa: E402
from consensus.review.pipeline import ReviewServices, review  # noqa: E402
from consensus.settings.config import ProviderSettings, Settings  # noqa: E402
from consensus.settings.personas import load_personas, select_personas  # noqa: E402
from consensus_sim.provider_server import FakeProviderServer, Script, prompt_text, reply  # noqa: E402

PERSONAS = ("correctness", "security", "performance", "maintainability")
PREFIX_CHARS = 4_000


def synthetic_diff(files: int, seed: int = 7) -> str:
    """A realistic-looking diff: `files` Python modules, two hunks each."""
    rng = random.Random(seed)
    out = []
    for n in range(files):
        path = f"src/service/module_{n:02d}.py"
        out.append(f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n")
        out.append(f"--- a/{path}\n+++ b/{path}\n")
        for hunk, start in enumerate((10, 80)):
            body = []
            for i in range(14):
                body.append(f" def helper_{hunk}_{i}(value):  # context {rng.randint(0, 999)}")
            for i in range(12):
                body.append(f"-    total = compute_{i}(value, {rng.randint(0, 99)})")
            for i in range(16):
                body.append(
                    f"+    total = compute_{i}(value, limit={rng.randint(0, 99)}, "
                    f"retries={rng.randint(1, 5)})"
                )
            body += [" return total"] * 3
            old = sum(1 for line in body if line[0] in " -")
            new = sum(1 for line in body if line[0] in " +")
            out.append(f"@@ -{start},{old} +{start + hunk * 4},{new} @@ def block_{hunk}():\n")
            out.append("\n".join(body) + "\n")
    return "".join(out)


def providers_for(url: str) -> tuple[ProviderSettings, ...]:
    return (
        ProviderSettings(model="openai/gpt-bench", api_base=f"{url}/v1", api_key_env="BENCH_KEY"),
        ProviderSettings(model="anthropic/claude-bench", api_base=url, api_key_env="BENCH_KEY"),
        ProviderSettings(model="openai/llama-bench", api_base=f"{url}/v1", api_key_env="BENCH_KEY"),
        ProviderSettings(model="ollama/qwen-bench", api_base=url),
    )


async def warm_up(client: LiteLLMClient, providers: tuple[ProviderSettings, ...]) -> None:
    """litellm imports provider modules lazily on the first call; keep that out of the figure."""
    await asyncio.gather(
        *(
            client.complete(
                CompletionRequest(
                    model=p.model,
                    messages=(Message(role="user", content="warm up"),),
                    api_base=p.api_base,
                    api_key_env=p.api_key_env,
                )
            )
            for p in providers
        )
    )


def prefix_share(server: FakeProviderServer, models: list[str]) -> float:
    """Share of calls whose first 4,000 prompt characters repeat an earlier call's."""
    repeated = total = 0
    for model in models:
        seen: set[str] = set()
        for request in sorted(server.log.requests_for(model), key=lambda r: r.time):
            if not _is_chat(request.path) or request.body is None or "warm up" in request.raw:
                continue
            prefix = prompt_text(request.body)[:PREFIX_CHARS]
            total += 1
            repeated += prefix in seen
            seen.add(prefix)
    return repeated / total if total else 0.0


class PhaseClock:
    """Observer that notes when each pipeline phase starts, for a breakdown of the wall time."""

    def __init__(self) -> None:
        self.marks: list[tuple[str, float]] = []

    def phase(self, name: str, detail: str = "") -> None:
        self.marks.append((name, time.perf_counter()))

    def planned(self, total: int) -> None:
        return None

    def call_started(self, call: object) -> None:
        return None

    def call_finished(self, call: object, result: object) -> None:
        return None


def _is_chat(path: str) -> bool:
    return path.endswith(("/chat/completions", "/v1/messages", "/api/chat"))


def help_time(runs: int = 5) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "consensus", "--help"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        timings.append(time.perf_counter() - started)
    return min(timings)


def synthetic_findings(count: int, seed: int = 11) -> list[Finding]:
    rng = random.Random(seed)
    words = ["null", "race", "leak", "injection", "overflow", "timeout", "retry", "cache"]
    findings = []
    for n in range(count):
        provider = n % 4
        findings.append(
            Finding(
                provider=f"vendor{provider}/model",
                family=f"vendor{provider}",
                persona=PERSONAS[(n // 4) % 4],
                chunk=0,
                path=f"src/file_{rng.randrange(200)}.py",
                line=rng.randrange(1, 400),
                end_line=0 or rng.randrange(400, 404),
                severity=rng.choice(list(Severity)),
                category=rng.choice(list(Category)),
                title=f"Possible {rng.choice(words)} in {rng.choice(words)} handling",
                body=f"The {rng.choice(words)} path does not handle {rng.choice(words)}.",
            )
        )
    return findings


def row(name: str, value: str, target: str = "", met: bool | None = None) -> None:
    verdict = "" if met is None else ("met" if met else "NOT MET")
    print(f"  {name:<44} {value:>12}   {target:<12} {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--markdown", type=Path, help="write the figures into this section file")
    args = parser.parse_args()
    load_start = os.getloadavg()[0]
    os.environ["BENCH_KEY"] = "sk-bench"

    diff = split_large_hunks(ingest(synthetic_diff(args.files), include=("**",), exclude=()))
    personas = select_personas(load_personas([]), PERSONAS)
    settings = Settings(personas=PERSONAS, budget={"max_cost_usd": None, "max_tokens": None})
    counter = planning_counter(os.environ)  # the counter a review's services hold
    script = Script(default=reply('{"findings": []}'))
    with FakeProviderServer(script, latency_s=args.latency) as server:
        providers = providers_for(server.url)
        client = LiteLLMClient(os.environ)
        asyncio.run(warm_up(client, providers))
        phases = PhaseClock()
        started = time.perf_counter()
        report = asyncio.run(
            review(
                ReviewJob(
                    diff=diff,
                    settings=settings,
                    providers=tuple(providers),
                    personas=tuple(personas),
                ),
                ReviewServices(client, counter, clock=time.perf_counter, observer=phases),  # type: ignore[arg-type]
            )
        )
        wall = time.perf_counter() - started
        fanout_at, align_at = (mark for _, mark in phases.marks)
        breakdown = (fanout_at - started, align_at - fanout_at, started + wall - align_at)
        models = ["gpt-bench", "claude-bench", "llama-bench", "qwen-bench"]
        share = prefix_share(server, models)
        sent = [
            r
            for r in server.log.all()
            if _is_chat(r.path) and r.body is not None and "warm up" not in r.raw
        ]
        prompt_tokens = sum(counter.count("gpt-4o", prompt_text(r.body or {})) for r in sent)

    calls = report.stats.calls
    ideal = math.ceil(calls / settings.concurrency) * args.latency
    diff_tokens = sum(counter.count("gpt-4o", render_file(f)) for f in diff.files)
    naive = diff_tokens * len(providers) * len(personas)

    findings = synthetic_findings(5_000)
    align_times = []
    for _ in range(3):
        started = time.perf_counter()
        align(findings)
        align_times.append(time.perf_counter() - started)

    print(f"consensus review benchmark · {args.files} files · {len(providers)} providers × ")
    print(f"  {len(personas)} personas · latency {args.latency:g} s · concurrency 8")
    row("calls made", f"{calls}")
    row("review wall time (s)", f"{wall:.3f}")
    row("  planning: chunking, token counts (s)", f"{breakdown[0]:.3f}")
    row("  fan-out: the model calls (s)", f"{breakdown[1]:.3f}")
    row("  align, score, report (s)", f"{breakdown[2]:.3f}")
    row("ideal = ceil(calls/concurrency) × latency", f"{ideal:.3f}")
    row("wall / ideal", f"{wall / ideal:.2f}", "<= 1.3", wall / ideal <= 1.3)
    row("prompt tokens sent", f"{prompt_tokens:,}")
    row("naive = diff tokens × providers × personas", f"{naive:,}")
    row("sent / naive", f"{prompt_tokens / naive:.2f}", "(overhead)")
    row("calls repeating a 4,000-char prefix", f"{share:.2f}", ">= 0.75", share >= 0.75)
    help_s = help_time()
    row("consensus --help (s, best of 5)", f"{help_s:.3f}", "< 0.5", help_s < 0.5)
    best_align = min(align_times)
    row("align 5,000 findings (s, best of 3)", f"{best_align:.3f}", "< 1", best_align < 1.0)
    if statistics.mean(align_times) > 2 * best_align:
        print("  (align timings varied widely: the machine is busy)")
    if args.markdown:
        results = ReviewResults(
            calls=calls,
            wall_s=wall,
            planning_s=breakdown[0],
            ideal_s=ideal,
            sent_over_naive=prompt_tokens / naive,
            prefix_share=share,
            align_s=best_align,
            machine=Machine.now(load_start),
        )
        write_figures(args.markdown, review_figures(results))
        print(f"wrote the figures into {args.markdown}; now run python benchmarks/report.py")


if __name__ == "__main__":
    main()
