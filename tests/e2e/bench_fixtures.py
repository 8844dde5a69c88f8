"""A two-PR benchmark of our own, served on 127.0.0.1 the way the real one is reached.

- `acme/shop`: a git repository with two pull requests, loaded into the loopback GitHub:
  #7 (a cart: an off-by-one loop, a division by zero on an empty cart) and #9 (login: a
  password written to the log, a token compared with `==`);
- `withmartian/code-review-benchmark` at the pinned commit, with the benchmark's file
  layout (LICENSE, offline/golden_comments/<project>.json, offline/results/<judge>/
  evaluations.json) holding OUR goldens for those two PRs and published figures of two
  made-up tools; the contents API sends no content for files over 200 bytes there, so
  the download goes through the blob API as it must for the real 1.5 MB files;
- a scripted panel: two reviewers who agree on some defects and not others, verifiers
  who confirm, and a judge who matches a finding to a golden by what the finding names.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from consensus.bench import martian
from consensus_sim.github_server import FakeGitHub, load_pull_from_git
from consensus_sim.provider_server import Script, Step, prompt_text, reply

CART_BEFORE = "def total(items):\n    return sum(item.price for item in items)\n"
CART_AFTER = """\
def total(items):
    return sum(item.price for item in items)


def discounted(items, rate):
    prices = []
    for i in range(len(items) + 1):
        prices.append(items[i].price * (1 - rate))
    return prices


def average(items):
    return total(items) / len(items)
"""
AUTH_BEFORE = "import logging\n\nlog = logging.getLogger(__name__)\n"
AUTH_AFTER = """\
import logging

log = logging.getLogger(__name__)


def login(user, password, token, expected):
    log.info("login %s with %s", user, password)
    if token == expected:
        return True
    return False
"""


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


LOOP = line_of(CART_AFTER, "for i in range")
DIVIDE = line_of(CART_AFTER, "/ len(items)")
LOGGED = line_of(AUTH_AFTER, "log.info")
COMPARE = line_of(AUTH_AFTER, "token == expected")

GOLDENS = {
    7: [
        {"comment": "discounted() loops to len(items) inclusive and reads past the end: "
                    "IndexError on the last iteration.", "severity": "High"},
        {"comment": "average() divides by zero when the cart is empty.", "severity": "Medium"},
    ],
    9: [
        {"comment": "login() writes the user's password to the log in plain text.",
         "severity": "Critical"},
        {"comment": "The token is compared with ==, which is not constant-time.",
         "severity": "Low"},
    ],
}  # fmt: skip
TITLES = {7: "Discounted cart prices", 9: "Log logins"}


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def shop_repository(root: Path) -> Path:
    """acme/shop with branch pr7 (the cart) and pr9 (login), both from main."""
    repo = root / "shop"
    (repo / "app").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "app" / "cart.py").write_text(CART_BEFORE)
    (repo / "app" / "auth.py").write_text(AUTH_BEFORE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    for branch, path, text in (("pr7", "cart.py", CART_AFTER), ("pr9", "auth.py", AUTH_AFTER)):
        git(repo, "checkout", "-q", "-b", branch, "main")
        (repo / "app" / path).write_text(text)
        git(repo, "commit", "-q", "-am", f"change {path}")
    return repo


def evaluations() -> dict[str, object]:
    """Published results of two made-up tools on our two PRs, in the benchmark's shape."""

    def result(tp: int, fp: int, fn: int) -> dict[str, object]:
        return {"skipped": False, "tp": tp, "fp": fp, "fn": fn, "precision": 0.0, "recall": 0.0}

    pr = "https://github.com/acme/shop/pull/"
    return {
        f"{pr}7": {"tool-a": result(1, 3, 1), "tool-b": result(2, 6, 0)},
        f"{pr}9": {
            "tool-a": result(1, 1, 1),
            "tool-b": result(0, 2, 2),
            "tool-c": {"skipped": True},
        },
    }


