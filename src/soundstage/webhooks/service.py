"""Webhook endpoints, events and the bookkeeping of deliveries.

`emit` is how other features announce an event, inside their own transaction: it writes the
event and one pending delivery per subscribed endpoint, due now; once that transaction
commits it tells the dispatcher (`set_dispatcher`: a delivery loop in the same process wakes
up). The database is the queue: delivery loops (`webhooks.loop`) claim due deliveries with a
lease, one request at a time per endpoint, and retries are due times. What an attempt's
outcome means (retry, give up, disable the endpoint) is decided here.
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
from soundstage.core.db import after_commit
from soundstage.core.ids import new_id
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.principal import Principal
from soundstage.core.tenancy import Owner, owner_key
from soundstage.core.timeutil import rfc3339, utcnow
from soundstage.jobs import service as jobs
from soundstage.media import fetch
from soundstage.models import Event, Job, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint
from soundstage.models.webhooks import (
    WebhookDeliveryStatus,
    WebhookDisabledReason,
    WebhookEndpointStatus,
)
from soundstage.webhooks import repository
from soundstage.webhooks.errors import (
    DeliveryNotFound,
    EndpointDisabled,
    EndpointNotFound,
    EventNotFound,
    TooManyEndpoints,
)
from soundstage.webhooks.schemas import ALL_EVENTS, EVENT_TYPES

log = logging.getLogger(__name__)

DeliveryWithAttempts = tuple[WebhookDelivery, list[WebhookDeliveryAttempt]]

# Until a delivery loop calls `set_dispatcher`, handed-over ids are only remembered (bounded);
# deliveries still go out: loops in other processes find them due in the database.
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
    """Who is told about a delivery due now: called with its id after commit (a hint only;
    the delivery is in the database whoever is told)."""
    global _dispatcher
    _dispatcher = dispatch


def _hand_over(delivery_ids: list[str]) -> None:
    for delivery_id in delivery_ids:
        try:
            _dispatcher(delivery_id)
        except Exception:
            # The rows are committed already: the delivery stays pending and due, and a
            # delivery loop finds it when it next looks.
            log.exception("could not dispatch webhook delivery %s", delivery_id)


def _dispatch_after_commit(session: Session, delivery_ids: list[str]) -> None:
    if delivery_ids:
        after_commit(session, lambda: _hand_over(delivery_ids))


def new_secret() -> str:
    """What the standardwebhooks library expects: whsec_ + base64 of the key (32 bytes)."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


# Endpoints


def endpoint_policy(allow_hosts: list[str], timeout_seconds: float) -> fetch.FetchPolicy:
    """Webhook URLs obey the rules of media fetching (media/fetch.py)."""
    return fetch.FetchPolicy(
        timeout_seconds=timeout_seconds,
        connect_timeout_seconds=min(10.0, timeout_seconds),
        allow_hosts=frozenset(allow_hosts),
    )


# One answer whether the name does not resolve or resolves to a refused address: telling
# them apart would let callers map the DNS of the network this server sits in.
UNREACHABLE_ADDRESS = "url must resolve to public internet addresses only"


def refused_address(param: str = "url") -> fetch.UrlNotAllowed:
    return fetch.UrlNotAllowed(UNREACHABLE_ADDRESS, param=param)


def check_endpoint_url(url: str, allow_hosts: list[str]) -> None:
    """422 `url_not_allowed` unless the URL resolves, now, to addresses webhooks may reach."""
    try:
        fetch.check_url(url, policy=endpoint_policy(allow_hosts, 10.0), param="url")
    except (fetch.NameNotResolved, fetch.AddressNotAllowed) as exc:
        raise refused_address() from exc


def create_endpoint(
    session: Session,
    principal: Principal,
    *,
    url: str,
    description: str | None,
    enabled_events: list[str],
    allow_hosts: list[str],
    max_endpoints: int,
) -> WebhookEndpoint:
    """A new endpoint in one of the owner's `max_endpoints` slots. A slot is a unique key
    (account, environment, slot): two creations racing for the last free one both insert
    it, and the database refuses the second, which looks again and finds none free."""
    check_endpoint_url(url, allow_hosts)
    for _ in range(max_endpoints + 1):
        used = repository.used_slots(session, principal)
        free = [slot for slot in range(max_endpoints) if slot not in used]
        if not free or len(used) >= max_endpoints:
            break
        endpoint = WebhookEndpoint(
            id=new_id("we"),
            account_id=principal.account_id,
            environment=principal.environment,
            url=url,
            description=description,
            enabled_events=enabled_events,
            secret=new_secret(),
            status=WebhookEndpointStatus.ENABLED,
            consecutive_failures=0,
            slot=free[0],
            created_at=utcnow(),
        )
        if repository.add_in_free_slot(session, endpoint):
            return endpoint
    raise TooManyEndpoints(
        f"This account has {max_endpoints} webhook endpoints in {principal.environment}, the "
        "most allowed; delete one to add another."
    )


