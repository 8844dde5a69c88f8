"""Whether each analyzer a configuration names could run on this machine: the tool is
installed and answers `--version`, the SARIF file an earlier step writes is there. Asked by
`consensus doctor` and `consensus review --dry-run`, so a missing tool shows before a review
goes on without it."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from consensus.adapters.repository_analyzers import (
    INSTALL,
    Runner,
    find_tool,
    read_bounded,
    run_tool,
)
from consensus.errors import AnalyzerOutputError
from consensus.ingest.sarif_results import read_sarif, tool_slug
from consensus.model.analysis import AnalyzerCheck
from consensus.settings.analyzer_sources import SarifSettings
from consensus.settings.config import Settings

VERSION_TIMEOUT_S = 20.0  # semgrep's first start compiles its rules cache: seconds, not ms


def check_analyzers(
    settings: Settings,
    root: Path,
    *,
    find: Callable[[str], tuple[str, ...] | None] = find_tool,
    run: Runner = run_tool,
) -> tuple[AnalyzerCheck, ...]:
    """One check per `analyzers:` and `sarif:` entry of `settings`, in the file's order;
    SARIF paths are read against `root`."""
    checks = [tool_check(spec.name, root, find, run) for spec in settings.analyzers]
    checks += [sarif_check(spec, root) for spec in settings.sarif]
    return tuple(checks)


def tool_check(
    name: str, root: Path, find: Callable[[str], tuple[str, ...] | None], run: Runner
) -> AnalyzerCheck:
    """A built-in analyzer: found, and what its `--version` says."""
    argv = find(name)
    if argv is None:
        return AnalyzerCheck(name=name, ready=False, detail=f"not installed ({INSTALL[name]})")
    try:
        code, out, err = run([*argv, "--version"], root, VERSION_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return AnalyzerCheck(name=name, ready=False, detail=f"`{name} --version` failed: {exc}")
    said = next(iter((out or err).decode("utf-8", "replace").strip().splitlines()), "")
    if code != 0:
        detail = f"`{name} --version` exited {code}" + (f": {said}" if said else "")
        return AnalyzerCheck(name=name, ready=False, detail=detail)
    version = said if said.lower().startswith(name) else f"{name} {said}".strip()
    return AnalyzerCheck(name=name, ready=True, detail=version)


def sarif_check(spec: SarifSettings, root: Path) -> AnalyzerCheck:
    """A SARIF file: there and readable as SARIF 2.1.0 (what it holds, in a few words), or
    the problem a review would note (not written yet, not SARIF, too large)."""
    path = Path(spec.path) if Path(spec.path).is_absolute() else root / spec.path
    try:
        runs = read_sarif(read_bounded(path, spec.path), shown=spec.path, root=str(root.resolve()))
    except AnalyzerOutputError as exc:
        name = spec.name or tool_slug(Path(spec.path).stem)
        return AnalyzerCheck(name=name, ready=False, detail=" ".join(exc.message.split()))
    tools = sorted({run.tool for run in runs}) or ["no run"]
    name = spec.name or tool_slug(tools[0])
    found = sum(len(run.results) for run in runs)
    detail = f"{spec.path}: {found} result{'' if found == 1 else 's'} from {', '.join(tools)}"
    return AnalyzerCheck(name=name, ready=True, detail=detail)
