"""Loopback servers shared by tests/ and benchmarks/.

Real HTTP servers on 127.0.0.1 that speak the OpenAI, Anthropic and Ollama APIs
(provider_server) and GitHub's REST and GraphQL APIs (github_server, github_json,
github_graphql), and the CLI run in process against them (inprocess). The in-memory fakes
of the ports ship with the package, in consensus/testing.py; the simulated worlds the
benchmarks measure live in benchmarks/sim.
"""
