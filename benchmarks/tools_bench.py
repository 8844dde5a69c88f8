"""The verification tools on a real repository: the time of each tool per call, and how
often find_definition finds what Python's own parser says is defined.

The trees are read from git's objects (adapters/git_tree.py), as a run reads a pull
request's base and head. Each tool is called many times with varied arguments, cold (a
new snapshot per call: the trees listed, the files read and redacted) and warm (one
snapshot per claim, as a judge's conversation keeps it); median and p95 are printed.
Then `--symbols` names defined in the repository are looked up and find_definition's
answers are compared with `ast`'s definitions (functions, classes, methods, module- and
class-level names), each printed so a reader can check them. Figures, not assertions.

    git clone --bare https://github.com/pallets/click click.git
    python benchmarks/tools_bench.py click.git [--base HEAD~30] [--calls 40] [--symbols 50]
"""

from __future__ import annotations

import argparse
import ast
import functools
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from consensus.adapters.git_tree import GitTrees  # noqa: E402
from consensus.inspect.lookups import Lookups, ToolBudget  # noqa: E402
from consensus.inspect.snapshot import PathPolicy, Snapshot, redactor  # noqa: E402

PATTERNS = (r"def \w+\(", "raise ", r"\bctx\b", "import os", r"TODO|FIXME", r"self\.\w+ = ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a git repository (bare or not)")
    parser.add_argument("--base", default="HEAD~30")
    parser.add_argument("--head", default="HEAD")
    parser.add_argument("--calls", type=int, default=40, help="calls per tool and mode")
    parser.add_argument("--symbols", type=int, default=50)
    parser.add_argument("--seed", type=int, default=44)
    args = parser.parse_args()
    trees = GitTrees(args.repo, args.base, args.head)
    python = [p for p in trees.paths("head") if p.endswith(".py")]
    texts = {p: b.decode("utf-8", "replace") for p, b in trees.read(python, "head").items()}
    names = sorted(_defined(texts))
    rng = random.Random(args.seed)
    print(
        f"{args.repo}: {len(trees.paths('head'))} files, {len(python)} Python, {len(names)} names"
    )
    calls = _calls(rng, texts, names, args.calls)
    print(
        f"{'tool':<16} "
        + " ".join(f"{h:>12}" for h in ("cold median", "cold p95", "warm median", "warm p95"))
    )

    def fresh() -> Snapshot:
        return Snapshot(GitTrees(args.repo, args.base, args.head), redactor())

    for tool, arguments in calls.items():
        cold = _times(fresh, tool, arguments)
        warm = _times(functools.partial(lambda kept: kept, fresh()), tool, arguments)
        figures = [_ms(cold, 50), _ms(cold, 95), _ms(warm, 50), _ms(warm, 95)]
        print(f"{tool:<16} " + " ".join(f"{f:>12}" for f in figures))
    if args.symbols:
        _accuracy(args, texts, rng.sample(names, min(args.symbols, len(names))))


def _calls(
    rng: random.Random, texts: dict[str, str], names: list[str], count: int
) -> dict[str, list[dict[str, object]]]:
    paths = sorted(texts)
    reads = []
    for _ in range(count):
        path = rng.choice(paths)
        total = max(1, texts[path].count("\n"))
        start = rng.randint(1, total)
        reads.append({"path": path, "start_line": start, "end_line": start + rng.randint(10, 199)})
    return {
        "read_file": reads,
        "search": [{"pattern": rng.choice(PATTERNS)} for _ in range(count)],
        "find_definition": [{"symbol": rng.choice(names)} for _ in range(count)],
        "find_references": [{"symbol": rng.choice(names)} for _ in range(count)],
        "list_tests": [{"path": rng.choice(paths)} for _ in range(count)],
    }


def _times(
    snapshot: Callable[[], Snapshot], tool: str, arguments: list[dict[str, object]]
) -> list[float]:
    seconds = []
    for argument in arguments:
        started = time.perf_counter()
        result = Lookups(snapshot(), ToolBudget(calls=1)).call(tool, argument)
        seconds.append(time.perf_counter() - started)
        if result.error:
            print(f"  {tool}: {result.text}")
    return seconds


def _ms(seconds: list[float], percentile: int) -> str:
    if percentile == 50:
        return f"{statistics.median(seconds) * 1000:.1f} ms"
    return f"{statistics.quantiles(seconds, n=100)[percentile - 1] * 1000:.1f} ms"


def _defined(texts: dict[str, str]) -> dict[str, set[tuple[str, int]]]:
    """name → (path, line) of every definition `ast` sees: functions, classes, methods,
    and names assigned at module or class level."""
    found: dict[str, set[tuple[str, int]]] = {}
    for path, text in texts.items():
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.setdefault(node.name, set()).add((path, node.lineno))
                scopes = [node.body] if isinstance(node, ast.ClassDef) else []
            elif isinstance(node, ast.Module):
                scopes = [node.body]
            else:
                continue
            for scope in scopes:
                for statement in scope:
                    targets = _assigned(statement)
                    for name in targets:
                        found.setdefault(name, set()).add((path, statement.lineno))
    return found


def _assigned(statement: ast.stmt) -> list[str]:
    if isinstance(statement, ast.Assign):
        return [t.id for t in statement.targets if isinstance(t, ast.Name)]
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return [statement.target.id]
    return []


def _accuracy(args: argparse.Namespace, texts: dict[str, str], names: list[str]) -> None:
    truth = _defined(texts)
    snapshot = Snapshot(GitTrees(args.repo, args.base, args.head), redactor(), PathPolicy())
    exact = 0
    for name in names:
        result = Lookups(snapshot).call("find_definition", {"symbol": name})
        answered = {
            (line.split(":")[0], int(line.split(":")[1]))
            for line in result.text.splitlines()
            if line.endswith(")") and line.count(":") >= 2
        }
        expected = truth[name]
        exact += answered == expected
        verdict = "ok" if answered == expected else "DIFFERS"
        print(f"\n{name}: {verdict} ({len(answered)} found, ast: {len(expected)})")
        for line in result.text.splitlines():
            print(f"  {line}")
        for missing in sorted(expected - answered):
            print(f"  missed: {missing[0]}:{missing[1]}")
        for extra in sorted(answered - expected):
            print(f"  extra: {extra[0]}:{extra[1]}")
    print(f"\nfind_definition agrees with ast on {exact} of {len(names)} names")


if __name__ == "__main__":
    main()
