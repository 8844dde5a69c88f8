"""The learnings run as a flow over the in-memory GitHub: one PR opened, then updated (not a
second one) when more PRs close, nothing written when nothing is new, a summary someone
else edited last is not believed; the learnings PR's merge is not counted, and, as on
GitHub, a PR whose branch is reset to its base is closed."""

from __future__ import annotations

from consensus.app.learnings_run import BRANCH, update_learnings
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
    assert "#2, #4." in host.pulls[first.pull].body  # its description says so
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


def test_a_learnings_pr_whose_branch_is_reset_to_its_base_closes_as_on_github() -> None:
    host = FakeGitHubHost(now="2026-11-02T09:00:00Z")
    host.branches["main"] = "m" * 40
    close(host, 2, "2026-11-02T00:00:00Z")
    first = update_learnings(host, ACTIONS, [].append)
    assert first.pull is not None and host.pulls[first.pull].info.state == "open"
    host.move_branch(BRANCH, host.branches["main"])  # someone resets the branch
    assert host.pulls[first.pull].info.state == "closed" and host.learnings_pulls == {}
    assert host.pulls[first.pull].closed_at == "2026-11-02T09:00:00Z"
    close(host, 4, "2026-11-03T00:00:00Z", known=3)
    again = update_learnings(host, ACTIONS, [].append)
    assert again.pull not in (None, first.pull) and list(host.learnings_pulls) == [again.pull]
    assert again.counted == (2, 4)  # the closed learnings PR is not one of them


def test_a_merged_learnings_pr_is_not_counted_and_proposes_nothing_new() -> None:
    host = FakeGitHubHost()
    host.branches["main"] = "m" * 40
    close(host, 2, "2026-11-02T00:00:00Z")
    first = update_learnings(host, ACTIONS, [].append)
    assert first.pull is not None
    host.merge_pull(first.pull, at="2026-11-03T00:00:00Z")
    merged = host.read_file(LEARNED_PATH, "main")
    assert merged == host.read_file(LEARNED_PATH, BRANCH)
    writes = list(host.writes)
    lines: list[str] = []
    again = update_learnings(host, ACTIONS, lines.append)
    assert not again.changed and host.writes == writes and host.learnings_pulls == {}
    assert lines == [
        "learnings: no PR with outcomes or findings closed since 2026-11-02T00:00:00Z: "
        "nothing to do"
    ]
