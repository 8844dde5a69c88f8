"""`consensus demo --gitlab`: the sample change as a merge request on a simulated GitLab.

`gitlab_stage` starts the loopback GitLab and provider servers that ship in the package,
pushes the sample repository to the simulated GitLab as merge request !1 of `acme/shop`
(its target branch carrying a .consensus.yml that lists the simulated panel), and yields
the environment GitLab's runner gives a merge request pipeline's job. The face runs
`consensus gitlab` with it; then the stage's `write_page` reads back what the job posted
(the summary note, the threads on the diff) and writes it as GitLab would render it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from consensus.app.demo.demo import DemoPlaces, HostStage, hosted_sample
from consensus.render.github_page import InlineNote
from consensus.render.gitlab_page import MergeRequestPage, Thread, render_merge_request_page
from consensus_sim import demo_panel
from consensus_sim.gitlab import DEVELOPER, FakeGitLab

PROJECT, PROJECT_ID, IID = "acme/shop", 42, 1
BOT = "project_42_bot_d3m0"  # a project access token's user, as GitLab names it
TOKEN = "glpat-simulated-not-a-token"
NOTICE = (
    "consensus demo: SIMULATED providers and a SIMULATED GitLab (loopback servers on this "
    "machine). The summary note and the threads below are what the real `consensus gitlab` "
    "job posted to them."
)
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@contextmanager
def gitlab_stage(places: DemoPlaces) -> Iterator[HostStage]:
    """Servers up, merge request !1 open, a merge request pipeline's environment ready; all
    stopped when the block ends."""
    with hosted_sample(places, "gitlab") as sample, FakeGitLab() as gitlab:
        gitlab.project(PROJECT, ident=PROJECT_ID)
        gitlab.user(BOT, bot=True, token=TOKEN)
        gitlab.add_member(PROJECT, BOT, DEVELOPER)
        mr = gitlab.load_merge_request_from_git(
            PROJECT,
            IID,
            sample.checkout,
            base=demo_panel.BASE_BRANCH,
            head=demo_panel.FEATURE_BRANCH,
            title=demo_panel.COMMIT_MESSAGE,
            author="newcomer",
            source_branch=demo_panel.FEATURE_BRANCH,
        )
        env = {
            "CI": "true",
            "GITLAB_CI": "true",
            "CI_SERVER_URL": gitlab.api_url.removesuffix("/api/v4"),
            "CI_API_V4_URL": gitlab.api_url,
            "CI_PROJECT_ID": str(PROJECT_ID),
            "CI_PROJECT_PATH": PROJECT,
            "CI_PROJECT_DIR": str(sample.folder),
            "CI_PIPELINE_SOURCE": "merge_request_event",
            "CI_MERGE_REQUEST_IID": str(IID),
            "CI_MERGE_REQUEST_PROJECT_ID": str(PROJECT_ID),
            "CI_MERGE_REQUEST_SOURCE_PROJECT_ID": str(PROJECT_ID),
            "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": demo_panel.BASE_BRANCH,
            "CI_MERGE_REQUEST_EVENT_TYPE": "detached",
            "CI_COMMIT_SHA": mr.latest.head_sha,
            "CONSENSUS_GITLAB_TOKEN": TOKEN,
            **sample.env,
        }
        yield HostStage(env, lambda: _merge_request_page(gitlab, sample.folder))


def _merge_request_page(gitlab: FakeGitLab, folder: Path) -> Path:
    """Write what the merge request shows now as an HTML page; its path."""
    project = gitlab.project(PROJECT)
    mr = project.merge_requests[IID]
    diffs = {v.head_sha: {d["new_path"]: str(d["diff"]) for d in v.diffs} for v in mr.versions}
    discussions = [d for d in project.discussions if d["_mr"] == IID]
    ours = [d for d in discussions if d["notes"][0]["author"]["username"] == BOT]
    threads = tuple(_thread(d, diffs) for d in ours if d["notes"][0].get("type") == "DiffNote")
    summaries = [d["notes"][0]["body"] for d in ours if d["notes"][0].get("type") != "DiffNote"]
    page = MergeRequestPage(
        project=PROJECT,
        iid=IID,
        title=mr.title,
        author=BOT,
        threads=tuple(sorted(threads, key=lambda t: (t.note.path, t.note.line))),
        summary=summaries[0] if summaries else "(no summary note was posted)",
        notice=NOTICE,
    )
    path = folder / "merge-request.html"
    path.write_text(render_merge_request_page(page), encoding="utf-8")
    return path


def _thread(discussion: dict[str, Any], diffs: dict[str, dict[str, str]]) -> Thread:
    first = discussion["notes"][0]
    position = first["position"]
    pair = (position.get("old_line"), position.get("new_line"))
    diff = diffs.get(position["head_sha"], {}).get(position["new_path"], "")
    start = (position.get("line_range") or {}).get("start") or {}
    note = InlineNote(
        path=position["new_path"],
        line=int(pair[1] or pair[0] or 0),
        diff_hunk=hunk_up_to(diff, pair),
        body=first["body"],
        start_line=start.get("new_line") or start.get("old_line"),
    )
    return Thread(note, resolved=bool(first.get("resolved")))


def hunk_up_to(diff: str, pair: tuple[int | None, int | None]) -> str:
    """The hunk of `diff` that holds the line named by (old_line, new_line), from its
    header to that line, as GitHub's `diff_hunk` runs."""
    hunk: list[str] = []
    old = new = 0
    here: tuple[int | None, int | None]
    for text in diff.rstrip("\n").split("\n"):
        if match := _HUNK.match(text):
            hunk, old, new = [text], int(match.group(1)), int(match.group(2))
            continue
        hunk.append(text)
        if text.startswith("+"):
            here, new = (None, new), new + 1
        elif text.startswith("-"):
            here, old = (old, None), old + 1
        elif text.startswith("\\"):
            continue
        else:
            here, old, new = (old, new), old + 1, new + 1
        if here == pair:
            return "\n".join(hunk)
    return "\n".join(hunk)
