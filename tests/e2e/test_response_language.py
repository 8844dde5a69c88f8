"""`response_language`: reviewers write titles, bodies and reasons in it; ids, fingerprints
and the JSON report's keys do not change with it. The prompt rule as a table, the pipeline
with the fake model, then the Action against the loopback GitHub."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from consensus.errors import ConfigError
from consensus.ingest.review_diff import ingest
from consensus.model.calibration import Calibration, FamilyCalibration, JudgeCounts
from consensus.model.report import Report
from consensus.ports import CompletionRequest
from consensus.review.prompt import language_note, review_messages
from consensus.settings.config import ProviderSettings, Settings, parse_settings
from consensus.settings.personas import load_personas, select_personas
from consensus.testing import FakeModelClient
from consensus_sim.provider_server import FakeProviderServer, Script, Step, prompt_text, reply
from tests.e2e import test_action_e2e as e2e
from tests.flows.test_pipeline import DIFF, Counter

PT = "Brazilian Portuguese (pt-BR)"


@pytest.mark.parametrize(
    ("tag", "words"),
    [
        ("en", None),
        ("en-GB", None),
        ("pt-BR", "in Brazilian Portuguese (pt-BR)"),
        ("PT-br", "in Brazilian Portuguese (PT-br)"),
        ("ja", "in Japanese (ja)"),
        ("de-CH", "in German (de-CH)"),  # a region of a known language
        ("tlh", "in the language with the BCP 47 tag tlh"),
    ],
)
def test_the_language_note_names_the_language(tag: str, words: str | None) -> None:
    note = language_note(tag, "the title")
    if words is None:
        assert note == ""
    else:
        assert f"Write the title {words}." in note and "JSON keys" in note


def test_the_note_comes_after_the_diff_so_the_cached_prefix_is_the_same() -> None:
    english = review_messages("+x = 1", "persona", ["a.py"])
    portuguese = review_messages("+x = 1", "persona", ["a.py"], language="pt-BR")
    assert english[0] == portuguese[0]  # the system message
    assert english[1].cache_prefix == portuguese[1].cache_prefix
    assert PT not in english[1].content and PT in portuguese[1].content
    assert portuguese[1].content.index(PT) > len(portuguese[1].cache_prefix or "")


@pytest.mark.parametrize("value", ["Portuguese", "pt_BR", "p", "pt-BR-x-very-long-subtag"])
def test_a_language_that_is_no_tag_is_a_config_error(value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(f"response_language: {value}\n", source=".consensus.yml")
    assert caught.value.key == "response_language" and "BCP 47" in str(caught.value)


# --------------------------------------------------------------------------- pipeline

PROVIDERS = (
    ProviderSettings(model="openai/gpt-5.1"),
    ProviderSettings(model="anthropic/claude-sonnet-4-5"),
    ProviderSettings(model="gemini/gemini-2.5-pro"),
)
TITLES = {"en": "SQL injection in get_user", "pt-BR": "Injeção de SQL em get_user"}
REASONS = {"en": "the query is built from input", "pt-BR": "a consulta é montada da entrada"}


def speaker(request: CompletionRequest) -> str:
    """A model that writes in the language the prompt asks for; gemini reports nothing,
    so the finding is disputed (2 of 3) and goes to the verifiers."""
    text = "\n".join(m.content for m in request.messages)
    lang = "pt-BR" if PT in text else "en"
    if "independent verifier" in text:
        return json.dumps({"verdict": "confirmed", "reason": REASONS[lang]})
    if request.model.startswith("gemini"):
        return '{"findings": []}'
    finding = {
        "path": "src/app/db.py",
        "line": 11,
        "severity": "high",
        "category": "security",
        "title": TITLES[lang],
        "body": f"{TITLES[lang]}.",
    }
    return json.dumps({"findings": [finding]})


def review_in(language: str) -> tuple[Report, FakeModelClient]:
    from consensus.review.job import ReviewJob
    from consensus.review.pipeline import ReviewServices, review

    client = FakeModelClient(by_request=speaker)
    # Gemini, the one judge, as a calibration measured it: its confirmation verifies.
    labels = JudgeCounts(confirmed_real=95, missed_real=5, refuted_false=90, confirmed_false=10)
    calibration = Calibration(families={"google": FamilyCalibration(judge=labels)})
    settings = Settings(
        personas=("security",), response_language=language, threshold=0.9, calibration=calibration
    )
    job = ReviewJob(
        diff=ingest(DIFF),
        settings=settings,
        providers=PROVIDERS,
        personas=tuple(select_personas(load_personas([]), ["security"])),
    )
    report = asyncio.run(review(job, ReviewServices(client, Counter(), clock=lambda: 0.0)))
    return report, client


def test_reviewers_and_verifiers_answer_in_the_language_and_nothing_else_changes() -> None:
    english, _ = review_in("en")
    portuguese, client = review_in("pt-BR")
    [en], [pt] = english.findings, portuguese.findings
    assert (en.title, pt.title) == (TITLES["en"], TITLES["pt-BR"])
    assert pt.status.value == "verified" and en.status.value == "verified"
    same = ("id", "fingerprint", "line", "category", "severity")
    assert [getattr(pt, k) for k in same] == [getattr(en, k) for k in same]
    verifier_prompts = [c for c in client.calls if "independent verifier" in c.messages[0].content]
    assert verifier_prompts and all(PT in c.messages[-1].content for c in verifier_prompts)
    assert 'Write the "reason" in Brazilian Portuguese' in verifier_prompts[0].messages[-1].content


# --------------------------------------------------------------------------- the Action


def portuguese_responder(model: str) -> object:
    english = e2e.responder(model)

    def answer(body: dict[str, object]) -> Step:
        step = english(body)  # type: ignore[operator]
        if PT not in prompt_text(body):
            return step  # type: ignore[no-any-return]
        data = json.loads(step.text)
        for found in data.get("findings", []):
            found["title"] = found["title"].replace("SQL injection", "Injeção de SQL")
            found["title"] = found["title"].replace("Off-by-one in loop", "Erro de um no laço")
            found["body"] = "Explicação em português."
        return reply(json.dumps(data))

    return answer


@pytest.fixture
def world(tmp_path: Path) -> Iterator[e2e.World]:
    script = Script()
    for model in e2e.MODELS:
        script.respond(model, portuguese_responder(model))  # type: ignore[arg-type]
    with e2e.FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp_path / "service"
        repo.mkdir()
        e2e.git(repo, "init", "-q", "-b", "main")
        files = {"src/app/db.py": e2e.DB_BEFORE, ".consensus.yml": e2e.config(providers.url)}
        e2e.commit(repo, files, "base")
        e2e.git(repo, "checkout", "-q", "-b", "feature")
        e2e.commit(repo, {"src/app/db.py": e2e.DB_AFTER}, "feature")
        yield e2e.World(tmp_path, repo, github, providers)


def report_of(world: e2e.World) -> dict[str, object]:
    return json.loads((world.tmp / "consensus-report.json").read_text())  # type: ignore[no-any-return]


def keys(value: object) -> object:
    if isinstance(value, dict):
        return {k: keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [keys(v) for v in value[:1]]
    return type(value).__name__


def test_switching_the_language_reposts_nothing_and_keeps_ids_and_keys(world: e2e.World) -> None:
    world.open_pr()
    first = world.run()
    assert first.code == 0, first.stderr
    english = report_of(world)
    comments = world.github.repos[e2e.REPO].review_comments
    assert len(comments) == 2 and all("Injeção" not in c["body"] for c in comments)
    # The base branch switches to Portuguese; the PR is the same change on top of it.
    e2e.git(world.repo, "checkout", "-q", "main")
    config = e2e.config(world.providers.url) + "response_language: pt-BR\n"
    e2e.commit(world.repo, {".consensus.yml": config}, "pt-BR")
    e2e.git(world.repo, "checkout", "-q", "-b", "feature-pt")
    e2e.commit(world.repo, {"src/app/db.py": e2e.DB_AFTER}, "feature")
    world.open_pr(head="feature-pt")
    second = world.run("synchronize", CONSENSUS_FULL_REVIEW="true")
    assert second.code == 0, second.stderr
    portuguese = report_of(world)
    prompts = [r.raw for r in world.providers.log.all() if r.method == "POST"]
    assert any(PT in p for p in prompts)
    assert e2e.review_posts(second) == []  # same fingerprints: nothing posted twice
    assert len(world.github.repos[e2e.REPO].review_comments) == 2
    findings_en = english["findings"]
    findings_pt = portuguese["findings"]
    assert isinstance(findings_en, list) and isinstance(findings_pt, list)
    assert [(f["id"], f["fingerprint"]) for f in findings_pt] == [
        (f["id"], f["fingerprint"]) for f in findings_en
    ]
    assert all(f["title"].startswith(("Injeção de SQL", "Erro de um")) for f in findings_pt)
    # A fresh look at the same code also lists the decisions it made differently: the
    # verifiers read the Portuguese title of the loop finding otherwise.
    changes = portuguese.pop("decision_changes")
    assert english.pop("decision_changes") == []
    assert [(c["id"], c["before"], c["after"]) for c in changes] == [
        # its one judge confirmed it, then refuted it: its refutation weighs what meta's
        # estimated rates say, enough to make the claim more likely invented than real
        ("F2", "consensus 3/4 · confirmed by meta", "rejected (refuted by meta)")  # type: ignore[index]
    ]
    assert keys(portuguese) == keys(english)
    summary = world.bot_summary()
    assert "Injeção de SQL" in summary and "SQL injection (" not in summary
