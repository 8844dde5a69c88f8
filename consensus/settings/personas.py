"""Persona files → Persona: who a reviewing model pretends to be, and what it reports.

A persona file is Markdown with YAML front matter (`id`, `title`, `focus`, `categories`,
`severity_guide`) and a Jinja2 body: the instructions to the model. The body may use two
variables only, `persona` and `paths`. Built-ins load through the same loader as a
repository's own, and a file's `id` must equal its file name (`security.md` → `security`),
so one directory cannot hold two personas with the same id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Annotated

from jinja2 import StrictUndefined, Template, TemplateError, TemplateSyntaxError, meta
from jinja2.sandbox import ImmutableSandboxedEnvironment
from pydantic import Field, StringConstraints, field_validator

from consensus.errors import ConfigError, ConsensusError
from consensus.model.base import Category, Severity
from consensus.settings.frontmatter import OneLine, Rules, did_you_mean, read_document
from consensus.settings.strict import Strict

BUILTIN_SOURCE = "built-in"
TEMPLATE_VARIABLES = frozenset({"persona", "paths"})

_ID_PATTERN = r"^[a-z][a-z0-9-]*$"
_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # consensus/
_SEVERITIES = ", ".join(severity.value for severity in Severity)
_CATEGORIES = ", ".join(category.value for category in Category)
_FIXES = {
    "id": "a lowercase slug such as 'my-persona' (letters, digits, dashes), same as the file name",
    "title": "one line of text, e.g. 'title: Security reviewer'",
    "focus": "one line saying what this persona looks for",
    "categories": f"a list of categories it reports, from: {_CATEGORIES}",
    "severity_guide": f"a mapping with a one-line rule for each of: {_SEVERITIES}",
}
_RULES = Rules(
    id_field="id",
    keys_hint="id, title, focus, categories, severity_guide",
    body_hint="the reviewer's instructions",
    fixes=_FIXES,
    default_fix="see docs/configuration.md, 'Personas', and the built-ins in personas/",
)
# Template errors a user-written body can raise while rendering (the sandbox turns unsafe
# access into SecurityError, a TemplateError).
_RENDER_ERRORS = (TemplateError, ArithmeticError, LookupError, TypeError, ValueError)


class _FrontMatter(Strict):
    """The YAML front matter as written: unknown keys are errors."""

    id: str = Field(pattern=_ID_PATTERN, max_length=64)
    title: OneLine
    focus: OneLine
    categories: tuple[Category, ...] = Field(min_length=1, max_length=len(Category))
    severity_guide: dict[Severity, Annotated[str, StringConstraints(max_length=2_000)]] = Field(
        max_length=len(Severity)
    )

    @field_validator("categories", mode="after")
    @classmethod
    def _unique(cls, value: tuple[Category, ...]) -> tuple[Category, ...]:
        return tuple(dict.fromkeys(value))

    @field_validator("severity_guide", mode="after")
    @classmethod
    def _every_severity(cls, value: dict[Severity, str]) -> dict[Severity, str]:
        missing = [severity.value for severity in Severity if severity not in value]
        if missing:
            raise ValueError(f"has no rule for {', '.join(missing)}")
        if any(not rule.strip() for rule in value.values()):
            raise ValueError("every rule must be a non-empty line")
        return {severity: " ".join(value[severity].split()) for severity in Severity}


class Persona(Strict):
    """A loaded persona. `severity_guide` holds (severity, rule) pairs, critical first."""

    id: str = Field(pattern=_ID_PATTERN)
    title: str
    focus: str
    categories: tuple[Category, ...]
    severity_guide: tuple[tuple[Severity, str], ...]
    template: str
    source: str  # "built-in", or the path of the repository's persona file
    path: str  # the file it was loaded from, for error messages

    def rule_for(self, severity: Severity) -> str:
        return dict(self.severity_guide).get(severity, "")


def builtin_persona_dir(package_dir: Path = _PACKAGE_DIR) -> Path:
    """Where the built-in personas are: inside the wheel, else the repository's `personas/`."""
    installed = package_dir / "_builtin" / "personas"
    return installed if installed.is_dir() else package_dir.parent / "personas"


