"""The bench's pure parts: suites, the benchmark's files, the judge's replies, the counting
and its intervals, labels."""

from __future__ import annotations

import asyncio
import json

import pytest

from consensus.bench import martian
from consensus.bench.judge import (
    BenchFinding,
    GoldenMatch,
    clean_pr_match,
    judge_all,
    judge_finding,
    parse_judgement,
)
from consensus.bench.labelled import jsonl, label_findings
from consensus.bench.precision import bootstrap_f1, by_severity, count_pr, figure, interval
from consensus.bench.suite import Golden, SuitePR, load_suite
from consensus.errors import ConfigError
from consensus.model.base import Category, FailureKind, Severity, Status, VerdictKind
from consensus.model.findings import Verification, Vote
from consensus.model.report import ReportFinding, Votes
from consensus.ports import ModelCallError
from consensus.review.reply import ReplyError
from consensus.settings.config import ProviderSettings
from consensus.testing import FakeModelClient

PR = SuitePR(
    repo="acme/shop",
    number=7,
    goldens=(
        Golden(comment="reads past the end", severity=Severity.HIGH),
        Golden(comment="divides by zero", severity=Severity.MEDIUM),
        Golden(comment="typo in a name", severity=Severity.LOW),
    ),
)


def found(title: str, severity: Severity = Severity.HIGH, line: int = 5) -> BenchFinding:
    return BenchFinding(
        path="app/cart.py",
        line=line,
        end_line=line,
        severity=severity,
        category=Category.BUG,
        title=title,
        body=f"{title}, explained.",
    )


def judged(
    finding: BenchFinding, golden: int | None, *, failed: bool = False, pr: SuitePR = PR
) -> GoldenMatch:
    return GoldenMatch(pr=pr.key, finding=finding, matched=None if failed else golden is not None,
                       golden=golden, reason="because", judge="openai/gpt-5.2")  # fmt: skip


# --------------------------------------------------------------------------- counting


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        ([0, 1], (2, 0, 1)),  # two goldens found by two findings
        ([0, 0], (1, 1, 2)),  # a second finding on a found golden is a false positive
        ([0, None], (1, 1, 2)),  # a finding that matches nothing is a false positive
        (["failed"], (0, 1, 3)),  # a failed judgement matches nothing
        ([], (0, 0, 3)),
    ],
)
def test_counting_follows_the_benchmark(
    answers: list[int | str | None], expected: tuple[int, int, int]
) -> None:
    findings = [found(f"finding {n}", line=n + 1) for n in range(len(answers))]
    judgements = {
        f.key: judged(f, None if a in (None, "failed") else int(a), failed=a == "failed")  # type: ignore[arg-type]
        for f, a in zip(findings, answers, strict=True)
    }
    counts = count_pr(PR, findings, judgements)
    assert (counts.tp, counts.fp, counts.fn) == expected
    assert counts.tp + counts.fp == counts.findings  # every posted finding is a candidate
    assert counts.unjudged == answers.count("failed")


# Martian's Code Review Bench at 012d68202e56 (MIT licence), offline/results/openai_gpt-5.2/
# evaluations.json, keycloak/keycloak#37634, tool "propel": 4 goldens (from
# offline/golden_comments/keycloak.json, shortened here), 3 candidates (its candidates.json).
# The judge matched candidate 1 to golden 1, and candidates 2 and 3 both to golden 2.
# Its record: total_candidates 3, total_golden 4, tp 2, precision 0.6667, recall 0.5.
# By hand: goldens matched = {1, 2} → tp = 2; fn = 4 − 2 = 2; candidate 3 repeats golden 2,
# so it matches no new golden → fp = 3 − 2 = 1; precision = 2 / 3 = 0.6667 (tp over all
# candidates), recall = 2 / 4 = 0.5. Counting the repeat as neither (as we used to) gave
# fp = 0 and precision 2 / 2 = 1.0.
KEYCLOAK_37634 = SuitePR(
    repo="keycloak/keycloak",
    number=37634,
    goldens=(
        Golden(comment="Wrong parameter in null check (grantType vs. rawTokenId)",
               severity=Severity.CRITICAL),
        Golden(comment="In isAccessTokenId, the substring for the grant shortcut and the "
                       "equality check look inverted", severity=Severity.HIGH),
        Golden(comment='Javadoc mentions "usually like 3-letters shortcut" but some '
                       "implementations use 2-letter shortcuts", severity=Severity.LOW),
        Golden(comment="Catching generic RuntimeException is too broad", severity=Severity.LOW),
    ),
)  # fmt: skip
PROPEL_CANDIDATES = (
    ("Constructor fails to validate rawTokenId because the fourth Objects.requireNonNull "
     "mistakenly checks grantType again", 0),
    ("isAccessTokenId uses the wrong substring indices for the grant shortcut (checks "
     "characters 3-4 instead of 4-5)", 1),
    ("isAccessTokenId contains inverted/incorrect logic that returns false even when the "
     "grant shortcut matches", 1),
)  # fmt: skip


