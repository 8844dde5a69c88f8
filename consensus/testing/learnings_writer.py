"""The learnings run's part of `FakeGitHubHost` (consensus/testing), in memory: closed
PRs with their comments, branches of commits that hold whole files, and the pull requests
opened from those branches (kept among the host's pulls, so that their merge is a closed
PR like any other).

Strict where GitHub is: a second open PR from one branch is refused, and so is a PR with
no commit beyond its base. Every move of a branch (`move_branch`: a commit on it, a merge
into it) does what GitHub does to the open PRs from it: their head follows, and one whose
head then has no commit beyond its base is closed at that moment (at `now`). `merge_pull`
is a maintainer merging a PR."""

from __future__ import annotations

import hashlib

from consensus.errors import GitHubError
from consensus.ports import (
    ClosedPullThread,
    CommentEdit,
    HostComment,
    LearningsBranch,
    PullFile,
    PullRequestInfo,
)
from consensus.testing.pull import BOT_LOGIN, FakePull


class FakeLearnings:
    """Mixed into FakeGitHubHost, whose fields these annotations name."""

    pulls: dict[int, FakePull]
    issue_comment_list: list[HostComment]
    comment_pull: dict[int, int]
    edits: dict[int, CommentEdit]
    branch: str
    writes: list[str]
    branches: dict[str, str]  # name → head commit
    commit_files: dict[str, dict[str, str]]  # commit → path → text (whole tree)
    commit_parents: dict[str, tuple[str, ...]]  # commit → its parents
    now: str  # when what happens by itself happens (a PR closed by its branch moving)
    repo: str
    login: str | None

    @property
    def learnings_pulls(self) -> dict[int, str]:
        """The open PRs from a branch of the learnings run: number → head branch."""
        return {
            n: p.head_ref for n, p in self.pulls.items() if p.head_ref and p.info.state == "open"
        }

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
                    head_ref=pull.head_ref,
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
            default_tree=f"tree-of-{default}",
            ref_id=f"REF_{name}" if head else None,
            head_oid=head,
            open_pull=opened,
            open_pull_id=f"PR_{opened}" if opened else "",
        )

    def commit_learnings(self, branch: LearningsBranch, path: str, text: str, message: str) -> str:
        files = {**self.commit_files.get(branch.default_oid, {}), path: text}
        oid = self._commit(files, (branch.default_oid,), message)
        self.move_branch(branch.name, oid)
        self.writes.append(f"commit {path} on {branch.name}: {message}")
        return oid

    def open_learnings_pull(self, branch: LearningsBranch, title: str, body: str) -> int:
        if branch.name in self.learnings_pulls.values():
            raise GitHubError(f"a pull request for {branch.name} is already open", status=422)
        head, base = self.branches[branch.name], self.branches[self.branch]
        if head in self.history(base):
            raise GitHubError(f"no commits between {self.branch} and {branch.name}", status=422)
        number = max([*self.pulls, 0]) + 1
        info = PullRequestInfo(
            number=number,
            title=title,
            author=self.login or BOT_LOGIN,
            head_sha=head,
            base_sha=base,
            base_ref=self.branch,
            head_repo=self.repo,
            base_repo=self.repo,
        )
        files = self._changed(base, head)
        self.pulls[number] = FakePull(info=info, files=files, head_ref=branch.name, body=body)
        self.writes.append(f"open PR #{number} from {branch.name}: {title}")
        return number

    def describe_learnings_pull(self, branch: LearningsBranch, body: str) -> None:
        if branch.open_pull is None or branch.open_pull_id != f"PR_{branch.open_pull}":
            raise GitHubError("GitHub GraphQL: no such pull request", status=404)
        self.pulls[branch.open_pull].body = body
        self.writes.append(f"describe PR #{branch.open_pull}")

    # ------------------------------------------------------------------ branches

    def history(self, oid: str) -> set[str]:
        """The commits reachable from `oid`, itself included."""
        seen, todo = set(), [oid]
        while todo:
            commit = todo.pop()
            if commit not in seen:
                seen.add(commit)
                todo.extend(self.commit_parents.get(commit, ()))
        return seen

    def move_branch(self, name: str, oid: str) -> None:
        """Branch `name` now points at `oid`; the open PRs from it follow, and one whose head
        has no commit beyond its base is closed, as GitHub closes it."""
        self.branches[name] = oid
        for pull in self.pulls.values():
            if pull.info.state != "open" or pull.head_ref != name:
                continue
            base = self.branches.get(pull.info.base_ref, pull.info.base_sha)
            if oid in self.history(base):
                pull.info = pull.info.model_copy(update={"state": "closed"})
                pull.closed_at = self.now
                continue
            pull.info = pull.info.model_copy(update={"head_sha": oid, "base_sha": base})
            pull.files = self._changed(base, oid)

    def merge_pull(self, number: int, *, at: str) -> str:
        """A maintainer merges PR `number`: its base branch gets a merge commit with the
        head's version of each file it changes; the merge commit's id."""
        pull = self.pulls[number]
        base = self.branches.get(pull.info.base_ref, pull.info.base_sha)
        head = self.commit_files.get(pull.info.head_sha, pull.head_files)
        files = dict(self.commit_files.get(base, {}))
        for changed in pull.files:
            if changed.path in head:
                files[changed.path] = head[changed.path]
            else:
                files.pop(changed.path, None)
        merged = self._commit(files, (base, pull.info.head_sha), f"Merge pull request #{number}")
        pull.info = pull.info.model_copy(update={"state": "closed"})
        pull.merged, pull.closed_at = True, at
        self.move_branch(pull.info.base_ref, merged)
        return merged

    def _commit(self, files: dict[str, str], parents: tuple[str, ...], message: str) -> str:
        oid = hashlib.sha1(f"{sorted(files.items())}{parents}{message}".encode()).hexdigest()
        self.commit_files[oid] = files
        self.commit_parents[oid] = parents
        return oid

    def _changed(self, base: str, head: str) -> list[PullFile]:
        before, after = self.commit_files.get(base, {}), self.commit_files.get(head, {})
        return [
            PullFile(path=path, status="modified" if path in before else "added")
            for path in sorted(after)
            if before.get(path) != after[path]
        ]
