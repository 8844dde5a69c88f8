"""The pull request both analyzer e2e tests review: src/cart.py gains an undefined name
ruff's F821 sees (`return amont`) and a divisor slip no rule sees; an unused import the
base already had is not the change's. Three models answer: one reports both, two only the
slip; every judge confirms."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from consensus_sim.provider_server import Step, prompt_text, reply

CART = "src/cart.py"
BEFORE = '''\
"""The cart."""
import os


def total(items):
    amount = 0
    for item in items:
        amount += item.price
    return amount


def discount(amount, percent):
    return amount * percent / 100
'''
AFTER = '''\
"""The cart."""
import os


def total(items):
    amount = 0
    for item in items:
        amount += item.price * item.quantity
    return amont


def discount(amount, percent):
    return amount * (100 - percent) / 10
'''
TYPO = AFTER.splitlines().index("    return amont") + 1
SLIP = AFTER.splitlines().index("    return amount * (100 - percent) / 10") + 1
MODELS = ("gpt-test", "claude-test", "llama-test")
NAME = {
    "path": CART, "line": TYPO, "severity": "high", "category": "bug",
    "title": "`total` returns `amont`, a name that does not exist",
    "body": "`return amont` raises NameError on every call: the variable is `amount`.",
}  # fmt: skip
DIVISOR = {
    "path": CART, "line": SLIP, "severity": "high", "category": "bug",
    "title": "Discount divides by 10 instead of 100",
    "body": "`/ 10` makes a 10% discount return 9 times the amount instead of 0.9 times.",
}  # fmt: skip


def responder(model: str) -> Callable[[dict[str, Any]], Step]:
    def answer(body: dict[str, Any]) -> Step:
        prompt = prompt_text(body)
        if "describe the same defect?" in prompt:
            return reply(json.dumps({"verdict": "same", "reason": "Both name `amont`."}))
        if "You are an independent verifier" in prompt:
            return reply(json.dumps({"verdict": "confirmed", "reason": "Read the code."}))
        found = [NAME, DIVISOR] if model == "gpt-test" else [DIVISOR]
        return reply(json.dumps({"findings": found}))

    return answer


def git(repo: Path, *args: str) -> bytes:
    command = ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args]
    return subprocess.run(command, cwd=repo, check=True, capture_output=True).stdout
