"""Today's decision code, loaded from git, so a benchmark measures the old behaviour and
the new one side by side in one run.

`load()` reads consensus's align, score, verify and detections modules as they were at
BASELINE (the commit before issues 11 and 16) with `git show`, and executes each in a
module of its own. Their imports of other consensus modules are served by today's modules
of the same names (the data models, prompts, reply parsing, which those changes left
compatible); an old module importing another old one (verify → detections) gets the old
one. Nothing here re-implements the old code: it is the old code.

When git or the commit is not available (an exported tarball, a shallow clone) `load()`
returns None with the reason, and the benchmark says that today's figures were not
measured in this run.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "5dbbbac"  # main before issue 11 (align, score, verify) and 16 (independence)
OLD = ("detections", "align", "score", "verify")  # in dependency order


@dataclass(frozen=True)
class Baseline:
    align: ModuleType
    score: ModuleType
    verify: ModuleType
    detections: ModuleType


def _source(name: str) -> str:
    done = subprocess.run(
        ["git", "show", f"{BASELINE}:consensus/{name}.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _execute(name: str, source: str, old: dict[str, ModuleType]) -> ModuleType:
    """Run the old module's code with its `from consensus.X import …` lines answered by
    the old module X when there is one, else today's."""
    tree = ast.parse(source)
    module = ModuleType(f"baseline_{name}")
    module.__dict__["__name__"] = f"baseline_{name}"
    sys.modules[module.__name__] = module  # dataclasses look their module up
    body = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("consensus."):
            short = (node.module or "").removeprefix("consensus.")
            source_module = old.get(short) or importlib.import_module(node.module or "")
            for alias in node.names:
                module.__dict__[alias.asname or alias.name] = getattr(source_module, alias.name)
        else:
            body.append(node)
    tree.body = body
    exec(compile(tree, f"{BASELINE}:consensus/{name}.py", "exec"), module.__dict__)
    return module


def load() -> Baseline | str:
    """The old modules, or why they could not be loaded."""
    try:
        old: dict[str, ModuleType] = {}
        for name in OLD:
            old[name] = _execute(name, _source(name), old)
    except (OSError, subprocess.CalledProcessError, AttributeError, ImportError) as exc:
        return f"today's code could not be loaded from git ({BASELINE}): {exc}"
    return Baseline(**old)
