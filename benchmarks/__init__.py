"""Benchmarks: scripts that measure (`python benchmarks/<name>.py`), and the simulations
they run (`benchmarks.sim`). Figures, not assertions; the tests never import these scripts."""
