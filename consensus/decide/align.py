"""ALIGN: findings from every (provider, persona) review → clusters, one per problem.

Two findings may describe the same problem when all of these hold:

- same path;
- line ranges overlap or lie within LINE_WINDOW (3) lines of each other;
- compatible categories: identical, or a pair in COMPATIBLE_CATEGORIES;
- different (provider, persona) review: a model that lists two findings means two problems
  (cannot-link); the same provider under another persona may merge.

Their similarity (`similarity`, 0…1) is fast string comparison, no model involved:

- words: content words of title + body (lowercased, stopwords out, light suffix stemming),
  half set cosine, half the best containment of one title's words in the other's text;
- title: Dice coefficient of character trigrams of the two titles;
- code: Jaccard of identifiers in `backticks` and evidence (split at "_" too);
  mixed 0.45 words + 0.2 title + 0.35 code when both quote code, else 0.65 words + 0.35
  title; sharing no identifier at all multiplies the result by CODE_PENALTY (0.7);
- kind: the kinds of problem each names (injection, null, race, leak, bounds, divzero …:
  the lexicon in `_KIND_WORDS`, read from the title, else the body). A shared kind adds
  KIND_BONUS (0.25); both naming kinds but none shared multiplies by KIND_PENALTY (0.3),
  so "SQL injection" and "connection never closed" on one line stay two.

MERGE_THRESHOLD (0.30) sits in the middle of the range that separated every paraphrase
from every different problem in the labelled examples the weights were tuned on.

Clustering is average-linkage agglomerative within each path, comparing only pairs in the
line window (a pair outside it counts as similarity 0), merging while the best average
reaches MERGE_THRESHOLD and no review appears on both sides. Findings are sorted
canonically first and every tie is broken by that order, so any input order gives the same
clusters.

Representative fields of a cluster (the stated rule):

- line, end_line: the lower median of members' `line`, of members' `end_line`
  (end_line at least line);
- severity: the most common among members, ties to the more severe;
- category: the most common, ties in `Category` declaration order;
- title, body: the medoid member's, the one whose summed similarity to the others is
  highest; ties to the first in canonical order (path, line, end_line, family, provider …);
- fingerprint: see consensus.decide.fingerprint, over the code from `anchor_text`, else the
  lowercased title; repeats in the returned order get -2, -3 ….

The returned list is ordered by path, line, title.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from consensus.decide.fingerprint import disambiguate, fingerprint, normalize_anchor
from consensus.model.base import Category
from consensus.model.findings import Cluster, Finding

LINE_WINDOW = 3
MERGE_THRESHOLD = 0.30
SPLIT_THRESHOLD = 0.15  # second pass: pieces of one problem left apart by the first
KIND_BONUS = 0.25
KIND_PENALTY = 0.3
CODE_PENALTY = 0.7

AnchorText = Callable[[str, int, int], str]

# Pairs models often file differently for one problem: a race is a bug to one and
# concurrency to another; an injection is a bug or security; a bare except is a bug or
# maintainability. Docs and security, say, never describe one problem.
COMPATIBLE_CATEGORIES: frozenset[frozenset[Category]] = frozenset(
    frozenset(pair)
    for pair in (
        (Category.BUG, Category.SECURITY),
        (Category.BUG, Category.CONCURRENCY),
        (Category.BUG, Category.PERFORMANCE),
        (Category.BUG, Category.API),
        (Category.BUG, Category.TEST),
        (Category.BUG, Category.MAINTAINABILITY),
        (Category.SECURITY, Category.CONCURRENCY),
        (Category.PERFORMANCE, Category.MAINTAINABILITY),
        (Category.PERFORMANCE, Category.CONCURRENCY),
        (Category.MAINTAINABILITY, Category.API),
        (Category.MAINTAINABILITY, Category.TEST),
        (Category.MAINTAINABILITY, Category.DOCS),
        (Category.API, Category.DOCS),
    )
)

# Kinds of problem, matched in lowercased text. Different models name one problem with
# different words; these are the words, grouped by the problem they name.
_KIND_WORDS = {
    "injection": r"inject|sqli\b|interpolat|concatenat|parametri[sz]|parameteri[sz]|unsaniti[sz]"
    r"|unescaped|f-?strings?\b|string format|prepared statement|shell=true",
    "xss": r"\bxss\b|cross[- ]site script|innerhtml|mark_safe",
    "traversal": r"travers|\.\./|zip ?slip",
    "secret": r"secret|credential|password|api[ _-]?key|private key|\btokens?\b"
    r"|hard-?coded (?:token|key)",
    # "None" alone is not enough: "use None as the default" names another problem.
    "null": r"\bnull\b|nonetype|\bnil\b|dereferenc|attributeerror|undefined"
    r"|(?:is|be|returns?|of|on) none\b|none (?:check|value|is returned)",
    "deadlock": r"deadlock|lock order",
    "race": r"\bracy?\b|race condition|concurren|thread|\block(?:s|ed|ing)?\b|mutex|atomic"
    r"|synchroni[sz]|toctou|interleav|simultaneous",
    "leak": r"leak|\bclos(?:e|ed|es|ing)\b|unclosed|releas|not freed|context manager|cleanup"
    r"|dispos|file handle|resource",
    "bounds": r"off[- ]by[- ]one|out of (?:range|bounds)|index ?error|boundary|fencepost"
    r"|range end|past (?:the )?end|\bbounds?\b",
    "overflow": r"overflow|wraps? around|truncat",
    "divzero": r"divi(?:de|sion|ding) by zero|zerodivision|divide-by-zero|zero denominator",
    "errors": r"bare except|except:|swallow|silently|catch(?:es)? all|broad except|unhandled"
    r"|(?:exceptions?|errors?)\b(?: \w+){0,3} (?:is|are) ignored|ignor(?:es|ed|ing) (?:the )?"
    r"(?:errors?|exceptions?)|unchecked return",
    "perf": r"quadratic|o\(n\^?2\)|o\(n²\)|n\+1|inefficien|(?:in|inside) (?:a|the) loop|slow",
    "mutable_default": r"mutable default|default (?:argument|list|dict)|shared (?:list|dict)"
    r"|as the default|=\[\]|\[\] as|between (?:calls|invocations)|shared across calls",
    "timeout": r"timeout|time out|hangs?\b|blocks forever",
    "docs": r"docstring|typo|misspel|outdated (?:doc|comment)",
    "unused": r"dead code|unused|unreachable|never used",
    "await": r"await|coroutine",
    "rollback": r"roll(?:ed|s)? ?back",
    "encoding": r"encoding|utf-?8|unicode|charset",
    "shadowing": r"shadow",
    "magic": r"magic (?:number|string|value)|hard-?coded (?:number|value|constant)"
    r"|named constant",
    "complexity": r"too (?:long|complex)|complexity|god (?:class|function|object)|nested",
    "compat": r"breaking|backward[- ]?(?:s[- ])?incompatib|breaks (?:existing )?callers"
    r"|deprecat|signature change",
}
_KINDS = tuple((kind, re.compile(words)) for kind, words in _KIND_WORDS.items())

# Function words, and words every review uses whatever the problem is.
_STOPWORD_TEXT = """
a about above after again all also an and any are as at be because been before being below
between both but by can cannot could did do does doing done during each either else even every
for from further had has have having here how however if in instead into is it its itself just
let may might more most must need needs no nor not now of off on once only or other otherwise
our out over own same should since so some still such than that the their them then there these
they this those through thus to too under until up upon use used uses using very via was we were
what when where whether which while who why will with within without would yet you your
add call called calls case check code consider currently directly ensure fix function issue
likely line lines make method potential potentially possible possibly problem risk sure value
variable
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_CODE_STOPWORD_TEXT = "self cls def return if else elif for in not and or is none true false"
_CODE_STOPWORDS = frozenset(_CODE_STOPWORD_TEXT.split())
_WORD = re.compile(r"[a-z][a-z0-9]+")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]+")
_BACKTICKED = re.compile(r"`([^`]+)`")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
# Longest first; one suffix at most ("light" stemming: plural/tense/-ion variants meet).
_SUFFIXES = ("ings", "ions", "ing", "ion", "ies", "ied", "ers", "ed", "es", "er", "ly", "s")


@lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith("ss"):
                break
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


def _kinds(text: str) -> frozenset[str]:
    return frozenset(kind for kind, pattern in _KINDS if pattern.search(text))


@dataclass(frozen=True, slots=True)
class _Features:
    """What similarity compares, computed once per finding."""

    title_words: frozenset[str]
    words: frozenset[str]
    grams: frozenset[str]
    code: frozenset[str]
    kinds: frozenset[str]
    review: tuple[str, str]


def _features(finding: Finding) -> _Features:
    title = finding.title.lower()
    title_words = _content_words(title)
    flat = " " + " ".join(_NOT_ALNUM.sub(" ", title).split()) + " "
    code_text = " ".join(_BACKTICKED.findall(f"{finding.title}\n{finding.body}"))
    code: set[str] = set()
    for ident in _IDENT.findall(f"{code_text} {finding.evidence or ''}".lower()):
        # `user_id` also matches a plain "user id" or `request.user` in another finding.
        code.update(part for part in (ident, *ident.split("_")) if len(part) > 1)
    # The title names the problem; the body only when the title names no kind.
    kinds = _kinds(title) or _kinds(finding.body.lower())
    return _Features(
        title_words=title_words,
        words=title_words | _content_words(finding.body.lower()),
        grams=frozenset(flat[i : i + 3] for i in range(len(flat) - 2)),
        code=frozenset(code - _CODE_STOPWORDS),
        kinds=kinds,
        review=(finding.provider, finding.persona),
    )


