"""`analyzers:` and `sarif:` in .consensus.yml, `--sarif` on the command line and the
Action's `analyzer-sarif` input: what they accept, what they refuse, how they layer."""

from __future__ import annotations

import pytest

from consensus.app.local_review import Flags, with_flags
from consensus.app.pull.inputs import base_settings
from consensus.errors import ConfigError, UsageError
from consensus.model.analysis import FilterMode, Posting
from consensus.model.bounds import MAX_ANALYZERS, MAX_SARIF_FILES
from consensus.ports import PullRequestInfo
from consensus.settings.action_inputs import ActionInputs
from consensus.settings.config import parse_settings
from consensus.settings.reference import settings_reference

CONFIG = """\
analyzers:
  - ruff
  - name: semgrep
    post: alone
    filter_mode: diff_context
sarif:
  - codeql.sarif
  - path: out/eslint.sarif
    name: eslint
    filter_mode: nofilter
"""


def test_names_and_paths_alone_or_with_their_options() -> None:
    settings = parse_settings(CONFIG, source=".consensus.yml")
    ruff, semgrep = settings.analyzers
    assert (ruff.name, ruff.post, ruff.filter_mode) == (
        "ruff",
        Posting.WITH_MODELS,
        FilterMode.ADDED,
    )
    assert (semgrep.post, semgrep.filter_mode) == (Posting.ALONE, FilterMode.DIFF_CONTEXT)
    codeql, eslint = settings.sarif
    assert (codeql.path, codeql.name) == ("codeql.sarif", None)
    assert (eslint.name, eslint.filter_mode) == ("eslint", FilterMode.NOFILTER)


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("analyzers: [eslint]", "analyzers.0.name", "'ruff' or 'semgrep'"),
        ("analyzers: [ruff, ruff]", "analyzers", "ruff is listed more than once"),
        ("analyzers: [{name: ruff, post: sometimes}]", "analyzers.0.post", "with_models"),
        ("analyzers: [{name: ruff, filter_mode: lines}]", "analyzers.0.filter_mode", "added"),
        ("sarif: [{path: a.sarif, name: Code QL}]", "sarif.0.name", "is not written the way"),
        ("sarif: [{name: codeql}]", "sarif.0.path", "is missing"),
        (f"analyzers: {['ruff'] * (MAX_ANALYZERS + 1)}", "analyzers", "at most 8"),
        (f"sarif: {[f'{n}.sarif' for n in range(MAX_SARIF_FILES + 1)]}", "sarif", "at most 16"),
    ],
)
def test_a_wrong_entry_names_the_file_and_the_key(text: str, key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_settings(text, source=".consensus.yml")
    assert raised.value.key == key
    assert problem in raised.value.problem


def test_the_configuration_reference_documents_both() -> None:
    reference = settings_reference()
    for key in ("`analyzers`", "`sarif`"):
        assert key in reference


def test_sarif_flags_come_after_the_configurations_files() -> None:
    settings = parse_settings("sarif: [codeql.sarif]", source=".consensus.yml")
    flagged = with_flags(settings, Flags(sarif=("/tmp/eslint.sarif", "/tmp/semgrep.sarif")))
    assert [s.path for s in flagged.sarif] == [
        "codeql.sarif",
        "/tmp/eslint.sarif",
        "/tmp/semgrep.sarif",
    ]


def test_the_action_reads_its_analyzer_sarif_input_one_a_line_or_by_commas() -> None:
    env = {"CONSENSUS_ANALYZER_SARIF": "codeql.sarif\n eslint.sarif, semgrep.sarif\n\ncodeql.sarif"}
    inputs = ActionInputs.from_env(env)
    assert inputs.analyzer_sarif_paths == ("codeql.sarif", "eslint.sarif", "semgrep.sarif")
    assert ActionInputs.from_env({"CONSENSUS_SARIF": "out.sarif"}).analyzer_sarif_paths == ()


def test_the_sarif_output_input_is_not_an_analyzer() -> None:
    with pytest.raises(UsageError, match="CONSENSUS_ANALYZER_SARIF"):
        ActionInputs.from_env({"CONSENSUS_ANALYZER_SARIF": "x" * 20_001})


class BaseBranch:
    """The base commit's configuration, as the contents API serves it."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def read_file(self, path: str, sha: str) -> str | None:
        return self.files.get(path)

    def read_files(self, paths: list[str], sha: str) -> dict[str, str | None]:
        return {path: self.files.get(path) for path in paths}


def test_the_actions_sarif_files_layer_over_the_base_branchs() -> None:
    info = PullRequestInfo(number=4, head_sha="h" * 40, base_sha="b" * 40, base_repo="acme/shop")
    host = BaseBranch(
        {".consensus.yml": "analyzers: [ruff]\nsarif: [{path: a.sarif, post: alone}]\n"}
    )
    inputs = ActionInputs.from_env({"CONSENSUS_ANALYZER_SARIF": "codeql/python.sarif"})
    settings = base_settings(host, info, inputs)  # type: ignore[arg-type]
    assert [a.name for a in settings.analyzers] == ["ruff"]
    assert [(s.path, s.post) for s in settings.sarif] == [
        ("a.sarif", Posting.ALONE),
        ("codeql/python.sarif", Posting.WITH_MODELS),
    ]
