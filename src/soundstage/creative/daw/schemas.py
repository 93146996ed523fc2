"""Request and response bodies of the DAW export."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from soundstage.core.schemas import MediaUrl, RequestModel
from soundstage.formats.timecode import FRAME_RATES, FrameRateName, check_timecode
from soundstage.jobs.payloads import JobResult, MediaLink

MAX_TRACKS = 64
# The schema's ceiling; the session's end is bounded by the `daw.max_session_ms` setting
# (30 min by default), checked at submit.
MAX_START_MS = 3 * 3_600_000
MIN_GAIN_DB, MAX_GAIN_DB = -96.0, 24.0


class DawTrack(RequestModel):
    name: str = Field(
        min_length=1,
        max_length=64,
        description="Track name, shown in the DAW and used for the stem's file name; unique "
        "within the project (ignoring case).",
    )
    audio_url: MediaUrl = Field(
        description="The track's audio: a public http(s) URL or one of this service's media "
        "URLs. Anything FFmpeg decodes (WAV, FLAC, MP3, M4A, OGG, video soundtracks), any "
        "sample rate, 1 to 8 channels.",
    )
    start_ms: int = Field(
        default=0,
        ge=0,
        le=MAX_START_MS,
        description="Beyond the spec: where the track's audio starts on the timeline, in "
        "milliseconds from the session start (placed at the nearest sample). The session "
        "(the end of the last clip) lasts at most 30 min by default (422 `session_too_long`).",
    )
    gain_db: float = Field(
        default=0.0,
        ge=MIN_GAIN_DB,
        le=MAX_GAIN_DB,
        description="Beyond the spec: the clip's gain in dB; printed into the stem, or "
        "written as clip gain in the session (see `gain_mode`).",
    )
    pan: float = Field(
        default=0.0,
        ge=-1.0,
        le=1.0,
        description="Beyond the spec: -1 (left) to 1 (right), printed into the stem. A mono "
        "track with a pan other than 0 becomes a stereo stem (constant-power, -3 dB at "
        "centre); a stereo track is balanced. Only mono and stereo inputs can be panned.",
    )


class DawExportRequest(RequestModel):
    tracks: list[DawTrack] = Field(
        min_length=1,
        max_length=MAX_TRACKS,
        description="The tracks, 1 to 64, in the order they appear in the session. The export "
        "(every stem for the whole session, twice with media embedded) weighs at most 2 GiB "
        "by default (422 `export_too_large`).",
    )
    format: Literal["aaf", "omf"] = Field(
        default="aaf",
        description="Session file: `aaf` (Advanced Authoring Format, for Pro Tools, Nuendo, "
        "Cubase, Logic, DaVinci Resolve, Media Composer) or `omf` (OMF Interchange 2.0, for "
        "older systems).",
    )
    sample_rate: Literal[44100, 48000] = Field(default=48000, description="Of every stem.")
    bit_depth: Literal[16, 24] = Field(
        default=24, description="Of every stem; 16-bit stems are TPDF-dithered."
    )
    name: str = Field(
        default="Soundstage export",
        min_length=1,
        max_length=64,
        description="Beyond the spec: the project's name (the composition in the session and "
        "the folder in the ZIP).",
    )
    frame_rate: FrameRateName = Field(
        default="25",
        description="Beyond the spec: the session's timecode rate (`29.97df` is drop-frame).",
    )
    start_timecode: str = Field(
        default="01:00:00:00",
        description="Beyond the spec: the session start's timecode, HH:MM:SS:FF (`;` before "
        "the frames is accepted for drop-frame). Stems carry it as their BWF time reference.",
    )
    media: Literal["embedded", "linked"] = Field(
        default="embedded",
        description="Beyond the spec: `embedded` puts the audio inside the session file; "
        "`linked` makes a small session file that refers to the stems in the `stems/` folder "
        "next to it (keep the folder structure when moving it).",
    )

    gain_mode: Literal["printed", "clip"] = Field(
        default="printed",
        description="Beyond the spec: `printed` (default) applies each track's `gain_db` to its "
        "stem, so the stems and the session sound the same in every DAW; `clip` leaves the "
        "stems at unity and writes the gain as the clip's gain in the session (AAF Audio Gain "
        "operation, OMF Mono Audio Gain effect), editable in the DAW. Pan is always printed.",
    )

    @field_validator("start_timecode")
    @classmethod
    def _timecode_fits_the_rate(cls, value: str, info: ValidationInfo) -> str:
        rate = info.data.get("frame_rate")
        if rate is not None:  # otherwise frame_rate itself is the error
            check_timecode(value, FRAME_RATES[rate])
        return value


class DawTrackResult(JobResult):
    """A track of the session as the track sheet lists it."""

    name: str
    stem: str
    start_ms: int
    duration_ms: int
    gain_db: float
    pan: float
    channels: int


class DawResult(JobResult):
    download_url: MediaLink
    session_file: str
    format: str
    media: str
    gain_mode: str
    bit_depth: int
    sample_rate: int
    duration_ms: int
    tracks: list[DawTrackResult]
