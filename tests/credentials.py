"""A credential corpus built at test time: no real key is ever committed.

Each kind is a line as it appears in a change (code, YAML, .env, a URL, a header) and the
credential in it, its body random with the vendor's prefix, alphabet and length (from
detect-secrets' plugins, gitleaks' public rules and the vendors' documentation). A private
key is a block of lines. `corpus(seed)` gives every kind once.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l".upper()


@dataclass(frozen=True)
class Credential:
    kind: str
    path: str  # the file it is added to
    lines: tuple[str, ...]  # the added lines
    secret: str  # what must never reach a provider (each line of it, for a block)


Make = Callable[[random.Random], tuple[str, str, str]]  # (path, line with {s}, secret)


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    """Random text that uses every class of its alphabet (a real key does)."""
    while True:
        text = "".join(rng.choice(alphabet) for _ in range(n))
        classes = [
            c
            for c in (string.ascii_lowercase, string.ascii_uppercase, string.digits)
            if set(c) & set(alphabet)
        ]
        if all(set(text) & set(c) for c in classes):
            return text


def _digits(rng: random.Random, n: int) -> str:
    return str(rng.randrange(10 ** (n - 1), 10**n))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt(rng: random.Random) -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    sub = _r(rng, ALNUM, 12)
    payload = _b64url(json.dumps({"sub": sub, "iat": 1716239022}).encode())
    return f"{header}.{payload}.{_r(rng, URLSAFE, 43)}"


def _with_xxxx(rng: random.Random) -> str:
    body = _r(rng, B64, 40)
    return body[:17] + "xxxX" + body[21:]


KINDS: dict[str, Make] = {
    "aws-access-key": lambda r: (
        "settings.py",
        'AWS_ACCESS_KEY_ID = "{s}"',
        "AKIA" + _r(r, UPPER_DIGITS, 16),
    ),
    "aws-secret-key": lambda r: ("settings.py", 'aws_secret_access_key = "{s}"', _r(r, B64, 40)),
    "github-classic": lambda r: ("deploy.sh", "export GH_AUTH={s}", "ghp_" + _r(r, ALNUM, 36)),
    "github-oauth": lambda r: ("app/auth.py", 'OAUTH = "{s}"', "gho_" + _r(r, ALNUM, 36)),
    "github-user-to-server": lambda r: (
        "app/auth.py",
        'client.login("{s}")',
        "ghu_" + _r(r, ALNUM, 36),
    ),
    "github-app": lambda r: ("ci.yml", "  installation: {s}", "ghs_" + _r(r, ALNUM, 36)),
    "github-refresh": lambda r: ("app/auth.py", "REFRESH = '{s}'", "ghr_" + _r(r, ALNUM, 36)),
    "github-fine-grained": lambda r: (
        "README.md",
        "Use `{s}` to push.",
        f"github_pat_{_r(r, ALNUM, 22)}_{_r(r, ALNUM, 59)}",
    ),
    "gitlab-pat": lambda r: (".env", "GL={s}", "glpat-" + _r(r, URLSAFE, 20)),
    "gitlab-deploy": lambda r: ("ci.yml", "  deploy: {s}", "gldt-" + _r(r, URLSAFE, 20)),
    "slack-bot": lambda r: (
        "bot.py",
        'SLACK = "{s}"',
        f"xoxb-{r.randrange(10**11, 10**12)}-{r.randrange(10**12, 10**13)}-{_r(r, ALNUM, 24)}",
    ),
    "slack-user": lambda r: (
        "bot.py",
        "client = WebClient('{s}')",
        f"xoxp-{_digits(r, 12)}-{_digits(r, 12)}-{_digits(r, 13)}-{_r(r, HEX, 32)}",
    ),
    "slack-webhook": lambda r: (
        "notify.py",
        'HOOK = "{s}"',
        "https://hooks.slack.com/services/"
        f"T{_r(r, UPPER_DIGITS, 8)}/B{_r(r, UPPER_DIGITS, 10)}/{_r(r, ALNUM, 24)}",
    ),
    "anthropic": lambda r: (
        "llm.py",
        'client = Anthropic(api_key="{s}")',
        f"sk-ant-api03-{_r(r, URLSAFE, 93)}AA",
    ),
    "openai-project": lambda r: (
        "llm.py",
        "OpenAI(api_key='{s}')",
        f"sk-proj-{_r(r, URLSAFE, 120)}",
    ),
    "openai-legacy": lambda r: ("notebook.py", 'openai.api_key = "{s}"', f"sk-{_r(r, ALNUM, 48)}"),
    "stripe-live": lambda r: (
        "billing.py",
        'stripe.api_key = "{s}"',
        "sk_live_" + _r(r, ALNUM, 24),
    ),
    "stripe-restricted": lambda r: (
        "billing.py",
        'RESTRICTED = "{s}"',
        "rk_live_" + _r(r, ALNUM, 24),
    ),
    "stripe-webhook": lambda r: ("billing.py", "ENDPOINT = '{s}'", "whsec_" + _r(r, ALNUM, 32)),
    "twilio": lambda r: ("sms.py", 'Client("{s}", other)', "SK" + _r(r, HEX, 32)),
    "sendgrid": lambda r: (
        "mail.py",
        'SendGridAPIClient("{s}")',
        f"SG.{_r(r, URLSAFE, 22)}.{_r(r, URLSAFE, 43)}",
    ),
    "npm": lambda r: (".npmrc", "//registry.npmjs.org/:_authToken={s}", "npm_" + _r(r, ALNUM, 36)),
    "pypi": lambda r: (".pypirc", "password = {s}", "pypi-AgEIcHlwaS5vcmc" + _r(r, URLSAFE, 60)),
    "huggingface": lambda r: ("train.py", 'login("{s}")', "hf_" + _r(r, ALNUM, 34)),
    "google-api": lambda r: ("maps.js", "const MAPS = '{s}';", "AIza" + _r(r, URLSAFE, 35)),
    "google-oauth": lambda r: ("oauth.json", '  "client": "{s}",', "GOCSPX-" + _r(r, URLSAFE, 28)),
    "azure-storage": lambda r: (
        "appsettings.json",
        '  "Storage": "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s};'
        'EndpointSuffix=core.windows.net"',
        _r(r, B64, 86) + "==",
    ),
    "azure-sas": lambda r: (
        "blob.py",
        'URL = "https://acme.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig={s}"',
        _r(r, ALNUM, 43) + "%3D",
    ),
    "jwt": lambda r: ("test_api.py", 'headers = {{"Cookie": "session={s}"}}', _jwt(r)),
    "bearer": lambda r: (
        "client.sh",
        'curl -H "Authorization: Bearer {s}" https://api.acme.io',
        _r(r, ALNUM, 40),
    ),
    "url-password": lambda r: (
        "docker-compose.yml",
        "      DATABASE_URL: postgres://app:{s}@db:5432/app",
        _r(r, ALNUM, 20),
    ),
    "discord": lambda r: (
        "bot.py",
        "bot.run('{s}')",
        f"M{_r(r, URLSAFE, 25)}.{_r(r, URLSAFE, 6)}.{_r(r, URLSAFE, 27)}",
    ),
    "mailchimp": lambda r: ("mail.py", 'MC = "{s}"', _r(r, "abcdef0123456789", 32) + "-us12"),
    "square": lambda r: ("pay.py", 'SQUARE = "{s}"', "sq0csp-" + _r(r, URLSAFE, 43)),
    "artifactory": lambda r: (
        "pip.conf",
        "index-url = https://me:{s}@acme.jfrog.io/simple",
        "AKC" + _r(r, ALNUM, 70),
    ),
    "shopify": lambda r: ("shop.rb", "TOKEN_SHOP = '{s}'", "shpat_" + _r(r, HEX, 32)),
    "digitalocean": lambda r: ("terraform.tfvars", 'do = "{s}"', "dop_v1_" + _r(r, HEX, 64)),
    "databricks": lambda r: ("job.py", "host, pat = HOST, '{s}'", "dapi" + _r(r, HEX, 32)),
    "linear": lambda r: (
        "sync.ts",
        "const linear = new LinearClient({{ apiKey: '{s}' }});",
        "lin_api_" + _r(r, ALNUM, 40),
    ),
    "doppler": lambda r: (".envrc", "export DOPPLER={s}", "dp.pt." + _r(r, ALNUM, 43)),
    "age": lambda r: ("keys.txt", "{s}", "AGE-SECRET-KEY-1" + _r(r, BECH32, 58)),
    "postman": lambda r: (
        "run.sh",
        "newman run --postman-api-key {s}",
        f"PMAK-{_r(r, HEX, 24)}-{_r(r, HEX, 34)}",
    ),
    "grafana": lambda r: ("grafana.ini", "sa = {s}", f"glsa_{_r(r, ALNUM, 32)}_{_r(r, HEX, 8)}"),
    "newrelic": lambda r: ("newrelic.yml", "  user: {s}", "NRAK-" + _r(r, UPPER_DIGITS, 27)),
    "mailgun": lambda r: ("mail.py", "MAILGUN = ('api', '{s}')", "key-" + _r(r, HEX, 32)),
    "pulumi": lambda r: ("Pulumi.yaml", "  pulumi:accessToken: {s}", "pul-" + _r(r, HEX, 40)),
    "vault": lambda r: (".vault-token", "{s}", "hvs." + _r(r, URLSAFE, 100)),
    "brevo": lambda r: (
        "mail.php",
        "$brevo = '{s}';",
        f"xkeysib-{_r(r, HEX, 64)}-{_r(r, ALNUM, 16)}",
    ),
    "sentry": lambda r: (
        "sentry.properties",
        "auth.token={s}",
        "sntrys_"
        + _b64url(
            json.dumps(
                {"iat": 1716239022, "org": _r(r, ALNUM, 8), "url": "https://sentry.io"}
            ).encode()
        )
        + "_"
        + _r(r, URLSAFE, 43),
    ),
    "atlassian": lambda r: (
        "jira.py",
        'JIRA(auth=("me@acme.io", "{s}"))',
        "ATATT3" + _r(r, URLSAFE, 186),
    ),
    "password-keyword": lambda r: ("db.py", 'DB_PASSWORD = "{s}"', _r(r, ALNUM + "!#%", 18)),
    "client-secret-yaml": lambda r: ("config.yml", "client_secret: {s}", _r(r, URLSAFE, 32)),
    "env-token": lambda r: (".env", "API_TOKEN={s}", _r(r, ALNUM, 32)),
    "keyword-less-base64": lambda r: ("sign.py", 'SIGNING = "{s}"', _r(r, B64, 44)),
    "keyword-less-hex": lambda r: ("seed.py", "NONCE_SEED = '{s}'", _r(r, HEX, 48)),
    "random-with-xxxx": lambda r: ("settings.py", 'RANDOM_WITH_XXXX = "{s}"', _with_xxxx(r)),
    "quoted-in-call": lambda r: ("client.py", 'connect("db.internal", "{s}")', _r(r, B64, 40)),
}

PEM_KINDS = ("RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY")


def _pem(rng: random.Random, label: str) -> tuple[str, ...]:
    body = [_r(rng, B64, 64) for _ in range(6)]
    return (f"-----BEGIN {label}-----", *body, f"-----END {label}-----")


def corpus(seed: int = 0) -> list[Credential]:
    """Every kind once, with bodies drawn from `seed`."""
    rng = random.Random(seed)
    made = []
    for kind, make in KINDS.items():
        path, line, secret = make(rng)
        made.append(Credential(kind, f"secrets/{path}", (line.format(s=secret),), secret))
    for label in PEM_KINDS:
        lines = _pem(rng, label)
        kind = "private-key-" + label.split()[0].lower()
        made.append(Credential(kind, f"secrets/{kind}.pem", lines, "\n".join(lines[1:-1])))
    return made


def leaked(credentials: list[Credential], sent: str) -> list[str]:
    """The kinds whose secret (any line of it, for a block) occurs in `sent`."""
    return [
        c.kind for c in credentials if any(part and part in sent for part in c.secret.splitlines())
    ]
