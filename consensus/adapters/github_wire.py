"""GitHub's wire: which failures are worth a retry and how long to wait, and JSON → port types."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import requests
from github import GithubException

from consensus.adapters.retries import DEFAULT_RETRIES as DEFAULT_RETRIES
from consensus.adapters.retries import HostFailures
from consensus.adapters.retries import Retries as Retries
from consensus.errors import GitHubError
from consensus.ports import (
    HostComment,
    HostReaction,
    HostReview,
    InlineComment,
    OpenPull,
    PullFile,
    PullRequestInfo,
)


def http_status(exc: BaseException) -> int | None:
    return exc.status if isinstance(exc, GithubException) else None


def header(exc: BaseException, name: str) -> str | None:
    if not isinstance(exc, GithubException):
        return None
    for key, value in (exc.headers or {}).items():
        if key.lower() == name.lower():
            return str(value)
    return None


def message_of(exc: BaseException) -> str:
    if isinstance(exc, GithubException):
        data = exc.data if isinstance(exc.data, dict) else {}
        return str(data.get("message") or exc.message or f"HTTP {exc.status}")
    return str(exc) or type(exc).__name__


def is_rate_limited(exc: BaseException) -> bool:
    status = http_status(exc)
    if status == 429:
        return True
    if status != 403:
        return False
    return (
        header(exc, "Retry-After") is not None
        or header(exc, "X-RateLimit-Remaining") == "0"
        or "rate limit" in message_of(exc).lower()
    )


def is_transient(exc: BaseException) -> bool:
    """Worth another try: a 5xx, a dropped connection, or a rate limit."""
    if isinstance(exc, requests.ConnectionError | requests.Timeout):
        return True
    status = http_status(exc)
    return (status is not None and status >= 500) or is_rate_limited(exc)


def retry_wait(exc: BaseException, attempt: int, *, now: float, base_s: float) -> float:
    """Seconds to wait before the next try: what GitHub asked for, else exponential."""
    after = header(exc, "Retry-After")
    if after is not None and after.strip().isdigit():
        return float(after.strip())
    reset = header(exc, "X-RateLimit-Reset")
    if is_rate_limited(exc) and reset is not None and reset.strip().isdigit():
        return max(0.0, float(reset.strip()) - now) + 1.0
    if is_rate_limited(exc):
        return max(60.0 * base_s, base_s)  # GitHub: wait at least a minute when it says nothing
    return float(base_s * 2 ** (attempt - 1))


def header_value(headers: dict[str, Any], name: str) -> Any:
    return next((v for k, v in headers.items() if k.lower() == name), None)


def missing_comment(url: str) -> HostComment:
    raise GitHubError(f"GitHub POST {url} answered without the created comment")


def pull_info(data: dict[str, Any], repo: str) -> PullRequestInfo:
    """`GET /pulls/{n}` as the port's PullRequestInfo (`repo`: the base when GitHub omits it)."""
    head_repo = (data.get("head") or {}).get("repo") or {}
    return PullRequestInfo(
        number=int(data["number"]),
        title=str(data.get("title") or ""),
        state=str(data.get("state") or "open"),
        draft=bool(data.get("draft")),
        author=str((data.get("user") or {}).get("login") or ""),
        head_sha=str(data["head"]["sha"]),
        base_sha=str(data["base"]["sha"]),
        base_ref=str(data["base"].get("ref") or ""),
        head_repo=head_repo.get("full_name"),
        base_repo=str((data["base"].get("repo") or {}).get("full_name") or repo),
        changed_files=int(data.get("changed_files") or 0),
        html_url=str(data.get("html_url") or ""),
        labels=tuple(str(label.get("name")) for label in data.get("labels") or ()),
    )


def pull_file(item: dict[str, Any]) -> PullFile:
    return PullFile(
        path=str(item["filename"]),
        previous_path=item.get("previous_filename"),
        status=str(item.get("status") or "modified"),
        additions=int(item.get("additions") or 0),
        deletions=int(item.get("deletions") or 0),
        patch=item.get("patch"),
    )


def host_comment(data: dict[str, Any]) -> HostComment:
    user = data.get("user") or {}
    line = data.get("line") or data.get("original_line")
    return HostComment(
        id=int(data["id"]),
        body=str(data.get("body") or ""),
        author=str(user.get("login") or ""),
        author_is_bot=str(user.get("type") or "") == "Bot",
        path=data.get("path"),
        line=int(line) if line else None,
        in_reply_to=data.get("in_reply_to_id"),
        node_id=str(data.get("node_id") or ""),
        commit_id=str(data.get("commit_id") or ""),
        thumbs=_thumbs(data.get("reactions")),
    )


