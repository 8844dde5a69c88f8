"""A month of a repository, in memory: twenty pull requests reviewed by the Action's flows,
with what people do to their findings (a push that fixes one, a maintainer's dismissal, a
maintainer's 👎, a 👍, a reader's 👎, nothing), merged or closed unmerged; four scheduled
learnings runs; two learnings PRs merged on the way. `.consensus/learned.yml` ends equal to
the hand count of the script, and exactly one learnings PR is open.

The panel is three provider families (openai, anthropic, google) with two personas
(security, correctness) at threshold 0.6: a finding two families report is posted without
verification, so what each family and persona reported is the script's to say, and no
judge is asked (the judge counts stay zero)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from consensus.adapters.journal import Journal
from consensus.app.learnings_run import BRANCH, LearningsRun, update_learnings
from consensus.app.pull.pull_context import PullContext
from consensus.app.pull.review import review_pull_request
from consensus.app.services import ActionsRunner, ActionStep, ProviderKeys, Services
from consensus.app.talk.commands import handle_comment
from consensus.app.talk.reply_event import close_on_pull
from consensus.model.events import IssueCommentEvent
from consensus.model.flow_result import ResultKind
from consensus.ports import CompletionRequest, HostReaction, PullFile, PullRequestInfo
from consensus.publish.state import PublishState, decode_state
from consensus.publish.thread import ACTIONS, SUMMARY_MARKER
from consensus.review.redacting import RedactingClient
from consensus.settings.action_inputs import ActionInputs
from consensus.settings.learned import LEARNED_PATH, Learned, parse_learned
from consensus.testing import FakeGitHubHost, FakeModelClient, FakePull
from tests.flows.flows_world import Counter, NoCheckout

REPO, MAINTAINER, READER = "acme/service", "maria", "randall"
KEYS = {"OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-2", "GEMINI_API_KEY": "sk-3"}
MODELS = {"openai": "openai/gpt-5.1", "anthropic": "anthropic/claude-sonnet-4-5"}
MODELS["google"] = "gemini/gemini-2.5-pro"
PROVIDERS = "".join(
    f"  - {{model: {m}, api_key_env: {k}}}\n" for m, k in zip(MODELS.values(), KEYS, strict=True)
)
CONFIG = f"""\
providers:
{PROVIDERS}\
personas: [security, correctness]
threshold: 0.6
min_providers: 2
"""
PERSONAS = {"security": "**Security reviewer**", "correctness": "**Correctness reviewer**"}
BUG_LINE = 5  # of each file: see `source`


@dataclass(frozen=True)
class Bug:
    """A defect in one file of a PR, the (family, persona) reviewers that report it, and
    what people do about it: `fixed` (a push), `dismissed` (a maintainer's command with a
    reason), `down` (a maintainer's 👎), `up` (a reader's 👍), `reader-down` (a reader's
    👎), `left` (nothing), `quiet` (a low-severity singleton: never posted)."""

    tag: str
    by: str  # "OA/cor": openai and anthropic, as correctness; "OAG/cor+sec": all, as both
    fate: str

    @property
    def reporters(self) -> set[tuple[str, str]]:
        letters, personas = self.by.split("/")
        families = {"O": "openai", "A": "anthropic", "G": "google"}
        names = {"cor": "correctness", "sec": "security"}
        return {(families[f], names[p]) for f in letters for p in personas.split("+")}

    @property
    def path(self) -> str:
        return f"src/{self.tag[:-1]}/part_{self.tag[-1]}.py"

    @property
    def title(self) -> str:
        return f"Unchecked None from risky_{self.tag}"


@dataclass(frozen=True)
class Pull:
    bugs: tuple[Bug, ...]
    merged: bool = True
    carry_first: bool = False  # a push to another file before the fix: the fix is carried


def b(tag: str, by: str, fate: str) -> Bug:
    return Bug(tag, by, fate)


# The month, week by week: (day each PR closes) → the PR; a learnings run or a merge of
# the learnings PR between them.
WEEKS: list[tuple[str, Pull | str]] = [
    ("03-02", Pull((b("p1a", "OA/cor", "fixed"),))),
    ("03-02", Pull((b("p2a", "OAG/sec", "dismissed"),))),
    ("03-03", Pull((b("p3a", "OA/cor", "down"),), merged=False)),
    ("03-04", Pull((b("p4a", "AG/cor", "left"), b("p4b", "OG/sec", "up")))),
    ("03-05", Pull(())),  # nothing found
    ("03-06", "run"),  # opens the learnings PR
    (
        "03-08",
        Pull((b("p6a", "OAG/cor+sec", "fixed"), b("p6b", "OA/cor", "left")), carry_first=True),
    ),
    ("03-09", Pull((b("p7a", "OA/sec", "reader-down"),), merged=False)),
    ("03-10", Pull((b("p8a", "AG/cor", "fixed"), b("p8b", "OG/cor", "dismissed")))),
    ("03-11", Pull((b("p9a", "O/sec", "quiet"), b("p9b", "OA/cor", "left")))),
    ("03-12", Pull((b("p10a", "AG/sec", "down"),))),
    ("03-13", "run"),  # updates it: the same PR, still open
    ("03-14", "merge"),
    ("03-15", Pull((b("p11a", "OAG/cor", "fixed"),))),
    ("03-16", Pull((), merged=False)),
    ("03-17", Pull((b("p13a", "OA/sec", "left"),))),
    ("03-18", Pull((b("p14a", "OG/cor", "dismissed"),))),
    ("03-19", Pull((b("p15a", "AG/sec", "fixed"),))),
    ("03-20", "run"),  # opens a second learnings PR: PRs 11-15, not the merge before
    ("03-22", Pull((b("p16a", "OAG/sec", "up"),))),
    ("03-23", Pull((b("p17a", "OA/cor", "fixed"),))),
    ("03-24", "merge"),
    ("03-25", Pull((b("p18a", "AG/cor", "down"),), merged=False)),
    ("03-26", Pull((b("p19a", "OG/sec", "left"),))),
    ("03-27", Pull((b("p20a", "OA/cor", "fixed"), b("p20b", "AG/sec", "left")))),
    ("03-28", "run"),  # opens a third: PRs 16-20
]
OUTCOME = {"fixed": "fixed", "dismissed": "dismissed", "down": "dismissed"}


Counts = tuple[dict[str, object], dict[str, object], dict[str, int], int]
ZERO = {"fixed": 0, "dismissed": 0, "left": 0}
NO_JUDGE = {"confirmed_real": 0, "missed_real": 0, "refuted_false": 0, "confirmed_false": 0}


def hand_count(pulls: list[Pull]) -> Counts:
    """What the script says `.consensus/learned.yml` counts: each posted finding's outcome
    once for each family and each persona that reported it; no judge; nothing credited to
    no one; a suppression for each dismissal with a reason."""
    families: dict[str, dict[str, int]] = {}
    personas: dict[str, dict[str, int]] = {}
    for bug in (bug for pull in pulls for bug in pull.bugs if bug.fate != "quiet"):
        outcome = OUTCOME.get(bug.fate, "left")
        for family in {f for f, _ in bug.reporters}:
            families.setdefault(family, dict(ZERO))[outcome] += 1
        for persona in {p for _, p in bug.reporters}:
            personas.setdefault(persona, dict(ZERO))[outcome] += 1
    rules = sum(bug.fate == "dismissed" for pull in pulls for bug in pull.bugs)
    judged = {f: {"reporter": counts, "judge": NO_JUDGE} for f, counts in families.items()}
    return judged, dict(personas), dict(ZERO), rules


def counts(learned: Learned) -> Counts:
    return (
        {f: e.model_dump() for f, e in learned.families.items()},
        {p: c.model_dump() for p, c in learned.personas.items()},
        learned.uncredited.model_dump(),
        len(learned.suppressions),
    )


def source(bug: Bug, fixed: bool = False, touched: bool = False) -> str:
    call = f"careful_{bug.tag}" if fixed else f"risky_{bug.tag}"
    tail = "# reviewed again\n" if touched else ""
    body = f"def handle(items):\n    total = {call}(items)\n    return total\n"
    return f'"""Part {bug.tag}."""\n\n\n{body}{tail}'


def added(path: str, text: str) -> PullFile:
    lines = text.splitlines()
    patch = f"@@ -0,0 +1,{len(lines)} @@\n" + "\n".join(f"+{line}" for line in lines)
    return PullFile(path=path, status="added", additions=len(lines), patch=patch)


def panel(unexpected: list[str]) -> FakeModelClient:
    """Each reviewer reports the bugs in its prompt that the script says it reports."""

    def answer(request: CompletionRequest) -> str:
        if request.schema_name != "review":
            unexpected.append(request.schema_name)
            return "{}"
        prompt = "\n".join(m.content for m in request.messages)
        family = next(f for f, m in MODELS.items() if m == request.model)
        persona = next(p for p, title in PERSONAS.items() if title in prompt)
        found = [
            {
                "path": bug.path,
                "line": BUG_LINE,
                "severity": "low" if bug.fate == "quiet" else "medium",
                "category": "bug",
                "title": bug.title,
                "body": f"risky_{bug.tag} returns None for an empty list; `total` is used as is.",
            }
            for bug in SCRIPTED
            if f"risky_{bug.tag}(" in prompt and (family, persona) in bug.reporters
        ]
        return json.dumps({"findings": found})

    return FakeModelClient(by_request=answer)


SCRIPTED = [bug for _, pull in WEEKS if isinstance(pull, Pull) for bug in pull.bugs]


@dataclass
class Month:
    tmp: Path
    unexpected: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    host: FakeGitHubHost = field(
        default_factory=lambda: FakeGitHubHost(permissions={MAINTAINER: "write", READER: "read"})
    )
    runs: list[LearningsRun] = field(default_factory=list)
    pushes: dict[int, int] = field(default_factory=dict)  # PR number → its pushes

    def __post_init__(self) -> None:
        self.host.branches["main"] = "0" * 40
        self.host.commit_files["0" * 40] = {".consensus.yml": CONFIG}
        self.models = panel(self.unexpected)
        outputs = self.tmp / "outputs"
        outputs.touch()
        self.step = ActionStep(
            ActionInputs(), ActionsRunner(workspace=self.tmp, temp=self.tmp, outputs=str(outputs))
        )
        self.services = Services(
            models=RedactingClient(self.models),
            counter=Counter(),
            keys=ProviderKeys(KEYS, needed_keys=lambda model: ()),
            journal=lambda: Journal(self.tmp / "journal.db"),
            log=self.lines.append,
            checkout=NoCheckout(),
            clock=lambda: 0.0,
            github=self.host,
        )

    # ------------------------------------------------------------------ a pull request

    def open(self, pull: Pull) -> int:
        number = max(self.host.pulls, default=0) + 1
        files = {bug.path: source(bug) for bug in pull.bugs} or {"README.md": "Typo fixed.\n"}
        self.host.add_pull(FakePull(info=self._info(number, 0), files=[]))
        self.push(number, files)
        return number

    def _info(self, number: int, push: int) -> PullRequestInfo:
        return PullRequestInfo(
            number=number,
            head_sha=f"{number:04d}{push:04d}".ljust(40, "f"),
            base_sha=self.host.branches["main"],
            base_ref="main",
            base_repo=REPO,
            head_repo=REPO,
            author="dev",
        )

    def push(self, number: int, files: dict[str, str]) -> None:
        """The PR's head is now `files`; the Action reviews it."""
        pull = self.host.pulls[number]
        self.pushes[number] = self.pushes.get(number, 0) + 1
        pull.info = self._info(number, self.pushes[number])
        pull.head_files = dict(files)
        pull.files = [added(path, text) for path, text in sorted(files.items())]
        result = review_pull_request(
            self.services, self.step, number, event="pull_request", carry=True, identity=ACTIONS
        )
        assert result.kind is ResultKind.REVIEWED, self.lines[-5:]

    def state(self, number: int) -> PublishState:
        [summary] = [
            c.body for c in self.host.issue_comments(number) if c.body.startswith(SUMMARY_MARKER)
        ]
        read = decode_state(summary)
        assert read is not None
        return read

    def act(self, number: int, bug: Bug) -> None:
        """What a person does about `bug` (a fix is a push: see `live`)."""
        if bug.fate == "dismissed":
            [tracked] = [t for t in self.state(number).findings if t.path == bug.path]
            self.command(
                number, f"/consensus dismiss {tracked.id} intentional: items is never empty"
            )
        reaction = {"down": ("-1", MAINTAINER), "up": ("+1", READER)}
        reaction["reader-down"] = ("-1", READER)
        if bug.fate in reaction:
            content, login = reaction[bug.fate]
            [comment] = [
                c
                for c in self.host.review_comments(number)
                if c.path == bug.path and c.in_reply_to is None
            ]
            self.host.comment_reactions[comment.id] = [
                HostReaction(content=content, user=login, created_at="2026-03-01T10:00:00Z")
            ]

    def command(self, number: int, body: str) -> None:
        ident = self.host.seed_comment(number, body, author=MAINTAINER)
        event = IssueCommentEvent.model_validate(
            {
                "action": "created",
                "issue": {"number": number, "pull_request": {"url": "…"}},
                "comment": {
                    "id": ident,
                    "body": body,
                    "user": {"login": MAINTAINER, "type": "User"},
                },
            }
        )
        assert handle_comment(self.services, self.step, event).kind is ResultKind.DONE

    def live(self, pull: Pull, day: str) -> None:
        """A PR opened, reviewed, acted on, pushed to, and closed on `day`."""
        number = self.open(pull)
        for bug in pull.bugs:
            self.act(number, bug)
        files = dict(self.host.pulls[number].head_files)
        fixed = [bug for bug in pull.bugs if bug.fate == "fixed"]
        if pull.carry_first and fixed:  # a push to another file: the fixed one is carried
            other = next(bug for bug in pull.bugs if bug not in fixed)
            files[other.path] = source(other, touched=True)
            self.push(number, files)
            assert any("their decisions are carried" in line for line in self.lines[-20:])
        if fixed:
            files.update({bug.path: source(bug, fixed=True) for bug in fixed})
            self.push(number, files)
        closed = self.host.pulls[number]
        closed.info = closed.info.model_copy(update={"state": "closed"})
        closed.closed_at, closed.merged = f"2026-{day}T16:00:00Z", pull.merged
        context = PullContext.open(self.services, self.step, number, ACTIONS)
        close_on_pull(context, merged=pull.merged)

    # ------------------------------------------------------------------ the learnings

    def learn(self) -> LearningsRun:
        run = update_learnings(self.host, ACTIONS, self.lines.append)
        self.runs.append(run)
        return run

    def merge_learnings(self, day: str) -> None:
        [number] = self.host.learnings_pulls
        self.host.merge_pull(number, at=f"2026-{day}T09:00:00Z")

    def file(self, ref: str) -> Learned:
        return parse_learned(self.host.read_file(LEARNED_PATH, ref) or "")


