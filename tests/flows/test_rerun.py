"""A re-run on the same head (a workflow re-run, `reopened`): every file's decisions are
carried from the summary's state, and the run publishes exactly what the first run
published. Whatever kept a finding out of the first run's inline review (code the change
only moved, the inline limit, `publish.min_severity`, GitHub refusing the comment) keeps
it out again: 0 model calls, 0 reviews, 0 inline comments."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from consensus.app.pull.review import review_pull_request
from consensus.model.flow_result import ResultKind
from consensus.ports import CompletionRequest, PullFile
from consensus.publish.state import decode_state
from consensus.publish.thread import ACTIONS
from consensus.testing import FakeModelClient
from tests.flows.flows_world import CONFIG, FINDING, HEAD_SHA, NUMBER, PATCH, NoCheckout, World

HELPER = [  # moved byte for byte: removed from text.py, added to helpers.py
    "def slugify(title):",
    '    """The title as a URL slug."""',
    '    words = re.findall(r"[a-z0-9]+", title.lower())',
    '    return "-".join(words)',
    "",
    "",
]
TEXT_PATCH = "\n".join(
    [
        "@@ -8,10 +8,4 @@ from app.helpers import slugify",
        " ",
        " ",
        *(f"-{line}" for line in HELPER),
        " def headline(post):",
        "     return post.title.strip()",
    ]
)
HELPERS_PATCH = "\n".join(
    [
        "@@ -1,4 +1,10 @@",
        " import re",
        " ",
        " ",
        *(f"+{line}" for line in HELPER),
        " def initials(name):",
    ]
)
MOVED_HELPER = [  # helpers between modules, byte for byte
    PullFile(path="src/app/text.py", status="modified", deletions=6, patch=TEXT_PATCH),
    PullFile(path="src/app/helpers.py", status="modified", additions=6, patch=HELPERS_PATCH),
]
ASCII_ONLY = {
    "path": "src/app/helpers.py",
    "line": 6,
    "severity": "medium",
    "category": "bug",
    "title": "slugify drops every non-ASCII letter",
    "body": "`[a-z0-9]+` matches ASCII only: a title in Greek or with accents becomes an "
    "empty or shortened slug.",
}
NO_CLOSE = {
    "path": "src/app/db.py",
    "line": 12,
    "severity": "medium",
    "category": "bug",
    "title": "Cursor is never closed",
    "body": "`conn.cursor()` is not closed when `fetchone` raises; use a `with` block.",
}
BIG = "\n".join(f"VALUE_{n} = {n}" for n in range(1, 40)) + "\nresult = eval(input())\n"
BIG_SECTION = (
    "diff --git a/src/app/big.py b/src/app/big.py\n"
    "new file mode 100644\n"
    "--- /dev/null\n"
    "+++ b/src/app/big.py\n"
    "@@ -0,0 +1,40 @@\n" + "".join(f"+{line}\n" for line in BIG.splitlines())
)
EVAL = {
    "path": "src/app/big.py",
    "line": 40,
    "severity": "critical",
    "category": "security",
    "title": "eval of user input",
    "body": "`eval(input())` runs whatever the user types as Python code.",
}


def reporting(*findings: Mapping[str, object]) -> FakeModelClient:
    """Every reviewer reports `findings`; every verifier confirms."""

    def answer(request: CompletionRequest) -> str:
        if request.schema_name == "verdict":
            return json.dumps({"verdict": "confirmed", "reason": "the code shows it"})
        return json.dumps({"findings": list(findings)})

    return FakeModelClient(by_request=answer)


class BigFileCheckout(NoCheckout):
    """A checkout that holds the head: the diff of the file whose patch GitHub omitted."""

    def sections(self, workspace: Path, base_sha: str, head_sha: str) -> dict[str, str] | None:
        return {"src/app/big.py": BIG_SECTION}


DB_FILE = PullFile(path="src/app/db.py", status="modified", additions=2, patch=PATCH)
BIG_FILE = PullFile(path="src/app/big.py", status="added", additions=40, patch=None)


def moved_code(tmp: Path) -> World:
    return World(tmp, files=MOVED_HELPER, models=reporting(ASCII_ONLY))


def over_the_inline_limit(tmp: Path) -> World:
    config = CONFIG + "publish: {max_inline_comments: 1}\n"
    return World(tmp, config=config, models=reporting(FINDING, NO_CLOSE))


def below_min_severity(tmp: Path) -> World:
    config = CONFIG + "publish: {min_severity: high}\n"
    return World(tmp, config=config, models=reporting(FINDING, NO_CLOSE))


def refused_by_github(tmp: Path) -> World:
    # GitHub omits big.py's patch: it is reviewed from the checkout, and GitHub then
    # refuses (422) a comment on it as not part of the diff it knows.
    files = [DB_FILE, BIG_FILE]
    return World(tmp, files=files, checkout=BigFileCheckout(), models=reporting(FINDING, EVAL))


# Each reason a first run keeps a finding out of its inline review, and what it says.
KEPT_OUT: dict[str, tuple[Callable[[Path], World], str]] = {
    "moved code": (moved_code, "in moved code (from src/app/text.py:12)"),
    "over publish.max_inline_comments": (
        over_the_inline_limit,
        "over the limit of 1 inline comments",
    ),
    "below publish.min_severity": (below_min_severity, "1 summary only"),
    "refused by GitHub (422)": (refused_by_github, "GitHub refused the inline comment"),
}


def review(world: World) -> None:
    result = review_pull_request(
        world.services(), world.step(), NUMBER, event="pull_request", carry=True, identity=ACTIONS
    )
    assert result.kind is ResultKind.REVIEWED, result.reason


def decided(world: World) -> list[tuple[str, str, str, int, int]]:
    state = decode_state(world.summary())
    assert state is not None
    return [(r.id, r.fingerprint, r.status.value, r.votes_for, r.votes_of) for r in state.records]


def published(world: World) -> tuple[int, int, list[tuple[str, bool]]]:
    """Reviews, inline comments, and each tracked finding with whether it went inline."""
    state = decode_state(world.summary())
    assert state is not None
    tracked = sorted((t.fingerprint, t.inline) for t in state.findings)
    return len(world.host.pulls[NUMBER].reviews), len(world.host.review_comment_list), tracked


def test_a_rerun_after_a_helper_moved_between_modules_posts_nothing_inline(
    tmp_path: Path,
) -> None:
    world = moved_code(tmp_path)
    review(world)
    assert world.host.pulls[NUMBER].reviews == [] and world.host.review_comment_list == []
    assert "in moved code (from src/app/text.py:12)" in world.summary()
    calls, first = len(world.models.calls), decided(world)
    assert calls > 0 and [status for _, _, status, _, _ in first] == ["consensus"]

    review(world)  # the same head again
    assert any("every file is unchanged since" in line for line in world.lines)
    assert len(world.models.calls) == calls
    assert world.host.pulls[NUMBER].reviews == [] and world.host.review_comment_list == []
    assert decided(world) == first
    assert "in moved code (from src/app/text.py:12)" in world.summary()
    assert f"carried from {HEAD_SHA[:7]}" in world.summary()


@pytest.mark.parametrize("reason", sorted(KEPT_OUT))
def test_a_rerun_on_the_same_head_keeps_out_what_the_first_run_kept_out(
    tmp_path: Path, reason: str
) -> None:
    make_world, says = KEPT_OUT[reason]
    world = make_world(tmp_path)
    review(world)
    assert says in world.summary()
    calls, writes, first = len(world.models.calls), len(world.host.writes), published(world)
    records = decided(world)

    review(world)
    assert any("every file is unchanged since" in line for line in world.lines)
    assert len(world.models.calls) == calls
    assert published(world) == first  # no new review, no new inline comment
    assert decided(world) == records
    assert not [w for w in world.host.writes[writes:] if "review" in w]  # not even refused
    assert says in world.summary()
