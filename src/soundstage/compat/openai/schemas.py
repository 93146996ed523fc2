"""Request and answer bodies of the OpenAI-compatible audio API, in OpenAI's own shapes (the
fields the `openai` SDK reads: `openai.types.audio`, `openai.types.model`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from soundstage.core.schemas import RequestModel

MAX_INPUT_CHARACTERS = 4096
MIN_SPEED, MAX_SPEED = 0.25, 4.0

SpeechFormat = Literal["mp3", "opus", "aac", "flac", "wav", "pcm"]
TranscriptFormat = Literal["json", "text", "srt", "verbose_json", "vtt", "diarized_json"]
TranslationFormat = Literal["json", "text", "srt", "verbose_json", "vtt"]
Granularity = Literal["word", "segment"]


class VoiceRef(RequestModel):
    """A custom voice reference, `{"id": "voice_joe"}`."""

    id: str = Field(min_length=1, max_length=64)


class SpeechRequest(RequestModel):
    """POST /v1/audio/speech."""

    # The text is charged per character as sent: it is not trimmed.
    model_config = ConfigDict(str_strip_whitespace=False)

    input: str = Field(
        min_length=1,
        max_length=MAX_INPUT_CHARACTERS,
        description="The text to speak, at most 4,096 characters (1 credit each).",
    )
    model: str = Field(
        min_length=1, max_length=64, description="A speech model of GET /v1/models (`tts-1`...)."
    )
    voice: str | VoiceRef = Field(
        description="One of OpenAI's voice names (`alloy`, `echo`...: each is a catalog voice, "
        'see GET /v1/audio/voices), a catalog voice id (`voice_joe`), or `{"id": ...}`.'
    )
    response_format: SpeechFormat = Field(
        default="mp3",
        description="`pcm` is raw 24 kHz 16-bit mono little-endian samples, without a header.",
    )
    speed: float = Field(default=1.0, ge=MIN_SPEED, le=MAX_SPEED, description="0.25 to 4.0.")
    instructions: str | None = Field(
        default=None,
        max_length=MAX_INPUT_CHARACTERS,
        description="Accepted and ignored: the catalog's engines do not take directions "
        "(choose the voice and speed instead).",
    )
    stream_format: Literal["audio", "sse"] = Field(
        default="audio",
        description="`audio`: the bytes, sent as they are synthesized; `sse`: server-sent "
        "events, `speech.audio.delta` (base64 audio) then `speech.audio.done`.",
    )

    @field_validator("input")
    @classmethod
    def _speakable(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain something to say")
        return value

    @field_validator("voice", mode="before")
    @classmethod
    def _voice_text(cls, value: object) -> object:
        if isinstance(value, str) and not (1 <= len(value.strip()) <= 64):
            raise ValueError("must be a voice name or id of 1 to 64 characters")
        return value.strip() if isinstance(value, str) else value

    @property
    def voice_name(self) -> str:
        return self.voice.id if isinstance(self.voice, VoiceRef) else self.voice


class ModelOut(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = Field(description="Unix seconds.")
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelOut]


class AudioModel(BaseModel):
    id: str
    name: str


class AudioModels(BaseModel):
    """GET /v1/audio/models, the shape Open WebUI reads (`{"models": [{"id", "name"}]}`)."""

    models: list[AudioModel]


class AudioVoice(BaseModel):
    id: str = Field(description="What `voice` takes: an OpenAI name or a catalog voice id.")
    name: str
    voice_id: str = Field(description="The catalog voice (GET /api/v1/voices/{voice_id}).")
    pitch: int = Field(
        default=0, description="Semitones the voice is shifted by for this name (0: as it is)."
    )
    language: str
    gender: str


class AudioVoices(BaseModel):
    """GET /v1/audio/voices, the shape Open WebUI reads (`{"voices": [{"id", "name"}]}`)."""

    voices: list[AudioVoice]


class TranscriptionForm(BaseModel):
    """The form of POST /v1/audio/transcriptions (and, without `language`,
    `timestamp_granularities[]` and `stream`, of /v1/audio/translations), `file` aside. Form
    values are text: numbers and booleans are read from it."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    model: str = Field(min_length=1, max_length=64)
    language: str | None = Field(default=None, min_length=2, max_length=35)
    prompt: str | None = Field(default=None, max_length=MAX_INPUT_CHARACTERS)
    response_format: TranscriptFormat = "json"
    temperature: float = Field(default=0.0, ge=0.0, le=1.0)
    timestamp_granularities: list[Granularity] = Field(default_factory=list, max_length=2)
    stream: bool = False
    # Accepted and ignored (see compat/openai/transcriptions.py).
    include: list[str] = Field(default_factory=list, max_length=8)
    chunking_strategy: str | None = Field(default=None, max_length=1000)
    known_speaker_names: list[str] = Field(default_factory=list, max_length=4)
    known_speaker_references: list[str] = Field(default_factory=list, max_length=4)
    keywords: list[str] = Field(default_factory=list, max_length=100)
    languages: list[str] = Field(default_factory=list, max_length=10)


class TranscriptionWord(BaseModel):
    word: str
    start: float
    end: float


class TranscriptionSegment(BaseModel):
    id: int
    seek: int
    start: float
    end: float
    text: str
    tokens: list[int]
    temperature: float
    avg_logprob: float
    compression_ratio: float
    no_speech_prob: float


class DurationUsage(BaseModel):
    type: Literal["duration"] = "duration"
    seconds: float


class Transcription(BaseModel):
    text: str
    usage: DurationUsage


class TranscriptionVerbose(BaseModel):
    task: Literal["transcribe", "translate"]
    language: str = Field(description="The language's English name, lower case: `english`.")
    duration: float
    text: str
    segments: list[TranscriptionSegment] | None = None
    words: list[TranscriptionWord] | None = None
    usage: DurationUsage


class DiarizedSegment(BaseModel):
    type: Literal["transcript.text.segment"] = "transcript.text.segment"
    id: str
    start: float
    end: float
    text: str
    speaker: str = Field(description="`A`, `B`... in order of first speech.")


class TranscriptionDiarized(BaseModel):
    task: Literal["transcribe"] = "transcribe"
    duration: float
    text: str
    segments: list[DiarizedSegment]
    usage: DurationUsage
