"""The simulated judge that looks: it chooses its tool calls from the claim, and answers
with its looking rates only when what it read holds the lines that decide the claim."""

from __future__ import annotations

import json

from consensus_sim.looking_judge import ClaimTruth, Decisive, Rates, looking_judge

QUESTION = (
    "<data-1>\nFinding (check 1):\nTitle: `total` may be used before it is set in `checkout`\n"
    "Location: src/shop/cart.py, lines 41-41\nSeverity claimed: high; category: bug\n"
    "</data-1>\nIs the finding real? Answer with the JSON object only. verdict"
)
TITLE = "`total` may be used before it is set in `checkout`"
GUARD = Decisive(path="src/shop/cart.py", line=12, text="total = Decimal(0)")
RUBBER_STAMP = Rates(tpr=1.0, tnr=0.0, uncertain=0.0)  # confirms everything blind
DISCERNING = Rates(tpr=1.0, tnr=1.0, uncertain=0.0)  # right once it has read the code


def body(*results: str, tools: bool = True, api: str = "openai") -> dict[str, object]:
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are an independent verifier."},
        {"role": "user", "content": QUESTION},
    ]
    for n, result in enumerate(results):
        if api == "anthropic":
            block = {"type": "tool_result", "tool_use_id": f"t{n}", "content": result}
            messages.append({"role": "user", "content": [block]})
        else:
            messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": result})
    out: dict[str, object] = {"model": "judge", "messages": messages}
    if tools:
        out["tools"] = [{"type": "function", "function": {"name": "read_file"}}]
    return out


def answer(
    judge_body: dict[str, object],
    real: bool = False,
    decisive: Decisive | None = GUARD,
    looking: Rates = DISCERNING,
) -> dict[str, object]:
    respond = looking_judge(
        {TITLE: ClaimTruth(real, decisive)}, blind=RUBBER_STAMP, looking=looking
    )
    step = respond(judge_body)
    assert not step.tool_calls, step.tool_calls
    parsed: dict[str, object] = json.loads(step.text)
    return parsed


def test_it_reads_the_claims_file_then_looks_up_the_quoted_names() -> None:
    respond = looking_judge(
        {TITLE: ClaimTruth(False, GUARD)}, blind=RUBBER_STAMP, looking=DISCERNING
    )
    asked = [respond(body(*["x"] * n)).tool_calls for n in range(5)]

    assert asked == [
        (("read_file", {"path": "src/shop/cart.py", "start_line": 11, "end_line": 71}),),
        (("find_definition", {"symbol": "total"}),),
        (("find_references", {"symbol": "total"}),),
        (("find_definition", {"symbol": "checkout"}),),
        (("find_references", {"symbol": "checkout"}),),
    ]


def test_an_invention_whose_guard_it_read_is_refuted_citing_the_guard() -> None:
    read = "src/shop/cart.py\n  11 | def checkout(items):\n  12 |     total = Decimal(0)\n"
    said = answer(body(read, "x", "x", "x", "x"))

    assert said["verdict"] == "refuted"
    assert said["evidence"] == [
        {
            "path": "src/shop/cart.py",
            "start_line": 12,
            "end_line": 12,
            "quote": "total = Decimal(0)",
        }
    ]


def test_an_invention_it_could_not_find_the_guard_of_is_judged_blind() -> None:
    said = answer(body("  40 | def checkout(items):", "no match", "x", "x", "x"))

    assert said["verdict"] == "confirmed" and said["evidence"] == []


def test_a_taste_call_is_judged_blind_whatever_was_read() -> None:
    read = "  12 |     total = Decimal(0)"
    said = answer(body(read, "x", "x", "x", "x"), decisive=None)

    assert said["verdict"] == "confirmed" and said["evidence"] == []


def test_where_looking_helps_nothing_the_answer_is_the_blind_one() -> None:
    read = "  12 |     total = Decimal(0)"
    looked = answer(body(read, "x", "x", "x", "x"), looking=RUBBER_STAMP)
    blind = answer(body(tools=False))

    assert looked["verdict"] == blind["verdict"] == "confirmed"


def test_without_tools_it_answers_at_once_from_the_prompt() -> None:
    said = answer(body(tools=False))

    assert said["verdict"] == "confirmed"


def test_anthropic_tool_results_are_read_as_openais() -> None:
    read = "  12 |     total = Decimal(0)"
    said = answer(body(read, "x", "x", "x", "x", api="anthropic"))

    assert said["verdict"] == "refuted"


def test_a_misquoting_judge_cites_words_that_are_not_in_the_file() -> None:
    respond = looking_judge(
        {TITLE: ClaimTruth(False, GUARD)}, blind=RUBBER_STAMP, looking=DISCERNING, misquote=1.0
    )
    said = json.loads(respond(body("  12 |     total = Decimal(0)", "x", "x", "x", "x")).text)

    assert said["verdict"] == "refuted"
    assert said["evidence"][0]["quote"] != GUARD.text
