"""The bounds of a DAW export's output (settings `daw.*`): the session's length (the end of
the last clip) and the export's size. Checked at submit from the request and the stored
durations of the service's own media, and again in the job once every input is measured."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.creative.daw.errors import ExportTooLarge, SessionTooLong
from soundstage.creative.daw.schemas import DawExportRequest
from soundstage.storage import service as storage


def clip_param(index: int, start_ms: int) -> str:
    """The field at fault when a clip ends too late: its start, or its audio if it starts
    at the session start."""
    return f"tracks[{index}].start_ms" if start_ms > 0 else f"tracks[{index}].audio_url"


def check_session_length(settings: Settings, end_ms: int, param: str) -> None:
    limit = settings.daw.max_session_ms
    if end_ms > limit:
        raise SessionTooLong(
            f"{param}: the session would last until {end_ms / 60_000:.2f} min (the end of its "
            f"last clip); an export lasts at most {limit / 60_000:g} min.",
            param=param,
        )


def estimated_bytes(
    total_frames: int,
    channels: Sequence[int],
    bit_depth: int,
    media: str,
    *,
    split_channels: bool = False,
) -> int:
    """What the export weighs: every stem lasts the whole session; an embedded session file
    holds the same audio again, and so do the mono files a linked session gets of each
    multichannel stem (`split_channels`)."""
    stems = sum(total_frames * count * bit_depth // 8 for count in channels)
    if media == "embedded":
        return stems * 2
    if split_channels:
        return stems + sum(total_frames * count * bit_depth // 8 for count in channels if count > 1)
    return stems


def check_output_size(
    settings: Settings,
    total_frames: int,
    channels: Sequence[int],
    bit_depth: int,
    media: str,
    *,
    split_channels: bool = False,
) -> None:
    size = estimated_bytes(total_frames, channels, bit_depth, media, split_channels=split_channels)
    limit = settings.daw.max_output_bytes
    if size > limit:
        twice = (
            ", twice with media embedded"
            if media == "embedded"
            else ", multichannel ones twice in a linked session"
            if split_channels
            else ""
        )
        raise ExportTooLarge(
            f"tracks: the export would weigh about {size / 1024**2:,.0f} MiB (every stem lasts "
            f"the whole session{twice}); "
            f"an export weighs at most {limit / 1024**2:,.0f} MiB. Export fewer tracks, a "
            "shorter session, bit_depth 16 or media `linked`.",
            param="tracks",
        )


def check_request(session: Session, settings: Settings, body: DawExportRequest) -> None:
    """At submit, before any work: the session lasts at least until every clip's start (and
    until the end of each clip whose duration the service knows, its own media), and each
    stem has at least one channel (two when a track is panned)."""
    end_ms, at_fault = 0, "tracks"
    for index, track in enumerate(body.tracks):
        param = clip_param(index, track.start_ms)
        if track.start_ms >= settings.daw.max_session_ms:  # a clip lasts more than nothing
            raise SessionTooLong(
                f"{param}: the clip starts at {track.start_ms / 60_000:.2f} min; the session "
                f"(until the end of its last clip) lasts at most "
                f"{settings.daw.max_session_ms / 60_000:g} min.",
                param=param,
            )
        known = storage.duration_of_own_media(session, settings, track.audio_url)
        end = track.start_ms + (known or 0)
        if end > end_ms:
            end_ms, at_fault = end, param
    check_session_length(settings, end_ms, at_fault)
    frames = -(-end_ms * body.sample_rate // 1000)
    channels = [2 if track.pan != 0 else 1 for track in body.tracks]
    check_output_size(
        settings,
        frames,
        channels,
        body.bit_depth,
        body.media,
        split_channels=body.media == "linked",
    )
