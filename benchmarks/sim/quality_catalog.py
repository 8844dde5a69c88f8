"""The kinds of problem the quality simulation plants, and how simulated models word them.

Each kind has the code that has it, the categories models file it under (the first is the
usual one; the others are category drift), a severity, and phrasings in the styles real
models of different vendors use: the class of the problem, its cause, its symptom, its fix,
terse or verbose, quoting the variable or not. Some phrasings name no kind of defect at all
("Admin check can fail in production"), as models often do. "{v}" is the variable.
"""

from __future__ import annotations

from dataclasses import dataclass

from consensus.model.base import Category, Severity

B, S, P, CC, M = (
    Category.BUG,
    Category.SECURITY,
    Category.PERFORMANCE,
    Category.CONCURRENCY,
    Category.MAINTAINABILITY,
)


@dataclass(frozen=True)
class Kind:
    """A kind of problem: the code that has it, categories models file it under, wordings."""

    name: str
    code: str  # "{v}" is the variable
    categories: tuple[Category, ...]  # the first is the usual one
    severity: Severity
    phrasings: tuple[tuple[str, str], ...]  # (title, body); "{v}" is the variable


KINDS: tuple[Kind, ...] = (
    Kind("off-by-one", "    for i in range(len({v}) + 1):", (B,), Severity.HIGH, (
        ("Off-by-one: loop reads past the end of `{v}`",
         "`range(len({v}) + 1)` makes `{v}[i]` raise IndexError on the last iteration."),
        ("Loop bound is one too many",
         "The loop runs len({v}) + 1 times, so the final index does not exist."),
        ("IndexError on the last iteration over {v}",
         "Iterating up to len + 1 touches an element that is not there. Drop the `+ 1`."),
        ("Index out of range in loop over `{v}`",
         "The upper bound includes len({v}), which is not a valid index."),
        ("Fencepost error in the iteration",
         "The range end should be len({v}), not len({v}) + 1; the extra step crashes."),
        ("Every call with a non-empty {v} crashes",
         "The last pass of the loop reads `{v}[len({v})]`."),
        ("Use range(len({v}))", "Drop the `+ 1`."),
    )),
    Kind("none", '    name = {v}.get("name").strip()', (B,), Severity.MEDIUM, (
        ("Possible None dereference on `{v}.get(...)`",
         "`.get()` returns None when the key is missing, and `.strip()` then raises."),
        ("Missing key crashes with AttributeError",
         "If the name is absent, get returns None and calling strip on it fails."),
        ("No None check before calling strip()",
         "The result of `{v}.get` can be None; guard it or give get a default."),
        ("'NoneType' object has no attribute 'strip'",
         "A record of {v} without a name makes this line throw. Pass a default to get."),
        ("Records without a name break the import",
         "One incomplete entry in {v} stops the whole batch."),
        ("Give get() a default", '`{v}.get("name", "")`.'),
    )),
    Kind("sql", '    cur.execute(f"SELECT * FROM users WHERE id = {{{v}}}")', (S, B),
         Severity.CRITICAL, (
        ("SQL query built with f-string allows injection",
         "The query interpolates `{v}` with an f-string; a crafted value changes the query."),
        ("User input interpolated directly into SQL statement",
         "`{v}` comes from the request and is formatted into the SELECT. Bind it instead."),
        ("Possible SQL injection: use parameterized queries",
         "Building SQL from request data is injectable. Use a placeholder for {v}."),
        ("Unsanitized `{v}` concatenated into query string",
         "The value is not escaped before it reaches the database."),
        ("Pass {v} as a query argument",
         "`cur.execute(\"SELECT * FROM users WHERE id = %s\", ({v},))`."),
        ("Request data reaches the database as SQL text",
         "A caller can read or delete any table through `{v}`."),
    )),
    Kind("leak", "    handle = open({v})", (B, M, P), Severity.MEDIUM, (
        ("File handle is never closed",
         "`open({v})` is not closed on every path; use a `with` block."),
        ("Resource leak: file opened without a context manager",
         "The handle for {v} stays open when an exception is raised before close()."),
        ("Leaked file descriptor when parsing fails",
         "If parsing raises, the file opened from {v} is never released."),
        ("Use `with open(...)` so the file is released",
         "Each call leaves one more open file behind; long-running workers run out of them."),
        ("Workers eventually fail with 'too many open files'",
         "Every request for {v} keeps a descriptor."),
    )),
    Kind("race", "    self.{v} += 1", (CC, B), Severity.HIGH, (
        ("Race condition on shared counter `{v}`",
         "Several threads increment `self.{v}` without a lock; updates can be lost."),
        ("Non-atomic increment is not thread-safe",
         "`+=` on a shared attribute is read-modify-write; guard `self.{v}` with a lock."),
        ("Lost updates under concurrent requests",
         "Two workers can read the same {v} and both write the value plus one."),
        ("Unsynchronized access to self.{v}",
         "The counter is mutated from worker threads with no mutex around it."),
        ("Counts come out lower than the number of requests",
         "Under load some of the `self.{v} += 1` steps overwrite each other."),
        ("Protect self.{v} with threading.Lock", "Or use itertools.count."),
    )),
    Kind("divzero", "    average = total / len({v})", (B,), Severity.MEDIUM, (
        ("Division by zero when `{v}` is empty",
         "`len({v})` is 0 for an empty list, so computing the average crashes."),
        ("ZeroDivisionError on empty input",
         "Nothing guards the empty case before dividing by the length of {v}."),
        ("Average of an empty list crashes",
         "Return early (or 0) when {v} has no elements."),
        ("Unchecked zero denominator len({v})",
         "The divisor can be zero; the request fails with a 500."),
        ("Return 0 when there is nothing to average", "Check `if not {v}` first."),
    )),
    Kind("swallow", "    except Exception: pass  # {v}", (M, B), Severity.LOW, (
        ("Exception silently swallowed",
         "`except Exception: pass` hides failures while handling {v}; log or re-raise."),
        ("Broad except hides errors",
         "Catching every exception here masks real bugs in the {v} handling."),
        ("Errors from {v} are ignored",
         "Failures vanish without a trace, which makes debugging very hard."),
        ("Catch-all handler discards the exception",
         "At least log the error; better, catch only what you expect from {v}."),
        ("Log the exception instead of passing", "`logger.exception(...)` keeps the trace."),
    )),
    Kind("n+1", "    for u in {v}: orders.append(db.query(Order).filter_by(user=u).all())",
         (P, B), Severity.MEDIUM, (
        ("N+1 queries in loop over `{v}`",
         "One query per element of {v}; fetch all orders in one query with IN."),
        ("Database query inside a loop",
         "Each iteration over {v} hits the database; batch the lookups."),
        ("One SELECT per user will not scale",
         "For large {v} this issues thousands of round-trips; prefetch the orders."),
        ("Slow: per-item query in `{v}` loop",
         "Move the query out of the loop and group the orders by user in memory."),
        ("Page load grows with the number of users",
         "Fetch the orders of all of {v} at once."),
    )),
    Kind("mutable-default", "def add_item(item, {v}=[]):", (B, M), Severity.MEDIUM, (
        ("Mutable default argument `{v}=[]`",
         "The list is shared between calls; default to None and create it inside."),
        ("Default list is shared across calls",
         "Items appended to {v} in one call show up in the next one."),
        ("State leaks between invocations through default {v}",
         "Python evaluates the default once; every caller mutates the same list."),
        ("Use None instead of [] as the default for {v}",
         "A mutable default keeps its contents from one call to the next."),
        ("Items from one cart appear in the next", "add_item without {v} keeps old items."),
    )),
    Kind("await", "    {v} = fetch_user(uid)", (B,), Severity.HIGH, (
        ("Coroutine `fetch_user` is never awaited",
         "`{v}` receives a coroutine object, not the user; add `await`."),
        ("Missing await on async call",
         "fetch_user is async; without await, {v} holds a coroutine."),
        ("{v} is a coroutine, not a result",
         "The async function is called but not awaited, so the value is never computed."),
        ("Async function called without await",
         "This triggers a RuntimeWarning and {v} is unusable downstream."),
        ("{v} never holds the user", "Everything after this line reads attributes of nothing."),
    )),
    Kind("traversal", "    path = os.path.join(UPLOAD_DIR, {v})", (S, B), Severity.HIGH, (
        ("Path traversal via user-supplied `{v}`",
         "A name like ../../etc/passwd escapes UPLOAD_DIR."),
        ("Unvalidated filename joined into upload path",
         "`{v}` comes from the request; resolve it and check it stays inside the directory."),
        ("Directory traversal in file download",
         "os.path.join with an untrusted {v} allows ../ sequences."),
        ("Attacker can read arbitrary files",
         "The request controls {v}, which is used as a path without validation."),
        ("Check that the joined path stays under UPLOAD_DIR", "Resolve it first."),
    )),
    Kind("secret", '    {v} = "sk_live_51HxQ2eZvKYlo2C"', (S,), Severity.HIGH, (
        ("Hard-coded credential in source",
         "`{v}` holds a live key; load it from the environment instead."),
        ("Secret committed to the repository",
         "Anyone with read access to the repo can use {v}. Rotate it."),
        ("API key should come from configuration",
         "Do not keep {v} in code; read it from a secret store."),
        ("Live token exposed in code",
         "The literal assigned to {v} looks like a production key."),
        ("Read {v} from the environment", "`os.environ[...]`, and rotate this one."),
    )),
    Kind("timeout", "    resp = requests.get({v})", (B, P), Severity.MEDIUM, (
        ("HTTP request without timeout",
         "`requests.get({v})` can hang forever; pass `timeout=`."),
        ("Call may block forever",
         "With no timeout, a stalled server blocks this worker indefinitely."),
        ("No timeout on outbound request to {v}",
         "Set a timeout so slow upstreams do not exhaust the worker pool."),
        ("Worker hangs if the remote server stalls",
         "requests has no default timeout; add one to the call on {v}."),
        ("Pass timeout= to requests.get", "Ten seconds is plenty for {v}."),
    )),
    Kind("is-literal", '    if {v} is "admin":', (B,), Severity.LOW, (
        ("Identity comparison with a string literal",
         "`is` compares identity; use `==` to compare `{v}`."),
        ("`is` used instead of `==`",
         "The check on {v} depends on string interning and can fail."),
        ("String compared with is, not ==",
         "Python warns about this (SyntaxWarning); the result for {v} is unreliable."),
        ("Role check may fail: is vs ==",
         "Interned strings make the {v} check pass in tests and fail in production."),
        ("Admin check can fail in production", "Compare {v} with `==`."),
    )),
    Kind("timing", "    if signature == {v}:", (S, B), Severity.HIGH, (
        ("Signature compared with ==, which leaks timing",
         "`signature == {v}` returns at the first differing byte; the response time leaks "
         "how much matched."),
        ("Use hmac.compare_digest for the MAC check",
         "Replace the equality check with `hmac.compare_digest(signature, {v})`."),
        ("Timing attack on webhook signature check",
         "A non-constant-time comparison lets an attacker forge {v} byte by byte."),
        ("Webhook signatures can be forged",
         "Comparing `signature` and `{v}` with `==` is not safe for secrets."),
    )),
)  # fmt: skip

# Kinds three models may wrongly agree on at high severity (a plausible, severe, wrong claim).
SEVERE = ("off-by-one", "sql", "race", "await", "traversal", "timing")

VARIABLES = (
    *("ids", "items", "rows", "user_id", "records", "payload", "users", "entries"),
    *("request_id", "filename", "count", "url", "api_key", "batch", "role", "config"),
)
