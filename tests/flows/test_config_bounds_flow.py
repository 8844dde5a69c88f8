"""A pull request's base branch whose .consensus.yml asks for 500 judges is refused before
any model is asked: the error names the file, the key and the bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from consensus.app.pull.review import review_pull_request
from consensus.errors import ConfigError
from consensus.publish.thread import ACTIONS
from tests.flows.flows_world import CONFIG, NUMBER, World


def test_a_base_config_asking_for_500_judges_is_refused_before_any_model_is_called(
    tmp_path: Path,
) -> None:
    world = World(tmp_path)
    voters = ", ".join(f"openai/judge-{n}" for n in range(500))
    world.host.pulls[NUMBER].base_files[".consensus.yml"] = (
        CONFIG + f"inspector: {{voters: [{voters}]}}\n"
    )

    with pytest.raises(ConfigError) as refused:
        review_pull_request(
            world.services(),
            world.step(),
            NUMBER,
            event="pull_request",
            carry=True,
            identity=ACTIONS,
        )

    assert refused.value.exit_code == 2
    assert refused.value.key == "inspector.voters"
    assert "at most 16 item(s) (it has 500)" in str(refused.value)
    assert world.models.calls == []
