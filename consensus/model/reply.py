"""The model I/O contract: what a reviewing or verifying model answers."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from consensus.model.base import Category, Severity

MAX_SUGGESTION_CHARS = 8_000
MAX_SUGGESTION_LINES = 60


class ModelReply(BaseModel):
    """What a model answers, parsed: keys the contract does not name are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


def closed_word(value: object) -> object:
    """A word of a closed set as a model may write it ("Confirmed ", "HIGH"): trimmed and
    lower case, before the set is checked."""
    return value.strip().lower() if isinstance(value, str) else value


class ReplyFinding(ModelReply):
    """One finding as a model must write it. Unknown extra keys are ignored."""

    path: str = Field(min_length=1, max_length=1000)
    line: int = Field(ge=1)
    end_line: int | None = Field(default=None, ge=1)
    severity: Severity
    category: Category
    title: str = Field(min_length=1, max_length=200, description="one line, under 100 characters")
    body: str = Field(max_length=20_000, description="why it is a problem and how to fix it")
    evidence: str | None = Field(
        default=None,
        max_length=5_000,
        description=(
            "required: the exact code of the new version at line..end_line, copied from "
            "the diff (its head side) without line numbers or +/- markers"
        ),
    )
    suggestion: str | None = Field(
        default=None,
        max_length=MAX_SUGGESTION_CHARS,
        description=(
            "optional: the exact replacement text for lines line..end_line of the new "
            "version (a committable suggestion), with their indentation, without line "
            "numbers or +/- markers"
        ),
    )
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)

    @field_validator("suggestion", mode="before")
    @classmethod
    def _suggestion_lines(cls, value: object) -> object:
        """One newline convention, no trailing newline; at most MAX_SUGGESTION_LINES lines."""
        if not isinstance(value, str):
            return value
        text = value.replace("\r\n", "\n").replace("\r", "\n").removesuffix("\n")
        if text.count("\n") >= MAX_SUGGESTION_LINES:
            raise ValueError(f"a suggestion replaces at most {MAX_SUGGESTION_LINES} lines")
        return text

    _words = field_validator("severity", "category", mode="before")(closed_word)

    @field_validator("title", mode="before")
    @classmethod
    def _one_line(cls, value: object) -> object:
        return " ".join(value.split()) if isinstance(value, str) else value


class ReviewReply(ModelReply):
    findings: list[ReplyFinding]


MAX_CITATIONS = 8  # read from one verdict; a longer list is cut there
MAX_QUOTE_CHARS = 2_000
MAX_LINE = 10_000_000


class Citation(ModelReply):
    """One line range a verdict rests on, and its code quoted: written by a judge, checked
    by consensus against the tree and what the judge was shown (inspect/citations.py)."""

    path: str = Field(min_length=1, max_length=1_000)
    start_line: int = Field(ge=1, le=MAX_LINE)
    end_line: int = Field(ge=1, le=MAX_LINE)
    quote: str = Field(max_length=MAX_QUOTE_CHARS)
    side: Literal["head", "base"] = "head"

    @model_validator(mode="before")
    @classmethod
    def _one_line(cls, value: object) -> object:
        """A citation of one line may leave out its end_line."""
        if isinstance(value, dict) and value.get("end_line") is None and "start_line" in value:
            return {**value, "end_line": value["start_line"]}
        return value


class VerdictReply(ModelReply):
    verdict: Literal["confirmed", "refuted", "uncertain"]
    reason: str = Field(max_length=4_000)
    evidence: tuple[Citation, ...] = Field(
        default=(),
        description="the lines that decide the verdict, each with its code quoted",
    )

    _verdict_word = field_validator("verdict", mode="before")(closed_word)

    @field_validator("evidence", mode="before")
    @classmethod
    def _readable_citations(cls, value: object) -> object:
        """The citations that are citations, at most MAX_CITATIONS: a malformed one cites
        nothing (the verdict still counts; with nothing cited it counts as blind)."""
        if not isinstance(value, list | tuple):
            return ()
        readable = []
        for item in value:
            try:
                readable.append(Citation.model_validate(item))
            except ValueError:
                continue
            if len(readable) == MAX_CITATIONS:
                break
        return tuple(readable)


class SameProblemReply(ModelReply):
    """A verifier's answer to an open question of alignment: one defect or two?"""

    verdict: Literal["same", "different"]
    reason: str = Field(default="", max_length=4_000)

    _verdict_word = field_validator("verdict", mode="before")(closed_word)


class ConverseReply(ModelReply):
    """The model's reading of a person's reply to a finding, and its one answer."""

    kind: Literal["question", "disagreement", "fixed", "acknowledgement", "other"]
    stands: bool = Field(description="true: the finding stands; false: the reply is right")
    answer: str = Field(default="", max_length=6_000)

    _kind_word = field_validator("kind", mode="before")(closed_word)
