"""Errors of the storage feature."""

from soundstage.core.errors import InvalidField, NotFound


class MediaNotFound(NotFound):
    pass


class MediaUnreachable(InvalidField):
    code = "media_unreachable"
