"""The real model adapters, built for the faces (CLI, Action, slash commands) in one place.

`consensus.llm_client` is the only module that imports litellm, which takes seconds to
load. It is imported here, the first time a face asks for a real client, token counter or
key check, that is when a model is about to be called: commands that call none (help,
explain, dismiss, pause, resume, config, queue, personas) never load litellm.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from consensus.ports import ModelClient, TokenCounter


@dataclass(frozen=True)
class _Adapters:
    client: Callable[[Mapping[str, str], int], ModelClient]
    counter: Callable[[], TokenCounter]
    needed_keys: Callable[[str], list[str]]


@cache
def _adapters() -> _Adapters:
    # The one deferred import of the package: the adapter, and litellm with it.
    from consensus import llm_client

    return _Adapters(
        client=lambda env, attempts: llm_client.LiteLLMClient(env, attempts=attempts),
        counter=llm_client.LiteLLMTokenCounter,
        needed_keys=llm_client.needed_keys,
    )


def model_client(env: Mapping[str, str], *, attempts: int = 4) -> ModelClient:
    """The litellm client, reading provider keys from `env`."""
    return _adapters().client(env, attempts)


def token_counter() -> TokenCounter:
    """Token counts with each model's own tokenizer where litellm knows it."""
    return _adapters().counter()


def needed_keys(model: str) -> list[str]:
    """Environment variables `model`'s route needs (litellm knows which)."""
    return _adapters().needed_keys(model)
