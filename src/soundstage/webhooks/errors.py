"""Errors of the webhooks feature."""

from soundstage.core.errors import Conflict, InvalidField, NotFound

__all__ = [
    "DeliveryNotFound",
    "EndpointDisabled",
    "EndpointNotFound",
    "EventNotFound",
    "UrlNotAllowed",
]


class EndpointNotFound(NotFound):
    """Unknown webhook endpoint, deleted, or another owner's (404 `resource_missing`)."""


class EventNotFound(NotFound):
    pass


class DeliveryNotFound(NotFound):
    pass


class UrlNotAllowed(InvalidField):
    """The URL's host resolves to an address webhooks may not reach (private, loopback, ...)."""

    code = "url_not_allowed"


class EndpointDisabled(Conflict):
    """A disabled endpoint receives nothing, not even a manual redelivery."""

    code = "endpoint_disabled"