def test_the_benchmarks_own_record_is_counted_as_it_counts_it() -> None:
    findings = [found(title, line=n) for n, (title, _) in enumerate(PROPEL_CANDIDATES, 1)]
    judgements = {
        f.key: judged(f, golden, pr=KEYCLOAK_37634)
        for f, (_, golden) in zip(findings, PROPEL_CANDIDATES, strict=True)
    }
    counts = count_pr(KEYCLOAK_37634, findings, judgements)
    assert (counts.tp, counts.fp, counts.fn, counts.duplicates) == (2, 1, 2, 1)
    overall = figure([counts])
    assert overall.precision == pytest.approx(0.6667, abs=1e-4)  # the record's "precision"
    assert overall.recall == 0.5  # the record's "recall"
    # the first of the two on golden 2 is its match: by severity, one of two high ones
    high = next(r for r in by_severity([counts]) if r.severity is Severity.HIGH)
    assert (high.findings, high.matched, high.found, high.goldens) == (3, 2, 1, 1)


def test_sums_over_prs_give_the_benchmarks_precision_and_recall() -> None:
    """One provider alone on three PRs of 6 goldens each (18), as the judge matched its 20
    findings (golden index, None for no match). By hand, per PR (tp, fp, fn):
      A: goldens 0-3 found, golden 0 again, one miss → (4, 6 − 4 = 2, 6 − 4 = 2)
      B: goldens 0-4 found, golden 1 again, two misses → (5, 8 − 5 = 3, 1)
      C: goldens 0-3 found, two misses → (4, 2, 2)
    Sums: tp 13, fp 7, fn 5: precision 13 / 20 = 0.65, recall 13 / 18 = 0.722. With the two
    repeats counted as neither, fp would be 5 and precision 13 / 18 = 0.722."""
    rows = []
    for name, answers in (("A", [0, 1, 2, 3, 0, None]),
                          ("B", [0, 1, 2, 3, 4, 1, None, None]),
                          ("C", [0, 1, 2, 3, None, None])):  # fmt: skip
        pr = SuitePR(id=name, diff="d", goldens=tuple(
            Golden(comment=f"defect {n}", severity=Severity.HIGH) for n in range(6)))  # fmt: skip
        findings = [found(f"finding {n}", line=n + 1) for n in range(len(answers))]
        judgements = {f.key: judged(f, a, pr=pr) for f, a in zip(findings, answers, strict=True)}
        rows.append(count_pr(pr, findings, judgements))
    assert [(r.tp, r.fp, r.fn) for r in rows] == [(4, 2, 2), (5, 3, 1), (4, 2, 2)]
    overall = figure(rows)
    assert (overall.tp, overall.fp, overall.fn, overall.duplicates) == (13, 7, 5, 2)
    assert round(overall.precision, 3) == 0.65 and round(overall.recall, 3) == 0.722


def test_a_clean_pr_counts_every_finding_as_a_false_positive_and_nothing_for_recall() -> None:
    clean = SuitePR(id="refactor", diff="d", goldens=())
    noise = [found("Style"), found("Naming", Severity.LOW, line=9)]
    matches = {f.key: clean_pr_match(f, clean) for f in noise}
    counts = count_pr(clean, noise, matches)
    assert (counts.tp, counts.fp, counts.fn, counts.clean) == (0, 2, 0, True)
    found_one = count_pr(PR, [found("reads past")], {found("reads past").key: judged(
        found("reads past"), 0)})  # fmt: skip
    overall = figure([found_one, counts])
    assert (overall.tp, overall.fp, overall.fn) == (1, 2, 2)  # recall 1 / 3, as without it
    assert (overall.clean_prs, overall.posted_on_clean) == (1, 2)
    assert figure([found_one]).recall == overall.recall


