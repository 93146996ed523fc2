"""HTTP endpoints of webhooks: endpoints, their deliveries (and redelivery), events."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from soundstage.core.deps import PrincipalDep, SessionDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import ListResponse, PageParams, page_params
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.webhooks import service
from soundstage.webhooks.schemas import (
    DeliveryAttemptOut,
    DeliveryStatus,
    EventOut,
    EventType,
    WebhookDeliveryOut,
    WebhookEndpointCreate,
    WebhookEndpointCreated,
    WebhookEndpointDeleted,
    WebhookEndpointOut,
)
from soundstage.webhooks.service import DeliveryWithAttempts

router = APIRouter(prefix=API_V1, route_class=UnitOfWorkRoute)
PageDep = Annotated[PageParams, Depends(page_params)]


@router.post(
    "/webhooks/endpoints",
    response_model=WebhookEndpointCreated,
    responses=errors(422),
    tags=["Webhooks"],
)
def create_webhook_endpoint(
    body: WebhookEndpointCreate, session: SessionDep, principal: PrincipalDep, settings: SettingsDep
) -> WebhookEndpointCreated:
    """Register a URL to receive events, signed per Standard Webhooks. The answer carries the
    signing `secret`, which is never shown again. A URL that does not resolve, or resolves
    to a private, loopback or link-local address, is refused (422 `url_not_allowed`, the same
    answer for both). An account has at most `webhooks.max_endpoints` (16) endpoints per
    environment: one more is 422 `too_many_endpoints`."""
    endpoint = service.create_endpoint(
        session,
        principal,
        url=body.url,
        description=body.description,
        enabled_events=list(body.enabled_events),
        allow_hosts=settings.fetch_allow_hosts,
        max_endpoints=settings.webhooks.max_endpoints,
    )
    return WebhookEndpointCreated.model_validate(endpoint)


@router.get(
    "/webhooks/endpoints", response_model=ListResponse[WebhookEndpointOut], tags=["Webhooks"]
)
def list_webhook_endpoints(
    session: SessionDep, principal: PrincipalDep, page: PageDep
) -> ListResponse[WebhookEndpointOut]:
    """The caller's webhook endpoints in the key's environment, newest first."""
    rows, has_more = service.list_endpoints(session, principal, page)
    return ListResponse[WebhookEndpointOut](
        data=[WebhookEndpointOut.model_validate(e) for e in rows], has_more=has_more
    )


@router.get(
    "/webhooks/endpoints/{endpoint_id}",
    response_model=WebhookEndpointOut,
    responses=errors(404),
    tags=["Webhooks"],
)
def get_webhook_endpoint(
    endpoint_id: str, session: SessionDep, principal: PrincipalDep
) -> WebhookEndpointOut:
    """One webhook endpoint of the caller's (404 for any other)."""
    return WebhookEndpointOut.model_validate(service.get_endpoint(session, principal, endpoint_id))


@router.delete(
    "/webhooks/endpoints/{endpoint_id}",
    response_model=WebhookEndpointDeleted,
    responses=errors(404),
    tags=["Webhooks"],
)
def delete_webhook_endpoint(
    endpoint_id: str, session: SessionDep, principal: PrincipalDep
) -> WebhookEndpointDeleted:
    """Stop sending to this endpoint; its pending deliveries are given up."""
    endpoint = service.delete_endpoint(session, principal, endpoint_id)
    return WebhookEndpointDeleted(id=endpoint.id)


def _delivery_out(row: DeliveryWithAttempts) -> WebhookDeliveryOut:
    """A delivery with its attempts, which the repository reads beside it (no relationship
    on the row to read them from)."""
    delivery, attempts = row
    return WebhookDeliveryOut.model_validate(
        {
            "id": delivery.id,
            "endpoint_id": delivery.endpoint_id,
            "event_id": delivery.event_id,
            "event_type": delivery.event_type,
            "status": delivery.status,
            "attempt_count": delivery.attempt_count,
            "next_attempt_at": delivery.next_attempt_at,
            "attempts": [DeliveryAttemptOut.model_validate(a) for a in attempts],
            "created_at": delivery.created_at,
            "updated_at": delivery.updated_at,
        }
    )


@router.get(
    "/webhooks/endpoints/{endpoint_id}/deliveries",
    response_model=ListResponse[WebhookDeliveryOut],
    responses=errors(404),
    tags=["Webhooks"],
)
def list_webhook_deliveries(
    endpoint_id: str,
    session: SessionDep,
    principal: PrincipalDep,
    page: PageDep,
    status: Annotated[DeliveryStatus | None, Query(description="Only this status.")] = None,
) -> ListResponse[WebhookDeliveryOut]:
    """Deliveries to this endpoint, newest first, each with every attempt."""
    rows, has_more = service.list_deliveries(session, principal, endpoint_id, page, status)
    return ListResponse[WebhookDeliveryOut](
        data=[_delivery_out(r) for r in rows], has_more=has_more
    )


@router.post(
    "/webhooks/endpoints/{endpoint_id}/deliveries/{delivery_id}/retry",
    response_model=WebhookDeliveryOut,
    responses=errors(404, 409),
    tags=["Webhooks"],
)
def retry_webhook_delivery(
    endpoint_id: str, delivery_id: str, session: SessionDep, principal: PrincipalDep
) -> WebhookDeliveryOut:
    """Redeliver now (e.g. a failed delivery), with the same `webhook-id`. The delivery is
    `pending` until the attempt is made. A disabled endpoint answers 409 `endpoint_disabled`."""
    return _delivery_out(service.retry_delivery(session, principal, endpoint_id, delivery_id))


@router.get("/events", response_model=ListResponse[EventOut], tags=["Events"])
def list_events(
    session: SessionDep,
    principal: PrincipalDep,
    page: PageDep,
    type: Annotated[EventType | None, Query(description="Only events of this type.")] = None,
) -> ListResponse[EventOut]:
    """Events of the caller's, in the key's environment, newest first."""
    rows, has_more = service.list_events(session, principal, page, type)
    return ListResponse[EventOut](
        data=[EventOut.model_validate(e) for e in rows], has_more=has_more
    )


@router.get("/events/{event_id}", response_model=EventOut, responses=errors(404), tags=["Events"])
def get_event(event_id: str, session: SessionDep, principal: PrincipalDep) -> EventOut:
    """One event of the caller's (404 for any other)."""
    return EventOut.model_validate(service.get_event(session, principal, event_id))
