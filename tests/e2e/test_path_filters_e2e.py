"""`paths`/`exclude` with `!` exceptions, end to end: the base branch's .consensus.yml
decides which files of a PR the providers see, and the summary says why each other file
was skipped."""

from __future__ import annotations

from tests.e2e import test_action_e2e as e2e

world = e2e.world  # the loopback GitHub and providers around a git repository

FILTERS = """\
paths: ["src/**", "!src/app/gen/**", "docs/**"]
exclude: ["docs/**", "!docs/api/**"]
"""
GENERATED = "def client():\n    return eval(input())  # GEN_MARKER\n"
GUIDE = "# Guide\nGUIDE_MARKER\n"
API = "# Users API\nAPI_MARKER\n"
SCRIPT = "echo SCRIPT_MARKER\n"


def test_paths_and_exclude_with_exceptions_choose_what_providers_see(world: e2e.World) -> None:
    e2e.git(world.repo, "checkout", "-q", "main")
    e2e.commit(world.repo, {".consensus.yml": e2e.config(world.providers.url) + FILTERS}, "cfg")
    e2e.git(world.repo, "checkout", "-q", "-b", "pr")
    changed = {
        "src/app/db.py": e2e.DB_AFTER,
        "src/app/gen/client.py": GENERATED,
        "docs/guide.md": GUIDE,
        "docs/api/users.md": API,
        "scripts/release.sh": SCRIPT,
    }
    e2e.commit(world.repo, changed, "a change in several places")
    world.open_pr("pr")
    run = world.run()
    assert run.code == 0, run.stderr
    # The review calls (verification calls show a finding's code, not the diff).
    posts = [r.raw for r in world.providers.log.all() if r.method == "POST"]
    prompts = [p for p in posts if "Files in this part of the pull request" in p]
    assert prompts and all("delete_users" in p for p in prompts)  # src/app/db.py
    assert all("API_MARKER" in p for p in prompts)  # docs/api/**: taken back from exclude
    seen = "\n".join(prompts)
    for marker in ("GEN_MARKER", "GUIDE_MARKER", "SCRIPT_MARKER"):
        assert marker not in seen, marker
    summary = world.bot_summary()
    assert "skipped `src/app/gen/client.py`: not in paths" in summary
    assert "skipped `scripts/release.sh`: not in paths" in summary
    assert "skipped `docs/guide.md`: excluded by config" in summary
    assert "`docs/api/users.md`" not in summary.split("skipped", 1)[1]


def test_a_bad_pattern_on_the_base_branch_names_the_key(world: e2e.World) -> None:
    e2e.git(world.repo, "checkout", "-q", "main")
    bad = e2e.config(world.providers.url) + 'exclude: ["x[.py"]\n'
    e2e.commit(world.repo, {".consensus.yml": bad}, "cfg")
    e2e.git(world.repo, "checkout", "-q", "-b", "pr")
    e2e.commit(world.repo, {"src/app/db.py": e2e.DB_AFTER}, "change")
    world.open_pr("pr")
    run = world.run()
    assert run.code == 2, run.stderr
    assert "exclude" in run.stderr and "'x[.py' matches nothing" in run.stderr
    assert len(world.providers.log) == 0
