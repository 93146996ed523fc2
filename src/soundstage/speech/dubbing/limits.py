"""How long a media a dub takes (`dubbing.max_duration_ms`)."""

from __future__ import annotations

from typing import Final

from soundstage.config import Settings
from soundstage.core.errors import AppError

PARAM: Final = "media_url"


class MediaTooLong(AppError):
    status = 422
    code = "media_too_long"


def check_length(settings: Settings, duration_ms: int) -> None:
    """422 media_too_long when `duration_ms` is over the configured limit."""
    limit_ms = settings.dubbing.max_duration_ms
    if duration_ms > limit_ms:
        raise MediaTooLong(
            f"The media lasts longer than {limit_ms / 1000:g} s, the most a dub takes here.",
            param=PARAM,
        )
