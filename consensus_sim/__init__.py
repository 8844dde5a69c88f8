"""Simulated outside world, shipped in the package: loopback HTTP servers on 127.0.0.1.

`provider_server` speaks the OpenAI, Anthropic and Ollama APIs with scripted answers,
`github_server` GitHub's REST and GraphQL APIs, `gitlab` (a sub-package) GitLab's REST API
v4. `consensus demo` runs a real review against
them with no key and no network; the end-to-end tests and benchmarks use the same servers.
Nothing here is imported by a review: only the demo's flow and the tests reach it.
"""
