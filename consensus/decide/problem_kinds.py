"""The kinds of defect a finding names, read from its words: how align tells one problem
described twice from two problems at one place.

Models name one defect in many ways: by its class ("SQL injection"), its cause ("query
built with an f-string"), its symptom ("IndexError on the last iteration") or its fix ("use
a placeholder", "use hmac.compare_digest"). `KIND_WORDS` groups those words by the defect
they name; the patterns are matched in lowercased text.

A finding's *headline* kinds are those its title names, else those its body names (the
title says what the problem is; a body also mentions causes, fixes and neighbours). Two
findings *clearly name different defects* (`different_defects`) when both have headline
kinds, no headline kind of one is a headline kind of the other or `RELATED_KINDS` to one,
and neither finding's whole text mentions a headline kind of the other. Findings that name
no kind at all are never clearly different: their words decide (align.py). Apart from the
words, a remark and a defect (`same_kind`) are different kinds of problem.
"""

from __future__ import annotations

import re
from functools import lru_cache

from consensus.model.base import Category

# Remarks on how code is written, tested or documented, as against defects in what it does.
REMARKS = frozenset({Category.MAINTAINABILITY, Category.DOCS, Category.TEST})


def same_kind(a: Category, b: Category) -> bool:
    """Are two categories one kind of problem? A remark (maintainability, docs, test) and a
    defect (bug, security, concurrency, performance, api) are two kinds, even where models
    file one problem under both: only a "same problem?" answer makes them one finding."""
    return (a in REMARKS) == (b in REMARKS)


