"""The one place that builds adapters from settings and the environment.

Faces (cli/, action/) and the app's flows ask here for a GitHub host, a model client, a
token counter, a journal, a source of head files or a diff from git; nothing else
constructs an adapter. Tests build the same flows around the fakes in consensus.testing.

PyGithub costs about 0.3 s to import and litellm several seconds: each adapter is imported
here when it is first needed (`_llm`, `github_host`), so `consensus --help` and the slash
commands that call no model (help, explain, dismiss, pause, resume, config, queue,
personas) never load litellm.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from consensus.adapters import git
from consensus.adapters.discovery import ollama_models
from consensus.adapters.journal import Journal
from consensus.adapters.sources import GitRevision, WorkingTree
from consensus.errors import ConfigError, DiffError
from consensus.ingest.pull_diff import ContentsSource, git_sections
from consensus.ports import (
    GitHubPort,
    Log,
    ModelClient,
    ModelPrice,
    PullReader,
    RepositoryData,
    SourceReader,
    TokenCounter,
)
from consensus.settings.config import ProviderSettings, Settings, resolve_providers
from consensus.settings.config import unavailable_providers as _unavailable

if TYPE_CHECKING:
    from consensus.adapters.github import GitHubHost as GitHubHostType

DEFAULT_MAX_AGE_DAYS = 30.0
DEFAULT_MAX_MB = 500.0
GITHUB_API = "https://api.github.com"


# --------------------------------------------------------------------------- GitHub


def github_host(
    env: Mapping[str, str], *, log: Log, write_interval_s: float = 1.0, repo: str | None = None
) -> GitHubPort:
    """The GitHub REST adapter for $GITHUB_REPOSITORY, at $GITHUB_API_URL (GHES, test servers).

    One per run: the review, slash commands and the queue share it. Reads are conditional
    (ETag): a 304 answer costs no rate limit, and the data is as fresh as a plain GET's.
    """
    from consensus.adapters.github import GitHubHost  # PyGithub: only when GitHub is reached

    return GitHubHost(
        repo or env.get("GITHUB_REPOSITORY", "").strip(),
        token=env.get("GITHUB_TOKEN", ""),
        base_url=env.get("GITHUB_API_URL") or GITHUB_API,
        write_interval_s=write_interval_s,
        log=log,
        conditional=True,
    )


class BenchHosts:
    """GitHub hosts for a bench, one per repository it reads, closed together."""

    def __init__(self, env: Mapping[str, str], *, log: Log) -> None:
        self._env = env
        self._log = log
        self._hosts: dict[str, GitHubHostType] = {}

    def _host(self, repo: str) -> GitHubHostType:
        if repo not in self._hosts:
            from consensus.adapters.github import GitHubHost  # PyGithub: only when reached

            self._hosts[repo] = GitHubHost(
                repo,
                token=self._env.get("GITHUB_TOKEN", ""),
                base_url=self._env.get("GITHUB_API_URL") or GITHUB_API,
                log=self._log,
            )
        return self._hosts[repo]

    def pulls(self, repo: str) -> PullReader:
        return self._host(repo)

    def data(self, repo: str) -> RepositoryData:
        return self._host(repo)

    def source(self, repo: str, head_sha: str) -> SourceReader:
        return ContentsSource(self._host(repo), head_sha)

    def close(self) -> None:
        for host in self._hosts.values():
            host.close()
        self._hosts.clear()


# --------------------------------------------------------------------------- models


@cache
def _llm() -> ModuleType:
    """adapters/llm.py, and litellm with it (seconds): loaded once, when a model is needed."""
    from consensus.adapters import llm

    return llm


def model_client(env: Mapping[str, str], *, attempts: int | None = None) -> ModelClient:
    """litellm behind bounded, Retry-After-aware retries; keys from `env`."""
    client: ModelClient
    if attempts is None:
        client = _llm().LiteLLMClient(env)
    else:
        client = _llm().LiteLLMClient(env, attempts=attempts)
    return client


def token_counter() -> TokenCounter:
    counter: TokenCounter = _llm().LiteLLMTokenCounter()
    return counter


def model_price(model: str) -> ModelPrice | None:
    """The model's price per token from litellm's (local) price map; None when unknown."""
    price: ModelPrice | None = _llm().model_price(model)
    return price


def unavailable_providers(
    providers: Sequence[ProviderSettings], env: Mapping[str, str]
) -> dict[str, str]:
    """model → why it will not be called (its key is missing from `env`)."""
    return _unavailable(providers, env, _llm().needed_keys)


def no_provider_key(settings: Settings, env: Mapping[str, str]) -> bool:
    """True when not one configured provider could be called with the keys in `env`."""
    try:
        providers = resolve_providers(settings, env)
    except ConfigError:
        return True
    return len(unavailable_providers(providers, env)) == len(providers)


def local_providers(settings: Settings, env: Mapping[str, str]) -> tuple[ProviderSettings, ...]:
    """The configured providers, or with none configured every keyed one and a local Ollama."""
    local = () if settings.providers else ollama_models(env)
    return resolve_providers(settings, env, ollama_models=local)


# --------------------------------------------------------------------------- journal


def consensus_home(env: Mapping[str, str]) -> Path:
    """$CONSENSUS_HOME, else the platform's user cache directory."""
    if env.get("CONSENSUS_HOME"):
        return Path(env["CONSENSUS_HOME"]).expanduser()
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "consensus"
    if sys.platform == "win32" and env.get("LOCALAPPDATA"):
        return Path(env["LOCALAPPDATA"]) / "consensus" / "Cache"
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "consensus"


