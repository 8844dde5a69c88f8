"""Simulated worlds shared by tests/ and benchmarks/.

Neither of those trees imports the other: both import from here, and from the package's
own loopback servers (consensus/sim/: the OpenAI, Anthropic and Ollama provider server and
the GitHub REST and GraphQL server, shipped because `consensus demo` runs on them). The
in-memory fakes of the ports ship with the package too, in consensus/testing.py.
"""
