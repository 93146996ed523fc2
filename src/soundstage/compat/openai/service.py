"""What the OpenAI-compatible API offers by name: its model ids (aliases of the native
text-to-speech and speech-to-text) and OpenAI's voice names, each mapped to a catalog voice
(compat.voice_aliases).
Speech and transcriptions are mapped in `speech.py` and `transcriptions.py`.

The voice a request names decides the engine (as on the native API): every text-to-speech
model id speaks with the voice's own engine, and every speech-to-text id transcribes with the
service's Whisper model (`stt.default_model`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from sqlalchemy.orm import Session

from soundstage.compat.openai.errors import ModelNotFound
from soundstage.compat.openai.schemas import (
    AudioModel,
    AudioModels,
    AudioVoice,
    AudioVoices,
    ModelList,
    ModelOut,
)
from soundstage.compat.voice_aliases import OPENAI_VOICES, openai_voice
from soundstage.core.db import Database
from soundstage.voices import service as voices
from soundstage.voices.errors import VoiceNotFound

Purpose = Literal["speech", "transcription"]
OWNER: Final = "soundstage"
# The `created` of every model: when this API surface was added (2026-11-24 UTC).
CREATED: Final = 1_795_478_400


@dataclass(frozen=True)
class Model:
    id: str
    task: Purpose
    description: str


MODELS: Final = (
    Model("soundstage-tts", "speech", "Text to speech with the catalog's voices."),
    Model("tts-1", "speech", "Alias of soundstage-tts."),
    Model("tts-1-hd", "speech", "Alias of soundstage-tts."),
    Model("gpt-4o-mini-tts", "speech", "Alias of soundstage-tts."),
    Model("soundstage-stt", "transcription", "Speech to text with Whisper."),
    Model("whisper-1", "transcription", "Alias of soundstage-stt."),
    Model("gpt-4o-transcribe", "transcription", "Alias of soundstage-stt."),
    Model("gpt-4o-mini-transcribe", "transcription", "Alias of soundstage-stt."),
    Model("gpt-4o-transcribe-diarize", "transcription", "Alias of soundstage-stt."),
    Model("gpt-transcribe", "transcription", "Alias of soundstage-stt."),
    Model("gpt-realtime-whisper", "transcription", "Alias of soundstage-stt."),
)
_BY_ID: Final = {model.id: model for model in MODELS}


def model(model_id: str, purpose: Purpose | None = None, *, param: str = "model") -> Model:
    """The model of this id (of this purpose); 404 `model_not_found` naming `param`."""
    found = _BY_ID.get(model_id)
    if found is None or (purpose is not None and found.task != purpose):
        kind = {"speech": "speech ", "transcription": "transcription "}.get(purpose or "", "")
        raise ModelNotFound(
            f"The {kind}model '{model_id}' does not exist. GET /v1/models lists the models.",
            param=param,
        )
    return found


def voice(session: Session, voice: str) -> tuple[str, int]:
    """The catalog voice a request's `voice` names, and the pitch to speak it at: one of
    OpenAI's names (compat.voice_aliases.OPENAI_VOICES) or a catalog voice id (GET
    /v1/audio/voices, GET /api/v1/voices; pitch 0); 404 `voice_not_found` naming `voice`
    when it is neither, or its voice is not in this catalog."""
    alias = openai_voice(voice)
    wanted, pitch = (voice, 0) if alias is None else (alias.voice_id, alias.pitch)
    if not voices.active_voice_ids(session, [wanted]):
        where = f" (mapped to {wanted}, which this catalog lacks)" if wanted != voice else ""
        raise VoiceNotFound(
            f"No such voice: '{voice}'{where}. GET /v1/audio/voices lists the voices.",
            param="voice",
        )
    return wanted, pitch


def _model_out(found: Model) -> ModelOut:
    """A model in OpenAI's shape: its id, with the fixed `created` and `owned_by`."""
    return ModelOut(id=found.id, created=CREATED, owned_by=OWNER)


def list_models() -> ModelList:
    return ModelList(data=[_model_out(found) for found in MODELS])


def get_model(model_id: str) -> ModelOut:
    return _model_out(model(model_id, param="model"))


def audio_models() -> AudioModels:
    """The speech models, as Open WebUI reads them."""
    return AudioModels(
        models=[
            AudioModel(id=found.id, name=found.description)
            for found in MODELS
            if found.task == "speech"
        ]
    )


def audio_voices(db: Database) -> AudioVoices:
    """What `voice` takes, as Open WebUI reads it: OpenAI's names whose voice this catalog
    has (each with that voice), then every catalog voice by its id."""
    with db.read_session() as session:
        active = {voice.id: voice for voice in voices.active_voices(session)}
    listed = [
        AudioVoice(
            id=name,
            name=f"{name} ({active[alias.voice_id].name}{_pitched(alias.pitch)}, "
            f"{active[alias.voice_id].language})",
            voice_id=alias.voice_id,
            pitch=alias.pitch,
            language=active[alias.voice_id].language,
            gender=active[alias.voice_id].gender,
        )
        for name, alias in OPENAI_VOICES.items()
        if alias.voice_id in active
    ]
    listed += [
        AudioVoice(
            id=voice.id,
            name=f"{voice.name} ({voice.language})",
            voice_id=voice.id,
            language=voice.language,
            gender=voice.gender,
        )
        for voice in active.values()
    ]
    return AudioVoices(voices=listed)


def _pitched(pitch: int) -> str:
    return f" {pitch:+d} semitones" if pitch else ""
