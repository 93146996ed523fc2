"""How long a media a dub takes (`dubbing.max_duration_ms`); the header and the caps every
audio input has are checked at submit (jobs.inputs, media.input_limits), the decoded length
by the job."""

from __future__ import annotations

from typing import Final

from soundstage.config import Settings
from soundstage.media.input_limits import MediaTooLong, check_duration

__all__ = ["AUTO", "OPERATION", "PARAM", "MediaTooLong", "check_length"]

PARAM: Final = "media_url"
OPERATION: Final = "a dub"
# The source language the transcriber detects.
AUTO: Final = "auto"


def check_length(settings: Settings, duration_ms: int) -> None:
    """422 media_too_long when `duration_ms` is over the configured limit."""
    check_duration(duration_ms, settings.dubbing.max_duration_ms, param=PARAM, operation=OPERATION)
