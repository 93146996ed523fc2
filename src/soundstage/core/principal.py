"""Who is calling: the account and environment an API key belongs to."""

from __future__ import annotations

from dataclasses import dataclass

from soundstage.config import Environment


@dataclass(frozen=True)
class Principal:
    account_id: str
    environment: Environment
    api_key_id: str
