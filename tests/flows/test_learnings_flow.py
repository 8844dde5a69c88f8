"""The learnings run as a flow over the in-memory GitHub: one PR opened, then updated (not a
second one) when more PRs close, nothing written when nothing is new, and a summary someone
else edited last is not believed."""

from __future__ import annotations

from consensus.app.learnings import BRANCH, update_learnings
from consensus.ports import PullRequestInfo
from consensus.publish.state import PublishState, encode_state
from consensus.publish.thread import ACTIONS, SUMMARY_MARKER
from consensus.settings.learned import LEARNED_PATH, parse_learned
from consensus.testing import FakeGitHubHost, FakePull
from tests.e2e.test_learnings_e2e import KNOWN


def close(host: FakeGitHubHost, number: int, at: str, known: int | None = None) -> int:
    """PR `number` closed at `at`, its summary holding the outcomes of `KNOWN[known]`."""
    info = PullRequestInfo(
        number=number,
        head_sha="h" * 40,
        base_sha="b" * 40,
        base_repo="acme/service",
        state="closed",
    )
    host.add_pull(FakePull(info=info, files=[], closed_at=at))
    line = encode_state(PublishState(outcomes=KNOWN[known or number], closed="closed"))
    return host.seed_comment(
        number, f"{SUMMARY_MARKER}\n## consensus\n{line}", author="github-actions[bot]", bot=True
    )


def test_one_pull_request_opened_then_updated_and_nothing_new_writes_nothing() -> None:
    host = FakeGitHubHost()
    host.branches["main"] = "m" * 40
    lines: list[str] = []
    close(host, 2, "2026-11-02T00:00:00Z")
    first = update_learnings(host, ACTIONS, lines.append)
    assert first.changed and first.pull is not None and first.counted == (2,)
    assert first.pull == 3  # PR numbers are shared: the next PR is #4
    close(host, 4, "2026-11-03T00:00:00Z", known=3)
    second = update_learnings(host, ACTIONS, lines.append)
    assert second.pull == first.pull and second.counted == (2, 4)  # updated, not another
    assert list(host.learnings_pulls) == [first.pull]
    learned = parse_learned(host.read_file(LEARNED_PATH, BRANCH) or "")
    assert learned.families["openai"].reporter.fixed == 1
    assert learned.families["anthropic"].reporter.left == 1
    writes = list(host.writes)
    again = update_learnings(host, ACTIONS, lines.append)
    assert not again.changed and host.writes == writes
    assert any("already proposes this file" in line for line in lines)


def test_a_summary_someone_else_edited_last_is_not_believed() -> None:
    host = FakeGitHubHost()
    host.branches["main"] = "m" * 40
    summary = close(host, 4, "2026-11-04T00:00:00Z")
    body = host.issue_comment_list[-1].body
    host.edit_as(summary, body, editor="mallory")
    lines: list[str] = []
    run = update_learnings(host, ACTIONS, lines.append)
    assert run.learned.families == {}  # counted as a PR with no outcomes
    assert any("last edited by mallory" in line for line in lines)
