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
    """Unknown webhook endpoint, deleted, or another owner's (404 `resource_missing`)."""


class EventNotFound(NotFound):
    pass


class DeliveryNotFound(NotFound):
    pass


class EndpointDisabled(Conflict):
    """A disabled endpoint receives nothing, not even a manual redelivery."""

    code = "endpoint_disabled"


class TooManyEndpoints(InvalidField):
    """The account has `webhooks.max_endpoints` live endpoints in this environment already."""

    code = "too_many_endpoints"
