"""Today's decision code, loaded from git, so a benchmark measures the old behaviour and
the new one side by side in one run.

`load()` reads consensus's align, score, verify and detections modules as they were at
BASELINE (the commit before issues 11 and 16) with `git show`, and executes each in a
module of its own. Their imports of other consensus modules are served by today's modules
(the data models, prompts, reply parsing, which those changes left compatible), found where
they have moved since (`MOVED`); an old module importing another old one (verify →
detections) gets the old one. Nothing here re-implements the old code: it is the old code.

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

import jinja2

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "5dbbbac"  # main before issue 11 (align, score, verify) and 16 (independence)
OLD = ("detections", "align", "score", "verify")  # in dependency order
# Where the names the old modules import live now (the package has been split into parts
# since BASELINE): the first of these modules that has the name serves it.
MOVED = {
    "models": ("model.base", "model.findings", "model.diff"),
    "config": ("settings.config",),
    "context": ("review.context",),
    "diff_view": ("ingest.view",),
    "fingerprint": ("decide.fingerprint",),
    "ledger": ("review.ledger",),
    "prompt": ("review.prompt",),
    "redact": ("ingest.redact",),
    "reply": ("review.reply",),
}


@dataclass(frozen=True)
class Baseline:
    align: ModuleType
    score: ModuleType
    verify: ModuleType
    detections: ModuleType


def _source(name: str) -> str:
    return _show(f"consensus/{name}.py")


def _show(path: str) -> str:
    done = subprocess.run(
        ["git", "show", f"{BASELINE}:{path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _old_template(name: str) -> jinja2.Template:
    """The prompt template `name` as it was at BASELINE (today's take other variables)."""
    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda n: _show(f"consensus/prompts/{n}")),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
    )
    return environment.get_template(name)


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
            for alias in node.names:
                module.__dict__[alias.asname or alias.name] = _imported(short, alias.name, old)
        else:
            body.append(node)
    tree.body = body
    exec(compile(tree, f"{BASELINE}:consensus/{name}.py", "exec"), module.__dict__)
    return module


def _imported(short: str, name: str, old: dict[str, ModuleType]) -> object:
    """`from consensus.<short> import <name>` for old code: the old module when there is
    one, else today's module of that name, else where the name has moved. Prompt templates
    are the old ones too."""
    if short in old:
        return getattr(old[short], name)
    if (short, name) == ("prompt", "template"):
        return _old_template
    for place in (short, *MOVED.get(short, ())):
        try:
            module = importlib.import_module(f"consensus.{place}")
        except ImportError:
            continue
        if hasattr(module, name):
            return getattr(module, name)
    raise ImportError(f"{name} (from consensus.{short}) is nowhere in today's package")


def load() -> Baseline | str:
    """The old modules, or why they could not be loaded."""
    try:
        old: dict[str, ModuleType] = {}
        for name in OLD:
            old[name] = _execute(name, _source(name), old)
    except (OSError, subprocess.CalledProcessError, AttributeError, ImportError) as exc:
        return f"today's code could not be loaded from git ({BASELINE}): {exc}"
    return Baseline(**old)