def _content_words(text: str) -> frozenset[str]:
    return frozenset(_stem(word) for word in _WORD.findall(text) if word not in _STOPWORDS)


def _compatible(a: Category, b: Category) -> bool:
    return a is b or frozenset((a, b)) in COMPATIBLE_CATEGORIES


def similarity(a: Finding, b: Finding) -> float:
    """How likely a and b describe the same problem, 0…1, ignoring path and lines."""
    if not _compatible(a.category, b.category):
        return 0.0
    return _similarity(_features(a), _features(b))


def _similarity(a: _Features, b: _Features) -> float:
    # A short title whose words all recur in the other finding is a paraphrase even when
    # the bodies dilute the overall overlap.
    contained = max(_contained(a.title_words, b.words), _contained(b.title_words, a.words))
    words = 0.5 * _cosine(a.words, b.words) + 0.5 * contained
    grams = 2 * len(a.grams & b.grams) / (len(a.grams) + len(b.grams) or 1)
    subject = 1.0
    if a.code and b.code:
        # The same identifiers (evidence, `code`) are a strong sign; none shared, a strong
        # sign of another subject, even for the same kind of problem.
        shared = len(a.code & b.code)
        value = 0.45 * words + 0.2 * grams + 0.35 * shared / len(a.code | b.code)
        subject = 1.0 if shared else CODE_PENALTY
    else:
        value = 0.65 * words + 0.35 * grams
    if a.kinds and b.kinds:
        value = min(1.0, value + KIND_BONUS) if a.kinds & b.kinds else value * KIND_PENALTY
    return value * subject


