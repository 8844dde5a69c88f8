"""The merge corpus: pairs of findings at one place, labelled one problem or two.

`benchmarks/data/merge_corpus.json` holds hand-written pairs the way models of different
vendors write: the same problem in other words (terse or verbose; its class, cause, symptom
or fix; other identifiers quoted; another category or severity; a few lines apart), and
different problems at the same or adjacent lines (an off-by-one and a missing None check
on one line, two bugs in one condition). Each pair goes through the product's real `align`;
a pair merged into one cluster is a merge.

Merge precision: of the merged pairs, the share that are one problem. Merge recall: of the
one-problem pairs, the share merged. `split` and `round` say when a pair was written: `dev`
pairs were in view while the first align rule and its word lists were tuned; `holdout` pairs
of round 1 were written after it (and were in view while the second rule was made); those of
round 2 were written before the second rule was made and were not looked at until it was
done; those of round 3 were written once round 2 had been measured, before anything was
changed for what it showed. The holdout is the figure that counts.

Alone, align settles its open questions (a pair where one finding names no known kind of
defect) by the words. With a verifier, the product's own `consensus.sameness` asks them of
a simulated panel whose every answer is right with probability `accuracy` (deterministic
per request): what asking "same problem?" gives, and how many calls it costs.

    python benchmarks/merge_corpus.py [--wrong] [--markdown benchmarks/results/merge_corpus.md]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.report import write_figures  # noqa: E402
from benchmarks.sim import recorded  # noqa: E402
from consensus.decide.align import SameProblemQuestion, align, open_questions  # noqa: E402
from consensus.model.base import Category, Severity  # noqa: E402
from consensus.model.diff import ReviewDiff  # noqa: E402
from consensus.model.findings import Cluster, Finding  # noqa: E402
from consensus.ports import CompletionRequest  # noqa: E402
from consensus.review.ledger import Ledger  # noqa: E402
from consensus.review.sameness import ask_same_problem  # noqa: E402
from consensus.settings.config import BudgetSettings, ProviderSettings  # noqa: E402
from consensus.testing import FakeModelClient  # noqa: E402

CORPUS = ROOT / "benchmarks" / "data" / "merge_corpus.json"


@dataclass(frozen=True)
class Pair:
    id: str
    same: bool
    split: str
    round: int  # 1: written after the first rule; 2: before the second; 3: after round 2
    style: str
    a: Finding
    b: Finding


def _finding(path: str, data: Mapping[str, object], providers: Mapping[str, str]) -> Finding:
    lines = data["lines"]
    assert isinstance(lines, list) and lines, data
    family = str(data["family"])
    evidence = data.get("evidence")
    return Finding(
        provider=providers[family],
        family=family,
        persona=str(data.get("persona", "correctness")),
        chunk=0,
        path=path,
        line=int(lines[0]),
        end_line=int(lines[-1]),
        severity=Severity(str(data["severity"])),
        category=Category(str(data["category"])),
        title=str(data["title"]),
        body=str(data["body"]),
        evidence=None if evidence is None else str(evidence),
    )


def load(path: Path = CORPUS) -> list[Pair]:
    data = json.loads(path.read_text(encoding="utf-8"))
    providers = data["providers"]
    return [
        Pair(
            id=item["id"],
            same=item["same"],
            split=item["split"],
            round=item["round"],
            style=item["style"],
            a=_finding(item["path"], item["a"], providers),
            b=_finding(item["path"], item["b"], providers),
        )
        for item in data["pairs"]
    ]


@dataclass(frozen=True)
class MergeScore:
    same: int  # one-problem pairs
    different: int  # two-problem pairs
    merged_same: int
    merged_different: int
    wrong: tuple[Pair, ...]
    questions: int = 0  # "same problem?" calls

    @property
    def precision(self) -> float:
        merged = self.merged_same + self.merged_different
        return self.merged_same / merged if merged else 1.0

    @property
    def recall(self) -> float:
        return self.merged_same / self.same if self.same else 1.0


PANEL = tuple(
    ProviderSettings(model=model, family=family)
    for family, model in (
        ("openai", "openai/gpt-5.1"),
        ("anthropic", "anthropic/claude-sonnet-4-5"),
        ("google", "gemini/gemini-2.5-pro"),
        ("qwen", "ollama/qwen2.5-coder:14b"),
        ("deepseek", "deepseek/deepseek-chat"),
        ("mistral", "mistral/mistral-large-latest"),
    )
)


@dataclass(frozen=True)
class Code:
    """A version of align and of the "same problem?" questions."""

    align: Callable[..., list[Cluster]] = align
    open_questions: Callable[..., list[SameProblemQuestion]] = open_questions
    ask: Callable[..., Any] = ask_same_problem


NOW = Code()


def merged(pair: Pair, accuracy: float | None = None, code: Code = NOW) -> tuple[bool, int]:
    """Does align put the pair in one cluster (in either order), and how many "same
    problem?" calls were made? `accuracy` None: nobody is asked."""
    align, open_questions, ask_same_problem = code.align, code.open_questions, code.ask
    findings = [pair.a, pair.b]
    answers: dict[SameProblemQuestion, bool] = {}
    calls = 0
    if accuracy is not None:

        def answer(request: CompletionRequest) -> str:
            key = f"{pair.id}\0{request.model}\0{request.messages[-1].content}"
            right = _draw(key) < accuracy
            return json.dumps({"verdict": "same" if right == pair.same else "different"})

        client = FakeModelClient(by_request=answer)
        answers = asyncio.run(
            ask_same_problem(
                open_questions(findings),
                diff=ReviewDiff(),
                panel=PANEL,
                client=client,
                ledger=Ledger(BudgetSettings(max_cost_usd=None, max_tokens=None)),
                concurrency=4,
            )
        )
        calls = len(client.calls)
    one = len(align(findings, answers=answers)) == 1
    assert one == (len(align(findings[::-1], answers=answers)) == 1), pair.id
    return one, calls


