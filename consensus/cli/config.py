"""`consensus config`: the effective settings (never a secret) and the repository guidelines
reviewers are given, as `/consensus config` shows them on a pull request."""

from __future__ import annotations

from pathlib import Path

import click

from consensus.cli.options import handles_errors, load_config_at, repo_root


@click.command("config")
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Config file.")
@click.option(
    "--base",
    help="Read the guidelines at this commit (default: the branch a PR would target).",
)
@handles_errors
def config(config_path: Path | None, base: str | None) -> None:
    """Show the effective settings and the guidelines given to reviewers."""
    from consensus.app.wiring import guidelines_source
    from consensus.publish.answers import settings_yaml
    from consensus.review.guidelines import collect_guidelines, describe_guidelines

    root = repo_root()
    loaded = load_config_at(config_path, root)
    settings = loaded.settings
    click.echo(
        f"# effective settings, from {loaded.source} (keys are never shown); "
        "save as .consensus.yml to start from them"
    )
    click.echo(settings_yaml(settings))
    source = guidelines_source(root, base, from_diff_file=False)
    used = collect_guidelines(source.read, settings.context, settings.redact)
    click.echo(f"# guidelines given to reviewers (from {base or 'the base branch'}):")
    for line in describe_guidelines(used, settings.context):
        click.echo(f"#   {line}")
    for note in used.notes:
        click.echo(f"# note: {note}")