def load_persona_file(path: Path, *, source: str) -> Persona:
    """Read and validate one persona file; every problem is a ConfigError naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), None, f"cannot be read: {exc}", fix="save as UTF-8") from exc
    return parse_persona(text, path=str(path), source=source)


def parse_persona(text: str, *, path: str, source: str) -> Persona:
    """Validate persona text read from `path` (a file, or a blob from the base branch)."""
    document = read_document(text, path=path, model=_FrontMatter, rules=_RULES)
    front, body = document.front, document.body
    _check_template(body, path, document.body_offset)
    persona = Persona(
        id=front.id,
        title=front.title,
        focus=front.focus,
        categories=front.categories,
        severity_guide=tuple(front.severity_guide.items()),
        template=body,
        source=source,
        path=path,
    )
    render_persona(persona, paths=["src/example.py"])  # a trial render: fail at load, not mid-run
    return persona


def load_personas(
    persona_dirs: Sequence[Path], *, builtin_dir: Path | None = None
) -> dict[str, Persona]:
    """Built-ins first, then each directory in order adds or overrides personas by id.

    Directories that do not exist are skipped; `README.md` in a directory is not a persona.
    """
    builtin_dir = builtin_dir if builtin_dir is not None else builtin_persona_dir()
    if not builtin_dir.is_dir():
        raise ConsensusError(
            f"built-in personas not found at {builtin_dir}",
            fix="reinstall consensus-review; the package is incomplete",
        )
    personas = {p.id: p for p in _load_dir(builtin_dir, builtin=True)}
    for directory in persona_dirs:
        if directory.is_dir():
            personas.update((p.id, p) for p in _load_dir(directory, builtin=False))
    return personas


def select_personas(
    available: Mapping[str, Persona],
    wanted: Sequence[str],
    *,
    source: str = ".consensus.yml",
) -> list[Persona]:
    """The personas named in `wanted`, in that order, without repeats."""
    key = None if source.startswith("--") else "personas"  # a flag names itself
    example = "e.g. --personas correctness,security" if key is None else "e.g. [correctness]"
    if not wanted:
        raise ConfigError(
            source, key, "is empty", fix=f"name one or more of: {_known(available)} ({example})"
        )
    selected: list[Persona] = []
    for name in dict.fromkeys(wanted):
        persona = available.get(name)
        if persona is None:
            hint = did_you_mean(name, list(available))
            raise ConfigError(
                source,
                key,
                f"there is no persona '{name}'",
                fix=f"{hint}the personas are {_known(available)} ({example}; `consensus "
                "personas` describes each)",
            )
        selected.append(persona)
    return selected


def render_persona(persona: Persona, *, paths: Sequence[str]) -> str:
    """The persona's instructions for one chunk of the diff."""
    try:
        return _compiled(persona.template).render(persona=persona, paths=tuple(paths))
    except _RENDER_ERRORS as exc:
        raise ConfigError(
            persona.path,
            "body",
            f"template failed to render: {exc}",
            fix="use only 'persona' (id, title, focus, categories, severity_guide) and 'paths'",
        ) from exc


@lru_cache(maxsize=256)
def _compiled(template: str) -> Template:
    # Compiling costs far more than rendering: once per persona, not once per call.
    return _environment().from_string(template)


@cache
def _environment() -> ImmutableSandboxedEnvironment:
    # Sandboxed: repository personas are user-written. Blocks trimmed so prose stays tidy.
    return ImmutableSandboxedEnvironment(
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _load_dir(directory: Path, *, builtin: bool) -> list[Persona]:
    files = sorted(p for p in directory.glob("*.md") if p.name.lower() != "readme.md")
    return [load_persona_file(p, source=BUILTIN_SOURCE if builtin else str(p)) for p in files]


def _check_template(body: str, path: str, offset: int) -> None:
    environment = _environment()
    try:
        parsed = environment.parse(body)
        environment.compile(parsed)
    except TemplateSyntaxError as exc:
        raise ConfigError(
            path,
            "body",
            f"template syntax error at line {(exc.lineno or 1) + offset}: {exc.message}",
            fix="see https://jinja.palletsprojects.com/templates/",
        ) from exc
    unknown = meta.find_undeclared_variables(parsed) - TEMPLATE_VARIABLES - set(environment.globals)
    if unknown:
        raise ConfigError(
            path,
            "body",
            f"uses unknown variable(s) {', '.join(sorted(unknown))}",
            fix="a persona template may use only 'persona' and 'paths'",
        )


def _known(personas: Mapping[str, Persona]) -> str:
    return ", ".join(sorted(personas)) or "(none)"
