"""A turn: one person's comment being answered (a slash command, or a reply in the thread
of one of our inline comments): who asked, on which PR, and the summary's state."""

from __future__ import annotations

from dataclasses import dataclass, field

from consensus.app.pull.review import PullRun
from consensus.app.pull.saved_workflows import BaseWorkflows, base_workflows
from consensus.app.services import ActionStep, Services
from consensus.ports import GitHubPort, Log, PullRequestInfo
from consensus.publish.state import PublishState
from consensus.publish.state_section import new_summary, rewrite_summary
from consensus.publish.thread import Identity, PullRequestThread, load_thread
from consensus.settings.action_inputs import ActionInputs
from consensus.settings.config import Settings


@dataclass
class Turn:
    """One comment being answered, with the services and settings its answer needs."""

    services: Services
    step: ActionStep
    info: PullRequestInfo
    settings: Settings
    login: str
    identity: Identity  # whose comments are ours (looked up once per run)
    permission: str | None = None
    thread: PullRequestThread = field(default_factory=PullRequestThread)
    saved: BaseWorkflows | None = None  # read from the base branch when first needed

    @property
    def host(self) -> GitHubPort:
        return self.services.host

    @property
    def log(self) -> Log:
        return self.services.log

    @property
    def inputs(self) -> ActionInputs:
        return self.step.inputs

    def workflows(self) -> BaseWorkflows:
        """The base branch's saved review workflows, read once per comment."""
        if self.saved is None:
            self.saved = base_workflows(self.host, self.info)
        return self.saved

    def pull_run(self) -> PullRun:
        return PullRun(self.services, self.step, self.info, self.settings, self.identity)

    def refresh_thread(self) -> PullRequestThread:
        self.thread = load_thread(self.host, self.info.number, self.identity)
        if self.thread.state_problem:
            self.log(f"warning: {self.thread.state_problem}")
        return self.thread

    def save_state(self, state: PublishState) -> None:
        """Write `state` into the summary comment (a new one when there is none yet). A
        summary someone else edited last is rewritten whole: we keep no text of theirs."""
        thread = self.thread
        notices = [thread.state_problem] if thread.state_problem else []
        if thread.summary_id is None:
            created = self.host.create_issue_comment(self.info.number, new_summary(state))
            self.log(f"summary comment {created.id} posted (state only)")
        elif not thread.summary_trusted:
            self.host.edit_issue_comment(thread.summary_id, new_summary(state, notices))
            self.log(f"summary comment {thread.summary_id} rewritten (state only)")
        else:
            body = rewrite_summary(thread.summary_body, state)
            self.host.edit_issue_comment(thread.summary_id, body)
            self.log(f"summary comment {thread.summary_id} updated")
        self.refresh_thread()
