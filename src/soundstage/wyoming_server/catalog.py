"""What `describe` answers: the speech-to-text model the transcription jobs use, with its
languages, and every voice of the catalog (GET /api/v1/voices' own listing), as Wyoming's
`info`."""

from __future__ import annotations

from typing import Final

from sqlalchemy.orm import Session
from wyoming.info import AsrModel, AsrProgram, Attribution, Info, TtsProgram, TtsVoice

from soundstage import __version__
from soundstage.config import Settings
from soundstage.engines.transcribers.base import bcp47_language, whisper_languages
from soundstage.voices import service as voices
from soundstage.voices.schemas import VoiceOut

# The name of both programs: a client that selects one (`select-program`) names it.
PROGRAM: Final = "soundstage"
_WHISPER: Final = Attribution(name="OpenAI", url="https://github.com/openai/whisper")


def _attribution(settings: Settings) -> Attribution:
    return Attribution(name="Soundstage", url=settings.public_base_url)


def asr_program(settings: Settings) -> AsrProgram:
    """The transcription program: one model, the one every transcription job uses
    (`stt.default_model`). Blocking the first time (Whisper's language list loads with
    faster-whisper): made once, as the server starts, so that `describe` answers at once
    (Home Assistant gives it a second)."""
    model = settings.stt.default_model
    # Whisper's English-only models are named `*.en` (tiny.en); the others write every
    # language Whisper has, named by their BCP-47 tags (jw is jv).
    if model.endswith(".en"):
        languages = ["en"]
    else:
        languages = sorted({bcp47_language(code) for code in whisper_languages()})
    return AsrProgram(
        name=PROGRAM,
        description="Soundstage speech-to-text: Whisper (faster-whisper, int8) as a job of "
        "the key's account, billed per started second",
        attribution=_attribution(settings),
        installed=True,
        version=__version__,
        models=[
            AsrModel(
                name=model,
                description=f"Whisper {model}",
                attribution=_WHISPER,
                installed=True,
                version=None,
                languages=languages,
            )
        ],
        # The transcript is made in one job once the audio has ended: its `transcript-chunk`
        # comes then, whole, between `transcript-start` and `transcript-stop`.
        supports_transcript_streaming=True,
        # No voice activity detection here: the client ends the stream (Home Assistant does).
        requires_external_vad=True,
    )


def catalog_voices(session: Session, settings: Settings) -> list[VoiceOut]:
    """Every active voice of the catalog, by voice id."""
    return sorted(voices.all_voices(session, settings), key=lambda voice: voice.voice_id)


def tts_voice(voice: VoiceOut) -> TtsVoice:
    """A catalog voice as Wyoming names it: `name` is the voice id a `synthesize` sends back;
    the description (what Home Assistant's voice picker shows) its name and character; the
    attribution its performer and its public preview."""
    return TtsVoice(
        name=voice.voice_id,
        description=f"{voice.name}: {voice.description}" if voice.description else voice.name,
        attribution=Attribution(name=voice.creator.display_name, url=voice.preview_url),
        installed=True,
        version=None,
        languages=[voice.language],
        # Each catalog voice is one speaker.
        speakers=None,
    )


def info(session: Session, settings: Settings, asr: AsrProgram) -> Info:
    """The `info` event's content: the catalog read now (voices come and go), the
    transcription program made at start."""
    tts = TtsProgram(
        name=PROGRAM,
        description="Soundstage text-to-speech: every voice of the catalog, as a job of the "
        "key's account, billed per character",
        attribution=_attribution(settings),
        installed=True,
        version=__version__,
        voices=[tts_voice(voice) for voice in catalog_voices(session, settings)],
        supports_synthesize_streaming=True,
    )
    return Info(asr=[asr], tts=[tts])
