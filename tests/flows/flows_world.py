"""An in-memory world for the flow tests: one pull request on FakeGitHubHost, a panel of
FakeModelClient providers, and the Services a face would hand its flow, built around them.
No process, no socket, no litellm: a flow runs in milliseconds."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from consensus.adapters.journal import Journal
from consensus.adapters.repository_analyzers import repository_analyzers
from consensus.app.secrets import run_secrets
from consensus.app.services import ActionsRunner, ActionStep, ProviderKeys, Services
from consensus.ingest.pull_diff import ContentsSource
from consensus.ports import (
    CompletionRequest,
    ModelPrice,
    PullFile,
    PullReader,
    PullRequestInfo,
    SourceReader,
    TreeReader,
)
from consensus.publish.thread import SUMMARY_MARKER
from consensus.review.redacting import RedactingClient
from consensus.settings.action_inputs import ActionInputs
from consensus.testing import FakeGitHubHost, FakeModelClient, FakePull

REPO, NUMBER, MAINTAINER = "acme/service", 12, "maria"
BASE_SHA, HEAD_SHA = "b" * 40, "a" * 40
KEYS = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}
CONFIG = """\
providers:
  - {model: openai/gpt-5.1, api_key_env: OPENAI_API_KEY}
  - {model: anthropic/claude-sonnet-4-5, api_key_env: ANTHROPIC_API_KEY}
personas: [security]
min_providers: 2
"""
AUDIT = """\
---
description: Security audit of the change
personas: [security]
---
Look only for injection.
"""
PATCH = """\
@@ -8,4 +8,5 @@ def connect(path):
 def get_user(conn, user_id):
     cur = conn.cursor()
-    cur.execute("SELECT * FROM users WHERE id = ?", (user_id,))
+    query = f"SELECT * FROM users WHERE id = {user_id}"
+    cur.execute(query)
     return cur.fetchone()"""
FINDING = {
    "path": "src/app/db.py",
    "line": 11,
    "severity": "high",
    "category": "security",
    "title": "SQL injection via f-string query",
    "body": "user_id is put into the SQL text with an f-string: an attacker controls the query.",
}


def panel(*, finds: bool = True, verdict: str = "confirmed") -> FakeModelClient:
    """Every reviewer reports FINDING (or nothing); every verifier answers `verdict`."""

    def answer(request: CompletionRequest) -> str:
        if request.schema_name == "verdict":
            return json.dumps({"verdict": verdict, "reason": f"the code shows it is {verdict}"})
        return json.dumps({"findings": [FINDING] if finds else []})

    return FakeModelClient(by_request=answer)


class NoCheckout:
    """A run without a git checkout: the head's files come from the contents API."""

    def head_source(self, host: PullReader, head_sha: str, workspace: Path) -> SourceReader:
        return ContentsSource(host, head_sha)

    def sections(self, workspace: Path, base_sha: str, head_sha: str) -> dict[str, str] | None:
        return None

    def trees(self, workspace: Path, base_sha: str, head_sha: str) -> TreeReader | None:
        return None


@dataclass(frozen=True)
class Counter:
    """Counts a token per four characters; prices only the models in `prices`."""

    prices: Mapping[str, ModelPrice] = field(default_factory=dict)

    def count(self, model: str, text: str) -> int:
        return len(text) // 4

    def context_window(self, model: str) -> int | None:
        return 100_000

    def price(self, model: str) -> ModelPrice | None:
        return self.prices.get(model)


@dataclass
class World:
    """The PR, the panel and what the flow logged."""

    tmp: Path
    models: FakeModelClient = field(default_factory=panel)
    keys: dict[str, str] = field(default_factory=lambda: dict(KEYS))
    inputs: ActionInputs = field(default_factory=ActionInputs)
    lines: list[str] = field(default_factory=list)
    counter: Counter = field(default_factory=Counter)
    host: FakeGitHubHost = field(
        default_factory=lambda: FakeGitHubHost(permissions={MAINTAINER: "write"})
    )
    files: list[PullFile] = field(
        default_factory=lambda: [
            PullFile(path="src/app/db.py", status="modified", additions=2, patch=PATCH)
        ]
    )
    config: str = CONFIG
    checkout: NoCheckout = field(default_factory=NoCheckout)
    head_repo: str = REPO  # another repository's name: a fork's pull request
    head_files: dict[str, str] = field(default_factory=dict)  # the head's files, by path
    base_code: dict[str, str] = field(default_factory=dict)  # the base's, beside its config

    def __post_init__(self) -> None:
        info = PullRequestInfo(
            number=NUMBER,
            head_sha=HEAD_SHA,
            base_sha=BASE_SHA,
            base_ref="main",
            base_repo=REPO,
            head_repo=self.head_repo,
            author="dev",
            title="Look users up by id",
        )
        self.host.add_pull(
            FakePull(
                info=info,
                files=self.files,
                head_files=self.head_files,
                base_files={
                    ".consensus.yml": self.config,
                    ".consensus/workflows/audit.md": AUDIT,
                    **self.base_code,
                },
            )
        )

    def services(self) -> Services:
        return Services(
            # as app/wiring.py builds it: replies redacted of the environment's secrets too
            models=RedactingClient(self.models, secrets=lambda: run_secrets(self.keys)),
            counter=self.counter,
            keys=ProviderKeys(self.keys, needed_keys=lambda model: ()),
            journal=lambda: Journal(self.tmp / "journal.db"),
            log=self.lines.append,
            checkout=self.checkout,
            clock=lambda: 0.0,
            github=self.host,
            analyzers=repository_analyzers,  # as wiring passes it: real ruff, SARIF files
        )

    def step(self) -> ActionStep:
        outputs = self.tmp / "outputs"
        outputs.touch()
        runner = ActionsRunner(workspace=self.tmp, temp=self.tmp, outputs=str(outputs))
        return ActionStep(self.inputs, runner)

    def summary(self) -> str:
        [summary] = [c.body for c in self.host.issue_comment_list if SUMMARY_MARKER in c.body]
        return summary
