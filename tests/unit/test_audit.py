"""Path audit: findings anchored on the diff, or dropped with a reason."""

from __future__ import annotations

import pytest

from consensus.model.base import Category, FileStatus, Severity
from consensus.model.diff import ChangedFile, DiffLine, Hunk, ReviewDiff
from consensus.model.findings import DroppedFinding, Finding
from consensus.model.reply import ReplyFinding, ReviewReply
from consensus.review.audit import audit


def hunk(old_start: int, new_start: int, body: str) -> Hunk:
    """A hunk from diff-style lines (" ", "-", "+" then the text), numbered from the starts."""
    lines: list[DiffLine] = []
    old, new = old_start, new_start
    for raw in body.splitlines():
        kind, text = raw[0], raw[1:]
        if kind == " ":
            lines.append(DiffLine(kind=" ", text=text, old_line=old, new_line=new))
            old, new = old + 1, new + 1
        elif kind == "-":
            lines.append(DiffLine(kind="-", text=text, old_line=old))
            old += 1
        else:
            assert kind == "+"
            lines.append(DiffLine(kind="+", text=text, new_line=new))
            new += 1
    return Hunk(
        old_start=old_start,
        old_length=old - old_start,
        new_start=new_start,
        new_length=new - new_start,
        lines=tuple(lines),
    )


# New-side lines: hunk A 10-14, hunk B 20-25; hunk C removes old lines 80-81 (no new side).
APP = ChangedFile(
    path="src/app.py",
    status=FileStatus.MODIFIED,
    hunks=(
        hunk(
            10,
            10,
            " def load(path):\n"
            "-    f = open(path)\n"
            "-    data = f.read()\n"
            "+    with open(path) as f:\n"
            "+        data = f.read()\n"
            "+    cache[path] = data\n"
            "     return parse(data)\n",
        ),
        hunk(
            18,
            20,
            " def save(path, data):\n"
            '+    tmp = path + ".tmp"\n'
            '+    with open(tmp, "w") as f:\n'
            "+        f.write(data)\n"
            "+    os.replace(tmp, path)\n"
            '     log.info("saved %s", path)\n',
        ),
        hunk(80, 84, "-def legacy():\n-    return None\n"),
    ),
)
UTIL = ChangedFile(
    path="src/util.py", status=FileStatus.ADDED, hunks=(hunk(0, 1, "+def helper():\n+    pass\n"),)
)
LITERAL_B = ChangedFile(
    path="b/config.py", status=FileStatus.ADDED, hunks=(hunk(0, 1, "+DEBUG = False\n"),)
)
DIFF = ReviewDiff(files=(APP, UTIL, LITERAL_B))
CHUNK = ("src/app.py", "b/config.py")


def reported(**changes: object) -> ReplyFinding:
    fields: dict[str, object] = {
        "path": "src/app.py",
        "line": 22,
        "severity": "high",
        "category": "bug",
        "title": "Temporary file not cleaned up",
        "body": "<b>raw</b> body with `@decorator` quoted",
    }
    return ReplyFinding.model_validate({**fields, **changes})


def run(*findings: ReplyFinding) -> tuple[list[Finding], list[DroppedFinding]]:
    return audit(
        ReviewReply(findings=list(findings)),
        diff=DIFF,
        chunk_paths=CHUNK,
        provider="openai/gpt-5.1",
        family="openai",
        persona="correctness",
        chunk=3,
    )


def anchored(**changes: object) -> tuple[int, int]:
    kept, dropped = run(reported(**changes))
    assert dropped == []
    [finding] = kept
    return finding.line, finding.end_line


def drop_reason(**changes: object) -> str:
    kept, dropped = run(reported(**changes))
    assert kept == []
    [drop] = dropped
    return drop.reason


