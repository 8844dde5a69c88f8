"""The scheduled learnings run: closed PRs' outcomes into `.consensus/learned.yml`, proposed
as ONE pull request people review (never pushed to the default branch).

1. the file as the default branch has it (its `updated_through` says what was counted);
2. the PRs closed since then, read from GitHub in one GraphQL request a page: their
   conversation's first comments, among them our summary, whose state is believed only when
   we wrote it last (publish/thread.py) and holds the outcomes recorded at close;
3. the counts added (publish/learnings.py); nothing new, or the branch already holding the
   same file, changes nothing;
4. the branch `consensus/learnings` put at the default head plus one commit writing the
   file, and its pull request opened when none is open (an open one is updated by the push).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from consensus.ports import ClosedPullThread, LearningsWriter, Log, PullReader
from consensus.publish.learnings import ClosedPull, learn
from consensus.publish.thread import Identity, find_summary, read_thread
from consensus.settings.learned import LEARNED_PATH, Learned, dump_learned, parse_learned

BRANCH = "consensus/learnings"
TITLE = "consensus: update .consensus/learned.yml"


class LearningsHost(PullReader, LearningsWriter, Protocol):
    """What the learnings run uses of GitHub: files at a commit, and the learnings roles."""


@dataclass(frozen=True)
class LearningsRun:
    """What a learnings run did: the file it proposes, the PRs it counted, its pull request."""

    learned: Learned
    counted: tuple[int, ...] = ()
    pull: int | None = None
    changed: bool = False


def update_learnings(
    host: LearningsHost, identity: Identity, log: Log, *, branch_name: str = BRANCH
) -> LearningsRun:
    """Count the PRs closed since the default branch's file; propose the new file."""
    branch = host.learnings_branch(branch_name)
    text = host.read_file(LEARNED_PATH, branch.default_oid)
    source = f"{LEARNED_PATH} (branch {branch.default_branch})"
    learned = parse_learned(text, source=source) if text is not None else Learned()
    threads = host.closed_pulls(learned.updated_through)
    closed = [closed_pull(thread, identity, log) for thread in threads]
    new = learn(learned, closed)
    counted = tuple(sorted(p.number for p in closed if p.closed_at > learned.updated_through))
    if new == learned:
        log(
            f"learnings: no PR closed since {learned.updated_through or 'the start'}: nothing to do"
        )
        return LearningsRun(learned=learned)
    wanted = dump_learned(new)
    proposed = host.read_file(LEARNED_PATH, branch.head_oid) if branch.head_oid else None
    if branch.open_pull is not None and proposed == wanted:
        log(f"learnings: PR #{branch.open_pull} already proposes this file: nothing to do")
        return LearningsRun(learned=new, counted=counted, pull=branch.open_pull)
    message = f"consensus: learnings from {len(counted)} closed PR(s)"
    host.commit_learnings(branch, LEARNED_PATH, wanted, message)
    number = branch.open_pull
    if number is None:
        number = host.open_learnings_pull(branch, TITLE, pull_body(learned, new, counted))
        log(f"learnings: opened PR #{number} changing {LEARNED_PATH}")
    else:
        log(f"learnings: updated PR #{number} changing {LEARNED_PATH}")
    return LearningsRun(learned=new, counted=counted, pull=number, changed=True)


def closed_pull(thread: ClosedPullThread, identity: Identity, log: Log) -> ClosedPull:
    """A closed PR's outcomes from our summary's state (none when it has no summary of ours,
    or someone else edited it last: what it says is not ours to believe)."""
    summary = find_summary(thread.comments, identity)
    edit = None
    if summary is not None:
        edit = thread.edits[thread.comments.index(summary)] if thread.edits else None
    read = read_thread(thread.comments, (), identity=identity, summary_edit=edit)
    if read.state_problem:
        log(f"warning: PR #{thread.number}: {read.state_problem}")
    return ClosedPull(
        number=thread.number,
        closed_at=thread.closed_at,
        outcomes=read.state.outcomes,
        panel=read.state.panel,
    )


def pull_body(before: Learned, after: Learned, counted: tuple[int, ...]) -> str:
    """The learnings PR's description: what changed, in our words only (no finding text)."""
    added = len(after.suppressions) - len(before.suppressions)
    families = ", ".join(sorted(after.families)) or "none"
    prs = ", ".join(f"#{n}" for n in counted) or "none"
    return "\n".join(
        [
            "consensus counted what maintainers decided about its findings on the pull "
            f"requests closed since {before.updated_through or 'the start'}: {prs}.",
            "",
            f"- provider families with evidence: {families}",
            f"- new suppressions: {added} (findings a maintainer dismissed with a reason)",
            "",
            "Review the counts and the suppressions; edit or delete any line before merging. "
            "`consensus learned` prints the file as a table with 95% intervals.",
        ]
    )
