"""The scheduled learnings run: closed PRs' outcomes into `.consensus/learned.yml`, proposed
as ONE pull request people review (never pushed to the default branch).

1. the file as the default branch has it (its `updated_through` says what was counted);
2. the PRs closed since then, read from GitHub in one GraphQL request a page: their
   conversation's first comments, among them our summary, whose state is believed only when
   we wrote it last (publish/thread.py) and holds the outcomes recorded at close and the
   last run's estimate of its panel. The learnings PR's own closing (its merge) is not one
   of them;
3. the counts added (publish/learnings.py); nothing new (only PRs without outcomes or
   claims, whose closing would move nothing but `updated_through`), or the branch already
   holding the same file, changes nothing;
4. one commit writing the file on top of the default head, and the branch
   `consensus/learnings` moved to it in one step (never to the default head itself: a pull
   request whose head has no commit beyond its base is closed by GitHub); the pull request
   opened when none is open, an open one updated by the move, and its description rewritten
   to say what it now proposes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from consensus.ports import ClosedPullThread, LearningsWriter, Log, PullReader
from consensus.publish.learnings import ClosedPull, counted, learn
from consensus.publish.thread import Identity, find_summary, read_thread
from consensus.render.learned_tables import uncredited_note
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
    reviewed = [t for t in threads if not is_learnings_pull(t, branch_name)]
    closed = [closed_pull(thread, identity, log) for thread in reviewed]
    new = learn(learned, closed)
    numbers = tuple(sorted(p.number for p in counted(learned, closed)))
    if new == learned:
        since = learned.updated_through or "the start"
        log(f"learnings: no PR with outcomes or findings closed since {since}: nothing to do")
        return LearningsRun(learned=learned)
    wanted = dump_learned(new)
    proposed = host.read_file(LEARNED_PATH, branch.head_oid) if branch.head_oid else None
    if branch.open_pull is not None and proposed == wanted:
        log(f"learnings: PR #{branch.open_pull} already proposes this file: nothing to do")
        return LearningsRun(learned=new, counted=numbers, pull=branch.open_pull)
    message = f"consensus: learnings from {len(numbers)} closed PR(s)"
    host.commit_learnings(branch, LEARNED_PATH, wanted, message)
    number, body = branch.open_pull, pull_body(learned, new, numbers)
    if number is None:
        number = host.open_learnings_pull(branch, TITLE, body)
        log(f"learnings: opened PR #{number} changing {LEARNED_PATH}")
    else:
        host.describe_learnings_pull(branch, body)  # it says what the PR now proposes
        log(f"learnings: updated PR #{number} changing {LEARNED_PATH}")
    return LearningsRun(learned=new, counted=numbers, pull=number, changed=True)


def is_learnings_pull(thread: ClosedPullThread, branch_name: str) -> bool:
    """The learnings PR itself (from our branch, in this repository): its closing, a merge
    most often, is no outcome of a review, and counting it would propose another."""
    return thread.head_ref == branch_name and not thread.cross_repository


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
    lines = [
        "consensus counted what maintainers decided about its findings on the pull "
        f"requests closed since {before.updated_through or 'the start'}: {prs}.",
        "",
        f"- families with evidence: {families}",
        f"- new suppressions: {added} (findings a maintainer dismissed with a reason)",
    ]
    was = before.uncredited.model_dump()
    lost = {k: n - was[k] for k, n in after.uncredited.model_dump().items() if n > was[k]}
    if lost:
        lines.append(f"- {uncredited_note(lost)}")
    return "\n".join(
        [
            *lines,
            "",
            "Review the counts and the suppressions; edit or delete any line before merging. "
            "`consensus learned` prints the file as a table with 95% intervals.",
        ]
    )
