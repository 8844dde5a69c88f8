"""A SARIF 2.1.0 file an earlier CI step wrote (CodeQL, eslint's SARIF formatter, semgrep,
anything) → the results it holds, each at a path of the checkout. Pure: bytes in, data out.

The file is untrusted input like a model's reply. It is bounded before it is parsed
(MAX_SARIF_BYTES) and by its results (MAX_SARIF_RESULTS); a file that is not JSON, not
SARIF 2.1.0, or too big is an `AnalyzerOutputError` naming the file and the problem, and the
review goes on without it. Within a well-formed file a result that cannot be placed (no
location, a path outside the checkout, no line) or is not a failure (`kind` other than
`fail`, a suppression) is left out and counted by reason, never silently.

What is read of a result (SARIF 2.1.0, OASIS, §3.27): `ruleId` (else the rule its
`ruleIndex` names), `level` (else the rule's `defaultConfiguration.level`, else
`warning`), `message.text` (else the rule's message string `message.id` names, else its
short description), the first location's `physicalLocation`: `artifactLocation.uri` made
relative to the checkout through `uriBaseId` and the run's `originalUriBaseIds` (or the
run's `artifacts[index]`), `region.startLine`/`endLine`; `partialFingerprints` and
`baselineState` ("unchanged" and "absent": not new, ingest/analyzer_filter.py). Where the
same tool's SARIF of the base is given too, a result it also holds is not new either
(`known_to`: by partial fingerprint).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from consensus.errors import AnalyzerOutputError
from consensus.model.analysis import AnalyzerResult
from consensus.model.base import Frozen, Severity

MAX_SARIF_BYTES = 20_000_000  # CodeQL's full run on a large repository stays well under
MAX_SARIF_RESULTS = 10_000  # results in one file: more is a configuration to fix, not a review
MAX_FIELD = 2_000  # characters kept of a message, a rule id, a fingerprint

Baseline = Literal["new", "unchanged", "updated", "absent"]
LEVELS = {
    "error": Severity.HIGH,
    "warning": Severity.MEDIUM,
    "note": Severity.LOW,
    "none": Severity.INFO,
}


class Observed(Frozen):
    """A result as its source reported it, before it is filtered to the change; `baseline`:
    SARIF's baselineState, where the file gives one."""

    result: AnalyzerResult
    baseline: Baseline | None = None


class SarifRun(Frozen):
    """One run of a SARIF file: its tool's name, its placed results, and how many were
    left out, by reason ("no location": 3)."""

    tool: str
    results: tuple[Observed, ...] = ()
    skipped: tuple[tuple[str, int], ...] = ()


