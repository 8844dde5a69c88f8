"""False redactions on real code: the redaction run over real projects' histories.

Each commit of the last N (merges left out) is diffed against its parent, parsed as a
review parses a PR's diff and redacted; every redaction is counted by kind against the
changed (added or removed) lines. Real projects' histories hold almost no live secret,
so a redaction there is nearly always a false one (each is listed with `--show` so a
reader can judge). Target: under 1 per 10,000 changed lines. Figures, not assertions.

    git clone --bare https://github.com/pallets/click click.git
    git clone --bare https://github.com/psf/requests requests.git
    python benchmarks/redaction_bench.py click.git requests.git [--commits 200] [--show]
        [--all-files]   # lockfiles and generated files too, which a review never sends
        [--markdown benchmarks/results/redaction.md]   # its figures, then benchmarks/report.py
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import write_figures  # noqa: E402
from consensus.ingest.parse import parse_diff  # noqa: E402
from consensus.ingest.pathfilter import select_files  # noqa: E402
from consensus.ingest.redact import redact_files  # noqa: E402

PER = 10_000
# A private key block is a secret wherever it is committed (requests keeps test
# certificates' keys in tests/certs): redacting one is right, not a false redaction.
TRUE_KINDS = frozenset({"private-key"})


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={repo}", *args], check=True, capture_output=True
    ).stdout


def git_dir(path: Path) -> Path:
    """The git directory of a clone, bare or not."""
    return path / ".git" if (path / ".git").exists() else path


def name_of(path: Path) -> str:
    """A clone's name: `click.git` → click, `…/pallets+click/repo` → pallets+click."""
    path = path.resolve()
    if path.name in ("repo", ".git"):
        path = path.parent
    return path.name.removesuffix(".git")


def measure(repo: Path, commits: int, show: bool, all_files: bool) -> dict[str, object]:
    shas = git(repo, "rev-list", "--no-merges", f"--max-count={commits}", "HEAD").split()
    changed = 0
    kinds: Counter[str] = Counter()
    seconds = 0.0
    for sha in shas:
        raw = git(repo, "show", "--format=", "--no-color", "--no-ext-diff", sha.decode())
        # As a review does: lockfiles, vendored and generated files are never sent.
        files = parse_diff(raw)[0]
        if not all_files:
            files = select_files(files)[0]
        changed += sum(1 for f in files for h in f.hunks for line in h.lines if line.kind in "+-")
        started = time.perf_counter()
        _, redactions = redact_files(files)
        seconds += time.perf_counter() - started
        for redaction in redactions:
            kind = redaction.kind.removesuffix(" (removed line)")
            kinds[kind] += 1
            if show:
                where = f"{redaction.path}:{redaction.line}"
                print(f"  {name_of(repo)} {sha.decode()[:10]} {where} {kind}")
    total = sum(kinds.values())
    false = sum(n for kind, n in kinds.items() if kind not in TRUE_KINDS)
    return {
        "repository": name_of(repo),
        "head": git(repo, "rev-parse", "HEAD").decode().strip(),
        "commits": len(shas),
        "changed_lines": changed,
        "redactions": total,
        "per_10k_changed_lines": round(total * PER / max(1, changed), 3),
        "false_redactions": false,
        "false_per_10k_changed_lines": round(false * PER / max(1, changed), 3),
        "by_kind": dict(kinds.most_common()),
        "redact_seconds": round(seconds, 2),
    }


COLD_START = (
    "import time; t = time.perf_counter(); "
    "from consensus.ingest.detector import vendor_secrets; vendor_secrets('x' * 30); "
    "print(time.perf_counter() - t)"
)


def cold_start() -> float:
    """Seconds from importing the detector to its first answer, in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", COLD_START], cwd=ROOT, check=True, capture_output=True, text=True
    )
    return float(done.stdout.strip())


def figures(results: list[dict[str, object]]) -> str:
    """The figures block of the section: the table, then the time and the cold start."""
    rows = []
    for r in results:
        by_kind = r["by_kind"]
        assert isinstance(by_kind, dict)
        kinds = ", ".join(f"{kind}: {n}" for kind, n in by_kind.items())
        rows.append(
            f"| {r['repository']} | {r['commits']} | {r['changed_lines']:,} | {r['redactions']} "
            f"| {r['per_10k_changed_lines']} | {r['false_redactions']} "
            f"| {r['false_per_10k_changed_lines']} | {kinds} |"
        )
    changed = sum(int(str(r["changed_lines"])) for r in results)
    total = sum(int(str(r["redactions"])) for r in results)
    false = sum(int(str(r["false_redactions"])) for r in results)
    seconds = sum(float(str(r["redact_seconds"])) for r in results)
    heads = ", ".join(f"{r['repository']} at {str(r['head'])[:10]}" for r in results)
    return "\n".join(
        [
            "| repository | commits | changed lines | redactions | per 10k | false | false per 10k "
            "| kinds |",
            "|---|---:|---:|---:|---:|---:|---:|---|",
            *rows,
            f"| all | | {changed:,} | {total} | {total * PER / max(1, changed):.2f} | {false} "
            f"| {false * PER / max(1, changed):.2f} | |",
            "",
            f"Measured on {heads}.",
            f"Redaction took {seconds:.1f} s for the {changed:,} changed lines and their context;",
            f"the detector's cold start (import, first answer) is {cold_start():.2f} s, paid on",
            "the first line that could hold a key.",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", nargs="+", type=Path, help="clones (bare or not) to measure")
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument("--show", action="store_true", help="list every redaction")
    parser.add_argument(
        "--all-files", action="store_true", help="lockfiles and generated files too"
    )
    parser.add_argument("--markdown", type=Path, help="write the figures into this section file")
    args = parser.parse_args()
    results = [
        measure(git_dir(repo), args.commits, args.show, args.all_files) for repo in args.repos
    ]
    changed = sum(int(str(r["changed_lines"])) for r in results)
    total = sum(int(str(r["redactions"])) for r in results)
    false = sum(int(str(r["false_redactions"])) for r in results)
    for r in results:
        print(
            f"{r['repository']:<24} {r['commits']:>4} commits {r['changed_lines']:>8,} changed "
            f"lines {r['redactions']:>4} redactions = {r['per_10k_changed_lines']:>6} per 10k  "
            f"{r['by_kind']}  ({r['redact_seconds']} s)"
        )
    print(
        f"all: {total} redactions in {changed:,} changed lines = "
        f"{total * PER / max(1, changed):.3f} per 10,000; false (all but private key blocks): "
        f"{false} = {false * PER / max(1, changed):.3f} per 10,000 (target < 1)"
    )
    print(json.dumps(results))
    if args.markdown:
        write_figures(args.markdown, {"redaction": figures(results)})


if __name__ == "__main__":
    main()
