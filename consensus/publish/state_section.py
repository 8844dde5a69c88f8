"""The part of the summary comment that slash commands change: pause, dismissals, and
findings verified on request. Rendered from the hidden state by a full review and by a
command alike, between two hidden markers, so a command can rewrite it (and the state
line) in place without the report that made the rest of the page.

Every field shown here was read back from a comment: titles and reasons go through the
sanitiser, logins are named without a ping (`person`), ids and fingerprints were
validated when the state was read (publish/state.py)."""

from __future__ import annotations

from collections.abc import Sequence

from consensus.decide.evidence import judged_by
from consensus.model.host import HostWords
from consensus.publish.state import PublishState, encode_state, state_line_present
from consensus.publish.thread import SUMMARY_MARKER
from consensus.render.markdown import cell, row
from consensus.render.untrusted import code, escape_line, person

START = "<!-- consensus:commands -->"
END = "<!-- /consensus:commands -->"


def command_section(state: PublishState, words: HostWords) -> list[str]:
    """The lines of the section, markers included (empty markers when there is nothing),
    in the host's `words`."""
    out = [START]
    if state.paused is not None:
        out += [
            "> [!NOTE]",
            f"> Automatic reviews are **paused** on this {words.short} "
            f"(by {person(state.paused.by)}). "
            "`/consensus resume` restarts them; `/consensus review` runs one now.",
            "",
        ]
    requested = [r for r in state.records if r.verification and r.verification.requested_by]
    if requested:
        out += ["### Verified on request", ""]
        for record in requested:
            note = record.verification
            assert note is not None
            out.append(
                f"- **{record.id}** {code(f'{record.path}:{record.line}')} "
                f"{escape_line(record.title)}: **{record.status.value}** "
                f"({escape_line(judged_by(note.votes) or 'no verdict')}; asked by "
                f"{person(note.requested_by)})"
            )
        out.append("")
    if state.dismissed:
        out += [
            f"### Dismissed ({len(state.dismissed)})",
            "",
            row(["ID", "Finding", "By", "Why"]),
            row(["---"] * 4),
        ]
        for item in state.dismissed:
            out.append(
                row(
                    [
                        item.id or "-",
                        cell(item.title or item.fingerprint),
                        person(item.by),
                        cell(item.reason or "(no reason given)"),
                    ]
                )
            )
        out.append("")
    return [*out, END]


def rewrite_summary(body: str, state: PublishState, words: HostWords) -> str:
    """`body` (our summary comment) with the command section and the state line redone."""
    lines = body.rstrip("\n").split("\n")
    if lines and state_line_present(body):
        lines = lines[:-1]
    section = command_section(state, words)
    if START in lines and END in lines[lines.index(START) :]:
        start = lines.index(START)
        end = lines.index(END, start)
        lines = [*lines[:start], *section, *lines[end + 1 :]]
    else:  # a summary from before commands existed: the section goes under the headline
        at = next((n + 1 for n, line in enumerate(lines) if line.startswith("## ")), 1)
        lines = [*lines[:at], "", *section, *lines[at:]]
    return "\n".join([*lines, encode_state(state)])


def new_summary(state: PublishState, words: HostWords, notices: Sequence[str] = ()) -> str:
    """A summary comment with no review on it: for a PR no review has published yet (e.g.
    paused at once), or in place of one someone else edited (`notices` say so)."""
    warned = [
        line for notice in notices for line in ("> [!CAUTION]", f"> {escape_line(notice)}", "")
    ]
    lines = [
        SUMMARY_MARKER,
        "## consensus review",
        "",
        *warned,
        f"No review has been published on this {words.short} yet."
        if not notices
        else "No review is shown: `/consensus review` publishes one.",
        "",
        *command_section(state, words),
        encode_state(state),
    ]
    return "\n".join(lines)
