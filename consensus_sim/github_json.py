"""GitHub's REST objects, whole: what the loopback GitHub (github_server.py) answers with.

Each builder returns an object with every property GitHub's OpenAPI description requires
of it (tests/contract/github_openapi.py holds the fake to that description), so the adapter is
tested against the bodies GitHub really sends, not a convenient subset. URLs point at
api.github.com and github.com, as GitHub's own do; nothing follows them.
"""

from __future__ import annotations

import hashlib
from typing import Any

JsonObject = dict[str, Any]
API = "https://api.github.com"
WEB = "https://github.com"
WHEN = "2026-01-01T00:00:00Z"


def stable_id(text: str, *, modulo: int = 10**8) -> int:
    """An id that is the same for the same text in every run (hash() is salted)."""
    return int(hashlib.sha1(text.encode()).hexdigest()[:12], 16) % modulo + 1


def node_id(kind: str, ident: int) -> str:
    return f"{kind}_kwDO{ident:08d}"


def simple_user(login: str, *, ident: int | None = None, kind: str = "User") -> JsonObject:
    """A "Simple User": a login, its id and type (User, Bot, Organization) and its links."""
    ident = stable_id(login, modulo=10**6) if ident is None else ident
    url = f"{API}/users/{login}"
    return {
        "login": login,
        "id": ident,
        "node_id": node_id("U" if kind == "User" else "BOT", ident),
        "avatar_url": f"https://avatars.githubusercontent.com/u/{ident}?v=4",
        "gravatar_id": "",
        "url": url,
        "html_url": f"{WEB}/{login.removesuffix('[bot]')}",
        "followers_url": f"{url}/followers",
        "following_url": f"{url}/following{{/other_user}}",
        "gists_url": f"{url}/gists{{/gist_id}}",
        "starred_url": f"{url}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{url}/subscriptions",
        "organizations_url": f"{url}/orgs",
        "repos_url": f"{url}/repos",
        "events_url": f"{url}/events{{/privacy}}",
        "received_events_url": f"{url}/received_events",
        "type": kind,
        "user_view_type": "public",
        "site_admin": False,
    }


def public_user(user: JsonObject) -> JsonObject:
    """`GET /user`: a simple user with its profile."""
    profile = {"name": None, "company": None, "blog": "", "location": None, "email": None}
    counts = {"public_repos": 0, "public_gists": 0, "followers": 0, "following": 0}
    return {
        **user,
        **profile,
        **counts,
        "hireable": None,
        "bio": None,
        "created_at": WHEN,
        "updated_at": WHEN,
    }


def label(full_name: str, name: str) -> JsonObject:
    ident = stable_id(f"{full_name}:{name}")
    return {
        "id": ident,
        "node_id": node_id("LA", ident),
        "url": f"{API}/repos/{full_name}/labels/{name}",
        "name": name,
        "description": "",
        "color": "ededed",
        "default": False,
    }


_REPO_LINKS = (
    "archive_url:/{archive_format}{/ref}",
    "assignees_url:/assignees{/user}",
    "blobs_url:/git/blobs{/sha}",
    "branches_url:/branches{/branch}",
    "collaborators_url:/collaborators{/collaborator}",
    "comments_url:/comments{/number}",
    "commits_url:/commits{/sha}",
    "compare_url:/compare/{base}...{head}",
    "contents_url:/contents/{+path}",
    "contributors_url:/contributors",
    "deployments_url:/deployments",
    "downloads_url:/downloads",
    "events_url:/events",
    "forks_url:/forks",
    "git_commits_url:/git/commits{/sha}",
    "git_refs_url:/git/refs{/sha}",
    "git_tags_url:/git/tags{/sha}",
    "hooks_url:/hooks",
    "issue_comment_url:/issues/comments{/number}",
    "issue_events_url:/issues/events{/number}",
    "issues_url:/issues{/number}",
    "keys_url:/keys{/key_id}",
    "labels_url:/labels{/name}",
    "languages_url:/languages",
    "merges_url:/merges",
    "milestones_url:/milestones{/number}",
    "notifications_url:/notifications{?since,all,participating}",
    "pulls_url:/pulls{/number}",
    "releases_url:/releases{/id}",
    "stargazers_url:/stargazers",
    "statuses_url:/statuses/{sha}",
    "subscribers_url:/subscribers",
    "subscription_url:/subscription",
    "tags_url:/tags",
    "teams_url:/teams",
    "trees_url:/git/trees{/sha}",
)


