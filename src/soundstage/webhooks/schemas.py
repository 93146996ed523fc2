"""Request and response bodies of webhooks and events, and the catalogue of event types."""

from __future__ import annotations

import unicodedata
from typing import Any, Literal, get_args
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from soundstage.core.schemas import RequestModel
from soundstage.core.timeutil import Timestamp

# Every event type the service emits. `emit` refuses any other, so that what an endpoint
# can subscribe to and what is sent never drift apart: a new event starts here.
EventType = Literal[
    "daw.completed",
    "daw.failed",
    "daw.cancelled",
    "dubbing.completed",
    "dubbing.failed",
    "dubbing.cancelled",
    # Asynchronous jobs of kinds that have no events of their own.
    "job.completed",
    "job.failed",
    "job.cancelled",
]
EVENT_TYPES: tuple[str, ...] = get_args(EventType)
ALL_EVENTS = "*"

# What an endpoint subscribes to: an event type, or "*" for every type.
Subscription = EventType | Literal["*"]
EndpointStatus = Literal["enabled", "disabled"]
DeliveryStatus = Literal["pending", "succeeded", "failed"]


def _every_event() -> list[Subscription]:
    return ["*"]


def _has_control_characters(value: str) -> bool:
    return any(unicodedata.category(char) == "Cc" for char in value)


class WebhookEndpointCreate(RequestModel):
    url: str = Field(
        min_length=1,
        max_length=2048,
        description="Where events are POSTed: http(s), on a public address.",
    )
    description: str | None = Field(default=None, max_length=500)
    enabled_events: list[Subscription] = Field(
        default_factory=_every_event,
        min_length=1,
        max_length=50,
        description='Event types to receive, or `["*"]` for every type.',
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if _has_control_characters(value) or any(char.isspace() for char in value):
            raise ValueError("must not contain spaces or control characters")
        try:
            parts = urlsplit(value)
            port_ok = parts.port != 0  # .port raises ValueError outside 0..65535
        except ValueError as exc:
            raise ValueError("must be a valid URL") from exc
        if not port_ok:
            raise ValueError("must have a port from 1 to 65535")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// URL with a host")
        if parts.username is not None or parts.password is not None:
            # Deliveries are authenticated by their signature; credentials in a URL leak
            # into every listing.
            raise ValueError("must not contain credentials")
        return value

    @field_validator("description")
    @classmethod
    def _printable(cls, value: str | None) -> str | None:
        # PostgreSQL cannot store NUL, and no description needs control characters.
        if value is not None and _has_control_characters(value):
            raise ValueError("must not contain control characters")
        return value

    @field_validator("enabled_events")
    @classmethod
    def _star_alone(cls, value: list[str]) -> list[str]:
        if ALL_EVENTS in value and len(value) > 1:
            raise ValueError('"*" means every event type and must be alone')
        return list(dict.fromkeys(value))


class WebhookEndpointOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    object: Literal["webhook_endpoint"] = "webhook_endpoint"
    id: str
    url: str
    description: str | None
    enabled_events: list[str]
    status: EndpointStatus
    disabled_reason: Literal["gone", "failing"] | None = Field(
        description="`gone`: the endpoint answered 410; `failing`: deliveries kept failing."
    )
    created_at: Timestamp


class WebhookEndpointCreated(WebhookEndpointOut):
    secret: str = Field(
        description="`whsec_…` signing secret (Standard Webhooks). Shown only in this answer."
    )


class WebhookEndpointDeleted(BaseModel):
    object: Literal["webhook_endpoint"] = "webhook_endpoint"
    id: str
    deleted: Literal[True] = True


class EventOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    object: Literal["event"] = "event"
    id: str = Field(description="Also the `webhook-id` of every delivery of this event.")
    type: str
    data: dict[str, Any]
    created_at: Timestamp


class DeliveryAttemptOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    status_code: int | None = Field(description="The receiver's HTTP status, if it answered.")
    error: str | None = Field(description="Why the attempt failed without a usable answer.")
    duration_ms: int
    attempted_at: Timestamp


class WebhookDeliveryOut(BaseModel):
    object: Literal["webhook_delivery"] = "webhook_delivery"
    id: str
    endpoint_id: str
    event_id: str
    event_type: str
    status: DeliveryStatus
    attempt_count: int
    next_attempt_at: Timestamp | None = Field(description="When a pending delivery is retried.")
    attempts: list[DeliveryAttemptOut] = Field(description="Every attempt, oldest first.")
    created_at: Timestamp
    updated_at: Timestamp
