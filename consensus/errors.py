"""Errors a user can meet, each carrying its exit code and a fix.

    ConsensusError                 exit 2 unless a subclass says otherwise
    ├── UsageError                 bad flags or arguments (2)
    ├── ConfigError                .consensus.yml, persona or command file is wrong (2)
    ├── DiffError                  the diff cannot be read or obtained (2)
    ├── JournalError               the run journal cannot be used: unknown run, bad inputs (2)
    ├── AnalyzerOutputError        a SARIF file or a tool's JSON cannot be read (2)
    ├── HostError                  a request to the code host failed or was refused; .status (3)
    │   ├── GitHubError            ... to GitHub
    │   └── GitLabError            ... to GitLab
    └── ReviewImpossible           no provider answered, quorum not met, budget gone (3)

The CLI's top level catches these broadly; so do, on purpose, the slash-command loop (a
failed command is a failed section of the reply), a command's permission check (it fails
closed) and the agent-PR queue after a review (a warning). Everything else lets them travel.
"""

from __future__ import annotations


class ConsensusError(Exception):
    """Base class: a message for the user, an optional fix, and an exit code."""

    exit_code = 2

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.message}\n  fix: {self.fix}" if self.fix else self.message


class UsageError(ConsensusError):
    """The command line asks for something that cannot be done."""


class ConfigError(ConsensusError):
    """A configuration, persona or command file is invalid; names the file and key."""

    def __init__(self, source: str, key: str | None, problem: str, *, fix: str | None = None):
        where = f"{source}: {key}" if key else source
        super().__init__(f"{where}: {problem}", fix=fix)
        self.source = source
        self.key = key
        self.problem = problem


class DiffError(ConsensusError):
    """The diff could not be obtained or parsed."""


class ReviewImpossible(ConsensusError):
    """No review could be made: no provider answered, or the budget ran out first."""

    exit_code = 3


class JournalError(ConsensusError):
    """The journal cannot be used (unknown run, unreadable inputs)."""


class AnalyzerOutputError(ConsensusError):
    """An analyzer's output cannot be read: names the file (or tool) and the problem. A
    review never stops on one: the analyzer's run carries it as its note and the review goes
    on without it."""


class HostError(ConsensusError):
    """A request to the code host failed after retries, or was refused (token, permission).

    `status` is the HTTP status the host answered with, or None when it did not answer;
    callers decide on it, never on the message's text.
    """

    exit_code = 3

    def __init__(self, message: str, *, status: int | None = None, fix: str | None = None):
        super().__init__(message, fix=fix)
        self.status = status


class GitHubError(HostError):
    """A GitHub request failed after retries, or was refused."""


class GitLabError(HostError):
    """A GitLab request failed after retries, or was refused."""
