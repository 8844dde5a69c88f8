"""The one place that builds adapters from settings and the environment.

Faces (cli/, action/) ask here for their `Services` (app/services.py: the model client,
the token counter, the provider keys, the journal, GitHub or GitLab) once, and hand them
to the flows; the faces and the flows also ask here for a source of head files or a diff from
git. Nothing else constructs an adapter. Tests build the same flows around the fakes in
consensus.testing.

PyGithub costs about 0.3 s to import, python-gitlab as much, and litellm several seconds:
each adapter is imported here when it is first needed (`_llm`, `github_host`,
`gitlab_host`), so `consensus --help` and the slash
commands that call no model (help, explain, dismiss, pause, resume, config, queue,
personas) never load litellm.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from consensus.adapters import git, model_map
from consensus.adapters.analyzer_checks import check_analyzers
from consensus.adapters.api_checkout import ApiCheckout
from consensus.adapters.archive_tree import ArchiveTrees
from consensus.adapters.discovery import ollama_models
from consensus.adapters.git_tree import GitTrees
from consensus.adapters.journal import Journal
from consensus.adapters.repository_analyzers import repository_analyzers
from consensus.adapters.sources import GitRevision, WorkingTree
from consensus.app.secrets import run_secrets
from consensus.app.services import ActionsRunner, ActionStep, ProviderKeys, Services
from consensus.errors import DiffError
from consensus.ingest.pull_diff import ContentsSource, git_sections
from consensus.ports import (
    ArchiveReader,
    Completion,
    CompletionRequest,
    GitHubPort,
    GitLabPort,
    Log,
    ModelClient,
    ModelPrice,
    PullReader,
    SourceReader,
    TokenCounter,
    TreeReader,
)
from consensus.review.pipeline import ReviewObserver
from consensus.review.redacting import RedactingClient
from consensus.settings.action_inputs import ActionInputs
from consensus.settings.gitlab_job import TOKEN_VARIABLE, GitLabJob

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


# --------------------------------------------------------------------------- GitLab


def gitlab_token(env: Mapping[str, str]) -> str:
    """The token of the job's masked CI/CD variable ("" when it is not set)."""
    return env.get(TOKEN_VARIABLE, "").strip()


def gitlab_host(env: Mapping[str, str], job: GitLabJob, *, log: Log) -> GitLabPort:
    """The GitLab adapter for the project of the job's merge request, at `CI_API_V4_URL`
    (gitlab.com, or a self-managed instance under any URL root)."""
    from consensus.adapters.gitlab import GitLabHost  # python-gitlab: only when GitLab is reached

    return GitLabHost(
        job.pulls_project,
        token=gitlab_token(env),
        api_url=job.api_url,
        log=log,
    )


def gitlab_step(env: Mapping[str, str], job: GitLabJob) -> ActionStep:
    """A GitLab job's settings (the same `CONSENSUS_*` variables as the Action's inputs) and
    where it runs: links to the instance, the JSON report in the project directory, where
    the job keeps it as an artifact."""
    runner = ActionsRunner(
        workspace=job.project_dir,
        server_url=job.server_url,
        temp=job.project_dir,
    )
    return ActionStep(ActionInputs.from_env(env), runner)


def gitlab_services(
    env: Mapping[str, str],
    host: GitLabPort,
    *,
    log: Log,
    progress: Callable[[], Sequence[ReviewObserver]] = lambda: (),
    mask: Callable[[Sequence[str]], object] = lambda values: None,
) -> Services:
    """A GitLab job's services: as every face's, with GitLab's pull-request roles and no
    checkout to read (the job checks nothing out: the head's files come from the API, the
    trees the judges read from its archives)."""
    wired = services(env, log=log, progress=progress, mask=mask)
    return dataclasses.replace(wired, pulls=host, checkout=ApiCheckout(host, log))


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


