"""Vendored and generated files are skipped by the conventions GitHub users already write:
.gitattributes `linguist-vendored` / `linguist-generated` (true and false) and Linguist's
default vendor patterns; each skip says why, and `paths` can take a file back."""

from __future__ import annotations

import pytest

from consensus.ingest.linguist import AttributeRule, parse_attributes, vendored_by_linguist
from consensus.ingest.pathfilter import select_files
from consensus.ingest.review_diff import ingest
from tests.unit.test_pathfilter import _file

GITATTRIBUTES = """\
# vendored code we copied in, and generated clients
libs/chardet/** linguist-vendored
api/client/*.py linguist-generated=true
vendor/ours/** linguist-vendored=false
proto/*_pb2.py -linguist-generated
web/dist/** !linguist-vendored
"""


def test_gitattributes_lines_become_rules_in_order() -> None:
    assert parse_attributes(GITATTRIBUTES) == (
        AttributeRule("libs/chardet/**", "vendored", True),
        AttributeRule("api/client/*.py", "generated", True),
        AttributeRule("vendor/ours/**", "vendored", False),
        AttributeRule("proto/*_pb2.py", "generated", False),
        AttributeRule("web/dist/**", "vendored", None),
    )


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("libs/chardet/universaldetector.py", "vendored"),  # linguist-vendored
        ("api/client/users.py", "generated"),  # linguist-generated=true
        ("vendor/ours/patch.go", None),  # linguist-vendored=false beats vendor/
        ("proto/user_pb2.py", None),  # -linguist-generated beats the _pb2.py suffix
        ("web/dist/app.js", "vendored (Linguist's pattern (^|/)dist/)"),  # ! = Linguist decides
        ("src/app.py", None),
    ],
)
def test_gitattributes_decide_before_the_defaults(path: str, reason: str | None) -> None:
    kept, skipped = select_files([_file(path)], attributes=parse_attributes(GITATTRIBUTES))
    assert [(s.path, s.reason) for s in skipped] == ([(path, reason)] if reason else [])
    assert len(kept) == (0 if reason else 1)


@pytest.mark.parametrize(
    ("path", "pattern"),
    [
        ("dist/bundle.js", r"(^|/)dist/"),
        ("src/types/globals.d.ts", r"(.*?)\.d\.ts$"),
        ("static/js/jquery-3.7.1.js", r"(^|/)jquery\-\d\.\d+(\.\d+)?\.js$"),
        ("docs/_build/html/index.html", r"(^|/)docs?/_?(build|themes?|templates?|static)/"),
        ("external/zlib/inflate.c", r"(^|/)[Ee]xtern(als?)?/"),
        ("src/ThirdParty/json.hpp", r"(3rd|[Tt]hird)[-_]?[Pp]arty/"),
        ("gradle/wrapper/gradle-wrapper.properties", r"(^|/)gradle/wrapper/"),
        ("tests/fixtures/sample.json", r"^[Tt]ests?/fixtures/"),
    ],
)
def test_linguists_vendor_patterns_skip_and_name_the_pattern(path: str, pattern: str) -> None:
    found = vendored_by_linguist(path)
    assert found is not None and found.pattern == pattern
    _, skipped = select_files([_file(path)])
    assert skipped[0].reason == f"vendored (Linguist's pattern {pattern})"


@pytest.mark.parametrize(
    "path", ["src/app/db.py", "distribution/notes.md", "README.md", "src/myvendors/x.py"]
)
def test_ordinary_files_match_no_vendor_pattern(path: str) -> None:
    assert vendored_by_linguist(path) is None


def test_paths_that_name_a_vendored_directory_take_it_back() -> None:
    file = _file("dist/bundle.js")
    assert select_files([file], include=["**"])[0] == []
    assert select_files([file], include=["dist/**"])[0] == [file]
    vendored = _file("libs/chardet/x.py")
    rules = parse_attributes(GITATTRIBUTES)
    assert select_files([vendored], include=["libs/chardet/**"], attributes=rules)[0] == [vendored]


DIFF = """\
diff --git a/libs/chardet/x.py b/libs/chardet/x.py
new file mode 100644
--- /dev/null
+++ b/libs/chardet/x.py
@@ -0,0 +1 @@
+x = 1
diff --git a/src/app.py b/src/app.py
new file mode 100644
--- /dev/null
+++ b/src/app.py
@@ -0,0 +1 @@
+y = 2
"""


def test_a_review_lists_each_skipped_file_with_its_reason() -> None:
    diff = ingest(DIFF, gitattributes=GITATTRIBUTES)
    assert [f.path for f in diff.files] == ["src/app.py"]
    assert [(s.path, s.reason) for s in diff.skipped] == [("libs/chardet/x.py", "vendored")]
