"""What a session file describes, independent of its format: the timeline and its stems."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from soundstage.formats.bwf import WaveLayout
from soundstage.formats.timecode import FrameRate

Media = Literal["embedded", "linked"]


@dataclass(frozen=True)
class SessionTrack:
    name: str
    stem_path: Path  # the written stem on disk
    stem_ref: str  # its path relative to the session file, e.g. "stems/01_Dialog.wav"
    channels: int
    offset_frames: int  # where the clip starts on the timeline
    audio_frames: int  # the clip's length
    layout: WaveLayout  # where the stem's samples are in its file
    clip_gain_db: float = 0.0  # gain the session applies to the clip (0: none)


@dataclass(frozen=True)
class Session:
    name: str
    sample_rate: int
    bit_depth: int
    frame_rate: FrameRate
    start_frame: int  # the session start's timecode, in frames since midnight
    total_frames: int  # session length in samples (every stem has it)
    media: Media
    tracks: tuple[SessionTrack, ...]
    # The top folder of the delivered ZIP (session file, stems/): linked media are located
    # under it, e.g. file:///<folder>/stems/01_Dialog.wav.
    folder: str = "session"

    @property
    def length_in_timecode_frames(self) -> int:
        return -(
            -self.total_frames
            * self.frame_rate.rate.numerator
            // (self.sample_rate * self.frame_rate.rate.denominator)
        )
