"""Simulated worlds the benchmarks measure: synthetic PRs and panels (quality_world,
quality_catalog), re-runs on one head (rerun_world), a repository of agent PRs
(queue_world), a corpus of "same problem?" pairs (merge_corpus), a matrix of faults
(fault_matrix).

They import the package and the loopback servers in `fakes/`; of the tests, only the
reduced runs in `tests/sim/` import them.
"""
