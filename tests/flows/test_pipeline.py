"""The whole pipeline in process, with a fake model client: who votes, who abstains."""

from __future__ import annotations

import asyncio
import json

from consensus.ingest.review_diff import ingest
from consensus.model.base import Status
from consensus.model.report import Report
from consensus.ports import CompletionRequest, ModelPrice
from consensus.settings.config import ProviderSettings, Settings
from consensus.settings.personas import load_personas, select_personas
from consensus.testing import FakeModelClient, timed_out

DIFF = """\
diff --git a/src/app/db.py b/src/app/db.py
index 3b18e51..a7c2d90 100644
--- a/src/app/db.py
+++ b/src/app/db.py
@@ -8,4 +8,5 @@ def connect(path):
 def get_user(conn, user_id):
     cur = conn.cursor()
-    cur.execute("SELECT * FROM users WHERE id = ?", (user_id,))
+    query = f"SELECT * FROM users WHERE id = {user_id}"
+    cur.execute(query)
     return cur.fetchone()
"""

PROVIDERS = (
    ProviderSettings(model="openai/gpt-5.1"),
    ProviderSettings(model="anthropic/claude-sonnet-4-5"),
    ProviderSettings(model="gemini/gemini-2.5-pro"),
    ProviderSettings(model="openrouter/anthropic/claude-sonnet-4-5"),  # anthropic again
)


class Counter:
    def count(self, model: str, text: str) -> int:
        return len(text) // 4

    def context_window(self, model: str) -> int | None:
        return 100_000

    def price(self, model: str) -> ModelPrice | None:
        return None


def sql(line: int, title: str) -> str:
    return json.dumps(
        {
            "findings": [
                {
                    "path": "src/app/db.py",
                    "line": line,
                    "severity": "high",
                    "category": "security",
                    "title": title,
                    "body": "The SQL query is built from user_id with an f-string: injection.",
                }
            ]
        }
    )


def run(client: FakeModelClient, **job: object) -> Report:
    """The review of DIFF by PROVIDERS with two personas; `job` overrides ReviewJob fields."""
    from consensus.review.job import ReviewJob
    from consensus.review.pipeline import ReviewServices, review

    personas = select_personas(load_personas([]), ["correctness", "security"])
    fields: dict[str, object] = {
        "diff": ingest(DIFF),
        "settings": Settings(personas=("correctness", "security")),
        "providers": PROVIDERS,
        "personas": tuple(personas),
    }
    reviewed = ReviewJob.model_validate(fields | job)
    return asyncio.run(review(reviewed, ReviewServices(client, Counter(), clock=lambda: 0.0)))


def test_one_family_through_two_gateways_votes_once() -> None:
    client = FakeModelClient(default=sql(11, "SQL injection via f-string query"))
    report = run(client)
    [finding] = report.findings
    assert finding.votes.for_ == 3  # openai, anthropic (twice), google
    assert finding.votes.of == 3
    assert finding.status is Status.CONSENSUS
    assert len(finding.providers) == 4


def test_a_persona_repeating_its_provider_does_not_add_a_vote() -> None:
    def only_openai(request: CompletionRequest) -> str:
        if request.model == "openai/gpt-5.1":
            return sql(11, "SQL injection via f-string query")
        return '{"findings": []}'

    report = run(FakeModelClient(by_request=only_openai), verify=False)
    [finding] = report.findings
    assert finding.personas == ["correctness", "security"]
    assert (finding.votes.for_, finding.votes.of) == (1, 3)
    assert finding.status is Status.UNVERIFIED


def test_a_provider_that_times_out_abstains_and_is_named() -> None:
    def gemini_hangs(request: CompletionRequest) -> str | Exception:
        if request.model.startswith("gemini/"):
            return timed_out()
        return sql(11, "SQL injection via f-string query")

    report = run(FakeModelClient(by_request=gemini_hangs))  # type: ignore[arg-type]
    [finding] = report.findings
    assert (finding.votes.for_, finding.votes.of) == (2, 2)
    gemini = next(p for p in report.providers if p.model == "gemini/gemini-2.5-pro")
    assert gemini.status == "failed" and gemini.error is not None and "timeout" in gemini.error
    assert report.quorum.families_answered == 2


def test_unavailable_providers_are_not_called_and_abstain() -> None:
    client = FakeModelClient(default=sql(11, "SQL injection via f-string query"))
    report = run(client, unavailable={"gemini/gemini-2.5-pro": "GEMINI_API_KEY is not set"})
    assert not client.calls_for("gemini/gemini-2.5-pro")
    gemini = next(p for p in report.providers if p.model == "gemini/gemini-2.5-pro")
    assert gemini.calls == 0 and "GEMINI_API_KEY is not set" in (gemini.error or "")


def test_the_same_replies_in_any_arrival_order_give_the_same_report() -> None:
    titles = {
        "openai/gpt-5.1": "SQL injection via f-string query",
        "anthropic/claude-sonnet-4-5": "User input interpolated into SQL statement",
        "gemini/gemini-2.5-pro": "Possible SQL injection, use parameters",
        "openrouter/anthropic/claude-sonnet-4-5": "Unsanitized user_id in SQL query",
    }
    lines = {"openai/gpt-5.1": 11, "anthropic/claude-sonnet-4-5": 12}

    def answer(request: CompletionRequest) -> str:
        return sql(lines.get(request.model, 11), titles[request.model])

    first = run(FakeModelClient(by_request=answer))
    reordered = run(FakeModelClient(by_request=answer), providers=tuple(reversed(PROVIDERS)))
    assert first.run_id != reordered.run_id  # a different configuration …
    assert [f.model_dump() for f in first.findings] == [
        f.model_dump() for f in reordered.findings
    ]  # … but the same findings, ids and fingerprints
    again = run(FakeModelClient(by_request=answer))
    assert again.run_id == first.run_id
