"""Overhead benchmark: start-up, the model phase over ideal, and the Action's step time.

One run prints, side by side, each figure next to its target:

1. Start-up: `import litellm` alone, against the time `consensus review` (a real process)
   takes to send its first model call; `consensus --help`.
2. The model phase (fan-out) of a 40-file review over its ideal, ceil(calls / 8) × latency,
   at 300 ms and at 1.5 s per call, in-process against the loopback fake provider running
   in a process of its own (a real provider is remote: its work must not share our GIL).
   Best and median of `--runs`; client CPU per call beside it. The reports of every run
   must be byte-identical JSON once the two timing fields (wall_s, latency_s) are zeroed:
   the same replies give the same report whatever order the calls finished in.
3. The Action: action.yml's own steps, run in order by a small local runner. `uses:` steps
   are simulated (setup-python: this interpreter; cache restore/save: a local folder, keyed
   like the real cache); `run:` steps are the real scripts. The step time is split into
   install / start-up / calls / publish, with a cold cache (the venv is built from
   constraints.txt; pip may use its local cache) and a warm one (the venv is reused); then a
   no-model slash command (`/consensus explain F1`) on the warm cache. GitHub is the
   loopback fake; a real runner also downloads the cached venv (its size is printed).

    python benchmarks/action_bench.py [--files 40] [--runs 3] [--cache-dir DIR] [--skip-action]
        [--markdown benchmarks/results/overhead.md]

`--markdown` writes this run's figures into the section's figures blocks
(benchmarks/sim/sections.py); then run `python benchmarks/report.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from review_bench import PERSONAS, PhaseClock, providers_for, synthetic_diff, warm_up  # noqa: E402

from benchmarks.sim.sections import (  # noqa: E402
    ActionFigures,
    Machine,
    OverheadResults,
    PhaseFigures,
    StartUpFigures,
    StepFigures,
    overhead_figures,
    write_figures,
)
from consensus.ingest.chunking import split_large_hunks  # noqa: E402
from consensus.ingest.review_diff import ingest  # noqa: E402
from consensus.model.report import Report  # noqa: E402
from consensus.render import render_json  # noqa: E402
from consensus.settings.config import Settings  # noqa: E402
from consensus.settings.personas import load_personas, select_personas  # noqa: E402
from consensus_sim.github_server import FakeGitHub, human, load_pull_from_git  # noqa: E402

REPO, NUMBER = "acme/service", 7
MODELS = ("gpt-bench", "claude-bench", "llama-bench", "qwen-bench")
FOUND_LINE = 30  # an added line of src/service/module_00.py in the synthetic PR
CHAT_PATHS = ("/chat/completions", "/v1/messages", "/api/chat")


def row(name: str, value: str, target: str = "", met: bool | None = None) -> None:
    verdict = "" if met is None else ("met" if met else "NOT MET")
    print(f"  {name:<52} {value:>10}   {target:<16} {verdict}")


# --------------------------------------------------------------------------- fake provider


def reply_with_a_finding() -> str:
    """Every model reports the same problem in module_00 (audited out of other chunks)."""
    finding = {
        "path": "src/service/module_00.py",
        "line": FOUND_LINE,
        "severity": "high",
        "category": "bug",
        "title": "retries is passed where a limit is expected",
        "body": "compute_ takes (value, limit); retries lands in the wrong slot.",
    }
    return json.dumps({"findings": [finding]})


@dataclass
class ProviderProcess:
    """The loopback fake provider in its own process, its requests logged as JSON lines."""

    latency: float
    folder: Path
    port: int = 0  # 0: any free port
    root: Path = ROOT  # the checkout whose consensus_sim/provider_server.py runs
    url: str = ""
    process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ProviderProcess:
        script = self.folder / "script.json"
        script.write_text(json.dumps({"default": {"reply": reply_with_a_finding()}}))
        port_file = self.folder / "port"
        self.log_path.unlink(missing_ok=True)
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "consensus_sim.provider_server", "--port", str(self.port)),
                *("--script", str(script), "--port-file", str(port_file)),
                *("--latency", str(self.latency), "--log", str(self.log_path)),
            ],
            cwd=self.root,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while not port_file.exists():
            if time.monotonic() > deadline:
                raise RuntimeError("the fake provider did not start")
            time.sleep(0.02)
        self.port = int(port_file.read_text())
        self.url = f"http://127.0.0.1:{self.port}"
        port_file.unlink()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)

    @property
    def log_path(self) -> Path:
        return self.folder / f"requests-{self.latency:g}.jsonl"

    def chat_times(self, since: float = 0.0) -> list[float]:
        """When each model call arrived (epoch seconds), in order."""
        if not self.log_path.exists():
            return []
        times = []
        for line in self.log_path.read_text().splitlines():
            item = json.loads(line)
            if item["path"].endswith(CHAT_PATHS) and item["time"] >= since:
                times.append(float(item["time"]))
        return sorted(times)


# --------------------------------------------------------------------------- 1. start-up


def import_litellm_s() -> tuple[float, float]:
    """`python -c "import litellm"`: (process start → import done, → process exit)."""
    code = (
        "import os, time; os.environ['LITELLM_LOCAL_MODEL_COST_MAP'] = 'True'; import litellm; "
        "print(time.time())"
    )
    started = time.time()
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return float(done.stdout.decode().split()[-1]) - started, time.time() - started


def help_s(runs: int) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "consensus", "--help"], cwd=ROOT, check=True, capture_output=True
        )
        timings.append(time.perf_counter() - started)
    return min(timings)


@dataclass
class StartUp:
    import_done_s: float
    import_exit_s: float
    first_call_s: float


def start_up(provider: ProviderProcess, work: Path, files: int, runs: int) -> StartUp:
    """Best of `runs`, alternating `import litellm` alone with `consensus review` (a real
    process: start → its first model call), so that both meet the same machine load."""
    project = work / "cli-project"
    project.mkdir(exist_ok=True)
    (project / "change.diff").write_text(synthetic_diff(files))
    (project / ".consensus.yml").write_text(consensus_yml(provider.url))
    done_s, exit_s, first_s = [], [], []
    for n in range(runs):
        imported, exited = import_litellm_s()
        done_s.append(imported)
        exit_s.append(exited)
        env = {**base_env(work), "CONSENSUS_HOME": str(work / f"cli-home-{n}")}
        started = time.time()
        done = subprocess.run(
            [
                *(sys.executable, "-m", "consensus", "review", "--diff", "change.diff"),
                *("--format", "json", "--no-verify"),
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode not in (0, 1):
            raise RuntimeError(f"consensus review failed: {done.stderr[-2000:]}")
        first_s.append(provider.chat_times(since=started)[0] - started)
    return StartUp(min(done_s), min(exit_s), min(first_s))


def consensus_yml(url: str) -> str:
    providers = [p.model_dump(mode="json", exclude_defaults=True) for p in providers_for(url)]
    config = {
        "providers": providers,
        "personas": list(PERSONAS),
        "budget": {"max_cost_usd": None, "max_tokens": None},
    }
    return yaml.safe_dump(config, sort_keys=False)


def base_env(work: Path) -> dict[str, str]:
    return {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(work),
        "PYTHONPATH": str(ROOT),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "BENCH_KEY": "sk-bench",
        "CI": "true",
    }


# --------------------------------------------------------------------------- 2. model phase


@dataclass
class PhaseRun:
    fanout_s: float
    calls: int
    cpu_s: float
    report_json: str


def model_phase(provider: ProviderProcess, files: int, runs: int) -> tuple[float, list[PhaseRun]]:
    from consensus.app.wiring import model_client, planning_counter
    from consensus.review.job import ReviewJob
    from consensus.review.pipeline import ReviewServices, review

    os.environ["BENCH_KEY"] = "sk-bench"
    diff = split_large_hunks(ingest(synthetic_diff(files), include=("**",), exclude=()))
    personas = select_personas(load_personas([]), PERSONAS)
    settings = Settings(personas=PERSONAS, budget={"max_cost_usd": None, "max_tokens": None})
    providers = providers_for(provider.url)
    # The counter a review's services hold (litellm's data, each shared slice counted once).
    client, counter = model_client(os.environ), planning_counter(os.environ)
    asyncio.run(warm_up(client, providers))  # type: ignore[arg-type]
    results = []
    for _ in range(runs):
        clock = PhaseClock()
        cpu_before = time.process_time()
        report = asyncio.run(
            review(
                ReviewJob(
                    diff=diff,
                    settings=settings,
                    providers=tuple(providers),
                    personas=tuple(personas),
                ),
                ReviewServices(client, counter, clock=time.perf_counter, observer=clock),  # type: ignore[arg-type]
            )
        )
        cpu = time.process_time() - cpu_before
        marks = dict(clock.marks)
        fanout = marks["align and score"] - marks["fan-out"]
        results.append(PhaseRun(fanout, report.stats.calls, cpu, timeless_json(report)))
    ideal = math.ceil(results[0].calls / settings.concurrency) * provider.latency
    return ideal, results


def timeless_json(report: Report) -> str:
    """The JSON report with its two timing fields zeroed (they measure, not decide)."""
    providers = [p.model_copy(update={"latency_s": 0.0}) for p in report.providers]
    stats = report.stats.model_copy(update={"wall_s": 0.0})
    return render_json(report.model_copy(update={"providers": providers, "stats": stats}))


# --------------------------------------------------------------------------- 3. the Action


@dataclass
class StepRunner:
    """Runs action.yml's steps in order, as a runner would, with simulated `uses:` steps."""

    runner_temp: Path  # the cache folder: $RUNNER_TEMP/consensus-venv lives there
    work: Path
    env: dict[str, str]
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    def context(self, name: str) -> str:
        inputs = ACTION["inputs"]
        if name.startswith("inputs."):
            return str(inputs[name[len("inputs.") :]].get("default", ""))
        if name.startswith("steps."):
            _, step, _, output = name.split(".", 3)
            return self.outputs.get(step, {}).get(output, "")
        fixed = {
            "runner.os": "Linux",
            "runner.arch": "X64",
            "runner.temp": str(self.runner_temp),
            "github.action_path": str(ROOT),
            "github.action_repository": "acme/consensus",
        }
        return fixed[name]  # a KeyError: action.yml uses a context this runner lacks

    def expand(self, text: str) -> str:
        return re.sub(r"\$\{\{\s*(.+?)\s*\}\}", lambda m: self.context(m.group(1)), text)

    def wanted(self, condition: str | None) -> bool:
        if condition is None:
            return True
        match = re.fullmatch(r"(\S+) != '(\w*)'", condition.strip())
        if match is None:
            raise ValueError(f"this runner cannot evaluate `if: {condition}`")
        return self.context(match.group(1)) != match.group(2)

    def run(self) -> dict[str, str]:
        """Every step before the review; returns the review step's environment."""
        for step in ACTION["runs"]["steps"]:
            name = step.get("id") or step["name"]
            if step.get("id") == "review":
                env = {k: self.expand(str(v)) for k, v in step.get("env", {}).items()}
                return {**self.env, **env}
            started = time.perf_counter()
            if not self.wanted(step.get("if")):
                self.timings[name] = 0.0
                continue
            uses = str(step.get("uses", ""))
            if uses.startswith("actions/setup-python@"):
                self.outputs[name] = {"python-version": platform.python_version()}
            elif uses.startswith("actions/cache/restore@"):
                key, path = (
                    self.expand(step["with"]["key"]),
                    Path(self.expand(step["with"]["path"])),
                )
                marker = path / ".bench-cache-key"
                hit = marker.exists() and marker.read_text() == key
                self.outputs[name] = {"cache-hit": "true" if hit else "", "cache-primary-key": key}
            elif uses.startswith("actions/cache/save@"):
                path = Path(self.expand(step["with"]["path"]))
                (path / ".bench-cache-key").write_text(self.expand(step["with"]["key"]))
            elif "run" in step:
                self.outputs[name] = self.shell(step["run"])
            else:
                raise ValueError(f"this runner cannot simulate {uses}")
            self.timings[name] = time.perf_counter() - started
        raise ValueError("action.yml has no step with id 'review'")

    def shell(self, script: str) -> dict[str, str]:
        output = self.work / "github-output"
        output.write_text("")
        full = {**self.env, "GITHUB_OUTPUT": str(output)}
        done = subprocess.run(
            ["bash", "-eo", "pipefail", "-c", self.expand(script)],
            env=full,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"step failed ({done.returncode}): {done.stderr[-3000:]}")
        pairs = [line.split("=", 1) for line in output.read_text().splitlines() if "=" in line]
        return dict(pairs)  # type: ignore[arg-type]

    def review_script(self) -> str:
        [step] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "review"]
        return str(step["run"])


ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())


