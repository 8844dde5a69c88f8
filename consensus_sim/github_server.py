"""A loopback fake of GitHub's REST API: a real HTTP server on 127.0.0.1, state in memory.

It serves what the Action uses, shaped as GitHub documents it (PyGithub talks to it
through `base_url`, as to GitHub Enterprise Server):

- repositories, pull requests, their files with `patch` (paginated, `patch` omitted
  for files marked so), file contents and directory listings at a commit (no content
  for a file over `large_file_bytes`, 1 MB, as GitHub: its blob is `GET /git/blobs/{sha}`);
- issue comments (list paginated with `Link` headers, create, edit, delete), reactions,
  labels, the collaborator permission endpoint;
- reviews with inline comments, validated like GitHub: a comment whose `line` (or
  `start_line`) is not a RIGHT-side line of one hunk of the file's patch makes the
  whole review fail with 422 and nothing is stored;
- comparisons of two commits (`/compare/BASE...HEAD`: status ahead/diverged, files with
  patches computed from the snapshots);
- fault injection (`fail_next`: e.g. a 403 secondary rate limit with `Retry-After`, a
  502) and a request log (`requests`);
- who the token is: `GET /user` answers 403 as for a workflow's GITHUB_TOKEN, or the
  `viewer` account (a personal token's user), who then makes the writes;
- GraphQL (`POST /graphql`) for one question: a comment's `editor` and `lastEditedAt`
  (a Bot's GraphQL login lacks REST's `[bot]`, as on GitHub);
- the learnings run's branch and pull request (github_learnings: GraphQL, and the Git
  database's `POST /git/trees` and `/git/commits`): an open pull request follows its
  branch and is closed when the branch moves to no commit beyond its base, as on GitHub;
  `merge_pull` is a maintainer merging one.

Writes are made by `github-actions[bot]` (type Bot), as with a workflow's GITHUB_TOKEN;
tests seed comments with `add_issue_comment(..., user=human("alice"))` (or another bot,
`app_bot("renovate")`), and edit any comment as anyone with `edit_issue_comment`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from consensus_sim.faults import Fault
from consensus_sim.github_repo import (
    BOT,
    JsonObject,
    PullRequest,
    Repo,
    Request,
    account,
    app_bot,
    human,
    is_write,
    pull_files_from_git,
    right_lines,
    snapshot,
)
from consensus_sim.github_routes import Handler
from consensus_sim.github_state import GitHubState, load_pull_from_git
from consensus_sim.loopback import Loopback

__all__ = [
    "BOT",
    "FakeGitHub",
    "Fault",
    "JsonObject",
    "PullRequest",
    "Repo",
    "Request",
    "account",
    "app_bot",
    "human",
    "is_write",
    "load_pull_from_git",
    "pull_files_from_git",
    "right_lines",
    "running",
    "snapshot",
]


class FakeGitHub(GitHubState, Loopback):
    """The server; `start()` it (or use `with`), then point PyGithub at `url`."""

    handler = Handler


@contextlib.contextmanager
def running() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
