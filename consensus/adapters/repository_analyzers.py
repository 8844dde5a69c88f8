"""The static analyzers of a review (the `Analyzers` port): the built-in runners on the
head's files and the SARIF files an earlier CI step wrote, each filtered to the change.

- **ruff**, on the change's Python files: the head's and the base's versions are written
  to two scratch folders beside the repository's root ruff configuration (`ruff.toml`,
  `.ruff.toml`, `pyproject.toml`, the head's, for both sides: the same rules judge old and
  new), ruff checks each once, and a result the base had (same rule, same code) is not new.
- **semgrep**, on the change's Python files at the head, with the ruleset consensus pins
  (semgrep_rules.yml beside this module: offline, the same rules on every run).
- **SARIF files**, read from the checkout (ingest/sarif_results.py), each tool one analyzer.

Nothing here stops a review: a tool that is not installed, a change without a file in its
languages, a fork's head (whose code is not run: the configuration's analyzers are refused
there, a SARIF file is read), a tool that fails or times out, a SARIF file that is missing,
malformed or too big: each is a run with a `note` and no results, and the summary says it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from consensus.errors import AnalyzerOutputError
from consensus.ingest.analyzer_filter import BaseResults, filter_to_change
from consensus.ingest.linguist import language_of
from consensus.ingest.sarif_results import (
    MAX_SARIF_BYTES,
    Observed,
    known_to,
    read_sarif,
    tool_slug,
)
from consensus.ingest.tool_output import ruff_results, semgrep_results
from consensus.model.analysis import AnalyzerResult, AnalyzerRun, FilterMode
from consensus.model.base import FileStatus
from consensus.model.diff import ChangedFile, ReviewDiff
from consensus.ports import SourceReader
from consensus.settings.analyzer_sources import AnalyzerSettings, SarifSettings
from consensus.settings.config import Settings

RUFF_CONFIGS = ("ruff.toml", ".ruff.toml", "pyproject.toml")  # ruff's own order
SEMGREP_RULES = Path(__file__).with_name("semgrep_rules.yml")
TIMEOUT_S = 300.0  # one tool's run on one side; past it the run is a note
INSTALL = {
    "ruff": "pip install 'consensus-review[analyzers]'",
    "semgrep": "pip install semgrep",
}
FORK = (
    "not run on a fork's head (its code is untrusted); a SARIF file an earlier step wrote is read"
)

# (argv, cwd, timeout) → (exit code, stdout, stderr); tests pass a recording runner.
Runner = Callable[[Sequence[str], Path, float], tuple[int, bytes, bytes]]


def run_tool(argv: Sequence[str], cwd: Path, timeout: float) -> tuple[int, bytes, bytes]:
    done = subprocess.run(list(argv), cwd=cwd, capture_output=True, timeout=timeout, check=False)
    return done.returncode, done.stdout, done.stderr


@cache
def semgrep_rule_ids() -> tuple[str, ...]:
    """The ids of the pinned ruleset's rules, as semgrep_rules.yml writes them."""
    rules = yaml.safe_load(SEMGREP_RULES.read_text(encoding="utf-8"))["rules"]
    return tuple(str(rule["id"]) for rule in rules)


def find_tool(name: str) -> tuple[str, ...] | None:
    """How to start `name`: (ruff) the module installed beside consensus, the version
    constraints.txt pins, else its executable on PATH; None when it is not installed."""
    if name == "ruff" and importlib.util.find_spec("ruff") is not None:
        return (sys.executable, "-m", "ruff")
    found = shutil.which(name)
    return (found,) if found else None


def repository_analyzers(
    settings: Settings,
    root: Path,
    head: SourceReader | None,
    base: SourceReader | None,
    trusted_head: bool = True,
) -> RepositoryAnalyzers | None:
    """The analyzers and SARIF files `settings` name, run on `head` (diffed against
    `base`) and read from `root`; None when it names none. `trusted_head` False (a fork's
    head): the configured analyzers are refused with a note, the SARIF files are read."""
    if not settings.analyzers and not settings.sarif:
        return None
    return RepositoryAnalyzers(
        settings.analyzers, settings.sarif, root, head, base, trusted_head=trusted_head
    )


