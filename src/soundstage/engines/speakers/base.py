"""What the parts of speaker analysis share: speech regions, progress callbacks, errors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from soundstage.core.errors import AppError

# Called with the fraction done, 0..1 (a job's JobContext.progress fits).
Progress = Callable[[float], None]


@dataclass(frozen=True)
class Region:
    """A stretch of speech, in milliseconds from the start of the audio."""

    start_ms: int
    end_ms: int

    @property
    def duration_ms(self) -> int:
        return self.end_ms - self.start_ms


class NoSpeech(AppError):
    """The audio holds no speech to take a voice from (silence, or too short)."""

    status = 422
    code = "no_speech"