def test_nothing_is_asked_about_a_clean_pr() -> None:
    client = FakeModelClient()
    clean = SuitePR(id="refactor", diff="d", goldens=())
    answers = asyncio.run(judge_all([(found("Style"), "")], clean, judge=JUDGE, client=client,
                                    concurrency=2))  # fmt: skip
    assert client.calls == []
    [answer] = answers
    assert (answer.matched, answer.golden, answer.judge) == (False, None, "")
    assert "no defect" in answer.reason


def test_by_severity_takes_recall_from_goldens_and_precision_from_findings() -> None:
    high, low = found("high one"), found("low one", Severity.LOW, line=9)
    counts = count_pr(PR, [high, low], {high.key: judged(high, 1), low.key: judged(low, None)})
    rows = {row.severity: row for row in by_severity([counts])}
    assert (rows[Severity.MEDIUM].found, rows[Severity.MEDIUM].goldens) == (1, 1)
    assert rows[Severity.HIGH].found == 0 and rows[Severity.HIGH].matched == 1
    assert rows[Severity.LOW].precision == 0.0 and rows[Severity.LOW].recall == 0.0


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (3, 4, 0.3006, 0.9544),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (50, 100, 0.4038, 0.5962),
    ],
)
def test_wilson_interval_matches_published_values(k: int, n: int, low: float, high: float) -> None:
    found = interval(k, n)
    assert found is not None
    assert found == pytest.approx((low, high), abs=1e-4)


def test_no_trial_has_no_interval() -> None:
    assert interval(0, 0) is None


def test_the_f1_bootstrap_is_reproducible_and_brackets_the_estimate() -> None:
    findings = [found(f"f{n}", line=n) for n in range(3)]
    rows = []
    for answers in ([0, 1, None], [2, None, None], [None, None, None], [0, 1, 2]):
        judgements = {f.key: judged(f, a) for f, a in zip(findings, answers, strict=True)}
        rows.append(count_pr(PR, findings, judgements))
    overall = figure(rows)
    assert overall.f1_ci == bootstrap_f1(rows)  # seeded: the same interval every time
    assert overall.f1_ci is not None
    assert overall.f1_ci[0] <= overall.f1 <= overall.f1_ci[1]
    assert bootstrap_f1(rows[:1]) is None  # one PR cannot be resampled


# --------------------------------------------------------------------------- our suite format


