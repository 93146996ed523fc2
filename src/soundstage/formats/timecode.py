"""SMPTE timecode of a DAW session: frame rates, HH:MM:SS:FF parsing, and positions in samples."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal

FrameRateName = Literal["23.976", "24", "25", "29.97", "29.97df", "30", "50", "59.94", "60"]

_TIMECODE: Final = re.compile(r"^(\d{2}):(\d{2}):(\d{2})[:;](\d{2})$")


@dataclass(frozen=True)
class FrameRate:
    name: str
    rate: Fraction  # frames per second, exactly (24000/1001 for 23.976)
    drop_frame: bool

    @property
    def nominal_fps(self) -> int:
        """The frame count per timecode second (24 for 23.976, 30 for 29.97)."""
        return round(self.rate)


FRAME_RATES: Final[dict[str, FrameRate]] = {
    "23.976": FrameRate("23.976", Fraction(24000, 1001), False),
    "24": FrameRate("24", Fraction(24), False),
    "25": FrameRate("25", Fraction(25), False),
    "29.97": FrameRate("29.97", Fraction(30000, 1001), False),
    "29.97df": FrameRate("29.97df", Fraction(30000, 1001), True),
    "30": FrameRate("30", Fraction(30), False),
    "50": FrameRate("50", Fraction(50), False),
    "59.94": FrameRate("59.94", Fraction(60000, 1001), False),
    "60": FrameRate("60", Fraction(60), False),
}


def check_timecode(value: str, rate: FrameRate) -> None:
    """Raise ValueError unless value is HH:MM:SS:FF valid at this rate."""
    frame_count(value, rate)


def frame_count(value: str, rate: FrameRate) -> int:
    """Frames from 00:00:00:00 to the timecode `value` (drop-frame counting when the rate
    drops frames: labels ;00 and ;01 of every minute except each tenth do not exist)."""
    match = _TIMECODE.match(value)
    if match is None:
        raise ValueError("must be a timecode HH:MM:SS:FF")
    hours, minutes, seconds, frames = (int(part) for part in match.groups())
    fps = rate.nominal_fps
    if hours > 23 or minutes > 59 or seconds > 59 or frames >= fps:
        raise ValueError(f"must be a timecode HH:MM:SS:FF with FF below {fps}")
    total_minutes = hours * 60 + minutes
    count = (total_minutes * 60 + seconds) * fps + frames
    if rate.drop_frame:
        dropped = 2 * fps // 30  # 2 at 29.97
        if seconds == 0 and frames < dropped and minutes % 10 != 0:
            raise ValueError("is a frame label that drop-frame timecode skips")
        count -= dropped * (total_minutes - total_minutes // 10)
    return count


def samples_at(value: str, rate: FrameRate, sample_rate: int) -> int:
    """The timecode's position in samples since midnight (a BWF time reference)."""
    return round(frame_count(value, rate) * sample_rate / rate.rate)


def timecode_at(count: int, rate: FrameRate) -> str:
    """The HH:MM:SS:FF label of the frame `count` frames after midnight (frame_count's
    inverse; `;` before the frames when drop-frame)."""
    fps = rate.nominal_fps
    if rate.drop_frame:
        dropped = 2 * fps // 30
        per_ten_minutes = 600 * fps - 9 * dropped
        per_minute = 60 * fps - dropped
        tens, rest = divmod(count, per_ten_minutes)
        if rest > dropped:
            count += 9 * dropped * tens + dropped * ((rest - dropped) // per_minute)
        else:
            count += 9 * dropped * tens
    frames = count % fps
    seconds = count // fps % 60
    minutes = count // (fps * 60) % 60
    hours = count // (fps * 3600) % 24
    separator = ";" if rate.drop_frame else ":"
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{separator}{frames:02d}"
