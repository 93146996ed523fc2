"""How long a media a dub takes (`dubbing.max_duration_ms`), with the caps every audio input
has (core.input_limits)."""

from __future__ import annotations

from typing import Final

from soundstage.config import Settings
from soundstage.core.audio import MediaInfo
from soundstage.core.input_limits import MediaTooLong, check_duration, check_input

__all__ = ["OPERATION", "PARAM", "MediaTooLong", "check_header", "check_length"]

PARAM: Final = "media_url"
OPERATION: Final = "a dub"


def check_header(settings: Settings, info: MediaInfo) -> None:
    """422 when the header's sample rate, channels or duration is over the caps."""
    check_input(info, settings.dubbing.max_duration_ms, param=PARAM, operation=OPERATION)


def check_length(settings: Settings, duration_ms: int) -> None:
    """422 media_too_long when `duration_ms` is over the configured limit."""
    check_duration(duration_ms, settings.dubbing.max_duration_ms, param=PARAM, operation=OPERATION)
