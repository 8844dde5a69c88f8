"""`.consensus.yml`'s static analyzers: the built-in ones a review runs on the head
(`analyzers:`) and the SARIF files an earlier CI step wrote (`sarif:`).

    analyzers:
      - ruff                        # the defaults: post with a model's agreement, added lines
      - name: semgrep
        post: alone
    sarif:
      - path: codeql-results/python.sarif
        name: codeql
        filter_mode: diff_context
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from consensus.model.analysis import FilterMode, Posting
from consensus.model.bounds import MAX_ANALYZERS, MAX_SARIF_FILES, Glob, Name
from consensus.settings.strict import Strict

BUILTIN = ("ruff", "semgrep")
AnalyzerName = Literal["ruff", "semgrep"]


class AnalyzerSettings(Strict):
    """A built-in analyzer the review runs on the head checkout (where the tool is installed
    and the change has files in its languages): `ruff` (Python; the repository's own ruff
    configuration, run on the base too, so only new results count) or `semgrep` (Python,
    with the ruleset consensus pins)."""

    name: AnalyzerName
    """The analyzer: ruff or semgrep."""
    post: Posting = Posting.WITH_MODELS
    """with_models: a result is posted only where a model family reports the same problem;
    alone: it is posted on its own too."""
    filter_mode: FilterMode = FilterMode.ADDED
    """Which results are kept: added (on lines the pull request added), diff_context (in the
    diff's hunks), file (anywhere in a changed file), nofilter (those too that were already on
    the base)."""

    @model_validator(mode="before")
    @classmethod
    def _by_name(cls, value: Any) -> Any:
        """`- ruff` is `- name: ruff`."""
        return {"name": value} if isinstance(value, str) else value


class SarifSettings(Strict):
    """A SARIF 2.1.0 file an earlier step of the CI job wrote (CodeQL, eslint's SARIF
    formatter, any tool): its results are one analyzer's, named by `name` or the tool."""

    path: Glob = Field(min_length=1)
    """The file: absolute, or from the repository's root (in the Action, the workspace)."""
    name: Name | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9._-]{0,49}$")
    """The analyzer's family name in the vote and the comments (default: its tool's name,
    lower case: codeql)."""
    post: Posting = Posting.WITH_MODELS
    """with_models: a result is posted only where a model family reports the same problem;
    alone: it is posted on its own too."""
    filter_mode: FilterMode = FilterMode.ADDED
    """Which results are kept: added, diff_context, file or nofilter (as for `analyzers`);
    results the file marks unchanged since its baseline are left out but for nofilter."""
    baseline: Glob | None = None
    """The same tool's SARIF file of the base commit, where a CI step wrote one: a result it
    holds too (the same rule and partial fingerprint) is not new."""

    @model_validator(mode="before")
    @classmethod
    def _by_path(cls, value: Any) -> Any:
        """`- results.sarif` is `- path: results.sarif`."""
        return {"path": value} if isinstance(value, str) else value


def unique_analyzers(analyzers: tuple[AnalyzerSettings, ...]) -> tuple[AnalyzerSettings, ...]:
    """Each analyzer once: a second entry of one name is a mistake the file should say."""
    names = [a.name for a in analyzers]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"{', '.join(twice)} is listed more than once")
    return analyzers


# `.consensus.yml`'s two lists, with their bounds (model/bounds.py).
AnalyzerList = Annotated[
    tuple[AnalyzerSettings, ...],
    Field(max_length=MAX_ANALYZERS),
    AfterValidator(unique_analyzers),
]
SarifList = Annotated[tuple[SarifSettings, ...], Field(max_length=MAX_SARIF_FILES)]
