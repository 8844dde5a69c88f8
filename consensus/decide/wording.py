"""How alike two findings' words are: what align weighs besides who reported them, where."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from consensus.decide.problem_kinds import (
    different_defects,
    headline_kinds,
    kinds,
    mentioned_kinds,
    related_kinds,
)
from consensus.model.base import Category
from consensus.model.findings import Finding

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
        (Category.SECURITY, Category.PERFORMANCE),
        (Category.PERFORMANCE, Category.MAINTAINABILITY),
        (Category.PERFORMANCE, Category.CONCURRENCY),
        (Category.MAINTAINABILITY, Category.API),
        (Category.MAINTAINABILITY, Category.TEST),
        (Category.MAINTAINABILITY, Category.DOCS),
        (Category.MAINTAINABILITY, Category.SECURITY),
        (Category.API, Category.DOCS),
    )
)

KIND_BONUS = 0.25


CODE_PENALTY = 0.7


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


@dataclass(frozen=True, slots=True)
class Features:
    """What similarity compares, computed once per finding."""

    title_words: frozenset[str]
    words: frozenset[str]
    grams: frozenset[str]
    code: frozenset[str]
    head: frozenset[str]  # kinds of defect the title names (else the body)
    every: frozenset[str]  # kinds of defect the whole text mentions
    titled: frozenset[str]  # kinds of defect the title names
    review: tuple[str, str]


def features_of(finding: Finding) -> Features:
    title, body = finding.title.lower(), finding.body.lower()
    title_words = content_words(title)
    flat = " " + " ".join(_NOT_ALNUM.sub(" ", title).split()) + " "
    code_text = " ".join(_BACKTICKED.findall(f"{finding.title}\n{finding.body}"))
    code: set[str] = set()
    for ident in _IDENT.findall(f"{code_text} {finding.evidence or ''}".lower()):
        # `user_id` also matches a plain "user id" or `request.user` in another finding.
        code.update(part for part in (ident, *ident.split("_")) if len(part) > 1)
    return Features(
        title_words=title_words,
        words=title_words | content_words(body),
        grams=frozenset(flat[i : i + 3] for i in range(len(flat) - 2)),
        code=frozenset(code - _CODE_STOPWORDS),
        head=headline_kinds(title, body),
        every=mentioned_kinds(title, body),
        titled=kinds(title),
        review=(finding.provider, finding.persona),
    )


def content_words(text: str) -> frozenset[str]:
    return frozenset(_stem(word) for word in _WORD.findall(text) if word not in _STOPWORDS)


def compatible(a: Category, b: Category) -> bool:
    return a is b or frozenset((a, b)) in COMPATIBLE_CATEGORIES


def differ(a: Features, b: Features) -> bool:
    return different_defects(a.head, a.every, b.head, b.every)


def similarity(a: Finding, b: Finding) -> float:
    """How likely a and b describe the same problem, 0…1, ignoring path, lines and who
    reported them; 0 when their categories are incompatible or they name different defects."""
    if not compatible(a.category, b.category):
        return 0.0
    x, y = features_of(a), features_of(b)
    return 0.0 if differ(x, y) else feature_similarity(x, y)


def kin(a: Features, b: Features) -> bool:
    """Does one name a kind of defect the other names or mentions (or a related one)?"""
    return related_kinds(a.head, b.every) or related_kinds(b.head, a.every)


def titles_kin(a: Features, b: Features) -> bool:
    """Do both titles name one kind of defect (or related ones)? A title says what the
    problem is; a body also mentions causes, fixes and neighbours."""
    return bool(a.titled and b.titled) and related_kinds(a.titled, b.titled)


def feature_similarity(a: Features, b: Features, *, kinds: bool = True) -> float:
    # A short title whose words all recur in the other finding is a paraphrase even when
    # the bodies dilute the overall overlap.
    contained = max(_contained(a.title_words, b.words), _contained(b.title_words, a.words))
    words = 0.5 * _cosine(a.words, b.words) + 0.5 * contained
    grams = 2 * len(a.grams & b.grams) / (len(a.grams) + len(b.grams) or 1)
    subject = 1.0
    if a.code and b.code:
        # The same identifiers (evidence, `code`) are a strong sign; none shared, a sign of
        # another subject, even for the same kind of problem.
        shared = len(a.code & b.code)
        value = 0.45 * words + 0.2 * grams + 0.35 * shared / len(a.code | b.code)
        subject = 1.0 if shared else CODE_PENALTY
    else:
        value = 0.65 * words + 0.35 * grams
    if kinds and kin(a, b):
        value = min(1.0, value + KIND_BONUS)
    return value * subject


def _cosine(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0


def _contained(part: frozenset[str], whole: frozenset[str]) -> float:
    return len(part & whole) / len(part) if part else 0.0
