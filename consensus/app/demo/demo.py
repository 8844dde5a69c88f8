"""`consensus demo`: a real review of a sample change by simulated providers.

The flow: write a small git repository whose feature branch carries a realistic change
(consensus_sim/demo_panel.py), start the loopback provider server that ships in the
package, point four providers of four families at it, and run the real review (fan-out,
align, score, verification, the report) with the real litellm client over HTTP on
127.0.0.1. No key, no network. The run goes into the user's own journal (where
`consensus runs` looks), labelled as the demo's, so `consensus runs`, `replay` and
`report` find it afterwards; the HTML report is written beside the repository.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from consensus.app.jobs import JobRequest, RawDiff, prepare_job
from consensus.app.journaled import run_review
from consensus.app.run_page import html_report
from consensus.app.services import Services
from consensus.app.wiring import branch_diff, local_source, local_trees, run_git
from consensus.errors import UsageError
from consensus.model.report import Report
from consensus.review.guidelines import Guidelines
from consensus.settings.config import Settings, parse_settings
from consensus.settings.personas import builtin_persona_dir, load_personas, select_personas
from consensus_sim import demo_panel
from consensus_sim.provider_server import FakeProviderServer

SIMULATED = "simulated providers"
NOTICE = (
    "consensus demo: SIMULATED providers. Scripted model servers on this machine stood in "
    "for OpenAI, Anthropic, Qwen and Llama; the review, the votes and the verification are "
    "the real pipeline's."
)
KEY_VARIABLE = "CONSENSUS_DEMO_KEY"
# The loopback server checks no key; litellm's OpenAI and Anthropic clients want one.
NOT_A_KEY = "sim-not-a-real-key"
REPLY_DELAY_S = 0.1  # a little latency, so the report's timeline shows calls overlapping
AUTHOR = ["-c", "user.name=Demo Dev", "-c", "user.email=dev@example.com"]


@dataclass(frozen=True)
class DemoPlaces:
    """Where the demo writes: the repository, the HTML report; and the journal's home (the
    user's own, $CONSENSUS_HOME or the platform's cache)."""

    root: Path
    repo: Path
    home: Path
    html: Path

    @classmethod
    def under(cls, root: Path, home: Path) -> DemoPlaces:
        return cls(root, root / demo_panel.REPOSITORY, home, root / "report.html")


@dataclass(frozen=True)
class DemoRun:
    """What the demo produced."""

    places: DemoPlaces
    report: Report
    label: str


def prepare(root: Path, home: Path) -> DemoPlaces:
    """The demo's folder, which must be new or empty (nothing of the user's is touched), and
    the journal's home."""
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise UsageError(f"{root} is not an empty directory", fix="pass --into a new directory")
    places = DemoPlaces.under(root, home)
    places.repo.mkdir(parents=True)
    write_repository(places.repo)
    return places


def write_repository(repo: Path, base_extra: dict[str, str] | None = None) -> None:
    """The sample repository: `main`, then the feature branch with the change; `base_extra`
    adds files to main's commit (the GitHub stage's .consensus.yml)."""
    run_git(repo, ["init", "-q", "-b", demo_panel.BASE_BRANCH])
    _write(repo, {**demo_panel.FILES_BEFORE, **(base_extra or {})})
    run_git(repo, ["add", "-A"])
    run_git(repo, [*AUTHOR, "commit", "-q", "-m", "Orders: connect and total"])
    run_git(repo, ["checkout", "-q", "-b", demo_panel.FEATURE_BRANCH])
    _write(repo, demo_panel.FILES_AFTER)
    run_git(repo, [*AUTHOR, "commit", "-q", "-am", demo_panel.COMMIT_MESSAGE])


def _write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@dataclass(frozen=True)
class HostStage:
    """A simulated code host, running: the environment its CI job is given, and what writes
    the page of what the job posted there, as the host would show it (its path)."""

    env: dict[str, str]
    write_page: Callable[[], Path]


@dataclass(frozen=True)
class HostedSample:
    """The sample repository checked out for one host's stage, under the stage's folder, and
    what every host's job is given besides its host's variables (the user's journal, the
    demo's key)."""

    folder: Path
    checkout: Path
    env: dict[str, str]


@contextmanager
def hosted_sample(places: DemoPlaces, host: str) -> Iterator[HostedSample]:
    """The sample repository under `places.root / host`, its main branch carrying a
    .consensus.yml that lists the simulated panel, whose providers are up until the block
    ends."""
    folder = places.root / host
    checkout = folder / demo_panel.REPOSITORY
    checkout.mkdir(parents=True)
    with FakeProviderServer(demo_panel.demo_script(REPLY_DELAY_S)) as providers:
        write_repository(checkout, {".consensus.yml": demo_config(providers.url)})
        # The user's journal (`consensus runs` lists the run), and the demo's key alone.
        env = {"CONSENSUS_HOME": str(places.home), KEY_VARIABLE: NOT_A_KEY}
        yield HostedSample(folder, checkout, env)


def demo_config(url: str) -> str:
    """The panel as a .consensus.yml lists it, every provider on the loopback server."""
    lines = ["providers:"]
    for model in demo_panel.MODELS:
        base = url if model.startswith(("anthropic/", "ollama/")) else f"{url}/v1"
        key = "" if model.startswith("ollama/") else f", api_key_env: {KEY_VARIABLE}"
        lines.append(f"  - {{model: {model}, api_base: '{base}'{key}}}")
    lines.append("personas: [correctness, security]")
    # No calibration: the review reads what each judge is worth from the run's own votes.
    return "\n".join(lines) + "\n"


def demo_settings(url: str) -> Settings:
    return parse_settings(demo_config(url), source="the demo's settings")


async def run_demo(places: DemoPlaces, services: Services) -> DemoRun:
    """Review the demo repository's feature branch with the simulated panel: the same job
    preparation, journal and pipeline as `consensus review`."""
    base, head = demo_panel.BASE_BRANCH, demo_panel.FEATURE_BRANCH
    with FakeProviderServer(demo_panel.demo_script(REPLY_DELAY_S)) as server:
        settings = demo_settings(server.url)
        label = f"{demo_panel.REPOSITORY}: {base}...{head} ({SIMULATED}, consensus demo)"
        request = JobRequest(
            settings=settings,
            providers=lambda: settings.providers,
            personas=lambda chosen, source: select_personas(
                load_personas([builtin_persona_dir()]), chosen.personas, source=source
            ),
            personas_from="the demo",
            guidelines=lambda chosen: Guidelines(),
            label=label,
        )
        raw = RawDiff(branch_diff(places.repo, base, head))
        job = prepare_job(raw, request, services.keys, services.log)
        source = local_source(places.repo, head, from_diff_file=False)
        trees = local_trees(places.repo, base, head, from_diff_file=False)
        report = await run_review(job, services, source=source, fresh=True, trees=trees)
    journal = services.journal()
    try:
        page = html_report(journal, report.run_id, warn=services.log, notice=NOTICE)
    finally:
        journal.close()
    places.html.write_text(page, encoding="utf-8")
    return DemoRun(places, report, label)