KIND_WORDS: dict[str, str] = {
    "injection": r"inject|sqli\b|interpolat|concatenat|parametri[sz]|parameteri[sz]"
    r"|placeholder|bind (?:it|the|them|parameters?|values?)|unsaniti[sz]|unescaped|f-?strings?\b"
    r"|string format|prepared statement|shell=true|template (?:string|literal)"
    r"|argument (?:list|array)|passed to (?:a|the) shell",
    "xss": r"\bxss\b|cross[- ]site script|innerhtml|mark_safe|dangerouslysetinnerhtml"
    r"|textcontent|dompurify|unescaped html|into the dom|as html",
    "traversal": r"travers|\.\./|zip ?slip|safe_join|arbitrary file|escapes? the \w+ dir"
    r"|outside the \w+ dir",
    "secret": r"secret|credential|api[ _-]?key|access key|private key|hard-?coded (?:token|key)"
    r"|(?:live|production) (?:key|token)|committed (?:key|token)|plain ?text password"
    r"|(?:written|sent|ends? up) (?:to|in) (?:the )?(?:logs?|access logs)|\blogged\b"
    r"|sensitive (?:data|information)|\bpii\b|personal data|in the (?:query string|url)",
    "null": r"\bnull\b|nonetype|\bnil\b|dereferenc|attributeerror|undefined|nullpointer"
    r"|\bnpe\b|(?:is|be|returns?|of|on|yields?) none\b|none (?:check|value|is returned)"
    r"|keyerror|when the (?:header|key|field) is (?:missing|absent)|no row",
    "deadlock": r"deadlock|lock order|(?:opposite|inconsistent|fixed) order",
    "race": r"\bracy?\b|race condition|concurren|thread|\block(?:s|ed|ing)?\b|mutex|atomic"
    r"|synchroni[sz]|toctou|interleav|simultaneous|read-modify-write|lost (?:updates?|increments?)"
    r"|check-then-(?:act|set)|between the (?:existence )?check",
    "leak": r"leak|\bclos(?:e|ed|es|ing)\b|unclosed|releas|not freed|context manager|cleanup"
    r"|dispos|file handle|descriptor|open files|(?:keeps?|stays?|left|remains?) (?:\w+ ){0,2}open"
    r"|unbounded|without (?:a )?(?:bound|limit)|never evict|grows? (?:without|forever|with every)"
    r"|memory grows|\bgrowth\b|never deleted|not (?:deleted|removed)|left behind|accumulat",
    "memory": r"into memory|in memory|buffer(?:s|ed)? the (?:whole|entire)|\boom\b"
    r"|out of memory|\bstream (?:it|the)",
    "bounds": r"off[- ]by[- ]one|out of (?:range|bounds)|index ?error|boundary|fencepost"
    r"|range end|past (?:the )?end|\bbounds?\b|inclusive|exclusive|should be (?:>=|<=)"
    r"|one (?:time )?too (?:many|few)|skips? the (?:first|last)|last iteration|one past"
    r"|(?:page|offset|index) - 1",
    "overflow": r"overflow|wraps? around|truncat",
    "divzero": r"divi(?:de|sion|ding) by zero|zerodivision|divide-by-zero|zero denominator"
    r"|divisor",
    "intdiv": r"integer division|floor division|//",
    "float": r"floating[- ]point|\bfloats?\b|\bdecimal\b|isclose|rounding error|tolerance",
    "errors": r"bare except|except:|swallow|silently|catch(?:es)? (?:all|every)|broad except"
    r"|unhandled|specific exceptions|(?:errors?|exceptions?|failures?|status|return (?:value|code))"
    r"\b(?: \S+){0,4} (?:is|are|goes|go) (?:ignored|dropped|discarded|unnoticed|not checked)"
    r"|ignor(?:es|ed|ing) (?:the )?(?:errors?|exceptions?|failures?)|unchecked (?:return|error)"
    r"|hides? (?:every|all|real|the)? ?(?:errors?|failures?|bugs)|go unnoticed",
    "perf": r"quadratic|o\(n\^?2\)|o\(n²\)|o\(n\)|n\+1|inefficien|(?:in|inside) (?:a|the) loop"
    r"|\bslow\b|per[- ](?:row|item|document|element)|one (?:query|select) per|membership"
    r"|use a set|round-?trips",
    "mutable_default": r"mutable default|default (?:argument|list|dict)|shared (?:list|dict)"
    r"|as the default|=\[\]|\[\] as|between (?:calls|invocations)|shared across calls"
    r"|earlier calls",
    "timeout": r"timeout|time out|hangs?\b|hang (?:the|forever)|blocks forever"
    r"|waits? (?:indefinitely|forever)|\bstuck\b",
    "blocking": r"event loop|blocking (?:call|i/o|sleep)|blocks? the (?:loop|thread)"
    r"|synchronous sleep|time\.sleep|asyncio\.sleep|\bstall",
    "docs": r"docstring|typo|misspel|outdated (?:doc|comment)|documented|\bdocs? (?:say|claim)",
    "unused": r"dead code|unused|unreachable|never used|never (?:runs|executes|reached)"
    r"|after (?:the )?return",
    "await": r"await|coroutine|promise",
    "transaction": r"roll(?:ed|s)? ?back|transaction|commit(?:ted)? (?:separately|together)"
    r"|autocommit|partial (?:update|write)",
    "encoding": r"encoding|utf-?8|unicode|charset|codec",
    "shadowing": r"shadow",
    "magic": r"magic (?:number|string|value)|hard-?coded (?:number|value|constant)"
    r"|named constant",
    "complexity": r"too (?:long|complex)|complexity|god (?:class|function|object)|nested",
    "compat": r"breaking|backward[- ]?(?:s[- ])?incompatib|breaks (?:existing )?callers"
    r"|deprecat|signature change|signature of|renamed",
    "timing": r"timing|constant[- ]time|compare_digest|short-circuit",
    "tls": r"\btls\b|\bssl\b|certificate|verify=false|man-in-the-middle|\bmitm\b",
    "authz": r"authori[sz]|permission|\bidor\b|access control|ownership|owner_?id|privilege"
    r"|any (?:logged-in )?user can|non-?admins?|bypass",
    "authn": r"authenticat|\bjwt\b|forged?|signature (?:is )?(?:not |never )?(?:verif|check)"
    r"|verify_signature",
    "random": r"predictable|\brandom\b|randint|cryptographically|\bsecrets\.|mersenne|\bprng\b",
    "weak_hash": r"\bmd5\b|\bsha-?1\b|bcrypt|argon2?|scrypt|pbkdf|weak hash|unsalted",
    "deserialize": r"pickle|unpickl|deserializ|yaml\.load|safe_load|unmarshal|remote code exec"
    r"|\brce\b|construct arbitrary",
    "timezone": r"timezone|time zone|naive (?:datetime|local)|\butc\b|local time|tz-aware",
    "redos": r"redos|catastrophic backtracking|nested quantifier|exponential",
    "cors": r"\bcors\b|access-control-allow|allow-credentials|allow-origin|\borigin\b",
    "csrf": r"csrf|cross-site request",
    "redirect": r"redirect",
    "ssrf": r"\bssrf\b|server-side request|internal (?:services?|network)|169\.254|metadata"
    r"|private and link-local",
    "ratelimit": r"rate[- ]?limit|brute[- ]?forc|throttl|unlimited (?:login )?attempts|lockout"
    r"|attempt limit",
    "cookie": r"cookie|httponly|samesite",
    "expiry": r"\bttl\b|expir|\bexp claim|lifetime|max_age|max-age",
    "equality": r"loose equality|===|type coercion|\bcoerc|identity|\bis\b` (?:with|used)"
    r"|`is` (?:comparison|used)|\bis\b comparison|equals\(\)|compare[sd]? references",
    "flow": r"fall ?through|missing (?:break|return)|keeps? running after|continues after"
    r"|execution continues|falls? into",
    "closure": r"late[- ]binding|captur|closure",
    "stale": r"stale|dependency array|missing (?:the )?\w+ dependency|as a dependency",
    "flaky": r"flak(?:y|iness)|nondeterministic|intermittent|sleep-based",
    "root": r"runs? as root|non-root|privileged|\buser\b instruction",
    "backoff": r"backoff|back off|tight (?:retry )?loop|hammer",
    "precedence": r"precedence|parenthes",
    "unpinned": r"not pinned|unpinned|mutable tag|pin (?:the|it)",
    "input": r"valueerror|non-numeric|malformed|invalid (?:input|payload|json|value)|decodeerror"
    r"|not validated|no validation|without validation|unvalidated|validate (?:the )?(?:input|type)"
    r"|(?:are|is) accepted|accepts? (?:any|negative)",
    "dos": r"denial of service|\bdos\b|exhaust|no (?:maximum|upper bound|cap)|clamp"
    r"|max(?:imum)? (?:length|size)|arbitrarily large|million rows",
    "calculation": r"weighted|wrong formula|by itself|uses? `?\w+`? twice|squared"
    r"|instead of `?\w+`? (?:was|is) intended|wrong (?:variable|field|unit)",
    "ordering": r"order by|\bsort(?:ed|ing|s)?\b|in any order",
    "sequence": r"acknowledg|before it is (?:processed|saved|written|committed)"
    r"|before the \w+ (?:write|call|save) (?:completes|finishes)|too early|prematurely",
    "init": r"uninitiali[sz]|before it is initiali[sz]|not initiali[sz]|garbage",
    "aliasing": r"\balias|backing array|overwrites? the (?:first|previous|caller)",
    "audit": r"audit|not (?:written to|recorded in) the \w* ?log",
    "encryption": r"encrypt",
    "public": r"public(?:ly)? (?:read|readable|access)|world-readable|\bacl\b",
    "typing": r"type (?:annotation|hint)|annotation|\bmypy\b",
    "busy": r"busy[- ]wait|\bspins?\b|burns? (?:a |the )?(?:full )?(?:cpu|core)",
    "assertion": r"asserts? nothing|no assert|missing assert|does not assert|assertion",
    "dataloss": r"orphan|not reassigned|dangling|disappear|(?:is|are|gets?) lost\b",
}
KINDS = tuple((kind, re.compile(words)) for kind, words in KIND_WORDS.items())
_CODE_SPAN = re.compile(r"`[^`]*`")

