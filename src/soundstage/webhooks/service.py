"""Webhook endpoints, events and the bookkeeping of deliveries.

`emit` is how other features announce an event, inside their own transaction: it writes the
event and one pending delivery per subscribed endpoint, and once that transaction commits it
hands each delivery id to the dispatcher (the job queue, via `set_dispatcher`). Deliveries are
attempted by `tasks.attempt_delivery`; what an attempt's outcome means (retry, give up,
disable the endpoint) is decided here.
"""

from __future__ import annotations

import base64
import json
import logging
import math
import random
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from soundstage.config import Settings, WebhookSettings
from soundstage.core import fetch
from soundstage.core.db import after_commit
from soundstage.core.ids import new_id
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.models import Event, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint
from soundstage.webhooks import repository
from soundstage.webhooks.errors import (
    DeliveryNotFound,
    EndpointDisabled,
    EndpointNotFound,
    EventNotFound,
)
from soundstage.webhooks.schemas import ALL_EVENTS, EVENT_TYPES

log = logging.getLogger(__name__)

DeliveryWithAttempts = tuple[WebhookDelivery, list[WebhookDeliveryAttempt]]

# Until the queue calls `set_dispatcher`, handed-over ids are only remembered (bounded);
# deliveries still go out through whoever polls `tasks.due_deliveries`.
dispatched: deque[str] = deque(maxlen=10_000)
_dispatcher: Callable[[str], None] = dispatched.append
_jitter = random.SystemRandom()


def event_url_ttl_seconds(settings: Settings) -> int:
    """How long the media URLs in an event's data stay valid: the usual time
    (`media.url_ttl_seconds`) after the last retry the schedule allows, its jitter included,
    so that a receiver that was down most of that time still gets URLs it can use."""
    hooks = settings.webhooks
    retries = sum(hooks.retry_schedule_seconds) * (1 + hooks.retry_jitter)
    return settings.media.url_ttl_seconds + math.ceil(retries)


def set_dispatcher(dispatch: Callable[[str], None]) -> None:
    """Who is told about a delivery to attempt now: called with its id after commit."""
    global _dispatcher
    _dispatcher = dispatch


def _hand_over(delivery_ids: list[str]) -> None:
    for delivery_id in delivery_ids:
        try:
            _dispatcher(delivery_id)
        except Exception:
            # The rows are committed already: a delivery the queue did not take stays
            # pending and due, and the sweeper (`due_deliveries`) picks it up.
            log.exception("could not dispatch webhook delivery %s", delivery_id)


def _dispatch_after_commit(session: Session, delivery_ids: list[str]) -> None:
    if delivery_ids:
        after_commit(session, lambda: _hand_over(delivery_ids))


