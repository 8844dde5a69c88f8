"""GitHub's GraphQL API, for what REST does not offer: review threads (read, resolve,
unresolve) and several files at one commit in one request. The documents, and GraphQL
JSON → port types. No PyGithub here: adapters/github.py sends them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from consensus.ports import (
    CommentEdit,
    HostComment,
    ReviewThread,
)

T = TypeVar("T")
GraphQL = Callable[[str, dict[str, Any]], dict[str, Any]]  # (document, variables) → data

# Review threads exist only in GraphQL. The first and the last comment tell whose thread it
# is and who spoke last; `__typename` is "Bot" for apps such as github-actions[bot].
_COMMENT = "databaseId body path line author { login __typename }"
REVIEW_THREADS = f"""
query ConsensusReviewThreads($owner: String!, $name: String!, $number: Int!, $cursor: String) {{
  repository(owner: $owner, name: $name) {{
    pullRequest(number: $number) {{
      reviewThreads(first: 100, after: $cursor) {{
        pageInfo {{ hasNextPage endCursor }}
        nodes {{
          id
          isResolved
          resolvedBy {{ login }}
          first: comments(first: 1) {{ nodes {{ {_COMMENT} }} }}
          last: comments(last: 1) {{ nodes {{ {_COMMENT} }} }}
        }}
      }}
    }}
  }}
}}
"""
RESOLVE_THREAD = """
mutation ConsensusResolveThread($id: ID!) {
  resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}
"""
UNRESOLVE_THREAD = """
mutation ConsensusUnresolveThread($id: ID!) {
  unresolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}
"""


def thread_comment(node: dict[str, Any]) -> HostComment:
    """A comment as GraphQL gives it (a review thread's, or a closed PR's conversation's)."""
    author = node.get("author") or {}
    login = str(author.get("login") or "")
    bot = author.get("__typename") == "Bot" or login.endswith("[bot]")
    if bot and not login.endswith("[bot]"):
        login += "[bot]"  # GraphQL names an app without the suffix REST and identities use
    return HostComment(
        id=int(node.get("databaseId") or 0),
        body=str(node.get("body") or ""),
        author=login,
        author_is_bot=bot,
        path=node.get("path"),
        line=int(node["line"]) if node.get("line") else None,
    )


def review_thread(node: dict[str, Any]) -> ReviewThread | None:
    """A thread from GraphQL; None for one without comments (nothing to judge it by)."""
    first = ((node.get("first") or {}).get("nodes")) or []
    last = ((node.get("last") or {}).get("nodes")) or []
    if not first or not last:
        return None
    resolver = node.get("resolvedBy") or {}
    return ReviewThread(
        id=str(node["id"]),
        resolved=bool(node.get("isResolved")),
        resolved_by=str(resolver["login"]) if resolver.get("login") else None,
        first=thread_comment(first[0]),
        last=thread_comment(last[0]),
    )


def graphql_data(answer: Any) -> tuple[dict[str, Any], str]:
    """(data, the errors GitHub reported in a 200 answer, joined; "" when none)."""
    answer = answer if isinstance(answer, dict) else {}
    errors = "; ".join(str(e.get("message")) for e in (answer.get("errors") or [])[:3])
    return dict(answer.get("data") or {}), errors


def thread_page(data: dict[str, Any]) -> tuple[list[ReviewThread], str | None]:
    """One page of `reviewThreads`, and the cursor of the next one (None: the last page)."""
    pull = ((data.get("repository") or {}).get("pullRequest")) or {}
    page = pull.get("reviewThreads") or {}
    threads = [t for t in map(review_thread, page.get("nodes") or ()) if t is not None]
    info = page.get("pageInfo") or {}
    more = info.get("hasNextPage") and info.get("endCursor")
    return threads, str(info["endCursor"]) if more else None


def files_request(repo: str, paths: Sequence[str], ref: str) -> tuple[str, dict[str, Any]]:
    """(query, variables) reading `paths` at `ref` in one request: aliases f0…, expressions
    $e0… ("REF:path"). `paths` must not be empty."""
    declared = ", ".join(f"$e{n}: String" for n in range(len(paths)))
    fields = " ".join(
        f"f{n}: object(expression: $e{n}) {{ ... on Blob {{ text isBinary byteSize }} }}"
        for n in range(len(paths))
    )
    query = (
        f"query ConsensusReadFiles($owner: String!, $name: String!, {declared}) "
        f"{{ repository(owner: $owner, name: $name) {{ {fields} }} }}"
    )
    owner, name = repo.split("/", 1)
    expressions = {f"e{n}": f"{ref}:{path}" for n, path in enumerate(paths)}
    return query, {"owner": owner, "name": name, **expressions}


def blob_texts(data: dict[str, Any], paths: Sequence[str], max_bytes: int) -> dict[str, str | None]:
    """path → text; None where there is no such file, or it is binary or too large."""
    repository = data.get("repository") or {}
    texts: dict[str, str | None] = {}
    for n, path in enumerate(paths):
        blob = repository.get(f"f{n}") or {}
        text = blob.get("text")
        usable = isinstance(text, str) and not blob.get("isBinary")
        small = int(blob.get("byteSize") or 0) <= max_bytes
        texts[path] = text if usable and small else None
    return texts


# Who last edited a comment, and when: REST does not say (the summary's state is believed
# only when we wrote it last; publish/thread.py).
EDIT_QUERY = (
    "query($id: ID!) { node(id: $id) { ... on Comment { lastEditedAt "
    "editor { __typename login } } } }"
)


def comment_edit_of(data: dict[str, Any]) -> CommentEdit | None:
    """The edit EDIT_QUERY found; None for a comment never edited. A Bot's GraphQL login
    lacks REST's `[bot]`: it is added back."""
    node = data.get("node") or {}
    edited_at, editor = node.get("lastEditedAt"), node.get("editor")
    if not edited_at and not editor:
        return None
    login = str((editor or {}).get("login") or "")
    if login and (editor or {}).get("__typename") == "Bot" and not login.endswith("[bot]"):
        login += "[bot]"
    return CommentEdit(editor=login, edited_at=str(edited_at or ""))


def every_page(
    graphql: GraphQL,
    document: str,
    variables: dict[str, Any],
    page_of: Callable[[dict[str, Any]], tuple[list[T], str | None]],
) -> list[T]:
    """Every item of a connection GraphQL hands out page by page: `page_of` reads one
    answer as its items and the next page's cursor (None: it was the last)."""
    items: list[T] = []
    cursor: str | None = None
    while True:
        page, cursor = page_of(graphql(document, {**variables, "cursor": cursor}))
        items += page
        if cursor is None:
            return items


def all_threads(graphql: GraphQL, repo: str, number: int) -> list[ReviewThread]:
    """Every review thread of PR `number`, page by page."""
    owner, name = repo.split("/", 1)
    variables = {"owner": owner, "name": name, "number": number}
    return every_page(graphql, REVIEW_THREADS, variables, thread_page)