# Kinds that one problem is often described by from its two ends: the cause one model names
# and the effect another names.
RELATED_KINDS: frozenset[frozenset[str]] = frozenset(
    frozenset(pair)
    for pair in (
        ("deadlock", "race"),
        ("deadlock", "timeout"),
        ("leak", "timeout"),
        ("leak", "memory"),
        ("shadowing", "errors"),
        ("blocking", "timeout"),
        ("null", "errors"),
        ("secret", "authn"),
        ("timing", "authn"),
        ("random", "secret"),
        ("injection", "xss"),
        ("xss", "input"),
        ("injection", "input"),
        ("traversal", "input"),
        ("null", "input"),
        ("unused", "leak"),
        ("await", "sequence"),
        ("expiry", "leak"),
        ("flaky", "blocking"),
    )
)


@lru_cache(maxsize=65_536)
def kinds(text: str) -> frozenset[str]:
    """The kinds of defect `text` (lowercased) names."""
    return frozenset(kind for kind, pattern in KINDS if pattern.search(text))


def headline_kinds(title: str, body: str) -> frozenset[str]:
    """The kinds the title names, else those the body names (both lowercased)."""
    return kinds(title) or kinds(body)


def mentioned_kinds(title: str, body: str) -> frozenset[str]:
    """The headline kinds, and the kinds the prose of title and body names: words in code
    spans name a subject or a fix (`expires_at`, `await asyncio.sleep`), not a defect."""
    prose = _CODE_SPAN.sub(" ", f"{title}\n{body}")
    return headline_kinds(title, body) | kinds(prose)


def related_kinds(a: frozenset[str], b: frozenset[str]) -> bool:
    """Do two sets of kinds share one, or hold a related pair?"""
    return bool(a & b) or any(frozenset((x, y)) in RELATED_KINDS for x in a for y in b)


def different_defects(
    head_a: frozenset[str], all_a: frozenset[str], head_b: frozenset[str], all_b: frozenset[str]
) -> bool:
    """Do two findings clearly name different defects? See the module docstring."""
    if not head_a or not head_b or related_kinds(head_a, head_b):
        return False
    return not (head_a & all_b or head_b & all_a)
