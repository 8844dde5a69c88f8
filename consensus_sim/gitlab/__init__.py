"""A loopback GitLab, written by us: GitLab's REST API v4 (and the one GraphQL query)
for every request consensus makes, on 127.0.0.1, with its state in memory.

`server.FakeGitLab` serves it, `state.GitLabState` holds and changes it, `routes` answers
each request as GitLab does, `diffs` makes merge request diffs and checks positions,
`entities` shapes the JSON, `hooks` writes the webhook payloads GitLab would send.
Like the rest of consensus_sim, it imports nothing of consensus.
"""

from consensus_sim.gitlab.server import FakeGitLab, running
from consensus_sim.gitlab.state import DEVELOPER, GUEST, MAINTAINER, REPORTER, GitLabState

__all__ = ["DEVELOPER", "GUEST", "MAINTAINER", "REPORTER", "FakeGitLab", "GitLabState", "running"]
