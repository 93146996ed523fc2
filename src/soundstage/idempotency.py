"""Idempotency-Key on POST (Stripe's rules): replay the stored answer, 422 when the same key
comes with another request, 409 while the first is still running. Scoped to the API key,
kept `idempotency_ttl_seconds` (24 h by default). 5xx answers are not stored, so a retry
after a server error runs again.

The body is spooled (memory up to `max_request_bytes`, a temporary file beyond) while it is
fingerprinted, and handed on from there: an upload is never held whole in memory. A request
holds its key under a lease it renews every `idempotency_heartbeat_seconds`; once the lease
has run out its request is dead and a retry takes the key over at once. A job submitted under
the key is bound to it in the job's own transaction (`bind_job`), so the retry of a request
that died resumes that job (`take_resumed_job`) instead of running and charging it twice.

The request's principal carries its claim (`Principal.claim`) to the job system.

It keeps its records in a table (`models.IdempotencyRecord`), so it sits above `models`, outside
`core`, which `models` build on: the app and the job system import it, `core` never does."""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import (
    AppError,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    InvalidField,
)
from soundstage.core.fingerprint import StreamedDigest, fingerprint_of
from soundstage.core.ids import random_token
from soundstage.core.principal import IdempotencyClaim as Claim
from soundstage.core.principal import Principal
from soundstage.core.responses import error_response
from soundstage.core.spool import SpooledBody
from soundstage.core.timeutil import utcnow
from soundstage.models import IdempotencyRecord
from soundstage.models.idempotency import IdempotencyRecordStatus

log = logging.getLogger("soundstage")

HEADER = "idempotency-key"
MAX_KEY_LENGTH = 255


@dataclass(frozen=True)
class StoredResponse:
    status: int
    content_type: str | None
    body: bytes


def take_resumed_job(principal: Principal) -> str | None:
    """The job to resume instead of submitting one: the principal's request retries, under
    the same key, a request that died after creating it. Given once per request."""
    claim = principal.claim
    if claim is None or claim.resumed_job_id is None:
        return None
    job_id, claim.resumed_job_id = claim.resumed_job_id, None
    claim.job_bound = True
    return job_id


def bind_job(session: Session, principal: Principal, job_id: str) -> None:
    """Record on the principal's request key (if any) the job it created, in the session that
    creates the job: both are committed together or not at all. The first job only."""
    claim = principal.claim
    if claim is None or claim.job_bound:
        return
    session.execute(
        update(IdempotencyRecord)
        .where(
            IdempotencyRecord.id == claim.record_id,
            IdempotencyRecord.owner == claim.owner,
            IdempotencyRecord.job_id.is_(None),
        )
        .values(job_id=job_id)
    )
    claim.job_bound = True


