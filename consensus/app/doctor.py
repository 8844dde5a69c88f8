"""`consensus doctor`: is each provider reachable, and if not, exactly why."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from consensus.app.wiring import model_client, unavailable_providers
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelClient
from consensus.settings.config import ProviderSettings


@dataclass(frozen=True)
class ProviderCheck:
    model: str
    family: str
    ok: bool
    detail: str


def key_missing(provider: ProviderSettings, why: str) -> ProviderCheck:
    return ProviderCheck(provider.model, provider.voter, False, f"key missing: {why}")


async def check_provider(
    provider: ProviderSettings, env: Mapping[str, str], client: ModelClient
) -> ProviderCheck:
    def result(ok: bool, detail: str) -> ProviderCheck:
        return ProviderCheck(provider.model, provider.voter, ok, detail)

    missing = unavailable_providers([provider], env).get(provider.model)
    if missing:
        return key_missing(provider, missing)
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
    providers: Sequence[ProviderSettings], env: Mapping[str, str]
) -> list[ProviderCheck]:
    """Each provider's check; without one key to call with, no client is built (litellm's
    import is seconds, and every answer is already known)."""
    unavailable = unavailable_providers(providers, env)
    if len(unavailable) == len(providers):
        return [key_missing(p, unavailable[p.model]) for p in providers]
    client = model_client(env, attempts=1)
    return list(await asyncio.gather(*(check_provider(p, env, client) for p in providers)))
