"""Static analyzers in the vote: a ruff result is one family's finding, aligned with the
models' findings, counted where ruff covers the file's language, posted alone only when
its run says so; the judges see it on the lines they check."""

from __future__ import annotations

import asyncio
import json

import pytest

from consensus.ingest.review_diff import ingest
from consensus.model.analysis import Posting
from consensus.model.base import FindingSource, Status
from consensus.model.report import Report
from consensus.ports import CompletionRequest, ModelPrice
from consensus.publish.carry import carry_forward
from consensus.publish.compose import PullView, compose
from consensus.publish.inline import inline_body
from consensus.publish.state import PublishState
from consensus.publish.thread import read_thread
from consensus.render.jsonreport import render_json
from consensus.render.sarif import render_sarif
from consensus.render.text import render_text
from consensus.review.job import ReviewJob
from consensus.review.pipeline import ReviewServices, review
from consensus.settings.config import ProviderSettings, PublishSettings, Settings
from consensus.settings.personas import load_personas, select_personas
from consensus.testing import FakeAnalyzers, FakeModelClient, ruff_run

CART = """\
diff --git a/src/cart.py b/src/cart.py
index 3b18e51..a7c2d90 100644
--- a/src/cart.py
+++ b/src/cart.py
@@ -38,4 +38,5 @@ class Cart:
     def total(self):
         total = 0
         for item in self.items:
-            total += item.price
+            total += item.price * item.quantity
+        return totl
"""
GO = """\
diff --git a/cmd/server/main.go b/cmd/server/main.go
index 1111111..2222222 100644
--- a/cmd/server/main.go
+++ b/cmd/server/main.go
@@ -10,3 +10,4 @@ func main() {
 \tmux := http.NewServeMux()
 \tmux.HandleFunc("/health", health)
+\tgo http.ListenAndServe(":8080", mux)
 }
"""
PROVIDERS = (
    ProviderSettings(model="openai/gpt-5.1"),
    ProviderSettings(model="anthropic/claude-sonnet-4-5"),
    ProviderSettings(model="gemini/gemini-2.5-pro"),
)
UNDEFINED = ("F821", "src/cart.py", 42, "Undefined name `totl`")


class Counter:
    def count(self, model: str, text: str) -> int:
        return len(text) // 4

    def context_window(self, model: str) -> int | None:
        return 100_000

    def price(self, model: str) -> ModelPrice | None:
        return None


def reply(*findings: dict[str, object]) -> str:
    return json.dumps({"findings": list(findings)})


# A model's words for ruff's F821: another title, the same line.
NAME_ERROR = {
    "path": "src/cart.py",
    "line": 42,
    "severity": "high",
    "category": "bug",
    "title": "`total()` returns `totl`, which is never defined",
    "body": "The method returns `totl` instead of `total`: every call raises NameError.",
}
GO_RACE = {
    "path": "cmd/server/main.go",
    "line": 12,
    "severity": "medium",
    "category": "bug",
    "title": "Server error from ListenAndServe is ignored",
    "body": "`go http.ListenAndServe` drops the error: a port in use goes unnoticed.",
}


def answers(model_reply: dict[str, str]) -> FakeModelClient:
    """Reviews from `model_reply` (model → reply, the others find nothing); every judge
    asked "same problem?" says same, and every inspector confirms."""

    def answer(request: CompletionRequest) -> str:
        if request.schema_name == "review":
            return model_reply.get(request.model, reply())
        if request.schema_name == "same":
            return json.dumps({"verdict": "same", "reason": "both name `totl` at line 42"})
        return json.dumps({"verdict": "confirmed", "reason": "line 42 returns `totl`"})

    return FakeModelClient(by_request=answer)


def run(
    client: FakeModelClient, analyzers: FakeAnalyzers, diff: str = CART, **job: object
) -> Report:
    personas = select_personas(load_personas([]), ["correctness"])
    fields: dict[str, object] = {
        "diff": ingest(diff),
        "settings": Settings(personas=("correctness",)),
        "providers": PROVIDERS,
        "personas": tuple(personas),
    }
    services = ReviewServices(client, Counter(), clock=lambda: 0.0, analyzers=analyzers)
    return asyncio.run(review(ReviewJob.model_validate(fields | job), services))


def summary(report: Report, diff: str = CART) -> str:
    """The summary comment a run on a fresh pull request posts with `report`."""
    ingested = ingest(diff)
    view = PullView(
        thread=read_thread([], []), head_sha="a" * 40, links=(), settings=PublishSettings(),
        changed=frozenset(f.path for f in ingested.files),
    )  # fmt: skip
    carried = carry_forward(PublishState(), ingested, basis="0" * 32, fresh=True)
    return compose(report, carried, ingested, view).summary


