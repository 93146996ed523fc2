"""Errors of the webhooks feature."""

from soundstage.core.errors import Conflict, InvalidField, NotFound

__all__ = [
    "DeliveryNotFound",
    "EndpointDisabled",
    "EndpointNotFound",
    "EventNotFound",
    "TooManyEndpoints",
]


class EndpointNotFound(NotFound):
    """No such webhook endpoint (or it was deleted)."""

    code = "webhook_endpoint_not_found"


class EventNotFound(NotFound):
    """No such event."""

    code = "event_not_found"


class DeliveryNotFound(NotFound):
    """No such delivery of this event."""

    code = "webhook_delivery_not_found"


class EndpointDisabled(Conflict):
    """The webhook endpoint is disabled: it receives nothing, not even a manual redelivery."""

    code = "endpoint_disabled"


class TooManyEndpoints(InvalidField):
    """The account has `webhooks.max_endpoints` live endpoints in this environment already."""

    code = "too_many_endpoints"
