"""The register of every error code the API answers, complete: every module of the package
imported (so every AppError subclass is declared), then `core.errors.declared()`. The
error table of docs/errors.md is `markdown_table()` (`soundstage errors --markdown`); a test keeps
the two equal."""

from __future__ import annotations

import importlib
import pkgutil

import soundstage
from soundstage.core.errors import ErrorCode, declared

TABLE_START = "<!-- error-codes:start -->"
TABLE_END = "<!-- error-codes:end -->"


def all_codes() -> list[ErrorCode]:
    """Every declared code, by status then code."""
    for module in pkgutil.walk_packages(soundstage.__path__, f"{soundstage.__name__}."):
        importlib.import_module(module.name)
    return declared()


def markdown_table(codes: list[ErrorCode] | None = None) -> str:
    """The docs' table: one row per code (status, type, code, meaning)."""
    lines = ["| Status | Type | Code | Meaning |", "| --- | --- | --- | --- |"]
    for row in all_codes() if codes is None else codes:
        meaning = row.meaning.replace("|", "\\|")
        lines.append(f"| {row.status} | `{row.type}` | `{row.code}` | {meaning} |")
    return "\n".join(lines) + "\n"
