"""Messages in the host's words: a pull request and GitHub's permissions on GitHub, a merge
request and GitLab's roles on GitLab (`HostWords`, model/host.py). Who may run a command
stays one rule; only what the answers, the summary and the help say changes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from consensus.app.talk.builtins import BUILTINS
from consensus.model.host import GITHUB_WORDS, GITLAB_WORDS, HostWords
from consensus.publish.answers import denied_section, help_section, workflows_section
from consensus.publish.spend import Spent, spend_text
from consensus.publish.state import Pause, PublishState
from consensus.publish.state_section import new_summary

ROOT = Path(__file__).resolve().parents[2]
SPECS = {name: command.spec for name, command in BUILTINS.load().items()}


@pytest.mark.parametrize(
    ("words", "permission", "needs", "yours"),
    [
        (GITHUB_WORDS, "triage", "needs write, maintain or admin permission", "triage"),
        (GITHUB_WORDS, "none", "needs write, maintain or admin permission", "none"),
        (GITLAB_WORDS, "triage", "needs the Developer role or higher", "Reporter"),
        (GITLAB_WORDS, "read", "needs the Developer role or higher", "Guest"),
        (GITLAB_WORDS, "none", "needs the Developer role or higher", "none"),
        (GITLAB_WORDS, "unknown", "needs the Developer role or higher", "none"),
    ],
)
def test_a_refusal_names_the_role_as_the_host_names_it(
    words: HostWords, permission: str, needs: str, yours: str
) -> None:
    body = denied_section(SPECS["review"], "rita", permission, words).body
    assert f"`/consensus review` {needs} (yours: {yours})" in body


def test_on_gitlab_a_refusal_says_nothing_of_github_s_permissions() -> None:
    body = denied_section(SPECS["dismiss"], "rita", "triage", GITLAB_WORDS).body
    assert "triage" not in body and "permission" not in body and "admin" not in body


@pytest.mark.parametrize(
    ("words", "who", "head", "whole"),
    [
        (GITHUB_WORDS, "| write, maintain or admin |", "on the PR head", "whole pull request"),
        (GITLAB_WORDS, "| Developer or higher |", "on the MR head", "whole merge request"),
    ],
)
def test_help_says_who_may_run_a_command_and_names_the_change_as_the_host_does(
    words: HostWords, who: str, head: str, whole: str
) -> None:
    table = help_section(SPECS, words=words).body
    assert who in table and head in table
    topic = help_section(SPECS, words=words, topic=SPECS["review"]).body
    assert whole in topic
    assert f"Who may run it: {words.writers}." in topic


def test_help_on_gitlab_keeps_names_that_are_names() -> None:
    table = help_section(SPECS, words=GITLAB_WORDS).body
    assert "agent-PR queue" in table  # a feature's name, and GitHub's only
    assert re.search(r"(?<![\w-])PRs?\b|pull request", table) is None


def test_a_saved_workflow_s_own_words_are_never_rewritten() -> None:
    saved = SPECS["review"].model_validate(
        {**dict(SPECS["review"]), "name": "pr-audit", "summary": "Audit the PR's money paths"}
    )
    body = help_section(SPECS, words=GITLAB_WORDS, topic=saved).body
    assert "Audit the PR's money paths" in body
    listed = workflows_section([saved], {}, words=GITLAB_WORDS).body
    assert "Running one needs the Developer role or higher" in listed


@pytest.mark.parametrize(
    ("words", "page", "spent"),
    [
        (GITHUB_WORDS, "No review has been published on this PR yet.", "on this PR over 2 runs"),
        (GITLAB_WORDS, "No review has been published on this MR yet.", "on this MR over 2 runs"),
    ],
)
def test_the_summary_names_the_change_as_the_host_does(
    words: HostWords, page: str, spent: str
) -> None:
    paused = PublishState(paused=Pause(by="maria"))
    body = new_summary(paused, words)
    assert body.split("\n")[1] == "## consensus review" and page in body
    assert f"Automatic reviews are **paused** on this {words.short} " in body
    assert spent in spend_text(Spent(cost_usd=0.5, tokens=9_000, runs=2), words)


@pytest.mark.parametrize(
    ("words", "ref", "role"),
    [(GITHUB_WORDS, "PR #4", "triage"), (GITLAB_WORDS, "MR !4", "Reporter")],
)
def test_a_change_and_a_role_by_their_host_s_names(words: HostWords, ref: str, role: str) -> None:
    assert words.ref(4) == ref and words.role("triage") == role


def test_our_own_text_is_said_in_the_host_s_words_but_not_inside_names() -> None:
    said = GITLAB_WORDS.in_our_text("Run it on this PR; later PRs, pull requests; per-PR caps")
    assert said == "Run it on this MR; later MRs, merge requests; per-PR caps"
    assert GITHUB_WORDS.in_our_text("this PR") == "this PR"


def test_a_vocabulary_names_every_permission_level() -> None:
    with pytest.raises(ValidationError, match=r"roles\.triage\n  Field required"):
        HostWords.model_validate(
            {
                **GITLAB_WORDS.model_dump(),
                "roles": {"admin": "Owner", "maintain": "Maintainer", "write": "Developer"},
            }
        )


# What a message may not hard-code: GitHub's words for the change and its permissions. The
# one place they stay is a GitHub-only line: an `issue_comment` event on a plain issue.
HOST_WORDS = re.compile(r"pull request|triage|(?<![\w-])PRs?\b|write, maintain or admin")
GITHUB_ONLY = {("consensus/app/talk/commands.py", "not a pull request")}


def literals(path: Path) -> list[tuple[int, str]]:
    """The module's string literals (f-strings' parts too), without its docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


def test_no_message_module_hard_codes_github_s_words() -> None:
    found = []
    for folder in ("consensus/publish", "consensus/app/talk"):
        for path in sorted((ROOT / folder).glob("*.py")):
            name = str(path.relative_to(ROOT))
            for line, text in literals(path):
                match = HOST_WORDS.search(text)
                if match and not any(n == name and s in text for n, s in GITHUB_ONLY):
                    found.append(f"{name}:{line}: {match.group(0)!r} in {text[:60]!r}")
    assert found == [], "say it in the host's words (HostWords, model/host.py)"
