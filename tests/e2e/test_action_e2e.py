"""End to end: the real `consensus action` with the GitHub Actions environment pointing at
a loopback fake GitHub and loopback fake providers. Runs are in-process (fakes.inprocess);
the first test is the smoke test that runs `python -m consensus action` in a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from consensus.publish.state import decode_state
from consensus.publish.thread import SUMMARY_MARKER
from consensus_sim.github_server import FakeGitHub, PullRequest, human, is_write, load_pull_from_git
from consensus_sim.provider_server import (
    FakeProviderServer,
    Script,
    Step,
    error,
    prompt_text,
    reply,
)
from fakes.inprocess import run_consensus

ROOT = Path(__file__).resolve().parents[2]
REPO = "acme/service"
NUMBER = 7
VERIFIER_PROMPT = "You are an independent verifier"
MODELS = ("gpt-test", "claude-test", "llama-test", "qwen-test")

DB_BEFORE = """\
import sqlite3


def get_user(conn, user_id):
    cur = conn.cursor()
    cur.execute("SELECT * FROM users WHERE id = ?", (user_id,))
    return cur.fetchone()
"""
DB_AFTER = """\
import sqlite3


def get_user(conn, user_id):
    cur = conn.cursor()
    query = f"SELECT * FROM users WHERE id = {user_id}"
    cur.execute(query)
    return cur.fetchone()


def delete_users(conn, ids):
    for i in range(len(ids) + 1):
        conn.execute("DELETE FROM users WHERE id = ?", (ids[i],))
    conn.commit()
"""
DB_FIXED = DB_AFTER.replace(
    '    query = f"SELECT * FROM users WHERE id = {user_id}"\n    cur.execute(query)\n',
    '    cur.execute("SELECT * FROM users WHERE id = ?", (user_id,))\n',
)
BIG = "".join(f"VALUE_{n} = {n}\n" for n in range(40)) + "eval(input())\n"
SQL = 'query = f"SELECT * FROM users WHERE id = {user_id}"'
LOOP = "for i in range(len(ids) + 1):"
SLUGIFY = '''\
def slugify(title):
    """The title as a URL slug."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return "-".join(words)
