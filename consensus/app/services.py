"""What a flow works with besides its data: built once per face by app/wiring.py, handed down.

A face (`consensus review`, `consensus action`, a slash command) asks wiring for its
`Services` and passes them to the flow; no flow reads the environment or builds a model
client, a GitHub host or a journal.
Tests build the same bundle around the fakes of consensus.testing (`FakeModelClient`,
behind the same RedactingClient, and `FakeGitHubHost`) and an in-memory journal.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from consensus.app.journal_port import RunJournal
from consensus.app.secrets import run_secrets
from consensus.errors import ConfigError, UsageError
from consensus.model.analysis import AnalyzerCheck
from consensus.ports import (
    Analyzers,
    GitHubPort,
    Log,
    PullReader,
    PullRequestHost,
    SourceReader,
    TokenCounter,
    TreeReader,
)
from consensus.review.pipeline import ReviewObserver
from consensus.review.redacting import RedactingClient
from consensus.settings.action_inputs import ActionInputs
from consensus.settings.config import ProviderSettings, Settings, resolve_providers
from consensus.settings.config import unavailable_providers as _unavailable


@dataclass(frozen=True)
class ProviderKeys:
    """The provider keys this run was given, and what they allow it to call.

    `env` is read for keys only; `needed_keys(model)` names the variables a model's route
    needs (litellm knows: wiring passes its answer, tests a table); `local_models()` asks a
    local Ollama what it serves (`consensus review` with no provider configured)."""

    env: Mapping[str, str]
    needed_keys: Callable[[str], Sequence[str]]
    local_models: Callable[[], Sequence[str]] = lambda: ()  # a local Ollama's models
    # (model, api_base) → why litellm could not route it; None when it can
    unroutable: Callable[[str, str | None], str | None] = lambda model, api_base: None

    def providers(self, settings: Settings) -> tuple[ProviderSettings, ...]:
        """The configured providers, else one per API key found."""
        return resolve_providers(settings, self.env)

    def local_providers(self, settings: Settings) -> tuple[ProviderSettings, ...]:
        """The configured providers, or with none configured every keyed one and the local
        Ollama's models (asked only then)."""
        local = () if settings.providers else self.local_models()
        return resolve_providers(settings, self.env, ollama_models=local)

    def unknown(self, providers: Sequence[ProviderSettings]) -> dict[str, str]:
        """model → why no call to it could be routed (a name litellm does not know)."""
        found = {p.model: self.unroutable(p.model, p.api_base) for p in providers}
        return {model: why for model, why in found.items() if why}

    def unavailable(self, providers: Sequence[ProviderSettings]) -> dict[str, str]:
        """model → why it will not be called (its key is missing)."""
        return _unavailable(providers, self.env, self.needed_keys)

    def secrets(self, settings: Settings) -> list[str]:
        """The run's secrets (app/secrets.py), the keys `settings` name (`api_key_env`)
        among them."""
        return run_secrets(self.env, [p.api_key_env for p in settings.providers if p.api_key_env])

    def none_usable(self, settings: Settings) -> bool:
        """True when not one configured provider could be called with these keys."""
        try:
            providers = self.providers(settings)
        except ConfigError:
            return True
        return len(self.unavailable(providers)) == len(providers)


def unknown_model_fix(model: str) -> str:
    """What to write instead of a model string litellm cannot route."""
    name = model.split("/", 1)[-1]
    return (
        f"write the model as PROVIDER/NAME, e.g. openai/{name} or anthropic/{name}; for an "
        f"OpenAI-compatible server, openai/{name} with its api_base (the providers litellm "
        "knows: https://docs.litellm.ai/docs/providers)"
    )


def unknown_models_error(unknown: Mapping[str, str]) -> UsageError:
    """The planning-time error for models no call could reach, before anything is sent."""
    named = "; ".join(f"{model}: {why}" for model, why in unknown.items())
    model = next(iter(unknown))
    return UsageError(
        f"unknown model{'s' if len(unknown) > 1 else ''}: {named}", fix=unknown_model_fix(model)
    )


