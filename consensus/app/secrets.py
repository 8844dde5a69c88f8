"""The run's secrets: the one notion of which values of the environment never appear in what
a run prints or posts.

A value is a secret when its variable is named like a credential (tokens, keys, passwords,
`INPUT_*` ones too), when the configuration names its variable (`api_key_env`), when it is
a key by its format (the scan of ingest/redact.py), or when it is a random-looking value of
a variable that is not the runner's own (a key under a name of the user's choosing). The
runner's variables (`GITHUB_SHA`, `RUNNER_*`) are public but for their tokens, which go by
name. The Action masks them as the step starts and again once the base branch's
configuration names its keys; every model reply is redacted of them as it arrives
(review/redacting.py), and a model's answer in a conversation is scrubbed of them again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from consensus.ingest.detector import looks_random
from consensus.ingest.redact import redact_text

# Environment variables whose value is a credential by its name (GITHUB_TOKEN,
# OPENAI_API_KEY, ACTIONS_ID_TOKEN_REQUEST_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD…).
CREDENTIAL_NAME = re.compile(
    r"(?i)(?:^|[_-])(?:token|secret|password|passwd|pat|credentials?)(?:$|[_-])"
    r"|key$|api[_-]?key|access[_-]?key|private[_-]?key"
)
RUNNER_VARIABLES = ("GITHUB_", "RUNNER_", "ACTIONS_", "CI_")
KEY_ALPHABET = re.compile(r"[A-Za-z0-9+/=_.-]+")  # base64, base64url, hex, with separators


def credential_values(env: Mapping[str, str], names: Iterable[str] = ()) -> list[str]:
    """The values of every variable named like a credential, and of the variables `names`
    (a configuration's `api_key_env`)."""
    wanted = {name for name in names if name}
    return [
        value
        for name, value in sorted(env.items())
        if value and (name in wanted or CREDENTIAL_NAME.search(name))
    ]


def run_secrets(env: Mapping[str, str], named: Iterable[str] = ()) -> list[str]:
    """Every secret value of `env`: by name, named by the configuration (`named`), by format,
    or random-looking outside the runner's own variables; those by name first."""
    values = credential_values(env, named)
    keyed = [
        value
        for name, value in sorted(env.items())
        if value not in values
        and (
            redact_text(value)[1]
            or (
                not name.startswith(RUNNER_VARIABLES)
                and KEY_ALPHABET.fullmatch(value.strip()) is not None
                and looks_random(value.strip())
            )
        )
    ]
    return [*values, *keyed]
