"""One pull request as every flow on it sees it: a push's review, a slash command, a reply in
the thread of one of our inline comments, the PR closing.

`PullContext` holds the services and the Action step, the PR, who we are and who asked, the
saved workflow a run is and what is left of the PR's budget. What it reads from the code
host (GitHub; GitLab for a merge request) it reads once, when first asked, into an
explicit cache (`PullReads`): the base branch's files and settings, the thread (our
summary and its state), the PR's files and diff, the saved workflows, each person's
permission, the run's secrets. It answers the questions every
flow asks, in one place each: who we are (`own_identity`), whether a person may run a
command that writes (`may_write`), which values are the run's secrets (`secrets`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from consensus.app.jobs import RawDiff
from consensus.app.pull.inputs import BaseFiles, base_settings
from consensus.app.pull.saved_workflows import BaseWorkflows, base_workflows
from consensus.app.services import ActionStep, Services
from consensus.errors import ConsensusError
from consensus.ingest.pull_diff import PullDiff, build_pull_diff
from consensus.model.host import HostWords
from consensus.ports import (
    Log,
    PullFile,
    PullRequestHost,
    PullRequestInfo,
    SourceReader,
    TreeReader,
)
from consensus.publish.answers import WRITE_LEVELS
from consensus.publish.spend import PrAllowance
from consensus.publish.thread import Identity, PullRequestThread, load_thread
from consensus.review.redacting import RedactingClient
from consensus.settings.action_inputs import ActionInputs
from consensus.settings.config import Settings
from consensus.settings.workflows import Workflow, narrow_settings

# What other flows take from this room: the PR's context.
__all__ = ["PullContext", "PullReads"]


@dataclass
class PullReads:
    """What a context read from GitHub once and keeps (None: not asked for yet). Contexts
    of the same PR share it: a saved workflow's run reads nothing twice."""

    base: BaseFiles | None = None
    settings: Settings | None = None  # the base branch's, before any workflow narrows them
    narrowed: dict[str, Settings] = field(default_factory=dict)  # by workflow name
    thread: PullRequestThread | None = None
    files: list[PullFile] | None = None
    diff: PullDiff | None = None
    workflows: BaseWorkflows | None = None
    permissions: dict[str, str] = field(default_factory=dict)  # login → permission
    secrets: tuple[str, ...] | None = None
    models: RedactingClient | None = None  # the services', with the settings' patterns


