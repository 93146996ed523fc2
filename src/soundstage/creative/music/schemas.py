"""Request and response bodies of music generation."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from soundstage.core.schemas import RequestModel
from soundstage.engines.fluidsynth import DEFAULT_SOUNDFONT, SoundfontName
from soundstage.jobs.payloads import JobResult, MediaLink
from soundstage.jobs.schemas import CompletedJob

MAX_PROMPT_CHARACTERS = 500
MIN_SECONDS, MAX_SECONDS, DEFAULT_SECONDS = 10, 300, 30
MAX_SEED = 2**32 - 1
DEFAULT_SINGER = "voice_joe"
# The spec: "Generated music is licensed for commercial use under the caller's active API
# plan terms." Stated in every music result (the job's too).
LICENSE_TERMS = (
    "Generated music is licensed for commercial use under the caller's active API plan terms."
)


class MusicRequest(RequestModel):
    prompt: str = Field(
        min_length=1,
        max_length=MAX_PROMPT_CHARACTERS,
        description="At most 500 characters. Read for a genre (pop, rock, jazz, blues, "
        "classical, cinematic, ambient, electronic, hip-hop, lo-fi, funk, reggae, country, "
        "metal, folk, latin), a mood (happy, sad, calm, energetic, ...), an explicit tempo "
        '("120 bpm") and key ("in D minor"), instruments ("piano and strings"; at most 11 '
        'different ones, more is 422), "no drums", and theme words for the lyrics.',
        examples=["a melancholic lo-fi hip hop beat with rhodes piano, 80 bpm, in D minor"],
    )
    duration_seconds: int = Field(
        default=DEFAULT_SECONDS,
        ge=MIN_SECONDS,
        le=MAX_SECONDS,
        description="10 to 300. The output lasts exactly this long and ends on a cadence "
        "with a short fade.",
    )
    format: Literal["mp3", "wav", "flac"] = "mp3"
    instrumental: bool = Field(
        default=True,
        description="Generate without vocals. false adds a sung vocal line: lyrics made from "
        "the prompt, sung by a catalog voice (`voice_id`) on the melody.",
    )
    seed: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SEED,
        description="Beyond the spec: the same prompt, duration, seed and voice give the same "
        "piece. Without it a seed is drawn and reported in the response.",
    )
    voice_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="Beyond the spec, with `instrumental: false` only: the English catalog "
        f"voice that sings (GET /api/v1/voices); default `{DEFAULT_SINGER}`.",
    )
    soundfont: SoundfontName = Field(
        default=DEFAULT_SOUNDFONT,
        description="Beyond the spec: the instruments' samples. `fluidr3_gm` (FluidR3 GM, "
        "the default) or `musescore_general` (MuseScore General: other recordings of the "
        "same General MIDI programs). The same seed gives the same notes with either.",
    )

    @field_validator("prompt")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must describe the music")
        return value


class SectionOut(BaseModel):
    name: Literal["intro", "verse", "chorus", "bridge", "outro"]
    start_ms: int
    end_ms: int
    bars: int
    lines: list[str] = Field(description="The lyric lines sung in it (empty when instrumental).")


class InstrumentOut(BaseModel):
    part: Literal["drums", "bass", "chords", "pad", "lead", "vocals"]
    program: int = Field(
        description="General MIDI program, 0-127 (drums: the kit, bank 128; vocals: how the "
        "MIDI file labels the sung line)."
    )
    name: str


class MusicLicense(BaseModel):
    """The license of a generated piece."""

    type: Literal["commercial"] = Field(
        default="commercial", description="Commercial use is allowed."
    )
    terms: str = Field(
        default=LICENSE_TERMS,
        description="The terms, as the spec states them: licensed for commercial use under "
        "the caller's active API plan terms.",
    )


def music_license() -> dict[str, str]:
    """The `license` field of a music result."""
    return MusicLicense().model_dump()


class MusicResult(JobResult):
    """The result of a `music` job."""

    output_url: MediaLink = Field(description="Signed URL of the music; expires 24 h after issue.")
    duration_ms: int = Field(description="The real duration of the file: the requested one.")
    genre: str = Field(description="The genre played, as read from the prompt (default pop).")
    bpm: int = Field(description="Tempo in beats (quarter notes) per minute.")
    key: str = Field(description='Tonic and mode, e.g. "D minor".')
    time_signature: Literal["4/4"] = "4/4"
    seed: int = Field(description="The seed used: send it back to get the same piece.")
    soundfont: SoundfontName = Field(
        default=DEFAULT_SOUNDFONT, description="The soundfont the parts were played with."
    )
    sections: list[SectionOut] = Field(description="The section plan, in order, with times.")
    instruments: list[InstrumentOut] = Field(description="Who plays what.")
    midi_url: MediaLink = Field(
        description="Signed URL of the Standard MIDI File the audio was rendered from (tempo, "
        "key, one named track per part with its program change; the sung line as its own track)."
    )
    vocals_url: MediaLink | None = Field(
        default=None,
        description="Only with `instrumental: false` (absent otherwise): the vocal stem alone, at "
        "its level in the mix.",
    )
    license: MusicLicense = Field(
        default_factory=MusicLicense,
        description='How the piece may be used: `{"type": "commercial", "terms": "Generated '
        "music is licensed for commercial use under the caller's active API plan terms.\"}` "
        "(also in the job's `result`).",
    )


class MusicResponse(MusicResult, CompletedJob):
    credits_used: int = Field(description="750 credits per minute of output, per started second.")
