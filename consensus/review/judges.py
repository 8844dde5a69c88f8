"""Who judges a claim: the configured inspector and voters minus the families
that reported it, topped up from the panel; the reporters themselves only when no other
family answered. The rule is stated in review/verify.py's docstring.

A claim's reporters are its families and the families of the models that reported it
(`reporting_families`): a finding recorded by model alone, or under a family its model no
longer votes for, is still its reporters' claim. A configured judge is the provider the
settings name, with its family, even when it did not answer the review."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from consensus.settings.config import InspectorSettings, ProviderSettings


@dataclass(frozen=True)
class Judges:
    """Who verifies one finding: the inspector, the voters in rotation order, and whether
    they are the finding's own reporters (no other family answered)."""

    inspector: ProviderSettings
    voters: tuple[ProviderSettings, ...]
    self_judged: bool = False


def reporting_families(
    families: frozenset[str],
    models: Iterable[str],
    panel: Sequence[ProviderSettings],
    configured: Sequence[ProviderSettings] = (),
) -> frozenset[str]:
    """The families that reported a claim: `families` as recorded, and the family each of
    the reporting `models` votes for now (as the panel, else the settings, name it)."""
    return families | {_provider(m, panel, configured).voting_family for m in models}


def judges(
    reporters: frozenset[str],
    panel: Sequence[ProviderSettings],
    inspector: InspectorSettings,
    k: int,
    configured: Sequence[ProviderSettings] = (),
) -> Judges:
    """The judges of a claim the families `reporters` made, by the rule in the module
    docstring; `configured`: the settings' providers, where a configured judge that is not
    on the panel is looked up."""
    named = [_provider(inspector.model, panel, configured)] if inspector.model else []
    named += (
        [_provider(m, panel, configured) for m in inspector.voters] if inspector.voters else panel
    )
    chosen = _distinct(p for p in named if p.voting_family not in reporters)
    if len(chosen) < k:  # too few to reach k: the panel's other independent providers join
        chosen = _distinct([*chosen, *(p for p in panel if p.voting_family not in reporters)])[:k]
    if not chosen:  # every family that answered reported it: only reporters are left
        fallback = _distinct(named) or list(panel)
        first = fallback[0]
        return Judges(first, tuple(_inspector_last(fallback, first)), self_judged=True)
    wanted = named[0] if inspector.model else None
    first = wanted if wanted in chosen else chosen[0]
    return Judges(first, tuple(_inspector_last(chosen, first)))


def reporters_may_judge(
    reporters: frozenset[str], panel: Sequence[ProviderSettings], inspector: InspectorSettings
) -> Judges:
    """The judges before independence: the configured inspector (else the first
    provider of a non-reporting family) and the configured voters (else every provider),
    reporters included. Kept so the quality benchmark can measure what independence is
    worth; the product uses `judges`."""
    if inspector.model is not None:
        first = _provider(inspector.model, panel)
    else:
        first = next((p for p in panel if p.voting_family not in reporters), panel[0])
    voters = [_provider(m, panel) for m in inspector.voters] if inspector.voters else panel
    return Judges(first, tuple(voters))


def _distinct(providers: Iterable[ProviderSettings]) -> list[ProviderSettings]:
    seen: set[str] = set()
    out = []
    for p in providers:
        if p.model not in seen:
            seen.add(p.model)
            out.append(p)
    return out


def _inspector_last(
    judges: Sequence[ProviderSettings], inspector: ProviderSettings
) -> list[ProviderSettings]:
    """The voting rotation: the judges with the inspector moved to the end, so the first
    voters are other models; alone, the inspector is asked again."""
    others = [p for p in judges if p.model != inspector.model]
    return [*others, inspector] if others else [inspector]


def _provider(
    model: str, panel: Sequence[ProviderSettings], configured: Sequence[ProviderSettings] = ()
) -> ProviderSettings:
    """The provider of `model`: the panel's, else the settings' (its family and endpoint
    kept), else one of the family its name says."""
    return next(
        (p for p in (*panel, *configured) if p.model == model), ProviderSettings(model=model)
    )
