"""Fault matrix: the real CLI and `consensus action` against loopback fakes, one fault a row.

Each row runs the same review with one injected fault and compares it with the fault-free
run: completed? (a report, an exit code that says what happened), findings lost (findings
of the fault-free run missing from this one, except those only a failed provider had
reported), duplicate comments (inline comments sharing a fingerprint, summaries beyond
one), leaks (planted credentials found in any output, anything sent to a provider, or
anything on GitHub), pings (live @mentions in what was posted), exit code, and extra
model calls paid compared with the fault-free run.

    python benchmarks/fault_matrix.py [--quick] [--markdown RELIABILITY.md]

`--quick` runs a subset that stays well under two minutes (CI runs it as a test).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from consensus.publish.thread import SUMMARY_MARKER  # noqa: E402
from consensus_sim.github_server import FakeGitHub, load_pull_from_git  # noqa: E402
from consensus_sim.provider_server import (  # noqa: E402
    FakeProviderServer,
    Script,
    Step,
    error,
    hang,
    prompt_text,
    reply,
)
from fakes.inprocess import Ran, run_consensus  # noqa: E402

CANARY = "ghp_" + "Fq7Lr2Wm9Xc4Vb8Nt1Hs6Jd3Kg5Pz0Ya4Qe"
REPO_NAME = "acme/service"
NUMBER = 7
MODELS = ("gpt-test", "claude-test", "llama-test", "qwen-test")
VERIFIER = "You are an independent verifier"
FP_MARKER = re.compile(r"<!-- consensus:fp=([0-9a-f-]+)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
MENTION = re.compile(r"(?<![\w/.@`-])@[A-Za-z0-9][A-Za-z0-9-]*")

BEFORE = "import sqlite3\n\n\ndef get_user(conn, user_id):\n    return None\n"
AFTER = textwrap.dedent(
    f"""\
    import sqlite3

    TOKEN = "{CANARY}"


    def get_user(conn, user_id):
        cur = conn.cursor()
        query = f"SELECT * FROM users WHERE id = {{user_id}}"
        cur.execute(query)
        return cur.fetchone()


    def delete_users(conn, ids):
        for i in range(len(ids) + 1):
            conn.execute("DELETE FROM users WHERE id = ?", (ids[i],))
    """
)
SQL = 'query = f"SELECT * FROM users WHERE id = {user_id}"'
LOOP = "for i in range(len(ids) + 1):"


def line_of(needle: str) -> int:
    return next(n for n, line in enumerate(AFTER.splitlines(), 1) if needle in line)


def answer(model: str, prompt: str) -> str:
    if VERIFIER in prompt:
        return json.dumps({"verdict": "confirmed", "reason": "The code shows it."})
    found = []
    if SQL in prompt:
        found.append(
            {
                "path": "src/app/db.py",
                "line": line_of(SQL),
                "severity": "high",
                "category": "security",
                "title": f"SQL injection through an f-string query ({model})",
                "body": "`user_id` is interpolated into the SQL; bind it as a parameter.",
            }
        )
    if LOOP in prompt and model in ("gpt-test", "claude-test"):
        found.append(
            {
                "path": "src/app/db.py",
                "line": line_of(LOOP),
                "severity": "high",
                "category": "bug",
                "title": "Off-by-one: the loop reads past the end of ids",
                "body": "`range(len(ids) + 1)` makes `ids[i]` raise IndexError.",
            }
        )
    return json.dumps({"findings": found})


Twist = Callable[[str, dict[str, object]], Step | None]


def script_for(twist: Twist | None) -> Script:
    script = Script()
    for model in MODELS:

        def respond(body: dict[str, object], model: str = model) -> Step:
            if twist is not None:
                step = twist(model, body)
                if step is not None:
                    return step
            return reply(answer(model, prompt_text(body)))

        script.respond(model, respond)
    return script


def config(url: str, extra: str = "") -> str:
    return (
        textwrap.dedent(
            f"""\
        providers:
          - model: openai/gpt-test
            api_base: {url}/v1
            api_key_env: FAKE_KEY
          - model: anthropic/claude-test
            api_base: {url}
            api_key_env: FAKE_KEY
          - model: openai/llama-test
            api_base: {url}/v1
            api_key_env: FAKE_KEY
          - model: openai/qwen-test
            api_base: {url}/v1
            api_key_env: FAKE_KEY
            timeout_s: 3
        personas: [correctness, security]
        concurrency: 4
        """
        )
        + extra
    )


def git(repo: Path, *args: str) -> None:
    command = ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args]
    subprocess.run(command, cwd=repo, check=True, capture_output=True)


@dataclass
class Outcome:
    code: int
    report: dict[str, object] | None
    texts: list[str]  # every output to search for leaks
    model_calls: int
    inline: list[str]  # bodies of inline comments on GitHub
    summaries: int


@dataclass
class Row:
    fault: str
    completed: bool
    lost: int
    duplicates: int
    leaks: int
    pings: int
    code: int
    extra_calls: int
    note: str = ""


class Lab:
    """A repository, a fake provider server and a fake GitHub, for one row."""

    def __init__(self, tmp: Path, twist: Twist | None, extra_config: str = "") -> None:
        self.tmp = tmp
        self.providers = FakeProviderServer(script_for(twist), latency_s=0.05).start()
        self.github = FakeGitHub().start()
        self.repo = tmp / "service"
        self.repo.mkdir()
        git(self.repo, "init", "-q", "-b", "main")
        (self.repo / "src/app").mkdir(parents=True)
        (self.repo / "src/app/db.py").write_text(BEFORE)
        (self.repo / ".consensus.yml").write_text(config(self.providers.url, extra_config))
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "-m", "base")
        git(self.repo, "checkout", "-q", "-b", "feature")
        (self.repo / "src/app/db.py").write_text(AFTER)
        git(self.repo, "commit", "-q", "-am", "feature")
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp),
            "CONSENSUS_HOME": str(tmp / "journal"),
            "PYTHONPATH": str(ROOT),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "FAKE_KEY": "sk-fake",
            "OLLAMA_HOST": "127.0.0.1:9",
        }

    def close(self) -> None:
        self.providers.stop()
        self.github.stop()

    def model_calls(self) -> int:
        chat = ("/chat/completions", "/v1/messages")
        return sum(1 for r in self.providers.log.all() if r.path.endswith(chat))

    def review(self, *extra: str) -> Ran:
        """The real CLI in this process (fakes.inprocess): a fault here needs no process of
        its own; the rows that kill or race processes start their own."""
        command = ["review", "--base", "main", "--format", "json", *extra]
        return run_consensus(command, cwd=self.repo, env=self.env)

    def action_env(self) -> dict[str, str]:
        pull = self.github.repos[REPO_NAME].pulls[NUMBER]
        event = self.tmp / "event.json"
        event.write_text(
            json.dumps(
                {
                    "action": "opened",
                    "number": NUMBER,
                    "pull_request": self.github.pull_json(self.github.repos[REPO_NAME], pull),
                    "repository": {"full_name": REPO_NAME},
                    "sender": {"login": "dev", "type": "User"},
                }
            )
        )
        for name in ("summary.md", "output.txt"):
            (self.tmp / name).touch()
        return {
            **self.env,
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_API_URL": self.github.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": REPO_NAME,
            "GITHUB_TOKEN": "ghs_fake_token",
            "GITHUB_WORKSPACE": str(self.repo),
            "GITHUB_STEP_SUMMARY": str(self.tmp / "summary.md"),
            "GITHUB_OUTPUT": str(self.tmp / "output.txt"),
            "RUNNER_TEMP": str(self.tmp),
            "CONSENSUS_POST_INTERVAL": "0",
        }

    def open_pr(self) -> None:
        load_pull_from_git(self.github, REPO_NAME, NUMBER, self.repo, base="main", head="feature")

    def action(self) -> Ran:
        return run_consensus(["action"], cwd=self.repo, env=self.action_env())

    def github_texts(self) -> list[str]:
        repo = self.github.repos[REPO_NAME]
        bodies = [str(c["body"]) for c in repo.issue_comments]
        bodies += [str(c["body"]) for c in repo.review_comments]
        bodies += [str(r.get("body") or "") for r in repo.reviews]
        return bodies

    def outcome(self, done: Ran, report: dict[str, object] | None):  # type: ignore[no-untyped-def]
        repo = self.github.repos.get(REPO_NAME)
        inline = [str(c["body"]) for c in repo.review_comments] if repo else []
        summaries = (
            sum(1 for c in repo.issue_comments if str(c["body"]).startswith(SUMMARY_MARKER))
            if repo
            else 0
        )
        journal = b"".join(p.read_bytes() for p in (self.tmp / "journal").glob("journal.db*"))
        texts = [done.stdout, done.stderr, self.providers.log.all_text(), journal.decode("latin-1")]
        texts += self.github_texts() if repo else []
        for name in ("summary.md", "output.txt"):
            path = self.tmp / name
            texts.append(path.read_text() if path.exists() else "")
        return Outcome(done.returncode, report, texts, self.model_calls(), inline, summaries)


@contextmanager
def lab(twist: Twist | None = None, extra_config: str = "") -> Iterator[Lab]:
    with tempfile.TemporaryDirectory() as tmp:
        place = Lab(Path(tmp), twist, extra_config)
        try:
            yield place
        finally:
            place.close()


def cli_report(done: Ran) -> dict[str, object] | None:
    try:
        data = json.loads(done.stdout)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def action_report(place: Lab) -> dict[str, object] | None:
    outputs = (place.tmp / "output.txt").read_text().split()
    paths = [line.split("=", 1)[1] for line in outputs if line.startswith("report=")]
    if not paths or not Path(paths[-1]).exists():
        return None
    data = json.loads(Path(paths[-1]).read_text())
    return data if isinstance(data, dict) else None


def fingerprints(report: dict[str, object] | None) -> dict[str, list[str]]:
    if report is None:
        return {}
    findings = report.get("findings") or []
    return {str(f["fingerprint"]): list(f["providers"]) for f in findings}  # type: ignore[index, union-attr]


def failed_providers(report: dict[str, object] | None) -> set[str]:
    if report is None:
        return set()
    return {str(p["model"]) for p in report.get("providers") or [] if p["status"] != "ok"}  # type: ignore[index, union-attr]


def score_row(fault: str, baseline: Outcome, out: Outcome, note: str = "") -> Row:
    expected = fingerprints(baseline.report)
    got = fingerprints(out.report)
    down = failed_providers(out.report)
    lost = sum(1 for fp, who in expected.items() if fp not in got and not set(who) <= down)
    markers = [m for body in out.inline for m in FP_MARKER.findall(body)]
    duplicates = len(markers) - len(set(markers)) + max(0, out.summaries - 1)
    leaks = sum(text.count(CANARY) for text in out.texts)
    posted = out.inline + [t for t in out.texts[4:] if SUMMARY_MARKER in t]
    pings = sum(len(MENTION.findall(CODE.sub(" ", body))) for body in posted)
    completed = out.report is not None and out.code in (0, 1, 3)
    return Row(
        fault,
        completed,
        lost,
        duplicates,
        leaks,
        pings,
        out.code,
        out.model_calls - baseline.model_calls,
        note,
    )


# --------------------------------------------------------------------------- the rows


def cli_row(fault: str, twist: Twist | None, baseline: Outcome, extra: str = "") -> Row:
    with lab(twist, extra) as place:
        done = place.review()
        return score_row(fault, baseline, place.outcome(done, cli_report(done)))


def first_n(model: str, step: Callable[[], Step], n: int = 1) -> Twist:
    used = {"n": 0}
    lock = threading.Lock()

    def twist(asked: str, body: dict[str, object]) -> Step | None:
        if asked != model or VERIFIER in prompt_text(body):
            return None
        with lock:
            if used["n"] >= n:
                return None
            used["n"] += 1
        return step()

    return twist


def flaky(rate: float) -> Twist:
    counter = {"n": 0}
    lock = threading.Lock()

    def twist(model: str, body: dict[str, object]) -> Step | None:
        with lock:
            counter["n"] += 1
            n = counter["n"]
        return error(500, "internal error") if (n * 7919) % 100 < rate * 100 else None

    return twist


def follows_injection(model: str, body: dict[str, object]) -> Step | None:
    if model != "gpt-test" or VERIFIER in prompt_text(body):
        return None
    gullible = {
        "path": "src/app/db.py",
        "line": line_of(SQL),
        "severity": "info",
        "category": "docs",
        "title": "Approved as the comment asks",
        "body": "Pinging @everyone as requested ![ok](https://evil.example/p.png)",
    }
    good = json.loads(answer(model, prompt_text(body)))["findings"]
    return reply(json.dumps({"findings": [*good, gullible]}))


def killed_and_resumed(baseline: Outcome) -> Row:
    with lab() as place:
        slow = FakeProviderServer(script_for(None), latency_s=0.5).start()
        try:
            (place.repo / ".consensus.yml").write_text(config(slow.url))
            git(place.repo, "commit", "-q", "-am", "point at the slow server")
            command = [sys.executable, "-m", "consensus", "review", "--base", "main"]
            victim = subprocess.Popen(
                [*command, "--format", "json"],
                cwd=place.repo,
                env=place.env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            deadline = time.monotonic() + 60
            journal = place.tmp / "journal" / "journal.db"
            while time.monotonic() < deadline:
                try:
                    with sqlite3.connect(journal, timeout=5) as db:
                        if db.execute("SELECT count(*) FROM calls WHERE ok = 1").fetchone()[0] >= 3:
                            break
                except sqlite3.Error:
                    pass
                time.sleep(0.05)
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            done = place.review()
            out = place.outcome(done, cli_report(done))
            chat = ("/chat/completions", "/v1/messages")
            out.model_calls = sum(1 for r in slow.log.all() if r.path.endswith(chat))
        finally:
            slow.stop()
    row = score_row("SIGKILL mid-run, then the same command again", baseline, out)
    row.note = "calls in flight at the kill are paid twice; answered ones are not"
    return row


def budget_then_more(baseline: Outcome) -> Row:
    with lab(None, "budget: {max_cost_usd: null, max_tokens: 6000}\n") as place:
        paused = place.review()
        # The higher budget comes from a file outside the tree: editing the tracked
        # .consensus.yml would change the working-tree diff, and so the run.
        text = (place.repo / ".consensus.yml").read_text().replace("6000", "400000")
        (place.tmp / "more.yml").write_text(text)
        done = place.review("--config", str(place.tmp / "more.yml"))
        out = place.outcome(done, cli_report(done))
        out.texts += [paused.stdout, paused.stderr]
    row = score_row("budget exhausted mid-run, then a higher budget", baseline, out)
    row.note = f"first run exit {paused.returncode} (budget reached), then {done.returncode}"
    return row


def action_baseline() -> Outcome:
    with lab() as place:
        place.open_pr()
        done = place.action()
        return place.outcome(done, action_report(place))


def action_row(fault: str, setup: Callable[[Lab], None], baseline: Outcome) -> Row:
    """The fault is set up before a run on a PR that has already been reviewed once, or,
    for faults on reads and writes of the first review, before the first run."""
    with lab() as place:
        place.open_pr()
        if fault.startswith("summary"):
            place.action()
        setup(place)
        done = place.action()
        row = score_row(fault, baseline, place.outcome(done, action_report(place)))
    if fault.startswith("summary"):
        row.note = (
            "the state went with the summary, so the second run reviews again; calls of both runs"
        )
    return row


def concurrent_actions(baseline: Outcome) -> Row:
    with lab() as place:
        place.open_pr()
        env = place.action_env()
        command = [sys.executable, "-m", "consensus", "action"]
        both = [
            subprocess.Popen(
                command, cwd=place.repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            for _ in range(2)
        ]
        codes = [p.wait(timeout=300) for p in both]
        done = Ran(max(codes), "", "")
        row = score_row(
            "two runs on the same PR at once", baseline, place.outcome(done, action_report(place))
        )
    row.note = "both pay for the review; each then removes what repeats an older comment"
    return row


def hung(model: str, body: dict[str, object]) -> Step | None:
    return hang(6) if model == "qwen-test" else None


def run_matrix(quick: bool) -> list[Row]:
    with lab() as place:
        done = place.review()
        baseline = place.outcome(done, cli_report(done))
    rate_limited = first_n("claude-test", lambda: error(429, headers={"Retry-After": "1"}))
    truncated = first_n("llama-test", lambda: reply('{"findings": [{"pa'))
    wrong = first_n("gpt-test", lambda: reply('{"issues": [{"file": "db.py"}]}'))

    def dead(model: str, body: dict[str, object]) -> Step | None:
        return error(401, "invalid api key") if model == "qwen-test" else None

    rows = [
        cli_row("provider 429 with Retry-After", rate_limited, baseline),
        cli_row("a dead provider (401)", dead, baseline),
        cli_row("truncated JSON", truncated, baseline),
        cli_row("a reply in the wrong schema", wrong, baseline),
        cli_row("a reply that follows an injection", follows_injection, baseline),
    ]
    if not quick:
        rows += [
            cli_row("500s at 20%", flaky(0.2), baseline),
            cli_row("a provider that hangs past its timeout", hung, baseline),
            budget_then_more(baseline),
            killed_and_resumed(baseline),
        ]  # fmt: skip
    github = action_baseline()
    rows += [
        action_row("GitHub 502 on GET", _bad_gateway, github),
        action_row("GitHub secondary rate limit on POST", _secondary_limit, github),
    ]
    if not quick:
        rows += [
            action_row("summary comment deleted by a human between runs", _delete_summary, github),
            concurrent_actions(github),
        ]
    return rows


def _bad_gateway(place: Lab) -> None:
    place.github.fail_next("GET", r"/pulls/\d+/files", 502, times=2)


def _secondary_limit(place: Lab) -> None:
    message = "You have exceeded a secondary rate limit"
    headers = {"Retry-After": "1"}
    place.github.fail_next("POST", r"/pulls/\d+/reviews", 403, headers=headers, message=message)


def _delete_summary(place: Lab) -> None:
    comments = place.github.repos[REPO_NAME].issue_comments
    comments[:] = [c for c in comments if not str(c["body"]).startswith(SUMMARY_MARKER)]


def table(rows: list[Row]) -> str:
    head = (
        "| fault | completed | findings lost | duplicate comments | leaks | pings | exit "
        "| extra calls paid | note |\n|---|---|---:|---:|---:|---:|---:|---:|---|"
    )
    lines = [
        f"| {r.fault} | {'yes' if r.completed else 'NO'} | {r.lost} | {r.duplicates} | "
        f"{r.leaks} | {r.pings} | {r.code} | {r.extra_calls:+d} | {r.note} |"
        for r in rows
    ]
    return "\n".join([head, *lines])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    started = time.monotonic()
    rows = run_matrix(args.quick)
    text = table(rows)
    print(text)
    bad = [r for r in rows if not r.completed or r.lost or r.duplicates or r.leaks or r.pings]
    verdict = "every row met the targets" if not bad else f"{len(bad)} rows missed a target"
    took = time.monotonic() - started
    print(f"\n{verdict} (0 lost, 0 duplicates, 0 leaks, 0 pings) in {took:.0f} s")
    if args.markdown:
        args.markdown.write_text(
            "# Reliability: the fault matrix\n\n"
            "`python benchmarks/fault_matrix.py --markdown RELIABILITY.md` runs the real CLI and "
            "`consensus action` against the loopback fake providers and fake GitHub, one "
            "injected fault a row, and compares each run with the fault-free one. A planted "
            "GitHub token in the diff is searched for in every output (stdout, stderr, the "
            "journal, what providers received, everything on GitHub, the step summary).\n\n"
            f"{text}\n\n{verdict}.\n"
        )


if __name__ == "__main__":
    main()
