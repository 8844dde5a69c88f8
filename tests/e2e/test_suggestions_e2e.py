"""Committable suggestions end to end: the Action posts a ```suggestion block that, applied
as GitHub applies it (the block replaces the commented lines of the head version), gives the
fixed file; only one reporting provider's text, and only where it applies."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from consensus_sim.provider_server import FakeProviderServer, Script, Step, prompt_text, reply
from tests.e2e import test_action_e2e as e2e

SQL_LINE = e2e.line_of(e2e.DB_AFTER, e2e.SQL)  # the f-string; the next line runs it
LOOP_LINE = e2e.line_of(e2e.DB_AFTER, e2e.LOOP)
FIX = '    cur.execute("SELECT * FROM users WHERE id = ?", (user_id,))'
OTHER_FIX = "    cur.execute(query, (user_id,))"
HOSTILE = "    for i in range(len(ids)):\n```\n@alice see [this](https://evil.example) <img src=x>"


def suggesting(model: str, moved: bool = False) -> object:
    """The e2e models, now with suggestions: gpt and claude the same fix for both lines of
    the injection, llama its own; on the loop, only qwen, with text that tries to break out.
    `moved`: the models cite the injection two lines too high, and its evidence moves it."""
    plain = e2e.responder(model)

    def answer(body: dict[str, object]) -> Step:
        step = plain(body)  # type: ignore[operator]
        if e2e.VERIFIER_PROMPT in prompt_text(body):
            return step  # type: ignore[no-any-return]
        data = json.loads(step.text)
        for found in data["findings"]:
            if found["line"] == SQL_LINE:
                found["end_line"] = SQL_LINE + 1
                found["evidence"] = e2e.SQL
                if moved:
                    found["line"], found["end_line"] = SQL_LINE - 2, SQL_LINE - 1
                if model in ("gpt-test", "claude-test"):
                    found["suggestion"] = FIX + "\n"
                elif model == "llama-test":
                    found["suggestion"] = OTHER_FIX
            elif found["line"] == LOOP_LINE and model == "qwen-test":
                found["suggestion"] = HOSTILE
        return reply(json.dumps(data))

    return answer


def make_world(tmp_path: Path, *, moved: bool) -> Iterator[e2e.World]:
    script = Script()
    for model in e2e.MODELS:
        script.respond(model, suggesting(model, moved))  # type: ignore[arg-type]
    with e2e.FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp_path / "service"
        repo.mkdir()
        e2e.git(repo, "init", "-q", "-b", "main")
        files = {"src/app/db.py": e2e.DB_BEFORE, ".consensus.yml": e2e.config(providers.url)}
        e2e.commit(repo, files, "base")
        e2e.git(repo, "checkout", "-q", "-b", "feature")
        e2e.commit(repo, {"src/app/db.py": e2e.DB_AFTER}, "feature")
        yield e2e.World(tmp_path, repo, github, providers)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[e2e.World]:
    yield from make_world(tmp_path, moved=False)


@pytest.fixture
def moved_world(tmp_path: Path) -> Iterator[e2e.World]:
    yield from make_world(tmp_path, moved=True)


def apply_suggestion(head: str, comment: dict[str, object]) -> str:
    """What GitHub's "Commit suggestion" does: the block replaces lines start_line..line."""
    [block] = [t for t in MarkdownIt("commonmark").parse(str(comment["body"])) if t.type == "fence"]
    assert block.info == "suggestion"
    lines = head.splitlines(keepends=True)
    line = int(str(comment["line"]))
    start = int(str(comment.get("start_line") or line))
    return "".join(lines[: start - 1]) + block.content + "".join(lines[line:])


def test_a_consensus_finding_gets_a_committable_suggestion_that_fixes_the_code(
    world: e2e.World,
) -> None:
    world.open_pr()
    run = world.run()
    assert run.code == 0, run.stderr
    comments = {c["line"]: c for c in world.github.repos[e2e.REPO].review_comments}
    sql = comments[SQL_LINE + 1]
    assert sql["start_line"] == SQL_LINE
    body = str(sql["body"])
    assert body.count("```suggestion") == 1 and OTHER_FIX not in body
    assert "Suggested change, as `anthropic/claude-test` wrote it:" in body
    assert apply_suggestion(e2e.DB_AFTER, sql) == e2e.DB_FIXED
    report = json.loads((world.tmp / "consensus-report.json").read_text())
    [finding] = [f for f in report["findings"] if f["line"] == SQL_LINE]
    assert finding["suggestion"] == {
        "line": SQL_LINE,
        "end_line": SQL_LINE + 1,
        "text": FIX,
        "provider": "anthropic/claude-test",
    }


def test_a_hostile_suggestion_stays_inside_its_block(world: e2e.World) -> None:
    world.open_pr()
    run = world.run()
    assert run.code == 0, run.stderr
    loop = next(c for c in world.github.repos[e2e.REPO].review_comments if c["line"] == LOOP_LINE)
    body = str(loop["body"])
    tokens = MarkdownIt("commonmark").parse(body)
    [block] = [t for t in tokens if t.type == "fence"]
    assert block.info == "suggestion" and block.content == HOSTILE + "\n"
    assert re.search(r"^`{4,}suggestion$", body, re.MULTILINE)  # longer than the ``` inside
    html = MarkdownIt("commonmark").render(body)
    assert "<img" not in html and 'href="https://evil' not in html
    assert body.rsplit("\n", 1)[-1].startswith("<!-- consensus:fp=")


def test_no_suggestion_where_the_comment_lands_on_other_lines(moved_world: e2e.World) -> None:
    """The models cite lines 2 too high; their evidence moves the finding onto the
    injection, but their suggestions were written for the lines they cited: the comment is
    posted on the right lines, without a suggestion that would replace the wrong code."""
    world = moved_world
    world.open_pr()
    run = world.run()
    assert run.code == 0, run.stderr
    sql = next(c for c in world.github.repos[e2e.REPO].review_comments if "SQL" in c["body"])
    assert sql["line"] == SQL_LINE and sql["start_line"] is None  # where the evidence is
    assert "suggestion" not in str(sql["body"])
    report = json.loads((world.tmp / "consensus-report.json").read_text())
    [finding] = [f for f in report["findings"] if f["line"] == SQL_LINE]
    assert finding["suggestion"] is None
