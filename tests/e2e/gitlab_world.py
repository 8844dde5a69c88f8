"""A GitLab project with one merge request, a panel of four loopback providers, and
`consensus gitlab` run as a GitLab CI job would run it: the environment GitLab's runner
sets for a merge request pipeline, or for a pipeline a comments webhook triggered (the
note hook in the `TRIGGER_PAYLOAD` file). Runs are in-process (fakes.inprocess) unless a
test asks for the real interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from consensus_sim.gitlab import DEVELOPER, MAINTAINER, REPORTER, FakeGitLab
from consensus_sim.gitlab.hooks import note_hook
from consensus_sim.provider_server import FakeProviderServer, Step, prompt_text, reply
from fakes.inprocess import run_consensus
from tests.e2e.test_action_e2e import config as github_config

ROOT = Path(__file__).resolve().parents[2]
PROJECT, PROJECT_ID, IID = "acme/billing", 7, 3
BOT = "project_7_bot_5e1f0a"
TOKEN = "glpat-Zq8v3nK2mP9xL4wR7tY1"  # the masked CI/CD variable's value
JOB_TOKEN = "glcbt-64_3fQx9wVbN2LmR7kT0sYp"
MODELS = ("gpt-test", "claude-test", "llama-test", "qwen-test")
VERIFIER = "You are an independent verifier"
CONVERSE = "Classify the reply to the finding"

INVOICE_BEFORE = '''\
"""Invoices: totals, tax and discounts."""

TAX_RATE = 0.2
MAX_DISCOUNT = 0.5


def subtotal(items):
    total = 0
    for item in items:
        total += item.price * item.quantity
    return total


def tax(amount):
    return amount * TAX_RATE


def total(items):
    amount = subtotal(items)
    return amount + tax(amount)
'''
INVOICE_AFTER = '''\
"""Invoices: totals, tax and discounts."""

TAX_RATE = 0.2
MAX_DISCOUNT = 0.5


def subtotal(items):
    total = 0.0
    for item in items:
        total += item.price * item.quantity
    return total


def tax(amount):
    return round(amount * TAX_RATE)


def discounted(amount, rate):
    return amount * (1 - rate)


def total(items, rate=0.0):
    amount = discounted(subtotal(items), rate)
    return amount + tax(amount)
'''
ROUNDED = "    return round(amount * TAX_RATE)\n"
TAX_FIX = "    return round(amount * TAX_RATE, 2)"
DISCOUNT_FIX = "def discounted(amount, rate):\n    return amount * (1 - min(rate, MAX_DISCOUNT))"
INVOICE_FIXED = INVOICE_AFTER.replace(ROUNDED, TAX_FIX + "\n")
MONEY_AUDIT = """---
title: Money audit
description: How money is summed, taxed and rounded; nothing else.
personas: [correctness]
threshold: 0.5
verify: none
---
Look only at how money is summed, taxed and rounded.
"""


def finding(line: int, end: int, title: str, **extra: object) -> dict[str, object]:
    return {
        "path": "billing/invoice.py",
        "line": line,
        "end_line": end,
        "severity": "high",
        "category": "bug",
        "title": title,
        "body": f"{title}: see the lines above. /approve\n/merge",
        **extra,
    }


def responder(model: str) -> Any:
    """Each model reports what the head shows: a float that starts the subtotal (a range
    over the deleted `total = 0`), quantities never checked (an unchanged line), tax
    rounded to whole units (one added line, with a suggestion) and an uncapped discount
    (two added lines, with a suggestion); questions in a discussion get a grounded answer."""

    def answer(body: dict[str, Any]) -> Step:
        prompt = prompt_text(body)
        if CONVERSE in prompt:
            text = "Line 15 rounds to whole units: a 0.45 tax becomes 0."
            return reply(json.dumps({"kind": "question", "stands": True, "answer": text}))
        if VERIFIER in prompt:
            return reply(json.dumps({"verdict": "confirmed", "reason": "the code shows it"}))
        if "def subtotal" not in prompt:
            return reply(json.dumps({"findings": []}))
        found = [
            finding(7, 8, "Subtotal starts as a float"),
            finding(10, 10, "Negative quantities are accepted"),
            finding(18, 19, "Discount rate is never capped", suggestion=DISCOUNT_FIX),
        ]
        if "round(amount * TAX_RATE)" in prompt:  # not once the push fixed it
            found.append(finding(15, 15, "Tax is rounded to whole units", suggestion=TAX_FIX))
        return reply(json.dumps({"findings": found}))

    return answer


def config(url: str, *, evil: bool = False) -> str:
    """The four families the GitHub e2e tests use, with no calibration: a merge request's
    judges are estimated from the run's own votes."""
    return github_config(url, evil=evil, calibrated=False)


@dataclass(frozen=True)
class Job:
    code: int
    stdout: str
    stderr: str
    writes: list[tuple[str, str, int]]

    @property
    def log(self) -> str:
        return self.stdout + self.stderr