def new_secret() -> str:
    """What the standardwebhooks library expects: whsec_ + base64 of the key (32 bytes)."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


# Endpoints


def endpoint_policy(allow_hosts: list[str], timeout_seconds: float) -> fetch.FetchPolicy:
    """Webhook URLs obey the rules of media fetching (core/fetch.py)."""
    return fetch.FetchPolicy(
        timeout_seconds=timeout_seconds,
        connect_timeout_seconds=min(10.0, timeout_seconds),
        allow_hosts=frozenset(allow_hosts),
    )


def check_endpoint_url(url: str, allow_hosts: list[str]) -> None:
    """422 `url_not_allowed` unless the URL resolves, now, to addresses webhooks may reach."""
    try:
        fetch.check_url(url, policy=endpoint_policy(allow_hosts, 10.0), param="url")
    except fetch.MediaUnreachable as exc:
        raise fetch.UrlNotAllowed(exc.message, param="url") from exc


def create_endpoint(
    session: Session,
    principal: Principal,
    *,
    url: str,
    description: str | None,
    enabled_events: list[str],
    allow_hosts: list[str],
) -> WebhookEndpoint:
    check_endpoint_url(url, allow_hosts)
    endpoint = WebhookEndpoint(
        id=new_id("we"),
        account_id=principal.account_id,
        environment=principal.environment,
        url=url,
        description=description,
        enabled_events=enabled_events,
        secret=new_secret(),
        status="enabled",
        consecutive_failures=0,
        created_at=utcnow(),
    )
    repository.add(session, endpoint)
    return endpoint


def get_endpoint(session: Session, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
    endpoint = repository.get_endpoint(
        session, principal.account_id, principal.environment, endpoint_id
    )
    if endpoint is None:
        raise EndpointNotFound(f"No such webhook endpoint: {endpoint_id}", param="endpoint_id")
    return endpoint


def list_endpoints(
    session: Session, principal: Principal, params: PageParams
) -> tuple[list[WebhookEndpoint], bool]:
    query = repository.endpoints_query(principal.account_id, principal.environment)
    return paginate(session, query, WebhookEndpoint, params)


def delete_endpoint(session: Session, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
    endpoint = get_endpoint(session, principal, endpoint_id)
    now = utcnow()
    repository.mark_endpoint_deleted(session, endpoint.id, now)
    repository.fail_pending_deliveries(session, endpoint.id, now)
    return endpoint


# Events


def emit(
    session: Session, account_id: str, environment: str, type: str, data: dict[str, Any]
) -> Event:
    """Record an event and queue its deliveries, in the caller's transaction: if that rolls
    back, nothing was emitted and nothing is sent."""
    if type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {type!r}: add it to webhooks.schemas.EventType")
    now = utcnow()
    event = Event(
        id=new_id("evt"),
        account_id=account_id,
        environment=environment,
        type=type,
        data=data,
        created_at=now,
    )
    repository.add(session, event)
    delivery_ids = []
    for endpoint in repository.enabled_endpoints(session, account_id, environment):
        if ALL_EVENTS not in endpoint.enabled_events and type not in endpoint.enabled_events:
            continue
        delivery = WebhookDelivery(
            id=new_id("wd"),
            account_id=account_id,
            environment=environment,
            endpoint_id=endpoint.id,
            event_id=event.id,
            event_type=type,
            status="pending",
            attempt_count=0,
            next_attempt_at=now,
            created_at=now,
            updated_at=now,
        )
        session.add(delivery)
        delivery_ids.append(delivery.id)
    session.flush()
    _dispatch_after_commit(session, delivery_ids)
    return event


def get_event(session: Session, principal: Principal, event_id: str) -> Event:
    event = repository.get_event(session, principal.account_id, principal.environment, event_id)
    if event is None:
        raise EventNotFound(f"No such event: {event_id}", param="event_id")
    return event


def list_events(
    session: Session, principal: Principal, params: PageParams, type_: str | None
) -> tuple[list[Event], bool]:
    query = repository.events_query(principal.account_id, principal.environment, type_)
    return paginate(session, query, Event, params)


def payload_of(event: Event) -> bytes:
    """The body POSTed for `event`, the same bytes on every attempt (Standard Webhooks shape)."""
    # Spelled as the API spells `created_at`, so the two compare equal as strings.
    timestamp = event.created_at.isoformat().replace("+00:00", "Z")
    body = {"type": event.type, "timestamp": timestamp, "data": event.data}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


# Deliveries, as the API shows them


def list_deliveries(
    session: Session,
    principal: Principal,
    endpoint_id: str,
    params: PageParams,
    status: str | None,
) -> tuple[list[DeliveryWithAttempts], bool]:
    endpoint = get_endpoint(session, principal, endpoint_id)
    query = repository.deliveries_query(
        principal.account_id, principal.environment, endpoint.id, status
    )
    deliveries, has_more = paginate(session, query, WebhookDelivery, params)
    by_delivery: dict[str, list[WebhookDeliveryAttempt]] = {d.id: [] for d in deliveries}
    for attempt in repository.attempts_of(session, list(by_delivery)):
        by_delivery[attempt.delivery_id].append(attempt)
    return [(d, by_delivery[d.id]) for d in deliveries], has_more


def retry_delivery(
    session: Session, principal: Principal, endpoint_id: str, delivery_id: str
) -> DeliveryWithAttempts:
    """Redeliver now, whatever the delivery's state: one more attempt, with the same
    webhook-id. A disabled endpoint stays disabled and receives nothing (409)."""
    endpoint = get_endpoint(session, principal, endpoint_id)
    delivery = repository.get_delivery(
        session, principal.account_id, principal.environment, endpoint.id, delivery_id
    )
    if delivery is None:
        raise DeliveryNotFound(f"No such webhook delivery: {delivery_id}", param="delivery_id")
    if endpoint.status != "enabled":
        raise EndpointDisabled(
            f"Webhook endpoint {endpoint.id} is disabled ({endpoint.disabled_reason}).",
            param="endpoint_id",
        )
    now = utcnow()
    repository.set_delivery_state(
        session, delivery.id, status="pending", next_attempt_at=now, at=now
    )
    _dispatch_after_commit(session, [delivery.id])
    refreshed = repository.get_delivery_by_id(session, delivery.id)
    assert refreshed is not None
    return refreshed, repository.attempts_of(session, [delivery.id])


# Deliveries, as workers attempt them


@dataclass(frozen=True)
class OutgoingRequest:
    """Everything one attempt needs, read before the request so that no transaction stays
    open while the receiver answers."""

    delivery_id: str
    url: str
    secret: str
    webhook_id: str
    body: bytes


@dataclass(frozen=True)
class AttemptResult:
    status_code: int | None
    error: str | None
    duration_ms: int
    attempted_at: datetime

    @property
    def succeeded(self) -> bool:
        return self.error is None and self.status_code is not None and self.status_code < 300


def due_delivery_ids(session: Session, now: datetime, limit: int = 1000) -> list[str]:
    return repository.due_delivery_ids(session, now, limit)


def begin_attempt(
    session: Session, delivery_id: str, now: datetime, lease_seconds: float
) -> OutgoingRequest | None:
    """Claim a due delivery for one attempt. None when it is not due, already taken by
    another worker or finished, or when its endpoint no longer receives (then it fails)."""
    lease_until = now + timedelta(seconds=lease_seconds)
    if not repository.claim_delivery(session, delivery_id, now, lease_until):
        return None
    delivery = repository.get_delivery_by_id(session, delivery_id)
    assert delivery is not None
    owner = (delivery.account_id, delivery.environment)
    endpoint = repository.get_endpoint(session, *owner, delivery.endpoint_id)
    event = repository.get_event(session, *owner, delivery.event_id)
    if endpoint is None or endpoint.status != "enabled" or event is None:
        repository.set_delivery_state(
            session, delivery_id, status="failed", next_attempt_at=None, at=now
        )
        return None
    return OutgoingRequest(delivery.id, endpoint.url, endpoint.secret, event.id, payload_of(event))


def finish_attempt(
    session: Session, delivery_id: str, result: AttemptResult, settings: WebhookSettings
) -> float | None:
    """Record an attempt and decide what follows. Returns the delay in seconds before the
    next attempt, or None when the delivery is over (succeeded or failed)."""
    delivery = repository.get_delivery_by_id(session, delivery_id)
    assert delivery is not None
    session.add(
        WebhookDeliveryAttempt(
            id=new_id("wda"),
            account_id=delivery.account_id,
            environment=delivery.environment,
            delivery_id=delivery.id,
            status_code=result.status_code,
            error=result.error[:500] if result.error else None,
            duration_ms=result.duration_ms,
            attempted_at=result.attempted_at,
        )
    )
    now = utcnow()
    endpoint_id = delivery.endpoint_id
    if result.succeeded:
        repository.set_delivery_state(
            session, delivery.id, status="succeeded", next_attempt_at=None, at=now
        )
        repository.reset_endpoint_failures(session, endpoint_id)
        return None
    if result.error is None and result.status_code == 410:
        # 410 Gone: the receiver says this endpoint no longer exists (Standard Webhooks).
        repository.set_delivery_state(
            session, delivery.id, status="failed", next_attempt_at=None, at=now
        )
        _disable(session, endpoint_id, "gone", now)
        return None
    schedule = settings.retry_schedule_seconds
    if delivery.attempt_count <= len(schedule):
        base = schedule[delivery.attempt_count - 1]
        delay = base * _jitter.uniform(1 - settings.retry_jitter, 1 + settings.retry_jitter)
        repository.set_delivery_state(
            session,
            delivery.id,
            status="pending",
            next_attempt_at=now + timedelta(seconds=delay),
            at=now,
        )
        return delay
    repository.set_delivery_state(
        session, delivery.id, status="failed", next_attempt_at=None, at=now
    )
    repository.count_endpoint_failure(session, endpoint_id)
    _disable(session, endpoint_id, "failing", now, min_failures=settings.failure_threshold)
    return None


def _disable(
    session: Session, endpoint_id: str, reason: str, at: datetime, *, min_failures: int = 0
) -> None:
    if repository.disable_endpoint(session, endpoint_id, reason, at, min_failures=min_failures):
        repository.fail_pending_deliveries(session, endpoint_id, at)
        log.warning("webhook endpoint %s disabled: %s", endpoint_id, reason)