def test_a_suite_line_names_its_pr_by_repo_and_number_or_id() -> None:
    text = (
        '{"repo": "acme/shop", "number": 7, "goldens": [{"comment": "x", "severity": "High"}]}\n'
        "\n"
        '{"id": "mine", "diff": "diff --git a/x b/x", "goldens": [{"comment": "y", '
        '"severity": "low"}], "project": "payments"}\n'
    )
    suite = load_suite(text, source="suites/mine.jsonl")
    assert [pr.key for pr in suite.prs] == ["acme/shop#7", "mine"]
    assert [pr.group for pr in suite.prs] == ["acme/shop", "payments"]
    assert suite.prs[0].goldens[0].severity is Severity.HIGH


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"repo": "acme/shop", "goldens": [{"comment": "x", "severity": "low"}]}',
         "s.jsonl:1: give either repo and number (read from GitHub) or diff"),
        ('{"diff": "d", "goldens": [{"comment": "x", "severity": "urgent"}]}',
         "s.jsonl:1: goldens.0.severity: severity must be one of low, medium"),
        ('{"diff": "d", "tags": []}', "s.jsonl:1: goldens: Field required"),
        ('{"diff": "d", "goldens": [{"comment": "x", "severity": "low"}], "tag": 1}',
         "s.jsonl:1: tag: Extra inputs are not permitted"),
        ("[1, 2]", "s.jsonl:1: each line is one JSON object"),
        ("{nope", "s.jsonl:1: not JSON"),
        ("", "s.jsonl: the suite holds no pull request"),
    ],
)  # fmt: skip
def test_a_bad_suite_line_is_named(line: str, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_suite(line + "\n", source="s.jsonl")
    assert str(raised.value).startswith(message)


def test_a_clean_pr_is_a_suite_line_with_no_golden() -> None:
    text = (
        '{"id": "refactor", "diff": "diff --git a/x b/x", "goldens": []}\n'
        '{"repo": "acme/shop", "number": 7, "goldens": [{"comment": "x", "severity": "low"}]}\n'
    )
    clean, buggy = load_suite(text, source="s.jsonl").prs
    assert (clean.key, clean.goldens, len(buggy.goldens)) == ("refactor", (), 1)


def test_two_prs_with_one_key_are_refused() -> None:
    line = '{"repo": "a/b", "number": 1, "goldens": [{"comment": "x", "severity": "low"}]}\n'
    with pytest.raises(ConfigError, match="both 'a/b#1'"):
        load_suite(line * 2, source="s.jsonl")


# --------------------------------------------------------------------------- the benchmark's files


def test_the_benchmark_goldens_become_a_suite_keyed_by_pull_request() -> None:
    goldens = {project: "[]" for project in martian.PROJECTS}
    goldens["grafana"] = json.dumps(
        [{"pr_title": "Fix", "url": "https://github.com/grafana/grafana/pull/79265",
          "comments": [{"comment": "race", "severity": "Critical"}]}]
    )  # fmt: skip
    suite = martian.martian_suite(goldens, "MIT License\n\nCopyright (c) 2025 Martian\n")
    [pr] = suite.prs
    assert (pr.key, pr.repo, pr.number, pr.group) == ("grafana/grafana#79265", "grafana/grafana",
                                                     79265, "grafana")  # fmt: skip
    assert suite.licence == "MIT License, Copyright (c) 2025 Martian"
    assert suite.source.endswith(f"at {martian.COMMIT[:12]}")


def test_a_benchmark_pr_without_goldens_is_skipped_as_its_scoring_skips_it() -> None:
    goldens = {project: "[]" for project in martian.PROJECTS}
    goldens["sentry"] = json.dumps(
        [{"url": "https://github.com/getsentry/sentry/pull/1", "comments": []},
         {"url": "https://github.com/getsentry/sentry/pull/2",
          "comments": [{"comment": "leak", "severity": "High"}]}]
    )  # fmt: skip
    suite = martian.martian_suite(goldens, "MIT")
    assert [pr.key for pr in suite.prs] == ["getsentry/sentry#2"]


def test_a_golden_entry_without_a_pull_request_url_is_refused() -> None:
    goldens = {project: "[]" for project in martian.PROJECTS}
    goldens["sentry"] = json.dumps([{"url": "https://github.com/x/y/commit/abc", "comments": []}])
    with pytest.raises(ConfigError, match=r"sentry.json\[0\]: url: not a pull request URL"):
        martian.martian_suite(goldens, "MIT")


@pytest.mark.parametrize(
    ("model", "judge"),
    [
        ("openai/gpt-5.2", "openai_gpt-5.2"),
        ("gpt-5.2", "openai_gpt-5.2"),
        ("openrouter/anthropic/claude-opus-4-5-20251101", "anthropic_claude-opus-4-5-20251101"),
        ("anthropic/claude-sonnet-4-5-20250929", "anthropic_claude-sonnet-4-5-20250929"),
        ("anthropic/claude-sonnet-4-5", None),
        ("openai/gpt-5.1", None),
    ],
)
def test_our_judge_is_matched_to_the_benchmark_judge_by_its_own_name(
    model: str, judge: str | None
) -> None:
    assert martian.judge_dir_for(model) == judge


def test_published_figures_sum_each_tool_over_prs_it_was_not_skipped_on() -> None:
    text = json.dumps(
        {
            "pr1": {"a": {"tp": 1, "fp": 2, "fn": 1}, "b": {"skipped": True, "tp": 9}},
            "pr2": {"a": {"tp": 2, "fp": 0, "fn": 0}, "b": {"tp": 0, "fp": 1, "fn": 2}},
        }
    )
    a, b = martian.published_figures(text, "openai_gpt-5.2")
    assert (a.tool, a.prs, a.tp, a.fp, a.fn) == ("a", 2, 3, 2, 1)
    assert (a.precision, a.recall) == (0.6, 0.75)
    assert a.f1 == pytest.approx(2 * 0.6 * 0.75 / 1.35)
    assert (b.prs, b.tp, b.f1) == (1, 0, 0.0)


# --------------------------------------------------------------------------- the judge's reply


@pytest.mark.parametrize(
    ("text", "verdict", "golden"),
    [
        ('{"verdict": "match", "golden": 2, "reason": "same defect"}', "match", 2),
        ('```json\n{"verdict": "No match", "golden": null}\n```', "no_match", None),
        ('Sure. {"verdict": "MATCH", "golden": 1}', "match", 1),
    ],
)  # fmt: skip
def test_a_judge_reply_is_read(text: str, verdict: str, golden: int | None) -> None:
    reply = parse_judgement(text, goldens=3)
    assert (reply.verdict, reply.golden) == (verdict, golden)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"verdict": "match", "golden": 4}', '"golden" must be a number from 1 to 3'),
        ('{"verdict": "match"}', '"golden" must be a number from 1 to 3'),
        ('{"verdict": "maybe", "golden": 1}', "verdict: Input should be 'match' or 'no_match'"),
        ("I think they match.", "JSON"),
    ],
)
def test_a_judge_reply_that_cannot_be_used_says_why(text: str, problem: str) -> None:
    with pytest.raises(ReplyError) as raised:
        parse_judgement(text, goldens=3)
    assert problem in raised.value.problem