@dataclass(frozen=True)
class RepositoryAnalyzers:
    """The configured analyzers of one review. `root`: the checkout (SARIF paths and their
    `file://` URIs are read against it); `head`, `base`: the two sides' files (`base` None:
    nothing is compared with the base); `trusted_head`: False for a fork's head, whose code
    no configured analyzer runs on."""

    analyzers: tuple[AnalyzerSettings, ...]
    sarif: tuple[SarifSettings, ...]
    root: Path
    head: SourceReader | None
    base: SourceReader | None = None
    trusted_head: bool = True
    find: Callable[[str], tuple[str, ...] | None] = find_tool
    run: Runner = run_tool
    clock: Callable[[], float] = time.monotonic
    timeout_s: float = TIMEOUT_S

    async def analyze(self, diff: ReviewDiff) -> tuple[AnalyzerRun, ...]:
        return await asyncio.to_thread(self.analyze_now, diff)

    def analyze_now(self, diff: ReviewDiff) -> tuple[AnalyzerRun, ...]:
        runs = [self._builtin(spec, diff) for spec in self.analyzers]
        for spec in self.sarif:
            runs.extend(self._sarif(spec, diff))
        return tuple(runs)

    # ------------------------------------------------------------------ the built-in runners

    def _builtin(self, spec: AnalyzerSettings, diff: ReviewDiff) -> AnalyzerRun:
        started = self.clock()

        def note(text: str) -> AnalyzerRun:
            seconds = self.clock() - started
            return AnalyzerRun(
                name=spec.name,
                covers=("Python",),
                posting=spec.post,
                filter_mode=spec.filter_mode,
                note=text,
                seconds=seconds,
            )

        if not self.trusted_head:
            return note(FORK)
        files = [f for f in diff.files if language_of(f.path) == "Python"]
        if not files:
            return note("no Python file in this change")
        command = self.find(spec.name)
        if command is None:
            return note(f"{spec.name} is not installed ({INSTALL[spec.name]})")
        if self.head is None:
            return note("the head's files cannot be read here (a diff given as a file)")
        try:
            with tempfile.TemporaryDirectory(prefix="consensus-analyzers-") as scratch:
                if spec.name == "ruff":
                    checked = self._ruff(command, files, Path(scratch))
                else:  # semgrep is slow: its base run only where base results could be kept
                    wide = spec.filter_mode in (FilterMode.DIFF_CONTEXT, FilterMode.FILE)
                    checked = self._semgrep(command, files, Path(scratch), with_base=wide)
        except (AnalyzerOutputError, OSError, subprocess.SubprocessError) as exc:
            return note(_one_line(exc))
        observed = [Observed(result=result) for result in checked.head]
        kept = filter_to_change(
            observed, diff, spec.filter_mode, head_lines=checked.head_lines, base=checked.base
        )
        return AnalyzerRun(
            name=spec.name,
            covers=("Python",),
            results=kept.results,
            posting=spec.post,
            filter_mode=spec.filter_mode,
            dropped=kept.dropped,
            seconds=self.clock() - started,
        )

    def _ruff(
        self, command: tuple[str, ...], files: Sequence[ChangedFile], scratch: Path
    ) -> _Checked:
        configs = self._configs([f.path for f in files])
        return self._sides(
            files, scratch, lambda folder, texts: self._ruff_side(command, folder, texts, configs)
        )

    def _sides(
        self,
        files: Sequence[ChangedFile],
        scratch: Path,
        run_side: Callable[[Path, dict[str, str]], tuple[AnalyzerResult, ...]],
        *,
        with_base: bool = True,
    ) -> _Checked:
        """`run_side` on the head's changed files, and (`with_base`, a base to read) on the
        base's versions of them, each side in its own scratch folder."""
        texts = _texts(self.head, [f.path for f in files])
        head = run_side(scratch / "head", texts)
        if not with_base or self.base is None:
            return _Checked(head, _lines(texts))
        old = [f.old_path or f.path for f in files if f.status is not FileStatus.ADDED]
        base_texts = _texts(self.base, old)
        base = run_side(scratch / "base", base_texts)
        return _Checked(head, _lines(texts), BaseResults(results=base, lines=_lines(base_texts)))

    def _ruff_side(
        self,
        command: tuple[str, ...],
        folder: Path,
        texts: dict[str, str],
        configs: dict[str, str],
    ) -> tuple[AnalyzerResult, ...]:
        if not texts:
            return ()
        _write(folder, {**configs, **texts})
        argv = [*command, "check", "--output-format", "json", "--exit-zero", "--no-cache"]
        argv += ["--force-exclude", "--", *sorted(texts)]
        code, out, err = self.run(argv, folder, self.timeout_s)
        if code != 0:
            raise AnalyzerOutputError(f"ruff failed (exit {code}): {_first_line(err)}")
        return ruff_results(out, root=str(folder))

    def _semgrep(
        self,
        command: tuple[str, ...],
        files: Sequence[ChangedFile],
        scratch: Path,
        *,
        with_base: bool,
    ) -> _Checked:
        """semgrep on the head's changed files; `with_base`, on the base's versions of them
        too (`diff_context` and `file` keep unchanged lines, where the base's results are)."""
        return self._sides(
            files,
            scratch,
            lambda folder, texts: self._semgrep_side(command, folder, texts),
            with_base=with_base,
        )

    def _semgrep_side(
        self, command: tuple[str, ...], folder: Path, texts: dict[str, str]
    ) -> tuple[AnalyzerResult, ...]:
        if not texts:
            return ()
        _write(folder, texts)
        argv = [*command, "scan", "--config", str(SEMGREP_RULES), "--json", "--metrics=off"]
        argv += ["--disable-version-check", "--quiet", "--", *sorted(texts)]
        code, out, err = self.run(argv, folder, self.timeout_s)
        if code not in (0, 1):  # 1: findings with --error; anything else is semgrep failing
            raise AnalyzerOutputError(f"semgrep failed (exit {code}): {_first_line(err)}")
        return semgrep_results(out, root=str(folder), rules=semgrep_rule_ids())

    def _configs(self, paths: Sequence[str]) -> dict[str, str]:
        """The repository's ruff configuration files, from the head: at the root and in
        every folder above a changed file (a monorepo's package keeps its own, which ruff
        finds as it would in the checkout). Without one at the root, an empty ruff.toml
        there: ruff's defaults, never a configuration of the machine it runs on."""
        found: dict[str, str] = {}
        for folder in sorted({""} | {d for path in paths for d in _folders_above(path)}):
            for name in RUFF_CONFIGS:
                where = f"{folder}/{name}" if folder else name
                text = self.head.read(where) if self.head is not None else None
                if text is not None:
                    found[where] = text
        root = [name for name in RUFF_CONFIGS if name in found]
        if root in ([], ["pyproject.toml"]) and "[tool.ruff" not in found.get("pyproject.toml", ""):
            found["ruff.toml"] = ""  # a pyproject.toml without [tool.ruff] is not ruff's
        return found

    # ------------------------------------------------------------------ SARIF files

    def _sarif(self, spec: SarifSettings, diff: ReviewDiff) -> list[AnalyzerRun]:
        started = self.clock()
        path = Path(spec.path) if Path(spec.path).is_absolute() else self.root / spec.path
        fallback = spec.name or tool_slug(Path(spec.path).stem)
        root = self.root.resolve().as_posix()
        try:
            sarif_runs = read_sarif(read_bounded(path, spec.path), shown=spec.path, root=root)
        except AnalyzerOutputError as exc:
            return [
                AnalyzerRun(
                    name=fallback,
                    covers=(),
                    posting=spec.post,
                    filter_mode=spec.filter_mode,
                    note=_one_line(exc),
                    seconds=self.clock() - started,
                )
            ]
        baseline, problem = self._baseline(spec, root)
        by_name: dict[str, tuple[list[Observed], list[tuple[str, int]]]] = {}
        for sarif_run in sarif_runs:
            name = spec.name or tool_slug(sarif_run.tool)
            observed, skipped = by_name.setdefault(name, ([], []))
            observed.extend(sarif_run.results)
            skipped.extend(sarif_run.skipped)
        runs = []
        for name, (observed, skipped) in by_name.items():
            observed = known_to(observed, baseline.get(name, ()))
            kept = filter_to_change(observed, diff, spec.filter_mode)
            languages = {language_of(o.result.path) for o in observed} - {None}
            runs.append(
                AnalyzerRun(
                    name=name,
                    covers=tuple(sorted(str(language) for language in languages)),
                    results=kept.results,
                    posting=spec.post,
                    filter_mode=spec.filter_mode,
                    dropped=_summed([*kept.dropped, *skipped]),
                    note=problem,
                    seconds=self.clock() - started,
                )
            )
        return runs

    def _baseline(
        self, spec: SarifSettings, root: str
    ) -> tuple[dict[str, list[Observed]], str | None]:
        """The base's results by analyzer name, from `spec.baseline`; a baseline that does
        not read is a note, and every result counts as new."""
        if spec.baseline is None:
            return {}, None
        given = Path(spec.baseline)
        path = given if given.is_absolute() else self.root / spec.baseline
        try:
            runs = read_sarif(read_bounded(path, spec.baseline), shown=spec.baseline, root=root)
        except AnalyzerOutputError as exc:
            return {}, f"{_one_line(exc)}: every result counts as new"
        found: dict[str, list[Observed]] = {}
        for run in runs:
            found.setdefault(spec.name or tool_slug(run.tool), []).extend(run.results)
        return found, None


