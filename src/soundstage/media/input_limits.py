"""Caps on every audio input a job takes (sample rate, channels, a duration per operation),
checked from the header right after the fetch, before any decoding or charge, and again on
the length actually decoded (a header may understate it)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final

from soundstage.core.errors import AppError
from soundstage.media.audio import MAX_CHANNELS, Audio, MediaInfo, iter_decode

# Fixed caps, whatever the operation: above them the audio is refused, never decoded.
# 192 kHz x 8 channels is the most any studio format in use delivers (7.1 at 192 kHz); a
# 384 kHz x 8 ch FLAC of silence is a few hundred KB that decodes to gigabytes.
MAX_INPUT_SAMPLE_RATE: Final = 192_000
MAX_INPUT_CHANNELS: Final = MAX_CHANNELS


class MediaTooLong(AppError):
    """The input lasts longer than the operation takes."""

    status = 422
    code = "media_too_long"


class AudioOutOfRange(AppError):
    """The input's sample rate or channel count is over the caps."""

    status = 422
    code = "audio_out_of_range"


def check_input(info: MediaInfo, max_duration_ms: int, *, param: str, operation: str) -> None:
    """422 (naming param) when the header's sample rate, channels or duration is over the
    caps; `operation` names the work in the message ("voice isolation")."""
    if info.sample_rate > MAX_INPUT_SAMPLE_RATE:
        raise AudioOutOfRange(
            f"The audio's sample rate is {info.sample_rate} Hz; {operation} takes at most "
            f"{MAX_INPUT_SAMPLE_RATE} Hz.",
            param=param,
        )
    if info.channels > MAX_INPUT_CHANNELS:
        raise AudioOutOfRange(
            f"The audio has {info.channels} channels; {operation} takes at most "
            f"{MAX_INPUT_CHANNELS}.",
            param=param,
        )
    check_duration(info.duration_ms, max_duration_ms, param=param, operation=operation)


def check_duration(duration_ms: int, max_duration_ms: int, *, param: str, operation: str) -> None:
    """422 media_too_long when duration_ms is over max_duration_ms."""
    if duration_ms > max_duration_ms:
        raise MediaTooLong(
            f"The media lasts longer than {max_duration_ms / 1000:g} s, the most {operation} "
            "takes here.",
            param=param,
        )


def within_duration(
    blocks: Iterable[Audio], max_duration_ms: int, *, param: str, operation: str
) -> Iterator[Audio]:
    """The decoded blocks, refused (media_too_long) as soon as they run over the limit."""
    frames = 0
    for block in blocks:
        frames += block.frames
        duration_ms = round(frames * 1000 / block.sample_rate)
        check_duration(duration_ms, max_duration_ms, param=param, operation=operation)
        yield block


def decoded_duration_ms(
    path: Path, max_duration_ms: int, *, param: str, operation: str, block_frames: int
) -> int:
    """The length of the file's audio as decoded (a pass over it in blocks of block_frames,
    bounded memory), refused (media_too_long) as soon as it runs over the limit."""
    duration_ms = 0
    frames = 0
    for block in within_duration(
        iter_decode(path, block_frames=block_frames, param=param),
        max_duration_ms,
        param=param,
        operation=operation,
    ):
        frames += block.frames
        duration_ms = round(frames * 1000 / block.sample_rate)
    return duration_ms
