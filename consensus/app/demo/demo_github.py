"""`consensus demo --github`: the sample change as a pull request on a simulated GitHub.

`github_stage` starts the loopback GitHub and provider servers that ship in the package,
pushes the sample repository to the simulated GitHub as pull request #1 (its main branch
carrying a .consensus.yml that lists the simulated panel), and yields the environment a
GitHub Actions step would give `consensus action`. The face runs the Action with it; then
the stage's `write_page` reads back what the Action posted (the review, its inline
comments, the summary comment) and writes it as GitHub would render it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from consensus.app.demo.demo import DemoPlaces, HostStage, hosted_sample
from consensus.render.github_page import InlineNote, PullPage, inline_notes, render_pull_page
from consensus_sim import demo_panel
from consensus_sim.github_server import FakeGitHub, human, load_pull_from_git

REPOSITORY = "acme/shop"
NUMBER = 1
NOTICE = (
    "consensus demo: SIMULATED providers and a SIMULATED GitHub (loopback servers on this "
    "machine). The review, the inline comments and the summary below are what the real "
    "`consensus action` posted to them."
)


@contextmanager
def github_stage(places: DemoPlaces) -> Iterator[HostStage]:
    """Servers up, pull request #1 open, an Actions step's environment ready; all stopped
    when the block ends."""
    with hosted_sample(places, "github") as sample, FakeGitHub() as github:
        folder = sample.folder
        pull = load_pull_from_git(
            github,
            REPOSITORY,
            NUMBER,
            sample.checkout,
            base=demo_panel.BASE_BRANCH,
            head=demo_panel.FEATURE_BRANCH,
            title=demo_panel.COMMIT_MESSAGE,
            head_ref=demo_panel.FEATURE_BRANCH,
            user=human("newcomer"),
        )
        event = folder / "event.json"
        payload = {
            "action": "opened",
            "number": NUMBER,
            "pull_request": github.pull_json(github.repos[REPOSITORY], pull),
            "repository": {"full_name": REPOSITORY},
            "sender": human("newcomer"),
        }
        event.write_text(json.dumps(payload), encoding="utf-8")
        for name in ("step-summary.md", "outputs.txt"):
            (folder / name).write_text("", encoding="utf-8")
        env = {
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_API_URL": github.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_TOKEN": "ghs_simulated_not_a_token",
            "GITHUB_WORKSPACE": str(sample.checkout),
            "GITHUB_STEP_SUMMARY": str(folder / "step-summary.md"),
            "GITHUB_OUTPUT": str(folder / "outputs.txt"),
            "RUNNER_TEMP": str(folder),
            "CONSENSUS_POST_INTERVAL": "0",
            **sample.env,
        }
        yield HostStage(env, lambda: _pull_page(github, folder))


def _pull_page(github: FakeGitHub, folder: Path) -> Path:
    """Write what the pull request shows now as an HTML page; its path."""
    repo = github.repos[REPOSITORY]
    reviews = [r for r in repo.reviews if r.get("_number") == NUMBER]
    review = reviews[-1] if reviews else {"body": "(no review was posted)", "state": "-"}
    notes = [
        InlineNote(
            str(c["path"]),
            int(c["line"]),
            str(c["diff_hunk"]),
            str(c["body"]),
            int(c["start_line"]) if c.get("start_line") else None,
        )
        for c in repo.review_comments
        if c.get("pull_request_review_id") == review.get("id")
    ]
    summaries = [c for c in repo.issue_comments if c["user"]["type"] == "Bot"]
    page = PullPage(
        repository=REPOSITORY,
        number=NUMBER,
        title=demo_panel.COMMIT_MESSAGE,
        author="github-actions[bot]",
        review_state=str(review.get("state")),
        review_body=str(review.get("body") or ""),
        inline=inline_notes(notes),
        summary=str(summaries[-1]["body"]) if summaries else "(no summary comment was posted)",
        notice=NOTICE,
    )
    path = folder / "pull-request.html"
    path.write_text(render_pull_page(page), encoding="utf-8")
    return path