def get_endpoint(session: Session, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
    endpoint = repository.get_endpoint(session, principal, endpoint_id)
    if endpoint is None:
        raise EndpointNotFound(f"No such webhook endpoint: {endpoint_id}", param="endpoint_id")
    return endpoint


def list_endpoints(
    session: Session, principal: Principal, params: PageParams
) -> tuple[list[WebhookEndpoint], bool]:
    query = repository.endpoints_query(principal)
    return paginate(session, query, WebhookEndpoint, params, EndpointNotFound)


def delete_endpoint(session: Session, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
    endpoint = get_endpoint(session, principal, endpoint_id)
    now = utcnow()
    repository.mark_endpoint_deleted(session, endpoint.id, now)
    repository.fail_pending_deliveries(session, endpoint.id, now)
    return endpoint


# Events


def emit(session: Session, owner: Owner, type: str, data: dict[str, Any]) -> Event:
    """Record an event and queue its deliveries, in the caller's transaction: if that rolls
    back, nothing was emitted and nothing is sent."""
    if type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {type!r}: add it to webhooks.schemas.EventType")
    account_id, environment = owner_key(owner)
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
    for endpoint in repository.enabled_endpoints(session, event):
        if ALL_EVENTS not in endpoint.enabled_events and type not in endpoint.enabled_events:
            continue
        delivery = WebhookDelivery(
            id=new_id("wd"),
            account_id=account_id,
            environment=environment,
            endpoint_id=endpoint.id,
            event_id=event.id,
            event_type=type,
            status=WebhookDeliveryStatus.PENDING,
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


def announce_job_end(session: Session, settings: Settings, job: Job, event_type: str) -> None:
    """The event that an asynchronous job ended (installed at startup as the job system's
    listener, jobs.events.on_job_end): its data the job as GET shows it, media URLs valid
    through the retry schedule; written in the transaction that ended the job."""
    data = jobs.job_out(job, settings, url_ttl_seconds=event_url_ttl_seconds(settings))
    emit(session, job, event_type, data.model_dump(mode="json"))


def get_event(session: Session, principal: Principal, event_id: str) -> Event:
    event = repository.get_event(session, principal, event_id)
    if event is None:
        raise EventNotFound(f"No such event: {event_id}", param="event_id")
    return event


def list_events(
    session: Session, principal: Principal, params: PageParams, type_: str | None
) -> tuple[list[Event], bool]:
    query = repository.events_query(principal, type_)
    return paginate(session, query, Event, params, EventNotFound)


def payload_of(event: Event) -> bytes:
    """The body POSTed for `event`, the same bytes on every attempt (Standard Webhooks shape)."""
    # Spelled as the API spells `created_at`, so the two compare equal as strings.
    body = {"type": event.type, "timestamp": rfc3339(event.created_at), "data": event.data}
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
    query = repository.deliveries_query(principal, endpoint.id, status)
    deliveries, has_more = paginate(session, query, WebhookDelivery, params, DeliveryNotFound)
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
    delivery = repository.get_delivery(session, principal, endpoint.id, delivery_id)
    if delivery is None:
        raise DeliveryNotFound(f"No such webhook delivery: {delivery_id}", param="delivery_id")
    if endpoint.status != WebhookEndpointStatus.ENABLED:
        raise EndpointDisabled(
            f"Webhook endpoint {endpoint.id} is disabled ({endpoint.disabled_reason}).",
            param="endpoint_id",
        )
    now = utcnow()
    repository.set_delivery_state(
        session, delivery.id, status=WebhookDeliveryStatus.PENDING, next_attempt_at=now, at=now
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
    endpoint_id: str
    account_id: str
    # Whose turn it is at the endpoint (see `begin_attempt`); given back by `finish_attempt`.
    lease_token: str
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


def due_endpoints(
    session: Session, now: datetime, exclude_accounts: set[str], limit: int
) -> list[tuple[str, str]]:
    """(endpoint id, account id) of endpoints with a due delivery and no request in flight."""
    return repository.due_endpoints(session, now, exclude_accounts, limit)


def claim_next(
    session: Session, endpoint_id: str, now: datetime, lease_seconds: float
) -> OutgoingRequest | None:
    """Claim the endpoint's longest-waiting due delivery, as `begin_attempt` does."""
    delivery_id = repository.next_due_delivery_id(session, endpoint_id, now)
    if delivery_id is None:
        return None
    return begin_attempt(session, delivery_id, now, lease_seconds)


def begin_attempt(
    session: Session, delivery_id: str, now: datetime, lease_seconds: float
) -> OutgoingRequest | None:
    """Claim a due delivery for one attempt, and its endpoint with it: one request at a
    time per endpoint, across every worker, each claim a conditional UPDATE of the same
    transaction (the endpoint's row first, always, so that transactions lock in one order).
    None when the delivery is not due, already taken or finished, when another request to
    its endpoint is in flight, or when its endpoint no longer receives (then it fails)."""
    lease_until = now + timedelta(seconds=lease_seconds)
    delivery = repository.get_delivery_by_id(session, delivery_id)
    if delivery is None:
        return None
    token = secrets.token_hex(16)
    if not repository.claim_endpoint(session, delivery.endpoint_id, token, now, lease_until):
        return None
    if not repository.claim_delivery(session, delivery_id, now, lease_until):
        repository.release_endpoint(session, delivery.endpoint_id, token)
        return None
    endpoint = repository.get_endpoint(session, delivery, delivery.endpoint_id)
    event = repository.get_event(session, delivery, delivery.event_id)
    if endpoint is None or endpoint.status != WebhookEndpointStatus.ENABLED or event is None:
        repository.release_endpoint(session, delivery.endpoint_id, token)
        repository.set_delivery_state(
            session, delivery_id, status=WebhookDeliveryStatus.FAILED, next_attempt_at=None, at=now
        )
        return None
    return OutgoingRequest(
        delivery_id=delivery.id,
        endpoint_id=endpoint.id,
        account_id=delivery.account_id,
        lease_token=token,
        url=endpoint.url,
        secret=endpoint.secret,
        webhook_id=event.id,
        body=payload_of(event),
    )


def finish_attempt(
    session: Session, outgoing: OutgoingRequest, result: AttemptResult, settings: WebhookSettings
) -> float | None:
    """Record an attempt, give its endpoint back and decide what follows. Returns the delay
    in seconds before the next attempt, or None when the delivery is over (succeeded or
    failed)."""
    repository.release_endpoint(session, outgoing.endpoint_id, outgoing.lease_token)
    delivery = repository.get_delivery_by_id(session, outgoing.delivery_id)
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
            session,
            delivery.id,
            status=WebhookDeliveryStatus.SUCCEEDED,
            next_attempt_at=None,
            at=now,
        )
        repository.reset_endpoint_failures(session, endpoint_id)
        return None
    if result.error is None and result.status_code == 410:
        # 410 Gone: the receiver says this endpoint no longer exists (Standard Webhooks).
        repository.set_delivery_state(
            session, delivery.id, status=WebhookDeliveryStatus.FAILED, next_attempt_at=None, at=now
        )
        _disable(session, endpoint_id, WebhookDisabledReason.GONE, now)
        return None
    schedule = settings.retry_schedule_seconds
    if delivery.attempt_count <= len(schedule):
        base = schedule[delivery.attempt_count - 1]
        delay = base * _jitter.uniform(1 - settings.retry_jitter, 1 + settings.retry_jitter)
        repository.set_delivery_state(
            session,
            delivery.id,
            status=WebhookDeliveryStatus.PENDING,
            next_attempt_at=now + timedelta(seconds=delay),
            at=now,
        )
        return delay
    repository.set_delivery_state(
        session, delivery.id, status=WebhookDeliveryStatus.FAILED, next_attempt_at=None, at=now
    )
    repository.count_endpoint_failure(session, endpoint_id)
    _disable(
        session,
        endpoint_id,
        WebhookDisabledReason.FAILING,
        now,
        min_failures=settings.failure_threshold,
    )
    return None


def _disable(
    session: Session,
    endpoint_id: str,
    reason: WebhookDisabledReason,
    at: datetime,
    *,
    min_failures: int = 0,
) -> None:
    if repository.disable_endpoint(session, endpoint_id, reason, at, min_failures=min_failures):
        repository.fail_pending_deliveries(session, endpoint_id, at)
        log.warning("webhook endpoint %s disabled: %s", endpoint_id, reason)
