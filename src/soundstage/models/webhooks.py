"""Webhooks: endpoints, events, one delivery per (event, endpoint) and every attempt of it."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, CustomerOwned, Timestamped


class WebhookEndpointStatus(StrEnum):
    """Whether deliveries go to an endpoint; stored as its string value."""

    ENABLED = "enabled"
    DISABLED = "disabled"


class WebhookDisabledReason(StrEnum):
    """Why an endpoint was disabled: it answered 410 Gone, or its deliveries kept failing."""

    GONE = "gone"
    FAILING = "failing"


class WebhookDeliveryStatus(StrEnum):
    """Where a delivery is: retried while pending, then succeeded or failed for good."""

    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class WebhookEndpoint(CustomerOwned, Timestamped, Base):
    __tablename__ = "webhook_endpoint"
    __table_args__ = (
        Index("ix_webhook_endpoint_owner_created", "account_id", "environment", "created_at"),
        # The cap on endpoints per account and environment: a live endpoint holds one of its
        # owner's numbered slots, so two concurrent creations cannot both take the last one.
        Index("uq_webhook_endpoint_owner_slot", "account_id", "environment", "slot", unique=True),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    url: Mapped[str] = mapped_column(String(2048))
    description: Mapped[str | None] = mapped_column(String(500), default=None)
    # Event types, or ["*"] for every type.
    enabled_events: Mapped[list[str]] = mapped_column(JSON)
    # Kept in clear: every delivery is signed with it (an HMAC key, not a password).
    secret: Mapped[str] = mapped_column(String(100))
    status: Mapped[str] = mapped_column(String(16))  # a WebhookEndpointStatus value
    # A WebhookDisabledReason value while disabled.
    disabled_reason: Mapped[str | None] = mapped_column(String(16), default=None)
    # Deliveries that failed for good since the last success; disables the endpoint at a threshold.
    consecutive_failures: Mapped[int] = mapped_column(Integer, default=0)
    disabled_at: Mapped[datetime | None] = mapped_column(default=None)
    # Deleted endpoints stay, so their deliveries and attempts keep their history.
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)
    # 0 .. webhooks.max_endpoints - 1 while live; None once deleted (frees the slot).
    slot: Mapped[int | None] = mapped_column(Integer, default=None)
    # Per-endpoint concurrency 1: the worker sending to it holds it until `in_flight_until`
    # (its attempt's lease), under a token of its own; None when nothing is being sent.
    in_flight_until: Mapped[datetime | None] = mapped_column(default=None)
    in_flight_token: Mapped[str | None] = mapped_column(String(32), default=None)


class Event(CustomerOwned, Timestamped, Base):
    """Something that happened (e.g. `dubbing.completed`); its id is every delivery's webhook-id."""

    __tablename__ = "event"
    __table_args__ = (
        Index("ix_event_owner_created", "account_id", "environment", "created_at"),
        Index("ix_event_owner_type_created", "account_id", "environment", "type", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    type: Mapped[str] = mapped_column(String(64))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)


class WebhookDelivery(CustomerOwned, Timestamped, Base):
    """One event sent to one endpoint, retried until it succeeds or the schedule runs out."""

    __tablename__ = "webhook_delivery"
    __table_args__ = (
        Index("ix_webhook_delivery_endpoint_created", "endpoint_id", "created_at"),
        Index("ix_webhook_delivery_status_next_attempt", "status", "next_attempt_at"),
        Index("ix_webhook_delivery_endpoint_due", "endpoint_id", "status", "next_attempt_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    endpoint_id: Mapped[str] = mapped_column(ForeignKey("webhook_endpoint.id"))
    event_id: Mapped[str] = mapped_column(ForeignKey("event.id"), index=True)
    event_type: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))  # a WebhookDeliveryStatus value
    attempt_count: Mapped[int] = mapped_column(Integer, default=0)
    # When the next attempt is due; while an attempt runs, the end of its lease. None when done.
    next_attempt_at: Mapped[datetime | None] = mapped_column(default=None)
    updated_at: Mapped[datetime]


class WebhookDeliveryAttempt(CustomerOwned, Base):
    """One HTTP request of a delivery and how it went."""

    __tablename__ = "webhook_delivery_attempt"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    delivery_id: Mapped[str] = mapped_column(ForeignKey("webhook_delivery.id"), index=True)
    status_code: Mapped[int | None] = mapped_column(Integer, default=None)
    error: Mapped[str | None] = mapped_column(String(500), default=None)
    duration_ms: Mapped[int] = mapped_column(Integer)
    attempted_at: Mapped[datetime]
