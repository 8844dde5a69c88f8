"""Loopback servers and simulated worlds shared by tests/ and benchmarks/.

Neither of those trees imports the other: both import from here. Real HTTP servers on
127.0.0.1 that speak the OpenAI, Anthropic and Ollama APIs (provider_server) and
GitHub's REST API (github_server), and a repository of agent PRs (queue_world). The
in-memory fakes of the ports ship with the package, in consensus/testing.py.
"""
