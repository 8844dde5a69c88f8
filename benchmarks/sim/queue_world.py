"""A repository full of agent PRs on the loopback fake GitHub, for the queue's tests and
benchmark: agent PRs from bots, human PRs, summary comments that carry each PR's gate
result (as the review step leaves them), CODEOWNERS and a config on the default branch."""

from __future__ import annotations

import dataclasses

from consensus.adapters.github import GitHubHost, Retries
from consensus.model.base import Severity
from consensus.publish.state import PublishState, TrackedFinding, encode_state
from consensus.publish.thread import SUMMARY_MARKER
from consensus_sim.github_server import FakeGitHub, JsonObject, PullRequest, human

REPO = "acme/service"
CONFIG = "queue:\n  max_in_review: 3\npublish:\n  request_changes_on: high\n"
CODEOWNERS = "* @alice\n/src/auth/ @bob\n"
BOTS = ("copilot-swe-agent[bot]", "devin-ai-integration[bot]", "codex[bot]")


def bot(login: str) -> JsonObject:
    return {"login": login, "id": abs(hash(login)) % 10**6, "type": "Bot"}


def patch_at(line: int, count: int) -> str:
    """A hunk replacing `count` base lines from `line` with as many new ones."""
    removed = "".join(f"\n-old {n}" for n in range(count))
    added = "".join(f"\n+new {n}" for n in range(count))
    return f"@@ -{line},{count} +{line},{count} @@{removed}{added}"


@dataclasses.dataclass(frozen=True)
class Spec:
    number: int
    author: str
    day: int
    path: str
    lines: int = 10
    at: int = 1
    severity: Severity | None = None  # an open consensus finding of this severity

    @property
    def human(self) -> bool:
        return not self.author.endswith("[bot]")


# Riskiest first: #4 (a medium finding: 6), #2 (auth: 3), #3 (300 lines: 2), #7 (60 lines:
# 1), then the score-0 ones by age: #1, #5, #6. #6 overlaps #5. #8 has a high finding.
STANDARD = (
    Spec(1, BOTS[2], 1, "src/a.py"),
    Spec(2, BOTS[0], 2, "src/auth/session.py"),
    Spec(3, BOTS[1], 3, "src/c.py", lines=300),
    Spec(4, BOTS[2], 4, "src/d.py", severity=Severity.MEDIUM),
    Spec(5, BOTS[0], 5, "src/shared.py", at=10, lines=6),
    Spec(6, BOTS[1], 6, "src/shared.py", at=11, lines=6),
    Spec(7, BOTS[2], 7, "src/g.py", lines=60),
    Spec(8, BOTS[0], 8, "src/h.py", severity=Severity.HIGH),
    Spec(9, "carol", 1, "src/a.py"),
    Spec(10, "dave", 2, "src/shared.py", at=10, lines=6),
)


def add_pull(github: FakeGitHub, spec: Spec, *, reviewed: bool = True) -> PullRequest:
    count = max(1, spec.lines // 2)
    files: list[JsonObject] = [
        {
            "filename": spec.path,
            "status": "modified",
            "additions": count,
            "deletions": count,
            "patch": patch_at(spec.at, count),
        }
    ]
    pull = PullRequest(
        number=spec.number,
        head_sha=f"{spec.number:040x}",
        base_sha="b" * 40,
        files=files,
        title=f"Change {spec.number}",
        user=human(spec.author) if spec.human else bot(spec.author),
        created_at=f"2026-01-{spec.day:02d}T00:00:00Z",
    )
    github.repo(REPO).pulls[spec.number] = pull
    if reviewed and not spec.human:
        review(github, pull, spec.severity)
    return pull


def review(github: FakeGitHub, pull: PullRequest, severity: Severity | None) -> None:
    """The summary comment the review step leaves: its state names head and findings."""
    findings = ()
    if severity is not None:
        path = pull.files[0]["filename"]
        findings = (
            TrackedFinding(
                fingerprint="f" * 16,
                id="F1",
                path=path,
                line=2,
                severity=severity,
                title="Unchecked input reaches the query",
                inline=True,
            ),
        )
    state = PublishState(head_sha=pull.head_sha, findings=findings)
    body = f"{SUMMARY_MARKER}\n## consensus review\n\n{encode_state(state)}"
    comments = github.repo(REPO).issue_comments
    mine = [c for c in comments if c["_number"] == pull.number]
    summary = next((c for c in mine if str(c["body"]).startswith(SUMMARY_MARKER)), None)
    if summary is not None:  # the review step edits its summary in place
        summary["body"] = body
    else:
        github.add_issue_comment(REPO, pull.number, body, bot("github-actions[bot]"))


def build(github: FakeGitHub, specs: tuple[Spec, ...] = STANDARD, config: str = CONFIG) -> None:
    repo = github.repo(REPO)
    repo.snapshots["main"] = {".consensus.yml": config, ".github/CODEOWNERS": CODEOWNERS}
    for spec in specs:
        add_pull(github, spec)


def host(github: FakeGitHub, **options: object) -> GitHubHost:
    return GitHubHost(
        REPO,
        token="ghs_fake",
        base_url=github.url,
        write_interval_s=0,
        retries=Retries(sleep=lambda seconds: None),
        **options,  # type: ignore[arg-type]
    )


def labels(github: FakeGitHub) -> dict[int, list[str]]:
    repo = github.repo(REPO)
    return {n: sorted(repo.labels.get(n, [])) for n in sorted(repo.pulls)}


def queue_comments(github: FakeGitHub, number: int) -> list[str]:
    comments = github.repo(REPO).issue_comments
    return [
        str(c["body"])
        for c in comments
        if c["_number"] == number and str(c["body"]).startswith("<!-- consensus:queue -->")
    ]
