"""Tests and `.ci/run` leave the developer's machine as they found it: no system packages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# apt-get, apt, dnf, yum, apk, brew, pacman: any of them asked to install or update.
INSTALLS = re.compile(
    r"\b(?:apt-get|apt|dnf|yum|apk|brew|pacman)\b[\"',\s]+(?:-\S+[\"',\s]+)*"
    r"(?:install|update|upgrade|add|-S)\b"
)


def scripts() -> list[Path]:
    found = [ROOT / ".ci" / "run"]
    for folder in ("tests", "fakes", "benchmarks"):
        found += sorted((ROOT / folder).rglob("*.py"))
    return [path for path in found if path != Path(__file__)]


@pytest.mark.parametrize(
    "line",
    [
        "command -v chromium || (apt-get update -qq && apt-get install -y -qq chromium)",
        'for step in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "chromium"]):',
        "brew install chromium",
    ],
)
def test_the_check_sees_a_package_install(line: str) -> None:
    assert INSTALLS.search(line)


def test_no_test_and_not_ci_run_installs_system_packages() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in scripts()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if INSTALLS.search(line)
    ]
    assert offenders == []