def test_a_month_of_pull_requests_ends_with_counts_equal_to_the_hand_count(tmp_path: Path) -> None:
    month = Month(tmp_path)
    lived: list[Pull] = []
    proposed: list[Pull] = []  # the PRs the open learnings PR counts, as of its last run
    merged: list[Pull] = []  # the PRs the file on main counts
    for day, event in WEEKS:
        if isinstance(event, Pull):
            month.live(event, day)
            lived.append(event)
        elif event == "run":
            month.learn()
            proposed = list(lived)
        else:
            month.merge_learnings(day)
            merged = proposed

    assert len(lived) == 20 and month.unexpected == []  # reviews only: no judge was asked
    first, second, third, fourth = month.runs
    assert first.changed and second.changed and second.pull == first.pull  # updated, kept open
    assert third.pull not in (None, first.pull) and fourth.pull not in (None, third.pull)
    # The week's PRs with findings of ours (one of week 3 had none), never a learnings PR.
    assert (len(third.counted), len(fourth.counted)) == (4, 5)
    assert first.pull not in third.counted and third.pull not in fourth.counted
    assert list(month.host.learnings_pulls) == [fourth.pull]  # exactly one open
    assert {month.host.pulls[n].merged for n in (first.pull, third.pull)} == {True}
    # Proposed by the open PR: the whole month; on main: up to the second merge.
    assert counts(month.file(BRANCH)) == hand_count(lived)
    assert counts(month.file("main")) == hand_count(merged)
    assert all(e.reporter.fixed for e in month.file(BRANCH).families.values())  # each fixed some
