"""The credential corpus (tests/credentials.py): at least 40 kinds, built at test time, and
the redaction finds every one of them in a diff (end to end, through the CLI and the Action:
tests/e2e/test_secrets_e2e.py)."""

from __future__ import annotations

import secrets

import pytest

from consensus.ingest.parse import parse_diff
from consensus.ingest.redact import redact_files
from tests.credentials import KINDS, Credential, corpus, leaked


@pytest.fixture
def credentials() -> list[Credential]:
    return corpus(seed=int.from_bytes(secrets.token_bytes(4), "big"))


def test_the_corpus_has_at_least_forty_kinds_and_the_redaction_catches_every_one(
    credentials: list[Credential],
) -> None:
    assert len(KINDS) >= 40 and len(credentials) >= 40
    diff = "".join(
        f"diff --git a/{n}/{c.path} b/{n}/{c.path}\nnew file mode 100644\n--- /dev/null\n"
        f"+++ b/{n}/{c.path}\n@@ -0,0 +1,{len(c.lines)} @@\n"
        + "".join(f"+{line}\n" for line in c.lines)
        for n, c in enumerate(credentials)
    )
    files, _ = parse_diff(diff)
    redacted, redactions = redact_files(files)
    sent = "\n".join(line.text for f in redacted for h in f.hunks for line in h.lines)
    assert leaked(credentials, sent) == []
    assert len({r.path for r in redactions}) == len(credentials)  # each found in its file
