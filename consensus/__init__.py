"""consensus: multi-model consensus review for pull requests."""

__version__ = "0.1.0"
