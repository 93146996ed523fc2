"""Base of request bodies (unknown fields refused, strict types, whitespace trimmed, no NUL in
text) and the shared field types: media URLs and strict calendar dates."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    field_validator,
)


class RequestModel(BaseModel):
    """Strict types, one rule for every body: a value must already be of the field's JSON
    type. A string is never a number or a boolean (`"1.5"`, `"yes"`, `"48000"` are 422), a
    number never a string, a boolean never a number; an integer is a valid number (`"speed":
    1`), but a fraction is never an integer (`48000.0`). Enumerations are JSON strings
    (Literal fields) and dates the `CalendarDate` string."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, strict=True)

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        # PostgreSQL text cannot hold NUL, and no field of this API has a use for it.
        if _has_nul(value):
            raise ValueError("must not contain NUL characters")
        return value


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list | tuple | set):
        return any(_has_nul(v) for v in value)
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    return False


def _media_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http(s) URL")
    return value


# A URL the service fetches media from (checked for syntax here; the fetcher refuses private
# addresses when it connects).
MediaUrl = Annotated[
    str,
    Field(min_length=1, max_length=2048),
    AfterValidator(_media_url),
]


# ASCII digits only (`\d` also takes Arabic-Indic and fullwidth digits), the whole string
# (no trailing newline).
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


def _calendar_date(value: Any) -> date:
    if isinstance(value, date) and not isinstance(value, datetime):
        return value  # from code (catalog builders); JSON gives strings
    if isinstance(value, str) and _DATE.fullmatch(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError("must be a calendar date YYYY-MM-DD")


# A strict YYYY-MM-DD (no timestamps, no datetimes), documented as a date.
CalendarDate = Annotated[
    date,
    BeforeValidator(_calendar_date),
    WithJsonSchema({"type": "string", "format": "date", "example": "2026-12-05"}),
]