def make_repo(folder: Path, files: int, url: str) -> Path:
    """A git repository whose `feature` branch changes `files` modules (two hunks each)."""
    rng = random.Random(5)
    repo = folder / "service"
    if repo.exists():
        shutil.rmtree(repo)
    (repo / "src" / "service").mkdir(parents=True)

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args],
            cwd=repo,
            check=True,
            capture_output=True,
        )

    git("init", "-q", "-b", "main")
    bodies = []
    for n in range(files):
        lines = [f"def helper_{i}(value):  # context {rng.randint(0, 999)}" for i in range(120)]
        bodies.append(lines)
        (repo / f"src/service/module_{n:02d}.py").write_text("\n".join(lines) + "\n")
    (repo / ".consensus.yml").write_text(consensus_yml(url))
    git("add", "-A")
    git("commit", "-qm", "base")
    git("checkout", "-q", "-b", "feature")
    for n, lines in enumerate(bodies):
        for start in (FOUND_LINE - 8, 90):
            for i in range(start, start + 14):
                lines[i] = (
                    f"    total = compute_{i}(value, limit={rng.randint(0, 99)}, "
                    f"retries={rng.randint(1, 5)})"
                )
        (repo / f"src/service/module_{n:02d}.py").write_text("\n".join(lines) + "\n")
    git("commit", "-qam", "feature")
    return repo


