"""A newcomer's first commands, timed: `consensus demo`, then the commands that call no
model (target: under 1 s each), with `import litellm` alone measured in the same run as
the reference they no longer pay.

Each command runs as a fresh process (`python -m consensus ...`), as a user types it, in a
bare environment (no key but two fake ones for the dry run, no network needed), `--repeat`
times (the demo once); the table gives the median and the worst, and each target's verdict
on the median. A command that exits with another code than the one it should (the doctor
without a key: 3) stops the run: its time would not be the command's.

    python benchmarks/first_run_bench.py [--repeat 3] [--markdown benchmarks/results/first_run.md]

`--markdown` writes this run's figures into the section's figures block
(`benchmarks/sim/first_run_figures.py`); `python benchmarks/report.py` then assembles
BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sim.first_run_figures import (  # noqa: E402
    CommandTimes,
    FirstRunResults,
    first_run_figures,
)
from benchmarks.sim.sections import Machine, write_figures  # noqa: E402

CONFIG = """\
providers:
  - model: openai/gpt-5.1
  - model: anthropic/claude-sonnet-4-5
"""


def timed(command: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, done.returncode, done.stderr + done.stdout


Case = tuple[str, list[str], dict[str, str], int]  # label, command, environment, exit


def cases(tmp: Path, run_id: str, env: dict[str, str]) -> list[Case]:
    """The reference, then the commands that call no model, as the table names them."""
    py = [sys.executable, "-m", "consensus"]
    (tmp / "keyed.yml").write_text(CONFIG)
    home = dict(env)  # the demo journaled into the default journal under this HOME
    keyed = {**home, "OPENAI_API_KEY": "sk-bench", "ANTHROPIC_API_KEY": "sk-bench"}
    config = ["--config", str(tmp / "keyed.yml")]
    html = str(tmp / "r.html")
    return [
        ('`python -c "import litellm"` alone', [sys.executable, "-c", "import litellm"], env, 0),
        ("`consensus --help`", [*py, "--help"], env, 0),
        ("`consensus replay RUN_ID`", [*py, "replay", run_id], home, 0),
        ("`consensus report RUN_ID --html`", [*py, "report", run_id, "--html", html], home, 0),
        ("`consensus runs`", [*py, "runs"], home, 0),
        ("`consensus config`", [*py, "config", *config], home, 0),
        ("`consensus workflows`", [*py, "workflows"], home, 0),
        ("`consensus personas`", [*py, "personas"], home, 0),
        ("`consensus doctor` without a key", [*py, "doctor", *config], home, 3),
        (
            "`consensus review --dry-run` (two providers, two tokenizers)",
            [*py, "review", "--dry-run", *config],
            keyed,
            0,
        ),
    ]


def measure(repeat: int) -> FirstRunResults | str:
    """Every command's times, or the output of the first that exits as it should not."""
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="first-run-") as folder:
        tmp = Path(folder)
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp),
            "PYTHONPATH": str(ROOT),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        demo = [sys.executable, "-m", "consensus", "demo", "--into", str(tmp / "demo")]
        seconds, code, out = timed(demo, cwd=tmp, env=env)
        if code != 0:
            return out
        run_id = next(
            re.search(r"`consensus replay (\w+)`", line).group(1)  # type: ignore[union-attr]
            for line in out.splitlines()
            if "`consensus replay" in line
        )
        label = "`consensus demo` (first run: litellm, its model calls, verification, HTML)"
        timings = [CommandTimes(label, (seconds,), (code,))]
        for name, command, case_env, expected in cases(tmp, run_id, env):
            times, codes = [], []
            for _ in range(repeat):
                elapsed, code, out = timed(command, cwd=tmp / "demo" / "shop", env=case_env)
                if code != expected:
                    return f"{name} exited {code}, not {expected}:\n{out}"
                times.append(elapsed)
                codes.append(code)
            timings.append(CommandTimes(name, tuple(times), tuple(codes)))
    demo_times, reference, *commands = timings
    return FirstRunResults(demo_times, reference, tuple(commands), Machine.now(load_start))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", type=Path, help="write the figures into this section file")
    args = parser.parse_args()
    results = measure(args.repeat)
    if isinstance(results, str):
        print(results, file=sys.stderr)
        return 1
    [text] = first_run_figures(results).values()
    print(text)
    if args.markdown:
        write_figures(args.markdown, first_run_figures(results))
        print(f"wrote the figures into {args.markdown}; now run python benchmarks/report.py")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