class IdempotencyStore:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.ttl = timedelta(seconds=settings.idempotency_ttl_seconds)
        self.lease = timedelta(seconds=settings.idempotency_lease_seconds)

    def begin(self, api_key_id: str, key: str, fingerprint: str) -> StoredResponse | Claim:
        """Take the key (a Claim: go ahead), or return the stored answer, or raise 409/422."""
        now = utcnow()
        owner = random_token(24)
        with self.db.session() as session:
            existing = _find(session, api_key_id, key)
            if existing is not None and existing.expires_at <= now:
                session.delete(existing)
                session.flush()
                existing = None
            if existing is None:
                try:
                    with session.begin_nested():
                        record = IdempotencyRecord(
                            api_key_id=api_key_id,
                            key=key,
                            fingerprint=fingerprint,
                            status=IdempotencyRecordStatus.IN_FLIGHT,
                            owner=owner,
                            locked_at=now,
                            lease_expires_at=now + self.lease,
                            expires_at=now + self.ttl,
                            created_at=now,
                        )
                        session.add(record)
                    return Claim(record.id, owner)
                except IntegrityError:  # another request took it between our read and insert
                    existing = _find(session, api_key_id, key)
                    assert existing is not None
            if existing.fingerprint != fingerprint:
                raise IdempotencyKeyReused(
                    "This Idempotency-Key was used with a different request; use a new key.",
                    param="Idempotency-Key",
                )
            if existing.status == IdempotencyRecordStatus.IN_FLIGHT:
                lease_end = existing.lease_expires_at
                if (lease_end is None or lease_end <= now) and self._take_over(
                    session, existing, owner, now
                ):
                    return Claim(existing.id, owner, resumed_job_id=existing.job_id)
                wait = (lease_end - now).total_seconds() if lease_end else 1.0
                raise IdempotencyKeyInUse(
                    "A request with this Idempotency-Key is still being processed; retry later.",
                    param="Idempotency-Key",
                    headers={"Retry-After": str(max(1, math.ceil(wait)))},
                )
            assert existing.response_status is not None
            return StoredResponse(
                existing.response_status,
                existing.response_content_type,
                existing.response_body or b"",
            )

    def _take_over(
        self, session: Session, record: IdempotencyRecord, owner: str, now: datetime
    ) -> bool:
        """The holder's lease ran out (it died): take its key, unless another retry just did."""
        previous = (
            IdempotencyRecord.owner.is_(None)
            if record.owner is None
            else IdempotencyRecord.owner == record.owner
        )
        result = session.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.id == record.id, previous)
            .values(owner=owner, locked_at=now, lease_expires_at=now + self.lease)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    def renew(self, claim: Claim) -> bool:
        """Extend the lease of a running request (False: its key was taken over or released)."""
        with self.db.session() as session:
            result = session.execute(
                update(IdempotencyRecord)
                .where(
                    IdempotencyRecord.id == claim.record_id,
                    IdempotencyRecord.owner == claim.owner,
                )
                .values(lease_expires_at=utcnow() + self.lease)
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def finish(self, claim: Claim, stored: StoredResponse | None) -> None:
        """Store the answer, or (None: server error) forget the key so a retry runs again.
        A request whose key was taken over (it was thought dead) changes nothing."""
        with self.db.session() as session:
            where = (
                IdempotencyRecord.id == claim.record_id,
                IdempotencyRecord.owner == claim.owner,
            )
            if stored is None:
                session.execute(delete(IdempotencyRecord).where(*where))
                return
            session.execute(
                update(IdempotencyRecord)
                .where(*where)
                .values(
                    status=IdempotencyRecordStatus.COMPLETED,
                    owner=None,
                    lease_expires_at=None,
                    response_status=stored.status,
                    response_content_type=stored.content_type,
                    response_body=stored.body,
                )
            )

    def purge_expired(self) -> int:
        with self.db.session() as session:
            result = session.execute(
                delete(IdempotencyRecord).where(IdempotencyRecord.expires_at <= utcnow())
            )
            return int(result.rowcount)  # type: ignore[attr-defined]


def _find(session: Session, api_key_id: str, key: str) -> IdempotencyRecord | None:
    return session.scalars(
        select(IdempotencyRecord).where(
            IdempotencyRecord.api_key_id == api_key_id, IdempotencyRecord.key == key
        )
    ).first()


class IdempotencyMiddleware:
    def __init__(self, app: ASGIApp, *, store: IdempotencyStore, settings: Settings) -> None:
        self.app = app
        self.store = store
        self.spool_dir = settings.data_dir / "tmp"
        self.memory_bytes = settings.max_request_bytes
        self.heartbeat_seconds = settings.idempotency_heartbeat_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = Headers(scope=scope).get(HEADER) if scope["type"] == "http" else None
        principal = (scope.get("state") or {}).get("principal")
        if key is None or scope["method"] != "POST" or principal is None:
            await self.app(scope, receive, send)
            return
        body = SpooledBody(self.spool_dir, self.memory_bytes)
        try:
            try:
                if not 1 <= len(key) <= MAX_KEY_LENGTH:
                    raise InvalidField(
                        f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} characters.",
                        param="Idempotency-Key",
                    )
                fingerprint = await self._spool(scope, receive, body)
                if fingerprint is None:  # the client went away before sending its body
                    return
                outcome = await run_in_threadpool(
                    self.store.begin, principal.api_key_id, key, fingerprint
                )
            except AppError as exc:
                await error_response(exc, scope)(scope, receive, send)
                return
            if isinstance(outcome, StoredResponse):
                headers = {"Idempotent-Replayed": "true"}
                if outcome.content_type:
                    headers["Content-Type"] = outcome.content_type
                await Response(outcome.body, status_code=outcome.status, headers=headers)(
                    scope, receive, send
                )
                return
            await body.rewind()
            await self._run(scope, body, receive, send, outcome)
        finally:
            body.close()

    async def _spool(self, scope: Scope, receive: Receive, body: SpooledBody) -> str | None:
        """Read the body into `body`; its fingerprint, or None if the client disconnected."""
        streamed = StreamedDigest(scope)
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            streamed.update(chunk)
            await body.write(chunk)
            if not message.get("more_body", False):
                break
        if body.in_memory:
            return fingerprint_of(scope, body.getvalue())
        return streamed.fingerprint(scope)

    async def _run(
        self, scope: Scope, body: SpooledBody, receive: Receive, send: Send, claim: Claim
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
            chunk = await body.read()
            delivered = body.remaining <= 0
            return {"type": "http.request", "body": chunk, "more_body": not delivered}

        async def capture(message: Message) -> None:
            nonlocal start, streaming
            if message["type"] == "http.response.start":
                start = message
                content_type = Headers(raw=message["headers"]).get("content-type", "")
                if not content_type.startswith("application/json"):
                    streaming = True
                    await run_in_threadpool(self.store.finish, claim, None)
                    await send(message)
            elif message["type"] == "http.response.body":
                if streaming:
                    await send(message)
                else:
                    chunks.append(message.get("body", b""))

        heartbeat = asyncio.create_task(self._heartbeat(claim))
        # The endpoint's principal carries the claim to the job system (bind_job).
        state = scope["state"]
        state["principal"] = replace(state["principal"], claim=claim)
        try:
            await self.app(scope, replay_receive, capture)
        except BaseException:
            if not streaming:
                await run_in_threadpool(self.store.finish, claim, None)
            raise
        finally:
            heartbeat.cancel()
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
        await run_in_threadpool(self.store.finish, claim, stored)
        await send(start)
        await send({"type": "http.response.body", "body": content, "more_body": False})

    async def _heartbeat(self, claim: Claim) -> None:
        """Renew the key's lease while the request runs: a request that dies stops renewing,
        and a retry may take the key over once the lease has run out."""
        while True:
            await asyncio.sleep(self.heartbeat_seconds)
            try:
                if not await run_in_threadpool(self.store.renew, claim):
                    return
            except Exception:  # the database is briefly away: try again next beat
                log.warning("could not renew an idempotency lease", exc_info=True)
