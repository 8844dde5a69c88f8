"""Agent-PR queue: reconcile time and GitHub requests against the loopback fake GitHub.

A repository with N open PRs of which A are agent PRs (200 and 50 by default: 3 bots,
mixed risk, some overlapping, a few sent back), the real GitHub adapter (PyGithub) and
the real reconcile. Prints, for each run, the wall time and the requests by kind (GraphQL:
who last edited each agent PR's summary; GitHub meters it apart from REST):

1. first reconcile (labels, review requests, comments written);
2. second reconcile (must write nothing);
3. third reconcile with conditional requests (ETags: 304s do not count against the
   rate limit);

then the first-run requests for A = 25, 50, 100 agent PRs, to show they grow linearly.

    python benchmarks/queue_bench.py [--open 200] [--agents 50]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sim.queue_world import BOTS, CODEOWNERS, CONFIG, REPO, Spec, add_pull, host  # noqa: E402
from consensus.model.base import Severity  # noqa: E402
from consensus.queue.reconcile import reconcile  # noqa: E402
from consensus_sim.github_server import FakeGitHub  # noqa: E402


def specs(open_prs: int, agents: int) -> list[Spec]:
    out = []
    for n in range(1, open_prs + 1):
        if n <= agents:
            severity = Severity.HIGH if n % 10 == 0 else Severity.MEDIUM if n % 7 == 0 else None
            shared = n % 9 == 0  # every ninth agent PR touches the same lines of shared.py
            path = "src/shared.py" if shared else f"src/mod{n}.py"
            out.append(Spec(n, BOTS[n % 3], 1 + n % 28, path, lines=10 + 7 * n, severity=severity))
        else:
            out.append(Spec(n, f"dev{n % 17}", 1 + n % 28, f"docs/page{n}.md"))
    return out


def world(github: FakeGitHub, open_prs: int, agents: int) -> None:
    github.repo(REPO).snapshots["main"] = {
        ".consensus.yml": CONFIG,
        ".github/CODEOWNERS": CODEOWNERS,
    }
    for spec in specs(open_prs, agents):
        add_pull(github, spec)


def measure(github: FakeGitHub, run: object) -> tuple[float, Counter[str]]:
    before = len(github.requests)
    start = time.perf_counter()
    run()  # type: ignore[operator]
    wall = time.perf_counter() - start
    kinds: Counter[str] = Counter()
    for request in github.requests[before:]:
        if request.path == "/graphql":  # who last edited our summary: its own budget
            kinds["GraphQL"] += 1
        else:
            kinds["GET 304" if request.status == 304 else request.method] += 1
    return wall, kinds


def line(label: str, wall: float, kinds: Counter[str]) -> str:
    parts = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    return f"{label:<34} {wall * 1000:8.0f} ms  {sum(kinds.values()):4d} requests ({parts})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--open", type=int, default=200, help="open PRs")
    parser.add_argument("--agents", type=int, default=50, help="of which agent PRs")
    args = parser.parse_args()
    print(f"{args.open} open PRs, {args.agents} agent PRs, max_in_review 3\n")
    with FakeGitHub() as github:
        world(github, args.open, args.agents)
        adapter = host(github, conditional=True)

        def once() -> None:
            reconcile(adapter, apply=True, log=lambda text: None)

        wall, kinds = measure(github, once)
        print(line("first reconcile (writes)", wall, kinds))
        wall, kinds = measure(github, once)
        print(line("second reconcile (reads changes)", wall, kinds))
        assert kinds.keys() <= {"GET", "GET 304", "GraphQL"}, kinds
        wall, kinds = measure(github, once)
        print(line("third reconcile (all unchanged)", wall, kinds))
        assert kinds.keys() <= {"GET", "GET 304", "GraphQL"}, kinds
    print("\nfirst-reconcile requests by agent PRs (open PRs = 4 x agent PRs):")
    for agents in (25, 50, 100):
        with FakeGitHub() as github:
            world(github, agents * 4, agents)
            plain = host(github)

            def first(adapter: object = plain) -> None:
                reconcile(adapter, apply=True, log=lambda text: None)  # type: ignore[arg-type]

            wall, kinds = measure(github, first)
            reads = kinds["GET"]
            print(
                f"  {agents:4d} agent PRs: {reads:4d} reads ({reads / agents:.2f} per agent PR), "
                f"{kinds['GraphQL']:4d} GraphQL, "
                f"{kinds['POST'] + kinds['PATCH'] + kinds['DELETE']:4d} writes, "
                f"{wall * 1000:6.0f} ms"
            )


if __name__ == "__main__":
    main()
