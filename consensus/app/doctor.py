"""`consensus doctor`: is each provider reachable, and if not, exactly why."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from consensus.app.services import ProviderKeys, Services, unknown_model_fix
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelClient
from consensus.settings.config import ProviderSettings

FIX = "\n     fix: "


@dataclass(frozen=True)
class ProviderCheck:
    model: str
    family: str | None  # None: no call can reach the model, so nobody votes for it
    ok: bool
    detail: str

    @property
    def named(self) -> str:
        return f"{self.model} (family {self.family})" if self.family else self.model


async def check_provider(
    provider: ProviderSettings, keys: ProviderKeys, client: ModelClient
) -> ProviderCheck:
    def result(ok: bool, detail: str) -> ProviderCheck:
        return ProviderCheck(provider.model, provider.voting_family, ok, detail)

    unknown = keys.unknown([provider]).get(provider.model)
    if unknown:  # asked of litellm's data: no call, no import
        fix = unknown_model_fix(provider.model)
        return ProviderCheck(provider.model, None, False, f"unknown model: {unknown}{FIX}{fix}")
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
        fix = f"{FIX}{exc.fix}" if exc.fix else ""
        return result(False, f"{exc.kind.value}: {exc.message}{fix}")
    return result(True, f"answered in {completion.latency_s:.2f} s")


async def check_providers(
    providers: Sequence[ProviderSettings], services: Services
) -> list[ProviderCheck]:
    """Each provider asked for one word, at once (`services` built with one attempt per call)."""
    checks = (check_provider(p, services.keys, services.models) for p in providers)
    return list(await asyncio.gather(*checks))
