"""Hostile-input benchmark: how long path rules and redaction take on inputs built to make a
backtracking matcher blow up. The path rules run on re2 and the redaction patterns are
written not to backtrack, so each input stays in milliseconds; the tests check the results,
this measures the time. Figures, not assertions.

    python benchmarks/hostile_bench.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from consensus.ingest.pathfilter import BACKEND, Glob, PathRules  # noqa: E402
from consensus.ingest.redact import redact_text  # noqa: E402

GLOBS = {
    "stars in a segment": ("*a" * 30, "a" * 3000 + "b"),
    "many double stars": ("**/" * 50 + "x", "a/" * 2000 + "y"),
    "double stars between names": ("a/**/b/**/c/**/d/**/e", "a/" + "b/c/d/" * 500 + "f"),
}
LINES = {
    "spaces after a key": "token: a" + " " * 100_000 + "x",
    "repeated keys": "password=" * 10_000,
    "one long word": "a" * 100_000,
    "long scheme": "https://" + "a" * 100_000,
    "jwt-ish": "eyJ" * 30_000,
    "open quote": 'secret: "' + "a" * 100_000,
}
CUSTOM = ["(?i)internal-token-[a-z0-9]+"]


def slowest_ms(work: Callable[[], object], repeat: int) -> float:
    """The slowest of `repeat` runs, in milliseconds (the worst case is what a user waits)."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return max(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    print(f"path rules on {BACKEND}; slowest of {repeat} runs")
    for name, (pattern, path) in GLOBS.items():
        glob_ms = slowest_ms(lambda p=pattern, q=path: Glob(p).matches(q), repeat)
        rules_ms = slowest_ms(lambda p=pattern, q=path: PathRules([p]).matches(q), repeat)
        print(f"  glob {name:<28} {glob_ms:8.1f} ms   path rules {rules_ms:8.1f} ms")
    for name, line in LINES.items():
        ms = slowest_ms(lambda text=line: redact_text(text, CUSTOM), repeat)
        print(f"  redact {name:<26} {ms:8.1f} ms   ({len(line):,} characters)")


if __name__ == "__main__":
    main()