def test_a_ruff_result_and_a_model_paraphrase_at_one_line_are_one_posted_finding() -> None:
    analyzers = FakeAnalyzers((ruff_run([UNDEFINED]),))
    report = run(answers({"openai/gpt-5.1": reply(NAME_ERROR)}), analyzers)
    [finding] = report.findings
    assert len(analyzers.asked) == 1  # once per review
    assert {(m.family, m.source, m.rule) for m in finding.members} == {
        ("openai", FindingSource.MODEL, None),
        ("ruff", FindingSource.ANALYZER, "F821"),
    }
    assert finding.status is Status.CONSENSUS
    assert "also reported by ruff F821" in inline_body(finding)
    assert "also reported by ruff F821" in render_text(report)
    assert "also reported by ruff F821" in summary(report)
    sarif = json.loads(render_sarif(report))
    assert sarif["runs"][0]["results"][0]["properties"]["analyzers"] == ["ruff F821"]
    members = json.loads(render_json(report))["findings"][0]["members"]
    assert {"family": "ruff", "source": "analyzer", "rule": "F821"}.items() <= next(
        m for m in members if m["family"] == "ruff"
    ).items()


def test_an_analyzer_only_result_waits_for_a_model_and_says_why() -> None:
    report = run(answers({}), FakeAnalyzers((ruff_run([UNDEFINED]),)))
    [finding] = report.findings
    assert finding.title == "F821: Undefined name `totl`"
    assert not finding.status.posted
    assert finding.reason == "reported by ruff only; ruff posts with a model's agreement"
    not_posted = summary(report).split("Not posted", 1)[1]
    assert "reported by ruff only; ruff posts with a model's agreement" in not_posted
    assert finding.verification is None  # no judge asked: its rule is its evidence


def test_an_analyzer_that_posts_alone_is_posted_without_a_model() -> None:
    analyzers = FakeAnalyzers((ruff_run([UNDEFINED], posting=Posting.ALONE),))
    report = run(answers({}), analyzers)
    [finding] = report.findings
    assert finding.status is Status.CONSENSUS
    assert finding.reason == "reported by ruff F821; ruff posts on its own"


@pytest.mark.parametrize("path", ["src/cart.py", "cmd/server/main.go"])
def test_an_analyzers_silence_is_no_vote_against_a_models_finding(path: str) -> None:
    # ruff reviews the Python file and says nothing of the logic bug there: two of three
    # models agreeing is the same 2 of 3 as on the Go file it cannot read.
    client = answers({p.model: reply(NAME_ERROR, GO_RACE) for p in PROVIDERS[:2]})
    report = run(client, FakeAnalyzers((ruff_run([]),)), CART + GO, verify=False)
    [finding] = [f for f in report.findings if f.path == path]
    assert (finding.votes.for_, finding.votes.of) == (2, 3)


def test_an_analyzer_that_reports_a_claim_counts_for_it() -> None:
    analyzers = FakeAnalyzers((ruff_run([UNDEFINED]),))
    report = run(answers({"openai/gpt-5.1": reply(NAME_ERROR)}), analyzers, verify=False)
    [finding] = report.findings
    assert (finding.votes.for_, finding.votes.of) == (2, 4)


def test_an_analyzer_that_could_not_run_reviews_nothing_and_is_noted() -> None:
    missing = ruff_run([]).model_copy(update={"note": "ruff is not installed: pip install ruff"})
    client = answers({p.model: reply(NAME_ERROR) for p in PROVIDERS[:2]})
    report = run(client, FakeAnalyzers((missing,)), verify=False)
    [finding] = report.findings
    assert (finding.votes.for_, finding.votes.of) == (2, 3)
    assert "ruff: ruff is not installed: pip install ruff" in report.notes


def test_judges_see_the_analyzers_results_on_the_lines_they_check() -> None:
    client = answers({"openai/gpt-5.1": reply(NAME_ERROR)})
    other = ruff_run([("E501", "src/cart.py", 41, "Line too long (120 > 100)")])
    run(client, FakeAnalyzers((other,)))
    [asked, *_] = [c for c in client.calls if c.schema_name == "verdict"]
    prompt = asked.messages[-1].content
    data = prompt[: prompt.index("</data-")]
    assert "ruff E501 at src/cart.py:41: Line too long (120 > 100)" in data
