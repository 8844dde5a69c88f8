"""What a review covers: which pull requests are skipped (`ignore`), which files are
reviewed (`paths`/`exclude`, checked here, matched in ingest/pathfilter.py), and the
repository guidelines and path instructions reviewers are given (`context`,
`path_instructions`, read in review/guidelines.py). Part of the frozen Settings."""

from __future__ import annotations

import re
from collections.abc import Collection

from pathspec.patterns.gitignore import GitIgnorePatternError
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern
from pydantic import Field, field_validator

from consensus.model.bounds import MAX_FOLDERS, MAX_LOGINS, MAX_REGEXES, Glob, Name, Regex
from consensus.settings.strict import Strict

# A GitHub login (`name[bot]` for an app), or a GitLab username (`project_7_bot_…` for a
# project's token), a leading @ allowed.
LOGIN_PATTERN = (
    r"^@?(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?"
    r"|[A-Za-z0-9_.][A-Za-z0-9_.-]{0,253}[A-Za-z0-9_-])$"
)
MAX_PATH_INSTRUCTION_CHARS = 4_000


def check_regexes(patterns: tuple[str, ...]) -> tuple[str, ...]:
    """`patterns` when each compiles as a regular expression; a ValueError naming the first
    that does not."""
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"pattern {pattern!r} is not a valid regex: {exc}") from exc
    return patterns


def github_logins(logins: tuple[str, ...], *, example: str) -> tuple[str, ...]:
    """`logins` as GitHub and GitLab write them (a leading @ dropped); a ValueError for one
    that is neither a GitHub login nor a GitLab username, with an `example` of one that is."""
    for login in logins:
        if not re.match(LOGIN_PATTERN, login):
            raise ValueError(
                f"{login!r} is not a GitHub login or a GitLab username (e.g. '{example}')"
            )
    return tuple(login.lstrip("@") for login in logins)


DEPENDENCY_BOTS = ("dependabot[bot]", "renovate[bot]")


class IgnoreSettings(Strict):
    """Pull requests that are not reviewed automatically (one log line, a neutral exit).

    `authors`: logins (`dependabot[bot]`); `labels`: label names, compared exactly;
    `title`: regular expressions searched in the title (`^WIP\\b`), case-sensitive unless
    the pattern says `(?i)`. Any one match skips the PR. A `/consensus review` asked for
    by a maintainer still runs.
    """

    authors: tuple[Name, ...] = Field(default=(), max_length=MAX_LOGINS)
    """GitHub logins whose pull requests are not reviewed, e.g. dependabot[bot]."""
    labels: tuple[Name, ...] = Field(default=(), max_length=MAX_LOGINS)
    """Label names (exact) that skip a pull request."""
    title: tuple[Regex, ...] = Field(default=(), max_length=MAX_REGEXES)
    """Regular expressions searched in the title, e.g. ^WIP\b."""

    @field_validator("authors")
    @classmethod
    def _author_logins(cls, logins: tuple[str, ...]) -> tuple[str, ...]:
        return github_logins(logins, example="dependabot[bot]")

    @field_validator("title")
    @classmethod
    def _title_patterns(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        return check_regexes(patterns)

    def reason(self, *, author: str, labels: Collection[str], title: str) -> str | None:
        """Why a PR with this author, these labels and this title is skipped; None: it is not."""
        lowered = author.lower()
        for login in self.authors:
            if login.lower() == lowered:
                return f"its author {author} is in ignore.authors"
        for label in self.labels:
            if label in labels:
                return f"it has the label {label!r} (ignore.labels)"
        for pattern in self.title:
            if re.search(pattern, title):
                return f"its title matches {pattern!r} (ignore.title)"
        return None


GUIDELINE_FILES = (
    "AGENTS.md",
    "CLAUDE.md",
    ".github/copilot-instructions.md",
    "CONTRIBUTING.md",
    ".consensus/instructions.md",
)


class ContextSettings(Strict):
    """The repository's own guidelines, given to every reviewer after the diff.

    `guidelines`: files read from the BASE branch, in this order (a file that is not there
    is skipped); `max_chars`: their total size in the prompt, after redaction (0: none). A
    file that does not fit is cut, and the report says so.
    """

    guidelines: tuple[Glob, ...] = Field(default=GUIDELINE_FILES, max_length=MAX_FOLDERS)
    """Files read from the base branch, in this order, and given to every reviewer."""
    max_chars: int = Field(default=20_000, ge=0, le=200_000)
    """Their total size in every prompt, after redaction (0: none)."""

    @field_validator("guidelines")
    @classmethod
    def _relative_paths(cls, paths: tuple[str, ...]) -> tuple[str, ...]:
        for path in paths:
            parts = path.split("/")
            if not path or path.startswith("/") or ".." in parts or "" in parts:
                raise ValueError(f"{path!r} is not a file path relative to the repository root")
        return paths


def check_path_patterns(patterns: tuple[str, ...]) -> tuple[str, ...]:
    """Each pattern a .gitignore pattern that can match something."""
    for pattern in patterns:
        try:
            compiled = GitIgnoreSpecPattern(pattern)
        except GitIgnorePatternError as exc:
            raise ValueError(f"{pattern!r} is not a .gitignore pattern: {exc}") from exc
        if compiled.include is None:
            raise ValueError(
                f"{pattern!r} matches nothing (empty, a '#' comment, or an unclosed '[')"
            )
    return patterns


def check_path_instructions(instructions: dict[str, str]) -> dict[str, str]:
    """.gitignore pattern → instructions, each short enough to repeat in every prompt."""
    check_path_patterns(tuple(instructions))
    for pattern, text in instructions.items():
        if pattern.startswith("!"):
            raise ValueError(f"{pattern!r}: a '!' pattern on its own matches nothing")
        if not text.strip():
            raise ValueError(f"the instructions for {pattern!r} are empty")
        if len(text) > MAX_PATH_INSTRUCTION_CHARS:
            raise ValueError(
                f"the instructions for {pattern!r} are over {MAX_PATH_INSTRUCTION_CHARS} "
                "characters: put long guidance in .consensus/instructions.md"
            )
    return instructions


class ConversationSettings(Strict):
    """Replies to our inline comments. `max_answers`: our answers in one PR's threads at most
    (each costs at most one model call; a "fixed" check, a verification's calls)."""

    enabled: bool = True
    """Answer people's replies in consensus's threads."""
    max_answers: int = Field(default=5, ge=0, le=100)
    """consensus's answers on one pull request at most."""
    model: str | None = Field(default=None, min_length=1, max_length=200)  # who answers
    """Who answers (default: the first provider with a key)."""
