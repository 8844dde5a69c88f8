"""Saved review workflows, the pure parts: the strict loader, narrowing the base settings,
the prompt, the fingerprint namespace, the summary section and the state kept apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from consensus.decide.fingerprint import namespaced
from consensus.errors import ConfigError
from consensus.model.base import Category, Severity, Status
from consensus.model.host import GITHUB_WORDS
from consensus.model.report import Quorum, Report, ReportFinding, Votes
from consensus.publish.plan import Placement, Scope, plan_publish
from consensus.publish.state import (
    PublishState,
    TrackedFinding,
    decode_state,
    encode_state,
    with_workflow,
    workflow_view,
)
from consensus.publish.summary import render_summary, render_workflow_section
from consensus.publish.thread import SUMMARY_MARKER, PullRequestThread
from consensus.publish.workflow_section import put_section, workflow_sections
from consensus.review.prompt import review_messages
from consensus.settings.config import (
    InspectorSettings,
    ProviderSettings,
    PublishSettings,
    Settings,
)
from consensus.settings.personas import load_personas, select_personas
from consensus.settings.workflows import (
    VerifyMode,
    Workflow,
    load_workflows,
    narrow_providers,
    narrow_settings,
    parse_workflow,
    reserved_names,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "review-workflows"
PATH = ".consensus/workflows/security-audit.md"
GOOD = """\
---
title: Security audit
description: Security persona on auth code.
personas: [security]
providers: [openai, anthropic/claude-x]
threshold: 0.5
min_severity: medium
paths: ["*auth*"]
exclude: ["tests"]
verify: all
ahead_by: 3
budget: {max_cost_usd: 0.5}
---
Check every token comparison.
"""
PROVIDERS = (
    ProviderSettings(model="openai/gpt-x"),
    ProviderSettings(model="anthropic/claude-x"),
    ProviderSettings(model="gemini/gemini-x"),
    ProviderSettings(model="openrouter/openai/gpt-y"),
)


def workflow(text: str = GOOD, path: str = PATH) -> Workflow:
    return parse_workflow(text, path=path, reserved=reserved_names())


# --------------------------------------------------------------------------- the loader


def test_a_workflow_file_reads_every_key() -> None:
    loaded = workflow()
    assert loaded.name == "security-audit" and loaded.title == "Security audit"
    assert loaded.personas == ("security",) and loaded.providers == ("openai", "anthropic/claude-x")
    assert loaded.threshold == 0.5 and loaded.min_severity is Severity.MEDIUM
    assert loaded.paths == ("*auth*",) and loaded.exclude == ("tests",)
    assert loaded.verify is VerifyMode.ALL and loaded.ahead_by == 3
    assert loaded.budget is not None and loaded.budget.max_cost_usd == 0.5
    assert loaded.instructions == "Check every token comparison." and loaded.path == PATH


def test_only_the_description_is_required() -> None:
    loaded = workflow("---\ndescription: Quick look.\n---\n")
    assert loaded.title == "security-audit" and loaded.instructions == ""
    assert loaded.personas is None and loaded.providers is None
    assert loaded.verify is VerifyMode.DISPUTED


BAD = [
    # (front matter replacing GOOD's, the key named, words of the problem)
    ("description: x\nverfy: all", "verfy", "unknown key"),
    ("description: x\nmodel: openai/gpt-5", "model", "unknown key"),
    ("title: no description", "description", "is missing"),
    ("description: x\nverify: sometimes", "verify", "'all', 'disputed' or 'none'"),
    ("description: x\nthreshold: 2", "threshold", "should be at most 1"),
    ("description: x\nmin_severity: urgent", "min_severity", "critical"),
    ("description: x\nahead_by: 0", "ahead_by", "should be at least 1"),
    ("description: x\npersonas: []", "personas", "at least 1"),
    ("description: x\nbudget: {max_dollars: 3}", "budget.max_dollars", "unknown key"),
    (
        "description: x\nproviders:\n  - {model: openai/evil, api_base: 'http://evil'}",
        "providers.0",
        "should be text",
    ),
    ("description: x\nproviders: ['http://evil.example/v1']", "providers", "not a model"),
    ("description: 'two\n\n  lines'", "description", "one non-empty line"),
]


@pytest.mark.parametrize(("front", "key", "problem"), BAD)
def test_a_bad_workflow_file_is_an_error_naming_the_file_and_the_key(
    front: str, key: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        workflow(f"---\n{front}\n---\nBody.\n")
    assert caught.value.source == PATH and caught.value.key == key
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Security", "lowercase letters, digits and '-'"),
        ("sec_audit", "lowercase letters, digits and '-'"),
        ("review", "is a built-in command"),
        ("rereview", "is a built-in command"),  # an alias of review
        ("workflows", "is a built-in command"),
    ],
)
def test_a_workflow_name_is_a_slug_that_no_command_has(name: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        workflow(path=f".consensus/workflows/{name}.md")
    assert caught.value.key == "name" and problem in str(caught.value)


def test_the_examples_load_and_say_what_the_issue_asks() -> None:
    found = load_workflows(EXAMPLES, reserved=reserved_names())
    assert set(found) == {"security-audit", "migration-check", "docs-review"}  # not README
    security, docs = found["security-audit"], found["docs-review"]
    assert security.personas == ("security",) and security.threshold == 0.5
    assert security.verify is VerifyMode.ALL
    assert {"*auth*", "*crypt*", ".github/workflows"} <= set(security.paths or ())
    migration = found["migration-check"].instructions.lower()
    assert all(word in migration for word in ("locking", "reversib", "data loss"))
    assert docs.personas == ("docs",) and docs.min_severity is Severity.LOW
    available = load_personas([])
    for each in found.values():  # every persona they name exists
        select_personas(available, each.personas or (), source=each.path)


# --------------------------------------------------------------------------- narrowing


def test_narrow_settings_applies_the_workflows_choices() -> None:
    base = Settings(exclude=("docs",), budget={"max_cost_usd": 2.0, "max_tokens": 9_000})  # type: ignore[arg-type]
    narrowed = narrow_settings(workflow(), base)
    assert narrowed.personas == ("security",) and narrowed.threshold == 0.5
    assert narrowed.paths == ("*auth*",) and narrowed.exclude == ("tests",)
    assert narrowed.publish.min_severity is Severity.MEDIUM
    assert narrowed.inspector.ahead_by == 3 and narrowed.inspector.check_consensus
    assert narrowed.verify_min_severity is Severity.INFO  # verify: all
    assert narrowed.budget.max_cost_usd == 0.5 and narrowed.budget.max_tokens == 9_000
    quiet = narrow_settings(workflow("---\ndescription: d\n---\n"), base)
    assert quiet == base


@pytest.mark.parametrize(
    ("names", "kept"),
    [
        (("openai",), ["openai/gpt-x", "openrouter/openai/gpt-y"]),  # a family: both routes
        (("anthropic/claude-x", "google"), ["anthropic/claude-x", "gemini/gemini-x"]),
        (("google", "openai/gpt-x"), ["openai/gpt-x", "gemini/gemini-x"]),  # base order
    ],
)
def test_providers_are_chosen_among_the_base_ones_by_model_or_family(
    names: tuple[str, ...], kept: list[str]
) -> None:
    chosen = Workflow.model_validate({**dict(workflow()), "providers": names})
    _, providers = narrow_providers(chosen, Settings(min_providers=1), PROVIDERS)
    assert [p.model for p in providers] == kept


def test_a_workflow_cannot_bring_a_provider_of_its_own() -> None:
    chosen = Workflow.model_validate({**dict(workflow()), "providers": ("openai/gpt-evil",)})
    with pytest.raises(ConfigError) as caught:
        narrow_providers(chosen, Settings(), PROVIDERS)
    assert caught.value.source == PATH and caught.value.key == "providers"
    assert "neither a model nor a family of the base configuration" in str(caught.value)


def test_too_few_families_for_the_quorum_is_said_at_once() -> None:
    chosen = Workflow.model_validate({**dict(workflow()), "providers": ("openai",)})
    with pytest.raises(ConfigError, match=r"keeps 1 family .* min_providers is 2"):
        narrow_providers(chosen, Settings(min_providers=2), PROVIDERS)


def test_the_inspector_and_voters_stay_within_the_chosen_providers() -> None:
    base = Settings(
        providers=PROVIDERS,
        inspector=InspectorSettings(
            model="gemini/gemini-x", voters=("gemini/gemini-x", "openai/gpt-x")
        ),
    )
    chosen = Workflow.model_validate({**dict(workflow()), "providers": ("openai", "anthropic")})
    settings, providers = narrow_providers(chosen, base, PROVIDERS)
    assert settings.inspector.model is None and settings.inspector.voters == ("openai/gpt-x",)
    assert settings.providers == providers
    kept = Workflow.model_validate({**dict(workflow()), "providers": ("google", "openai")})
    settings, _ = narrow_providers(kept, base, PROVIDERS)
    assert settings.inspector.model == "gemini/gemini-x"


# --------------------------------------------------------------------------- prompt


def test_the_instructions_follow_the_diff_inside_the_cached_prefix() -> None:
    plain = review_messages("+ x = 1", "PERSONA", ["a.py"])[1]
    extra = review_messages(
        "+ x = 1", "PERSONA", ["a.py"], extra_instructions="CHECK TOKENS", extra_title="Audit"
    )[1]
    assert "CHECK TOKENS" not in plain.content
    diff_end = extra.content.index("</diff-")
    assert diff_end < extra.content.index("CHECK TOKENS") < extra.content.index("PERSONA")
    assert extra.cache_prefix is not None and "CHECK TOKENS" in extra.cache_prefix
    assert "PERSONA" not in extra.cache_prefix
    assert extra.content.startswith(plain.content.split("PERSONA")[0].rstrip())


# --------------------------------------------------------------------------- fingerprints


def test_a_workflow_has_a_fingerprint_namespace_of_its_own() -> None:
    print_ = "0123456789abcdef"
    assert namespaced(print_, "") == print_  # the default review is unchanged
    audit, docs = namespaced(print_, "security-audit"), namespaced(print_, "docs-review")
    assert len({print_, audit, docs}) == 3
    assert audit == namespaced(print_, "security-audit") and len(audit) == 16
    assert namespaced(f"{print_}-2", "security-audit") != audit


# --------------------------------------------------------------------------- publishing


def finding(n: int, fingerprint: str, *, status: Status = Status.CONSENSUS) -> ReportFinding:
    return ReportFinding(
        id=f"F{n}",
        fingerprint=fingerprint,
        path="app.py",
        line=12,
        end_line=12,
        severity=Severity.HIGH,
        category=Category.SECURITY,
        title=f"Problem {n} @team <b>x</b>",
        body="Why.",
        agreement=1.0,
        votes=Votes(**{"for": 2, "of": 2}),
        providers=["openai/o", "anthropic/a"],
        personas=["security"],
        status=status,
    )


def tracked(fingerprint: str, n: int = 1) -> TrackedFinding:
    return TrackedFinding(
        fingerprint=fingerprint,
        id=f"F{n}",
        path="app.py",
        line=12,
        severity=Severity.HIGH,
        title="old",
        inline=True,
    )


def report(*findings: ReportFinding, workflow: str | None = None) -> Report:
    return Report(
        run_id="r1",
        workflow=workflow,
        findings=list(findings),
        quorum=Quorum(families_answered=2, min_providers=2, met=True),
        threshold=0.75,
    )


def publish(report_: Report, state: PublishState):  # type: ignore[no-untyped-def]
    return plan_publish(
        report_,
        PullRequestThread(state=state),
        PublishSettings(),
        scope=Scope(head_sha="b" * 40, reviewed={"app.py"}, in_diff={"app.py"}),
        hunks={"app.py": [frozenset(range(10, 21))]},
    )


DEFAULT_PRINT, AUDIT_PRINT = "00000000000000d1", "00000000000000a1"


def test_a_workflow_run_neither_resolves_nor_repeats_the_default_reviews_findings() -> None:
    page = PublishState(head_sha="a" * 40, findings=(tracked(DEFAULT_PRINT),))
    view = workflow_view(page, "security-audit")
    assert view.findings == () and view.head_sha == ""
    plan = publish(report(finding(1, AUDIT_PRINT), workflow="security-audit"), view)
    assert plan.resolved == () and [p.placement for p in plan.placed] == [Placement.INLINE]
    assert plan.review is not None and "consensus security-audit F1" in plan.review.comments[0].body
    merged = with_workflow(page, "security-audit", plan.state)
    assert merged.findings == page.findings and merged.head_sha == "a" * 40  # untouched
    mine = merged.workflow("security-audit")
    assert mine is not None and [t.fingerprint for t in mine.findings] == [AUDIT_PRINT]
    # The default review's next run finds nothing: it resolves its own finding only,
    # and keeps the workflow's part of the state as it was.
    after = publish(report(), merged)
    assert [t.fingerprint for t in after.resolved] == [DEFAULT_PRINT]
    assert after.state.workflows == merged.workflows


def test_dismissals_are_shared_but_match_only_their_own_namespace() -> None:
    from consensus.publish.state import Dismissal

    page = PublishState(dismissed=(Dismissal(fingerprint=DEFAULT_PRINT, by="maria"),))
    view = workflow_view(page, "security-audit")
    plan = publish(report(finding(1, AUDIT_PRINT), finding(2, DEFAULT_PRINT), workflow="x"), view)
    assert [p.placement for p in plan.placed] == [Placement.INLINE, Placement.DISMISSED]


def test_the_state_round_trips_with_workflows_and_reads_v2() -> None:
    state = with_workflow(
        PublishState(head_sha="a" * 40),
        "docs-review",
        PublishState(head_sha="c" * 40, findings=(tracked(AUDIT_PRINT),)),
    )
    decoded = decode_state(f"x\n{encode_state(state)}")
    assert decoded == state
    old = encode_state(PublishState(head_sha="a" * 40)).replace(" v3 ", " v2 ")
    older = decode_state(f"x\n{old}")
    assert older is not None and older.workflows == () and older.head_sha == "a" * 40


def test_the_workflow_section_is_replaced_in_place_and_kept_by_the_default_review() -> None:
    run = report(finding(1, AUDIT_PRINT), workflow="security-audit")
    plan = publish(run, PublishState())
    section = render_workflow_section(
        run,
        plan,
        title="Security audit",
        description="Auth @team",
        head_sha="b" * 40,
        words=GITHUB_WORDS,
    )
    text = "\n".join(section)
    assert "### Workflow `security-audit`: Security audit" in text
    assert "@team" not in text and "<b>" not in text  # text from files and models escaped
    state = with_workflow(PublishState(), "security-audit", plan.state)
    first = put_section("", "security-audit", section, state, GITHUB_WORDS)
    assert first.startswith(SUMMARY_MARKER) and decode_state(first) == state
    again = put_section(first, "security-audit", section, state, GITHUB_WORDS)
    assert again == first  # replaced, not added twice
    assert workflow_sections(again)["security-audit"] == section
    default = render_summary(
        report(),
        publish(report(), state),
        head_sha="b" * 40,
        words=GITHUB_WORDS,
        workflows=[section],
    )
    assert workflow_sections(default) == {"security-audit": section}
    docs = [*section[:1], "docs"]  # an unclosed section is not one
    assert "docs-review" not in workflow_sections("\n".join(docs))


def test_a_large_workflow_section_stays_within_its_budget() -> None:
    findings = [finding(n, f"{n:016x}") for n in range(1, 200)]
    run = report(*findings, workflow="security-audit")
    plan = publish(run, PublishState())
    section = render_workflow_section(
        run, plan, title="t", description="d", head_sha="b" * 40, words=GITHUB_WORDS, budget=4_000
    )
    assert sum(len(line) + 1 for line in section) <= 4_000
    assert section[-1] == "<!-- /consensus:workflow=security-audit -->"
    assert "more finding" in "\n".join(section)


def test_workflow_sections_give_way_last_and_the_state_always_stays() -> None:
    big = [
        [f"<!-- consensus:workflow=w{n} -->", "x" * 15_000, f"<!-- /consensus:workflow=w{n} -->"]
        for n in range(6)
    ]
    state = PublishState(head_sha="a" * 40)
    page = render_summary(
        report(), publish(report(), state), head_sha="b" * 40, words=GITHUB_WORDS, workflows=big
    )
    assert len(page) < 65_536 and decode_state(page) is not None
    assert set(workflow_sections(page)) == {f"w{n}" for n in range(6)}  # markers kept
    small = [[*part[:1], "short", *part[-1:]] for part in big]
    page = render_summary(
        report(), publish(report(), state), head_sha="b" * 40, words=GITHUB_WORDS, workflows=small
    )
    assert "\nshort\n" in page