class _LazyClient:
    """litellm's client, built at the first call: a flow that asks no model loads no litellm."""

    def __init__(self, env: Mapping[str, str], attempts: int | None) -> None:
        self._env, self._attempts = env, attempts
        self._client: ModelClient | None = None

    async def complete(self, request: CompletionRequest) -> Completion:
        if self._client is None:
            self._client = model_client(self._env, attempts=self._attempts)
        return await self._client.complete(request)


def needed_keys(model: str, env: Mapping[str, str]) -> Sequence[str]:
    """The key variables `model`'s route needs and `env` lacks: from model_map's table of
    routes, litellm asked (and loaded) only for a route the table does not list."""
    known = model_map.missing_keys(model, env)
    if known is not None:
        return known
    if model_map.unroutable(model):  # an unknown name: planning refuses it, litellm unasked
        return []
    keys: Sequence[str] = _llm().needed_keys(model)
    return keys


def services(
    env: Mapping[str, str],
    *,
    log: Log,
    github: GitHubPort | None = None,
    attempts: int | None = None,
    progress: Callable[[], Sequence[ReviewObserver]] = lambda: (),
    mask: Callable[[Sequence[str]], object] = lambda values: None,
) -> Services:
    """A face's services, from its environment: the model client (litellm, loaded at the
    first call), the token counter (litellm's data), the provider keys, the run journal,
    GitHub when reached."""
    return Services(
        # every reply redacted of the run's secrets too: the environment's, read at the first
        models=RedactingClient(_LazyClient(env, attempts), secrets=lambda: run_secrets(env)),
        counter=planning_counter(env),
        keys=ProviderKeys(
            dict(env),
            lambda m: needed_keys(m, env),
            lambda: ollama_models(env),
            unroutable=model_map.unroutable,
        ),
        journal=lambda: open_journal(env, warn=lambda line: log(f"warning: {line}")),
        log=log,
        checkout=GitCheckout(github, log),
        github=github,
        progress=progress,
        mask=mask,
        analyzers=repository_analyzers,
        analyzer_checks=check_analyzers,
    )


def action_step(env: Mapping[str, str]) -> ActionStep:
    """The Action step's inputs (parsed here, once) and where it runs."""
    return ActionStep(ActionInputs.from_env(env), actions_runner(env))