def benchmark_files() -> dict[str, str]:
    """The benchmark repository's files at the pinned commit (our content, its layout)."""
    files = {
        martian.LICENCE_PATH: "MIT License\n\nCopyright (c) 2025 A test fixture\n",
        martian.evaluations_path("openai_gpt-5.2"): json.dumps(evaluations()),
    }
    for project in martian.PROJECTS:
        files[martian.golden_path(project)] = "[]"
    files[martian.golden_path("sentry")] = json.dumps(
        [
            {"pr_title": TITLES[n], "url": f"https://github.com/acme/shop/pull/{n}",
             "comments": GOLDENS[n]}
            for n in (7, 9)
        ]
    )  # fmt: skip
    return files


def serve_world(github: FakeGitHub, root: Path) -> None:
    """Load both PRs and the benchmark's files into the loopback GitHub."""
    shop = shop_repository(root)
    for number in (7, 9):
        load_pull_from_git(
            github, "acme/shop", number, shop, base="main", head=f"pr{number}",
            title=TITLES[number],
        )  # fmt: skip
    data = github.repo(martian.REPOSITORY)
    data.snapshots[martian.COMMIT] = benchmark_files()
    data.large_file_bytes = 200


def suite_lines(shop_diff: str) -> str:
    """Our JSONL format: PR 7 read from GitHub, PR 9 given as an inline diff."""
    return (
        json.dumps({"repo": "acme/shop", "number": 7, "title": TITLES[7], "goldens": GOLDENS[7]})
        + "\n"
        + json.dumps({"id": "local-login", "diff": shop_diff, "goldens": GOLDENS[9]})
        + "\n"
    )


# --------------------------------------------------------------------------- the panel


def finding(path: str, line: int, title: str, body: str, **extra: object) -> dict[str, object]:
    return {"path": path, "line": line, "severity": "high", "category": "bug",
            "title": title, "body": body, **extra}  # fmt: skip


OFF_BY_ONE = {
    "gpt-test": finding("app/cart.py", LOOP, "Off-by-one: loop reads past the end of items",
                        "`range(len(items) + 1)` indexes one past the last item."),
    "claude-test": finding("app/cart.py", LOOP, "Loop bound off by one raises IndexError",
                           "The last iteration reads items[len(items)]."),
}  # fmt: skip
ZERO = finding("app/cart.py", DIVIDE, "Division by zero for an empty cart",
               "`len(items)` is 0 for an empty cart.", severity="medium")  # fmt: skip
NIT = finding("app/cart.py", LOOP + 1, "Use a list comprehension",
              "A comprehension reads better here.", severity="low",
              category="maintainability")  # fmt: skip
PASSWORD = {
    "gpt-test": finding("app/auth.py", LOGGED, "Password logged in plain text",
                        "The password reaches the log.", category="security"),
    "claude-test": finding("app/auth.py", LOGGED, "Plain-text password written to logs",
                           "log.info prints the password.", category="security"),
}  # fmt: skip
TIMING = finding("app/auth.py", COMPARE, "Token comparison is not constant-time",
                 "Use hmac.compare_digest.", severity="low", category="security")  # fmt: skip

REVIEWS = {
    ("gpt-test", "app/cart.py"): [OFF_BY_ONE["gpt-test"], ZERO, NIT],
    ("claude-test", "app/cart.py"): [OFF_BY_ONE["claude-test"]],
    ("gpt-test", "app/auth.py"): [PASSWORD["gpt-test"]],
    ("claude-test", "app/auth.py"): [PASSWORD["claude-test"], TIMING],
}
# What the judge matches, by words of the finding's title → the golden's number.
JUDGED = {"off-by-one": 1, "off by one": 1, "division by zero": 2, "password": 1, "constant": 2}
JUDGE_PROMPT = "judge of a code review benchmark"
VERIFIER_PROMPT = "You are an independent verifier"
SAME_PROMPT = "comparing two findings"