@dataclass(frozen=True)
class PullContext:
    """A pull request and what flows on it know: `asker` is who is being answered (a slash
    command's or a reply's author; "" for a push), `workflow` the saved review workflow a
    run is, `allowance` what an automatic run may still spend of the PR's budget."""

    services: Services
    step: ActionStep
    info: PullRequestInfo
    identity: Identity  # whose comments are ours (asked once per run: `own_identity`)
    asker: str = ""
    workflow: Workflow | None = None
    allowance: PrAllowance | None = None
    reads: PullReads = field(default_factory=PullReads)

    @classmethod
    def open(
        cls, services: Services, step: ActionStep, number: int, identity: Identity, asker: str = ""
    ) -> PullContext:
        """The context of PR `number`, as GitHub has it now."""
        return cls(services, step, services.host.pull_request(number), identity, asker)

    @staticmethod
    def own_identity(services: Services, inputs: ActionInputs) -> Identity:
        """Whose comments are ours: asked of the token once per run (publish/thread.py)."""
        identity = Identity.of(services.host.viewer_login(), inputs.trusted_login)
        services.log(f"comments by {identity.describe()} are consensus's own")
        return identity

    @property
    def host(self) -> PullRequestHost:
        return self.services.host

    @property
    def words(self) -> HostWords:
        """How the host names a pull request and a role, for every message posted there."""
        return self.host.words

    @property
    def log(self) -> Log:
        return self.services.log

    @property
    def inputs(self) -> ActionInputs:
        return self.step.inputs

    @property
    def links(self) -> tuple[str, ...]:
        """Where links are the PR's own repository's (they stay clickable in model text)."""
        return (f"{self.step.runner.server_url}/{self.info.base_repo}/",)

    def running(
        self, *, workflow: Workflow | None = None, allowance: PrAllowance | None = None
    ) -> PullContext:
        """The same PR as a run of saved workflow `workflow` (its settings narrowed from
        the base branch's), with `allowance` left of the PR's budget; the reads shared."""
        return dataclasses.replace(self, workflow=workflow, allowance=allowance)

    # ------------------------------------------------------------------ the base branch

    def read_base_for_review(self) -> None:
        """One request for the base files every review reads (the configuration,
        .gitattributes, the learnings, the default guideline files)."""
        if self.reads.base is None:
            self.reads.base = BaseFiles.for_review(self.host, self.info, self.inputs)

    def base_files(self) -> BaseFiles:
        if self.reads.base is None:
            self.reads.base = BaseFiles(self.host, self.info.base_sha, ())
        return self.reads.base

    def read_settings(self) -> Settings:
        """The base branch's settings, narrowed by the run's saved workflow (read from the
        host the first time)."""
        if self.workflow is None:
            return self._base_settings()
        name, narrowed = self.workflow.name, self.reads.narrowed
        if name not in narrowed:
            narrowed[name] = narrow_settings(self.workflow, self._base_settings())
        return narrowed[name]

    def _base_settings(self) -> Settings:
        """The base branch's configuration; as soon as it is read, the keys it names are
        masked (the face's mask: what the CI's log will hide)."""
        if self.reads.settings is None:
            files = self.base_files()
            self.reads.settings = base_settings(self.host, self.info, self.inputs, files)
            self.services.mask(self.secrets())
        return self.reads.settings

    def read_models(self) -> RedactingClient:
        """The services' model client, redacting with the base configuration's `redact:`
        patterns too (read from the host the first time): what a command or the
        conversation on this PR asks a model through. The services' own is left as it is."""
        if self.reads.models is None:
            self.reads.models = self.services.models.with_patterns(self._base_settings().redact)
        return self.reads.models

    def saved_workflows(self) -> BaseWorkflows:
        """The base branch's saved review workflows."""
        if self.reads.workflows is None:
            self.reads.workflows = base_workflows(self.host, self.info)
        return self.reads.workflows

    def secrets(self) -> tuple[str, ...]:
        """The run's secrets (app/secrets.py), the keys the base configuration names too."""
        if self.reads.secrets is None:
            self.reads.secrets = tuple(self.services.keys.secrets(self._base_settings()))
        return self.reads.secrets

    # ------------------------------------------------------------------ people

    def permission(self, login: str) -> str:
        """`login`'s permission on the repository, asked of the collaborators API once; an
        error there is "unknown" (a warning), which denies."""
        if login not in self.reads.permissions:
            try:
                self.reads.permissions[login] = self.host.collaborator_permission(login)
            except ConsensusError as exc:
                self.log(f"warning: cannot read {login}'s permission: {exc.message}")
                self.reads.permissions[login] = "unknown"
        return self.reads.permissions[login]

    def may_write(self, login: str) -> bool:
        """Whether `login` has write, maintain or admin permission (fails closed)."""
        return self.permission(login) in WRITE_LEVELS

    # ------------------------------------------------------------------ the pull request

    def pull_files(self) -> list[PullFile]:
        """The PR's files as GitHub lists them, with their patches."""
        if self.reads.files is None:
            self.reads.files = self.host.pull_files(self.info.number)
        return self.reads.files

    def pull_diff(self) -> PullDiff:
        """The PR's diff from GitHub's patches (the checkout's for the omitted ones), with
        what could not be reviewed and the notes the report shows."""
        if self.reads.diff is None:
            info, workspace = self.info, self.step.runner.workspace
            checkout = self.services.checkout
            self.reads.diff = build_pull_diff(
                self.pull_files(),
                changed_files=info.changed_files,
                fallback=lambda: checkout.sections(workspace, info.base_sha, info.head_sha),
            )
        return self.reads.diff

    def raw_diff(self) -> RawDiff:
        """The PR's diff for `prepare_job` (app/jobs.py), with the base's .gitattributes."""
        pull = self.pull_diff()
        gitattributes = self.base_files().read(".gitattributes") or ""
        return RawDiff(pull.text, gitattributes, pull.skipped)

    def head_source(self) -> SourceReader:
        """The PR head's files: from the checkout when it holds the head, else the API."""
        workspace = self.step.runner.workspace
        return self.services.checkout.head_source(self.host, self.info.head_sha, workspace)

    def trees(self) -> TreeReader | None:
        """The PR's base and head trees from the checkout, for judges that read them."""
        workspace = self.step.runner.workspace
        return self.services.checkout.trees(workspace, self.info.base_sha, self.info.head_sha)

    # ------------------------------------------------------------------ our summary

    def summary_thread(self) -> PullRequestThread:
        """Our summary and its state, as last read (read from the host if it never was)."""
        return self.reads.thread if self.reads.thread is not None else self.refresh_thread()

    def refresh_thread(self) -> PullRequestThread:
        """Our summary and its state, read again."""
        return self._keep(load_thread(self.host, self.info.number, self.identity))

    def read_thread(self) -> PullRequestThread:
        """What is on the PR now for a review: our summary (its state believed only if we
        edited it last) and the markers of our inline comments."""
        number = self.info.number
        review_comments = self.host.review_comments(number)
        thread = load_thread(self.host, number, self.identity, review_comments=review_comments)
        return self._keep(thread)

    def _keep(self, thread: PullRequestThread) -> PullRequestThread:
        if thread.state_problem:
            self.log(f"warning: {thread.state_problem}")
        self.reads.thread = thread
        return thread
