"""SQLAlchemy tables, one module per table group; importing this registers them all."""

from soundstage.models.accounts import Account, ApiKey, BuyerVerification
from soundstage.models.agents import Agent
from soundstage.models.base import Base
from soundstage.models.credits import (
    CreditBalance,
    CreditEntry,
    CreditReservation,
    CreditTransaction,
)
from soundstage.models.idempotency import IdempotencyRecord
from soundstage.models.jobs import Job, JobTurn
from soundstage.models.media import MediaObject, StorageUsage
from soundstage.models.pronunciation import PronunciationDictionary, PronunciationDictionaryVersion
from soundstage.models.realtime import RealtimeToken
from soundstage.models.studios import (
    Room,
    RoomOccupancy,
    Studio,
    StudioBooking,
    StudioClosure,
    StudioHours,
)
from soundstage.models.voices import Voice
from soundstage.models.webhooks import (
    Event,
    WebhookDelivery,
    WebhookDeliveryAttempt,
    WebhookEndpoint,
)
from soundstage.models.workforce import (
    Campaign,
    Creator,
    CreatorRate,
    CreatorSearch,
    CreatorTag,
    License,
    LicensedMedia,
    TalentDemo,
)

__all__ = [
    "Account",
    "Agent",
    "ApiKey",
    "Base",
    "BuyerVerification",
    "Campaign",
    "Creator",
    "CreatorRate",
    "CreatorSearch",
    "CreatorTag",
    "CreditBalance",
    "CreditEntry",
    "CreditReservation",
    "CreditTransaction",
    "Event",
    "IdempotencyRecord",
    "Job",
    "JobTurn",
    "License",
    "LicensedMedia",
    "MediaObject",
    "PronunciationDictionary",
    "PronunciationDictionaryVersion",
    "RealtimeToken",
    "Room",
    "RoomOccupancy",
    "StorageUsage",
    "Studio",
    "StudioBooking",
    "StudioClosure",
    "StudioHours",
    "TalentDemo",
    "Voice",
    "WebhookDelivery",
    "WebhookDeliveryAttempt",
    "WebhookEndpoint",
]
