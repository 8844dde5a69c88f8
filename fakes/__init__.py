"""What tests/ and benchmarks/ share besides the package: the CLI run in process against the
loopback servers (inprocess).

The loopback servers themselves ship in the package (consensus_sim/: the OpenAI, Anthropic
and Ollama provider server, GitHub's REST and GraphQL server), because `consensus demo`
runs on them; the in-memory fakes of the ports too, in consensus/testing.py; the simulated
worlds the benchmarks measure live in benchmarks/sim.
"""
