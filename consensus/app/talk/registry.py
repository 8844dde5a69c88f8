"""Slash commands as registered objects: each one `Command` with its text, its permission,
its argument grammar and its handler, in one table a comment's words are looked up in.

A built-in command is its file (`commands/<name>.md`: name, usage, summary, who may run it,
the help text; settings/command_files.py reads it) and its handler, registered with its grammar
(`Registry.command`); loading pairs them, and a file without a handler or a handler without
a file fails at start-up. A repository's saved review workflow registers the same way
(`workflow_command`): its file says what it is, it takes no arguments, and its handler runs
it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from consensus.app.pull.pull_context import PullContext
from consensus.app.talk.spend_commands import workflow_now
from consensus.publish.answers import Section
from consensus.publish.slash import Arguments, Grammar
from consensus.settings.command_files import CommandSpec, load_commands, resolve
from consensus.settings.workflows import Workflow, workflow_spec

Handler = Callable[[PullContext, Arguments], Section]


@dataclass(frozen=True)
class Command:
    """One slash command: what its file says, how its arguments are parsed, what runs it."""

    spec: CommandSpec
    grammar: Grammar
    handler: Handler

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def needs_write(self) -> bool:
        return self.spec.needs_write


class Registry:
    """The built-in commands: handlers registered with their grammar, paired with their
    files when loaded."""

    def __init__(self) -> None:
        self._handlers: dict[str, tuple[Grammar, Handler]] = {}

    def command(self, name: str, grammar: Grammar) -> Callable[[Handler], Handler]:
        """Register the decorated function as the handler of built-in command `name`."""

        def register(handler: Handler) -> Handler:
            self._handlers[name] = (grammar, handler)
            return handler

        return register

    def load(self, directory: Path | None = None) -> dict[str, Command]:
        """Every built-in command, by name, in the order the handlers were registered; a
        ConfigError naming the file when a file and the handlers do not pair."""
        specs = load_commands(directory, handlers=self._handlers)
        return {name: Command(spec, *self._handlers[name]) for name, spec in specs.items()}


def lookup(word: str, commands: Mapping[str, Command]) -> Command | None:
    """The command a name or alias means (the parser lowercased it)."""
    spec = resolve(word, {name: command.spec for name, command in commands.items()})
    return commands[spec.name] if spec is not None else None


def workflow_command(workflow: Workflow) -> Command:
    """A saved review workflow as a command: `/consensus <name>`, no arguments, run by
    `workflow_now` (write permission: it calls the providers)."""

    def run(context: PullContext, arguments: Arguments) -> Section:
        return workflow_now(context, workflow)

    return Command(workflow_spec(workflow), Grammar.NONE, run)
