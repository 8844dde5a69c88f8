"""Ingest: what is a secret, decided by a maintained detector and by entropy.

`redact.py` keeps the line-preserving replacement and the report; this module says which
text is a credential:

- **detect-secrets' vendor plugins** (the `bc-detect-secrets` distribution, the maintained
  fork of Yelp's detect-secrets): AWS, Azure storage, basic auth in URLs, Cloudant,
  Discord, GitHub, IBM Cloud, JWT, Mailchimp, npm, SendGrid, Slack, SoftLayer, Square,
  Stripe, Twilio, Artifactory. Loaded on the first line that could hold one (the library
  costs about 0.3 s to import), so `consensus --help` never loads it.
- **Entropy without a keyword**: a base64 or hex value of 24+ characters that looks random,
  assigned to any name (`SIGNING = "…"`, `signing: …`) or in a quoted string.
- **Placeholders**: a value made of a placeholder word (`xxxx`, `changeme`, `<your-key>`,
  `example`) or of one repeated character is a sample, not a key; a random value that
  merely contains such a word (`…xxxX…` inside 40 random characters) is still a key.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache
from itertools import pairwise
from typing import Any, NamedTuple, Protocol

# Values that hold one of these words are samples, unless enough randomness is left without
# them: RANDOM_REST_LENGTH characters of RANDOM_REST_ENTROPY bits each (a random 20
# characters score about 4.2).
SAMPLE_MARKERS = (
    "changeme", "change_me", "change-me", "example", "placeholder", "your_", "your-",
    "dummy", "redacted", "xxxx", "****", "....", "todo", "fixme", "not-a-secret",
)  # fmt: skip
RANDOM_REST_LENGTH = 16
RANDOM_REST_ENTROPY = 3.5
# Keyword-less values: long enough that a word or a short id is not one.
MIN_RANDOM_LENGTH = 24
# Bits per character a random value of the alphabet reaches at 24+ characters (a random
# 24-character base64 string scores about 4.3, hex about 3.6; English identifiers and
# camelCase names about 3.5-4.0, so base64 needs digits and both cases as well).
BASE64_ENTROPY = 4.2
HEX_ENTROPY = 3.0
# A value that is mostly an ascending run (`abcdef…`, `0123456789`) is an alphabet.
MAX_RUN_SHARE = 0.3

_HEX = re.compile(r"[0-9a-fA-F]+")
# A name then `=`, `:`, `:=` or `=>`, or an opening quote: then a base64/hex-alphabet value.
_ASSIGNED = re.compile(
    r"(?:(?<![\w.-])[A-Za-z_][\w.-]{0,80}[\"']?[ \t]{0,8}(?::=|=>|=|:)[ \t]{0,8}[\"'`]?"
    r"|[\"'`])"
    r"(?P<value>[A-Za-z0-9+/_-]{24,1000}={0,2})(?![A-Za-z0-9+/=_-])"
)
# A name that says the value is a checksum or a revision, not a credential (`sha256:`,
# `rev: <commit>`, `integrity`, `etag`): public by nature.
_DIGEST_NAME = re.compile(
    r"(?i)sha\d*|md5|hash|digest|checksum|integrity|\brev\b|revision|commit|etag|uuid|guid"
)
_LONG_RUN = re.compile(r"[A-Za-z0-9+/_-]{24}")
# detect-secrets' plugins, by module and class, with the kind our report names.
_PLUGINS = (
    ("artifactory", "ArtifactoryDetector", "artifactory-token"),
    ("aws", "AWSKeyDetector", "aws-access-key"),
    ("azure_storage_key", "AzureStorageKeyDetector", "azure-storage-key"),
    ("basic_auth", "BasicAuthDetector", "url-password"),
    ("cloudant", "CloudantDetector", "cloudant-credential"),
    ("discord", "DiscordBotTokenDetector", "discord-token"),
    ("github_token", "GitHubTokenDetector", "github-token"),
    ("ibm_cloud_iam", "IbmCloudIamDetector", "ibm-cloud-key"),
    ("ibm_cos_hmac", "IbmCosHmacDetector", "ibm-cos-key"),
    ("jwt", "JwtTokenDetector", "jwt"),
    ("mailchimp", "MailchimpDetector", "mailchimp-key"),
    ("npm", "NpmDetector", "npm-token"),
    ("sendgrid", "SendGridDetector", "sendgrid-key"),
    ("slack", "SlackDetector", "slack-token"),
    ("softlayer", "SoftlayerDetector", "softlayer-key"),
    ("square_oauth", "SquareOAuthDetector", "square-oauth-secret"),
    ("stripe", "StripeDetector", "stripe-key"),
    ("twilio", "TwilioKeyDetector", "twilio-key"),
)
# What a plugin's match may carry around the value (artifactory's regex takes the quote).
_AROUND = " \t\"'=:`"

_INLINE_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))
_LOOKAROUND = re.compile(r"\(\?<?[=!]")


class Finder(Protocol):
    def finditer(self, string: str) -> Iterator[re.Match[str]]: ...


class _Plugins(NamedTuple):
    patterns: tuple[tuple[str, Finder], ...]  # (kind, pattern)
    screen: Any  # an RE2 set of the RE2 patterns: which of them match a line, in one pass
    screened: tuple[int, ...]  # the pattern each member of the set is
    always: tuple[int, ...]  # the patterns RE2 cannot run, tried on every line


@cache
def _plugins() -> _Plugins:
    """detect-secrets' plugins' patterns, imported on first use, each compiled for RE2
    (linear time: some of them are quadratic in Python's engine on a hostile line, e.g.
    the JWT one on `eyJeyJeyJ…`) and screened all at once by an RE2 set; the few RE2 cannot
    run (lookarounds: the keyword ones for IBM, Cloudant, SoftLayer) stay in `re`."""
    import importlib

    re2 = importlib.import_module("re2")  # google-re2, a dependency
    patterns: list[tuple[str, Finder]] = []
    always: list[int] = []
    screened: list[int] = []
    screen = re2.Set.SearchSet()
    for module, name, kind in _PLUGINS:
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)()
        for regex in plugin.denylist:
            flags = "".join(letter for flag, letter in _INLINE_FLAGS if regex.flags & flag)
            pattern = (f"(?{flags})" if flags else "") + regex.pattern
            if _LOOKAROUND.search(pattern):  # RE2 has none: Python's engine, run on every line
                always.append(len(patterns))
                patterns.append((kind, regex))
                continue
            screened.append(len(patterns))  # the set numbers its patterns from 0
            screen.Add(pattern)
            patterns.append((kind, re2.compile(pattern)))
    screen.Compile()
    return _Plugins(tuple(patterns), screen, tuple(screened), tuple(always))


def vendor_secrets(line: str) -> list[tuple[str, str]]:
    """(kind, value) for each credential detect-secrets' plugins find in `line`; samples
    (`xoxb-xxxxxxxx…`) are left out. The value is the match, or its last group when that
    holds the value (`aws_secret = "(…)"`) rather than a prefix (`(ghp|gho)_…`)."""
    if not _LONG_RUN.search(line) and "://" not in line:  # every plugin needs one of these
        return []
    plugins = _plugins()
    found = []
    hits = {plugins.screened[member] for member in plugins.screen.Match(line) or ()}
    for index in sorted(hits.union(plugins.always)):
        kind, finder = plugins.patterns[index]
        for match in finder.finditer(line):
            value = _value(match).strip(_AROUND)
            if _credential_like(value):
                found.append((kind, value))
    return found


def random_values(line: str) -> list[tuple[int, int]]:
    """Spans of keyword-less random values: assigned to a name or quoted, 24+ characters
    of base64 or hex that look random."""
    if not _LONG_RUN.search(line):
        return []
    return [
        match.span("value")
        for match in _ASSIGNED.finditer(line)
        if looks_random(match.group("value"))
        and not _DIGEST_NAME.search(line, match.start(), match.start("value"))
    ]


def _value(match: re.Match[str]) -> str:
    """The match, or its last group that is not a prefix of it: `aws_secret = "(…)"` and
    `://user:(…)@` give the group, `(ghp|gho)_…` the whole match."""
    for index in range(len(match.groups()), 0, -1):
        if match.group(index) and match.start(index) > match.start():
            return match.group(index)
    return match.group()


def _credential_like(value: str) -> bool:
    """A plugin's match that is a value, not a word (`password`) or a sample."""
    if len(value) < 8 or value.isalpha() or is_sample(value.lower()):
        return False
    return entropy(value) >= 3.0