@dataclass
class ActionRun:
    install_s: float
    before_review_s: float  # the steps after Python set-up and before the review step
    startup_s: float
    calls_s: float
    publish_s: float
    step_s: float
    report_json: str


@contextmanager
def github_world(repo: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub() as github:
        github.repo(REPO).permissions.update({"maria": "maintain"})
        load_pull_from_git(github, REPO, NUMBER, repo, base="main", head="feature")
        yield github


def action_env(work: Path, runner_temp: Path, github: FakeGitHub, repo: Path) -> dict[str, str]:
    return {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ.get("HOME", str(work)),  # pip's own cache, as a runner's would be
        "GITHUB_ACTIONS": "true",
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_API_URL": github.url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_WORKSPACE": str(repo),
        "GITHUB_STEP_SUMMARY": str(work / "step-summary.md"),
        "RUNNER_TEMP": str(runner_temp),
        "CONSENSUS_HOME": str(work / f"consensus-home-{time.time_ns()}"),
        "CONSENSUS_POST_INTERVAL": "0",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "BENCH_KEY": "sk-bench",
    }


def pull_event(work: Path, github: FakeGitHub) -> Path:
    repo = github.repos[REPO]
    payload = {
        "action": "opened",
        "number": NUMBER,
        "pull_request": github.pull_json(repo, repo.pulls[NUMBER]),
        "repository": {"full_name": REPO},
        "sender": human("dev"),
    }
    path = work / "pull-event.json"
    path.write_text(json.dumps(payload))
    return path


def comment_event(work: Path, github: FakeGitHub, body: str) -> Path:
    comment = github.add_issue_comment(REPO, NUMBER, body, human("maria"))
    payload = {
        "action": "created",
        "issue": {"number": NUMBER, "pull_request": {"url": "x"}, "user": human("dev")},
        "comment": {k: v for k, v in comment.items() if not k.startswith("_")},
        "repository": {"full_name": REPO},
        "sender": human("maria"),
    }
    path = work / "comment-event.json"
    path.write_text(json.dumps(payload))
    return path


def run_review_step(
    steps: StepRunner, env: dict[str, str], event: Path, name: str
) -> tuple[float, float]:
    """When the review step for the event at `event` started and ended (epoch seconds)."""
    env = {**env, "GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(event)}
    started = time.time()
    output = steps.work / "github-output"
    output.write_text("")
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", steps.expand(steps.review_script())],
        env={**env, "GITHUB_OUTPUT": str(output)},
        cwd=env["GITHUB_WORKSPACE"],
        capture_output=True,
        text=True,
    )
    ended = time.time()
    if done.returncode != 0:
        raise RuntimeError(f"the review step failed ({done.returncode}): {done.stderr[-3000:]}")
    return started, ended


def action_run(
    runner_temp: Path, work: Path, repo: Path, provider: ProviderProcess
) -> tuple[ActionRun, float]:
    """One pull_request run; then, on the same (now warm) cache, one `/consensus explain F1`."""
    for pth in runner_temp.glob("consensus-venv/lib/python*/site-packages/consensus-action.pth"):
        pth.unlink()  # written after the cache is saved: a restored venv never has it
    with github_world(repo) as github:
        steps = StepRunner(runner_temp, work, action_env(work, runner_temp, github, repo))
        env = steps.run()
        install = sum(t for n, t in steps.timings.items() if "pip install" in step_run(n))
        before = sum(t for n, t in steps.timings.items() if n != "python")
        started, ended = run_review_step(steps, env, pull_event(work, github), "pull_request")
        calls = provider.chat_times(since=started)
        first, last = calls[0], calls[-1] + provider.latency
        report = (runner_temp / "consensus-report.json").read_text()
        run = ActionRun(
            install_s=install,
            before_review_s=before,
            startup_s=first - started,
            calls_s=last - first,
            publish_s=ended - last,
            step_s=ended - started,
            report_json=timeless(report),
        )
        # The slash command, cache warm: every step after Python's set-up, then the answer.
        steps = StepRunner(runner_temp, work, steps.env)
        env = steps.run()
        before_command = sum(t for n, t in steps.timings.items() if n != "python")
        event = comment_event(work, github, "/consensus explain F1")
        c_started, c_ended = run_review_step(steps, env, event, "issue_comment")
        replies = [c for c in github.repos[REPO].issue_comments if "consensus:reply" in c["body"]]
        if not replies or "Failed" in replies[-1]["body"]:
            raise RuntimeError(f"/consensus explain F1 got no good reply: {replies}")
        return run, before_command + (c_ended - c_started)


def step_run(name: str) -> str:
    for step in ACTION["runs"]["steps"]:
        if (step.get("id") or step["name"]) == name:
            return str(step.get("run", ""))
    return ""


def timeless(report_text: str) -> str:
    return timeless_json(Report.model_validate_json(report_text))


def folder_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


# --------------------------------------------------------------------------- main


def step_figures(run: ActionRun) -> StepFigures:
    return StepFigures(
        install_s=run.install_s,
        startup_s=run.startup_s,
        calls_s=run.calls_s,
        publish_s=run.publish_s,
        step_s=run.step_s,
        first_call_s=run.before_review_s + run.startup_s,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3, help="repetitions of each timing")
    parser.add_argument("--cache-dir", type=Path, help="the simulated cache (default: a temp dir)")
    parser.add_argument("--skip-action", action="store_true", help="no venv build, no Action")
    parser.add_argument("--markdown", type=Path, help="write the figures into this section file")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="consensus-action-bench-"))
    load_start = os.getloadavg()[0]
    print(f"consensus overhead benchmark · {args.files} files · {len(MODELS)} providers × ")
    print(f"  {len(PERSONAS)} personas · concurrency 8 · best of {args.runs} unless stated")
    print(f"  machine: {os.cpu_count()} cores, load average {load_start:.1f} at the start")
    try:
        start, phases, kinds = measure_client(work, args.files, args.runs)
        action = None if args.skip_action else measure_action(work, args.files, args.cache_dir)
        if args.markdown:
            results = OverheadResults(start, phases, kinds, action, Machine.now(load_start))
            write_figures(args.markdown, overhead_figures(results))
            print(f"wrote the figures into {args.markdown}; now run python benchmarks/report.py")
    finally:
        print(f"  (load average {os.getloadavg()[0]:.1f} at the end)")
        shutil.rmtree(work, ignore_errors=True)


