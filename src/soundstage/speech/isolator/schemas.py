"""Request and response bodies of voice isolation."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from soundstage.core.schemas import MediaUrl, RequestModel
from soundstage.jobs.payloads import JobResult, MediaLink
from soundstage.jobs.schemas import CompletedJob


class IsolationRequest(RequestModel):
    audio_url: MediaUrl = Field(
        description="URL of the mixed audio: a public http(s) URL or one of this service's "
        "media URLs. Any format FFmpeg decodes (MP3, WAV, FLAC, M4A, video soundtracks).",
    )
    format: Literal["wav", "mp3", "flac"] = "wav"
    return_background: bool = Field(
        default=False, description="Also return the background (music, noise) without the voice."
    )


class IsolationResult(JobResult):
    """The result of an `isolation` job."""

    vocals_url: MediaLink = Field(
        description="Signed URL of the voice alone; expires 24 h after issue."
    )
    background_url: MediaLink | None = Field(
        default=None,
        description="Only with `return_background: true` (absent otherwise): the rest of the "
        "mixture. In WAV and FLAC both stems have the input's exact length, rate and "
        "channels, sample-aligned: vocals + background = the input (MP3: see `sample_rate`; "
        "at most 2 channels).",
    )
    duration_ms: int = Field(description="Duration of the input, and of each stem.")
    sample_rate: int = Field(
        description="The stems' sample rate: the input's, except in MP3 when the input's is "
        "not one of the nine MPEG rates (8, 11.025, 12, 16, 22.05, 24, 32, 44.1, 48 kHz): "
        "then 44.1 kHz for rates of the 44.1 kHz family (88.2, 176.4 kHz), else 48 kHz."
    )


class IsolationResponse(IsolationResult, CompletedJob):
    pass