@dataclass(frozen=True)
class _Checked:
    """What a tool reported on the head's files (their lines beside), and on the base's
    where it ran there too."""

    head: tuple[AnalyzerResult, ...]
    head_lines: dict[str, tuple[str, ...]]
    base: BaseResults | None = None


def read_bounded(path: Path, shown: str) -> bytes:
    """The file's bytes, refused unread past MAX_SARIF_BYTES."""
    try:
        size = path.stat().st_size
        if size > MAX_SARIF_BYTES:
            problem = f"is {size:,} bytes, more than the {MAX_SARIF_BYTES:,} bytes read"
            raise AnalyzerOutputError(f"SARIF file {shown} {problem}")
        return path.read_bytes()
    except FileNotFoundError:
        raise AnalyzerOutputError(
            f"SARIF file {shown}: no such file (the step that writes it runs before consensus)"
        ) from None
    except OSError as exc:
        raise AnalyzerOutputError(f"SARIF file {shown} cannot be read: {exc.strerror}") from None


def _folders_above(path: str) -> list[str]:
    """`a/b/c.py` → `a`, `a/b`: the folders whose configuration applies to it."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[: n + 1]) for n in range(len(parts))]


def _texts(reader: SourceReader | None, paths: Sequence[str]) -> dict[str, str]:
    if reader is None:
        return {}
    found = {path: reader.read(path) for path in paths}
    return {path: text for path, text in found.items() if text is not None}


def _lines(texts: dict[str, str]) -> dict[str, tuple[str, ...]]:
    return {path: tuple(text.splitlines()) for path, text in texts.items()}


def _write(folder: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = folder / path
        if path.startswith("/") or ".." in Path(path).parts:
            continue  # never written outside the scratch folder
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _summed(counts: Sequence[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    total: dict[str, int] = {}
    for reason, count in counts:
        total[reason] = total.get(reason, 0) + count
    return tuple(sorted(total.items()))


def _first_line(err: bytes) -> str:
    lines = [line.strip() for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[0][:300] if lines else "no message"


def _one_line(exc: Exception) -> str:
    text = exc.message if isinstance(exc, AnalyzerOutputError) else str(exc)
    return " ".join(text.split())[:500]
