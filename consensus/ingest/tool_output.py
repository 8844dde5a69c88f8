"""What the built-in analyzers print → their results. Pure: the tool's JSON in, results
out, each path relative to the folder the tool ran in.

- ruff: `ruff check --output-format json`, a list of diagnostics (`code`, `message`,
  `filename`, `location.row`, `end_location.row`, `url`). ruff gives no severity of its
  own, so the rule's family gives one: a syntax error or an undefined name breaks the
  program (high), bugbear's and bandit's rules likely bugs (medium), unused code low,
  style info.
- semgrep: `semgrep scan --json`, `results` with `check_id`, `path`, `start.line`,
  `end.line`, `extra.message` and `extra.severity` (ERROR, WARNING, INFO).

A tool's output is untrusted like a SARIF file: not JSON, or not the shape above, is an
`AnalyzerOutputError` naming the tool; an entry that cannot be placed is left out.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

from consensus.errors import AnalyzerOutputError
from consensus.ingest.sarif_results import MAX_FIELD, MAX_SARIF_BYTES, MAX_SARIF_RESULTS
from consensus.model.analysis import AnalyzerResult
from consensus.model.base import Severity

# ruff's rule codes by the severity of what they find; the first pattern that matches decides.
_RUFF_SEVERITY: tuple[tuple[str, Severity], ...] = (
    (r"^(F401|F841|F811)$", Severity.LOW),  # unused imports and names, redefinitions
    (r"^(invalid-syntax|E9\d\d|F82\d|F63\d|F7\d\d|PLE\d+)$", Severity.HIGH),
    (r"^(B\d+|S\d+|F\d+|PLW\d+|RUF\d+|ASYNC\d+)$", Severity.MEDIUM),
    (r"^(ARG\d+|ERA\d+)$", Severity.LOW),
)
_SEMGREP_SEVERITY = {
    "CRITICAL": Severity.CRITICAL,
    "ERROR": Severity.HIGH,
    "HIGH": Severity.HIGH,
    "WARNING": Severity.MEDIUM,
    "MEDIUM": Severity.MEDIUM,
    "INFO": Severity.LOW,
    "LOW": Severity.LOW,
}


def ruff_severity(code: str) -> Severity:
    """How bad what a ruff rule finds is, by the rule's family."""
    for pattern, severity in _RUFF_SEVERITY:
        if re.match(pattern, code):
            return severity
    return Severity.INFO


def ruff_results(data: bytes, *, root: str) -> tuple[AnalyzerResult, ...]:
    """ruff's JSON diagnostics, their paths relative to `root` (where ruff ran)."""
    entries = _json(data, "ruff")
    if not isinstance(entries, list):
        raise _error("ruff", "printed JSON that is not a list of diagnostics")
    results = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        code = _text(entry.get("code")) or "invalid-syntax"
        line = _row(entry.get("location"))
        path = _relative(_text(entry.get("filename")), root)
        if line is None or path is None:
            continue
        end = _row(entry.get("end_location")) or line
        url = _text(entry.get("url")) or f"https://docs.astral.sh/ruff/rules/#{code}"
        results.append(
            AnalyzerResult(
                rule=code[:MAX_FIELD],
                path=path,
                line=line,
                end_line=max(line, end),
                message=_text(entry.get("message"))[:MAX_FIELD] or code,
                severity=ruff_severity(code),
                help_uri=url[:MAX_FIELD],
            )
        )
    return tuple(results)


def semgrep_results(
    data: bytes, *, root: str, rules: tuple[str, ...] = ()
) -> tuple[AnalyzerResult, ...]:
    """semgrep's JSON results, their paths relative to `root` (where semgrep ran). semgrep
    prefixes a rule's id with its configuration file's folder (`work.ci.python.eval`):
    an id ending in one of `rules` is given as that rule's."""
    output = _json(data, "semgrep")
    if not isinstance(output, dict) or not isinstance(output.get("results"), list):
        raise _error("semgrep", "printed JSON without a `results` list")
    results = []
    for entry in output["results"]:
        if not isinstance(entry, dict):
            continue
        extra = _dict(entry.get("extra"))
        line = _row(entry.get("start"), key="line")
        path = _relative(_text(entry.get("path")), root)
        rule = _rule_id(_text(entry.get("check_id")), rules)
        if line is None or path is None or not rule:
            continue
        end = _row(entry.get("end"), key="line") or line
        metadata = _dict(extra.get("metadata"))
        source = _text(metadata.get("source")) or None
        results.append(
            AnalyzerResult(
                rule=rule[:MAX_FIELD],
                path=path,
                line=line,
                end_line=max(line, end),
                message=" ".join(_text(extra.get("message")).split())[:MAX_FIELD] or rule,
                severity=_SEMGREP_SEVERITY.get(_text(extra.get("severity")), Severity.MEDIUM),
                help_uri=source[:MAX_FIELD] if source else None,
            )
        )
    return tuple(results)


def _rule_id(check_id: str, rules: tuple[str, ...]) -> str:
    return next((rule for rule in rules if check_id.endswith(f".{rule}")), check_id)


def _json(data: bytes, tool: str) -> Any:
    if len(data) > MAX_SARIF_BYTES:
        raise _error(
            tool, f"printed {len(data):,} bytes, more than the {MAX_SARIF_BYTES:,} bytes read"
        )
    try:
        parsed = json.loads(data.decode("utf-8", "replace") or "null")
    except json.JSONDecodeError as exc:
        raise _error(tool, f"printed something that is not JSON ({exc.msg})") from None
    results = parsed.get("results") if isinstance(parsed, dict) else parsed
    if isinstance(results, list) and len(results) > MAX_SARIF_RESULTS:
        raise _error(tool, f"reported {len(results):,} results, more than {MAX_SARIF_RESULTS:,}")
    return parsed


def _error(tool: str, problem: str) -> AnalyzerOutputError:
    return AnalyzerOutputError(f"{tool} {problem}", fix=f"run {tool} by hand to see why")


def _row(location: Any, *, key: str = "row") -> int | None:
    value = location.get(key) if isinstance(location, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _relative(path: str, root: str) -> str | None:
    """A tool's path (absolute, or relative to where it ran) from `root`; None outside it."""
    if not path:
        return None
    root = root.rstrip("/")
    if path.startswith("/"):
        if not path.startswith(root + "/"):
            return None
        path = path[len(root) + 1 :]
    path = posixpath.normpath(path)
    return None if path.startswith("../") or path in ("..", ".") else path


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
