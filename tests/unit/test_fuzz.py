"""Property tests: arbitrary input gives a result or a typed error, never a crash."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from consensus.errors import ConfigError, DiffError
from consensus.ingest.detections import text_addressed_to_ai
from consensus.ingest.review_diff import ingest
from consensus.model.reply import ReplyFinding
from consensus.review.audit import red_flag
from consensus.settings.config import Settings, parse_settings
from tests.markdown_oracle import REPO_LINK, live

yaml_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["threshold", "providers", "model", "budget", "personas", "paths", "redact", "x"]
            )
            | st.text(max_size=8),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_config_text_gives_settings_or_a_config_error(text: str) -> None:
    try:
        assert isinstance(parse_settings(text, source="fuzz.yml"), Settings)
    except ConfigError as exc:
        assert str(exc).startswith("fuzz.yml")


@settings(max_examples=300, deadline=None)
@given(yaml_like)
def test_config_structures_give_settings_or_a_config_error(data: object) -> None:
    import yaml

    try:
        parse_settings(yaml.safe_dump(data), source="fuzz.yml")
    except ConfigError as exc:
        assert exc.exit_code == 2


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.text(max_size=300))
def test_red_flag_never_crashes(title: str, body: str) -> None:
    finding = ReplyFinding.model_construct(
        path="a.py", line=1, severity="low", category="bug", title=title, body=body
    )
    assert red_flag(finding) in (
        None,
        "red-flag: mentions a user or team",
        "red-flag: carries an image",
        "red-flag: carries active HTML",
        "red-flag: an approval, not a finding",
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=120), max_size=20))
def test_injection_scan_takes_any_added_text(lines: list[str]) -> None:
    body = "".join(f"+{line.replace(chr(10), ' ').replace(chr(13), ' ')}\n" for line in lines)
    diff = (
        "diff --git a/x.py b/x.py\nnew file mode 100644\n--- /dev/null\n+++ b/x.py\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )
    try:
        review = ingest(diff)
    except DiffError:
        return
    for finding in text_addressed_to_ai(review):
        assert finding.path == "x.py"


hostile_text = st.lists(
    st.sampled_from(
        [*"ab @<>/!`~[]()|*_\n:.-", "@everyone", "https://", "http://evil.example/x",
         "<img src=x>", "```", "~~~", "https://github.com/acme/service/pull/1",
         "www.evil.example", "<script>"]
    ),
    max_size=40,
).map("".join)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(hostile_text)
def test_sanitised_text_never_pings_renders_tags_or_links_outside(text: str) -> None:
    from consensus.render.markdown import escape_markdown_text

    out = escape_markdown_text(text, allowed_links=[REPO_LINK])
    # CommonMark decides what is live (a regex cannot tell an escaped backtick from a span's).
    assert not live(out), (out, live(out))
