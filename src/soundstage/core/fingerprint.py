"""The digest that tells apart two requests sent with one Idempotency-Key: method, path,
query and body, the body canonical (JSON formatting and a multipart boundary do not count)."""

from __future__ import annotations

import hashlib
import json

from starlette.datastructures import Headers
from starlette.types import Scope


def fingerprint_of(scope: Scope, body: bytes) -> str:
    """The request as a digest: JSON bodies canonical (formatting does not matter), multipart
    bodies without their boundary (a client's retry draws a new one)."""
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
    except ValueError:
        boundary = _multipart_boundary(scope)
        canonical = body.replace(boundary, b"\x00") if boundary else body
    return _digest(scope, canonical)


def _digest(scope: Scope, body: bytes) -> str:
    digest = hashlib.sha256()
    for part in (
        scope["method"].encode(),
        scope["path"].encode(),
        scope.get("query_string", b""),
        body,
    ):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def _multipart_boundary(scope: Scope) -> bytes | None:
    content_type = Headers(raw=scope.get("headers", [])).get("content-type", "")
    kind, _, params = content_type.partition(";")
    if kind.strip().lower() != "multipart/form-data":
        return None
    for param in params.split(";"):
        name, _, value = param.strip().partition("=")
        if name.lower() == "boundary" and value.strip('"'):
            return value.strip('"').encode("latin-1")
    return None


class StreamedDigest:
    """sha256 of a body too big to keep, fed as it arrives; a multipart boundary is left out
    (as in `fingerprint_of`) even when it straddles two chunks."""

    def __init__(self, scope: Scope) -> None:
        self.boundary = _multipart_boundary(scope)
        self.digest = hashlib.sha256()
        self.carry = b""

    def update(self, chunk: bytes) -> None:
        if not self.boundary:
            self.digest.update(chunk)
            return
        *whole, last = (self.carry + chunk).split(self.boundary)
        for part in whole:
            self.digest.update(part + b"\x00")
        # The end may be the start of a boundary: keep it for the next chunk.
        cut = max(0, len(last) - (len(self.boundary) - 1))
        self.digest.update(last[:cut])
        self.carry = last[cut:]

    def fingerprint(self, scope: Scope) -> str:
        self.digest.update(self.carry)
        return _digest(scope, b"sha256:" + self.digest.digest())
