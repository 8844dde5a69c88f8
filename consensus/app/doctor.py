"""`consensus doctor`: is each provider reachable, and if not, exactly why."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from consensus.app.services import ProviderKeys, Services
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelClient
from consensus.settings.config import ProviderSettings


@dataclass(frozen=True)
class ProviderCheck:
    model: str
    family: str
    ok: bool
    detail: str


async def check_provider(
    provider: ProviderSettings, keys: ProviderKeys, client: ModelClient
) -> ProviderCheck:
    def result(ok: bool, detail: str) -> ProviderCheck:
        return ProviderCheck(provider.model, provider.voting_family, ok, detail)

    missing = keys.unavailable([provider]).get(provider.model)
    if missing:
        return result(False, f"key missing: {missing}")
    request = CompletionRequest(
        model=provider.model,
        messages=(Message(role="user", content="Reply with the single word OK."),),
        api_base=provider.api_base,
        api_key_env=provider.api_key_env,
        timeout_s=min(provider.timeout_s, 30.0),
        max_tokens=5,
    )
    try:
        completion = await client.complete(request)
    except ModelCallError as exc:
        fix = f"\n     fix: {exc.fix}" if exc.fix else ""
        return result(False, f"{exc.kind.value}: {exc.message}{fix}")
    return result(True, f"answered in {completion.latency_s:.2f} s")


async def check_providers(
    providers: Sequence[ProviderSettings], services: Services
) -> list[ProviderCheck]:
    """Each provider asked for one word, at once (`services` built with one attempt per call)."""
    checks = (check_provider(p, services.keys, services.models) for p in providers)
    return list(await asyncio.gather(*checks))