def measure_client(
    work: Path, files: int, runs: int
) -> tuple[StartUpFigures, tuple[PhaseFigures, ...], int]:
    """Start-up and the model phase at 0.3 s and 1.5 s per call, printed as they come."""
    with ProviderProcess(0.3, work) as fast:
        print("\nStart-up")
        times = start_up(fast, work, files, runs)
        first, whole, done = times.first_call_s, times.import_exit_s, times.import_done_s
        row("python -c 'import litellm': the whole process (s)", f"{whole:.2f}")
        row("  of which until the import is done (s)", f"{done:.2f}")
        row("consensus review: process start → first call (s)", f"{first:.2f}")
        row(
            "  first call / import litellm (whole process)",
            f"{first / whole:.2f}",
            "<= 1.10",
            first <= 1.1 * whole,
        )
        row("  first call / import litellm (until done)", f"{first / done:.2f}", "(stricter)")
        helped = help_s(runs)
        row("consensus --help (s)", f"{helped:.3f}", "< 0.5", helped < 0.5)
        print("\nModel phase (fan-out) over ideal = ceil(calls / 8) × latency")
        measured = {0.3: model_phase(fast, files, runs)}
    with ProviderProcess(1.5, work, port=fast.port) as slow:  # same config, same run id
        measured[1.5] = model_phase(slow, files, max(1, runs - 1))
    reports: set[str] = set()
    phases = []
    for latency, target in ((0.3, 1.20), (1.5, 1.10)):
        ideal, done_runs = measured[latency]
        ratios = sorted(r.fanout_s / ideal for r in done_runs)
        cpu_ms = statistics.median(1000 * r.cpu_s / r.calls for r in done_runs)
        label = f"at {latency:g} s per call: {done_runs[0].calls} calls, ideal {ideal:.1f} s"
        row(label, f"{ratios[0]:.2f}", f"<= {target:.2f}", ratios[0] <= target)
        row("  median of the runs", f"{statistics.median(ratios):.2f}")
        row("  client CPU per call, whole review (ms)", f"{cpu_ms:.1f}")
        reports.update(r.report_json for r in done_runs)
        phases.append(
            PhaseFigures(latency, done_runs[0].calls, ideal, tuple(ratios), cpu_ms, target)
        )
    kinds = len(reports)
    row("same replies, same report: distinct JSON reports", f"{kinds}", "1", kinds == 1)
    start = StartUpFigures(whole, done, first, helped, runs)
    return start, tuple(phases), kinds


