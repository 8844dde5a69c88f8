"""The code host as a type: who it is, what a message calls a pull request, a reference and
a role there, and how it takes what a run posts.

Every flow works with GitHub's notions (a pull request, its number, a person's permission:
admin, maintain, write, triage, read or none) whatever the host; a message says them as
the host a person reads it on names them. `HostWords` is that vocabulary, one value per
host, which its adapter (and the in-memory fakes) hands out through the port
(`PullRequestHost.words`) and the pure composers of messages take as data. Who may run a
command stays one rule (write, maintain or admin: on GitLab the Developer, Maintainer and
Owner roles); only the words change. Where the host takes a posting its own way (a review
as discussions, a suggestion's fence), the value says so: no flow compares the host's
name, so a host-specific branch is a field here, set in one place.
"""

from __future__ import annotations

import re

from consensus.model.base import Frozen
from consensus.model.urls import file_url

PERMISSIONS = ("admin", "maintain", "write", "triage", "read")  # GitHub's, highest first
_OUR_WORDS = re.compile(r"(?<![\w-])(?:pull request|PR)(s?)\b")  # not "agent-PR", "per-PR"


class Roles(Frozen):
    """GitHub's permission levels, each as a host names the role it comes from."""

    admin: str
    maintain: str
    write: str
    triage: str
    read: str


class HostWords(Frozen):
    """How one code host names what messages speak of.

    `pull_request` and `short` are the change under review in full and abbreviated
    ("pull request", "PR"; "merge request", "MR"), `sigil` what goes before its number
    ("#4", "!4"), `roles` each of GitHub's permission levels as the host names the role it
    comes from, `writers` who may run a command that writes, in a sentence ("write,
    maintain or admin permission", "the Developer role or higher") and `writers_short` in
    a table's cell.

    The rest is how the host takes what a run posts: `review_posted`, what the log says of
    a review it took (GitLab has no review object: each inline comment is a discussion of
    its own, and the review's event is the job's status); `fences_from_note`, a
    suggestion's fence counted from the line the note sits on (GitLab's
    `suggestion:-N+M`), where GitHub's replaces the commented lines. A comment's id is the
    host's own number for it, and the port addresses it under its pull request, as GitLab's
    API addresses a note (ports.py): no adapter has to remember where a comment is."""

    name: str  # the host's name, for what the log and the summary say about it
    pull_request: str
    short: str
    sigil: str
    roles: Roles
    writers: str
    writers_short: str
    review_posted: str = "posted a review with {count} inline comment(s) ({event})"
    fences_from_note: bool = False
    # A file at a commit on the host's web pages, and the fragment that marks its lines
    # (model/urls.file_url): GitHub's `blob/<sha>/<path>#L40-L58`, GitLab's `-/blob/…#L40-58`.
    blob: str = "blob"
    line_range: str = "#L{start}-L{end}"

    def lines_url(self, repository: str, sha: str, path: str, start: int, end: int) -> str:
        """The web page of lines `start`..`end` of `path` at commit `sha`."""
        anchor = f"#L{start}" if end <= start else self.line_range.format(start=start, end=end)
        return file_url(repository, self.blob, sha, path) + anchor

    def ref(self, number: int) -> str:
        """ "PR #4", "MR !4": the change under review by its number."""
        return f"{self.short} {self.sigil}{number}"

    def role(self, permission: str) -> str:
        """A person's permission as the host names it ("triage" is GitLab's "Reporter");
        "none" for anything else (not a member, unknown)."""
        return str(self.roles.model_dump().get(permission, "none"))

    def in_our_text(self, text: str) -> str:
        """Our own prose (a built-in command's summary and help, written in GitHub's words)
        in the host's: "pull request" and "PR" as the host says them (a name such as the
        "agent-PR queue" stays). Never for text a repository or a person wrote."""
        return _OUR_WORDS.sub(
            lambda m: (
                (self.pull_request if m.group(0).startswith("pull") else self.short) + m.group(1)
            ),
            text,
        )


GITHUB_WORDS = HostWords(
    name="GitHub",
    pull_request="pull request",
    short="PR",
    sigil="#",
    roles=Roles(**{level: level for level in PERMISSIONS}),
    writers="write, maintain or admin permission",
    writers_short="write, maintain or admin",
)
GITLAB_WORDS = HostWords(
    name="GitLab",
    pull_request="merge request",
    short="MR",
    sigil="!",
    # the access levels GitLab's adapter maps onto GitHub's (adapters/gitlab_wire.py)
    roles=Roles(
        admin="Owner", maintain="Maintainer", write="Developer", triage="Reporter", read="Guest"
    ),
    writers="the Developer role or higher",
    writers_short="Developer or higher",
    review_posted="posted {count} inline discussion(s)",
    fences_from_note=True,
    blob="-/blob",
    line_range="#L{start}-{end}",
)


class CodeAt(Frozen):
    """Where a pull request's code is on its host's web pages: the repository's page (the
    base repository's: the host serves a pull request's commits there, a fork's too), the
    head and base commits, and the host's URL shape (`words`)."""

    repository: str
    head_sha: str
    base_sha: str = ""
    words: HostWords = GITHUB_WORDS

    def lines(self, path: str, start: int, end: int, side: str = "head") -> str | None:
        """The link to lines `start`..`end` of `path` on `side`; None when that commit is
        not known."""
        sha = self.head_sha if side == "head" else self.base_sha
        if not sha or not self.repository:
            return None
        return self.words.lines_url(self.repository, sha, path, start, end)
