"""The benchmark: suites of PRs with known defects, the judge, and the figures (pure)."""
