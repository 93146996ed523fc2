"""Signed, expiring media URLs: {media_base_url}/{media_id}/{filename}?expires=T&signature=S.

The signature covers the path and the expiry, and the query must be exactly the one issued:
a change of any byte of path or query is refused."""

from __future__ import annotations

import hashlib
import hmac
import time
from datetime import UTC, datetime
from urllib.parse import quote

from itsdangerous import Signer

from soundstage.config import Settings
from soundstage.core.errors import PermissionDenied


class InvalidMediaSignature(PermissionDenied):
    """A signed media or demo URL whose signature does not match (tampered with)."""

    code = "invalid_signature"


class MediaUrlExpired(PermissionDenied):
    """A signed media or demo URL past its expiry (ask the API for a fresh one)."""

    code = "url_expired"


def _signer(settings: Settings) -> Signer:
    return Signer(
        settings.signing_secret(), salt="soundstage.media-url", digest_method=hashlib.sha256
    )


def _message(media_id: str, filename: str, expires: int) -> str:
    return f"{media_id}/{filename}?expires={expires}"


def signed_url(
    settings: Settings,
    media_id: str,
    filename: str,
    *,
    now: float | None = None,
    ttl_seconds: int | None = None,
) -> tuple[str, datetime]:
    """A URL valid for `ttl_seconds` (default `media.url_ttl_seconds`) from now, and when it
    expires."""
    ttl = settings.media.url_ttl_seconds if ttl_seconds is None else ttl_seconds
    expires = int(now if now is not None else time.time()) + ttl
    signature = _signer(settings).get_signature(_message(media_id, filename, expires)).decode()
    query = f"expires={expires}&signature={signature}"
    url = f"{settings.media_base_url}/{media_id}/{quote(filename)}?{query}"
    return url, datetime.fromtimestamp(expires, UTC)


def verify(
    settings: Settings, media_id: str, filename: str, raw_query: str, *, now: float | None = None
) -> None:
    """Raise 403 unless the query is exactly `expires=T&signature=S` signed for this path and
    T has not passed."""
    parts = raw_query.split("&")
    if (
        len(parts) != 2
        or not parts[0].startswith("expires=")
        or not parts[1].startswith("signature=")
    ):
        raise InvalidMediaSignature("This media URL is not validly signed.")
    expires_text = parts[0].removeprefix("expires=")
    signature = parts[1].removeprefix("signature=")
    # ASCII digits only: '²'.isdigit() is true but int('²') raises.
    if (
        not (expires_text.isascii() and expires_text.isdigit())
        or str(int(expires_text)) != expires_text
    ):
        raise InvalidMediaSignature("This media URL is not validly signed.")
    expires = int(expires_text)
    expected = _signer(settings).get_signature(_message(media_id, filename, expires))
    # The very string issued, compared in constant time: a decoder's check would also take
    # the other spellings of the same bytes (the last base64 character's unused low bits).
    if not hmac.compare_digest(expected, signature.encode()):
        raise InvalidMediaSignature("This media URL is not validly signed.")
    if (now if now is not None else time.time()) >= expires:
        raise MediaUrlExpired("This media URL has expired; request a new one.")


def is_signed_path(settings: Settings, path: str, raw_query: str) -> bool:
    """Whether `path` (`/<prefix>/<id>/<filename>`, decoded) with `raw_query` is a validly
    signed URL not yet expired: the gateway meters those in their own bucket; a tampered or
    expired one spends the anonymous bucket."""
    segments = path.split("/")
    if len(segments) != 4 or not segments[2] or not segments[3]:
        return False
    try:
        verify(settings, segments[2], segments[3], raw_query)
    except PermissionDenied:
        return False
    return True
