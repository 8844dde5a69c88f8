"""The conversation on our inline comments: which replies get an answer, and what we say.
Pure: review comments, our identity and counts in; plain decisions and Markdown out.

A reply is read once. Its words classify it first (`classify_words`); only when they do
not settle it does one model call classify and answer it at once (review/converse.py).
Then `plan_reply` decides, in this order:

1. the PR's cap (`conversation.max_answers`) reached: nothing more is said;
2. "fixed" (optionally "fixed in abc123"): the finding is checked on the current head and
   the thread resolved when it is gone, or answered with what still fails;
3. a disagreement by a person with write access dismisses the finding with their words as
   the reason (a maintainer's decision, as `/consensus dismiss`);
4. a question or a disagreement gets one answer that explains with the code or concedes,
   unless it replies to our answer (we answer a person once; we do not argue);
5. an acknowledgement, or anything else, gets nothing.

Who gets nothing at all (`pending_replies`): bots, our own comments, replies already
answered (the answer carries `<!-- consensus:answer to=ID -->`, so any runner sees it),
and threads that are not one of our findings. Everything we write passes the sanitiser.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import Enum

from consensus.model.base import Frozen
from consensus.model.host import HostWords
from consensus.ports import HostComment
from consensus.publish.thread import Identity
from consensus.render.untrusted import code, escape_line, escape_markdown_text, person

_FP_LINE = re.compile(r"^<!-- consensus:fp=([0-9a-f]{8,64}(?:-\d{1,4})?) -->$")
_ANSWER_LINE = re.compile(r"^<!-- consensus:answer to=(\d{1,20}) -->$")
MAX_REASON = 300
MAX_ANSWER = 2_500


class ReplyKind(str, Enum):
    QUESTION = "question"
    DISAGREEMENT = "disagreement"
    FIXED = "fixed"
    ACKNOWLEDGEMENT = "acknowledgement"
    OTHER = "other"


class Step(str, Enum):
    IGNORE = "ignore"  # nothing is written
    CLASSIFY = "classify"  # the words do not settle it: one model call classifies and answers
    ANSWER = "answer"  # one answer, from the model: explains with the code, or concedes
    DISMISS = "dismiss"  # a maintainer's decision: dismissed with their reason
    CHECK_FIXED = "check_fixed"  # checked on the current head: resolved, or what still fails


class Reply(Frozen):
    """A person's reply in the thread of one of our inline comments, not answered yet."""

    comment: HostComment
    thread: HostComment  # our inline comment that opened the thread
    fingerprint: str
    after_our_answer: bool = False  # we already answered someone in this thread before it


class Skipped(Frozen):
    comment_id: int
    why: str


class ReplyPlan(Frozen):
    step: Step
    why: str = ""


