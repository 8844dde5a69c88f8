"""A newcomer's first commands, timed: `consensus demo`, then the commands that call no
model (target: under 1 s each), with `import litellm` alone measured in the same run as
the reference they no longer pay.

Each command runs as a fresh process (`python -m consensus ...`), as a user types it, in a
bare environment (no key but two fake ones for the dry run, no network needed), `--repeat`
times; the table gives the median and the worst.

    python benchmarks/first_run_bench.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CONFIG = """\
providers:
  - model: openai/gpt-5.1
  - model: anthropic/claude-sonnet-4-5
"""


def timed(command: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, done.returncode, done.stderr + done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="first-run-") as folder:
        tmp = Path(folder)
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp),
            "PYTHONPATH": str(ROOT),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        py = [sys.executable, "-m", "consensus"]
        seconds, code, out = timed([*py, "demo", "--into", str(tmp / "demo")], cwd=tmp, env=env)
        if code != 0:
            print(out, file=sys.stderr)
            return 1
        run_id = next(line.split()[-1] for line in out.splitlines() if "consensus replay" in line)
        repo = tmp / "demo" / "shop"
        (tmp / "keyed.yml").write_text(CONFIG)
        journal_env = {**env, "CONSENSUS_HOME": str(tmp / "demo" / "journal")}
        keyed = {**journal_env, "OPENAI_API_KEY": "sk-bench", "ANTHROPIC_API_KEY": "sk-bench"}
        config = ["--config", str(tmp / "keyed.yml")]
        cases: list[tuple[str, list[str], dict[str, str]]] = [
            ("import litellm (reference)", [sys.executable, "-c", "import litellm"], env),
            ("consensus --help", [*py, "--help"], env),
            ("replay RUN_ID", [*py, "replay", run_id], journal_env),
            ("report RUN_ID", [*py, "report", run_id, "--html", str(tmp / "r.html")], journal_env),
            ("runs", [*py, "runs"], journal_env),
            ("config", [*py, "config", *config], journal_env),
            ("workflows", [*py, "workflows"], journal_env),
            ("personas", [*py, "personas"], journal_env),
            ("doctor (no key)", [*py, "doctor", *config], journal_env),
            ("review --dry-run", [*py, "review", "--dry-run", *config], keyed),
        ]
        rows = [("demo (first run, includes litellm)", [seconds], {0})]
        for name, command, case_env in cases:
            times, codes = [], set()
            for _ in range(args.repeat):
                elapsed, code, out = timed(command, cwd=repo, env=case_env)
                times.append(elapsed)
                codes.add(code)
            rows.append((name, times, codes))
    print("| command | median s | worst s | exit | runs |\n|---|---|---|---|---|")
    for name, times, codes in rows:
        exits = ",".join(str(c) for c in sorted(codes))
        print(
            f"| {name} | {statistics.median(times):.2f} | {max(times):.2f} | {exits} "
            f"| {len(times)} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
