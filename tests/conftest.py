"""Shared test setup: litellm never fetches its price map, no test touches the real journal."""

from __future__ import annotations

import os

import pytest

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"


@pytest.fixture(autouse=True)
def _journal_in_tmp(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONSENSUS_HOME", str(tmp_path_factory.mktemp("consensus-home")))