# --------------------------------------------------------------------------- labels


def report_finding(title: str, verification: Verification | None = None) -> ReportFinding:
    return ReportFinding(
        id="F1", fingerprint="f" * 16, path="app/cart.py", line=5, end_line=7,
        severity=Severity.HIGH, category=Category.BUG, title=title, body="explained",
        agreement=0.5, votes=Votes(for_=1, of=2), providers=["openai/gpt-test"],
        personas=["correctness"], status=Status.VERIFIED, verification=verification,
    )  # fmt: skip


def test_labels_carry_the_judges_verdict_and_the_votes_cast_on_each_claim() -> None:
    votes = (
        Vote(model="anthropic/claude-test", family="anthropic", role="inspector",
             verdict=VerdictKind.CONFIRMED, reason="seen"),
        Vote(model="openai/gpt-test", family="openai", role="voter", verdict=None,
             reason="call failed", self_vote=True),
    )  # fmt: skip
    real = report_finding("Reads past the end", Verification(confirmed=1, votes=votes))
    wrong, unjudged = report_finding("Style"), report_finding("Judge failed")
    judgements = {
        (PR.key, BenchFinding.of(real).key): judged(BenchFinding.of(real), 0),
        (PR.key, BenchFinding.of(wrong).key): judged(BenchFinding.of(wrong), None),
        (PR.key, BenchFinding.of(unjudged).key): judged(BenchFinding.of(unjudged), 0, failed=True),
    }
    sections = {"app/cart.py": "diff --git a/app/cart.py b/app/cart.py\n"}
    labelled = label_findings(
        [(PR.key, "mine:acme/shop#7", [real, wrong, unjudged], sections)], judgements
    )
    lines = [json.loads(line) for line in jsonl(labelled.claims).splitlines()]
    assert lines[0] == {
        "id": "L1", "diff": sections["app/cart.py"], "path": "app/cart.py", "line": 5,
        "end_line": 7, "title": "Reads past the end", "body": "explained", "real": True,
        "severity": "high", "category": "bug", "origin": "mine:acme/shop#7",
    }  # fmt: skip
    assert [(x["id"], x["real"]) for x in lines] == [("L1", True), ("L2", False)]
    cast = [json.loads(line) for line in jsonl(labelled.votes).splitlines()]
    assert [(v["claim"], v["role"], v.get("verdict")) for v in cast] == [
        ("L1", "inspector", "confirmed"),
        ("L1", "voter", None),
    ]


# --------------------------------------------------------------------------- the page


def test_the_page_shows_model_and_golden_text_as_text_never_markup() -> None:
    from consensus.bench.page import render_bench_html
    from consensus.bench.results import Tally, build_result
    from consensus.bench.suite import Suite

    hostile = found("<img src=x onerror=alert(1)> reads past the end")
    answer = GoldenMatch(pr=PR.key, finding=hostile, matched=True, golden=0,
                       golden_comment="<script>alert(2)</script>", reason="<b>same</b>",
                       judge="openai/gpt-5.2")  # fmt: skip
    suite = Suite(name="mine", source="mine.jsonl", prs=(PR,))
    tally = Tally(posted={"consensus": {PR.key: [hostile]}},
                  judgements={(PR.key, hostile.key): answer})  # fmt: skip
    result = build_result(
        suite, judge="openai/gpt-5.2", tally=tally, published_judge=None, published=[]
    )
    page = render_bench_html(result)
    assert "<img src=x" not in page and "<script>alert" not in page and "<b>same" not in page
    assert "&lt;img src=x onerror=alert(1)&gt; reads past the end" in page
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page
    assert result.variants[0].overall.tp == 1 and result.variants[0].overall.fn == 2
    # precision 1 (top), recall 1/3 (a third across the 420-unit plot, 48 in)
    assert "<circle class='ours' cx='188.0' cy='48.0' r='6'>" in page
    assert page.count("<line class='ci'") == 2  # its two 95% whiskers


