"""Errors of the storage feature."""

from soundstage.core.errors import AppError, NotFound, PayloadTooLarge
from soundstage.core.fetch import MediaUnreachable

__all__ = ["MediaExpired", "MediaNotFound", "MediaUnreachable", "StorageQuotaExceeded"]


class MediaNotFound(NotFound):
    pass


class MediaExpired(AppError):
    """The media passed their retention (`expires_at`): their bytes are, or are about to
    be, deleted."""

    status = 410
    code = "media_expired"


class StorageQuotaExceeded(PayloadTooLarge):
    code = "storage_quota_exceeded"
