"""The answers of the operations endpoints."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class CheckOut(BaseModel):
    status: Literal["ok", "failed", "timeout"]
    duration_ms: int
    # The kind of failure (e.g. `OperationalError`, `ConnectionError`, `Timeout`).
    error: str | None = None


class Readiness(BaseModel):
    """Every dependency answered (200); a 503 carries the error envelope with the same
    `checks` beside it."""

    status: Literal["ready"]
    checks: dict[str, CheckOut]


class Health(BaseModel):
    status: Literal["ok"]
