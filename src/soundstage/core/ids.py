"""Prefixed random identifiers (`acct_…`, `key_…`) and secrets."""

from __future__ import annotations

import secrets
import string

_ALPHABET = string.ascii_letters + string.digits


def random_token(length: int) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def new_id(prefix: str) -> str:
    return f"{prefix}_{random_token(24)}"