@dataclass
class World:
    tmp: Path
    gitlab: FakeGitLab
    providers: FakeProviderServer
    subprocess: bool = False
    extra_env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.gitlab.project(PROJECT, ident=PROJECT_ID)
        self.gitlab.user(BOT, bot=True, token=TOKEN)
        self.gitlab.add_member(PROJECT, BOT, DEVELOPER)
        self.gitlab.add_member(PROJECT, "maria", MAINTAINER)
        self.gitlab.add_member(PROJECT, "dev", DEVELOPER)
        self.gitlab.add_member(PROJECT, "rita", REPORTER)

    @property
    def base(self) -> dict[str, str]:
        return {
            ".consensus.yml": config(self.providers.url),
            "billing/invoice.py": INVOICE_BEFORE,
            "README.md": "# billing\n",
            ".consensus/workflows/money-audit.md": MONEY_AUDIT,
        }

    def open(self, head: dict[str, str] | None = None, **fields: Any) -> None:
        files = head or {**self.base, "billing/invoice.py": INVOICE_AFTER}
        self.gitlab.add_merge_request(
            PROJECT, IID, base=self.base, head=files, title="Discounts", **fields
        )

    def push(self, invoice: str) -> None:
        self.gitlab.push(PROJECT, IID, {**self.base, "billing/invoice.py": invoice})

    # ------------------------------------------------------------------ the job

    def env(self, **variables: str) -> dict[str, str]:
        """What GitLab's runner sets for a merge request pipeline of this project."""
        mr = self.gitlab.project(PROJECT).merge_requests.get(IID)
        latest = mr.latest if mr else None
        api = self.gitlab.api_url
        return {
            "PATH": os.environ["PATH"],
            "HOME": str(self.tmp),
            "PYTHONPATH": str(ROOT),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "OLLAMA_HOST": "127.0.0.1:9",
            "CONSENSUS_HOME": str(self.tmp / "home"),
            "CI": "true",
            "GITLAB_CI": "true",
            "CI_SERVER_URL": api.removesuffix("/api/v4"),
            "CI_API_V4_URL": api,
            "CI_PROJECT_ID": str(PROJECT_ID),
            "CI_PROJECT_PATH": PROJECT,
            "CI_PROJECT_DIR": str(self.tmp),
            "CI_PIPELINE_SOURCE": "merge_request_event",
            "CI_MERGE_REQUEST_IID": str(IID),
            "CI_MERGE_REQUEST_PROJECT_ID": str(PROJECT_ID),
            "CI_MERGE_REQUEST_SOURCE_PROJECT_ID": str(
                (mr.source_project_id if mr else 0) or PROJECT_ID
            ),
            "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
            "CI_MERGE_REQUEST_DIFF_BASE_SHA": latest.base_sha if latest else "",
            "CI_MERGE_REQUEST_EVENT_TYPE": "detached",
            "CI_COMMIT_SHA": latest.head_sha if latest else "",
            "CI_JOB_TOKEN": JOB_TOKEN,
            "CONSENSUS_GITLAB_TOKEN": TOKEN,
            "FAKE_OPENAI_KEY": "sk-fake-openai-secret",
            "FAKE_ANTHROPIC_KEY": "sk-ant-fake-secret",
            **self.extra_env,
            **variables,
        }

    def run(self, env: dict[str, str]) -> Job:
        before = len(self.gitlab.requests)
        if self.subprocess:  # the smoke test: the real entry point, in its own interpreter
            done = subprocess.run(
                [sys.executable, "-m", "consensus", "gitlab"],
                cwd=self.tmp,
                env=env,
                capture_output=True,
                text=True,
                timeout=180,
            )
            code, out, err = done.returncode, done.stdout, done.stderr
        else:
            ran = run_consensus(["gitlab"], cwd=self.tmp, env=env)
            code, out, err = ran.returncode, ran.stdout, ran.stderr
        writes = [
            (r.method, r.path, r.status)
            for r in self.gitlab.requests[before:]
            if r.method != "GET" and r.path != "/api/graphql"
        ]
        return Job(code, out, err, writes)

    def review(self, **variables: str) -> Job:
        """The merge request pipeline's job."""
        return self.run(self.env(**variables))

    def note(self, body: str, username: str, **variables: str) -> Job:
        """`username` comments on the merge request; the webhook triggers the job."""
        made = self.gitlab.add_note(PROJECT, IID, body, username)
        return self.deliver(made, **variables)

    def reply(self, to: dict[str, Any], body: str, username: str) -> Job:
        """`username` replies in the discussion of our note `to`; the webhook triggers."""
        made = self.gitlab.reply(PROJECT, IID, int(to["id"]), body, username)
        return self.deliver(made)

    def deliver(self, note: dict[str, Any], **variables: str) -> Job:
        """The trigger's pipeline for the note hook of `note`, as the webhook sends it."""
        payload = self.tmp / "TRIGGER_PAYLOAD"
        payload.write_text(json.dumps(note_hook(self.gitlab, PROJECT, IID, note)))
        env = self.env(CI_PIPELINE_SOURCE="trigger", TRIGGER_PAYLOAD=str(payload), **variables)
        for name in [k for k in env if k.startswith("CI_MERGE_REQUEST_")]:
            del env[name]  # a triggered pipeline is no merge request pipeline
        return self.run(env)

    # ------------------------------------------------------------------ what it shows

    def discussions(self) -> list[dict[str, Any]]:
        return [d for d in self.gitlab.project(PROJECT).discussions if d["_mr"] == IID]

    def ours(self) -> list[dict[str, Any]]:
        """Our diff discussions' first notes."""
        return [
            d["notes"][0]
            for d in self.discussions()
            if d["notes"][0].get("type") == "DiffNote"
            and d["notes"][0]["author"]["username"] == BOT
        ]

    def inline(self, words: str) -> dict[str, Any]:
        return next(n for n in self.ours() if words in n["body"].split("\n", 1)[0])

    def thread_of(self, note: dict[str, Any]) -> dict[str, Any]:
        return next(d for d in self.discussions() if d["notes"][0]["id"] == note["id"])

    def summaries(self) -> list[dict[str, Any]]:
        return [
            n
            for d in self.discussions()
            for n in d["notes"]
            if n["author"]["username"] == BOT and n["body"].startswith("<!-- consensus:summary -->")
        ]

    def model_calls(self) -> int:
        return len(self.providers.log)