def actions_runner(env: Mapping[str, str]) -> ActionsRunner:
    """Where this Action step runs, read once from GitHub's variables."""
    workspace = Path(env.get("GITHUB_WORKSPACE") or ".")
    return ActionsRunner(
        workspace=workspace,
        server_url=(env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/"),
        temp=Path(env.get("RUNNER_TEMP") or env.get("GITHUB_WORKSPACE") or "."),
        step_summary=env.get("GITHUB_STEP_SUMMARY", ""),
        outputs=env.get("GITHUB_OUTPUT", ""),
        action_repository=env.get("CONSENSUS_ACTION_REPOSITORY", "").strip(),
    )


def model_client(env: Mapping[str, str], *, attempts: int | None = None) -> ModelClient:
    """litellm behind bounded, Retry-After-aware retries; keys from `env`."""
    client: ModelClient
    if attempts is None:
        client = _llm().LiteLLMClient(env)
    else:
        client = _llm().LiteLLMClient(env, attempts=attempts)
    return client


def token_counter() -> TokenCounter:
    """litellm's own counter: what `counter` falls back to for a model it cannot answer for
    from litellm's data alone (and the reference the contract tests hold it to)."""
    counter: TokenCounter = _llm().LiteLLMTokenCounter()
    return counter


def planning_counter(env: Mapping[str, str]) -> TokenCounter:
    """litellm's counts, windows and prices from its data without importing litellm: a dry
    run or a replay never loads it, and a review counts the slices its prompts share once;
    litellm itself only for a window it resolves by rules of its own."""
    cache = consensus_home(env) / "tokenizers"
    return model_map.MapTokenCounter(env, fallback=token_counter, cache=cache)


def model_price(model: str) -> ModelPrice | None:
    """The model's price per token from litellm's (local) price map; None when unknown."""
    if model_map.answers_locally(model):
        return model_map.model_price(model)
    price: ModelPrice | None = _llm().model_price(model)
    return price


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
    return git.toplevel(cwd) or cwd


def run_git(root: Path, args: Sequence[str]) -> bytes:
    """git with `args` in `root` (the demo writes its sample repository with it)."""
    return git.git(root, args)


def branch_diff(root: Path, base: str | None, head: str | None) -> bytes:
    """`git diff BASE...HEAD` (HEAD None: the working tree), BASE defaulting as a PR's would."""
    return git.git_diff(root, base or git.default_base(root), head)


def default_base(root: Path) -> str:
    """The branch a pull request from this checkout would target (a DiffError: none)."""
    return git.default_base(root)


def gitattributes(root: Path) -> str:
    return git.read_gitattributes(root)


def local_source(root: Path, head: str | None, *, from_diff_file: bool) -> SourceReader | None:
    """Where verifiers read the code around a finding: the head commit, or the working
    tree; none for a diff given as a file (its head is not on disk)."""
    if head is not None:
        return GitRevision(root, head)
    return None if from_diff_file else WorkingTree(root)


def local_trees(
    root: Path, base: str | None, head: str | None, *, from_diff_file: bool
) -> TreeReader | None:
    """The trees a local review's judges read: the head commit and the commit it is
    diffed against (the merge base, as `git diff BASE...HEAD`); none when what is reviewed
    is in no commit (the working tree, a diff file)."""
    if head is None or from_diff_file:
        return None
    try:
        merge_base = git.git(root, ["merge-base", base or git.default_base(root), head])
    except DiffError:
        return None
    return GitTrees(root, merge_base.decode().strip(), head)


def local_base_source(
    root: Path, base: str | None, head: str | None, *, from_diff_file: bool
) -> SourceReader | None:
    """The merge base's files (`git diff BASE...HEAD`'s other side), for an analyzer's old
    results; none for a diff given as a file."""
    if from_diff_file:
        return None
    try:
        merge_base = git.git(root, ["merge-base", base or git.default_base(root), head or "HEAD"])
    except DiffError:
        return None
    return GitRevision(root, merge_base.decode().strip())


def checkout_trees(workspace: Path, base_sha: str, head_sha: str) -> TreeReader | None:
    """The pull request's trees from a CI checkout that holds both commits (the Action's
    `fetch-depth: 0`), else none: the judges then vote on what their question shows."""
    for sha in (base_sha, head_sha):
        try:
            git.git(workspace, ["cat-file", "-e", f"{sha}^{{commit}}"])
        except DiffError:
            return None
    return GitTrees(workspace, base_sha, head_sha)


def guidelines_source(root: Path, base: str | None, *, from_diff_file: bool) -> SourceReader:
    """Where a local review reads the repository's guidelines: the base commit of a branch
    diff (as the Action reads the base branch), else the working tree."""
    if from_diff_file:
        return WorkingTree(root)
    try:
        return GitRevision(root, base or git.default_base(root))
    except DiffError:
        return WorkingTree(root)


class GitCheckout:
    """The Action's checkout, read with git; the PR's trees from the host's tarballs where it
    lacks the commits (the default checkout fetches one)."""

    def __init__(self, archives: ArchiveReader | None = None, log: Log = lambda line: None):
        self._archives, self._log = archives, log

    def head_source(self, host: PullReader, head_sha: str, workspace: Path) -> SourceReader:
        return pull_source(host, head_sha, workspace)

    def sections(self, workspace: Path, base_sha: str, head_sha: str) -> dict[str, str] | None:
        return workspace_sections(workspace, base_sha, head_sha)

    def trees(self, workspace: Path, base_sha: str, head_sha: str) -> TreeReader | None:
        found = checkout_trees(workspace, base_sha, head_sha)
        if found is not None or self._archives is None:
            return found
        return ArchiveTrees(self._archives.archive, base_sha, head_sha, log=self._log)


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
