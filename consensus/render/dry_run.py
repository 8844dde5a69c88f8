"""The dry-run plan as text (for people) or JSON (for scripts)."""

from __future__ import annotations

from consensus.render.text import plural
from consensus.review.dry_run_text import DryRunPlan


def render_dry_run_json(plan: DryRunPlan) -> str:
    return plan.model_dump_json(indent=2) + "\n"


def render_dry_run_text(plan: DryRunPlan) -> str:
    """The plan for a person: files, skips with reasons, then one line per provider."""
    out = []
    if plan.advisory is not None:
        out += [plan.advisory, ""]
    if plan.budget is not None and not plan.budget.fits:
        out += [f"Budget: {plan.budget.advice}", ""]
    out += [
        f"dry run: nothing was sent to any provider. {plural(plan.calls, 'review call')}, "
        f"{plan.prompt_tokens:,} prompt tokens, estimated cost {_dollars(plan.cost_usd)} "
        f"for the prompts{_at_most(plan)}",
        "",
        f"{len(plan.files)} file{'s' if len(plan.files) != 1 else ''} to review"
        + (f" with personas {', '.join(plan.personas)}:" if plan.files else "."),
    ]
    out += [f"  {path}" for path in plan.files]
    if plan.skipped:
        out += ["", f"{len(plan.skipped)} skipped:"]
        out += [f"  {item.path}: {item.reason}" for item in plan.skipped]
    out += ["", "provider                                  chunks  calls  prompt tokens  cost"]
    for provider in plan.providers:
        if provider.status != "planned":
            out.append(f"  {provider.model:<40} {provider.status}")
            continue
        out.append(
            f"  {provider.model:<40} {provider.chunks:>6} {provider.calls:>6} "
            f"{provider.prompt_tokens:>14,}  {_dollars(provider.cost_usd)}"
        )
    if plan.analyzers:
        out += ["", "analyzer    would run"]
        out += [f"  {c.name:<9} {'yes: ' if c.ready else 'no: '}{c.detail}" for c in plan.analyzers]
        if not all(c.ready for c in plan.analyzers):
            out.append("  (an analyzer that cannot run is a note: the review goes on without it)")
    if plan.budget is not None and not plan.calls:
        out += ["", "budget: no review call would be sent"]
    elif plan.budget is not None:
        out += ["", f"budget: {plan.budget.advice}"]
        out += [f"note: {note}" for note in plan.budget.notes]
    out += ["", f"note: {plan.note}"]
    return "\n".join(out) + "\n"


def _at_most(plan: DryRunPlan) -> str:
    """The one ceiling: the budget's worst case (every answer at its longest, verification's
    share included), the same number the budget line compares with the caps."""
    if not plan.calls or plan.budget is None or plan.budget.needed_cost_usd is None:
        return ""
    return f", at most {_dollars(plan.budget.needed_cost_usd)} (see budget)"


def _dollars(value: float | None) -> str:
    if value is None:
        return "unknown (no price in litellm's map)"
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"
