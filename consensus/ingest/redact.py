"""Ingest: secrets out of the diff before any provider sees it.

What is a secret: the vendor formats below, detect-secrets' plugins and keyword-less
random values (`detector.py`), assignments to a key word (`password = …`), private key
blocks and the repository's own `redact` patterns. Every kind of diff line is scanned (a
removed secret was still leaked). A secret is
replaced in place by `«redacted:KIND»`, so each line stays on its own line with its
numbers; a private key block has every line of the block replaced. A Redaction records
where and what kind, never the value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import NamedTuple

from consensus.errors import ConfigError
from consensus.ingest.detector import entropy, is_sample, random_values, vendor_secrets
from consensus.model.diff import ChangedFile, Redaction
from consensus.ports import SourceReader

# Assignment-style secrets need a value that looks random, not a reference or a sample.
MIN_SECRET_LENGTH = 8
# Bits per character. Random keys score 4.5-6; human passwords ("s3cr3t-P4ss-w0rd") about
# 3.3, so 3.5 would let them through: leaking costs more than a needless redaction.
MAX_ENTROPY_THRESHOLD = 3.0

_KEY_WORDS = (
    r"password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?key|auth[_-]?token|token"
    r"|credentials?|private[_-]?key|client[_-]?secret"
)
# The key word may end the name or be followed by `_x`, `.x`, `-x` or `X` (camelCase), so
# `DB_PASSWORD`, `apiToken` and `token.value` count but `tokenizer` does not.
_KEY = rf"(?<![\w.-])[\w.-]*?(?i:{_KEY_WORDS})(?:[_.-][\w.-]*|[A-Z][\w.-]*)?"
# Every quantifier after the name is bounded, so a hostile line cannot make this quadratic.
_ASSIGNMENT = (
    rf"{_KEY}[\"']?[ \t]{{0,8}}(?::[ \t]{{0,8}}[A-Za-z_][\w\[\],.| ]{{0,60}}?[ \t]{{0,8}})?"
    r"(?:={1,3}|!==?|:=|=>|:)[ \t]{0,8}"
    r"(?:(?P<q>[\"'`])(?P<quoted>(?:\\.|(?!(?P=q)).){0,1000})(?P=q)"
    r"|(?P<value>[^\s\"'`,;)}\]]{1,1000}))"
)


VENDOR_HINTS = (
    "shp", "_v1_", "dapi", "lin_api_", "dp.", "age-secret-key-", "pmak-", "gls", "glc_",
    "nrak-", "pul-", "hvs.", "key-", "sntrys_", "xkeysib-", "atatt3",
)  # fmt: skip


class _Rule(NamedTuple):
    kind: str
    regex: re.Pattern[str]
    check: bool = False  # the value must look like a secret (_looks_secret)
    token: bool = False  # the value must look random, not like `sk-xxxx…` (_random_token)
    # Lower-case text every match holds: a line with none of them skips the regex (most
    # lines hold none, and the regexes are most of ingest's time).
    hints: tuple[str, ...] = ()


# Vendor formats, after detect-secrets' plugins and the vendors' documentation. Anthropic
# before OpenAI: both start with `sk-`.
_RULES = (
    _Rule(
        "aws-access-key",
        re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])"),
        hints=("akia", "asia", "abia", "acca"),
    ),
    _Rule(
        "aws-secret-key",
        re.compile(
            r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*(?:=|:|=>)\s*"
            r"[\"']?(?P<value>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        check=True,
        hints=("key",),
    ),
    _Rule(
        "github-token",
        re.compile(r"(?<![\w])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_\w{22,255})(?!\w)"),
        hints=("gh", "github_pat_"),
    ),
    _Rule(
        "gitlab-token",
        re.compile(
            r"(?<![\w-])(?:glpat|gldt|glrt|glptt|glft|glsoat|glcbt|glimt)-[\w-]{20,}"
            r"|(?<![\w-])GR1348941[\w-]{20,}"
        ),
        hints=("gl", "gr1348941"),
    ),
    _Rule(
        "slack-webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[\w/-]+"),
        hints=("hooks.slack.com",),
    ),
    _Rule(
        "slack-token",
        re.compile(r"(?<![\w-])(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})"),
        hints=("xox", "xapp-"),
    ),
    _Rule(
        "anthropic-key", re.compile(r"(?<![\w-])sk-ant-[\w-]{20,}"), token=True, hints=("sk-ant-",)
    ),
    _Rule(
        "openai-key",
        re.compile(r"(?<![\w-])sk-(?:proj-|svcacct-|admin-|None-)?[\w-]{20,}"),
        token=True,
        hints=("sk-",),
    ),
    _Rule(
        "stripe-key",
        re.compile(r"(?<!\w)(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})"),
        token=True,
        hints=("k_live_", "k_test_", "whsec_"),
    ),
    _Rule(
        "twilio-key",
        re.compile(r"(?<!\w)SK[0-9a-fA-F]{32}(?![0-9a-fA-F])"),
        token=True,
        hints=("sk",),
    ),
    _Rule("sendgrid-key", re.compile(r"(?<![\w.])SG\.[\w-]{16,32}\.[\w-]{16,64}"), hints=("sg.",)),
    _Rule(
        "npm-token",
        re.compile(r"(?<!\w)npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
        token=True,
        hints=("npm_",),
    ),
    _Rule("pypi-token", re.compile(r"(?<![\w-])pypi-Ag[\w-]{50,}"), hints=("pypi-",)),
    _Rule(
        "huggingface-token",
        re.compile(r"(?<!\w)hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])"),
        token=True,
        hints=("hf_",),
    ),
    # Formats neither detect-secrets nor the rules above know, after gitleaks' public rules.
    _Rule(
        "vendor-token",
        re.compile(
            r"(?<![\w-])(?:shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|do[por]_v1_[a-f0-9]{64}"
            r"|dapi[a-f0-9]{32}(?:-\d)?|lin_api_[A-Za-z0-9]{40}|dp\.(?:pt|st|sa|ct|scim)\.[A-Za-z0-9]{40,44}"
            r"|AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}"
            r"|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2}|NRAK-[A-Z0-9]{27}"
            r"|pul-[a-f0-9]{40}|hvs\.[\w-]{90,120}|key-[a-f0-9]{32}|sntrys_eyJ[\w=+/-]{80,}"
            r"|xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}|ATATT3[\w=-]{186})(?![\w-])"
        ),
        token=True,
        hints=VENDOR_HINTS,
    ),
    _Rule("google-api-key", re.compile(r"(?<![\w-])AIza[\w-]{35}(?![\w-])"), hints=("aiza",)),
    _Rule("google-oauth-secret", re.compile(r"(?<![\w-])GOCSPX-[\w-]{24,}"), hints=("gocspx-",)),
    _Rule(
        "azure-storage-key",
        re.compile(r"(?i:AccountKey|SharedAccessKey)\s*=\s*(?P<value>[A-Za-z0-9+/]{20,}={0,2})"),
        token=True,
        hints=("accountkey", "sharedaccesskey"),
    ),
    _Rule(
        "azure-sas",
        re.compile(r"[?&;]sig=(?P<value>[A-Za-z0-9%+/=]{20,})"),
        token=True,
        hints=("sig=",),
    ),
    _Rule("jwt", re.compile(r"(?<![\w-])eyJ[\w-]{4,}\.eyJ[\w-]{4,}\.[\w-]*"), hints=("eyj",)),
    _Rule(
        "bearer-token",
        re.compile(r"(?i:bearer)\s+(?P<value>[\w.~+/-]{16,}=*)"),
        check=True,
        hints=("bearer",),
    ),
    _Rule(
        "url-password",
        # The lookbehind keeps this linear: a scheme can only start a word.
        re.compile(r"(?<![\w+.-])[a-zA-Z][\w+.-]*://[^\s:/@]*:(?P<value>[^\s:/@]+)@"),
        check=True,
        hints=("://",),
    ),
)
_GENERIC = _Rule(
    "secret",
    re.compile(_ASSIGNMENT),
    check=True,
    hints=("password", "passwd", "pwd", "secret", "key", "token", "credential"),
)

_PEM_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = re.compile(r"^[\s\"'+]*[A-Za-z0-9+/=]{16,}(?:\\n)?[\s\"',+]*$")

_SAMPLE_VALUES = frozenset({"password", "secret", "none", "null", "nil", "undefined"})
# `$X`, `${X}`, `${{ secrets.X }}`, `{{ .Values.x }}`, `%(x)s`, `<your key>`, `{name}`.
_TEMPLATE = re.compile(r"^\$\w+$|\$\{|\$\(|\{\{|%\(|^<[^>]*>$|^\{[\w.]*\}$")
_NOT_SECRET_STARTS = ("/", "./", "../", "~/", "http://", "https://")
_DOTTED_NAME = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
# Names, not values: an environment variable (`api_key_env="OPENAI_API_KEY"`) or a slug of
# lower-case words (`secret_name = "prod-db-credentials-v2"`).
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_SLUG = re.compile(r"^[a-z]{2,}(?:[-_.][a-z0-9]{1,12})+$")


RANDOM_KIND = "high-entropy-string"


def placeholder(kind: str) -> str:
    return f"«redacted:{kind}»"


def redact_files(
    files: Sequence[ChangedFile], extra_patterns: Sequence[str] = ()
) -> tuple[list[ChangedFile], list[Redaction]]:
    """Files with every secret replaced, and one Redaction per secret found.

    `Redaction.line` is the new-side line, or the old-side line for a removed line, whose
    kind then reads e.g. "github-token (removed line)". Custom patterns have kind "custom".
    """
    rules = _rules(extra_patterns)
    result: list[ChangedFile] = []
    redactions: list[Redaction] = []
    for file in files:
        hunks = []
        for hunk in file.hunks:
            texts, found = _redact_lines([line.text for line in hunk.lines], rules)
            if not found:
                hunks.append(hunk)
                continue
            for index, kind in found:
                line = hunk.lines[index]
                removed = line.kind == "-"
                number = line.old_line if removed else line.new_line
                label = f"{kind} (removed line)" if removed else kind
                redactions.append(
                    Redaction(path=file.path, line=number, kind=label, added=line.kind == "+")
                )
            lines = tuple(
                line if line.text == text else line.model_copy(update={"text": text})
                for line, text in zip(hunk.lines, texts, strict=True)
            )
            hunks.append(hunk.model_copy(update={"lines": lines}))
        changed = any(new is not old for new, old in zip(hunks, file.hunks, strict=True))
        result.append(file.model_copy(update={"hunks": tuple(hunks)}) if changed else file)
    return result, redactions


def redact_text(text: str, extra_patterns: Sequence[str] = ()) -> tuple[str, list[str]]:
    """Free text (a PR title or body) with secrets replaced, and the kinds found."""
    # Split at "\n" only, as git counts lines: a form feed must not shift a line's number.
    redacted, found = _redact_lines(text.split("\n"), _rules(extra_patterns))
    return "\n".join(redacted), [kind for _, kind in found]


def known_values(secrets: Sequence[str]) -> re.Pattern[str] | None:
    """One regex for a run's secret values (app/secrets.py), longest first so that a value
    is never matched inside a longer one; values shorter than MIN_SECRET_LENGTH are left
    out (they would replace ordinary words). None when no value is left."""
    values = sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, values))) if values else None


def redact_outbound(text: str, patterns: Sequence[str], values: re.Pattern[str] | None) -> str:
    """Text a model wrote, as it may leave the run: the run's secret values (`values`, of
    `known_values`) replaced by `«redacted:secret»`, then everything `redact_text` finds."""
    if values is not None:
        text = values.sub(placeholder("secret"), text)
    return redact_text(text, patterns)[0] if text else text


def validated_patterns(patterns: Sequence[str]) -> tuple[str, ...]:
    """`patterns` (a `redact:` setting), each compiled once to check it is a regex."""
    for pattern in patterns:
        _compiled(pattern)
    return tuple(patterns)


def _compiled(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ConfigError(
            "configuration", "redact", f"pattern {pattern!r} is not a valid regex: {exc}",
            fix="write a Python regular expression, e.g. '(?i)internal-token-[a-z0-9]+'",
        ) from exc  # fmt: skip


def _rules(extra_patterns: Sequence[str]) -> list[_Rule]:
    custom = [_Rule("custom", _compiled(pattern)) for pattern in extra_patterns]
    return [*_RULES, *custom, _GENERIC]


def _redact_lines(
    lines: Sequence[str], rules: Sequence[_Rule]
) -> tuple[list[str], list[tuple[int, str]]]:
    """Redact a run of consecutive lines (one hunk); returns texts and (index, kind)."""
    out: list[str] = []
    found: list[tuple[int, str]] = []
    in_key = False
    key = placeholder("private-key")
    for index, text in enumerate(lines):
        end = _last_end(text, 0)
        if in_key and end is None:
            out.append(key)
            continue
        if end is not None:
            if not in_key:
                # The hunk starts inside a key: take back the key lines above this one.
                first = index
                while first > 0 and _PEM_BODY.match(out[first - 1]):
                    first -= 1
                    out[first] = key
                found.append((first, "private-key"))
            text, in_key = key + text[end.end() :], False
        position = 0
        while begin := _PEM_BEGIN.search(text, position):
            found.append((index, "private-key"))
            end = _last_end(text, begin.end())
            if end is None:  # the block goes on over the next lines
                text, in_key = text[: begin.start()] + key, True
                break
            text = text[: begin.start()] + key + text[end.end() :]
            position = begin.start() + len(key)
        lowered = text.lower()
        for rule in rules:
            if rule.hints and not any(hint in lowered for hint in rule.hints):
                continue
            text, count = _apply(rule, text)
            found.extend((index, rule.kind) for _ in range(count))
        text = _detected(text, index, found)
        out.append(text)
    return out, found


def _detected(text: str, index: int, found: list[tuple[int, str]]) -> str:
    """`text` with what the detector finds replaced (what the rules above left): vendor
    formats of detect-secrets' plugins, then keyword-less random values."""
    for kind, value in vendor_secrets(text):
        count = text.count(value)
        if count:
            text = text.replace(value, placeholder(kind))
            found.extend((index, kind) for _ in range(count))
    for start, end in reversed(random_values(text)):
        text = text[:start] + placeholder(RANDOM_KIND) + text[end:]
        found.append((index, RANDOM_KIND))
    return text


