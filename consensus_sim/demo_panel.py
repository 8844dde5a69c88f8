"""The demo's sample change and its simulated review panel.

A small order service gets a feature branch that adds a customer search (its SQL built
with an f-string), pagination (one page too many) and a discount (never capped). Four
simulated providers of four families review it as models do: all four report the
injection in their own words, two report the pagination bug, two an uncapped discount that
the code does cap, one each a claim the code contradicts, and one a nit. No calibration
ships: the judges show what they are worth by their votes. They refute the three claims
the code contradicts (Qwen's judge confirms one of them, as an agreeable judge would, and
a third family is asked), so the run reads them as judges that tell claims apart, and
their two confirmations of the pagination bug verify it. Llama's judge reads the file
before it confirms the bug, and cites the line that shows it.

Nothing here knows the package: the replies are the JSON a model would send, chosen by
reading the prompt as a provider would see it (`prompt_text`).
"""

from __future__ import annotations

import json

from consensus_sim.script import (
    JsonObject,
    Responder,
    Script,
    Step,
    call_tools,
    prompt_text,
    reply,
)

REPOSITORY = "shop"
BASE_BRANCH = "main"
FEATURE_BRANCH = "feature/order-search"
COMMIT_MESSAGE = "Search orders by customer, paginate them, apply discount codes"

ORDERS_BEFORE = '''\
"""Orders: read and price them."""

import sqlite3

MAX_DISCOUNT = 0.5


def connect(path):
    return sqlite3.connect(path)


def order_total(conn, order_id):
    row = conn.execute(
        "SELECT SUM(price * quantity) FROM items WHERE order_id = ?", (order_id,)
    ).fetchone()
    return row[0] or 0
'''

ORDERS_AFTER = '''\
"""Orders: read, search, page and price them."""

import sqlite3

MAX_DISCOUNT = 0.5
PAGE_SIZE = 20


def connect(path):
    return sqlite3.connect(path)


def order_total(conn, order_id):
    row = conn.execute(
        "SELECT SUM(price * quantity) FROM items WHERE order_id = ?", (order_id,)
    ).fetchone()
    return row[0] or 0


def find_orders(conn, customer):
    query = f"SELECT id, placed_at FROM orders WHERE customer = '{customer}'"
    return conn.execute(query).fetchall()


def page_count(orders):
    return len(orders) // PAGE_SIZE + 1


def discounted(total, rate):
    rate = min(rate, MAX_DISCOUNT)
    return round(total * (1 - rate), 2)
'''

README = "# shop\n\nThe order service of a small web shop.\n"
FILES_BEFORE = {"README.md": README, "shop/__init__.py": "", "shop/orders.py": ORDERS_BEFORE}
FILES_AFTER = {"shop/orders.py": ORDERS_AFTER}
PATH = "shop/orders.py"


def _line(needle: str) -> int:
    return next(n for n, text in enumerate(ORDERS_AFTER.splitlines(), 1) if needle in text)


SQL = _line("query = f")
PAGES = _line("return len(orders)")
DISCOUNT = _line("round(total")
CONSTANT = _line("PAGE_SIZE = 20")

# The simulated panel: model (as .consensus.yml names it) → its family, as inferred.
MODELS = {
    "openai/gpt-sim": "openai",
    "anthropic/claude-sim": "anthropic",
    "ollama/qwen-sim": "qwen",
    "openai/llama-sim": "meta",
}


def _finding(line: int, severity: str, category: str, title: str, body: str) -> JsonObject:
    return {
        "path": PATH,
        "line": line,
        "severity": severity,
        "category": category,
        "title": title,
        "body": body,
    }


INJECTION = {
    "gpt-sim": _finding(
        SQL,
        "high",
        "security",
        "SQL injection: customer name interpolated into the query",
        "`customer` goes into the SQL text through an f-string; a name such as "
        "`' OR '1'='1` returns every order. Pass it as a parameter: `WHERE customer = ?`.",
    ),
    "claude-sim": _finding(
        SQL,
        "high",
        "security",
        "User-controlled customer value concatenated into SQL",
        "The query string is built from `customer` with string formatting, so the caller "
        "controls the SQL. Use a placeholder and pass `(customer,)` to `execute`.",
    ),
    "qwen-sim": _finding(
        SQL + 1,
        "high",
        "security",
        "Unparameterized SQL query in find_orders",
        "find_orders executes a query formatted from its argument: SQL injection. "
        "sqlite3 supports `?` placeholders.",
    ),
    "llama-sim": _finding(
        SQL,
        "critical",
        "security",
        "Possible SQL injection via the customer parameter",
        "An attacker-controlled customer string can change the query. Use a bound parameter.",
    ),
}
PAGINATION = _finding(
    PAGES,
    "medium",
    "bug",
    "page_count reports an extra empty page when orders fill the last page",
    "With 40 orders and PAGE_SIZE 20 this returns 3. Use ceiling division: "
    "`-(-len(orders) // PAGE_SIZE)`.",
)
PAGINATION_TOO = _finding(
    PAGES,
    "medium",
    "bug",
    "Off-by-one in page_count for exact multiples of PAGE_SIZE",
    "`len(orders) // PAGE_SIZE + 1` counts one page too many whenever the length divides "
    "evenly (and returns 1 for no orders).",
)
DISCOUNT_CLAIM = _finding(
    DISCOUNT,
    "medium",
    "bug",
    "Discount rate is not capped and can make the total negative",
    "A rate above 1 yields a negative total; clamp the rate before applying it.",
)
DISCOUNT_TOO = _finding(
    DISCOUNT,
    "medium",
    "bug",
    "Unbounded discount rate can produce a negative price",
    "Nothing stops a rate greater than 1.0 here, so the price can go below zero.",
)
ROUNDING = _finding(
    DISCOUNT,
    "medium",
    "bug",
    "Rounding happens before the rate is applied",
    "The total is rounded first, so the rate is applied to an amount already rounded.",
)
EMPTY_RESULT = _finding(
    SQL + 1,
    "medium",
    "bug",
    "find_orders returns None when no order matches",
    "Callers iterate over the result; with no match they get None and fail.",
)
NIT = _finding(
    CONSTANT,
    "low",
    "maintainability",
    "PAGE_SIZE could be a setting",
    "A hard-coded page size is hard to change per client; consider reading it from config.",
)

