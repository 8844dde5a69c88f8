"""What slash commands answer: Markdown from typed data. Pure.

Every text a model or a commenter wrote, and every field read back from the summary's
state, passes through the sanitiser (render/untrusted.py: no HTML, no pings, no images,
no links, nothing invisible). What an answer says of the host (a pull request, a role) is in
its words (`HostWords`, model/host.py): a GitLab Reporter reads "Reporter", not GitHub's
"triage". Only the commenter is mentioned live (`mention`), in
answer to their own comment; anyone else is named without a ping (`person`). An answer is
one comment per command comment; a long section collapses into `<details>`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import yaml

from consensus.decide.evidence import judged_by
from consensus.model.host import HostWords
from consensus.model.urls import without_userinfo
from consensus.publish.state import Dismissal, FindingRecord, TrackedFinding
from consensus.render.markdown import cell, escape_markdown_text, row
from consensus.render.untrusted import code, escape_line, mention, person
from consensus.settings.command_files import CommandSpec, closest_command, command_table
from consensus.settings.config import ProviderSettings, Settings
from consensus.settings.personas import Persona

LONG_LINES = 12  # a section longer than this collapses
WRITE_LEVELS = frozenset({"admin", "maintain", "write"})


@dataclass(frozen=True)
class Section:
    """One command's part of the answer. `ok` False is a failure (😕, reason in `body`)."""

    title: str
    body: str
    ok: bool = True


def answer_marker(comment_id: int) -> str:
    return f"<!-- consensus:reply to={comment_id} -->"


def render_answer(comment_id: int, login: str, sections: Sequence[Section]) -> str:
    lines = [answer_marker(comment_id)]
    for section in sections:
        mark = "" if section.ok else "😕 "
        body = section.body.strip()
        if body.count("\n") + 1 > LONG_LINES:
            lines += [
                "<details>",
                f"<summary>{mark}{section.title}</summary>",
                "",
                body,
                "",
                "</details>",
                "",
            ]
        else:
            lines += [f"**{mark}{section.title}**", "", body, ""]
    lines.append(f"<sub>in answer to {mention(login)}</sub>")
    return "\n".join(lines)


# --------------------------------------------------------------------------- help


def help_section(
    specs: Mapping[str, CommandSpec],
    *,
    words: HostWords,
    topic: CommandSpec | None = None,
    unknown: str = "",
    workflows: Sequence[CommandSpec] = (),
) -> Section:
    """The command table (and the repository's saved workflows, run as `/consensus <name>`);
    for an `unknown` word, a near miss among both first. Who may run a command is said in
    the host's `words`; so are a built-in command's own texts."""
    if topic is not None:
        who = words.writers if topic.needs_write else "anyone"
        text = f"`{topic.usage}`: {topic.summary}\n\n{topic.help}"
        text = words.in_our_text(text) if topic in specs.values() else text  # ours only
        return Section(f"/consensus help {topic.name}", f"{text}\n\nWho may run it: {who}.")
    ours = {name: in_words(spec, words) for name, spec in specs.items()}
    lines = [
        *command_table(ours, writers=words.writers_short),
        "",
        *workflow_lines(workflows, words),
        "Commands go at the start of a line; code and quotes are never commands.",
    ]
    if unknown:
        guess = closest_command(unknown, {**specs, **{w.name: w for w in workflows}})
        hint = f" Did you mean `/consensus {guess}`?" if guess else ""
        head = f"There is no command {code(unknown[:40])}.{hint}"
        return Section("Unknown command", "\n".join([head, "", *lines]))
    return Section("consensus commands", "\n".join(lines))


def in_words(spec: CommandSpec, words: HostWords) -> CommandSpec:
    """A built-in command's file with its summary and help in the host's words."""
    said = {"summary": words.in_our_text(spec.summary), "help": words.in_our_text(spec.help)}
    return CommandSpec.model_validate({**dict(spec), **said})


