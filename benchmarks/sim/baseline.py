"""Earlier versions of the decision code, loaded from git, so a benchmark measures the old
behaviour and the new one side by side in one run.

`load(version)` reads the modules a `Version` names (align, score, verify, the scan's
detections and, once it existed, sameness) as they were at its commit with `git show`, and
executes each in a module of its own. Their imports of other consensus modules are served
by today's modules (the data models, prompts, reply parsing, which those changes left
compatible), found where they have moved since (`MOVED`); an old module importing another
old one (verify → detections) gets the old one, and the prompt templates are the old ones.
Nothing here re-implements the old code: it is the old code.

- TODAY: main before issues 11 and 16 ("today" in the issue's targets);
- ROUND_ONE: the end of issue 11's first round (what the second round is measured against).

When git or the commit is not available (an exported tarball, a shallow clone) `load()`
returns the reason instead, and the benchmark says that those figures were not measured in
this run.
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

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Version:
    commit: str
    modules: tuple[str, ...]  # under consensus/, dotted, in dependency order
    what: str


TODAY = Version(
    "5dbbbac", ("detections", "align", "score", "verify"), "main before issues 11 and 16"
)
ROUND_ONE = Version(
    "9652b02",
    ("ingest.detections", "decide.align", "decide.score", "review.sameness", "review.verify"),
    "issue 11 after its first round",
)
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
    sameness: ModuleType | None = None  # "same problem?" questions, once there were any


def _show(commit: str, path: str) -> str:
    done = subprocess.run(
        ["git", "show", f"{commit}:{path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _templates(commit: str, folder: str) -> object:
    """`template(name)` as it was at `commit`: the prompt templates in `folder` then."""
    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda n: _show(commit, f"{folder}/{n}")),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
    )
    return environment.get_template


def _execute(version: Version, name: str, old: dict[str, ModuleType]) -> ModuleType:
    """Run the old module's code with its `from consensus.X import …` lines answered by
    the old module X when there is one, else today's."""
    path = f"consensus/{name.replace('.', '/')}.py"
    tree = ast.parse(_show(version.commit, path))
    module = ModuleType(f"baseline_{version.commit}_{name.replace('.', '_')}")
    module.__dict__["__name__"] = module.__name__
    sys.modules[module.__name__] = module  # dataclasses look their module up
    body = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("consensus."):
            short = (node.module or "").removeprefix("consensus.")
            for alias in node.names:
                value = _imported(version, short, alias.name, old)
                module.__dict__[alias.asname or alias.name] = value
        else:
            body.append(node)
    tree.body = body
    exec(compile(tree, f"{version.commit}:{path}", "exec"), module.__dict__)
    return module


def _imported(version: Version, short: str, name: str, old: dict[str, ModuleType]) -> object:
    """`from consensus.<short> import <name>` for old code: the old module when there is
    one, else today's module of that name, else where the name has moved. Prompt templates
    are the old ones too."""
    if short in old:
        return getattr(old[short], name)
    if short.split(".")[-1] == "prompt" and name == "template":
        return _templates(
            version.commit, "/".join(["consensus", *short.split(".")[:-1], "prompts"])
        )
    for place in (short, *MOVED.get(short, ())):
        try:
            module = importlib.import_module(f"consensus.{place}")
        except ImportError:
            continue
        if hasattr(module, name):
            return getattr(module, name)
    raise ImportError(f"{name} (from consensus.{short}) is nowhere in today's package")


def load(version: Version = TODAY) -> Baseline | str:
    """The old modules, or why they could not be loaded."""
    try:
        old: dict[str, ModuleType] = {}
        for name in version.modules:
            old[name] = _execute(version, name, old)
    except (OSError, subprocess.CalledProcessError, AttributeError, ImportError) as exc:
        return f"the code of {version.what} could not be loaded from git ({version.commit}): {exc}"
    return Baseline(**{name.split(".")[-1]: module for name, module in old.items()})