def test_the_tables_show_what_was_posted_on_clean_prs_only_when_the_suite_has_one() -> None:
    from consensus.bench.results import Tally, build_result
    from consensus.bench.suite import Suite
    from consensus.bench.tables import render_markdown

    clean = SuitePR(id="refactor", diff="d", goldens=())
    first, again, style = found("Reads past the end"), found("Off by one", line=6), found("Nit")
    tally = Tally(
        posted={"consensus": {PR.key: [first, again], clean.key: [style]}},
        judgements={(PR.key, first.key): judged(first, 0), (PR.key, again.key): judged(again, 0),
                    (clean.key, style.key): clean_pr_match(style, clean)},
    )  # fmt: skip

    def scored(*prs: SuitePR) -> str:
        suite = Suite(name="mine", source="mine.jsonl", prs=prs)
        return render_markdown(build_result(suite, judge="openai/gpt-5.2", tally=tally,
                                            published_judge=None, published=[]))  # fmt: skip

    both = scored(PR, clean)
    assert "- 2 pull requests (1 of them clean), 3 golden comments" in both
    assert "| F1 | TP / FP / FN | review cost | posted on clean PRs |" in both
    assert "| 1 / 2 / 2 | $0.0000 | 1 on 1 |" in both  # the repeat and the clean PR's nit
    assert "a second finding on a golden already matched: consensus (with verification) 1." in (
        both
    )
    without = scored(PR)
    assert "clean" not in without and "| 1 / 1 / 2 | $0.0000 |" in without


# --------------------------------------------------------------------------- asking the judge


JUDGE = ProviderSettings(model="openai/gpt-5.2")


def ask(client: FakeModelClient, finding: BenchFinding) -> GoldenMatch:
    return asyncio.run(judge_finding(finding, PR, judge=JUDGE, client=client, hunk=""))


def test_the_judge_sees_every_golden_as_data_and_answers_first() -> None:
    client = FakeModelClient().queue(
        "openai/gpt-5.2", ['{"verdict": "match", "golden": 2, "reason": "both: empty cart"}']
    )
    answer = ask(client, found("Division by zero"))
    assert (answer.matched, answer.golden, answer.golden_comment) == (True, 1, "divides by zero")
    [request] = client.calls
    system, user = request.messages
    nonce = user.content.split(">", 1)[0].removeprefix("<data-")
    assert f"<data-{nonce}>" in system.content  # the markers are announced as data
    assert (
        "1. [high] reads past the end\n2. [medium] divides by zero\n3. [low] typo" in user.content
    )
    assert request.temperature == 0.0 and request.response_schema is not None


def test_a_reply_that_cannot_be_used_gets_one_repair_turn_quoting_the_problem() -> None:
    client = FakeModelClient().queue(
        "openai/gpt-5.2",
        ['{"verdict": "match", "golden": 7}', '{"verdict": "no_match", "reason": "other"}'],
    )
    answer = ask(client, found("Style"))
    assert answer.matched is False and answer.reason == "other"
    repair = client.calls[1].messages
    assert repair[-2].content == '{"verdict": "match", "golden": 7}'
    assert '"golden" must be a number from 1 to 3' in repair[-1].content


def test_a_judge_that_cannot_answer_leaves_a_failed_judgement_not_a_verdict() -> None:
    broken = ModelCallError(FailureKind.TIMEOUT, "no answer in 120 s")
    answer = ask(FakeModelClient().queue("openai/gpt-5.2", [broken]), found("Style"))
    assert answer.matched is None and answer.golden is None
    assert answer.reason == "the judge's call failed (timeout): no answer in 120 s"
    still_bad = FakeModelClient().queue("openai/gpt-5.2", ["yes", "still yes"])
    answer = ask(still_bad, found("Style"))
    assert answer.matched is None and len(still_bad.calls) == 2
