"""A wide change like pallets/click `8.1.8...main`: 128 files in a real git repository.

Source modules with large rewrites, tests, docs, examples, CI and packaging files, built
with git itself, deterministic (no randomness): the offline stand-in for the real range
whose default-budget review stopped part-way. `provider_config` is the three-family panel
served by the loopback provider server.

    python -m tests.e2e.wide_change OUT_DIR   # build it there, to try by hand
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

FILES = 128
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "PATH": "/usr/bin:/bin",
}


def _layout() -> list[tuple[str, int]]:
    """(path, changed lines) for the 128 files: what a release's worth of work touches."""
    files: list[tuple[str, int]] = []
    core = ["core", "types", "decorators", "termui", "utils", "parser", "shell_completion"]
    core += ["formatting", "exceptions", "globals", "testing", "_compat", "_termui_impl"]
    core += ["_textwrap", "_winconsole", "__init__"]
    files += [(f"src/click/{name}.py", 150 - 8 * n) for n, name in enumerate(core)]
    files += [(f"tests/test_{n:02d}.py", 24 + (n * 7) % 30) for n in range(44)]
    files += [(f"docs/page_{n:02d}.rst", 12 + (n * 5) % 20) for n in range(40)]
    files += [(f"examples/ex_{n:02d}/cli.py", 10 + n % 10) for n in range(20)]
    files += [(f".github/workflows/job_{n}.yaml", 12) for n in range(4)]
    files += [("CHANGES.rst", 60), ("pyproject.toml", 15), ("README.md", 10)]
    files += [(f"requirements/req_{n}.txt", 5) for n in range(FILES - len(files))]
    assert len(files) == FILES
    return files


def _text(path: str, lines: int, version: int) -> str:
    """A file's content; `version` 1 changes every other line of the first `lines`."""
    stem = path.rsplit("/", 1)[-1].split(".")[0]
    out = []
    for n in range(lines * 2):
        changed = version == 1 and n % 2 == 0
        if path.endswith(".py"):
            value = f"{stem}_{n} * 3 + len(args)" if changed else f"{stem}_{n} + 1"
            out.append(f"    result_{n} = compute({value!r}, option={n})  # step {n}")
        elif path.endswith((".rst", ".md")):
            word = "updated" if changed else "explains"
            out.append(f"Paragraph {n} {word} how the {stem} command handles option {n}.")
        else:
            out.append(f"key_{n} = {'new' if changed else 'old'}-{stem}-{n}")
    if path.endswith(".py"):
        return f"def {stem}_main(args):\n" + "\n".join(out) + "\n    return args\n"
    return "\n".join(out) + "\n"


def build(root: Path) -> Path:
    """A repository at `root` with `main` and `feature` (checked out): 128 changed files."""
    root.mkdir(parents=True)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    for version, branch in ((0, None), (1, "feature")):
        if branch:
            git("checkout", "-q", "-b", branch)
        for path, lines in _layout():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_text(path, lines, version), encoding="utf-8")
        git("add", "-A")
        git("commit", "-q", "-m", branch or "base")
    return root


def changed_lines() -> int:
    """Lines added plus lines removed by the change."""
    return sum(2 * lines for _, lines in _layout())


def provider_config(url: str) -> str:
    """Three provider families on the loopback provider server, four personas."""
    return textwrap.dedent(
        f"""\
        providers:
          - model: openai/gpt-test
            api_base: {url}/v1
            api_key_env: FAKE_OPENAI_KEY
          - model: anthropic/claude-test
            api_base: {url}
            api_key_env: FAKE_ANTHROPIC_KEY
          - model: openai/gemini-test
            api_base: {url}/v1
            api_key_env: FAKE_OPENAI_KEY
            family: google
        personas: [correctness, security, performance, maintainability]
        """
    )


if __name__ == "__main__":
    print(build(Path(sys.argv[1])), changed_lines(), "changed lines")
