"""ALIGN: findings from every (provider, persona) review → clusters, one per problem.

Who said it and where decide first; the words decide what is left. Two findings may be one
problem only when they are in one file, their line ranges overlap or lie within LINE_WINDOW
(3) lines of each other, and their categories are compatible (identical, or a pair in
COMPATIBLE_CATEGORIES: models file one problem as bug, security or concurrency alike). Then:

- findings of *disjoint* provider families are one problem, nobody asked, when their words
  alone (without the kind bonus) are as alike as SURE_THRESHOLD, or when their titles name
  one kind of defect or related kinds (`consensus.problem_kinds`: "SQL injection" beside
  "Use a placeholder") and their words are as alike as KIN_THRESHOLD: at one place two
  findings share a subject, and a kind's words may name the subject (a lock, a thread, the
  log) rather than the defect. Every other pair is an *open question*, pairs naming
  different defects included (the word lists misread text they were not written from). A
  verifier may answer it ("same problem?", `consensus.sameness`); unanswered, the text
  decides: two problems when their text names different defects (the titles, else the
  bodies), else one when their similarity reaches WORDS_THRESHOLD (naming a kind the other
  mentions adds KIND_BONUS). With a verifier, then, the word lists never settle a pair by
  themselves: they set a question's default and corroborate alike words;
- findings of the *same* family (its other personas) are one problem only when their words
  say so (similarity at least MERGE_THRESHOLD): a model that reports two things at one place
  means two;
- two findings of one review (provider and persona) are never one problem;
- a remark (maintainability, docs, test) and a defect are different kinds (`same_kind`):
  only a "same problem?" answer joins them; agreement counts that problem's reporters.

A finding of consensus's own scan (`consensus.detections`, family `consensus`) is a family
of its own, so by the same rule it joins exactly one cluster at its place: the one whose
findings name its defect.

Clustering runs per path, in canonical order (path, line, end_line, family, provider …),
so any input order gives the same clusters and the same questions:

1. average-linkage agglomeration of findings, best average similarity first, while it
   reaches MERGE_THRESHOLD, counting only the pairs the words may join unasked (same
   family, or disjoint families that are one problem by the rule above); never across one
   review or two findings naming different defects;
2. clusters whose families are disjoint, whose line ranges lie within LINE_WINDOW, whose
   categories are all compatible and no two of whose members name different defects are
   joined when two of their members are one problem by the rule above, best average
   similarity first (ties by least member);
3. the open questions left between such clusters, best similarity first, are settled by
   the answers given, else by the words; a join still has to keep families disjoint.

Similarity (`similarity`, 0…1) is fast string comparison, no model involved:

- words: content words of title + body (lowercased, stopwords out, light suffix stemming),
  half set cosine, half the best containment of one title's words in the other's text;
- title: Dice coefficient of character trigrams of the two titles;
- code: Jaccard of identifiers in `backticks` and evidence (split at "_" too);
  mixed 0.45 words + 0.2 title + 0.35 code when both quote code, else 0.65 words + 0.35
  title; sharing no identifier at all multiplies the result by CODE_PENALTY (0.7);
- kind: naming one kind of defect (or related ones, `problem_kinds.RELATED_KINDS`) adds
  KIND_BONUS (0.25).

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
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from consensus.decide.fingerprint import disambiguate, fingerprint, normalize_anchor
from consensus.decide.problem_kinds import same_kind
from consensus.decide.wording import (
    Features,
    compatible,
    differ,
    feature_similarity,
    features_of,
    titles_kin,
)
from consensus.model.base import Category
from consensus.model.findings import LINE_WINDOW, Cluster, Finding

MERGE_THRESHOLD = 0.30
SURE_THRESHOLD = 0.6  # disjoint families: words this alike are one problem unasked …
KIN_THRESHOLD = 0.25  # … and these, when their titles name one kind of defect
WORDS_THRESHOLD = 0.15  # an open pair left unanswered is one problem from this similarity

AnchorText = Callable[[str, int, int], str]

# Pairs models often file differently for one problem: a race is a bug to one and
# concurrency to another; an injection is a bug or security; a bare except is a bug or
# maintainability. Docs and security, say, never describe one problem.


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


class _Pairs:
    """Similarity of every pair of one path's findings that could be one problem (in the
    line window, two reviews, compatible categories), keyed by canonical indexes (i < j);
    and, for any two findings, whether their words name different defects."""

    def __init__(
        self,
        features: Sequence[Features],
        sims: dict[tuple[int, int], float],
        ordered: Sequence[Finding],
    ):
        self._features = features
        self._ordered = ordered  # all of them: a list of one path's would cost paths × findings
        self.sims = sims
        self.links: dict[tuple[int, int], float] = {}  # pairs the words may join unasked
        self._sure: dict[tuple[int, int], bool] = {}
        self._differ: dict[tuple[int, int], bool] = {}

    def sim(self, i: int, j: int) -> float:
        return self.sims.get((min(i, j), max(i, j)), 0.0)

    def words(self, i: int, j: int) -> float:
        """Similarity even when the two name different defects (for questions)."""
        key = (min(i, j), max(i, j))
        if key in self.sims:
            return self.sims[key]
        return (
            feature_similarity(self._features[i], self._features[j]) if self.differ(i, j) else 0.0
        )

    def differ(self, i: int, j: int) -> bool:
        key = (min(i, j), max(i, j))
        if key not in self._differ:
            self._differ[key] = differ(self._features[i], self._features[j])
        return self._differ[key]

    def sure(self, i: int, j: int) -> bool:
        """Are two findings of disjoint families one problem without asking? Their words
        are as alike as SURE_THRESHOLD, or their titles name one kind of defect and their
        words are as alike as KIN_THRESHOLD (at one place two findings share a subject, and
        a kind's words may name the subject: a lock, a thread, a log)."""
        key = (min(i, j), max(i, j))
        if key not in self._sure:
            x, y = self._features[i], self._features[j]
            words = feature_similarity(x, y, kinds=False)
            self._sure[key] = self.same_kind(i, j) and (
                words >= SURE_THRESHOLD or (words >= KIN_THRESHOLD and titles_kin(x, y))
            )
        return self._sure[key]

    def same_kind(self, i: int, j: int) -> bool:
        return same_kind(self._ordered[i].category, self._ordered[j].category)

    def kinds_differ(self, a: Sequence[int], b: Sequence[int]) -> bool:
        """Is a member of one side a remark and one of the other a defect?"""
        return any(not self.same_kind(i, j) for i in a for j in b)

    def any_sure(self, a: Sequence[int], b: Sequence[int]) -> bool:
        """Are a member of each side one problem without asking?"""
        return any(self.sure(i, j) for i in a for j in b)

    def conflict(self, a: Sequence[int], b: Sequence[int]) -> bool:
        """Do any two members, one of each side, name different defects? (Members far
        apart count too: a cluster's lines grow as it joins others.)"""
        return any(self.differ(i, j) for i in a for j in b)


@dataclass(frozen=True)
class SameProblemQuestion:
    """An open question of alignment: are these two clusters' findings one problem?
    `default` is what the text says when nobody answers."""

    first: tuple[Finding, ...]
    second: tuple[Finding, ...]
    similarity: float
    default: bool


Answers = Mapping[SameProblemQuestion, bool]


def align(
    findings: Sequence[Finding],
    anchor_text: AnchorText | None = None,
    answers: Answers | None = None,
) -> list[Cluster]:
    """Cluster findings that describe the same problem; see the module docstring for rules.

    `anchor_text(path, line, end_line)` returns the code at a cluster's lines for its
    fingerprint; without it (or when it returns only whitespace) the title stands in.
    `answers` settles open questions (`open_questions` of the same findings): True, one
    problem; False, two. A question without an answer is settled by the words.
    """
    ordered = sorted(findings, key=_canonical_key)
    features = [features_of(f) for f in ordered]
    clusters: list[tuple[Cluster, int]] = []  # with the canonical index of the first member
    for start, stop in _paths(ordered):
        pairs = _pairs(ordered, features, start, stop)
        pieces = _presume(_agglomerate(range(start, stop), pairs, features), ordered, pairs)
        questions = _questions(pieces, ordered, pairs)
        for group in _settle(pieces, questions, answers or {}, ordered, pairs):
            clusters.append((_cluster(ordered, group, pairs, anchor_text), group[0]))
    clusters.sort(key=lambda item: (item[0].path, item[0].line, item[0].title, item[1]))
    prints = disambiguate([cluster.fingerprint for cluster, _ in clusters])
    return [
        cluster.model_copy(update={"fingerprint": print_})
        for (cluster, _), print_ in zip(clusters, prints, strict=True)
    ]


def open_questions(findings: Sequence[Finding]) -> list[SameProblemQuestion]:
    """The questions `align` would settle by the words, in a deterministic order: what a
    verifier may be asked before aligning again with its answers."""
    ordered = sorted(findings, key=_canonical_key)
    features = [features_of(f) for f in ordered]
    found: list[SameProblemQuestion] = []
    for start, stop in _paths(ordered):
        pairs = _pairs(ordered, features, start, stop)
        pieces = _presume(_agglomerate(range(start, stop), pairs, features), ordered, pairs)
        found += [question for question, _, _ in _questions(pieces, ordered, pairs)]
    return found


def _paths(ordered: Sequence[Finding]) -> list[tuple[int, int]]:
    """(start, stop) of each path's run in canonically ordered findings."""
    runs = []
    start = 0
    while start < len(ordered):
        stop = start
        while stop < len(ordered) and ordered[stop].path == ordered[start].path:
            stop += 1
        runs.append((start, stop))
        start = stop
    return runs


def _pairs(
    ordered: Sequence[Finding], features: Sequence[Features], start: int, stop: int
) -> _Pairs:
    """The pairs of one path's findings (sorted by line) that could be one problem."""
    pairs = _Pairs(features, {}, ordered)
    for i in range(start, stop):
        a = ordered[i]
        for j in range(i + 1, stop):
            b = ordered[j]
            if b.line > _end(a) + LINE_WINDOW:
                break  # sorted by line: every later finding starts further away
            if features[i].review == features[j].review:
                continue  # never in one cluster: no need to know how alike they are
            if not (_near(a, b) and compatible(a.category, b.category)):
                continue
            if not pairs.differ(i, j):
                pairs.sims[i, j] = feature_similarity(features[i], features[j])
                if (a.family == b.family and pairs.same_kind(i, j)) or pairs.sure(i, j):
                    pairs.links[i, j] = pairs.sims[i, j]
    return pairs


def _agglomerate(
    indexes: range, pairs: _Pairs, features: Sequence[Features]
) -> list[tuple[int, ...]]:
    """Average-linkage clustering with cannot-link on reviews and on different defects;
    clusters named by their least index."""
    members = {i: [i] for i in indexes}
    reviews = {i: {features[i].review} for i in indexes}
    version = dict.fromkeys(indexes, 0)
    links: dict[int, dict[int, float]] = defaultdict(dict)  # summed pair similarity
    for (i, j), value in pairs.links.items():
        links[i][j] = links[j][i] = value

    def allowed(a: int, b: int) -> bool:
        return not reviews[a] & reviews[b] and not pairs.conflict(members[a], members[b])

    # Best average first; equal averages by least indexes, so ties never depend on input order.
    heap = [(-v, i, j, 0, 0) for (i, j), v in pairs.links.items() if v >= MERGE_THRESHOLD]
    heapq.heapify(heap)
    while heap:
        _, a, b, version_a, version_b = heapq.heappop(heap)
        if version.get(a) != version_a or version.get(b) != version_b:
            continue  # stale: one side merged since this entry was pushed
        if not allowed(a, b):
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
            if average >= MERGE_THRESHOLD and allowed(a, c):
                lo, hi = min(a, c), max(a, c)
                heapq.heappush(heap, (-average, lo, hi, version[lo], version[hi]))
    return [tuple(sorted(group)) for _, group in sorted(members.items())]


def _presume(
    groups: list[tuple[int, ...]], ordered: Sequence[Finding], pairs: _Pairs
) -> list[list[int]]:
    """Second pass: join clusters of disjoint families at one place whose members name one
    kind of defect. Best pair first, ties by least index: deterministic."""
    pieces = [list(group) for group in groups]
    while True:
        best: tuple[float, int, int] | None = None
        for x in range(len(pieces)):
            for y in range(x + 1, len(pieces)):
                value = _joinable(pieces[x], pieces[y], ordered, pairs)
                if value is None or not pairs.any_sure(pieces[x], pieces[y]):
                    continue
                if best is None or value > best[0]:
                    best = (value, x, y)
        if best is None:
            return sorted(pieces, key=min)
        _, x, y = best
        pieces[x] += pieces.pop(y)


def _questions(
    pieces: list[list[int]], ordered: Sequence[Finding], pairs: _Pairs
) -> list[tuple[SameProblemQuestion, int, int]]:
    """Open questions between the pieces (with the least member of each), best first."""
    found = []
    for x in range(len(pieces)):
        for y in range(x + 1, len(pieces)):
            value = _joinable(pieces[x], pieces[y], ordered, pairs, conflicts=True)
            if value is None:
                continue
            differ = pairs.conflict(pieces[x], pieces[y]) or pairs.kinds_differ(
                pieces[x], pieces[y]
            )
            first, second = sorted(pieces[x]), sorted(pieces[y])
            question = SameProblemQuestion(
                first=tuple(ordered[i] for i in first),
                second=tuple(ordered[i] for i in second),
                similarity=round(value, 6),
                default=not differ and value >= WORDS_THRESHOLD,
            )
            found.append((question, first[0], second[0]))
    found.sort(key=lambda item: (-item[0].similarity, item[1], item[2]))
    return found


def _settle(
    pieces: list[list[int]],
    questions: list[tuple[SameProblemQuestion, int, int]],
    answers: Answers,
    ordered: Sequence[Finding],
    pairs: _Pairs,
) -> list[tuple[int, ...]]:
    """Third pass: each open question in order, by its answer, else by the words; a join
    must still be allowed between the pieces that now hold its two sides."""
    owner = {i: n for n, piece in enumerate(pieces) for i in piece}
    merged = [list(piece) for piece in pieces]
    for question, x, y in questions:
        answer = answers.get(question)
        a, b = owner[x], owner[y]
        if not (question.default if answer is None else answer) or a == b:
            continue
        # A verifier's "same" outweighs the word lists; the text alone never joins what
        # they name differently.
        if _joinable(merged[a], merged[b], ordered, pairs, conflicts=answer is True) is None:
            continue
        merged[a] += merged[b]
        for i in merged[b]:
            owner[i] = a
        merged[b] = []
    return [tuple(sorted(piece)) for piece in sorted((p for p in merged if p), key=min)]


def _joinable(
    a: list[int],
    b: list[int],
    ordered: Sequence[Finding],
    pairs: _Pairs,
    *,
    conflicts: bool = False,
) -> float | None:
    """The average similarity of two clusters of disjoint families at one place with
    compatible categories and (unless `conflicts`) no defects named differently, else None."""
    first, second = [ordered[i] for i in a], [ordered[i] for i in b]
    gap = max(min(f.line for f in first), min(f.line for f in second)) - min(
        max(_end(f) for f in first), max(_end(f) for f in second)
    )
    if gap > LINE_WINDOW:
        return None
    if {f.family for f in first} & {f.family for f in second}:
        return None
    if not all(compatible(f.category, g.category) for f in first for g in second):
        return None
    if not conflicts and pairs.conflict(a, b):
        return None
    return sum(pairs.words(i, j) for i in a for j in b) / (len(a) * len(b))


def _cluster(
    ordered: Sequence[Finding],
    group: tuple[int, ...],
    pairs: _Pairs,
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
    medoid = ordered[max(group, key=lambda i: sum(pairs.sim(i, j) for j in group if j != i))]
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
