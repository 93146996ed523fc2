"""Errors of the storage feature."""

from soundstage.core.errors import NotFound
from soundstage.core.fetch import MediaUnreachable

__all__ = ["MediaNotFound", "MediaUnreachable"]


class MediaNotFound(NotFound):
    pass