class Threads(Frozen):
    """Our threads' replies: those waiting for an answer, those that get none (and why),
    and how many answers we have given on the PR."""

    pending: tuple[Reply, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    answers: int = 0


# --------------------------------------------------------------------------- words

_QUOTE = re.compile(r"^\s*>.*$", re.MULTILINE)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_NOT_FIXED = re.compile(r"\b(?:not|isn't|isnt|wasn't|never|still)\b[^.?!]{0,20}\bfixed\b")
_FIXED = re.compile(
    r"^(?:(?:i|we|i've|we've|i have|we have)\s+)?(?:now\s+|just\s+)?"
    r"(?:fixed|addressed|resolved|done|corrected|patched)\b"
    r"|\b(?:should be|is|are|has been|have been|was|got)\s+(?:now\s+)?"
    r"(?:fixed|addressed|resolved)\b"
    r"|\bfixed\s+(?:in|by|with)\b"
)
_DISAGREE = re.compile(
    r"\b(?:intentional(?:ly)?|by design|on purpose|deliberate(?:ly)?|false positive|"
    r"not (?:a|an) (?:bug|issue|problem)|won'?t fix|wontfix|not applicable|"
    r"(?:this|that|it) is (?:fine|expected|correct|safe)|is not (?:reachable|possible)|"
    r"(?:you are|you're) wrong|incorrect finding|disagree)\b"
)
_QUESTION_START = re.compile(
    r"^(?:why|what|how|where|when|which|who|is|are|does|do|did|can|could|should|would|will)\b"
)
_ACK = re.compile(
    r"^(?:thanks?(?: you)?|thx|ty|good (?:catch|point|find)|nice catch|will (?:fix|do)|"
    r"agreed?|makes sense|ack(?:nowledged)?|ok(?:ay)?|lgtm|sure|right|yes|yep|👍|:\+1:)\b"
)
_COMMIT = re.compile(r"\b([0-9a-f]{7,40})\b")


def plain_words(body: str) -> str:
    """The reply's own words: quotes and code blocks out, lower case, one line."""
    text = _FENCE.sub(" ", _QUOTE.sub(" ", body))
    return " ".join(text.lower().split())


def classify_words(body: str) -> ReplyKind | None:
    """What the words settle (None: a model must read it). Disagreement before "fixed"
    (so "not a bug, fixed elsewhere" is a disagreement), negated "fixed" is unsettled."""
    text = plain_words(body)
    if not text:
        return ReplyKind.OTHER
    if _DISAGREE.search(text):
        return ReplyKind.DISAGREEMENT
    if _NOT_FIXED.search(text):
        return None
    if _FIXED.search(text) and not text.endswith("?"):
        return ReplyKind.FIXED
    if text.endswith("?"):
        return ReplyKind.QUESTION
    if _ACK.match(text) and len(text.split()) <= 12:
        return ReplyKind.ACKNOWLEDGEMENT
    if _QUESTION_START.match(text):
        return ReplyKind.QUESTION
    return None


def fixed_commit(body: str) -> str:
    """The commit a "fixed in abc123" names ('' when none): shown, never trusted."""
    match = _COMMIT.search(plain_words(body))
    return match.group(1) if match else ""


def reason_of(body: str) -> str:
    """A person's words as a dismissal reason: one line, bounded (sanitised where shown)."""
    text = " ".join(_FENCE.sub(" ", _QUOTE.sub(" ", body)).split())
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


# --------------------------------------------------------------------------- threads


def thread_fingerprint(comment: HostComment, identity: Identity) -> str | None:
    """The finding an inline comment of ours is about (its last line); None for others."""
    if not identity.owns(comment.author) or comment.in_reply_to is not None:
        return None
    match = _FP_LINE.match(comment.body.rstrip().rsplit("\n", 1)[-1].strip())
    return match.group(1) if match else None


def answered_reply(comment: HostComment) -> int | None:
    match = _ANSWER_LINE.match(comment.body.rstrip().rsplit("\n", 1)[-1].strip())
    return int(match.group(1)) if match else None


def pending_replies(
    review_comments: Sequence[HostComment], identity: Identity, *, only: int | None = None
) -> Threads:
    """Replies in our threads that wait for an answer (all of them, or the comment `only`),
    and those that get none. Comments are taken in id order (the order GitHub made them)."""
    comments = sorted(review_comments, key=lambda c: c.id)
    ours = {c.id: fp for c in comments if (fp := thread_fingerprint(c, identity)) is not None}
    answered = {
        to for c in comments if identity.owns(c.author) and (to := answered_reply(c)) is not None
    }
    pending: list[Reply] = []
    skipped: list[Skipped] = []
    spoke: set[int] = set()  # threads where we have answered someone already
    for comment in comments:
        thread = comment.in_reply_to
        if thread is None or thread not in ours:
            if only == comment.id:
                skipped.append(Skipped(comment_id=comment.id, why="not a reply to our finding"))
            continue
        if identity.owns(comment.author):
            if answered_reply(comment) is not None:
                spoke.add(thread)
            continue
        if only is not None and comment.id != only:
            continue
        if comment.author_is_bot or not comment.author:
            skipped.append(Skipped(comment_id=comment.id, why="a bot's reply"))
        elif comment.id in answered:
            skipped.append(Skipped(comment_id=comment.id, why="already answered"))
        else:
            first = next(c for c in comments if c.id == thread)
            pending.append(
                Reply(
                    comment=comment,
                    thread=first,
                    fingerprint=ours[thread],
                    after_our_answer=thread in spoke,
                )
            )
    return Threads(pending=tuple(pending), skipped=tuple(skipped), answers=len(answered))


def plan_reply(
    reply: Reply, kind: ReplyKind | None, *, may_write: bool | None, answers: int, cap: int
) -> ReplyPlan:
    """What to do with one reply (see the module's docstring). `kind` None: the words did
    not settle it. `may_write` None: not asked yet (asked only for a disagreement)."""
    if answers >= cap:
        return ReplyPlan(step=Step.IGNORE, why=f"the cap of {cap} answers here is reached")
    if kind is None:
        if reply.after_our_answer:
            return ReplyPlan(step=Step.IGNORE, why="a reply to our answer")
        return ReplyPlan(step=Step.CLASSIFY, why="the words do not settle it")
    if kind is ReplyKind.FIXED:
        return ReplyPlan(step=Step.CHECK_FIXED, why="the author says it is fixed")
    if kind is ReplyKind.DISAGREEMENT and may_write:
        return ReplyPlan(step=Step.DISMISS, why="a maintainer disagrees")
    if kind in (ReplyKind.QUESTION, ReplyKind.DISAGREEMENT):
        if reply.after_our_answer:
            return ReplyPlan(step=Step.IGNORE, why="a reply to our answer")
        return ReplyPlan(step=Step.ANSWER, why=f"a {kind.value}")
    return ReplyPlan(step=Step.IGNORE, why=f"an {kind.value}: nothing to answer")


class FixCheck(str, Enum):
    GONE = "gone"
    STILL = "still"
    UNSURE = "unsure"


def fix_outcome(confirmed: int, refuted: int, uncertain: int) -> FixCheck:
    """The verdict of a "fixed" check from the verification's votes on the current head: a
    strict majority refuting it (gone) or confirming it (still); anything else is unsure."""
    if refuted > confirmed + uncertain:
        return FixCheck.GONE
    if confirmed > refuted + uncertain:
        return FixCheck.STILL
    return FixCheck.UNSURE


# --------------------------------------------------------------------------- what we say


def answer_marker(reply_id: int) -> str:
    return f"<!-- consensus:answer to={reply_id} -->"


def _footer(reply: Reply, finding_id: str) -> str:
    about = f" about {code(finding_id)}" if finding_id else ""
    return (
        f"<sub>in answer to {person(reply.comment.author)}{about}</sub>\n"
        f"{answer_marker(reply.comment.id)}"
    )


def scrubbed(text: str, secrets: Sequence[str]) -> str:
    """`text` with every occurrence of a known secret value replaced (what a model was
    talked into writing never reaches the page: the keys the run holds are never shown)."""
    for secret in sorted((s for s in secrets if len(s) >= 8), key=len, reverse=True):
        text = text.replace(secret, "[redacted]")
    return text


def _no_answer(finding_id: str) -> str:
    """What is said when the model wrote nothing: honest, and where to look instead."""
    explain = code(f"/consensus explain {finding_id}") if finding_id else "`/consensus help`"
    return f"No answer: the model wrote none. {explain} shows why the finding was posted."


def model_answer(
    reply: Reply,
    finding_id: str,
    text: str,
    *,
    conceded: bool,
    dismissed: bool,
    words: HostWords,
) -> str:
    """A model's answer (untrusted: sanitised, bounded), and what became of the finding,
    in the host's `words`."""
    body = escape_markdown_text(text.strip()[:MAX_ANSWER]) or _no_answer(finding_id)
    if conceded and dismissed:
        body += f"\n\nConceded: the finding is dismissed on this {words.short}."
    elif conceded:
        command = code(f"/consensus dismiss {finding_id}") if finding_id else "a dismissal"
        body += (
            f"\n\nConceded. Someone with {words.writers} can dismiss it: reply here, or {command}."
        )
    return f"{body}\n\n{_footer(reply, finding_id)}"


def dismissed_answer(reply: Reply, finding_id: str, reason: str, words: HostWords) -> str:
    return (
        f"Dismissed by {person(reply.comment.author)}: {escape_line(reason)}\n\n"
        f"Not posted again on this {words.short}; the learnings run may suppress it on later "
        f"{words.short}s."
        f"\n\n{_footer(reply, finding_id)}"
    )


def fixed_answer(reply: Reply, finding_id: str, head_sha: str, *, gone: bool, why: str) -> str:
    """The outcome of a "fixed" check on the current head (`why`: verifier reasons)."""
    claimed = fixed_commit(reply.comment.body)
    said = f" (you named {code(claimed)})" if claimed else ""
    where = f"Checked on {code(head_sha[:12])}{said}"
    if gone:
        text = f"{where}: fixed. Thread resolved."
    elif why:
        text = f"{where}: still there: {escape_line(why)}"
    else:
        text = f"{where}: not sure it is fixed; the thread stays open."
    return f"{text}\n\n{_footer(reply, finding_id)}"
