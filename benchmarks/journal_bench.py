"""Journal benchmark: overhead per call and bytes per call, for 2,000 calls.

Each call goes once through a bare fake client and once through the journal wrapping the
same client (record), then again through the journal (served on resume); medians of the
per-call differences are printed beside the target. Realistic sizes: a 30 KB prompt (the
diff) and a 1.5 KB JSON reply. Figures, not assertions.

    python benchmarks/journal_bench.py [--calls 2000] [--markdown benchmarks/results/journal.md]

`--markdown` writes this run's figures into the section's figures block
(benchmarks/sim/sections.py); then run `python benchmarks/report.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sim.sections import (  # noqa: E402
    JournalResults,
    Machine,
    journal_figures,
    write_figures,
)
from consensus.adapters.journal import Journal  # noqa: E402
from consensus.adapters.recording import JournaledClient  # noqa: E402
from consensus.ports import CompletionRequest, Message  # noqa: E402
from consensus.testing import FakeModelClient  # noqa: E402

REPLY = json.dumps(
    {
        "findings": [
            {
                "path": "src/service/module_07.py",
                "line": 40 + n,
                "severity": "medium",
                "category": "bug",
                "title": "Retry loop never gives up when the server keeps failing",
                "body": "The loop retries forever; cap the attempts and surface the error.",
            }
            for n in range(4)
        ]
    }
)


def requests(count: int) -> list[CompletionRequest]:
    diff = "\n".join(
        f"  {n:>4} +    total = compute_{n}(value, limit={n % 97})" for n in range(600)
    )
    return [
        CompletionRequest(
            model=f"openai/model-{n % 4}",
            messages=(
                Message(role="system", content="You are one of several independent reviewers."),
                Message(role="user", content=f"{diff}\n\npersona {n % 4}, chunk {n // 16}: {n}"),
            ),
        )
        for n in range(count)
    ]


async def timed(client: object, batch: list[CompletionRequest]) -> list[float]:
    timings = []
    for request in batch:
        started = time.perf_counter()
        await client.complete(request)  # type: ignore[attr-defined]
        timings.append(time.perf_counter() - started)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--markdown", type=Path, help="write the figures into this section file")
    args = parser.parse_args()
    load_start = os.getloadavg()[0]
    batch = requests(args.calls)
    with tempfile.TemporaryDirectory() as home:
        path = Path(home) / "journal.db"
        journal = Journal(path)
        journal.start_run("bench", "bench", "benchmark", "{}")
        fake = FakeModelClient(default=REPLY)
        bare = asyncio.run(timed(fake, batch))
        recorded = asyncio.run(timed(JournaledClient(journal, "bench", fake), batch))
        served = asyncio.run(timed(JournaledClient(journal, "bench", fake), batch))
        journal.close()
        size = sum(p.stat().st_size for p in Path(home).glob("journal.db*"))
    overhead = [r - b for r, b in zip(recorded, bare, strict=True)]
    median_ms = statistics.median(overhead) * 1000
    p95_ms = statistics.quantiles(overhead, n=20)[18] * 1000
    print(f"journal benchmark · {args.calls:,} calls · 30 KB prompts, 1.5 KB replies")
    print(
        f"  record overhead per call, median      {median_ms:8.3f} ms   target < 2 ms   "
        f"{'met' if median_ms < 2 else 'NOT MET'}"
    )
    print(f"  record overhead per call, p95         {p95_ms:8.3f} ms")
    print(f"  served from the journal, median       {statistics.median(served) * 1000:8.3f} ms")
    print(f"  bytes on disk per call                {size / args.calls:8.0f} B")
    if args.markdown:
        results = JournalResults(
            calls=args.calls,
            record_median_ms=median_ms,
            record_p95_ms=p95_ms,
            served_median_ms=statistics.median(served) * 1000,
            bytes_per_call=size / args.calls,
            machine=Machine.now(load_start),
        )
        write_figures(args.markdown, journal_figures(results))
        print(f"wrote the figures into {args.markdown}; now run python benchmarks/report.py")


if __name__ == "__main__":
    main()
