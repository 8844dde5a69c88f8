"""`consensus demo`: see a whole review, with simulated providers, before adding a key."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from consensus.app.demo.demo import DemoPlaces, HostStage

from consensus.cli.options import handles_errors, logger, progress_observer

BANNER = (
    "consensus demo: SIMULATED PROVIDERS. Four scripted model servers on 127.0.0.1 stand in "
    "for OpenAI, Anthropic, Qwen and Llama; no key is used and nothing leaves this machine. "
    "Everything else is the real review."
)


@click.command()
@click.option(
    "--into",
    "into",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the sample repository and its report here (default: a new temp folder); the "
    "run goes into your journal, where `consensus runs` lists it.",
)
@click.option(
    "--github",
    is_flag=True,
    help="Also run the GitHub Action on a simulated GitHub and show what it posts.",
)
@click.option(
    "--gitlab",
    is_flag=True,
    help="Also run the GitLab CI job on a simulated GitLab merge request and show what it posts.",
)
@handles_errors
def demo(into: Path | None, github: bool, gitlab: bool) -> None:
    """Review a sample change with simulated providers: no key, no network."""
    import asyncio
    import dataclasses

    from consensus.app.demo.demo import KEY_VARIABLE, NOT_A_KEY, prepare, run_demo
    from consensus.app.wiring import consensus_home, services
    from consensus.render.text import render_text

    log = logger()
    root = into or Path(tempfile.mkdtemp(prefix="consensus-demo-"))
    click.echo(BANNER, err=True)
    places = prepare(root.resolve(), consensus_home(os.environ))
    log(f"sample repository: {places.repo} (branch feature/order-search against main)")
    # Only the demo's own key, and the user's journal: no provider key of the user is read.
    env = {KEY_VARIABLE: NOT_A_KEY, "CONSENSUS_HOME": str(places.home)}
    wired = services(env, log=log)
    observer = progress_observer(lambda model: wired.counter.price(model) is not None)
    wired = dataclasses.replace(wired, progress=lambda: [observer])
    try:
        run = asyncio.run(run_demo(places, wired))
    finally:
        observer.close()
    click.echo(f"[{run.label}]")
    click.echo(render_text(run.report), nl=False)
    click.echo("(findings above come from simulated providers: scripted replies, not models)")
    if github:
        page = _github(places, log)
        log(f"the pull request as GitHub would show it (simulated GitHub): {page}")
    if gitlab:
        page = _gitlab(places, log)
        log(f"the merge request as GitLab would show it (simulated GitLab): {page}")
    log(f"HTML report (simulated providers): {places.html}")
    log(
        f"run {run.report.run_id} is in your journal: `consensus runs` lists it, `consensus "
        f"replay {run.report.run_id}` derives it again without any model"
    )
    log(
        "review your own branch: set provider keys of two families, then `consensus review "
        "--dry-run` to see the plan, and `consensus review`"
    )
    sys.exit(0)


def _github(places: DemoPlaces, log: Callable[[str], None]) -> Path:
    """The Action, as a GitHub Actions step runs it, against the simulated GitHub."""
    from consensus.action.main import run
    from consensus.app.demo.demo_github import github_stage

    log("GitHub: pull request #1 of acme/shop opened on the simulated GitHub; running the Action")
    return _run_on(github_stage(places), run, "the Action", log)


def _gitlab(places: DemoPlaces, log: Callable[[str], None]) -> Path:
    """`consensus gitlab`, as a merge request pipeline's job runs it, against the simulated
    GitLab."""
    from consensus.action.gitlab import run
    from consensus.app.demo.demo_gitlab import gitlab_stage

    log("GitLab: merge request !1 of acme/shop opened on the simulated GitLab; running the job")
    return _run_on(gitlab_stage(places), run, "the job", log)


def _run_on(
    stage: AbstractContextManager[HostStage],
    job: Callable[..., int],
    name: str,
    log: Callable[[str], None],
) -> Path:
    """Run a host's CI job (its face, as the host's runner starts it) on the simulated host;
    the page of what it posted there."""
    with stage as ready:
        code = job(ready.env, log=log)
        page = ready.write_page()
    log(f"{name} exited {code}")
    return page
