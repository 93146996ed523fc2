"""All SQL of webhooks. State changes that workers may race on (claiming an attempt,
disabling an endpoint) are single conditional UPDATEs."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Select, Update, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from soundstage.core.tenancy import Owned, owned, select_owned
from soundstage.models import Event, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint
from soundstage.models.webhooks import (
    WebhookDeliveryStatus,
    WebhookDisabledReason,
    WebhookEndpointStatus,
)


def add(session: Session, obj: object) -> None:
    session.add(obj)
    session.flush()


def _changed(session: Session, stmt: Update) -> int:
    return int(session.execute(stmt).rowcount)  # type: ignore[attr-defined]


# Endpoints


def endpoints_query(owner: Owned) -> Select[WebhookEndpoint]:
    return select_owned(WebhookEndpoint, owner).where(WebhookEndpoint.deleted_at.is_(None))


def get_endpoint(session: Session, owner: Owned, endpoint_id: str) -> WebhookEndpoint | None:
    query = endpoints_query(owner).where(WebhookEndpoint.id == endpoint_id)
    return session.scalars(query.execution_options(populate_existing=True)).first()


def enabled_endpoints(session: Session, owner: Owned) -> list[WebhookEndpoint]:
    query = endpoints_query(owner).where(WebhookEndpoint.status == WebhookEndpointStatus.ENABLED)
    return list(session.scalars(query))


def add_in_free_slot(session: Session, endpoint: WebhookEndpoint) -> bool:
    """Insert `endpoint` unless its owner's slot was taken meanwhile (the unique key refuses
    it; only the savepoint is undone). True when it was inserted."""
    try:
        with session.begin_nested():
            session.add(endpoint)
    except IntegrityError:
        return False
    return True


def used_slots(session: Session, owner: Owned) -> set[int]:
    """The slots the owner's live endpoints hold (see `webhooks.service.create_endpoint`)."""
    stmt = select(WebhookEndpoint.slot).where(
        owned(WebhookEndpoint, owner), WebhookEndpoint.slot.is_not(None)
    )
    return {slot for slot in session.scalars(stmt) if slot is not None}


def mark_endpoint_deleted(session: Session, endpoint_id: str, at: datetime) -> None:
    stmt = (
        update(WebhookEndpoint)
        .where(WebhookEndpoint.id == endpoint_id)
        .values(deleted_at=at, slot=None)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)


def disable_endpoint(
    session: Session,
    endpoint_id: str,
    reason: WebhookDisabledReason,
    at: datetime,
    *,
    min_failures: int = 0,
) -> bool:
    """Disable an enabled endpoint (once it has `min_failures` failures in a row). True when
    this call disabled it."""
    stmt = (
        update(WebhookEndpoint)
        .where(
            WebhookEndpoint.id == endpoint_id,
            WebhookEndpoint.status == WebhookEndpointStatus.ENABLED,
            WebhookEndpoint.consecutive_failures >= min_failures,
        )
        .values(status=WebhookEndpointStatus.DISABLED, disabled_reason=reason, disabled_at=at)
        .execution_options(synchronize_session=False)
    )
    return _changed(session, stmt) == 1


def claim_endpoint(
    session: Session, endpoint_id: str, token: str, now: datetime, until: datetime
) -> bool:
    """Take an endpoint for one request unless another one is in flight to it (on any
    worker): its lease still runs. True when this call took it."""
    stmt = (
        update(WebhookEndpoint)
        .where(
            WebhookEndpoint.id == endpoint_id,
            or_(WebhookEndpoint.in_flight_until.is_(None), WebhookEndpoint.in_flight_until <= now),
        )
        .values(in_flight_until=until, in_flight_token=token)
        .execution_options(synchronize_session=False)
    )
    return _changed(session, stmt) == 1


def release_endpoint(session: Session, endpoint_id: str, token: str) -> None:
    """Give the endpoint back, unless its lease ran out and someone else holds it now."""
    stmt = (
        update(WebhookEndpoint)
        .where(WebhookEndpoint.id == endpoint_id, WebhookEndpoint.in_flight_token == token)
        .values(in_flight_until=None, in_flight_token=None)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)


def count_endpoint_failure(session: Session, endpoint_id: str) -> None:
    stmt = (
        update(WebhookEndpoint)
        .where(WebhookEndpoint.id == endpoint_id)
        .values(consecutive_failures=WebhookEndpoint.consecutive_failures + 1)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)


def reset_endpoint_failures(session: Session, endpoint_id: str) -> None:
    stmt = (
        update(WebhookEndpoint)
        .where(WebhookEndpoint.id == endpoint_id, WebhookEndpoint.consecutive_failures != 0)
        .values(consecutive_failures=0)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)


# Events


def events_query(owner: Owned, type_: str | None = None) -> Select[Event]:
    query = select_owned(Event, owner)
    return query if type_ is None else query.where(Event.type == type_)


def get_event(session: Session, owner: Owned, event_id: str) -> Event | None:
    return session.scalars(events_query(owner).where(Event.id == event_id)).first()


# Deliveries