def _cosine(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0


def _contained(part: frozenset[str], whole: frozenset[str]) -> float:
    return len(part & whole) / len(part) if part else 0.0


def _end(finding: Finding) -> int:
    return max(finding.line, finding.end_line)


def _near(a: Finding, b: Finding) -> bool:
    """Line ranges overlap or are at most LINE_WINDOW lines apart."""
    return max(a.line, b.line) - min(_end(a), _end(b)) <= LINE_WINDOW


def _canonical_key(f: Finding) -> tuple[object, ...]:
    return (
        f.path, f.line, f.end_line, f.family, f.provider, f.persona, f.chunk,
        f.category.value, -f.severity.rank, f.title, f.body, f.evidence or "",
        -1.0 if f.confidence is None else f.confidence,
    )  # fmt: skip


def align(findings: Sequence[Finding], anchor_text: AnchorText | None = None) -> list[Cluster]:
    """Cluster findings that describe the same problem; see the module docstring for rules.

    `anchor_text(path, line, end_line)` returns the code at a cluster's lines for its
    fingerprint; without it (or when it returns only whitespace) the title stands in.
    """
    ordered = sorted(findings, key=_canonical_key)
    features = [_features(f) for f in ordered]
    clusters: list[tuple[Cluster, int]] = []  # with the canonical index of the first member
    start = 0
    while start < len(ordered):
        stop = start
        while stop < len(ordered) and ordered[stop].path == ordered[start].path:
            stop += 1
        sims = _pair_similarities(ordered, features, start, stop)
        groups = _agglomerate(range(start, stop), sims, features)
        for group in _join_split_pieces(groups, ordered, features, sims):
            clusters.append((_cluster(ordered, group, sims, anchor_text), group[0]))
        start = stop
    clusters.sort(key=lambda item: (item[0].path, item[0].line, item[0].title, item[1]))
    prints = disambiguate([cluster.fingerprint for cluster, _ in clusters])
    return [
        cluster.model_copy(update={"fingerprint": print_})
        for (cluster, _), print_ in zip(clusters, prints, strict=True)
    ]


def _pair_similarities(
    ordered: Sequence[Finding], features: Sequence[_Features], start: int, stop: int
) -> dict[tuple[int, int], float]:
    """Similarity of every mergeable pair in the line window of one path (sorted by line)."""
    sims: dict[tuple[int, int], float] = {}
    for i in range(start, stop):
        a = ordered[i]
        for j in range(i + 1, stop):
            b = ordered[j]
            if b.line > _end(a) + LINE_WINDOW:
                break  # sorted by line: every later finding starts further away
            if features[i].review == features[j].review:
                continue  # never in one cluster: no need to know how alike they are
            if _near(a, b) and _compatible(a.category, b.category):
                value = _similarity(features[i], features[j])
                if value > 0.0:
                    sims[i, j] = value
    return sims


def _agglomerate(
    indexes: range, sims: dict[tuple[int, int], float], features: Sequence[_Features]
) -> list[tuple[int, ...]]:
    """Average-linkage clustering with cannot-link on reviews; clusters named by least index."""
    members = {i: [i] for i in indexes}
    reviews = {i: {features[i].review} for i in indexes}
    version = dict.fromkeys(indexes, 0)
    links: dict[int, dict[int, float]] = defaultdict(dict)  # summed pair similarity
    for (i, j), value in sims.items():
        links[i][j] = links[j][i] = value
    # Best average first; equal averages by least indexes, so ties never depend on input order.
    heap = [(-v, i, j, 0, 0) for (i, j), v in sims.items() if v >= MERGE_THRESHOLD]
    heapq.heapify(heap)
    while heap:
        _, a, b, version_a, version_b = heapq.heappop(heap)
        if version.get(a) != version_a or version.get(b) != version_b:
            continue  # stale: one side merged since this entry was pushed
        if reviews[a] & reviews[b]:
            continue
        members[a] += members.pop(b)
        reviews[a] |= reviews.pop(b)
        version[a] += 1
        del version[b]
        merged = links[a]
        merged.pop(b, None)
        for c, value in links.pop(b).items():
            if c != a:
                merged[c] = merged.get(c, 0.0) + value
                links[c][a] = merged[c]
                del links[c][b]
        for c, total in merged.items():
            average = total / (len(members[a]) * len(members[c]))
            if average >= MERGE_THRESHOLD and not reviews[a] & reviews[c]:
                lo, hi = min(a, c), max(a, c)
                heapq.heappush(heap, (-average, lo, hi, version[lo], version[hi]))
    return [tuple(sorted(group)) for _, group in sorted(members.items())]


def _join_split_pieces(
    groups: list[tuple[int, ...]],
    ordered: Sequence[Finding],
    features: Sequence[_Features],
    sims: dict[tuple[int, int], float],
) -> list[tuple[int, ...]]:
    """Second pass: join clusters that are pieces of one problem the first pass split.

    Paraphrases can score below MERGE_THRESHOLD ("attacker can read arbitrary files" and
    "path traversal in download"), which would post one problem twice. Two clusters are
    joined when they lie within LINE_WINDOW, come from disjoint provider families (the
    pieces of one problem come from different reviewers, while two problems at one place
    usually share one that reported both), have compatible categories, no two members name
    different kinds of problem, and their average similarity reaches SPLIT_THRESHOLD.
    Best pair first, ties by least index: deterministic.
    """
    pieces = [list(group) for group in groups]
    while True:
        best: tuple[float, int, int] | None = None
        for x in range(len(pieces)):
            for y in range(x + 1, len(pieces)):
                value = _piece_similarity(pieces[x], pieces[y], ordered, features, sims)
                if value >= SPLIT_THRESHOLD and (best is None or value > best[0]):
                    best = (value, x, y)
        if best is None:
            return [tuple(sorted(piece)) for piece in sorted(pieces, key=min)]
        _, x, y = best
        pieces[x] += pieces.pop(y)


def _piece_similarity(
    a: list[int],
    b: list[int],
    ordered: Sequence[Finding],
    features: Sequence[_Features],
    sims: dict[tuple[int, int], float],
) -> float:
    first, second = [ordered[i] for i in a], [ordered[i] for i in b]
    gap = max(min(f.line for f in first), min(f.line for f in second)) - min(
        max(_end(f) for f in first), max(_end(f) for f in second)
    )
    if gap > LINE_WINDOW:
        return 0.0
    if {f.family for f in first} & {f.family for f in second}:
        return 0.0
    if not all(_compatible(f.category, g.category) for f in first for g in second):
        return 0.0
    for i in a:
        for j in b:
            x, y = features[i].kinds, features[j].kinds
            if x and y and not x & y:
                return 0.0  # any two members naming different problems: not one problem
    total = sum(sims.get((min(i, j), max(i, j)), 0.0) for i in a for j in b)
    return total / (len(a) * len(b))


def _cluster(
    ordered: Sequence[Finding],
    group: tuple[int, ...],
    sims: dict[tuple[int, int], float],
    anchor_text: AnchorText | None,
) -> Cluster:
    """A cluster with its representative fields; its fingerprint is not yet unique."""
    found = tuple(ordered[i] for i in group)
    line = _lower_median([f.line for f in found])
    end_line = max(line, _lower_median([f.end_line for f in found]))
    severities = Counter(f.severity for f in found)
    categories = Counter(f.category for f in found)
    order = list(Category)
    category = max(categories, key=lambda c: (categories[c], -order.index(c)))
    # Medoid: max() keeps the first of equals, and group is in canonical order.
    medoid = ordered[
        max(group, key=lambda i: sum(sims.get((min(i, j), max(i, j)), 0.0) for j in group))
    ]
    path = found[0].path
    anchor = normalize_anchor(anchor_text(path, line, end_line)) if anchor_text else ""
    return Cluster(
        path=path,
        line=line,
        end_line=end_line,
        severity=max(severities, key=lambda s: (severities[s], s.rank)),
        category=category,
        title=medoid.title,
        body=medoid.body,
        members=found,
        fingerprint=fingerprint(path, category, anchor or normalize_anchor(medoid.title.lower())),
    )


def _lower_median(values: list[int]) -> int:
    return sorted(values)[(len(values) - 1) // 2]