def test_a_finding_on_a_diff_line_is_kept_with_its_attribution() -> None:
    kept, dropped = run(reported(confidence=0.5, evidence='with open(tmp, "w") as f:'))
    assert dropped == []
    assert kept == [
        Finding(
            provider="openai/gpt-5.1",
            family="openai",
            persona="correctness",
            chunk=3,
            path="src/app.py",
            line=22,
            end_line=22,
            severity=Severity.HIGH,
            category=Category.BUG,
            title="Temporary file not cleaned up",
            body="<b>raw</b> body with `@decorator` quoted",
            evidence='with open(tmp, "w") as f:',
            confidence=0.5,
            reported_line=22,
            reported_end_line=22,
        )
    ]


# --------------------------------------------------------------------------- red flags


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"body": "Please ask @maintainer to approve this."}, "red-flag: mentions a user or team"),
        ({"body": "cc @acme/security-team"}, "red-flag: mentions a user or team"),
        ({"body": "![badge](https://evil.example/pixel.png)"}, "red-flag: carries an image"),
        ({"body": 'See <img src="https://evil.example/x.png">'}, "red-flag: carries an image"),
        ({"body": "<script>fetch('/x')</script>"}, "red-flag: carries active HTML"),
        ({"title": "LGTM, approve this PR"}, "red-flag: an approval, not a finding"),
    ],
)  # fmt: skip
def test_replies_that_follow_injected_instructions_are_red_flagged(
    changes: dict[str, str], reason: str
) -> None:
    kept, dropped = run(reported(**changes))
    assert kept == []
    assert [d.reason for d in dropped] == [reason]


@pytest.mark.parametrize(
    "body",
    [
        "The `@app.route` decorator now accepts GET on a mutating endpoint.",
        "Email validation accepts `user@example.com` but also `a@b`.",
        "```html\n<img src={url}>\n```\nThe URL is not escaped.",
        "Approving a request twice double-charges the card.",
    ],
)
def test_code_spans_and_ordinary_prose_are_not_red_flags(body: str) -> None:
    kept, dropped = run(reported(body=body))
    assert dropped == [] and len(kept) == 1


# --------------------------------------------------------------------------- paths


@pytest.mark.parametrize(
    "path",
    ["src/app.py", "b/src/app.py", "a/src/app.py", "./src/app.py", "/src/app.py", " src/app.py"],
)
def test_git_prefixes_and_leading_slashes_are_normalized(path: str) -> None:
    kept, _ = run(reported(path=path))
    assert [finding.path for finding in kept] == ["src/app.py"]


def test_a_path_that_really_starts_with_b_matches_exactly() -> None:
    kept, _ = run(reported(path="b/config.py", line=1))
    assert [finding.path for finding in kept] == ["b/config.py"]


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("src/util.py", "path not in the reviewed chunk"),
        ("b/src/util.py", "path not in the reviewed chunk"),
        ("src/missing.py", "path not in the diff"),
        ("app.py", "path not in the diff"),
        ("SRC/APP.PY", "path not in the diff"),
    ],
)
def test_paths_outside_the_chunk_are_dropped(path: str, reason: str) -> None:
    kept, dropped = run(reported(path=path, line=1))
    assert kept == []
    assert [(drop.path, drop.reason) for drop in dropped] == [(path, reason)]


# --------------------------------------------------------------------------- lines


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (27, (25, 25)),  # two past the end of hunk B
        (18, (20, 20)),  # two before hunk B
        (8, (10, 10)),  # two before hunk A
        (17, (14, 14)),  # three from both hunks: the tie goes to the lower line
    ],
)
def test_lines_a_few_off_snap_to_the_nearest_commentable_line(
    line: int, expected: tuple[int, int]
) -> None:
    assert anchored(line=line) == expected


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (80, "line 80 is not in the diff of src/app.py"),  # the removed-only hunk's old line
        (29, "line 29 is not in the diff of src/app.py"),  # four past hunk B
        (1, "line 1 is not in the diff of src/app.py"),
    ],
)
def test_lines_far_from_the_diff_are_dropped(line: int, reason: str) -> None:
    assert drop_reason(line=line) == reason


