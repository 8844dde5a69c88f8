"""Run the real `consensus` command line in this process, as a subprocess would see it.

Each run gets exactly the environment it is given (everything else is unset for its
duration), its own working directory, and its stdout and stderr apart. The CLI, the
adapters and the loopback servers are all real; only the interpreter is shared, so
litellm's import (seconds) is paid once per test session instead of once per run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from consensus.cli.main import cli


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run_consensus(
    args: Sequence[str], *, cwd: Path, env: Mapping[str, str], stdin: str | bytes | None = None
) -> Ran:
    """`consensus ARGS` in `cwd` with exactly `env`; its exit code and output."""
    clean: dict[str, str | None] = {name: None for name in os.environ}
    clean.update(env)
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, list(args), env=clean, input=stdin)
    finally:
        os.chdir(previous)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Ran(result.exit_code, result.stdout, result.stderr)