def workflow_lines(workflows: Sequence[CommandSpec], words: HostWords) -> list[str]:
    """The saved review workflows as a table (a workflow is a command file's equal here)."""
    if not workflows:
        return []
    rows = [row(["workflow", "what it reviews", "who may run it"]), row(["---"] * 3)]
    rows += [
        row([code(w.usage), cell(w.summary) + " Calls the providers.", words.writers_short])
        for w in workflows
    ]
    return [
        "Saved review workflows of this repository (`.consensus/workflows/` on the base "
        "branch), each run as `/consensus <name>`:",
        "",
        *rows,
        "",
    ]


def workflows_section(
    workflows: Sequence[CommandSpec], broken: Mapping[str, str], *, words: HostWords
) -> Section:
    """`/consensus workflows`: name, file and description of each; broken files named."""
    lines = [
        f"- {code(f'/consensus {w.name}')} ({code(w.path)}): {escape_markdown_text(w.summary)}"
        for w in workflows
    ]
    lines += [
        f"- {code(name)}: **broken**, not runnable: {escape_markdown_text(problem)}"
        for name, problem in sorted(broken.items())
    ]
    if not lines:
        lines = [
            "This repository has no saved review workflows. Add one as "
            "`.consensus/workflows/<name>.md` on the default branch."
        ]
    else:
        lines += [
            "",
            f"Running one needs {words.writers}: it calls the providers.",
        ]
    return Section("Saved review workflows", "\n".join(lines))


def denied_section(spec: CommandSpec, login: str, permission: str, words: HostWords) -> Section:
    """The polite refusal: what the command needs and what the asker has, as the host names
    roles ("needs the Developer role or higher (yours: Reporter)" on GitLab)."""
    spends = "it calls paid providers, so " if spec.spends_tokens else ""
    body = (
        f"Sorry {mention(login)}, `/consensus {spec.name}` needs {words.writers} "
        f"(yours: {words.role(permission)}): {spends}nothing was run. A maintainer "
        "can run it for you."
    )
    return Section(f"/consensus {spec.name}: not allowed", body)


# --------------------------------------------------------------------------- explain


def explain_section(
    record: FindingRecord | None, tracked: TrackedFinding | None, dismissal: Dismissal | None
) -> Section:
    if record is None and tracked is None:
        raise LookupError
    if record is None:
        assert tracked is not None
        body = (
            f"{tracked.id} ({tracked.severity.value}) at {code(f'{tracked.path}:{tracked.line}')}"
            f": {escape_line(tracked.title)}. It comes from an earlier run, whose "
            "votes are no longer kept; `/consensus review` reviews it again."
        )
        return Section(f"{tracked.id}", body)
    title = escape_line(record.title)
    lines = [
        f"**{record.severity.value}** · {code(f'{record.path}:{record.line}')} · {title}",
        "",
        f"- {decision(record)}",
    ]
    if record.verification is not None and record.verification.votes:
        lines.append(f"- reported by {record.votes_for} of {record.votes_of} families")
    if dismissal is not None:
        why = f": {escape_line(dismissal.reason)}" if dismissal.reason else ""
        lines.append(f"- dismissed by {person(dismissal.by)}{why}")
    if record.members:
        lines += ["", "What each reviewer reported:"]
        lines += [
            f"- {code(m.provider)} as {code(m.persona)}: {escape_line(m.title)}"
            for m in record.members
        ]
    else:  # a record kept without its members: who, at least
        lines += [
            f"- providers: {', '.join(code(p) for p in record.providers) or '(none)'}",
            f"- personas: {', '.join(code(p) for p in record.personas) or '(none)'}",
        ]
    lines += judge_lines(record)
    return Section(f"{record.id}: why", "\n".join(lines))


def decision(record: FindingRecord) -> str:
    """The status and what settled it: what the judges said, by family, and the chance it
    is real after them ("**verified**: confirmed by qwen and meta · 0.94 that it is real");
    the reason when no judge answered ("**unverified**: low severity, 1 of 4 families")."""
    status = f"**{record.status.value}**"
    note = record.verification
    if note is None or not note.votes:
        prefix = f"{record.status.value}: "
        reason = record.reason.removeprefix(prefix)
        return f"{status}: {escape_line(reason)}" if reason else status
    said = judged_by(note.votes) or "no verdict"
    chance = f" · {note.belief:.2f} that it is real" if note.belief is not None else ""
    stopped = f"; {escape_line(note.note)}" if note.note else ""
    return f"{status}: {escape_line(said)}{chance}{stopped}"


