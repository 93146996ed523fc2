"""Request and response bodies of the voice changer."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from soundstage.core.schemas import MediaUrl, RequestModel
from soundstage.jobs.payloads import JobResult, MediaLink
from soundstage.jobs.schemas import CompletedJob


class VoiceChangerRequest(RequestModel):
    audio_url: MediaUrl = Field(
        description="URL of the speech to re-voice: a public http(s) URL or one of this "
        "service's media URLs (MP3, WAV, FLAC, M4A, ...).",
    )
    voice_id: str = Field(
        min_length=1, max_length=64, description="The target voice, from GET /api/v1/voices."
    )
    format: Literal["mp3", "wav", "flac"] = "mp3"
    remove_background_noise: bool = Field(
        default=False,
        description="Drop the input's background (music, noise, room) instead of mixing it "
        "back under the new voice.",
    )
    language: str | None = Field(
        default=None,
        min_length=2,
        max_length=35,
        description="Beyond the spec: BCP-47 tag of the speech. Default: the target voice's "
        "language.",
    )


class VoiceChangerResult(JobResult):
    """The result of a `voice_changer` job."""

    output_url: MediaLink = Field(description="Signed URL of the audio; expires 24 h after issue.")
    duration_ms: int = Field(description="The output's duration: the input's, exactly.")
    transcript: str = Field(description="Beyond the spec: the words re-voiced.")


class VoiceChangerResponse(VoiceChangerResult, CompletedJob):
    pass