def _thumbs(rollup: object) -> int | None:
    """👍 and 👎 in a comment's `reactions` summary; None when it has none (or a bad one)."""
    if not isinstance(rollup, dict):
        return None
    try:
        return int(rollup.get("+1") or 0) + int(rollup.get("-1") or 0)
    except (TypeError, ValueError):
        return None


def host_reaction(data: dict[str, Any]) -> HostReaction:
    user = data.get("user") or {}
    return HostReaction(
        content=str(data.get("content") or ""),
        user=str(user.get("login") or ""),
        user_is_bot=str(user.get("type") or "") == "Bot",
        created_at=str(data.get("created_at") or ""),
    )


def open_pull(data: dict[str, Any]) -> OpenPull:
    user = data.get("user") or {}
    login = str(user.get("login") or "")
    return OpenPull(
        number=int(data["number"]),
        title=str(data.get("title") or ""),
        author=login,
        author_is_bot=str(user.get("type") or "") == "Bot" or login.endswith("[bot]"),
        draft=bool(data.get("draft")),
        labels=frozenset(str(label.get("name")) for label in data.get("labels") or ()),
        created_at=str(data.get("created_at") or ""),
        head_sha=str((data.get("head") or {}).get("sha") or ""),
        requested_reviewers=frozenset(
            str(u.get("login")) for u in data.get("requested_reviewers") or ()
        ),
        requested_teams=frozenset(str(t.get("slug")) for t in data.get("requested_teams") or ()),
    )


def host_review(data: dict[str, Any]) -> HostReview:
    user = data.get("user") or {}
    return HostReview(
        id=int(data["id"]),
        author=str(user.get("login") or ""),
        author_is_bot=str(user.get("type") or "") == "Bot",
        state=str(data.get("state") or ""),
        commit_sha=str(data.get("commit_id") or ""),
        body=str(data.get("body") or ""),
    )


def inline_json(comment: InlineComment) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "path": comment.path,
        "line": comment.line,
        "side": comment.side,
        "body": comment.body,
    }
    if comment.start_line is not None and comment.start_line < comment.line:
        payload["start_line"] = comment.start_line
        payload["start_side"] = comment.side
    return payload


def omitted_blob(data: Any, max_bytes: int) -> str | None:
    """The blob sha of a file the contents API answered without its content (over 1 MB;
    the Git database API serves it), when it is at most `max_bytes`; else None."""
    if not isinstance(data, dict) or data.get("type") != "file":
        return None
    if data.get("encoding") != "none":  # GitHub's word for "content left out"
        return None
    if int(data.get("size") or 0) > max_bytes or not data.get("sha"):
        return None
    return str(data["sha"])


def file_text(data: Any, max_bytes: int) -> str | None:
    """A file's text from the contents API's answer; None for a directory, a link, or a
    file over 1 MB (for which the API sends no content)."""
    if not isinstance(data, dict) or data.get("type") != "file":
        return None
    if int(data.get("size") or 0) > max_bytes or data.get("encoding") != "base64":
        return None
    try:
        raw = base64.b64decode(str(data.get("content") or ""))
    except (binascii.Error, ValueError):
        return None
    return raw.decode("utf-8", "replace")


def github_error(verb: str, url: str, exc: BaseException, why: str = "") -> GitHubError:
    """What is left of a request after the retries, with its HTTP status and a fix."""
    status = http_status(exc)
    detail = why or message_of(exc)
    fixes = {
        401: "check the github-token input (the token is missing, expired or wrong)",
        403: "give the workflow 'pull-requests: write' and 'contents: read' permissions",
        404: "check GITHUB_REPOSITORY and that the token can see the repository",
    }
    fix = fixes.get(status or 0, "re-run the job; GitHub may be having trouble")
    where = f"HTTP {status}" if status else "no answer"
    return GitHubError(f"GitHub {verb} {url} failed ({where}): {detail}", status=status, fix=fix)


GITHUB_FAILURES = HostFailures(
    host="GitHub",
    raised=(GithubException, requests.ConnectionError, requests.Timeout),
    transient=is_transient,
    rate_limited=is_rate_limited,
    wait=retry_wait,
    message=message_of,
    error=github_error,
)


def permission_of(data: Any) -> str:
    """The collaborators API's answer as admin, maintain, write, triage, read or none:
    role_name tells maintain and triage apart; `permission` folds them into write/read."""
    data = data if isinstance(data, dict) else {}
    role = str(data.get("role_name") or "").lower()
    if role in ("admin", "maintain", "write", "triage", "read"):
        return role
    return str(data.get("permission") or "none").lower()  # a custom role: its base
