"""The principals of API keys seen lately, so that a request does not look its key up in the
database again within `accounts.key_cache_seconds` (a thread hop and a query saved on every
request of a busy key: about a third of the API's own time per request).

Only keys found valid are kept; a refused key is looked up every time. A key revoked through
this process is forgotten at once (when its revocation commits); one revoked elsewhere (another
API process or node, the CLI) is refused by every process within `key_cache_seconds`.
"""

from __future__ import annotations

import hashlib
import threading
import time

from soundstage.core.principal import Principal

# Entries kept at most (the oldest go first): bounded memory whatever the traffic.
MAX_ENTRIES = 10_000


class KeyCache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        # digest of (database, Authorization header) -> (expires at, principal)
        self._entries: dict[bytes, tuple[float, Principal]] = {}

    @staticmethod
    def _digest(database: str, authorization: str) -> bytes:
        return hashlib.sha256(f"{database}\n{authorization}".encode()).digest()

    def get(self, database: str, authorization: str) -> Principal | None:
        digest = self._digest(database, authorization)
        entry = self._entries.get(digest)
        if entry is None:
            return None
        if entry[0] <= time.monotonic():
            with self._lock:
                self._entries.pop(digest, None)
            return None
        return entry[1]

    def put(self, database: str, authorization: str, principal: Principal, ttl: float) -> None:
        if ttl <= 0:
            return
        with self._lock:
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.pop(next(iter(self._entries)))
            self._entries[self._digest(database, authorization)] = (
                time.monotonic() + ttl,
                principal,
            )

    def forget_key(self, api_key_id: str) -> None:
        """Drop every entry of a key (it was just revoked)."""
        with self._lock:
            for digest in [d for d, (_, p) in self._entries.items() if p.api_key_id == api_key_id]:
                del self._entries[digest]


# One per process: a key revoked through any app of the process is forgotten by all.
KEYS = KeyCache()