def _last_end(text: str, start: int) -> re.Match[str] | None:
    """The last END marker after `start` and before the next BEGIN marker, if any."""
    following = _PEM_BEGIN.search(text, start)
    last = None
    for match in _PEM_END.finditer(text, start, following.start() if following else len(text)):
        last = match
    return last


def _apply(rule: _Rule, text: str) -> tuple[str, int]:
    count = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal count
        group = next((g for g in ("value", "quoted") if match.groupdict().get(g)), None)
        value = match.group(group) if group else match.group()
        if not value or (rule.check and not _looks_secret(value, quoted=group == "quoted")):
            return match.group()
        if rule.token and not _random_token(value):
            return match.group()
        start, end = match.span(group) if group else match.span()
        count += 1
        return (
            match.string[match.start() : start]
            + placeholder(rule.kind)
            + match.string[end : match.end()]
        )

    return rule.regex.sub(replace, text), count


def _looks_secret(value: str, *, quoted: bool) -> bool:
    """A literal, random-looking value: not a reference, a template or a sample."""
    value = value.strip() if quoted else value.rstrip(":")  # `if token == other_token:`
    lowered = value.lower()
    if len(value) < MIN_SECRET_LENGTH or "«redacted:" in value or lowered in _SAMPLE_VALUES:
        return False
    if not quoted and value.startswith("\\"):  # the rest of a string: `"Password:\\n…"`
        return False
    if is_sample(lowered) or _TEMPLATE.search(value):
        return False
    # Prose ("Token used to sign requests"), paths and plain URLs are not credentials.
    if any(char.isspace() for char in value) or value.startswith(_NOT_SECRET_STARTS):
        return False
    if _ENV_NAME.match(value) or (_SLUG.match(value) and _words_only(value)):
        return False
    # Unquoted, the value is code or a config word: `os.environ[...]`, `settings.KEY`, `user_pwd`.
    if not quoted and (
        any(char in value for char in "([")
        or _DOTTED_NAME.match(value)
        or re.fullmatch(r"[A-Za-z_]+", value)
    ):
        return False
    # The entropy of n characters is at most log2(n), so short values get a lower bar.
    threshold = min(MAX_ENTROPY_THRESHOLD, math.log2(len(value)) - 0.5)
    return entropy(value) >= threshold


def _random_token(value: str) -> bool:
    """A vendor-format value that is a real key, not `sk-xxxxxxxx…` from a README: mixed
    character classes, no placeholder word in charge, enough entropy."""
    kinds = (str.islower, str.isupper, str.isdigit)
    classes = sum(any(kind(c) for c in value) for kind in kinds)
    return classes >= 2 and not is_sample(value.lower()) and entropy(value) >= 3.0


def _words_only(value: str) -> bool:
    """Every part of a slug is a word or a short version tag (`v2`, `2024`), not random."""
    parts = re.split(r"[-_.]", value)
    return all(part.isalpha() or re.fullmatch(r"v?\d{1,4}", part) for part in parts)


class RedactedSource:
    """A SourceReader whose files come back with secrets replaced, as the diff's were:
    nothing read from the tree, the journal included, ever holds a secret."""

    def __init__(self, inner: SourceReader, patterns: Sequence[str]) -> None:
        self._inner = inner
        self._patterns = patterns

    def read(self, path: str) -> str | None:
        text = self._inner.read(path)
        return None if text is None else redact_text(text, self._patterns)[0]
