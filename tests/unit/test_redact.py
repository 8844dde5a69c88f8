"""consensus.ingest.redact: secrets never reach a provider; line numbers never move.

Secrets are assembled from pieces so that this file itself does not look like a leak to
secret scanners.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consensus.errors import ConfigError
from consensus.ingest.parse import parse_diff
from consensus.ingest.redact import redact_files, redact_text
from consensus.model.diff import ChangedFile

AWS_KEY_ID = "AKIA" + "Q3ZL7XW2RPT4MN8K"
AWS_SECRET = "Jx7+Kd2pLq9Wm4Rt6Yb1" + "Nc3Vf8Hs5Gz0Ae2Uo7Ti"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"
    + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
TOKEN_36 = "a1B2c3D4e5F6g7H8i9J0" + "k1L2m3N4o5P6q7R8"
RANDOM_48 = "T3kq9ZxW2mLp7RvB4nYc" + "8JdH5sFg1QaE6uKo0iVtXw3P"
SAS_SIG = "q8Zx%2B3kLm9Rt" + "7Wd4Yb1Nc6Vf%2FHs5Gz0Ae2%3D"

# (kind, line, secret): the line as it appears in a file, and the value that must vanish.
SECRETS = [
    ("aws-access-key", f'AWS_ACCESS_KEY_ID = "{AWS_KEY_ID}"', AWS_KEY_ID),
    ("aws-access-key", "key_id: ASIA" + "R7T2KQ9XW3ZP5LM4", "ASIA" + "R7T2KQ9XW3ZP5LM4"),
    ("aws-secret-key", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    ("aws-secret-key", f'"AWS_SECRET_ACCESS_KEY": "{AWS_SECRET}",', AWS_SECRET),
    ("github-token", f'GITHUB_TOKEN = "ghp_{TOKEN_36}"', "ghp_" + TOKEN_36),
    ("github-token", f"auth: gho_{TOKEN_36}", "gho_" + TOKEN_36),
    ("github-token", f"token=ghu_{TOKEN_36}", "ghu_" + TOKEN_36),
    ("github-token", f"export T=ghs_{TOKEN_36}", "ghs_" + TOKEN_36),
    ("github-token", f"refresh = 'ghr_{TOKEN_36}'", "ghr_" + TOKEN_36),
    (
        "github-token",
        "pat = 'github_pat_" + "11ABCDEFG0_" + TOKEN_36 + "'",
        "github_pat_11ABCDEFG0_" + TOKEN_36,
    ),
    ("gitlab-token", "CI_TOKEN=glpat-" + "Xy7zK2mP9qR4sT6vW8bN", "glpat-Xy7zK2mP9qR4sT6vW8bN"),
    (
        "slack-token",
        'slack_client = WebClient("xoxb-' + '2048593021-5829301847-Zq8RkLm2Xv7Tn4Pw9Yb3")',
        "xoxb-2048593021-5829301847-Zq8RkLm2Xv7Tn4Pw9Yb3",
    ),
    (
        "slack-webhook",
        'WEBHOOK = "https://hooks.slack.com/services/' + 'T024BE7LD/B01A2B3C4D5/Zq8RkLm2Xv7Tn4"',
        "T024BE7LD/B01A2B3C4D5/Zq8RkLm2Xv7Tn4",
    ),
    (
        "stripe-key",
        'stripe.api_key = "sk_live_' + '51HqLyjWDarjtT1zdp7dc"',
        "51HqLyjWDarjtT1zdp7dc",
    ),
    (
        "google-api-key",
        "const MAPS_KEY = 'AIza" + "SyD9tSrke72PouQMnMXa7eZSW0jkFMBWYq9';",
        "SyD9tSrke72PouQMnMXa7eZSW0jkFMBWYq9",
    ),
    ("jwt", f"session_cookie = {JWT}", JWT),
    ("secret", 'DB_PASSWORD = "Tr0ub4dor&3xK9"', "Tr0ub4dor&3xK9"),
    ("secret", "  password: s3cr3t-P4ss-w0rd", "s3cr3t-P4ss-w0rd"),
    ("secret", '  "api_key": "9f8e7d6c5b4a3f2e1d0c",', "9f8e7d6c5b4a3f2e1d0c"),
    ("secret", "SECRET_KEY=Zq8vLm3Rt9xKp2Wd", "Zq8vLm3Rt9xKp2Wd"),
    ("secret", "    client = Client(token='Zq8vLm3Rt9xKp2Wd')", "Zq8vLm3Rt9xKp2Wd"),
    ("secret", '  const apiKey = "a8F3kL9mQ2xZ7pR4";', "a8F3kL9mQ2xZ7pR4"),
    ("secret", 'password: str = "Zq8vLm3Rt9xK"', "Zq8vLm3Rt9xK"),
    (
        "bearer-token",
        'curl -H "Authorization: Bearer Zq8vLm3Rt9xKp2WdYb7Hc6" https://api.internal',
        "Zq8vLm3Rt9xKp2WdYb7Hc6",
    ),
    (
        "url-password",
        "DATABASE_URL=postgres://app:Zq8vLm3Rt9xK@db.internal:5432/app",
        "Zq8vLm3Rt9xK",
    ),
    ("custom", "X-Internal: internal-token-q8z7x6w5", "internal-token-q8z7x6w5"),
    # Vendor formats: each value assembled from pieces, each one judged whole.
    ("openai-key", f'OPENAI = "sk-proj-{RANDOM_48}"', f"sk-proj-{RANDOM_48}"),
    ("openai-key", f"key: sk-svcacct-{RANDOM_48}", f"sk-svcacct-{RANDOM_48}"),
    ("openai-key", f"client = OpenAI(api_key='sk-{RANDOM_48}')", f"sk-{RANDOM_48}"),
    ("anthropic-key", f"ANTHROPIC=sk-ant-api03-{RANDOM_48}", f"sk-ant-api03-{RANDOM_48}"),
    ("gitlab-token", "runner: glrt-" + "Xy7zK2mP9qR4sT6vW8bN", "glrt-Xy7zK2mP9qR4sT6vW8bN"),
    ("slack-token", "APP=xapp-1-" + "A0B1C2D3E4F-5829301847-zq8rklm2", "xapp-1-A0B1C2D3E4F"),
    ("stripe-key", 'STRIPE = "sk_test_' + '51HqLyjWDarjtT1zdp7dc"', "51HqLyjWDarjtT1zdp7dc"),
    ("twilio-key", "TWILIO_SID = SK" + "0a1b2c3d4e5f60718293a4b5c6d7e8f9", "0a1b2c3d4e5f6071"),
    ("sendgrid-key", f'SENDGRID = "SG.{RANDOM_48[:22]}.{RANDOM_48[:43]}"', RANDOM_48[:22]),
    ("npm-token", "//registry.npmjs.org/:_authToken=npm_" + RANDOM_48[:36], RANDOM_48[:36]),
    ("pypi-token", "password = pypi-AgEIcHlwaS5vcmc" + RANDOM_48 + RANDOM_48, RANDOM_48),
    ("huggingface-token", "HF_TOKEN=hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "AbCdEfGhIjKlMn"),
    (
        "azure-storage-key",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
        + RANDOM_48
        + "+"
        + RANDOM_48[:37]
        + "==;EndpointSuffix=core.windows.net",
        RANDOM_48,
    ),
    ("azure-sas", "url = https://acme.blob.core.windows.net/c?sv=2022&sig=" + SAS_SIG, SAS_SIG),
    # a random value that happens to hold a placeholder word is still a secret
    ("secret", f'api_key = "{RANDOM_48[:20]}xxxx{RANDOM_48[20:40]}"', RANDOM_48[:20]),
    ("secret", f'token: "{RANDOM_48[:24]}todo{RANDOM_48[24:40]}"', RANDOM_48[:24]),
    ("openai-key", f"sk-proj-{RANDOM_48[:24]}example{RANDOM_48[24:]}", RANDOM_48[:24]),
]
CUSTOM = ["(?i)internal-token-[a-z0-9]+"]

NOT_SECRETS = [
    'password = os.environ["DB_PASSWORD"]',
    # names of secrets, not secrets: an environment variable and a slug
    '    ProviderSettings(model="openai/gpt-5.1", api_key_env="OPENAI_API_KEY"),',
    'secret_name = "prod-db-credentials-v2"',
    "password=None",
    "      password: ${{ secrets.DB_PASSWORD }}",
    'password = "changeme"',
    'api_key = "xxxxxxxxxxxxxxxx"',
    'secret = "your-secret-here"',
    "token = get_token(session)",
    "password = settings.DATABASE_PASSWORD",
    'password = "{{ vault_db_password }}"',
    "PASSWORD=$DB_PASSWORD",
    "api_key=os.getenv('API_KEY')",
    'secret_file = "/run/secrets/db_password"',
    "def connect(password: str, token: str | None = None) -> Connection:",
    "if token == expected_token:",
    'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased-v2")',
    '  "description": "Token used to sign webhook payloads",',
    "DATABASE_URL=postgres://user:password@localhost:5432/app",
    'key_id = "AKIA1234"',
    "  pwd = user_password",
    "    # TODO: rotate the api key every 90 days",
    'OPENAI_API_KEY = "sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"',
    "export OPENAI_API_KEY=sk-proj-your-key-goes-here-example",
    "from sklearn import sk-learn-compatible-estimator-module",
    'api_key = "your_api_key_here_xxxxxxxxxxxx"',
    "AccountKey=<your-account-key>",
]


def _diff(path: str, *, before: list[str], after: list[str]) -> str:
    """A realistic modification hunk: one context line, then the removed and added lines."""
    body = "".join(f"-{line}\n" for line in before) + "".join(f"+{line}\n" for line in after)
    return (
        f"diff --git a/{path} b/{path}\n"
        "index 83db48f..bf269f4 100644\n"
        f"--- a/{path}\n+++ b/{path}\n"
        f"@@ -10,{len(before) + 2} +10,{len(after) + 2} @@ def settings():\n"
        " import os\n" + body + " # end\n"
    )


def _parse(diff: str) -> list[ChangedFile]:
    files, _ = parse_diff(diff)
    return files


def _texts(files: list[ChangedFile]) -> str:
    return "\n".join(line.text for f in files for h in f.hunks for line in h.lines)


def _numbers(files: list[ChangedFile]) -> list[tuple[str, int | None, int | None]]:
    return [(ln.kind, ln.old_line, ln.new_line) for f in files for h in f.hunks for ln in h.lines]


@pytest.mark.parametrize(
    ("kind", "line", "secret"), SECRETS, ids=[f"{s[0]}-{i}" for i, s in enumerate(SECRETS)]
)
def test_secret_on_an_added_line_is_redacted(kind: str, line: str, secret: str) -> None:
    files = _parse(
        _diff("config/settings.py", before=["DEBUG = False"], after=["DEBUG = True", line])
    )
    redacted, redactions = redact_files(files, CUSTOM)
    assert secret not in _texts(redacted)
    assert f"«redacted:{kind}»" in _texts(redacted)
    assert _numbers(redacted) == _numbers(files)
    assert [(r.path, r.line, r.kind) for r in redactions] == [("config/settings.py", 12, kind)]
    assert secret not in repr(redactions)


@pytest.mark.parametrize(
    ("kind", "line", "secret"), SECRETS, ids=[f"{s[0]}-{i}" for i, s in enumerate(SECRETS)]
)
def test_secret_on_a_removed_line_is_redacted_with_its_old_line(
    kind: str, line: str, secret: str
) -> None:
    files = _parse(
        _diff("config/settings.py", before=["DEBUG = False", line], after=["DEBUG = True"])
    )
    redacted, redactions = redact_files(files, CUSTOM)
    assert secret not in _texts(redacted)
    assert _numbers(redacted) == _numbers(files)
    assert [(r.line, r.kind) for r in redactions] == [(12, f"{kind} (removed line)")]


@pytest.mark.parametrize("line", NOT_SECRETS)
def test_references_placeholders_and_code_are_left_alone(line: str) -> None:
    files = _parse(_diff("app/config.py", before=[line], after=[line + "  # reviewed"]))
    redacted, redactions = redact_files(files, CUSTOM)
    assert redactions == []
    assert redacted == files


def test_secret_on_a_context_line_is_redacted() -> None:
    diff = _diff("app/config.py", before=[], after=["DEBUG = True"]).replace(
        " # end\n", f" GITHUB_TOKEN = 'ghp_{TOKEN_36}'\n"
    )
    redacted, redactions = redact_files(_parse(diff), [])
    assert TOKEN_36 not in _texts(redacted)
    assert [(r.line, r.kind) for r in redactions] == [(12, "github-token")]


def test_two_secrets_on_one_line_are_two_redactions() -> None:
    line = f"creds = ('{AWS_KEY_ID}', 'ghp_{TOKEN_36}')"
    redacted, redactions = redact_files(_parse(_diff("a.py", before=[], after=[line])), [])
    assert AWS_KEY_ID not in _texts(redacted) and TOKEN_36 not in _texts(redacted)
    assert sorted(r.kind for r in redactions) == ["aws-access-key", "github-token"]


KEY_BODY = [
    "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn" + "/ygWyF8PbnGy0AHB7MaRzDvg4M7qc2MeH",
    "Kx9QbRq3m2pL0Vw8YtZ1rN4sC6dF7gH" + "8jK9lM0nO1pQ2rS3tU4vW5xY6zA7bB8c",
    "Yb7Hc6Jd5Ke4Lf3Mg2Nh1Oi0Pj9Qk8R" + "l7Sm6Tn5Uo4Vp3Wq2Xr1Ys0Zt9Au8Bv",
    "q2Xr1Ys0Zt9Au8Bv7Cw6Dx5Ey4Fz3Ga==",
]
PEM = ["-----BEGIN RSA PRIVATE KEY-----", *KEY_BODY, "-----END RSA PRIVATE KEY-----"]


def test_every_line_of_a_private_key_block_is_redacted() -> None:
    after = ["DEBUG = True", 'KEY = """', *PEM, '"""', "TIMEOUT = 30"]
    files = _parse(_diff("deploy/keys.py", before=[], after=after))
    redacted, redactions = redact_files(files, [])
    texts = [line.text for line in redacted[0].hunks[0].lines]
    assert texts[3:9] == ["«redacted:private-key»"] * 6
    assert texts[2] == 'KEY = """' and texts[9] == '"""' and texts[10] == "TIMEOUT = 30"
    assert not any(body in _texts(redacted) for body in KEY_BODY)
    assert _numbers(redacted) == _numbers(files)
    assert [(r.line, r.kind) for r in redactions] == [(13, "private-key")]


def test_removed_private_key_block_is_redacted() -> None:
    files = _parse(_diff("id_rsa", before=PEM, after=["# moved to the vault"]))
    redacted, redactions = redact_files(files, [])
    assert not any(body in _texts(redacted) for body in KEY_BODY)
    assert [(r.line, r.kind) for r in redactions] == [(11, "private-key (removed line)")]


def test_hunk_that_starts_inside_a_key_is_redacted_back_to_its_start() -> None:
    diff = (
        "diff --git a/certs/server.key b/certs/server.key\n"
        "index 1234567..89abcde 100644\n"
        "--- a/certs/server.key\n+++ b/certs/server.key\n"
        "@@ -20,4 +20,4 @@\n"
        f" {KEY_BODY[0]}\n-{KEY_BODY[1]}\n+{KEY_BODY[2]}\n {KEY_BODY[3]}\n"
        " -----END RSA PRIVATE KEY-----\n"
    )
    redacted, redactions = redact_files(_parse(diff), [])
    assert not any(body in _texts(redacted) for body in KEY_BODY)
    assert [(r.line, r.kind) for r in redactions] == [(20, "private-key")]


def test_key_inside_a_json_string_is_redacted() -> None:
    line = '  "private_key": "' + "\\n".join(PEM) + '\\n",'
    redacted, redactions = redact_files(_parse(_diff("sa.json", before=[], after=[line])), [])
    assert not any(body in _texts(redacted) for body in KEY_BODY)
    assert '"private_key": "«redacted:private-key»' in _texts(redacted)
    assert [r.kind for r in redactions] == ["private-key"]


def test_files_without_secrets_come_back_unchanged() -> None:
    files = _parse(_diff("a.py", before=["x = 1"], after=["x = 2"]))
    redacted, redactions = redact_files(files, [])
    assert redacted == files and redactions == []
    assert redacted[0] is files[0]


def test_invalid_custom_pattern_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="redact"):
        redact_files([], ["internal-token-[a-z"])


def test_custom_pattern_that_matches_nothing_in_particular_adds_no_placeholders() -> None:
    files = _parse(_diff("a.py", before=["x = 1"], after=["x = 2"]))
    redacted, redactions = redact_files(files, ["z*"])
    assert redacted == files and redactions == []


def test_redact_text_keeps_lines_and_their_endings() -> None:
    body = (
        "Rotates the deploy key.\r\n"
        f"Old token was ghp_{TOKEN_36}, now revoked.\n"
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        f"{KEY_BODY[0]}\n"
        "-----END OPENSSH PRIVATE KEY-----\n"
        "Thanks!"
    )
    text, kinds = redact_text(body, [])
    assert TOKEN_36 not in text and KEY_BODY[0] not in text
    assert text.splitlines(keepends=True) == [
        "Rotates the deploy key.\r\n",
        "Old token was «redacted:github-token», now revoked.\n",
        "«redacted:private-key»\n",
        "«redacted:private-key»\n",
        "«redacted:private-key»\n",
        "Thanks!",
    ]
    assert kinds == ["github-token", "private-key"]


def test_redact_text_of_plain_prose_is_identity() -> None:
    assert redact_text("Fix the password reset flow (#123)", []) == (
        "Fix the password reset flow (#123)",
        [],
    )


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_redact_text_never_fails_and_keeps_the_line_count(text: str) -> None:
    redacted, kinds = redact_text(text, CUSTOM)
    assert len(redacted.splitlines()) == len(text.splitlines())
    assert redact_text(redacted, CUSTOM) == (redacted, [])  # placeholders are not secrets
    assert (redacted == text) is (not kinds)


@pytest.mark.parametrize(
    "line",
    [
        "token: a" + " " * 100_000 + "x",
        "password=" * 10_000,
        "a" * 100_000,
        "https://" + "a" * 100_000,
        "eyJ" * 30_000,
        'secret: "' + "a" * 100_000,
    ],
    ids=[
        "spaces after a key",
        "repeated keys",
        "one long word",
        "long scheme",
        "jwt-ish",
        "open quote",
    ],
)
def test_hostile_lines_are_redacted_whole(line: str) -> None:
    # How long they take is measured in benchmarks/hostile_bench.py.
    text, _ = redact_text(line, CUSTOM)
    assert "\n" not in text and redact_text(text, CUSTOM) == (text, [])
