"""Errors of the webhooks feature."""

from soundstage.core.errors import Conflict, NotFound

__all__ = [
    "DeliveryNotFound",
    "EndpointDisabled",
    "EndpointNotFound",
    "EventNotFound",
]


class EndpointNotFound(NotFound):
    """Unknown webhook endpoint, deleted, or another owner's (404 `resource_missing`)."""


class EventNotFound(NotFound):
    pass


class DeliveryNotFound(NotFound):
    pass


class EndpointDisabled(Conflict):
    """A disabled endpoint receives nothing, not even a manual redelivery."""

    code = "endpoint_disabled"
