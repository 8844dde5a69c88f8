"""A URL's user and password are kept nowhere: the journal keeps the job without them, a
resumed run takes them back from the live configuration, and text loses them wherever it
quotes a URL (tests/e2e/test_newcomer.py holds the journal, logs and reports to it)."""

from __future__ import annotations

import pytest

from consensus.ingest.review_diff import ingest
from consensus.model.urls import scrub_urls
from consensus.review.job import ReviewJob
from consensus.settings.config import ProviderSettings, Settings

PASSWORD = "s3cr3t-pa55word"


def test_a_resumed_run_reaches_its_endpoint_with_the_configured_credentials() -> None:
    live = ProviderSettings(model="openai/gpt-test", api_base=f"https://u:{PASSWORD}@gw/v1")
    job = ReviewJob(
        diff=ingest(""), settings=Settings(providers=(live,)), providers=(live,), personas=()
    )
    stored = ReviewJob.from_json(job.to_json())
    assert PASSWORD not in job.to_json()
    assert stored.providers[0].api_base == "https://gw/v1"
    resumed = stored.with_endpoints_of((live,))
    assert resumed.providers[0].api_base == live.api_base
    assert resumed.settings.providers[0].api_base == live.api_base


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("https://user:pw@llm.internal/v1", "https://llm.internal/v1"),
        (
            "connection refused at http://a:b@127.0.0.1:9/v1 (x)",
            "connection refused at http://127.0.0.1:9/v1 (x)",
        ),
        (
            "mail dev@example.com about https://example.com/a@b",
            "mail dev@example.com about https://example.com/a@b",
        ),
    ],
)
def test_urls_lose_their_userinfo_and_nothing_else(text: str, shown: str) -> None:
    assert scrub_urls(text) == shown