def open_journal(env: Mapping[str, str], warn: Log) -> Journal:
    """The run journal under consensus_home, pruned by age and size as it opens."""
    journal = Journal(consensus_home(env) / "journal.db", warn=warn)
    max_age = float(env.get("CONSENSUS_JOURNAL_MAX_AGE_DAYS") or DEFAULT_MAX_AGE_DAYS)
    max_mb = float(env.get("CONSENSUS_JOURNAL_MAX_MB") or DEFAULT_MAX_MB)
    journal.prune(max_age_days=max_age, now=time.time(), max_bytes=int(max_mb * 1_000_000))
    return journal


# --------------------------------------------------------------------------- git


def repo_root(cwd: Path) -> Path:
    """The work tree's top directory, or `cwd` itself outside a repository."""
    return git.repo_root(cwd) or cwd


def branch_diff(root: Path, base: str | None, head: str | None) -> bytes:
    """`git diff BASE...HEAD` (HEAD None: the working tree), BASE defaulting as a PR's would."""
    return git.git_diff(root, base or git.default_base(root), head)


def gitattributes(root: Path) -> str:
    return git.read_gitattributes(root)


def local_source(root: Path, head: str | None, *, from_diff_file: bool) -> SourceReader | None:
    """Where verifiers read the code around a finding: the head commit, or the working
    tree; none for a diff given as a file (its head is not on disk)."""
    if head is not None:
        return GitRevision(root, head)
    return None if from_diff_file else WorkingTree(root)


def guidelines_source(root: Path, base: str | None, *, from_diff_file: bool) -> SourceReader:
    """Where a local review reads the repository's guidelines: the base commit of a branch
    diff (as the Action reads the base branch), else the working tree."""
    if from_diff_file:
        return WorkingTree(root)
    try:
        return GitRevision(root, base or git.default_base(root))
    except DiffError:
        return WorkingTree(root)


def pull_source(host: PullReader, head_sha: str, workspace: Path) -> SourceReader:
    """The PR head's files: from the checkout when it holds the head commit, else the API."""
    try:
        git.git(workspace, ["cat-file", "-e", f"{head_sha}^{{commit}}"])
    except DiffError:
        return ContentsSource(host, head_sha)
    return GitRevision(workspace, head_sha)


def workspace_sections(workspace: Path, base_sha: str, head_sha: str) -> dict[str, str] | None:
    """Per-file sections of the checkout's diff, for files whose patch GitHub omitted."""
    try:
        raw = git.git_diff(workspace, base_sha, head_sha)
    except DiffError:
        return None
    return git_sections(raw.decode("utf-8", errors="replace"))


def origin_repository(cwd: Path) -> str | None:
    """OWNER/NAME of the `origin` remote when it is on GitHub (https or ssh)."""
    try:
        url = git.git(cwd, ["remote", "get-url", "origin"]).decode().strip()
    except DiffError:
        return None
    match = re.search(r"github\.com[:/]([^/]+/[^/]+?)(?:\.git)?/?$", url)
    return match.group(1) if match else None
