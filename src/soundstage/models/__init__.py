"""SQLAlchemy tables, one module per table group; importing this registers them all."""

from soundstage.models.accounts import Account, ApiKey, BuyerVerification
from soundstage.models.base import Base
from soundstage.models.credits import (
    CreditBalance,
    CreditEntry,
    CreditReservation,
    CreditTransaction,
)
from soundstage.models.idempotency import IdempotencyRecord
from soundstage.models.jobs import Job
from soundstage.models.media import MediaObject
from soundstage.models.webhooks import (
    Event,
    WebhookDelivery,
    WebhookDeliveryAttempt,
    WebhookEndpoint,
)

__all__ = [
    "Account",
    "ApiKey",
    "Base",
    "BuyerVerification",
    "CreditBalance",
    "CreditEntry",
    "CreditReservation",
    "CreditTransaction",
    "Event",
    "IdempotencyRecord",
    "Job",
    "MediaObject",
    "WebhookDelivery",
    "WebhookDeliveryAttempt",
    "WebhookEndpoint",
]
