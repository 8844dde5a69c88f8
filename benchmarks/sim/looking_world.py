"""The simulated repository of a quality-benchmark PR, and where each claim is decided.

Every PR of benchmarks/sim/quality_world.py gets a real tree (`FakeTrees`, the
`TreeReader` the verification tools read): each changed file at the head and the base, a
module of views that call the changed handlers, and a test file per changed file. The
files are valid Python, so the product's tree-sitter lookups find their names: a changed
file is one function, `def handle_<n>(request, **options):` on line 1, its unchanged
lines (before the diff's hunk) the same at both sides, the hunk's lines (today's, not one
changed: the diff, the prompts and the draws stay as they were) its body.

Each invented claim has what refutes it somewhere, drawn per claim (`PLACES`, stated
shares, an assumption like the looking rates): a guard earlier in the function within
the judge's first read (30 lines either side of the claim) or before it, the caller in
the views module, a test that covers the case, or nothing (a taste call). A guard needs
room before the hunk: where there is none, the next place in `FALLBACK` is used, and the
places a run ended up with are counted (`Repo.places`). Every refuting line names the
claim's variable as code, so a judge that looks the variable up finds it; a real claim is
decided by its bug line, which reading the claim's file shows.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from benchmarks.sim.quality_world import Problem, SimPR
from consensus.testing.trees import FakeTrees
from consensus_sim.looking_judge import READ_AROUND, ClaimTruth, Decisive

NEAR, FAR, CALLER, TEST, TASTE = (
    "guard in the function, within the first read",
    "guard in the function, before the first read",
    "the caller in another file",
    "a test that covers the case",
    "nothing (a taste call)",
)
PLACES = ((NEAR, 0.20), (FAR, 0.15), (CALLER, 0.25), (TEST, 0.15), (TASTE, 0.25))
FALLBACK = {NEAR: FAR, FAR: CALLER}  # where a guard goes when the function has no room
VIEWS = "src/app/views.py"
REAL = "the bug line (a real claim)"


@dataclass(frozen=True)
class Repo:
    """The PR's trees, what decides each problem, and where each invention's refutation
    ended up (`where`, by the names above)."""

    trees: FakeTrees
    truth: Mapping[Problem, ClaimTruth]
    where: Mapping[Problem, str]

    @property
    def places(self) -> Counter[str]:
        return Counter(self.where.values())


def _index(path: str) -> str:
    found = re.search(r"_(\d+)\.py$", path)
    return found.group(1) if found else "0"


def _module(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def _slug(problem: Problem) -> str:
    return re.sub(r"\W+", "_", problem.kind.name).strip("_")


def _draw_place(rng: random.Random) -> str:
    pick, total = rng.random(), 0.0
    for place, share in PLACES:
        total += share
        if pick < total:
            return place
    return TASTE


def repository(pr: SimPR, seed: int, index: int) -> Repo:
    """The PR's repository (see the module docstring); a function of the seed and the PR,
    drawn apart from the PR's own draws."""
    rng = random.Random(f"{seed}:{index}:repository")
    head: dict[str, list[str]] = {}
    base: dict[str, list[str]] = {}
    starts: dict[str, int] = {}
    for changed in pr.diff.files:
        lines = pr.texts[changed.path].rstrip("\n").split("\n")
        start = changed.hunks[0].new_start
        if start > 1:  # a function around the hunk; with no line before it, none
            lines[0] = f"def handle_{_index(changed.path)}(request, **options):"
        head[changed.path], starts[changed.path] = lines, start
        base[changed.path] = lines[: start - 1]
    callers: dict[str, list[str]] = {c.path: [] for c in pr.diff.files}
    tests: dict[str, list[str]] = {c.path: [] for c in pr.diff.files}
    used: dict[str, set[int]] = {c.path: set() for c in pr.diff.files}
    truth: dict[Problem, ClaimTruth] = {}
    where: dict[Problem, str] = {}
    for bug in pr.bugs:
        truth[bug] = ClaimTruth(True, Decisive(bug.path, bug.line, head[bug.path][bug.line - 1]))
    inventions = sorted((p for p in pr.reporters if not p.real), key=lambda p: (p.path, p.line))
    for problem in inventions:
        place = _draw_place(rng)
        v, slug, n = problem.var, _slug(problem), _index(problem.path)
        while place in FALLBACK:
            room = _guard_lines(problem, starts[problem.path], used[problem.path], place)
            if room:
                break
            place = FALLBACK[place]
        where[problem] = place
        if place in (NEAR, FAR):
            line = rng.choice(room)
            used[problem.path].add(line)
            text = f"    {v} = ensure_{slug}({v})  # checked before line {problem.line}"
            head[problem.path][line - 1] = text
            base[problem.path][line - 1] = text
            truth[problem] = ClaimTruth(False, Decisive(problem.path, line, text))
        elif place == CALLER:
            text = f"    {v} = ensure_{slug}(request.{v})  # handle_{n} gets it checked"
            callers[problem.path].append(text)
            truth[problem] = ClaimTruth(False, Decisive(VIEWS, 0, text))
        elif place == TEST:
            text = f"    assert handle_{n}(None, {v}=sample_{slug}()) is not None"
            tests[problem.path].append(text)
            truth[problem] = ClaimTruth(False, Decisive(_test_path(problem.path), 0, text))
        else:
            truth[problem] = ClaimTruth(False, None)
    files = {path: _text(lines) for path, lines in head.items()}
    files[VIEWS] = _views(callers)
    files.update({_test_path(path): _test(path, lines) for path, lines in tests.items()})
    numbered = {p: t.split("\n") for p, t in files.items()}
    truth = {p: _numbered(t, numbered) for p, t in truth.items()}
    trees = FakeTrees(
        head=files,
        base={**files, **{path: _text(lines) for path, lines in base.items()}},
    )
    return Repo(trees, truth, where)


def _guard_lines(problem: Problem, start: int, used: set[int], place: str) -> list[int]:
    """The lines before the hunk (after the `def`) a guard of `problem` may take."""
    near = range(max(2, problem.line - READ_AROUND + 2), start)
    lines = near if place == NEAR else range(2, min(start, problem.line - READ_AROUND - 2))
    return [n for n in lines if n not in used]


def _numbered(truth: ClaimTruth, files: Mapping[str, list[str]]) -> ClaimTruth:
    """A decisive line written before its file was: its number once the file is."""
    decisive = truth.decisive
    if decisive is None or decisive.line:
        return truth
    line = files[decisive.path].index(decisive.text) + 1
    return ClaimTruth(truth.real, Decisive(decisive.path, line, decisive.text))


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n" if lines else ""


def _views(callers: Mapping[str, list[str]]) -> str:
    lines = ['"""The views that call the changed handlers."""', ""]
    lines += [f"from {_module(path)} import handle_{_index(path)}" for path in callers]
    for path, checks in callers.items():
        n = _index(path)
        lines += ["", "", f"def view_{n}(request):", *checks, f"    return handle_{n}(request)"]
    return _text(lines)


def _test_path(path: str) -> str:
    return f"tests/test_{path.rsplit('/', 1)[-1]}"


def _test(path: str, checks: list[str]) -> str:
    n = _index(path)
    lines = [f"from {_module(path)} import handle_{n}", "", ""]
    last = f"    assert handle_{n}(None) is not None"
    lines += [f"def test_handle_{n}_answers():", *checks, last]
    return _text(lines)
