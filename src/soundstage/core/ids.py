"""Prefixed identifiers (`acct_…`, `key_…`) that sort by creation time, random secrets, and
request ids."""

from __future__ import annotations

import random
import secrets
import string
import threading
import time

_ALPHABET = string.digits + string.ascii_uppercase + string.ascii_lowercase  # ASCII order
_lock = threading.Lock()
_last_us = 0


def random_token(length: int) -> str:
    """`length` characters of _ALPHABET, each equally likely (one draw, not one per character:
    a request id is made for every request)."""
    return _base62(secrets.randbelow(62**length), length)


def request_token(length: int) -> str:
    """`length` characters of _ALPHABET, each equally likely, for a request id: unique, not
    secret, so drawn from the process's pseudo-random generator (reseeded in each forked
    process) rather than the system's. Each draw of `secrets` is a getrandom() call that
    releases the GIL, and taking it back behind the threads of the units of work cost the
    event loop a quarter of its time under a burst of 1,000 connections (bench/load.py)."""
    return _base62(random.randrange(62**length), length)  # noqa: S311 (not a secret)


def _base62(value: int, width: int) -> str:
    digits = []
    for _ in range(width):
        value, digit = divmod(value, 62)
        digits.append(_ALPHABET[digit])
    return "".join(reversed(digits))


def new_id(prefix: str) -> str:
    """prefix + 10 characters of microsecond time (strictly increasing within a process,
    so ids created together keep their order) + 14 random characters."""
    global _last_us
    with _lock:
        _last_us = max(_last_us + 1, time.time_ns() // 1000)
        stamp = _last_us
    return f"{prefix}_{_base62(stamp, 10)}{random_token(14)}"
