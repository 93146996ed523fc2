"""Idempotency-Key on POST (Stripe's rules): replay the stored answer, 422 when the same key
comes with another request, 409 while the first is still running. Scoped to the API key,
kept `idempotency_ttl_seconds` (24 h by default). 5xx answers are not stored, so a retry
after a server error runs again."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError, IdempotencyError, InvalidField
from soundstage.core.responses import error_response
from soundstage.core.timeutil import utcnow
from soundstage.models import IdempotencyRecord

HEADER = "idempotency-key"
MAX_KEY_LENGTH = 255


@dataclass(frozen=True)
class StoredResponse:
    status: int
    content_type: str | None
    body: bytes


class IdempotencyStore:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.ttl = timedelta(seconds=settings.idempotency_ttl_seconds)
        self.lock_timeout = timedelta(seconds=settings.idempotency_lock_timeout_seconds)

    def begin(self, api_key_id: str, key: str, fingerprint: str) -> StoredResponse | None:
        """Take the key (None: go ahead), or return the stored answer, or raise 409/422."""
        now = utcnow()
        with self.db.session() as session:
            existing = session.scalars(
                select(IdempotencyRecord).where(
                    IdempotencyRecord.api_key_id == api_key_id, IdempotencyRecord.key == key
                )
            ).first()
            if existing is not None and (
                existing.expires_at <= now
                or (
                    existing.status == "in_flight" and existing.locked_at <= now - self.lock_timeout
                )
            ):
                session.delete(existing)
                session.flush()
                existing = None
            if existing is None:
                try:
                    with session.begin_nested():
                        session.add(
                            IdempotencyRecord(
                                api_key_id=api_key_id,
                                key=key,
                                fingerprint=fingerprint,
                                status="in_flight",
                                locked_at=now,
                                expires_at=now + self.ttl,
                                created_at=now,
                            )
                        )
                    return None
                except IntegrityError:  # another request took it between our read and insert
                    existing = session.scalars(
                        select(IdempotencyRecord).where(
                            IdempotencyRecord.api_key_id == api_key_id, IdempotencyRecord.key == key
                        )
                    ).one()
            if existing.fingerprint != fingerprint:
                raise IdempotencyError(
                    "This Idempotency-Key was used with a different request; use a new key.",
                    status=422,
                    code="idempotency_key_reused",
                    param="Idempotency-Key",
                )
            if existing.status == "in_flight":
                raise IdempotencyError(
                    "A request with this Idempotency-Key is still being processed; retry later.",
                    status=409,
                    code="idempotency_key_in_use",
                    param="Idempotency-Key",
                )
            assert existing.response_status is not None
            return StoredResponse(
                existing.response_status,
                existing.response_content_type,
                existing.response_body or b"",
            )

    def finish(self, api_key_id: str, key: str, stored: StoredResponse | None) -> None:
        """Store the answer, or (None: server error) forget the key so a retry runs again."""
        with self.db.session() as session:
            where = (IdempotencyRecord.api_key_id == api_key_id, IdempotencyRecord.key == key)
            if stored is None:
                session.execute(delete(IdempotencyRecord).where(*where))
                return
            record = session.scalars(select(IdempotencyRecord).where(*where)).one()
            record.status = "completed"
            record.response_status = stored.status
            record.response_content_type = stored.content_type
            record.response_body = stored.body

    def purge_expired(self) -> int:
        with self.db.session() as session:
            result = session.execute(
                delete(IdempotencyRecord).where(IdempotencyRecord.expires_at <= utcnow())
            )
            return int(result.rowcount)  # type: ignore[attr-defined]


def fingerprint_of(scope: Scope, body: bytes) -> str:
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
    except ValueError:
        canonical = body
    digest = hashlib.sha256()
    for part in (
        scope["method"].encode(),
        scope["path"].encode(),
        scope.get("query_string", b""),
        canonical,
    ):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


class IdempotencyMiddleware:
    def __init__(self, app: ASGIApp, *, store: IdempotencyStore) -> None:
        self.app = app
        self.store = store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = Headers(scope=scope).get(HEADER) if scope["type"] == "http" else None
        principal = (scope.get("state") or {}).get("principal")
        if key is None or scope["method"] != "POST" or principal is None:
            await self.app(scope, receive, send)
            return
        try:
            if not 1 <= len(key) <= MAX_KEY_LENGTH:
                raise InvalidField(
                    f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} characters.",
                    param="Idempotency-Key",
                )
            body = await _read_body(receive)
            stored = await run_in_threadpool(
                self.store.begin, principal.api_key_id, key, fingerprint_of(scope, body)
            )
        except AppError as exc:
            await error_response(exc, scope)(scope, receive, send)
            return
        if stored is not None:
            headers = {"Idempotent-Replayed": "true"}
            if stored.content_type:
                headers["Content-Type"] = stored.content_type
            await Response(stored.body, status_code=stored.status, headers=headers)(
                scope, receive, send
            )
            return
        await self._run(scope, body, receive, send, principal.api_key_id, key)

    async def _run(
        self, scope: Scope, body: bytes, receive: Receive, send: Send, api_key_id: str, key: str
    ) -> None:
        start: Message | None = None
        chunks: list[bytes] = []
        delivered = False
        # Streamed audio is relayed as it comes, not kept: the key is released when it starts.
        streaming = False

        async def replay_receive() -> Message:
            nonlocal delivered
            if delivered:
                # After the body only a disconnect can come: wait for the client's real one.
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def capture(message: Message) -> None:
            nonlocal start, streaming
            if message["type"] == "http.response.start":
                start = message
                content_type = Headers(raw=message["headers"]).get("content-type", "")
                if not content_type.startswith("application/json"):
                    streaming = True
                    await run_in_threadpool(self.store.finish, api_key_id, key, None)
                    await send(message)
            elif message["type"] == "http.response.body":
                if streaming:
                    await send(message)
                else:
                    chunks.append(message.get("body", b""))

        try:
            await self.app(scope, replay_receive, capture)
        except BaseException:
            if not streaming:
                await run_in_threadpool(self.store.finish, api_key_id, key, None)
            raise
        if streaming:
            return
        assert start is not None
        content = b"".join(chunks)
        status = int(start["status"])
        stored = None
        if status < 500:
            stored = StoredResponse(
                status, Headers(raw=start["headers"]).get("content-type"), content
            )
        await run_in_threadpool(self.store.finish, api_key_id, key, stored)
        await send(start)
        await send({"type": "http.response.body", "body": content, "more_body": False})


async def _read_body(receive: Receive) -> bytes:
    parts: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(parts)