def repository(full_name: str, *, default_branch: str = "main", fork: bool = False) -> JsonObject:
    """A full repository, as `GET /repos/{owner}/{repo}` and a pull request's head/base."""
    owner, name = full_name.split("/", 1)
    ident = stable_id(full_name)
    url = f"{API}/repos/{full_name}"
    links = {key: url + suffix for key, suffix in (link.split(":", 1) for link in _REPO_LINKS)}
    counts = {
        "forks": 0,
        "forks_count": 0,
        "open_issues": 0,
        "open_issues_count": 0,
        "size": 1,
        "stargazers_count": 0,
        "watchers": 0,
        "watchers_count": 0,
        "network_count": 0,
        "subscribers_count": 0,
    }
    flags = {
        "has_issues": True,
        "has_projects": True,
        "has_wiki": True,
        "has_pages": False,
        "has_downloads": True,
        "has_discussions": False,
        "archived": False,
        "disabled": False,
    }
    return {
        "id": ident,
        "node_id": node_id("R", ident),
        "name": name,
        "full_name": full_name,
        "owner": simple_user(owner, kind="Organization"),
        "private": False,
        "html_url": f"{WEB}/{full_name}",
        "description": None,
        "fork": fork,
        "url": url,
        **links,
        "git_url": f"git://github.com/{full_name}.git",
        "ssh_url": f"git@github.com:{full_name}.git",
        "clone_url": f"{WEB}/{full_name}.git",
        "svn_url": f"{WEB}/{full_name}",
        "mirror_url": None,
        "homepage": None,
        "language": "Python",
        **counts,
        **flags,
        "license": None,
        "visibility": "public",
        "default_branch": default_branch,
        "pushed_at": WHEN,
        "created_at": WHEN,
        "updated_at": WHEN,
    }


def pull_links(full_name: str, number: int) -> JsonObject:
    api = f"{API}/repos/{full_name}"
    hrefs = {
        "self": f"{api}/pulls/{number}",
        "html": f"{WEB}/{full_name}/pull/{number}",
        "issue": f"{api}/issues/{number}",
        "comments": f"{api}/issues/{number}/comments",
        "review_comments": f"{api}/pulls/{number}/comments",
        "review_comment": f"{api}/pulls/comments{{/number}}",
        "commits": f"{api}/pulls/{number}/commits",
        "statuses": f"{api}/statuses/{{sha}}",
    }
    return {key: {"href": href} for key, href in hrefs.items()}


def branch(full_name: str, ref: str, sha: str, *, fork: bool = False) -> JsonObject:
    """A pull request's `head` or `base`."""
    owner = full_name.split("/", 1)[0]
    return {
        "label": f"{owner}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": simple_user(owner, kind="Organization"),
        "repo": repository(full_name, fork=fork),
    }


def author_association(user: JsonObject) -> str:
    return "NONE" if user.get("type") == "Bot" else "MEMBER"


def issue_comment(
    full_name: str, number: int, ident: int, body: str, user: JsonObject
) -> JsonObject:
    api = f"{API}/repos/{full_name}"
    return {
        "id": ident,
        "node_id": node_id("IC", ident),
        "url": f"{api}/issues/comments/{ident}",
        "html_url": f"{WEB}/{full_name}/pull/{number}#issuecomment-{ident}",
        "issue_url": f"{api}/issues/{number}",
        "body": body,
        "user": dict(user),
        "author_association": author_association(user),
        "created_at": WHEN,
        "updated_at": WHEN,
    }


def review(
    full_name: str, number: int, ident: int, *, user: JsonObject, body: str, state: str, commit: str
) -> JsonObject:
    html = f"{WEB}/{full_name}/pull/{number}#pullrequestreview-{ident}"
    pull_url = f"{API}/repos/{full_name}/pulls/{number}"
    return {
        "id": ident,
        "node_id": node_id("PRR", ident),
        "user": dict(user),
        "body": body,
        "state": state,
        "html_url": html,
        "pull_request_url": pull_url,
        "_links": {"html": {"href": html}, "pull_request": {"href": pull_url}},
        "submitted_at": WHEN,
        "commit_id": commit,
        "author_association": author_association(user),
    }


def review_comment(
    full_name: str,
    number: int,
    ident: int,
    *,
    review_id: int,
    comment: JsonObject,
    user: JsonObject,
    commit: str,
    diff_hunk: str,
) -> JsonObject:
    """A review comment on `comment["line"]` (and `start_line`) of the RIGHT side."""
    api = f"{API}/repos/{full_name}"
    html = f"{WEB}/{full_name}/pull/{number}#discussion_r{ident}"
    start = comment.get("start_line")
    return {
        "url": f"{api}/pulls/comments/{ident}",
        "pull_request_review_id": review_id,
        "id": ident,
        "node_id": node_id("PRRC", ident),
        "diff_hunk": diff_hunk,
        "path": comment["path"],
        "commit_id": commit,
        "original_commit_id": commit,
        "user": dict(user),
        "body": comment["body"],
        "created_at": WHEN,
        "updated_at": WHEN,
        "html_url": html,
        "pull_request_url": f"{api}/pulls/{number}",
        "author_association": author_association(user),
        "_links": {
            "self": {"href": f"{api}/pulls/comments/{ident}"},
            "html": {"href": html},
            "pull_request": {"href": f"{api}/pulls/{number}"},
        },
        "start_line": start,
        "original_start_line": start,
        "start_side": "RIGHT" if start is not None else None,
        "line": comment["line"],
        "original_line": comment["line"],
        "side": comment.get("side", "RIGHT"),
        "subject_type": "line",
    }