def read_sarif(data: bytes, *, shown: str, root: str = "") -> tuple[SarifRun, ...]:
    """The runs of the SARIF file `shown` (its name in errors). `root`: the checkout's
    absolute path, for `file://` URIs; a result outside it is left out."""
    if len(data) > MAX_SARIF_BYTES:
        raise _error(shown, f"is {len(data):,} bytes, more than the {MAX_SARIF_BYTES:,} bytes read")
    try:
        log = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise _error(shown, "is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise _error(shown, f"is not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(log, dict):
        raise _error(shown, "is not a SARIF log (its top level is not an object)")
    version = log.get("version")
    if version != "2.1.0":
        raise _error(shown, f"is SARIF version {version!r}; consensus reads 2.1.0")
    runs = log.get("runs")
    if not isinstance(runs, list) or not all(isinstance(run, dict) for run in runs):
        raise _error(shown, "has no `runs` list of objects")
    total = sum(len(r["results"]) for r in runs if isinstance(r.get("results"), list))
    if total > MAX_SARIF_RESULTS:
        raise _error(shown, f"holds {total:,} results, more than the {MAX_SARIF_RESULTS:,} read")
    return tuple(_run(run, root.rstrip("/")) for run in runs)


def known_to(observed: Sequence[Observed], baseline: Sequence[Observed]) -> list[Observed]:
    """`observed` with each result the baseline run also had marked `unchanged`: the same
    rule and partial fingerprint (CodeQL's `primaryLocationLineHash` follows the code, not
    its line number), or, for a result without one, the same rule, path and message. One
    baseline result accounts for one result."""
    known: Counter[tuple[str, ...]] = Counter(_identity(o) for o in baseline)
    marked = []
    for item in observed:
        key = _identity(item)
        if item.baseline is None and known[key] > 0:
            known[key] -= 1
            item = item.model_copy(update={"baseline": "unchanged"})
        marked.append(item)
    return marked


def _identity(item: Observed) -> tuple[str, ...]:
    result = item.result
    if result.fingerprint:
        return (result.rule, result.fingerprint)
    return (result.rule, result.path, result.message)


def tool_slug(name: str) -> str:
    """An analyzer's family name from its tool's: "CodeQL command-line toolchain" → "codeql"."""
    words = re.findall(r"[a-z0-9][a-z0-9._-]*", name.lower())
    return words[0][:50] if words else "sarif"


def _error(shown: str, problem: str) -> AnalyzerOutputError:
    return AnalyzerOutputError(
        f"SARIF file {shown} {problem}",
        fix="write the file with a SARIF 2.1.0 writer (the tool's --format sarif)",
    )


class _Skip(Exception):
    """A result left out, with the reason it is counted under."""


def _run(run: Mapping[str, Any], root: str) -> SarifRun:
    tool = _dict(run.get("tool"))
    driver = _dict(tool.get("driver"))
    name = _text(driver.get("name")) or "sarif"
    rules = [_dict(rule) for rule in _list(driver.get("rules"))]
    by_id = {_text(rule.get("id")): rule for rule in rules if _text(rule.get("id"))}
    context = _Context(root, _bases(run, root), _artifacts(run), rules, by_id)
    kept: list[Observed] = []
    skipped: Counter[str] = Counter()
    for raw in _list(run.get("results")):
        try:
            kept.append(_result(_dict(raw, strict=True), context))
        except _Skip as why:
            skipped[str(why)] += 1
    return SarifRun(tool=name, results=tuple(kept), skipped=tuple(sorted(skipped.items())))


@dataclass(frozen=True)
class _Context:
    root: str
    bases: dict[str, str | None]  # uriBaseId → its folder in the checkout ("": the root)
    artifacts: tuple[dict[str, Any], ...]
    rules: list[dict[str, Any]]
    by_id: dict[str, dict[str, Any]]


def _result(result: Mapping[str, Any], context: _Context) -> Observed:
    kind = result.get("kind", "fail")
    if kind != "fail":
        raise _Skip(f"not a failure (kind {_text(kind)[:20]})")
    suppressions = [_dict(s) for s in _list(result.get("suppressions"))]
    # "status" in the published 2.1.0, "state" in its last draft's schema
    if any(s.get("status", s.get("state", "accepted")) == "accepted" for s in suppressions):
        raise _Skip("suppressed in the source")
    rule = _rule(result, context)
    rule_id = _text(result.get("ruleId")) or _text(rule.get("id"))
    if not rule_id:
        raise _Skip("no rule id")
    locations = _list(result.get("locations"))
    if not locations:
        raise _Skip("no location")
    physical = _dict(_dict(locations[0]).get("physicalLocation"))
    path = _path(_dict(physical.get("artifactLocation")), context)
    region = _dict(physical.get("region"))
    line = region.get("startLine")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        raise _Skip("no line")
    end = region.get("endLine")
    end_line = end if isinstance(end, int) and not isinstance(end, bool) and end >= line else line
    level = result.get("level") or _dict(rule.get("defaultConfiguration")).get("level")
    baseline = result.get("baselineState")
    return Observed(
        result=AnalyzerResult(
            rule=rule_id[:MAX_FIELD],
            path=path,
            line=line,
            end_line=end_line,
            message=_message(result, rule)[:MAX_FIELD],
            severity=LEVELS.get(_text(level), Severity.MEDIUM),
            fingerprint=_fingerprint(result),
            help_uri=_text(rule.get("helpUri"))[:MAX_FIELD] or None,
        ),
        baseline=baseline if baseline in ("new", "unchanged", "updated", "absent") else None,
    )


def _rule(result: Mapping[str, Any], context: _Context) -> dict[str, Any]:
    index = result.get("ruleIndex", _dict(result.get("rule")).get("index"))
    if isinstance(index, int) and 0 <= index < len(context.rules):
        return context.rules[index]
    rule_id = _text(result.get("ruleId")) or _text(_dict(result.get("rule")).get("id"))
    return context.by_id.get(rule_id, {})


def _message(result: Mapping[str, Any], rule: Mapping[str, Any]) -> str:
    message = _dict(result.get("message"))
    text = _text(message.get("text"))
    if not text and message.get("id"):
        strings = _dict(rule.get("messageStrings"))
        text = _text(_dict(strings.get(_text(message.get("id")))).get("text"))
    if not text:
        text = _text(_dict(rule.get("shortDescription")).get("text"))
    arguments = [_text(a) for a in _list(message.get("arguments"))]
    for number, argument in enumerate(arguments):  # "{0}" placeholders, §3.11.5
        text = text.replace(f"{{{number}}}", argument)
    return " ".join(text.split())


def _fingerprint(result: Mapping[str, Any]) -> str | None:
    partial = _dict(result.get("partialFingerprints")) or _dict(result.get("fingerprints"))
    if not partial:
        return None
    key = "primaryLocationLineHash" if "primaryLocationLineHash" in partial else min(partial)
    return f"{key}={_text(partial[key])}"[:MAX_FIELD]


def _path(location: Mapping[str, Any], context: _Context) -> str:
    """The checkout-relative path of an artifact location; _Skip where it has none."""
    index = location.get("index")
    if "uri" not in location and isinstance(index, int) and 0 <= index < len(context.artifacts):
        location = _dict(context.artifacts[index].get("location"))
    uri = _text(location.get("uri"))
    if not uri:
        raise _Skip("no location")
    base = _text(location.get("uriBaseId"))
    prefix = context.bases.get(base, "") if base else ""
    path = _relative(uri, context.root)
    if path is None or prefix is None:
        raise _Skip("outside the checkout")
    joined = posixpath.normpath(posixpath.join(prefix, path)) if prefix else path
    if joined.startswith("../") or joined in ("..", ".", ""):
        raise _Skip("outside the checkout")
    return joined


def _relative(uri: str, root: str) -> str | None:
    """A URI as a path from the checkout's root; None when it points elsewhere."""
    parts = urlsplit(uri)
    if parts.scheme and parts.scheme != "file":
        return None
    path = unquote(parts.path)
    if parts.scheme == "file" or path.startswith("/"):
        if not root or not (path == root or path.startswith(root + "/")):
            return None
        path = path[len(root) :]
    path = posixpath.normpath(path.lstrip("/"))
    return None if path.startswith("../") or path == ".." else path


def _bases(run: Mapping[str, Any], root: str) -> dict[str, str | None]:
    """uriBaseId → the checkout-relative folder it names (§3.14.14), None for one outside
    the checkout (its results have no place here); an id the run does not define is the
    checkout's root, as CodeQL's %SRCROOT% is."""
    bases: dict[str, str | None] = {}
    for name, value in _dict(run.get("originalUriBaseIds")).items():
        uri = _text(_dict(value).get("uri"))
        if not uri:
            continue
        relative = _relative(uri, root)
        bases[str(name)] = None if relative is None else "" if relative == "." else relative
    return bases


def _artifacts(run: Mapping[str, Any]) -> tuple[dict[str, Any], ...]:
    return tuple(_dict(artifact) for artifact in _list(run.get("artifacts")))


def _dict(value: Any, *, strict: bool = False) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if strict:
        raise _Skip("malformed")
    return {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
