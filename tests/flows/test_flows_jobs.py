"""The hallway's two single places: `prepare_job` (every face's way to a ReviewJob) and
`exit_code` (every face's way from a FlowResult to its exit code)."""

from __future__ import annotations

import pytest

from consensus.app.exit_codes import exit_code
from consensus.app.jobs import JobRequest, RawDiff, prepare_job
from consensus.app.services import ProviderKeys
from consensus.ingest.chunking import MAX_HUNK_LINES
from consensus.model.base import Severity
from consensus.model.diff import SkippedFile
from consensus.model.flow_result import FlowResult, ResultKind
from consensus.model.report import Quorum, Report
from consensus.review.guidelines import Guidelines
from consensus.settings.config import ProviderSettings, Settings
from consensus.settings.personas import Persona, load_personas, select_personas
from consensus.settings.workflows import narrow_settings, parse_workflow
from tests.flows.test_pipeline import DIFF

OPENAI = ProviderSettings(model="openai/gpt-5.1", api_key_env="OPENAI_API_KEY")
CLAUDE = ProviderSettings(model="anthropic/claude-sonnet-4-5", api_key_env="ANTHROPIC_API_KEY")
GEMINI = ProviderSettings(model="gemini/gemini-2.5-pro", api_key_env="GEMINI_API_KEY")
KEYS = ProviderKeys({"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}, lambda model: ())
AUDIT = """---
description: Injection only
personas: [security]
providers: [openai, anthropic]
verify: none
---
Look only for injection.
"""


def request(settings: Settings, **given: object) -> tuple[JobRequest, list[str]]:
    sources: list[str] = []

    def personas(chosen: Settings, source: str) -> list[Persona]:
        sources.append(source)
        return select_personas(load_personas([]), chosen.personas, source=source)

    fields: dict[str, object] = {
        "settings": settings,
        "providers": lambda: (OPENAI, CLAUDE, GEMINI),
        "personas": personas,
        "personas_from": ".consensus.yml",
        "guidelines": lambda chosen: Guidelines(),
        "label": "acme/service#7 @ aaaaaaaaaaaa",
    }
    return JobRequest(**(fields | given)), sources  # type: ignore[arg-type]


def test_a_job_warns_of_missing_keys_and_labels_the_run() -> None:
    lines: list[str] = []
    asked, sources = request(Settings(personas=("correctness",)))
    job = prepare_job(RawDiff(DIFF), asked, KEYS, lines.append)
    assert job.unavailable == {GEMINI.model: "environment variable GEMINI_API_KEY is not set"}
    assert lines == [f"warning: {GEMINI.model} will not be called: {job.unavailable[GEMINI.model]}"]
    assert [p.id for p in job.personas] == ["correctness"] and sources == [".consensus.yml"]
    assert job.verify and job.label == "acme/service#7 @ aaaaaaaaaaaa"


def test_a_workflow_narrows_providers_personas_verification_and_the_label() -> None:
    workflow = parse_workflow(AUDIT, path=".consensus/workflows/audit.md")
    settings = narrow_settings(workflow, Settings(providers=(OPENAI, CLAUDE, GEMINI)))
    asked, sources = request(settings, workflow=workflow)
    job = prepare_job(RawDiff(DIFF), asked, KEYS, lambda line: None)
    assert job.providers == (OPENAI, CLAUDE)
    assert [p.id for p in job.personas] == ["security"]
    assert sources == [".consensus/workflows/audit.md"]  # its errors name the workflow file
    assert job.verify is False  # verify: none
    assert job.label == "acme/service#7 @ aaaaaaaaaaaa (workflow audit)"


def test_the_personas_flag_outranks_the_workflows_choice_of_personas() -> None:
    workflow = parse_workflow(AUDIT, path=".consensus/workflows/audit.md")
    settings = narrow_settings(workflow, Settings(providers=(OPENAI, CLAUDE)))
    asked, sources = request(
        settings, workflow=workflow, personas_from="--personas", personas_flagged=True
    )
    prepare_job(RawDiff(DIFF), asked, KEYS, lambda line: None)
    assert sources == ["--personas"]


LONG = (
    "diff --git a/src/schema.py b/src/schema.py\nnew file mode 100644\n--- /dev/null\n"
    "+++ b/src/schema.py\n@@ -0,0 +1,700 @@\n"
    + "".join(f"+COLUMN_{n} = 'column_{n}'\n" for n in range(700))
)


def test_a_job_holds_the_diff_ingested_with_its_sources_skipped_files_and_long_hunks_cut() -> None:
    omitted = SkippedFile(path="data/huge.json", reason="GitHub omitted the patch (file too large)")
    asked, _ = request(Settings(personas=("correctness",), exclude=("docs/**",)))
    job = prepare_job(RawDiff(LONG + DIFF, skipped=(omitted,)), asked, KEYS, lambda line: None)
    [schema, *_] = job.diff.files
    assert [len(h.lines) for h in schema.hunks] == [MAX_HUNK_LINES, MAX_HUNK_LINES, 100]
    assert [h.new_start for h in schema.hunks] == [1, 301, 601]
    assert job.diff.skipped[-1] == omitted  # after what ingest itself set aside


def test_a_face_that_skips_an_empty_diff_asks_no_provider_persona_or_guideline() -> None:
    asked: list[str] = []
    empty = "diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n"
    job_request, sources = request(
        Settings(personas=("correctness",)),
        providers=lambda: asked.append("providers") or (OPENAI,),
        skip_empty=True,
    )
    job = prepare_job(RawDiff(empty), job_request, KEYS, lambda line: None)
    assert job.diff.files == () and [s.path for s in job.diff.skipped] == ["logo.png"]
    assert (job.providers, job.personas, asked, sources) == ((), (), [], [])


REVIEWED_HIGH = FlowResult(kind=ResultKind.REVIEWED, posted=(Severity.HIGH,))
INCOMPLETE = FlowResult(kind=ResultKind.INCOMPLETE, reason="quorum not met", quorum_met=False)


@pytest.mark.parametrize(
    ("result", "fail_on", "on_no_review", "code"),
    [
        (REVIEWED_HIGH, "none", "fail", 0),
        (REVIEWED_HIGH, "high", "fail", 1),
        (REVIEWED_HIGH, "medium", "fail", 1),
        (REVIEWED_HIGH, "critical", "fail", 0),
        (INCOMPLETE, "none", "fail", 3),
        (INCOMPLETE, "none", "warn", 0),
        (FlowResult.skipped("a draft"), "low", "fail", 0),
        (FlowResult(kind=ResultKind.DONE), "low", "fail", 0),
    ],
)
def test_one_rule_from_outcome_to_exit_code(
    result: FlowResult, fail_on: str, on_no_review: str, code: int
) -> None:
    lines: list[str] = []
    warned: list[str] = []  # the Action's warning annotation on the run
    assert (
        exit_code(
            result,
            fail_on=fail_on,
            log=lines.append,
            on_no_review=on_no_review,
            warn=warned.append,
        )
        == code
    )
    assert lines == (["error: quorum not met"] if code == 3 else [])
    advisory = result.kind is ResultKind.INCOMPLETE and on_no_review == "warn"
    assert warned == (["quorum not met"] if advisory else [])


ASKS_CHANGES = FlowResult(
    kind=ResultKind.REVIEWED, posted=(Severity.CRITICAL,), changes_requested=True
)


@pytest.mark.parametrize(("changes_fail", "code"), [(False, 0), (True, 1)])
def test_a_review_asking_for_changes_fails_only_where_no_review_event_carries_it(
    changes_fail: bool, code: int
) -> None:
    """GitHub's review says REQUEST_CHANGES; GitLab has none, so its job fails instead."""
    lines: list[str] = []
    got = exit_code(ASKS_CHANGES, fail_on="none", log=lines.append, changes_fail=changes_fail)
    assert got == code
    assert bool(lines) is changes_fail


def made_report() -> Report:
    quorum = Quorum(families_answered=2, min_providers=2, met=True)
    return Report(run_id="r", quorum=quorum, threshold=0.75)


def test_a_result_asks_for_changes_from_the_configured_severity() -> None:
    made = FlowResult.of(made_report(), [Severity.HIGH, Severity.LOW], changes_floor=Severity.HIGH)
    assert made.changes_requested and made.posted == (Severity.HIGH, Severity.LOW)
    lower = FlowResult.of(made_report(), [Severity.MEDIUM], changes_floor=Severity.HIGH)
    assert not lower.changes_requested
    assert not FlowResult.of(made_report(), [Severity.CRITICAL]).changes_requested
