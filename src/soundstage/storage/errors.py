"""Errors of the storage feature."""

from soundstage.core.errors import AppError, NotFound, PayloadTooLarge
from soundstage.media.fetch import MediaUnreachable

__all__ = [
    "InputMediaExpired",
    "MediaExpired",
    "MediaNotFound",
    "MediaUnreachable",
    "StorageQuotaExceeded",
]


class MediaNotFound(NotFound):
    """No such media (uploads and outputs), or its signed URL names another file."""

    code = "media_not_found"


class MediaExpired(AppError):
    """The media passed their retention (`expires_at`), or their owner deleted them (a
    generation deleted from the history): their bytes are, or are about to be, deleted."""

    status = 410
    code = "media_expired"


class InputMediaExpired(MediaUnreachable):
    """An input URL (`audio_url`, …) points at this service's media that passed their
    retention; `param` names the field."""

    code = "media_expired"


class StorageQuotaExceeded(PayloadTooLarge):
    """Storing this would take the account past its storage quota."""

    code = "storage_quota_exceeded"
