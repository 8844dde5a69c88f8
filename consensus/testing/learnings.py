"""The learnings run's part of `FakeGitHubHost` (consensus/testing), in memory: closed
PRs with their comments, one branch per name holding commits of whole files, and the pull
requests opened from those branches. Strict where GitHub is: a commit whose expected head
is not the branch's head fails, and a second open PR from one branch is refused."""

from __future__ import annotations

import hashlib
from typing import Any

from consensus.errors import GitHubError
from consensus.ports import ClosedPullThread, CommentEdit, HostComment, LearningsBranch


class FakeLearnings:
    """Mixed into FakeGitHubHost, whose fields these annotations name."""

    pulls: dict[int, Any]
    issue_comment_list: list[HostComment]
    comment_pull: dict[int, int]
    edits: dict[int, CommentEdit]
    branch: str
    writes: list[str]
    branches: dict[str, str]  # name → head commit
    commit_files: dict[str, dict[str, str]]  # commit → path → text (whole tree)
    learnings_pulls: dict[int, str]  # PR number → head branch (open)

    def closed_pulls(self, since: str) -> list[ClosedPullThread]:
        closed = [
            p for p in self.pulls.values() if p.info.state == "closed" and p.closed_at > since
        ]
        closed.sort(key=lambda p: p.closed_at, reverse=True)
        out = []
        for pull in closed:
            number = pull.info.number
            comments = [c for c in self.issue_comment_list if self.comment_pull.get(c.id) == number]
            out.append(
                ClosedPullThread(
                    number=number,
                    closed_at=pull.closed_at,
                    merged=pull.merged,
                    comments=tuple(comments),
                    edits=tuple(self.edits.get(c.id) for c in comments),
                )
            )
        return out

    def learnings_branch(self, name: str) -> LearningsBranch:
        default = self.branches.setdefault(self.branch, "0" * 40)
        head = self.branches.get(name)
        opened = next((n for n, b in self.learnings_pulls.items() if b == name), None)
        return LearningsBranch(
            name=name,
            repository_id="R_fake",
            default_branch=self.branch,
            default_oid=default,
            ref_id=f"REF_{name}" if head else None,
            head_oid=head,
            open_pull=opened,
        )

    def commit_learnings(self, branch: LearningsBranch, path: str, text: str, message: str) -> str:
        if self.branches.get(self.branch) != branch.default_oid:
            raise GitHubError("GitHub GraphQL: expectedHeadOid is not the branch head", status=422)
        files = {**self.commit_files.get(branch.default_oid, {}), path: text}
        oid = hashlib.sha1(f"{branch.default_oid}{path}{text}".encode()).hexdigest()
        self.commit_files[oid] = files
        self.branches[branch.name] = oid
        self.writes.append(f"commit {path} on {branch.name}: {message}")
        return oid

    def open_learnings_pull(self, branch: LearningsBranch, title: str, body: str) -> int:
        if branch.name in self.learnings_pulls.values():
            raise GitHubError(f"a pull request for {branch.name} is already open", status=422)
        number = max([*self.pulls, *self.learnings_pulls, 0]) + 1
        self.learnings_pulls[number] = branch.name
        self.writes.append(f"open PR #{number} from {branch.name}: {title}")
        return number