def reaction_rollup(comment_url: str, reactions: list[JsonObject]) -> JsonObject:
    """The `reactions` summary GitHub adds to each comment it lists: a count per content."""
    counts = {content: 0 for content in REACTION_CONTENTS}
    for item in reactions:
        counts[item["content"]] += 1
    return {"url": f"{comment_url}/reactions", "total_count": len(reactions), **counts}


REACTION_CONTENTS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket")


def reaction(ident: int, content: str, user: JsonObject) -> JsonObject:
    return {
        "id": ident,
        "node_id": node_id("REA", ident),
        "user": dict(user),
        "content": content,
        "created_at": WHEN,
    }


def pull_file(full_name: str, sha: str, item: JsonObject) -> JsonObject:
    """One entry of `GET /pulls/{n}/files` (or of a comparison's files), with its links."""
    path = item["filename"]
    added, removed = int(item.get("additions") or 0), int(item.get("deletions") or 0)
    return {
        "additions": added,
        "deletions": removed,
        "changes": added + removed,
        "sha": item.get("sha") or "0" * 40,
        "blob_url": f"{WEB}/{full_name}/blob/{sha}/{path}",
        "raw_url": f"{WEB}/{full_name}/raw/{sha}/{path}",
        "contents_url": f"{API}/repos/{full_name}/contents/{path}?ref={sha}",
        **item,
    }


def content(full_name: str, ref: str, path: str, *, kind: str, size: int = 0) -> JsonObject:
    """A file or directory entry of the contents API (the file's `content` added by the caller)."""
    url = f"{API}/repos/{full_name}/contents/{path}?ref={ref}"
    sha = hashlib.sha1(f"{ref}:{path}".encode()).hexdigest()
    git = f"{API}/repos/{full_name}/git/{'blobs' if kind == 'file' else 'trees'}/{sha}"
    html = f"{WEB}/{full_name}/{'blob' if kind == 'file' else 'tree'}/{ref}/{path}"
    raw = f"https://raw.githubusercontent.com/{full_name}/{ref}/{path}"
    return {
        "type": kind,
        "size": size,
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "sha": sha,
        "url": url,
        "git_url": git,
        "html_url": html,
        "download_url": raw if kind == "file" else None,
        "_links": {"self": url, "git": git, "html": html},
    }


def blob(full_name: str, sha: str, content: str) -> JsonObject:
    """A blob of the Git database API (`size` added by the caller)."""
    return {
        "sha": sha,
        "node_id": node_id("B", stable_id(sha)),
        "url": f"{API}/repos/{full_name}/git/blobs/{sha}",
        "content": content,
        "encoding": "base64",
        "size": 0,
    }


def commit(full_name: str, sha: str, message: str = "a commit") -> JsonObject:
    api = f"{API}/repos/{full_name}"
    person = {"name": "Dev", "email": "dev@example.com", "date": WHEN}
    return {
        "url": f"{api}/commits/{sha}",
        "sha": sha,
        "node_id": node_id("C", stable_id(sha)),
        "html_url": f"{WEB}/{full_name}/commit/{sha}",
        "comments_url": f"{api}/commits/{sha}/comments",
        "commit": {
            "url": f"{api}/git/commits/{sha}",
            "author": person,
            "committer": person,
            "message": message,
            "comment_count": 0,
            "tree": {"sha": "0" * 40, "url": f"{api}/git/trees/{'0' * 40}"},
        },
        "author": None,
        "committer": None,
        "parents": [],
    }


def comparison(
    full_name: str, base: str, head: str, *, status: str, files: list[JsonObject]
) -> JsonObject:
    """`GET /compare/{base}...{head}`."""
    ahead = status in ("ahead", "diverged")
    return {
        "url": f"{API}/repos/{full_name}/compare/{base}...{head}",
        "html_url": f"{WEB}/{full_name}/compare/{base}...{head}",
        "permalink_url": f"{WEB}/{full_name}/compare/{full_name.split('/')[0]}:{base}...{head}",
        "diff_url": f"{WEB}/{full_name}/compare/{base}...{head}.diff",
        "patch_url": f"{WEB}/{full_name}/compare/{base}...{head}.patch",
        "base_commit": commit(full_name, base),
        "merge_base_commit": commit(full_name, base),
        "status": status,
        "ahead_by": 1 if ahead else 0,
        "behind_by": 1 if status == "diverged" else 0,
        "total_commits": 1 if ahead else 0,
        "commits": [commit(full_name, head)] if ahead else [],
        "files": [pull_file(full_name, head, item) for item in files],
    }


def rate_limit() -> JsonObject:
    window = {"limit": 5000, "remaining": 4999, "reset": 1767225600, "used": 1}
    return {"resources": {"core": window, "search": window}, "rate": window}