def deliveries_query(
    owner: Owned, endpoint_id: str, status: str | None = None
) -> Select[WebhookDelivery]:
    query = select_owned(WebhookDelivery, owner).where(WebhookDelivery.endpoint_id == endpoint_id)
    return query if status is None else query.where(WebhookDelivery.status == status)


def get_delivery(
    session: Session, owner: Owned, endpoint_id: str, delivery_id: str
) -> WebhookDelivery | None:
    query = deliveries_query(owner, endpoint_id).where(WebhookDelivery.id == delivery_id)
    return session.scalars(query.execution_options(populate_existing=True)).first()


def get_delivery_by_id(session: Session, delivery_id: str) -> WebhookDelivery | None:
    """For workers, which hold only the id; the owner comes from the row itself."""
    return session.get(WebhookDelivery, delivery_id, populate_existing=True)


def attempts_of(session: Session, delivery_ids: list[str]) -> list[WebhookDeliveryAttempt]:
    if not delivery_ids:
        return []
    stmt = (
        select(WebhookDeliveryAttempt)
        .where(WebhookDeliveryAttempt.delivery_id.in_(delivery_ids))
        .order_by(WebhookDeliveryAttempt.attempted_at, WebhookDeliveryAttempt.id)
    )
    return list(session.scalars(stmt))


def claim_delivery(
    session: Session, delivery_id: str, now: datetime, lease_until: datetime
) -> bool:
    """Take a due pending delivery for one attempt. Moving `next_attempt_at` to the end of
    the lease keeps other workers off it, and hands it back to the sweeper if this worker
    dies. True when this call took it."""
    stmt = (
        update(WebhookDelivery)
        .where(
            WebhookDelivery.id == delivery_id,
            WebhookDelivery.status == WebhookDeliveryStatus.PENDING,
            WebhookDelivery.next_attempt_at <= now,
        )
        .values(
            attempt_count=WebhookDelivery.attempt_count + 1,
            next_attempt_at=lease_until,
            updated_at=now,
        )
        .execution_options(synchronize_session=False)
    )
    return _changed(session, stmt) == 1


def set_delivery_state(
    session: Session,
    delivery_id: str,
    *,
    status: WebhookDeliveryStatus,
    next_attempt_at: datetime | None,
    at: datetime,
) -> None:
    stmt = (
        update(WebhookDelivery)
        .where(WebhookDelivery.id == delivery_id)
        .values(status=status, next_attempt_at=next_attempt_at, updated_at=at)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)


def fail_pending_deliveries(session: Session, endpoint_id: str, at: datetime) -> None:
    """Give up the pending deliveries of an endpoint that was disabled or deleted."""
    stmt = (
        update(WebhookDelivery)
        .where(
            WebhookDelivery.endpoint_id == endpoint_id,
            WebhookDelivery.status == WebhookDeliveryStatus.PENDING,
        )
        .values(status=WebhookDeliveryStatus.FAILED, next_attempt_at=None, updated_at=at)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)


def due_delivery_ids(session: Session, now: datetime, limit: int) -> list[str]:
    stmt = (
        select(WebhookDelivery.id)
        .where(
            WebhookDelivery.status == WebhookDeliveryStatus.PENDING,
            WebhookDelivery.next_attempt_at <= now,
        )
        .order_by(WebhookDelivery.next_attempt_at)
        .limit(limit)
    )
    return list(session.scalars(stmt))


def due_endpoints(
    session: Session, now: datetime, exclude_accounts: set[str], limit: int
) -> list[tuple[str, str]]:
    """(endpoint id, account id) of endpoints that have a due delivery and nothing in flight,
    the longest waiting first: one row per endpoint, so that many deliveries to a few
    endpoints cannot hide the others. Accounts in `exclude_accounts` are left out."""
    due_since = func.min(WebhookDelivery.next_attempt_at)
    stmt = (
        select(WebhookDelivery.endpoint_id, WebhookDelivery.account_id)
        .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
        .where(
            WebhookDelivery.status == WebhookDeliveryStatus.PENDING,
            WebhookDelivery.next_attempt_at <= now,
            or_(WebhookEndpoint.in_flight_until.is_(None), WebhookEndpoint.in_flight_until <= now),
        )
        .group_by(WebhookDelivery.endpoint_id, WebhookDelivery.account_id)
        .order_by(due_since, WebhookDelivery.endpoint_id)
        .limit(limit)
    )
    if exclude_accounts:
        stmt = stmt.where(WebhookDelivery.account_id.not_in(sorted(exclude_accounts)))
    return [(endpoint_id, account_id) for endpoint_id, account_id in session.execute(stmt)]


def next_due_delivery_id(session: Session, endpoint_id: str, now: datetime) -> str | None:
    """The endpoint's due delivery that has waited longest."""
    stmt = (
        select(WebhookDelivery.id)
        .where(
            WebhookDelivery.endpoint_id == endpoint_id,
            WebhookDelivery.status == WebhookDeliveryStatus.PENDING,
            WebhookDelivery.next_attempt_at <= now,
        )
        .order_by(WebhookDelivery.next_attempt_at, WebhookDelivery.id)
        .limit(1)
    )
    return session.scalars(stmt).first()
