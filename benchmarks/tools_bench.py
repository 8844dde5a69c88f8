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
    python benchmarks/tools_bench.py click.git [--base HEAD~30] [--calls 40] [--symbols 50] \
        [--markdown benchmarks/results/tools.md]
"""

from __future__ import annotations

import argparse
import ast
import functools
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sim.sections import table, write_figures  # noqa: E402
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
    parser.add_argument("--markdown", type=Path, help="write the figures into this section file")
    args = parser.parse_args()
    trees = GitTrees(args.repo, args.base, args.head)
    python = [p for p in trees.paths("head") if p.endswith(".py")]
    texts = {p: b.decode("utf-8", "replace") for p, b in trees.read(python, "head").items()}
    names = sorted(_defined(texts))
    rng = random.Random(args.seed)
    about = (
        f"{_name(args.repo)} at {_commit(args.repo, args.head)} "
        f"(base {args.base}): {len(trees.paths('head'))} files, {len(python)} Python, "
        f"{len(names)} names defined; {args.calls} calls per tool, cold (a new snapshot per "
        "call) and warm (one snapshot, as a judge's conversation keeps it)."
    )
    print(about)
    calls = _calls(rng, texts, names, args.calls)

    def fresh() -> Snapshot:
        return Snapshot(GitTrees(args.repo, args.base, args.head), redactor())

    rows = []
    for tool, arguments in calls.items():
        cold = _times(fresh, tool, arguments)
        warm = _times(functools.partial(lambda kept: kept, fresh()), tool, arguments)
        rows.append((tool, _ms(cold, 50), _ms(cold, 95), _ms(warm, 50), _ms(warm, 95)))
    latency = table(("tool", "cold median", "cold p95", "warm median", "warm p95"), "lrrrr", rows)
    print(latency)
    blocks = [about, latency]
    if args.symbols:
        blocks.append(_accuracy(args, texts, rng.sample(names, min(args.symbols, len(names)))))
    if args.markdown:
        write_figures(args.markdown, {"tools": "\n\n".join(blocks)})


def _commit(repo: Path, rev: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short=12", rev],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


def _name(repo: Path) -> str:
    """The repository's name as `fetch` or a clone leaves it (owner+name/repo, name.git)."""
    parts = repo.resolve().parts
    if parts[-1] == "repo" and len(parts) > 1:
        return parts[-2].replace("+", "/")
    return parts[-1].removesuffix(".git")


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


def _accuracy(args: argparse.Namespace, texts: dict[str, str], names: list[str]) -> str:
    """find_definition beside `ast` on `names`; each name's answer printed for a reader
    to check, and the summary (with the names and their first answer) returned."""
    truth = _defined(texts)
    snapshot = Snapshot(GitTrees(args.repo, args.base, args.head), redactor(), PathPolicy())
    exact = 0
    listed = []
    for name in names:
        result = Lookups(snapshot).call("find_definition", {"symbol": name})
        answers = [line for line in result.text.splitlines() if line.count(":") >= 2]
        answered = {
            (line.split(":")[0], int(line.split(":")[1])) for line in answers if line.endswith(")")
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
        first = answers[0].split(": ", 1)[0] if answers else "nothing"
        listed.append(f"`{name}` {verdict} ({len(answered)}: {first})")
    summary = f"find_definition agrees with ast on {exact} of {len(names)} names"
    print(f"\n{summary}")
    return f"{summary}: " + "; ".join(listed) + "."


if __name__ == "__main__":
    main()