REVIEWS = {
    "gpt-sim": [INJECTION["gpt-sim"], PAGINATION, ROUNDING, NIT],
    "claude-sim": [INJECTION["claude-sim"], PAGINATION_TOO, EMPTY_RESULT],
    "qwen-sim": [INJECTION["qwen-sim"], DISCOUNT_CLAIM],
    "llama-sim": [INJECTION["llama-sim"], DISCOUNT_TOO],
}

# What each judge answers about each claim (by a word of its title). The pagination bug
# is real: its two judges confirm it. The discount claim misreads the code
# (`min(rate, MAX_DISCOUNT)` caps it), and so do the rounding claim (`round` comes last)
# and the empty-result one (`fetchall()` returns a list): their judges refute them, but
# Qwen's, which confirms the rounding claim.
VERDICTS = {
    "gpt-sim": {"page": "confirmed", "discount": "refuted", "none": "refuted"},
    "claude-sim": {"page": "confirmed", "discount": "refuted", "rounding": "refuted"},
    "qwen-sim": {"page": "confirmed", "rounding": "confirmed", "none": "refuted"},
    "llama-sim": {"page": "confirmed", "rounding": "refuted", "none": "refuted"},
}
REASONS = {
    ("page", "confirmed"): "len(orders) // PAGE_SIZE + 1 is 3 for 40 orders: one page too many.",
    ("discount", "refuted"): "min(rate, MAX_DISCOUNT) caps the rate at 0.5 on the line before.",
    ("rounding", "refuted"): "round() is applied to total * (1 - rate), after the rate.",
    ("rounding", "confirmed"): "The rounding may happen too early here.",
    ("none", "refuted"): "fetchall() returns a list, empty when nothing matches.",
}
TOPICS = ("page", "discount", "rounding", "none")

VERIFIER = "You are an independent verifier"
COMPARER = "comparing two findings"


def _verdict(model: str, prompt: str) -> str:
    question = prompt.rsplit("Is the finding", 1)[-1].lower()
    topic = next((t for t in TOPICS if t in question), "")
    verdict = VERDICTS.get(model, {}).get(topic, "uncertain")
    reason = REASONS.get((topic, verdict), "The code shown is not enough to decide.")
    return json.dumps({"verdict": verdict, "reason": reason})


def _sameness(prompt: str) -> str:
    """Two findings at one place are the same defect when their titles and explanations
    (not the code shown with them) name the same topic."""
    question = prompt.split("First finding", 1)[-1].split("The change to this part")[0].lower()
    first, _, second = question.partition("second finding")
    topics = ("sql", "page", "discount", "rounding", "none")
    same = any(t in first and t in second for t in topics)
    reason = "Both describe one defect." if same else "Two different defects."
    return json.dumps({"verdict": "same" if same else "different", "reason": reason})


# The judge that reads the repository before it confirms the pagination bug: it opens the
# file around the claim, then cites the line that shows it.
LOOKER = "llama-sim"
PAGES_TEXT = "return len(orders) // PAGE_SIZE + 1"


def _looked(body: JsonObject, prompt: str) -> Step | None:
    """Llama's tool call, or its verdict citing what it read; None: it answers as the
    others do (no tools offered, or not the pagination claim)."""
    question = prompt.rsplit("Is the finding", 1)[-1].lower()
    if "page" not in question or not body.get("tools"):
        return None
    results = [
        m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "tool"
    ]
    if not results:
        around = {"path": PATH, "start_line": max(1, PAGES - 10), "end_line": PAGES + 5}
        return call_tools(("read_file", around))
    if not any(PAGES_TEXT in str(m.get("content")) for m in results):
        return None
    cited = {"path": PATH, "start_line": PAGES, "end_line": PAGES, "quote": PAGES_TEXT}
    reason = REASONS[("page", "confirmed")]
    return reply(json.dumps({"verdict": "confirmed", "reason": reason, "evidence": [cited]}))


def _panelist(model: str, latency_s: float) -> Responder:
    def answer(body: JsonObject) -> Step:
        prompt = prompt_text(body)
        if VERIFIER in prompt:  # a judge is asked one claim at a time
            looked = _looked(body, prompt) if model == LOOKER else None
            if looked is not None:
                return looked
            return reply(_verdict(model, prompt), delay_s=latency_s)
        if COMPARER in prompt:
            return reply(_sameness(prompt), delay_s=latency_s)
        return reply(json.dumps({"findings": REVIEWS[model]}), delay_s=latency_s)

    return answer


def demo_script(latency_s: float = 0.0) -> Script:
    """The panel's answers: reviews, verdicts and sameness questions, chosen by the prompt."""
    script = Script()
    for model in REVIEWS:
        script.respond(model, _panelist(model, latency_s))
    return script
