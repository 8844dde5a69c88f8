"""GitLab's REST API v4 over HTTP: the only module that imports python-gitlab.

`GitLabSession` sends one request at a time for the GitLab adapter (adapters/gitlab.py) and
reads lists page by page. python-gitlab brings the token, the base URL (gitlab.com or a
self-managed instance, under a relative URL root too) and the session; its own retries are
off: requests are retried by the loop both hosts share (adapters/retries.py: no answer,
5xx, 429 waiting for `Retry-After` or `RateLimit-Reset`, a wait over `max_wait_s` giving
up), and a failed POST is retried only once a read shows it did not land. What fails after the
retries is a `GitLabError` naming the request and a fix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import requests
from gitlab import Gitlab, GitlabError

from consensus.adapters.gitlab_wire import GITLAB_FAILURES, Failed, next_page
from consensus.adapters.retries import DEFAULT_RETRIES, Retries

PER_PAGE = 100


class GitLabSession:
    """Requests to one GitLab instance with one token (`api_url` is `CI_API_V4_URL`)."""

    def __init__(
        self,
        *,
        token: str,
        api_url: str,
        retries: Retries = DEFAULT_RETRIES,
        timeout_s: float = 30,
        log: Callable[[str], None] = lambda line: None,
    ) -> None:
        self._last_headers: Mapping[str, str] = {}
        session = requests.Session()
        session.hooks["response"].append(self._keep_headers)
        self._client = Gitlab(
            url=api_url.rstrip("/").removesuffix("/api/v4"),
            private_token=token or None,
            timeout=timeout_s,
            user_agent="consensus-review",
            retry_transient_errors=False,
            session=session,
        )
        self._session = session
        self._retries = retries
        self._log = log

    @property
    def graphql_url(self) -> str:
        """The instance's GraphQL endpoint (beside /api/v4, under the same root)."""
        return f"{self._client.url}/api/graphql"

    def close(self) -> None:
        """Close the connections kept alive for this run."""
        self._session.close()

    def _keep_headers(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        self._last_headers = dict(response.headers)

    def _response(
        self, verb: str, path: str, params: Mapping[str, Any] | None, body: Any, streamed: bool
    ) -> requests.Response:
        try:
            return self._client.http_request(
                verb.lower(),
                path,
                query_data=dict(params or {}),
                post_data=body,
                streamed=streamed,
                obey_rate_limit=False,
                retry_transient_errors=False,
                max_retries=0,
            )
        except GitlabError as exc:
            status = exc.response_code
            message = str(exc.error_message or f"HTTP {status}")
            raise Failed(status, message, self._last_headers) from exc
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise Failed(None, str(exc) or type(exc).__name__) from exc

    def _send(
        self, verb: str, path: str, params: Mapping[str, Any] | None, body: Any
    ) -> tuple[Mapping[str, str], Any]:
        response = self._response(verb, path, params, body, streamed=False)
        data = response.json() if response.content else None
        return dict(response.headers), data

    def download(
        self, path: str, *, params: Mapping[str, Any] | None = None, max_bytes: int
    ) -> bytes | None:
        """A file's bytes (an archive), read as it streams, with the same retries; None
        when it is longer than `max_bytes` (what was read of it is dropped)."""

        def send() -> tuple[Mapping[str, str], bytes | None]:
            response = self._response("GET", path, params, None, streamed=True)
            chunks, size = [], 0
            try:
                for chunk in response.iter_content(1 << 16):
                    size += len(chunk)
                    if size > max_bytes:
                        return dict(response.headers), None
                    chunks.append(chunk)
            except (requests.ConnectionError, requests.Timeout) as exc:
                raise Failed(None, str(exc) or type(exc).__name__) from exc
            finally:
                response.close()
            return dict(response.headers), b"".join(chunks)

        answer = self._retries.send(
            send, request=("GET", path), failures=GITLAB_FAILURES, log=self._log
        )
        return answer[1] if answer is not None else None

    def request(
        self,
        verb: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        landed: Callable[[], object | None] | None = None,
    ) -> tuple[Mapping[str, str], Any]:
        """One request with bounded retries; `landed` tells whether a failed POST landed."""
        answer = self._retries.send(
            lambda: self._send(verb, path, params, body),
            request=(verb, path),
            failures=GITLAB_FAILURES,
            log=self._log,
            landed=landed,
        )
        return answer if answer is not None else ({}, None)

    def pages(self, path: str, query: Mapping[str, Any] | None = None, limit: int = 0) -> list[Any]:
        """Every item of a paginated list, 100 a page, following `X-Next-Page`."""
        items: list[Any] = []
        page: int | None = 1
        while page is not None:
            headers, data = self.request(
                "GET", path, params={**(query or {}), "per_page": PER_PAGE, "page": page}
            )
            items.extend(data or [])
            if limit and len(items) >= limit:
                return items[:limit]
            page = next_page(headers)
        return items