def looks_random(value: str) -> bool:
    """A base64 or hex value of 24+ characters with a random one's entropy, mixed
    character classes, no ascending alphabet run, and no placeholder word in charge."""
    body = value.rstrip("=")
    if len(body) < MIN_RANDOM_LENGTH or is_sample(body.lower()):
        return False
    if _ascending_share(body) > MAX_RUN_SHARE:
        return False
    if _HEX.fullmatch(body):
        has_both = any(c.isdigit() for c in body) and any(c.isalpha() for c in body)
        return has_both and entropy(body) >= HEX_ENTROPY
    classes = (str.islower, str.isupper, str.isdigit)
    if not all(any(kind(c) for c in body) for kind in classes):
        return False
    return entropy(body) >= BASE64_ENTROPY


def is_sample(lowered: str) -> bool:
    """A sample value: one repeated character, or a placeholder word (`xxxx`, `todo`,
    `example`…) with too little randomness left once those words are taken out. The
    whole value is judged: a random key that happens to contain `xxxx` is still a key."""
    if len(set(lowered)) <= 2:
        return True
    if not any(marker in lowered for marker in SAMPLE_MARKERS):
        return False
    rest = lowered
    for marker in SAMPLE_MARKERS:
        rest = rest.replace(marker, "")
    return len(rest) < RANDOM_REST_LENGTH or entropy(rest) < RANDOM_REST_ENTROPY


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    total = len(value)
    if not total:
        return 0.0
    return -sum(n / total * math.log2(n / total) for n in Counter(value).values())


def _ascending_share(value: str) -> float:
    steps = sum(1 for a, b in pairwise(value) if ord(b) - ord(a) == 1)
    return steps / max(1, len(value) - 1)
