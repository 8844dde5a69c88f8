"""The lines a judge cited link to the file at the head commit, in each host's URL shape
(`HostWords.lines_url`): GitHub's `blob/<sha>/<path>#L40-L58`, GitLab's
`-/blob/<sha>/<path>#L40-58`; a base-side citation to the base commit."""

from __future__ import annotations

from consensus.model.base import Status, VerdictKind
from consensus.model.findings import Verification, Vote
from consensus.model.host import GITHUB_WORDS, GITLAB_WORDS, CodeAt
from consensus.model.reply import Citation
from consensus.publish.inline import inline_body
from tests.unit.test_render import finding

HEAD, BASE = "3f2c9e1" + "a" * 33, "9b1d4c7" + "b" * 33
GUARD = Citation(path="src/shop/cart.py", start_line=40, end_line=58, quote="if not items:")
OLD = Citation(path="src/shop/cart.py", start_line=12, end_line=12, quote="total = 0", side="base")


def body(code_at: CodeAt | None, *cited: Citation) -> str:
    vote = Vote(
        model="anthropic/claude-sonnet-4-5",
        family="anthropic",
        role="inspector",
        verdict=VerdictKind.CONFIRMED,
        reason="`total` is set on line 41 before use",
        grounded=True,
        evidence=cited,
        looked=("read_file src/shop/cart.py:40-58",),
    )
    record = Verification(confirmed=1, votes=(vote,))
    return inline_body(finding(1, Status.VERIFIED, verification=record), code_at=code_at)


def test_on_github_a_cited_range_links_to_the_file_at_the_head_commit() -> None:
    code_at = CodeAt(repository="https://github.com/acme/shop", head_sha=HEAD, words=GITHUB_WORDS)

    assert (
        f"[`src/shop/cart.py:40-58`](https://github.com/acme/shop/blob/{HEAD}/src/shop/cart.py"
        "#L40-L58) `if not items:`"
    ) in body(code_at, GUARD)


def test_on_gitlab_the_link_takes_gitlabs_blob_path_and_line_range() -> None:
    code_at = CodeAt(
        repository="https://gitlab.example.com/platform/shop", head_sha=HEAD, words=GITLAB_WORDS
    )

    assert (
        f"(https://gitlab.example.com/platform/shop/-/blob/{HEAD}/src/shop/cart.py#L40-58)"
    ) in body(code_at, GUARD)


def test_a_single_line_and_a_base_side_citation_link_to_the_base_commit() -> None:
    code_at = CodeAt(repository="https://github.com/acme/shop", head_sha=HEAD, base_sha=BASE)

    text = body(code_at, OLD)

    assert f"(https://github.com/acme/shop/blob/{BASE}/src/shop/cart.py#L12) (base)" in text


def test_a_path_is_percent_encoded_and_a_password_never_reaches_the_link() -> None:
    cited = GUARD.model_copy(update={"path": "docs/release notes (v2).md"})
    code_at = CodeAt(repository="https://ci:s3cret@github.example.com/acme/shop/", head_sha=HEAD)

    text = body(code_at, cited)

    assert (
        f"https://github.example.com/acme/shop/blob/{HEAD}/docs/release%20notes%20%28v2%29.md"
        in text
    )
    assert "s3cret" not in text


def test_without_knowing_where_the_code_is_the_citation_stays_plain() -> None:
    text = body(None, GUARD)

    assert "cited `src/shop/cart.py:40-58` `if not items:`" in text and "](" not in text