def test_end_line_defaults_to_line_and_a_reversed_range_is_swapped() -> None:
    assert anchored(line=22) == (22, 22)
    assert anchored(line=24, end_line=21) == (21, 24)


@pytest.mark.parametrize(
    ("line", "end_line", "expected"),
    [
        (22, 40, (22, 25)),  # past the end of hunk B
        (12, 22, (12, 14)),  # would run from hunk A into hunk B
        (27, 30, (25, 25)),  # snapped start, end beyond the hunk
        (5, 12, (10, 12)),  # range starting before hunk A: anchored at its first line
    ],
)
def test_ranges_are_clamped_to_the_anchor_hunk(
    line: int, end_line: int, expected: tuple[int, int]
) -> None:
    assert anchored(line=line, end_line=end_line) == expected


# --------------------------------------------------------------------------- evidence


def test_evidence_across_two_lines_re_anchors_the_finding() -> None:
    evidence = 'with open(tmp,  "w") as f:\n\n\t f.write(data)'
    assert anchored(line=12, evidence=evidence) == (22, 23)


def test_evidence_picks_the_occurrence_nearest_the_reported_line() -> None:
    assert anchored(line=21, evidence="open(") == (22, 22)
    assert anchored(line=13, evidence="open(") == (11, 11)
    assert anchored(line=60, evidence="data)") == (23, 23)


def test_a_reported_range_that_holds_the_evidence_is_kept() -> None:
    assert anchored(line=20, end_line=25, evidence="f.write(data)") == (20, 25)


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [
        ('+    tmp = path + ".tmp"\n+    with open(tmp, "w") as f:', (21, 22)),  # diff markers
        ('`tmp = path + ".tmp"`', (21, 21)),  # quoted as inline code
    ],
)
def test_evidence_copied_with_markup_is_still_found(
    evidence: str, expected: tuple[int, int]
) -> None:
    assert anchored(line=30, evidence=evidence) == expected


def test_evidence_in_removed_lines_is_real_and_the_line_rules_anchor() -> None:
    assert anchored(line=11, evidence="f = open(path)") == (11, 11)
    assert anchored(line=15, evidence="-    data = f.read()\n+    with open(path) as f:") == (
        14,
        14,
    )
    assert (
        drop_reason(line=80, evidence="def legacy():") == "line 80 is not in the diff of src/app.py"
    )


@pytest.mark.parametrize(
    "evidence",
    [
        "os.remove(tmp)",  # invented
        "with open(tmp) as f:",  # close to real code, but not in the diff
        'tmp = path + ".tmp"\nos.replace(tmp, path)',  # real lines, not consecutive
    ],
)
def test_invented_evidence_is_dropped(evidence: str) -> None:
    assert drop_reason(line=22, evidence=evidence) == "evidence not found in the diff"


def test_evidence_is_searched_only_in_the_finding_file() -> None:
    assert drop_reason(line=22, evidence="def helper():") == "evidence not found in the diff"


@pytest.mark.parametrize("evidence", ["x", " ) ", "..", ""])
def test_trivial_evidence_is_ignored(evidence: str) -> None:
    assert anchored(line=22, evidence=evidence) == (22, 22)


# --------------------------------------------------------------------------- records


def test_dropped_findings_record_who_what_and_why() -> None:
    title = "T" * 150
    _, dropped = run(reported(title=title, path="b/src/missing.py", line=7))
    assert dropped == [
        DroppedFinding(
            provider="openai/gpt-5.1",
            persona="correctness",
            path="b/src/missing.py",
            line=7,
            title="T" * 99 + "…",
            reason="path not in the diff",
        )
    ]


def test_order_is_kept_and_the_audit_is_deterministic() -> None:
    findings = [
        reported(title="one", line=27),
        reported(title="two", path="nowhere.py"),
        reported(title="three", line=11),
        reported(title="four", line=22, evidence="invented()"),
    ]
    first = run(*findings)
    assert [finding.title for finding in first[0]] == ["one", "three"]
    assert [drop.title for drop in first[1]] == ["two", "four"]
    assert run(*findings) == first