def _draw(key: str) -> float:
    digest = hashlib.sha256(f"same-problem\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def score(pairs: Sequence[Pair], accuracy: float | None = None, code: Code = NOW) -> MergeScore:
    outcome = [(pair, *merged(pair, accuracy, code)) for pair in pairs]
    return MergeScore(
        same=sum(1 for p in pairs if p.same),
        different=sum(1 for p in pairs if not p.same),
        merged_same=sum(1 for p, m, _ in outcome if m and p.same),
        merged_different=sum(1 for p, m, _ in outcome if m and not p.same),
        wrong=tuple(p for p, m, _ in outcome if m != p.same),
        questions=sum(n for _, _, n in outcome),
    )


MODES: Mapping[str, float | None] = {
    "the words alone": None,
    "a same-problem verifier right 9 times in 10": 0.9,
    "a perfect same-problem verifier": 1.0,
}


SPLITS = ("dev", "holdout, round 1", "holdout, round 2", "holdout, round 3", "holdout", "all")


def _in(pair: Pair, split: str) -> bool:
    """Is `pair` in `split` (a split, a split and round, or "all")?"""
    name, _, round_ = split.partition(", round ")
    return name == "all" or (pair.split == name and (not round_ or pair.round == int(round_)))


def table(
    pairs: Sequence[Pair],
    modes: Mapping[str, float | None] = MODES,
    codes: Mapping[str, Code | str] | None = None,
) -> list[str]:
    """Merge precision / recall per split, for each version of the code and each way of
    settling open questions; the "same problem?" calls over all pairs. `codes` defaults to
    this checkout's."""
    codes = codes if codes is not None else {"now": NOW}
    chosen = {split: [p for p in pairs if _in(p, split)] for split in SPLITS}
    counts = " · ".join(
        f"{split} {sum(p.same for p in c)}/{sum(not p.same for p in c)}"
        for split, c in chosen.items()
    )
    rows = [
        f"Pairs (one problem / two): {counts}. Each cell: merge precision / merge recall.",
        "",
        f'| align | open questions settled by | {" | ".join(SPLITS)} | "same problem?" calls |',
        "|---|---|" + "---:|" * (len(SPLITS) + 1),
    ]
    for label, code in codes.items():
        if isinstance(code, str):
            rows.append(f"| {label} | not measured: {code} |" + " |" * (len(SPLITS) + 1))
            continue
        for name, accuracy in modes.items():
            scores = {split: score(c, accuracy, code) for split, c in chosen.items()}
            cells = " | ".join(f"{s.precision:.3f} / {s.recall:.3f}" for s in scores.values())
            rows.append(f"| {label} | {name} | {cells} | {scores['all'].questions} |")
    return rows


def recorded_table(pairs: Sequence[Pair]) -> str:
    """This checkout's figures with a 9-in-10 verifier beside those recorded at earlier
    commits (benchmarks/results/recorded.json)."""
    now: dict[str, float] = {}
    for split in ("holdout", "holdout, round 3", "all"):
        chosen = score([p for p in pairs if _in(p, split)], 0.9)
        now[f"{split} precision"], now[f"{split} recall"] = chosen.precision, chosen.recall
    now['"same problem?" calls'] = score(pairs, 0.9).questions
    return recorded.compare(recorded.load("merge_corpus"), now, {'"same problem?" calls': 0})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Merge precision and recall on the corpus.")
    parser.add_argument("--wrong", action="store_true", help="list the pairs align gets wrong now")
    parser.add_argument("--markdown", type=Path, help="write the figures into this section file")
    args = parser.parse_args(argv)
    pairs = load()
    figures = {
        "merge-corpus": "\n".join(table(pairs)),
        "merge-corpus-recorded": recorded_table(pairs),
    }
    print(*figures.values(), sep="\n\n")
    if args.markdown:
        write_figures(args.markdown, figures)
    if args.wrong:
        for name, accuracy in MODES.items():
            print(f"\nWrong now, open questions settled by {name}:")
            for pair in score(pairs, accuracy).wrong:
                verdict = "split" if pair.same else "merged"
                print(f"- {pair.id} ({pair.split}, round {pair.round}, {verdict}): {pair.style}")
                print(f"    {pair.a.family}: {pair.a.title}\n    {pair.b.family}: {pair.b.title}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