def judge_lines(record: FindingRecord) -> list[str]:
    """Each judge's vote and reason, the first judge first."""
    note = record.verification
    if note is None or not note.votes:
        return []
    lines = ["", "Judges:"]
    for vote in note.votes:
        verdict = vote.verdict.value if vote.verdict is not None else "failed"
        first = " (first)" if vote.role == "inspector" else ""
        lines.append(f"- {code(vote.model)}{first}: **{verdict}**: {escape_line(vote.reason)}")
    return lines


def verified_section(record: FindingRecord) -> Section:
    head = f"{record.id} · {code(f'{record.path}:{record.line}')} · {escape_line(record.title)}"
    lines = [head, "", f"- {decision(record)}"]
    if record.verification is not None and record.verification.votes:
        lines.append(f"- reported by {record.votes_for} of {record.votes_of} families")
    lines += judge_lines(record)
    return Section(f"/consensus verify {record.id}", "\n".join(lines))


# --------------------------------------------------------------------------- settings


def personas_section(personas: Sequence[Persona], providers: Sequence[ProviderSettings]) -> Section:
    lines = ["Personas:"]
    lines += [
        f"- {code(p.id)} ({'built-in' if p.source == 'built-in' else code(p.path)}): "
        f"{escape_line(p.focus)}"
        for p in personas
    ]
    lines += ["", "Providers:"]
    lines += [f"- {code(p.model)} (family {code(p.voting_family)})" for p in providers] or [
        "- (none)"
    ]
    return Section("Personas and providers", "\n".join(lines))


def safe_url(url: str | None) -> str | None:
    """A URL without user, password, query or fragment: where a credential could hide."""
    if not url:
        return url
    parts = urlsplit(without_userinfo(url))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


INFERRED = "  # inferred from the model's name"


def public_settings(settings: Settings) -> dict[str, Any]:
    """The effective settings as data a `.consensus.yml` may hold again, with nothing
    secret: provider URLs lose their credentials, redaction patterns (which may quote a
    secret) are left out (`settings_yaml` says how many); each provider names the family
    that votes for it."""
    data = settings.model_dump(mode="json")
    for provider, configured in zip(data["providers"], settings.providers, strict=True):
        provider["api_base"] = safe_url(provider.get("api_base"))
        provider["family"] = configured.voting_family
    data["redact"] = []
    return data


def settings_yaml(settings: Settings) -> str:
    """The effective settings as YAML that loads back as the same settings (but for the
    redaction patterns, counted in a comment): `consensus config > .consensus.yml` works."""
    text = yaml.safe_dump(public_settings(settings), sort_keys=False).rstrip()
    families = iter(settings.providers)
    lines = []
    for line in text.split("\n"):  # mark the families the configuration did not give
        if line.lstrip(" -").startswith("family: ") and next(families).family is None:
            line += INFERRED
        lines.append(line)
    if settings.redact:
        count = len(settings.redact)
        lines.append(
            f"# redact: {count} pattern{'s' if count > 1 else ''} not shown (a pattern may quote "
            "a secret): copy them from the configuration file"
        )
    return "\n".join(lines)


def config_section(settings: Settings, source: str, overrides: Mapping[str, Any]) -> Section:
    text = settings_yaml(settings)
    fence = "````"  # backtick runs in values are broken up below, so this always closes
    given = ", ".join(f"{key}: {value}" for key, value in overrides.items() if value)
    lines = [
        f"From {code(source)}, defaults filled in, action inputs applied. Keys are never "
        "shown: `api_key_env` is the name of the variable that holds one.",
        "",
        f"{fence}yaml",
        text.replace("``", "`\u200b`"),
        fence,
    ]
    if given:
        lines += ["", f"Action inputs: {escape_line(given)}"]
    return Section("Effective settings", "\n".join(lines))
