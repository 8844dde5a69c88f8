"""One pull request of `FakeGitHubHost` (consensus/testing), in memory."""

from __future__ import annotations

from dataclasses import dataclass, field

from consensus.ports import HostReview, PullFile, PullRequestInfo

BOT_LOGIN = "github-actions[bot]"


@dataclass
class FakePull:
    """One pull request: its metadata, files (with patches) and the files at each commit;
    a learnings PR also its head branch and description."""

    info: PullRequestInfo
    files: list[PullFile]
    head_files: dict[str, str] = field(default_factory=dict)
    base_files: dict[str, str] = field(default_factory=dict)
    labels: list[str] = field(default_factory=list)
    reviews: list[HostReview] = field(default_factory=list)
    requested_reviewers: list[str] = field(default_factory=list)
    requested_teams: list[str] = field(default_factory=list)
    created_at: str = "2026-01-01T00:00:00Z"
    closed_at: str = ""  # set with info.state "closed"
    merged: bool = False
    head_ref: str = ""  # the branch it is opened from, where the fake knows it
    body: str = ""
