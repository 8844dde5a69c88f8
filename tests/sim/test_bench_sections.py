"""The benchmarks write their own figures into the BENCHMARKS.md sections: each section's
render function turns one run's results into its figures blocks, and `write_figures`
replaces exactly those blocks in the real section file, keeping the prose around them."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmarks.sim.first_run_figures import CommandTimes, FirstRunResults, first_run_figures
from benchmarks.sim.github_figures import GitHubResults, GitHubRun, github_figures
from benchmarks.sim.judge_presets import AGREEABLE, EFFECTS, IMPARTIAL
from benchmarks.sim.looking_section import PRESETS as LOOKING_PRESETS
from benchmarks.sim.looking_section import TODAY as BLIND
from benchmarks.sim.looking_section import Run, Seed, looking_figures
from benchmarks.sim.quality_figures import quality_figures
from benchmarks.sim.quality_rules import (
    CALIBRATED,
    ESTIMATED,
    FEW,
    FRONTIER,
    WARM,
    RulesRun,
    is_unopposed,
    judges_figures,
    unopposed,
)
from benchmarks.sim.quality_world import (
    DEFAULT,
    HEADLINE,
    NO_ASKING,
    Diagnosis,
    SimResult,
    Tally,
    now,
    with_voting,
)
from benchmarks.sim.recorded import Record, Recorded
from benchmarks.sim.sections import (
    ActionFigures,
    IngestResults,
    IngestRow,
    JournalResults,
    Machine,
    OverheadResults,
    PhaseFigures,
    ReviewResults,
    ScaleResults,
    ScaleRow,
    StartUpFigures,
    StepFigures,
    figures_blocks,
    hand_carried,
    ingest_figures,
    journal_figures,
    overhead_figures,
    review_figures,
    scale_figures,
    write_figures,
)
from consensus.model.base import VerdictKind
from consensus.model.calibration import Rate
from consensus.model.findings import Cluster, ScoredCluster, Verification, Vote
from consensus.model.panel import FamilyEstimate, PanelEstimate

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
MACHINE = Machine(cores=2, load_start=0.64, load_end=1.26)


def looking_run(precision_tp: int, verify_calls: int, clean_posted: int) -> Run:
    """100 PRs, 20 of them clean, 50 bugs of which 45 found."""
    tally = Tally(tp=precision_tp, fp=100 - precision_tp, found=45, bugs=50, prs=100,
                  verify_calls=verify_calls, clean_prs=20, clean_posted=clean_posted)  # fmt: skip
    return Run(tally=tally, tokens=9_600_000, tool_calls=3_100, looked=40, blind=60)


# Today's rule: 90 of 100 posted real at 24 calls a PR; looking: 99 real at 43 calls a PR;
# looking that helps nothing: today's figures at 50 calls a PR (over twice today's).
RUN_OF = {BLIND: looking_run(90, 2_400, 3), "none": looking_run(90, 5_000, 3)}
LOOKING = [
    Seed(1, {(p.name, effect): RUN_OF.get(effect) or looking_run(99, 4_300, 0)
             for p in LOOKING_PRESETS for effect in (BLIND, *(n for n, _ in EFFECTS))},
         Counter(), 840.0),
]  # fmt: skip

JOURNAL = JournalResults(
    calls=2000,
    record_median_ms=0.0812,
    record_p95_ms=0.149,
    served_median_ms=0.071,
    bytes_per_call=1475.0,
    machine=MACHINE,
)
INGEST = IngestResults(
    file=IngestRow("one 20,000-line source file", 1, 20_000, 0.326, 52.4, 13.1),
    pr=IngestRow("2,000-file PR (50 lines each)", 2_000, 100_000, 2.04, 121.2, 76.4),
    machine=MACHINE,
)
SCALE = ScaleResults(
    rows=(
        ScaleRow(100, 5_000, 6, 200, 0.31, 54.2),
        ScaleRow(2_000, 100_000, 78, 4_000, 12.4, 532.0),
    ),
    machine=MACHINE,
)
REVIEW = ReviewResults(
    calls=64,
    wall_s=3.05,
    planning_s=0.2,
    ideal_s=2.4,
    sent_over_naive=1.094,
    prefix_share=0.75,
    align_s=0.342,
    machine=MACHINE,
)
STEP = StepFigures(
    install_s=0.0, startup_s=5.2, calls_s=2.1, publish_s=1.7, step_s=9.0, first_call_s=5.8
)
OVERHEAD = OverheadResults(
    start_up=StartUpFigures(
        import_exit_s=3.61, import_done_s=2.73, first_call_s=3.68, help_s=0.07, runs=3
    ),
    phases=(
        PhaseFigures(0.3, 64, 2.4, (1.13, 1.11, 1.12), 10.14, 1.20),
        PhaseFigures(1.5, 64, 12.0, (1.02, 1.15), 9.9, 1.10),
    ),
    distinct_reports=1,
    action=ActionFigures(
        cold=replace(STEP, install_s=40.8, first_call_s=46.0),
        warm=STEP,
        slash_s=0.7,
        same_report=True,
        venv_mb=380.4,
    ),
    machine=MACHINE,
)

FIRST_RUN = FirstRunResults(
    demo=CommandTimes("`consensus demo`", (9.91,), (0,)),
    reference=CommandTimes('`python -c "import litellm"` alone', (3.6, 3.9, 3.7), (0, 0, 0)),
    commands=(
        CommandTimes("`consensus --help`", (0.08, 0.07, 0.31), (0, 0, 0)),
        CommandTimes("`consensus doctor` without a key", (0.61, 0.58, 0.66), (3, 3, 3)),
        CommandTimes("`consensus review --dry-run`", (0.97, 0.95, 1.4), (0, 0, 0)),
    ),
    machine=MACHINE,
)
FIRST_ENDPOINTS = {"GET /pulls/N": 1, "GET /pulls/N/files": 1, "POST /graphql": 1,
                   "POST /pulls/N/reviews": 1, "POST /issues/N/comments": 1}  # fmt: skip
RERUN_ENDPOINTS = {"GET /pulls/N": 1, "GET /pulls/N/files": 1, "POST /graphql": 2,
                   "PATCH /issues/comments/N": 1}  # fmt: skip
GITHUB = GitHubResults(
    files=40,
    runs=(
        GitHubRun(25, FIRST_ENDPOINTS, RERUN_ENDPOINTS, first_calls=2, rerun_calls=0),
        GitHubRun(100, FIRST_ENDPOINTS, RERUN_ENDPOINTS, first_calls=2, rerun_calls=0),
    ),
)


def table_rows(text: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("|")
    ]


def test_journal_block_is_the_machine_line_and_a_table_of_the_run() -> None:
    assert journal_figures(JOURNAL) == {
        "journal": "One run on the shared 2-core machine (load average 0.6 at the start, "
        "1.3 at the end):\n"
        "\n"
        "| 2,000 calls | measured | target |\n"
        "|---|---:|---|\n"
        "| recording a call, median | 0.08 ms | < 2 ms: met |\n"
        "| recording a call, p95 | 0.15 ms |  |\n"
        "| serving it again on resume, median | 0.07 ms |  |\n"
        "| journal size per call | 1.5 KB |  |"
    }


def test_journal_block_says_not_met_over_the_target() -> None:
    [text] = journal_figures(replace(JOURNAL, record_median_ms=2.5)).values()
    assert "| recording a call, median | 2.50 ms | < 2 ms: NOT MET |" in text


def test_ingest_block_has_thousands_separators_right_aligned_numbers_and_the_verdicts() -> None:
    [text] = ingest_figures(INGEST).values()
    assert text.startswith("One run on the shared 2-core machine (load average 0.6")
    assert "|---|---:|---:|---:|---:|---:|---:|" in text
    assert table_rows(text)[2:] == [
        ["one 20,000-line source file", "1", "20,000", "0.33", "16.3", "52", "13"],
        ["2,000-file PR (50 lines each)", "2,000", "100,000", "2.04", "20.4", "121", "76"],
    ]
    assert text.endswith(
        "Time per line grows 1.25× from one file to 2,000 files (target ≈ 1: linear in lines, "
        "not in files; met); peak memory 121 MB for the 2,000-file PR (target < 500 MB; met)."
    )


def test_scale_block_rows_growth_and_targets_missed() -> None:
    [text] = scale_figures(SCALE).values()
    assert "|---:|---:|---:|---:|---:|---:|" in text
    assert table_rows(text)[2:] == [
        ["100", "5,000", "6", "200", "0.31", "54"],
        ["2,000", "100,000", "78", "4,000", "12.40", "532"],
    ]
    assert text.endswith(
        "CPU per file grows 2.00× from 100 to 2,000 files (1.0 = linear). Targets at 2,000 "
        "files: peak memory < 500 MB (NOT MET: 532 MB), tool CPU < 10 s (NOT MET: 12.4 s)."
    )


def test_review_block_rows_with_their_targets() -> None:
    [text] = review_figures(REVIEW).values()
    assert table_rows(text)[2:] == [
        [
            "wall time / ideal (ideal = ceil(calls / concurrency) × latency; 64 calls)",
            "1.27",
            "≤ 1.3: met",
        ],
        ["of which planning (chunking, token counts)", "0.20 s of 3.05 s", ""],
        ["prompt tokens sent / naive (diff tokens × providers × personas)", "1.09", ""],
        [
            "calls whose first 4,000 prompt characters repeat an earlier call's",
            "0.75",
            "≥ 0.75: met",
        ],
        ["aligning 5,000 findings (best of 3)", "0.34 s", "< 1 s: met"],
    ]
    [slow] = review_figures(replace(REVIEW, wall_s=4.4)).values()
    assert "| 1.83 | ≤ 1.3: NOT MET |" in slow


def test_overhead_blocks_the_table_and_the_step_times() -> None:
    blocks = overhead_figures(OVERHEAD)
    rows = {row[0]: row[1:] for row in table_rows(blocks["overhead"])[2:]}
    assert rows['`python -c "import litellm"`, whole process (best of 3)'] == ["3.61 s", ""]
    assert rows["first call / import litellm (whole process)"] == ["1.02", "≤ 1.10: met"]
    assert rows["first call / import litellm (until the import is done)"] == [
        "1.35",
        "(stricter, not met)",
    ]
    assert rows[
        "model phase / ideal at 0.3 s per call (64 calls, ideal 2.4 s; best, median of 3)"
    ] == ["1.11, 1.12", "≤ 1.20: met"]
    assert rows["model phase / ideal at 1.5 s per call (ideal 12 s; best, median of 2)"] == [
        "1.02, 1.08",
        "≤ 1.10: met",
    ]
    assert rows["Action, cold: install"] == ["40.8 s", ""]
    assert rows["Action, warm: install"] == ["0 s (skipped)", ""]
    assert rows["Action, cold: Python set up → first model call"] == ["46.0 s", ""]
    assert rows["cold and warm Action runs: byte-identical JSON report"] == ["yes", "yes: met"]
    assert blocks["overhead-step"] == (
        "The review step itself, cold / warm: start-up (step start → first model call) "
        "5.2 / 5.2 s, calls (first call → last answer) 2.1 / 2.1 s, publish (last answer → "
        "step end) 1.7 / 1.7 s, whole step 9.0 / 9.0 s."
    )


def test_overhead_without_the_action_has_no_action_rows() -> None:
    blocks = overhead_figures(replace(OVERHEAD, action=None))
    assert "Action" not in blocks["overhead"]
    assert "not run" in blocks["overhead-step"]


def test_first_run_block_has_the_demo_the_reference_and_a_verdict_per_command() -> None:
    [text] = first_run_figures(FIRST_RUN).values()
    assert text.startswith("One run on the shared 2-core machine (load average 0.6")
    assert "|---|---:|---:|---:|---:|---|" in text
    assert table_rows(text)[2:] == [
        ["`consensus demo`", "9.91", "9.91", "0", "1", "< 30 s: met"],
        ['`python -c "import litellm"` alone', "3.70", "3.90", "0", "3", "the reference"],
        ["`consensus --help`", "0.08", "0.31", "0", "3", "< 1 s: met"],
        ["`consensus doctor` without a key", "0.61", "0.66", "3", "3", "< 1 s: met"],
        ["`consensus review --dry-run`", "0.97", "1.40", "0", "3", "< 1 s: met"],
    ]
    assert text.endswith(
        "Commands that call no model under 1 s: 3 of 3 (met). The slowest, at 0.97 s (0.26 × "
        "`import litellm` alone): `consensus review --dry-run`. `consensus demo`: 9.9 s "
        "(target < 30 s: met)."
    )


def test_first_run_block_judges_the_median_not_the_worst_run() -> None:
    slow = CommandTimes("`consensus review --dry-run`", (1.02, 0.98, 1.05), (0, 0, 0))
    late = replace(FIRST_RUN, commands=(*FIRST_RUN.commands[:2], slow))
    [text] = first_run_figures(late).values()
    assert "| `consensus review --dry-run` | 1.02 | 1.05 | 0 | 3 | < 1 s: NOT MET |" in text
    assert "under 1 s: 2 of 3 (NOT MET). The slowest, at 1.02 s" in text
    # the worst run over the target does not fail a command whose median is under it
    assert "| `consensus --help` | 0.08 | 0.31 | 0 | 3 | < 1 s: met |" in text


def test_github_block_counts_each_run_and_its_targets() -> None:
    blocks = github_figures(GITHUB)
    assert table_rows(blocks["github"])[2:] == [
        ["25", "5", "5", "≤ 12 per run: met", "2", "0", "0 on a re-run: met"],
        ["100", "5", "5", "≤ 12 per run: met", "2", "0", "0 on a re-run: met"],
    ]
    assert blocks["github"].endswith(
        "A PR of 40 files. GitHub requests per run: 5 on every run, first run or re-run, "
        "with 25 and 100 findings. Targets (≤ 12 requests per run, 0 model calls on a "
        "re-run): met."
    )


def test_github_block_says_when_requests_grow_with_findings_or_a_re_run_asks_a_model() -> None:
    busy = {**FIRST_ENDPOINTS, "POST /pulls/N/comments": 8}
    grown = GitHubRun(100, busy, RERUN_ENDPOINTS, first_calls=2, rerun_calls=2)
    blocks = github_figures(replace(GITHUB, runs=(GITHUB.runs[0], grown)))
    assert table_rows(blocks["github"])[3] == [
        "100", "13", "5", "≤ 12 per run: NOT MET", "2", "2", "0 on a re-run: NOT MET",
    ]  # fmt: skip
    assert "per run: from 5 to 13 over the runs with 25 and 100 findings" in blocks["github"]
    assert blocks["github"].endswith("re-run): NOT MET.")


def test_github_endpoints_block_lists_every_request_of_either_run_with_the_totals() -> None:
    text = github_figures(GITHUB)["github-endpoints"]
    assert text.startswith("By request, with 25 findings:")
    assert table_rows(text)[2:] == [
        ["`GET /pulls/N`", "1", "1"],
        ["`GET /pulls/N/files`", "1", "1"],
        ["`PATCH /issues/comments/N`", "0", "1"],
        ["`POST /graphql`", "1", "2"],
        ["`POST /issues/N/comments`", "1", "0"],
        ["`POST /pulls/N/reviews`", "1", "0"],
        ["all", "5", "5"],
    ]


def quality_result() -> SimResult:
    """Tallies for the methods the quality blocks show, as a 10-PR run could give."""
    t, k = HEADLINE
    base = Tally(tp=40, fp=1, found=38, bugs=40, verify_calls=250, same_calls=40, prs=10,
                 duplicates=1, clean_prs=2)  # fmt: skip
    judged = replace(base, fp=3, self_votes=70, verify_calls=290)
    names = {
        with_voting(t, k): base,
        with_voting(t, k, NO_ASKING): replace(base, same_calls=0, duplicates=7),
    }
    for configured in (False, True):
        names[with_voting(t, k, now(configured=configured).name)] = base
        names[with_voting(t, k, now(independent=False, configured=configured).name)] = judged
    return SimResult(replace(DEFAULT, prs=10), names, Diagnosis(), 1.0, "")


RECORDED = Recorded(
    "a setting",
    (
        Record("5dbbbac", "before", {"duplicates posted / PR": 0.278, "precision": 0.903,
                                     "verification calls / PR": 23.34}),
        Record("9652b02", "after", {"posted findings on the clean PRs": 5}),
    ),
)  # fmt: skip


def test_quality_headline_sets_recorded_commits_beside_this_run() -> None:
    text = quality_figures(quality_result(), RECORDED)["quality-headline"]
    rows = table_rows(text)
    assert rows[0] == [
        "figure (consensus ≥ 0.75, k=2)",
        "`5dbbbac` (recorded)",
        "`9652b02` (recorded)",
        "now, without asking",
        "now",
        "target",
        "",
    ]
    assert rows[1] == ["---", "---:", "---:", "---:", "---:", "---", "---"]
    by_name = {row[0]: row[1:] for row in rows[2:]}
    assert by_name["duplicates posted / PR"] == [
        "0.278",
        "–",
        "0.700",
        "0.100",
        "≤ 0.02",
        "NOT MET",
    ]
    assert by_name["posted findings on the 2 clean PRs"] == ["–", "5", "0", "0", "0", "met"]
    assert by_name['verification calls / PR (inspector, votes, "same problem?")'] == [
        "23.34",
        "–",
        "25.00",
        "29.00",
        "≤ 1.3 × `5dbbbac` = 30.34",
        "met",
    ]
    assert by_name["F1"][-2:] == ["", ""]


def test_quality_independence_names_the_configured_judges_and_reporters_may_judge() -> None:
    text = quality_figures(quality_result(), RECORDED)["quality-independence"]
    assert "With a configured inspector (anthropic/claude-sonnet-4-5) and voters " in text
    rows = [row for row in table_rows(text) if row[0] == "precision"]
    assert rows[0] == ["precision", "0.930", "0.976", "≥ 0.980 (reporters may judge + 0.05)",
                       "NOT MET"]  # fmt: skip
    answers = [row for row in table_rows(text) if row[0].startswith("answers by a verifier")]
    assert answers[0][1:] == ["7.00", "0.00", "0", "met"]


def test_quality_methods_lists_every_method_and_where_bugs_end_up() -> None:
    text = quality_figures(quality_result(), RECORDED)["quality-methods"]
    assert text.startswith("All methods:\n\n| method | precision |")
    assert len(table_rows(text)) == 2 + len(quality_result().tallies)
    assert "- posted false positives: none" in text


def rules_run(seed: int, fp: int) -> RulesRun:
    """One seed's totals over 10 PRs (2 clean) under two presets; `fp` false positives for
    the default rule, cold."""
    base = Tally(tp=90, fp=fp, found=38, bugs=50, verify_calls=480, same_calls=20, prs=10,
                 clean_prs=2, clean_posted=1, clean_unopposed=1, unopposed_real=45,
                 unopposed_invented=5)  # fmt: skip
    every = (*FRONTIER, WARM, CALIBRATED, FEW)
    results = {
        AGREEABLE.name: {name: replace(base, fp=fp + n) for n, name in enumerate(every)},
        IMPARTIAL.name: {name: replace(base, found=47, verify_calls=230) for name in every},
    }
    results[AGREEABLE.name][ESTIMATED] = base
    results[AGREEABLE.name][WARM] = replace(base, found=39)  # recall +0.02 on calibrated
    results[AGREEABLE.name][CALIBRATED] = base
    window = Tally(tp=9, fp=1, found=4, bugs=5, prs=1)
    curves = {
        AGREEABLE.name: [replace(window, found=n) for n in (2, 3, 4, 5)],
        IMPARTIAL.name: [window] * 4,
    }

    def rate(value: float) -> Rate:
        return Rate(value=value, low=0.4, high=0.6, n=50)

    qwen = FamilyEstimate(family="qwen", tpr=rate(0.95), tnr=rate(0.31), precision=rate(0.5))
    learned = {AGREEABLE.name: PanelEstimate(families=(qwen,))}
    return RulesRun(seed, 10, (AGREEABLE, IMPARTIAL), results, curves, learned)


RUNS = (rules_run(1, fp=3), rules_run(2, fp=10))


def test_judges_conditions_block_has_every_preset_in_every_condition_and_seed() -> None:
    rows = table_rows(judges_figures(RUNS)["judges-conditions"])
    assert [row[0] for row in rows[2:]] == [
        "**agreeable, cold, seed 1**",
        "agreeable, cold, seed 2",
        "agreeable, warm, seed 1",
        "agreeable, warm, seed 2",
        "agreeable, calibrated, seed 1",
        "agreeable, calibrated, seed 2",
        "agreeable, a few labels, seed 1",
        "agreeable, a few labels, seed 2",
        "**impartial, cold, seed 1**",
        "impartial, cold, seed 2",
        "impartial, warm, seed 1",
        "impartial, warm, seed 2",
        "impartial, calibrated, seed 1",
        "impartial, calibrated, seed 2",
        "impartial, a few labels, seed 1",
        "impartial, a few labels, seed 2",
    ]
    assert rows[2][1:] == ["**0.968**", "**0.760**", "**50.0** (1 on 2)", "**50.0**"]
    assert rows[3][1:] == ["0.900", "0.760", "50.0 (1 on 2)", "50.0"]


def test_judges_targets_block_holds_every_seed_to_the_cold_targets_and_warm_to_calibrated() -> None:
    rows = table_rows(judges_figures(RUNS)["judges-targets"])
    assert rows[0] == ["preset", "target", "cold, seeds 1, 2", ""]
    by = {(row[0], row[1]): row[2:] for row in rows[2:]}
    assert by[("agreeable", "P ≥ 0.95")] == ["0.968, 0.900", "NOT MET"]
    assert by[("impartial", "R ≥ 0.88")] == ["0.940, 0.940", "met"]
    assert by[("agreeable", "clean ≤ 5/100")] == ["50.0, 50.0", "NOT MET"]
    unopposed = "the claims that reached consensus with no outside judge against them"
    floor = by[("agreeable", f"… of them, inventions among {unopposed}")]
    assert floor == ["50.0, 50.0", "above the target for every rule"]
    assert by[("agreeable", f"… the precision of {unopposed}")] == [
        "0.900, 0.900",
        "below the target",
    ]
    assert by[("impartial", "calls ≤ 40")] == ["25.0, 25.0", "met"]
    warm = by[("agreeable", "warm within 0.01 precision and 0.02 recall of calibrated")]
    assert warm == ["+0.000 / +0.020, +0.000 / +0.020", "met"]


def claim(agreement: float, *votes: tuple[str, VerdictKind, bool], line: int = 40) -> ScoredCluster:
    """A claim about app/session.py:`line` as the sim's default rule left it: its agreement
    and its votes in order (family, verdict, whether the family reported it)."""
    said = tuple(Vote(model=f"{family}/m", family=family, role="voter", verdict=verdict,
                      reason="", self_vote=own) for family, verdict, own in votes)  # fmt: skip
    cluster = Cluster.model_construct(
        members=(SimpleNamespace(path="app/session.py"),), line=line, end_line=line
    )
    return ScoredCluster.model_construct(
        cluster=cluster, agreement=agreement, verification=Verification(votes=said)
    )


YES, NO, UNSURE = VerdictKind.CONFIRMED, VerdictKind.REFUTED, VerdictKind.UNCERTAIN


def test_a_consensus_claim_no_outside_judge_spoke_against_on_its_first_answer_is_unopposed() -> (
    None
):
    assert is_unopposed(claim(0.75, ("qwen", YES, False)), AGREEABLE)  # its outsider confirmed
    assert is_unopposed(claim(1.0), AGREEABLE)  # unanimous: no outsider to ask
    first_counts = claim(0.75, ("qwen", YES, False), ("qwen", NO, False))
    assert is_unopposed(first_counts, AGREEABLE)
    assert is_unopposed(claim(0.75, ("openai", NO, True), ("qwen", YES, False)), AGREEABLE)
    # An impartial judge is as often unsure of a real claim as of an invention.
    assert is_unopposed(claim(0.75, ("qwen", UNSURE, False)), IMPARTIAL)


def test_a_doubted_refuted_or_disputed_claim_is_not_unopposed() -> None:
    # An agreeable judge is unsure of inventions more often than of real claims.
    assert not is_unopposed(claim(0.75, ("qwen", UNSURE, False)), AGREEABLE)
    assert not is_unopposed(claim(0.75, ("qwen", NO, False)), IMPARTIAL)
    assert not is_unopposed(claim(0.75, ("qwen", YES, False), ("google", NO, False)), AGREEABLE)
    assert not is_unopposed(claim(0.5, ("qwen", YES, False), ("google", YES, False)), AGREEABLE)


def test_unopposed_claims_are_counted_real_or_invented_by_the_prs_bugs() -> None:
    items = [claim(1.0, line=40), claim(0.75, ("qwen", YES, False), line=120),
             claim(0.75, ("qwen", NO, False), line=200)]  # fmt: skip
    bug = SimpleNamespace(path="app/session.py", line=41)  # one line off: the same problem
    found = unopposed(SimpleNamespace(bugs=(bug,)), items, IMPARTIAL)  # type: ignore[arg-type]
    assert found == (1, 1)
    clean = unopposed(SimpleNamespace(bugs=()), items, IMPARTIAL)  # type: ignore[arg-type]
    assert clean == (0, 2)


def test_judges_curve_block_totals_every_seeds_repositories_window_by_window() -> None:
    rows = table_rows(judges_figures(RUNS)["judges-curve"])
    assert rows[0] == ["preset", "PRs 1-5", "PRs 6-10", "PRs 11-20", "PRs 21-40",
                       "cold, all PRs", "warm, all PRs"]  # fmt: skip
    # Two seeds' windows added: recall 4/10, 6/10, 8/10, 10/10; cold and warm over 100 bugs.
    assert rows[2] == ["agreeable", "0.900 / 0.400", "0.900 / 0.600", "0.900 / 0.800",
                       "0.900 / 1.000", "0.933 / 0.760", "0.933 / 0.780"]  # fmt: skip


def test_judges_learned_block_puts_each_familys_warm_estimate_beside_the_simulated_judge() -> None:
    rows = table_rows(judges_figures(RUNS)["judges-learned"])
    # qwen in the agreeable panel: TPR 0.96, TNR 0.20 and a tenth of its wrong answers
    # `uncertain`, so 0.28 of false claims not confirmed; a preset with no estimate: no row.
    assert rows[2:] == [["agreeable", "qwen", "0.96, 0.95 (0.40-0.60)", "0.28, 0.31 (0.40-0.60)"]]


def test_judges_rules_block_has_the_frontier_under_each_preset_then_the_other_seeds() -> None:
    text = judges_figures(RUNS)["judges-rules"]
    assert text.startswith("Under **agreeable** judges (")
    rows = table_rows(text)
    names = [f"**{name}**" if name == ESTIMATED else name for name in FRONTIER]
    assert [row[0] for row in rows if row[0] != "rule" and row[0] != "---"] == names * 2
    assert "Seed 2: 0.900 / 0.760 / 50.0 / 50.0; 0.891 / 0.760 / 50.0 / 50.0;" in text
    assert "**0.900 / 0.760 / 50.0 / 50.0**" in text


def hand_made_blocks(name: str) -> dict[str, str]:
    return {
        "judges": lambda: {**judges_figures(RUNS), **looking_figures(100, LOOKING, 1)},
        "journal": lambda: journal_figures(JOURNAL),
        "ingest": lambda: ingest_figures(INGEST),
        "scale": lambda: scale_figures(SCALE),
        "review": lambda: review_figures(REVIEW),
        "overhead": lambda: overhead_figures(OVERHEAD),
        "first_run": lambda: first_run_figures(FIRST_RUN),
        "github": lambda: github_figures(GITHUB),
        "quality": lambda: quality_figures(quality_result(), RECORDED),
    }[name]()


def prose(text: str) -> str:
    """The section without what is inside its figures blocks."""
    return re.sub(r"(<!-- figures: [\w-]+ -->\n).*?(<!-- /figures -->)", r"\1\2", text, flags=re.S)


@pytest.mark.parametrize(
    "name",
    [
        "judges",
        "quality",
        "github",
        "review",
        "scale",
        "ingest",
        "journal",
        "first_run",
        "overhead",
    ],
)
def test_writing_a_run_into_the_real_section_replaces_its_blocks_and_keeps_the_prose(
    name: str, tmp_path: Path
) -> None:
    real = (RESULTS / f"{name}.md").read_text(encoding="utf-8")
    section = tmp_path / f"{name}.md"
    section.write_text(real, encoding="utf-8")
    blocks = hand_made_blocks(name)
    assert set(blocks) == set(figures_blocks(real))  # every block of the section is the run's
    write_figures(section, blocks)
    written = section.read_text(encoding="utf-8")
    assert prose(written) == prose(real)
    assert figures_blocks(written) == {n: text.strip() + "\n" for n, text in blocks.items()}


def test_a_block_the_section_lacks_is_an_error(tmp_path: Path) -> None:
    section = tmp_path / "journal.md"
    section.write_text("## Journal\n\nProse only.\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no figures block 'journal'"):
        write_figures(section, journal_figures(JOURNAL))


def test_a_section_without_blocks_that_no_benchmark_writes_whole_is_hand_carried(
    tmp_path: Path,
) -> None:
    (tmp_path / "typed.md").write_text("## Typed\n\n| figure | 1.0 |\n", encoding="utf-8")
    (tmp_path / "whole.md").write_text("## Whole\n\n| figure | 1.0 |\n", encoding="utf-8")
    (tmp_path / "blocks.md").write_text(
        "## Blocks\n\n<!-- figures: b -->\n| figure | 1.0 |\n<!-- /figures -->\n", encoding="utf-8"
    )
    assert hand_carried(tmp_path, ["typed", "whole", "blocks"], whole=["whole"]) == ["typed"]


def test_looking_block_holds_every_preset_and_effect_beside_its_targets() -> None:
    rows = table_rows(looking_figures(100, LOOKING, 1)["judges-looking"])[2:]

    assert len(rows) == len(LOOKING_PRESETS) * 4
    stated = next(r for r in rows if r[0] == "agreeable, stated, seed 1")
    assert stated[1:3] == ["0.990", "0.900"]
    assert stated[4] == "43.0 (1.79×)"  # judge calls and tool rounds against today's 24
    assert stated[-1] == "targets met; cost met"
    none = next(r for r in rows if r[0] == "impartial, none, seed 1")
    assert none[-1] == "as today: met; cost **missed**"
    assert none[4] == "50.0 (2.08×)"