class Checkout(Protocol):
    """The Action's checkout of the repository, read through git (app/wiring.py)."""

    def head_source(self, host: PullReader, head_sha: str, workspace: Path) -> SourceReader:
        """The PR head's files: from the checkout when it holds the head, else the API."""
        ...

    def sections(self, workspace: Path, base_sha: str, head_sha: str) -> dict[str, str] | None:
        """Per-file sections of the checkout's diff, for files whose patch GitHub omitted."""
        ...

    def trees(self, workspace: Path, base_sha: str, head_sha: str) -> TreeReader | None:
        """The pull request's trees, for judges that read the repository; None when the
        checkout does not hold both commits."""
        ...


@dataclass(frozen=True)
class ActionsRunner:
    """Where an Action step or a GitLab CI job runs (its variables, read once): the
    checkout, the server for links, and the files the CI reads back (GitHub's
    step summary and outputs; the JSON report, which a GitLab job keeps as an artifact)."""

    workspace: Path = Path(".")
    server_url: str = "https://github.com"
    temp: Path = Path(".")
    step_summary: str = ""
    outputs: str = ""
    action_repository: str = ""  # owner/name of consensus's own Action, for setup links


@dataclass(frozen=True)
class ActionStep:
    """One `consensus action` step: its inputs (parsed once) and where it runs."""

    inputs: ActionInputs
    runner: ActionsRunner = ActionsRunner()


# (settings, the checkout, the head's files, the base's, whether the head may be run on) →
# the analyzers and SARIF files the settings name, or None (adapters/repository_analyzers.py)
AnalyzersFor = Callable[
    [Settings, Path, SourceReader | None, SourceReader | None, bool], Analyzers | None
]


@dataclass(frozen=True)
class Services:
    """A face's services. `models` and `counter` load litellm at their first call only, so
    a flow that calls no model costs no import; `models` redacts every prompt it sends
    and every reply it gets (a flow asks `with_patterns` for a client of its own with the
    repository's `redact:` patterns once it has read its settings; the replies lose the
    run's secret values too);
    `journal()` opens the run journal (the caller closes it); `analyzers` builds the
    static analyzers a review's settings name (wiring passes the adapter's; none by
    default); `checkout` reads the Action's git checkout; `github` is GitHub with every
    role (the agent-PR queue and the learnings run need it), `pulls` another host's
    pull-request roles (GitLab's); both are absent on faces that never reach a code host."""

    models: RedactingClient
    counter: TokenCounter
    keys: ProviderKeys
    journal: Callable[[], RunJournal]
    log: Log
    checkout: Checkout
    clock: Callable[[], float] = time.monotonic
    github: GitHubPort | None = None
    pulls: PullRequestHost | None = None
    # a new set of progress observers for each review run (their counts are per run)
    progress: Callable[[], Sequence[ReviewObserver]] = lambda: ()
    # hides values from what the face prints (the Action's `::add-mask::`): the keys named by
    # the base branch's configuration are masked as soon as it is read
    mask: Callable[[Sequence[str]], object] = lambda values: None
    # the static analyzers a review's settings name, on the files given (a fake in tests)
    analyzers: AnalyzersFor = lambda settings, root, head, base, trusted_head: None
    # whether each analyzer the settings name could run here, read against the checkout
    # (doctor, a dry run; adapters/analyzer_checks.py); none checked by default
    analyzer_checks: Callable[[Settings, Path], tuple[AnalyzerCheck, ...]] = lambda s, root: ()

    @property
    def host(self) -> PullRequestHost:
        """The code host's pull-request roles: what every flow on a pull request uses."""
        if self.pulls is not None:
            return self.pulls
        if self.github is None:
            raise UsageError("this command does not reach a code host")
        return self.github

    @property
    def github_port(self) -> GitHubPort:
        """GitHub with every role, for what only GitHub has (the agent-PR queue, the
        learnings run)."""
        if self.github is None:
            raise UsageError(
                "the agent-PR queue and the learnings run are GitHub's only",
                fix="run them from a GitHub Actions workflow (docs/queue.md)",
            )
        return self.github

    def warn(self, line: str) -> None:
        self.log(f"warning: {line}")