'''
ASCII = 're.findall(r"[a-z0-9]+"'
TEXT_BEFORE = f"import re\n\n\n{SLUGIFY}\n\ndef headline(post):\n    return post.title.strip()\n"
TEXT_AFTER = "def headline(post):\n    return post.title.strip()\n"
HELPERS_BEFORE = (
    'import re\n\n\ndef initials(name):\n    return "".join(p[0] for p in name.split())\n'
)
HELPERS_AFTER = HELPERS_BEFORE.replace("\n\n\ndef initials", f"\n\n\n{SLUGIFY}\n\ndef initials")


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def finding(path: str, line: int, title: str, category: str = "security") -> dict[str, object]:
    return {
        "path": path,
        "line": line,
        "severity": "high",
        "category": category,
        "title": title,
        "body": f"{title}. See <b>https://evil.example/x</b>.",
    }


def responder(model: str) -> object:
    """Each model reports what the code in its prompt shows; llama never sees the loop bug."""

    def answer(body: dict[str, object]) -> Step:
        prompt = prompt_text(body)
        if VERIFIER_PROMPT in prompt:
            # The loop bug is real and the verifiers say so (three of four families report
            # it at high severity: it is checked); anything else asked about, they refute.
            if "Off-by-one in loop" in prompt:
                return reply(json.dumps({"verdict": "confirmed", "reason": "reads past the end"}))
            return reply(json.dumps({"verdict": "refuted", "reason": "not convinced"}))
        found = []
        source = DB_AFTER if SQL in prompt else DB_FIXED
        if SQL in prompt:
            found.append(finding("src/app/db.py", line_of(source, SQL), f"SQL injection ({model})"))
        if LOOP in prompt and model != "llama-test":
            line = line_of(source, LOOP)
            found.append(finding("src/app/db.py", line, f"Off-by-one in loop ({model})", "bug"))
        if "eval(input())" in prompt:
            found.append(finding("src/app/big.py", line_of(BIG, "eval("), f"eval ({model})"))
        if ASCII in prompt:  # a helper the PR only moved: its code is not the PR's
            line = line_of(HELPERS_AFTER, ASCII)
            title = f"slugify drops non-ASCII letters ({model})"
            found.append(finding("src/app/helpers.py", line, title, "bug"))
        return reply(json.dumps({"findings": found}))

    return answer


# The panel's judges as `consensus calibrate` measured them on labelled claims. These tests
# are about what a run posts and how; what a first run with judges it knows nothing of can
# verify is tests/e2e/test_judges_e2e.py's.
JUDGE_LABELS = "{confirmed_real: 45, missed_real: 5, refuted_false: 40, confirmed_false: 10}"
CALIBRATED = (
    "calibration: {families: {"
    + ", ".join(
        f"{family}: {{judge: {JUDGE_LABELS}}}" for family in ("openai", "anthropic", "meta", "qwen")
    )
    + "}}"
)


def config(url: str, *, evil: bool = False, calibrated: bool = True) -> str:
    if evil:  # what a hostile PR puts in its head: a provider of its own
        return f"providers:\n  - model: openai/evil-test\n    api_base: {url}/v1\n"
    return textwrap.dedent(
        f"""\
        providers:
          - model: openai/gpt-test
            api_base: {url}/v1
            api_key_env: FAKE_OPENAI_KEY
          - model: anthropic/claude-test
            api_base: {url}
            api_key_env: FAKE_ANTHROPIC_KEY
          - model: openai/llama-test
            api_base: {url}/v1
            api_key_env: FAKE_OPENAI_KEY
          - model: openai/qwen-test
            api_base: {url}/v1
            api_key_env: FAKE_OPENAI_KEY
        personas: [correctness]
        budget: {{max_cost_usd: 1.0, max_tokens: 400000}}
        {CALIBRATED if calibrated else ""}
        """
    )


def git(repo: Path, *args: str) -> None:
    command = ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args]
    subprocess.run(command, cwd=repo, check=True, capture_output=True)


def commit(repo: Path, files: dict[str, str], message: str) -> None:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@dataclass
class World:
    tmp: Path
    repo: Path
    github: FakeGitHub
    providers: FakeProviderServer
    subprocess: bool = False

    def open_pr(self, head: str = "feature", **extra: object) -> PullRequest:
        return load_pull_from_git(
            self.github, REPO, NUMBER, self.repo, base="main", head=head, **extra
        )

    def run(self, action: str = "opened", *, keys: bool = True, **env: str) -> Action:
        pull = self.github.repos[REPO].pulls[NUMBER]
        payload = {
            "action": action,
            "number": NUMBER,
            "pull_request": self.github.pull_json(self.github.repos[REPO], pull),
            "repository": {"full_name": REPO},
            "sender": {"login": "dev", "type": "User"},
        }
        event = self.tmp / "event.json"
        event.write_text(json.dumps(payload))
        for name in ("summary.md", "output.txt"):
            (self.tmp / name).write_text("")
        full = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.tmp),
            "PYTHONPATH": str(ROOT),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_API_URL": self.github.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_TOKEN": "ghs_fake_token",
            "GITHUB_WORKSPACE": str(self.repo),
            "GITHUB_STEP_SUMMARY": str(self.tmp / "summary.md"),
            "GITHUB_OUTPUT": str(self.tmp / "output.txt"),
            "RUNNER_TEMP": str(self.tmp),
            "CONSENSUS_POST_INTERVAL": "0",
            "CONSENSUS_ACTION_REPOSITORY": "acme/consensus",
            "OLLAMA_HOST": "127.0.0.1:9",
            **env,
        }
        if keys:
            full.update(FAKE_OPENAI_KEY="sk-fake", FAKE_ANTHROPIC_KEY="sk-ant-fake")
        before = len(self.github.requests)
        if self.subprocess:  # the smoke test: the real entry point, in its own interpreter
            done = subprocess.run(
                [sys.executable, "-m", "consensus", "action"],
                cwd=self.repo,
                env=full,
                capture_output=True,
                text=True,
                timeout=180,
            )
            return Action(done.returncode, done.stdout, done.stderr, self, before)
        ran = run_consensus(["action"], cwd=self.repo, env=full)
        return Action(ran.returncode, ran.stdout, ran.stderr, self, before)

    def summaries(self) -> list[dict[str, object]]:
        comments = self.github.repos[REPO].issue_comments
        return [c for c in comments if str(c["body"]).startswith(SUMMARY_MARKER)]

    def bot_summary(self) -> str:
        [summary] = [c for c in self.summaries() if c["user"]["type"] == "Bot"]  # type: ignore[index]
        return str(summary["body"])


@dataclass
class Action:
    code: int
    stdout: str
    stderr: str
    world: World
    first_request: int

    def writes(self) -> list[tuple[str, str, int]]:
        """Every request that changes something (a GraphQL query is a POST, and a read)."""
        requests = self.world.github.requests[self.first_request :]
        return [(r.method, r.path, r.status) for r in requests if is_write(r.method, r.body)]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    script = Script()
    for model in (*MODELS, "evil-test"):
        script.respond(model, responder(model))  # type: ignore[arg-type]
    with FakeGitHub() as github, FakeProviderServer(script) as providers:
        repo = tmp_path / "service"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        commit(repo, {"src/app/db.py": DB_BEFORE, ".consensus.yml": config(providers.url)}, "base")
        git(repo, "checkout", "-q", "-b", "feature")
        evil = config(providers.url, evil=True)
        commit(repo, {"src/app/db.py": DB_AFTER, ".consensus.yml": evil}, "feature")
        git(repo, "checkout", "-q", "-b", "fixed")
        commit(repo, {"src/app/db.py": DB_FIXED}, "fix the injection")
        git(repo, "checkout", "-q", "feature")
        yield World(tmp_path, repo, github, providers)


def review_posts(action: Action) -> list[tuple[str, str, int]]:
    return [w for w in action.writes() if w[0] == "POST" and w[1].endswith("/reviews")]


def test_first_run_posts_one_review_and_one_summary(world: World) -> None:
    world.open_pr()
    world.subprocess = True
    run = world.run()
    assert run.code == 0, run.stderr
    assert review_posts(run) == [("POST", f"/repos/{REPO}/pulls/{NUMBER}/reviews", 200)]
    comment_posts = [w for w in run.writes() if w[1].endswith(f"/issues/{NUMBER}/comments")]
    assert comment_posts == [("POST", f"/repos/{REPO}/issues/{NUMBER}/comments", 201)]
    [review] = world.github.repos[REPO].reviews
    assert review["state"] == "COMMENTED" and review["commit_id"] == world.open_pr().head_sha
    comments = world.github.repos[REPO].review_comments
    assert sorted(c["line"] for c in comments) == [line_of(DB_AFTER, SQL), line_of(DB_AFTER, LOOP)]
    for comment in comments:
        body = comment["body"]
        assert body.startswith("**high** · **")
        assert re.search(r"<sub>F\d · reported by \d of 4 families \(", body)  # families count
        assert "<b>" not in body and "https://evil" not in body  # escaped, link defanged
        assert body.rsplit("\n", 1)[-1].startswith("<!-- consensus:fp=")
    summary = world.bot_summary()
    state = decode_state(summary)
    assert state is not None and state.head_sha == world.open_pr().head_sha
    assert {t.inline for t in state.findings} == {True} and len(state.findings) == 2
    assert "## consensus review" in (world.tmp / "summary.md").read_text()
    outputs = dict(line.split("=", 1) for line in (world.tmp / "output.txt").read_text().split())
    assert outputs["findings"] == "2" and len(outputs["run-id"]) == 12
    assert json.loads(Path(outputs["report"]).read_text())["version"] == 1


def test_config_in_the_pr_head_is_ignored(world: World) -> None:
    world.open_pr()
    run = world.run()
    assert run.code == 0, run.stderr
    assert world.providers.log.requests_for("evil-test") == []
    for model in MODELS:
        assert world.providers.log.requests_for(model), model
    base, head = world.open_pr().base_sha, world.open_pr().head_sha
    contents = [r for r in world.github.requests if "/contents/" in r.path]
    assert {r.query["ref"] for r in contents} <= {base, head}
    assert not [r for r in contents if r.path.endswith(".consensus.yml")]
    [read] = [r for r in world.github.requests if "ConsensusReadFiles" in str(r.body)]
    expressions = {v for k, v in read.body["variables"].items() if k.startswith("e")}
    assert f"{base}:.consensus.yml" in expressions  # read once, at the base commit
    assert not [e for e in expressions if e.startswith(head)]


def test_a_second_run_on_the_same_head_posts_nothing_new_and_edits_the_summary(
    world: World,
) -> None:
    world.open_pr()
    assert world.run().code == 0
    first = world.bot_summary()
    run = world.run("reopened")
    assert run.code == 0, run.stderr
    assert review_posts(run) == []
    [(method, path, status)] = run.writes()
    [summary] = world.summaries()
    assert (method, status) == ("PATCH", 200) and path.endswith(f"/comments/{summary['id']}")
    assert len(world.github.repos[REPO].review_comments) == 2
    assert "inline (earlier run)" in world.bot_summary() and first != world.bot_summary()


def test_a_push_that_fixes_a_finding_marks_it_resolved(world: World) -> None:
    world.open_pr()
    assert world.run().code == 0
    world.open_pr(head="fixed")
    run = world.run("synchronize")
    assert run.code == 0, run.stderr
    assert review_posts(run) == []  # the loop finding moved a line up but is already there
    summary = world.bot_summary()
    assert "1 finding resolved since the last review" in summary
    resolved_section = summary.split("resolved since the last review", 1)[1]
    assert "SQL injection" in resolved_section.split("</details>", 1)[0]
    state = decode_state(summary)
    assert state is not None
    assert sorted((t.resolved, t.title.split(" (")[0]) for t in state.findings) == [
        (False, "Off-by-one in loop"),
        (True, "SQL injection"),
    ]


def test_a_422_moves_the_refused_comment_to_the_summary(world: World) -> None:
    git(world.repo, "checkout", "-q", "-b", "big", "feature")
    commit(world.repo, {"src/app/big.py": BIG}, "a big file")
    # GitHub omits the patch of the big file: the Action reads it from the checkout,
    # and GitHub then refuses a comment on it as not part of the diff it knows.
    world.open_pr(head="big", omit_patch=("src/app/big.py",))
    run = world.run()
    assert run.code == 0, run.stderr
    statuses = [status for _, _, status in review_posts(run)]
    assert statuses == [422, 200]
    comments = world.github.repos[REPO].review_comments
    assert len(comments) == 2 and all(c["path"] == "src/app/db.py" for c in comments)
    summary = world.bot_summary()
    assert "`src/app/big.py:41`" in summary and "GitHub refused the inline comment" in summary
    assert "eval (" in summary  # the finding itself is in the summary, not lost
    assert "reviewed from the checkout's git history" in summary


def test_a_rerun_after_a_422_does_not_offer_github_the_refused_comment_again(
    world: World,
) -> None:
    git(world.repo, "checkout", "-q", "-b", "big", "feature")
    commit(world.repo, {"src/app/big.py": BIG}, "a big file")
    world.open_pr(head="big", omit_patch=("src/app/big.py",))
    first = world.run(CONSENSUS_HOME=str(world.tmp / "runner-1"))
    assert [status for _, _, status in review_posts(first)] == [422, 200], first.stderr
    comments = len(world.github.repos[REPO].review_comments)
    run = world.run("reopened", CONSENSUS_HOME=str(world.tmp / "runner-2"))
    assert run.code == 0, run.stderr
    assert "every file is unchanged since" in run.stderr
    assert review_posts(run) == []  # neither refused again nor a review of nothing
    assert len(world.github.repos[REPO].review_comments) == comments
    summary = world.bot_summary()
    assert "`src/app/big.py:41`" in summary and "GitHub refused the inline comment" in summary


def test_a_secondary_rate_limit_is_waited_out_then_succeeds(world: World) -> None:
    world.open_pr()
    message = "You have exceeded a secondary rate limit. Please wait a few minutes."
    world.github.fail_next(
        "GET", rf"/pulls/{NUMBER}$", 403, headers={"Retry-After": "1"}, message=message
    )
    world.github.fail_next("POST", r"/reviews$", 502, message="Bad Gateway")
    run = world.run()
    assert run.code == 0, run.stderr
    pulls = [r for r in world.github.requests if r.path == f"/repos/{REPO}/pulls/{NUMBER}"]
    assert [r.status for r in pulls[:2]] == [403, 200]
    assert [status for _, _, status in review_posts(run)] == [502, 200]
    assert len(world.github.repos[REPO].reviews) == 1  # checked before posting again
    assert "retrying in 1s" in run.stderr


def test_a_fork_pr_without_secrets_says_so_and_exits_0(world: World) -> None:
    world.open_pr(head_repo="stranger/service")
    run = world.run(keys=False)
    assert run.code == 0, run.stderr
    assert "comes from a fork (stranger/service)" in run.stderr
    assert "https://github.com/acme/consensus#fork-pull-requests" in run.stderr
    assert run.writes() == [] and len(world.providers.log) == 0


def test_no_provider_answering_fails_the_step_and_never_posts_a_clean_review(
    world: World,
) -> None:
    for model in MODELS:
        world.providers.script.add(model, then=error(401, "invalid api key"))
        world.providers.script.respond(model, lambda body: error(401, "invalid api key"))
    world.open_pr()
    run = world.run()
    assert run.code == 3, run.stderr
    assert "quorum not met" in run.stderr
    assert review_posts(run) == []
    assert "ADVISORY ONLY" in world.bot_summary()


def test_comments_written_by_humans_are_never_edited(world: World) -> None:
    world.open_pr()
    forged = f"{SUMMARY_MARKER}\nI am a human pretending to be the summary."
    human_comment = world.github.add_issue_comment(REPO, NUMBER, forged, human("alice"))
    assert world.run().code == 0
    run = world.run("synchronize")
    assert run.code == 0, run.stderr
    edits = [path for method, path, _ in run.writes() if method in ("PATCH", "DELETE")]
    assert edits and all(not p.endswith(f"/{human_comment['id']}") for p in edits)
    assert human_comment["body"] == forged
    assert len(world.summaries()) == 2  # the human's, untouched, and ours


def test_a_push_that_changes_one_file_decides_only_that_files_findings_again(
    world: World,
) -> None:
    git(world.repo, "checkout", "-q", "-b", "big", "feature")
    commit(world.repo, {"src/app/big.py": BIG}, "a big file")
    first_head = world.open_pr(head="big").head_sha
    first = world.run(CONSENSUS_HOME=str(world.tmp / "runner-1"))
    assert first.code == 0, first.stderr
    assert len(world.github.repos[REPO].review_comments) == 3, first.stderr
    commit(world.repo, {"src/app/big.py": BIG + "DONE = True\n"}, "touch only big.py")
    head = world.open_pr(head="big").head_sha
    sent_before = len(world.providers.log)
    run = world.run("synchronize", CONSENSUS_HOME=str(world.tmp / "runner-2"))  # no journal
    assert run.code == 0, run.stderr
    prompts = [r.raw for r in world.providers.log.all()[sent_before:] if r.method == "POST"]
    assert prompts and all("eval(input())" in p for p in prompts)
    assert not any("delete_users" in p for p in prompts)  # db.py: its diff did not change
    assert review_posts(run) == []
    summary = world.bot_summary()
    # db.py and the head's .consensus.yml (reviewed, never obeyed) are unchanged since.
    assert f"Decisions for 2 of 3 files carried from `{first_head[:7]}`" in summary
    assert summary.count(f"inline (earlier run) · carried from {first_head[:7]}") == 2
    assert "resolved since the last review" not in summary
    state = decode_state(summary)
    assert state is not None and state.head_sha == head and state.decisions is not None
    assert {(f.path, f.head_sha, f.findings) for f in state.decisions.files} == {
        ("src/app/db.py", first_head, 2),  # still decided on the head that decided it
        (".consensus.yml", first_head, 0),
        ("src/app/big.py", head, 1),
    }
    assert sorted(t.path for t in state.findings if not t.resolved) == [
        "src/app/big.py",
        "src/app/db.py",
        "src/app/db.py",
    ]
    outputs = dict(line.split("=", 1) for line in (world.tmp / "output.txt").read_text().split())
    assert outputs["findings"] == "3"


def refute_everything(body: dict[str, object]) -> Step:
    """A panel that now answers otherwise: no findings, and every claim refuted (a model
    update, or a verifier that samples differently)."""
    if VERIFIER_PROMPT in prompt_text(body):
        return reply(json.dumps({"verdict": "refuted", "reason": "not convinced now"}))
    return reply(json.dumps({"findings": []}))


def decided(summary: str) -> list[tuple[str, str, str, int, int]]:
    state = decode_state(summary)
    assert state is not None
    return [(r.id, r.fingerprint, r.status.value, r.votes_for, r.votes_of) for r in state.records]


def test_a_rerun_on_the_same_head_asks_no_model_and_posts_exactly_the_same(world: World) -> None:
    head = world.open_pr().head_sha
    first = world.run(CONSENSUS_HOME=str(world.tmp / "runner-1"))
    assert first.code == 0, first.stderr
    comments = [(c["path"], c["line"], c["body"]) for c in world.github.repos[REPO].review_comments]
    before = world.bot_summary()
    for model in MODELS:  # were the models asked again, they would now answer otherwise
        world.providers.script.respond(model, refute_everything)
    sent = len(world.providers.log)
    for n, action in enumerate(("reopened", "synchronize", "opened"), start=2):
        run = world.run(action, CONSENSUS_HOME=str(world.tmp / f"runner-{n}"))  # no journal
        assert run.code == 0, run.stderr
        assert len(world.providers.log) == sent  # 0 model calls
        assert review_posts(run) == []
        after = [
            (c["path"], c["line"], c["body"]) for c in world.github.repos[REPO].review_comments
        ]
        assert after == comments
        assert decided(world.bot_summary()) == decided(before)
        assert f"Decisions for every file carried from `{head[:7]}`" in world.bot_summary()
        assert "every file is unchanged since" in run.stderr
    report = json.loads((world.tmp / "consensus-report.json").read_text())
    assert {f["carried_from"] for f in report["findings"]} == {head}
    assert report["stats"]["calls"] == 0 and report["quorum"]["met"] is True


def test_a_rerun_after_a_helper_moved_between_modules_posts_nothing_inline(
    world: World,
) -> None:
    git(world.repo, "checkout", "-q", "main")
    helpers = {"src/app/text.py": TEXT_BEFORE, "src/app/helpers.py": HELPERS_BEFORE}
    commit(world.repo, helpers, "text helpers")
    git(world.repo, "checkout", "-q", "-b", "move-helpers")
    moved = {"src/app/text.py": TEXT_AFTER, "src/app/helpers.py": HELPERS_AFTER}
    commit(world.repo, moved, "move slugify to the helpers")
    head = world.open_pr(head="move-helpers").head_sha
    first = world.run(CONSENSUS_HOME=str(world.tmp / "runner-1"))
    assert first.code == 0, first.stderr
    assert review_posts(first) == [] and world.github.repos[REPO].review_comments == []
    moved_from = f"in moved code (from src/app/text.py:{line_of(TEXT_BEFORE, ASCII)})"
    assert moved_from in world.bot_summary()
    before, sent = decided(world.bot_summary()), len(world.providers.log)
    assert [status for _, _, status, _, _ in before] == ["consensus"]
    run = world.run("reopened", CONSENSUS_HOME=str(world.tmp / "runner-2"))  # no journal
    assert run.code == 0, run.stderr
    assert "every file is unchanged since" in run.stderr
    assert len(world.providers.log) == sent  # 0 model calls
    assert review_posts(run) == [] and world.github.repos[REPO].review_comments == []
    assert decided(world.bot_summary()) == before
    assert f"{moved_from} · carried from {head[:7]}" in world.bot_summary()


def test_full_review_decides_afresh_and_shows_each_changed_decision(world: World) -> None:
    head = world.open_pr().head_sha
    assert world.run(CONSENSUS_HOME=str(world.tmp / "runner-1")).code == 0
    for model in MODELS:
        world.providers.script.respond(model, refute_everything)
    run = world.run(
        "synchronize", CONSENSUS_HOME=str(world.tmp / "runner-2"), CONSENSUS_FULL_REVIEW="true"
    )
    assert run.code == 0, run.stderr
    summary = world.bot_summary()
    assert "Decisions changed on a fresh look (2)" in summary
    changed = summary.split("Decisions changed on a fresh look (2)", 1)[1].split("###", 1)[0]
    assert f"consensus 4/4 on `{head[:7]}`, now **not reported**" in changed.split("SQL", 1)[1]
    loop = changed.split("Off-by", 1)[1]
    # One agreeable judge (no calibration) confirmed it seven times before it was kept.
    assert f"consensus 3/4 · confirmed by meta on `{head[:7]}`, now **not reported**" in (loop)
    assert "carried from" not in summary
    resolved = summary.split("resolved since the last review", 1)[1].split("</details>", 1)[0]
    assert resolved.count("not reported on a fresh look at unchanged code") == 2
    assert "fixed" not in resolved


def test_a_forged_or_edited_state_never_carries_a_decision(world: World) -> None:
    world.open_pr()
    assert world.run(CONSENSUS_HOME=str(world.tmp / "runner-1")).code == 0
    [ours] = [c for c in world.summaries() if c["user"]["type"] == "Bot"]
    # Someone with write access rewrites our summary (the state still says "decided").
    world.github.edit_issue_comment(REPO, ours["id"], str(ours["body"]), human("mallory"))
    sent = len(world.providers.log)
    run = world.run("reopened", CONSENSUS_HOME=str(world.tmp / "runner-2"))
    assert run.code == 0, run.stderr
    assert len(world.providers.log) > sent  # nothing carried: the models were asked again
    assert "carried from" not in world.bot_summary()
    assert "last edited by mallory" in world.bot_summary()


def test_a_state_in_someone_elses_comment_is_never_ours_to_carry(world: World) -> None:
    world.open_pr()
    assert world.run(CONSENSUS_HOME=str(world.tmp / "runner-1")).code == 0
    ours = world.bot_summary()
    for comment in list(world.github.repos[REPO].issue_comments):
        world.github.repos[REPO].issue_comments.remove(comment)  # our summary is gone
    world.github.add_issue_comment(REPO, NUMBER, ours, human("mallory"))  # a copy, by a person
    sent = len(world.providers.log)
    run = world.run("reopened", CONSENSUS_HOME=str(world.tmp / "runner-2"))
    assert run.code == 0, run.stderr
    assert len(world.providers.log) > sent
    assert "carried from" not in world.bot_summary()


def test_full_review_reviews_every_file_on_a_push(world: World) -> None:
    git(world.repo, "checkout", "-q", "-b", "big", "feature")
    commit(world.repo, {"src/app/big.py": BIG}, "a big file")
    world.open_pr(head="big")
    assert world.run().code == 0
    commit(world.repo, {"src/app/big.py": BIG + "DONE = True\n"}, "touch only big.py")
    world.open_pr(head="big")
    sent_before = len(world.providers.log)
    run = world.run("synchronize", CONSENSUS_FULL_REVIEW="true")
    assert run.code == 0, run.stderr
    prompts = [r.raw for r in world.providers.log.all()[sent_before:] if r.method == "POST"]
    assert prompts and all("delete_users" in p for p in prompts)
    assert "carried from" not in world.bot_summary()


def test_a_sarif_an_earlier_step_wrote_corroborates_the_inline_comment(world: World) -> None:
    """The `analyzer-sarif` input: CodeQL's result at the injection's line, in the workspace
    as an earlier step left it, is named on the models' comment; its result on a file the
    pull request does not touch is not posted anywhere."""
    world.open_pr()
    at = {"artifactLocation": {"uri": "src/app/db.py", "uriBaseId": "%SRCROOT%"}}
    elsewhere = {"artifactLocation": {"uri": "src/app/legacy.py", "uriBaseId": "%SRCROOT%"}}
    results = [
        {
            "ruleId": "py/sql-injection",
            "level": "error",
            "message": {"text": "This SQL query depends on a user-provided value."},
            "locations": [{"physicalLocation": {**where, "region": {"startLine": line}}}],
        }
        for where, line in ((at, line_of(DB_AFTER, SQL)), (elsewhere, 3))
    ]
    sarif = {
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "CodeQL", "rules": [{"id": "py/sql-injection"}]}},
                "originalUriBaseIds": {"%SRCROOT%": {"uri": world.repo.resolve().as_uri() + "/"}},
                "results": results,
            }
        ],
    }
    (world.repo / "python.sarif").write_text(json.dumps(sarif))
    run = world.run(CONSENSUS_ANALYZER_SARIF="python.sarif")
    assert run.code == 0, run.stderr
    comments = world.github.repos[REPO].review_comments
    [sql] = [c for c in comments if c["line"] == line_of(DB_AFTER, SQL)]
    assert "also reported by codeql py/sql-injection" in sql["body"]
    assert "legacy.py" not in world.bot_summary()
    assert (
        "codeql: 1 of 2 results kept (added): 1 outside the reviewed files" in world.bot_summary()
    )
