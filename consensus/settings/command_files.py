"""Command files → CommandSpec: what each slash command is called, does, and who may run it.

One Markdown file per command in `commands/` (shipped in the wheel as
`consensus/_builtin/commands`). YAML front matter: `name` (equal to the file name),
`usage`, `summary`, `permission` (read | write), `spends_tokens`, `aliases`; the body
is the help text. Files are validated strictly at start-up, like personas: an unknown
key, a missing field, a duplicate name or alias, a command without a handler (or a
handler without a file) is a ConfigError naming the file and the field.

`/consensus help` and the documentation's command table (docs/slash-commands.md) are
rendered from these files.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from enum import Enum
from pathlib import Path

from pydantic import Field, field_validator

from consensus.errors import ConfigError, ConsensusError
from consensus.settings.frontmatter import OneLine, Rules, closest, read_document
from consensus.settings.strict import Strict

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # consensus/
_NAME = r"^[a-z][a-z0-9-]{0,30}$"
PREFIX = "/consensus"
README_START = "<!-- commands:start -->"
README_END = "<!-- commands:end -->"
_FIXES = {
    "name": "a lowercase word such as 'review', the same as the file name",
    "usage": "one line starting with '/consensus <name>', e.g. '/consensus explain F3'",
    "summary": "one line saying what the command does",
    "permission": "read (anyone may run it) or write (write, maintain or admin permission)",
    "spends_tokens": "true when the command calls a provider, else false",
    "aliases": "a list of other lowercase names, e.g. [rereview]",
}


_RULES = Rules(
    id_field="name",
    keys_hint="name, usage, summary, permission, spends_tokens, aliases",
    body_hint="the help text",
    fixes=_FIXES,
    default_fix="see commands/help.md",
)


class Permission(str, Enum):
    READ = "read"
    WRITE = "write"


class _FrontMatter(Strict):
    name: str = Field(pattern=_NAME)
    usage: OneLine
    summary: OneLine
    permission: Permission
    spends_tokens: bool
    aliases: tuple[str, ...] = ()

    @field_validator("aliases", mode="after")
    @classmethod
    def _alias_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for alias in value:
            if not re.match(_NAME, alias):
                raise ValueError(f"alias {alias!r} must be a lowercase word")
        return value


class CommandSpec(Strict):
    """A loaded command file."""

    name: str
    usage: str
    summary: str
    permission: Permission
    spends_tokens: bool
    aliases: tuple[str, ...]
    help: str
    path: str

    @property
    def needs_write(self) -> bool:
        # A command that spends tokens is never open to everyone, whatever its file says.
        return self.permission is Permission.WRITE or self.spends_tokens


def builtin_command_dir(package_dir: Path = _PACKAGE_DIR) -> Path:
    """Inside the wheel, else the repository's `commands/`."""
    installed = package_dir / "_builtin" / "commands"
    return installed if installed.is_dir() else package_dir.parent / "commands"


def parse_command(text: str, *, path: str) -> CommandSpec:
    document = read_document(text, path=path, model=_FrontMatter, rules=_RULES)
    front, body = document.front, document.body
    if not front.usage.lower().startswith(f"{PREFIX} {front.name}"):
        raise ConfigError(path, "usage", "must start with the command", fix=_FIXES["usage"])
    return CommandSpec(**front.model_dump(), help=" ".join(body.split()), path=path)


def load_commands(
    directory: Path | None = None, *, handlers: Collection[str] | None = None
) -> dict[str, CommandSpec]:
    """Every command file of `directory` (built-ins by default), by name, in file order.

    With `handlers`, each command must have one and each handler a file.
    """
    directory = directory if directory is not None else builtin_command_dir()
    if not directory.is_dir():
        raise ConsensusError(
            f"command files not found at {directory}",
            fix="reinstall consensus-review; the package is incomplete",
        )
    specs: dict[str, CommandSpec] = {}
    taken: dict[str, str] = {}
    for path in sorted(directory.glob("*.md")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(str(path), None, f"cannot be read: {exc}") from exc
        spec = parse_command(text, path=str(path))
        for word in (spec.name, *spec.aliases):
            if word in taken:
                raise ConfigError(
                    str(path),
                    "aliases" if word != spec.name else "name",
                    f"'{word}' is already used by {taken[word]}",
                    fix="each name and alias may belong to one command only",
                )
            taken[word] = str(path)
        specs[spec.name] = spec
    if handlers is not None:
        for name, spec in specs.items():
            if name not in handlers:
                raise ConfigError(spec.path, "name", f"no command '{name}' is implemented")
        missing = sorted(set(handlers) - set(specs))
        if missing:
            raise ConsensusError(
                f"no command file for: {', '.join(missing)} in {directory}",
                fix="reinstall consensus-review; the package is incomplete",
            )
        specs = {name: specs[name] for name in handlers}  # listed in the handlers' order
    return specs


def resolve(word: str, specs: Mapping[str, CommandSpec]) -> CommandSpec | None:
    """The command a name or alias means (already lowercased by the parser)."""
    for spec in specs.values():
        if word == spec.name or word in spec.aliases:
            return spec
    return None


def closest_command(word: str, specs: Mapping[str, CommandSpec]) -> str | None:
    """The command `word` most likely meant, by name or alias (spelling only, no prefix)."""
    guess = closest(
        word, [w for spec in specs.values() for w in (spec.name, *spec.aliases)], prefix=False
    )
    spec = resolve(guess, specs) if guess is not None else None
    return spec.name if spec is not None else None


def command_table(
    specs: Mapping[str, CommandSpec], *, writers: str = "write, maintain or admin"
) -> list[str]:
    """The Markdown table of commands: help replies and the documentation show the same
    (`writers`: who may run a command that writes, as the host names them; the
    documentation's are GitHub's)."""
    rows = ["| command | what it does | who may run it |", "|---|---|---|"]
    for spec in specs.values():
        who = writers if spec.needs_write else "anyone"
        spends = " Calls the providers." if spec.spends_tokens else ""
        aliases = f" (also: {', '.join(spec.aliases)})" if spec.aliases else ""
        rows.append(f"| `{spec.usage}`{aliases} | {spec.summary}{spends} | {who} |")
    return rows


def readme_block(specs: Mapping[str, CommandSpec]) -> str:
    """What docs/slash-commands.md holds between its command markers."""
    return "\n".join([README_START, *command_table(specs), README_END])