def judge_answer(prompt: str) -> str:
    title = re.search(r"^Title: (.*)$", prompt, re.MULTILINE)
    said = (title.group(1) if title else "").lower()
    for words, golden in JUDGED.items():
        if words in said:
            return json.dumps({"verdict": "match", "golden": golden,
                               "reason": f"Both name the {words} defect."})  # fmt: skip
    return json.dumps({"verdict": "no_match", "golden": None, "reason": "No golden names it."})


def responder(model: str) -> Callable[[dict[str, object]], Step]:
    def answer(body: dict[str, object]) -> Step:
        prompt = prompt_text(body)
        if JUDGE_PROMPT in prompt:
            return reply(judge_answer(prompt))
        if VERIFIER_PROMPT in prompt:
            return reply(json.dumps({"verdict": "confirmed", "reason": "The code shows it."}))
        if SAME_PROMPT in prompt:
            return reply(json.dumps({"verdict": "same", "reason": "One defect."}))
        path = "app/cart.py" if "app/cart.py" in prompt else "app/auth.py"
        return reply(json.dumps({"findings": REVIEWS[(model, path)]}))

    return answer


def script_world(script: Script) -> None:
    """Reviewers gpt-test and claude-test, and the judge gpt-5.2, on one loopback server."""
    for model in ("gpt-test", "claude-test", "gpt-5.2"):
        script.respond(model, responder(model))


# A clean pull request (no defect: a formatting helper), for a suite of our own.
CLEAN_DIFF = """\
diff --git a/app/format.py b/app/format.py
new file mode 100644
--- /dev/null
+++ b/app/format.py
@@ -0,0 +1,3 @@
+def money(cents: int) -> str:
+    # cents as dollars, two decimals
+    return f"${cents / 100:.2f}"
"""


def script_leaky_world(script: Script, secrets: tuple[str, str]) -> None:
    """script_world, but gpt-test's division-by-zero finding on #7 quotes `secrets` (an AWS
    key id and a value of the repository's `redact:` pattern), and on the clean PR it posts
    a nit quoting them too, which claude-test does not report."""
    quoted = f" CI holds {secrets[0]} and {secrets[1]}."
    leaky_zero = {**ZERO, "body": str(ZERO["body"]) + quoted}
    nit = finding("app/format.py", 3, "Prefer Decimal for money",
                  "Floats round cents." + quoted, severity="low")  # fmt: skip

    def reviewer(model: str) -> Callable[[dict[str, object]], Step]:
        usual = responder(model)

        def answer(body: dict[str, object]) -> Step:
            prompt = prompt_text(body)
            if JUDGE_PROMPT in prompt or VERIFIER_PROMPT in prompt or SAME_PROMPT in prompt:
                return usual(body)
            if "app/format.py" in prompt:
                return reply(json.dumps({"findings": [nit] if model == "gpt-test" else []}))
            if model == "gpt-test" and "app/cart.py" in prompt:
                return reply(json.dumps({"findings": [OFF_BY_ONE[model], leaky_zero, NIT]}))
            return usual(body)

        return answer

    for model in ("gpt-test", "claude-test", "gpt-5.2"):
        script.respond(model, reviewer(model))


JUDGE = "{confirmed_real: 95, missed_real: 5, refuted_false: 95, confirmed_false: 5}"


def write_config(root: Path, url: str) -> Path:
    config = root / "consensus.yml"
    config.write_text(
        f"""\
providers:
  - model: openai/gpt-test
    api_base: {url}/v1
    api_key_env: FAKE_OPENAI_KEY
  - model: anthropic/claude-test
    api_base: {url}
    api_key_env: FAKE_ANTHROPIC_KEY
personas: [correctness]
budget: {{max_cost_usd: 1.0, max_tokens: 400000}}
# The two judges as a calibration measured them: with two families, a claim one of them
# made has one judge, and one confirmation of a judge nothing is known of verifies nothing.
calibration:
  families:
    openai: {{judge: {JUDGE}}}
    anthropic: {{judge: {JUDGE}}}
"""
    )
    return config