def measure_action(work: Path, files: int, cache_dir: Path | None) -> ActionFigures:
    """The Action's steps, cold then warm, and a slash command; printed as they come."""
    print("\nThe Action step (action.yml's steps; GitHub and the providers are loopback fakes)")
    cache = cache_dir or work / "runner-temp"
    if cache.exists():
        shutil.rmtree(cache)
    cache.mkdir(parents=True)
    with ProviderProcess(0.3, work) as provider:
        repo = make_repo(work, files, provider.url)
        cold, cold_command = action_run(cache, work, repo, provider)
        warm, warm_command = action_run(cache, work, repo, provider)
    venv_mb = folder_mb(cache / "consensus-venv")
    print(f"  {'':<52} {'cold':>10} {'warm':>10}   target")
    for name, attr in (
        ("install (s)", "install_s"),
        ("start-up: step start → first model call (s)", "startup_s"),
        ("calls: first call → last answer (s)", "calls_s"),
        ("publish: last answer → step end (s)", "publish_s"),
        ("the review step (s)", "step_s"),
    ):
        print(f"  {name:<52} {getattr(cold, attr):>10.1f} {getattr(warm, attr):>10.1f}")
    warm_first = warm.before_review_s + warm.startup_s
    cold_first = cold.before_review_s + cold.startup_s
    row(
        "warm: Python set up → first model call (s)", f"{warm_first:.1f}", "<= 15", warm_first <= 15
    )
    row("cold: Python set up → first model call (s)", f"{cold_first:.1f}")
    slash = min(cold_command, warm_command)  # both on a warm cache (the cold run saved it)
    row("/consensus explain F1: step time after Python (s)", f"{slash:.1f}", "<= 10", slash <= 10)
    same = cold.report_json == warm.report_json
    row("cold and warm runs: byte-identical JSON report", "yes" if same else "NO", "yes", same)
    row("cached venv size (MB; a runner downloads it)", f"{venv_mb:.0f}")
    return ActionFigures(step_figures(cold), step_figures(warm), slash, same, venv_mb)


if __name__ == "__main__":
    main()
