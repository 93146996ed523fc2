"""ElevenLabs' speech and audio operations mapped onto the native features: text to speech
(always the streaming TTS job, in the exact `output_format` encoding), speech to text (the
native STT job on the upload), sound generation, audio isolation and speech to speech (the
native jobs, their output file answered as bytes: sound and speech to speech made by the job
in the exact `output_format` encoding, isolation, which takes none, as MP3)."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pycountry
from fastapi import UploadFile
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from soundstage.compat.common import kept_upload, output_response
from soundstage.compat.elevenlabs.schemas import (
    ElevenLabsAudioWithTimestamps,
    ElevenLabsCharacterAlignment,
    ElevenLabsSoundGenerationBody,
    ElevenLabsSpeechToTextCharacter,
    ElevenLabsSpeechToTextChunk,
    ElevenLabsSpeechToTextForm,
    ElevenLabsSpeechToTextWord,
    ElevenLabsTextToSpeechBody,
    native_request,
)
from soundstage.compat.voice_aliases import elevenlabs_voice
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import InvalidField, ParameterMissing
from soundstage.core.principal import Principal
from soundstage.creative.sound import service as sound
from soundstage.creative.sound.schemas import SoundRequest
from soundstage.jobs import service as jobs
from soundstage.jobs.payloads import shown_url
from soundstage.media import encodings
from soundstage.media.audio import CONTENT_TYPES, finalize
from soundstage.speech.character_times import WordSpan, character_times
from soundstage.speech.isolator import service as isolator
from soundstage.speech.isolator.schemas import IsolationRequest
from soundstage.speech.stt import service as stt
from soundstage.speech.stt.schemas import SttRequest, SttWord
from soundstage.speech.tts import service as tts
from soundstage.speech.tts.schemas import TtsRequest
from soundstage.speech.voice_changer import service as voice_changer
from soundstage.speech.voice_changer.schemas import VoiceChangerRequest
from soundstage.voices import service as voices

# The native sound generator's default length, for a request without `duration_seconds`.
DEFAULT_SOUND_SECONDS = 5


# Text to speech.


@dataclass(frozen=True)
class Speech:
    job_id: str
    content_type: str
    chunks: AsyncIterator[bytes]


async def _speak(
    db: Database,
    settings: Settings,
    principal: Principal,
    voice_id: str,
    body: ElevenLabsTextToSpeechBody,
    output_format: str,
    *,
    timestamps: bool,
) -> tuple[tts.SpeechStream, encodings.Encoding]:
    catalog_voice, pitch = elevenlabs_voice(voice_id)
    fields: dict[str, Any] = {
        "text": body.text,
        "voice_id": catalog_voice,
        "pitch": pitch,
        "speed": body.speed,
        "timestamps": timestamps,
        "pronunciation_dictionary_locators": body.dictionary_locators(),
    }
    if body.apply_text_normalization is not None:
        fields["apply_text_normalization"] = body.apply_text_normalization
    request = native_request(TtsRequest, fields, {"speed": "voice_settings.speed"})
    encoding = encodings.encoding(output_format)
    speech = await tts.stream(
        db,
        settings,
        principal,
        request,
        encoding=encoding.name,
        content_type=encoding.content_type,
    )
    return speech, encoding


async def whole(chunks: AsyncIterator[bytes]) -> bytes:
    return b"".join([chunk async for chunk in chunks])


async def once(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def convert(
    db: Database,
    settings: Settings,
    principal: Principal,
    voice_id: str,
    body: ElevenLabsTextToSpeechBody,
    output_format: str,
) -> Speech:
    """The audio in `output_format`, relayed as it is made (the streaming job: the first
    bytes after the first sentence); WAV is sent whole, its header's sizes filled in."""
    speech, encoding = await _speak(
        db, settings, principal, voice_id, body, output_format, timestamps=False
    )
    chunks = speech.body()
    if encoding.container == "wav":
        chunks = once(finalize(encoding, await whole(chunks)))
    return Speech(speech.job_id, speech.content_type, chunks)


async def _alignment(
    db: Database, settings: Settings, job_id: str, text: str
) -> ElevenLabsCharacterAlignment:
    """Once a streamed job's audio has been relayed: wait for its words, and spread them
    over the characters (speech.character_times)."""
    job = await jobs.wait(db, settings, job_id)
    job = await run_in_threadpool(jobs.raise_for_failure, db, job)
    result = job.result or {}
    words = [WordSpan(w["start_ms"], w["end_ms"]) for w in result.get("words") or []]
    times = character_times(text, words, int(result.get("duration_ms", 0)))
    return ElevenLabsCharacterAlignment(
        characters=times.characters,
        character_start_times_seconds=times.starts,
        character_end_times_seconds=times.ends,
    )


async def convert_with_timestamps(
    db: Database,
    settings: Settings,
    principal: Principal,
    voice_id: str,
    body: ElevenLabsTextToSpeechBody,
    output_format: str,
) -> ElevenLabsAudioWithTimestamps:
    speech, encoding = await _speak(
        db, settings, principal, voice_id, body, output_format, timestamps=True
    )
    audio = finalize(encoding, await whole(speech.body()))
    alignment = await _alignment(db, settings, speech.job_id, body.text)
    return ElevenLabsAudioWithTimestamps(
        audio_base64=base64.b64encode(audio).decode("ascii"),
        alignment=alignment,
        normalized_alignment=alignment,
    )


def _line(audio: bytes, alignment: ElevenLabsCharacterAlignment | None) -> bytes:
    chunk = ElevenLabsAudioWithTimestamps(
        audio_base64=base64.b64encode(audio).decode("ascii"),
        alignment=alignment,
        normalized_alignment=alignment,
    )
    return json.dumps(chunk.model_dump(), separators=(",", ":")).encode() + b"\n"


async def stream_with_timestamps(
    db: Database,
    settings: Settings,
    principal: Principal,
    voice_id: str,
    body: ElevenLabsTextToSpeechBody,
    output_format: str,
) -> Speech:
    """One JSON object a line: each piece of audio as it is made (`alignment` null), then,
    once the words are aligned (after the audio), a last line with no audio and the
    alignment of the whole text."""
    speech, _encoding = await _speak(
        db, settings, principal, voice_id, body, output_format, timestamps=True
    )

    async def lines() -> AsyncIterator[bytes]:
        async for chunk in speech.body():
            yield _line(chunk, None)
        yield _line(b"", await _alignment(db, settings, speech.job_id, body.text))

    return Speech(speech.job_id, "application/x-ndjson", lines())


# Speech to text.


def _speaker(native: str | None) -> str | None:
    """`speaker_1`, `speaker_2`... (native, from 1) as ElevenLabs counts them, from 0."""
    if native is None:
        return None
    prefix, _, number = native.rpartition("_")
    return f"{prefix}_{int(number) - 1}" if number.isdigit() else native


def _iso639_3(code: str) -> str:
    entry = pycountry.languages.get(alpha_2=code) if len(code) == 2 else None
    return str(getattr(entry, "alpha_3", code))


def _seconds(ms: int) -> float:
    return round(ms / 1000, 3)


def _stt_word(word: SttWord, granularity: str) -> ElevenLabsSpeechToTextWord:
    timed = granularity != "none"
    characters = None
    if granularity == "character":
        step = (word.end_ms - word.start_ms) / len(word.word)
        characters = [
            ElevenLabsSpeechToTextCharacter(
                text=ch,
                start=_seconds(round(word.start_ms + i * step)),
                end=_seconds(round(word.start_ms + (i + 1) * step)),
            )
            for i, ch in enumerate(word.word)
        ]
    return ElevenLabsSpeechToTextWord(
        text=word.word,
        start=_seconds(word.start_ms) if timed else None,
        end=_seconds(word.end_ms) if timed else None,
        type="word",
        speaker_id=_speaker(word.speaker),
        logprob=0.0,
        characters=characters,
    )


def _stt_words(words: list[SttWord], granularity: str) -> list[ElevenLabsSpeechToTextWord]:
    """The words, with a `spacing` entry between each two (the time between them)."""
    out: list[ElevenLabsSpeechToTextWord] = []
    for index, word in enumerate(words):
        if index:
            before = words[index - 1]
            timed = granularity != "none"
            out.append(
                ElevenLabsSpeechToTextWord(
                    text=" ",
                    start=_seconds(before.end_ms) if timed else None,
                    end=_seconds(max(before.end_ms, word.start_ms)) if timed else None,
                    type="spacing",
                    speaker_id=_speaker(before.speaker),
                    logprob=0.0,
                )
            )
        out.append(_stt_word(word, granularity))
    return out


async def transcribe(
    db: Database,
    settings: Settings,
    principal: Principal,
    form: ElevenLabsSpeechToTextForm,
    file: UploadFile | None,
) -> ElevenLabsSpeechToTextChunk:
    urls = [u for u in (form.source_url, form.cloud_storage_url) if u is not None]
    if len(urls) + (file is not None) > 1:
        raise InvalidField(
            "file: Send one of `file`, `source_url` and `cloud_storage_url`, not several.",
            param="file",
        )
    if file is None and not urls:
        raise ParameterMissing(
            "file: Send the audio as `file` (or its URL as `source_url`).", param="file"
        )
    url = urls[0] if urls else None
    if file is not None:
        url = await kept_upload(db, settings, principal, file, param="file")
    request = native_request(
        SttRequest,
        {
            "audio_url": url,
            "language": form.language_code or stt.AUTO,
            "diarize": form.diarize,
            # Words are always asked for: the answer lists them even without times.
            "timestamps": True,
            "num_speakers": form.num_speakers if form.diarize else None,
        },
        {"audio_url": "source_url" if file is None else "file", "language": "language_code"},
    )
    answer = await stt.transcribe(db, settings, principal, request)
    return ElevenLabsSpeechToTextChunk(
        language_code=_iso639_3(answer.language),
        language_probability=answer.language_probability
        if answer.language_probability is not None
        else 1.0,
        text=answer.transcript,
        words=_stt_words(answer.words, form.timestamps_granularity),
        transcription_id=answer.job_id,
        audio_duration_secs=_seconds(answer.duration_ms),
    )


# Audio answered as bytes: sound generation, isolation, speech to speech.


@dataclass(frozen=True)
class AudioFile:
    response: Response


async def _file(
    db: Database, settings: Settings, principal: Principal, url: str, content_type: str
) -> AudioFile:
    return AudioFile(await output_response(db, settings, principal, url, content_type))


async def generate_sound(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: ElevenLabsSoundGenerationBody,
    output_format: str,
) -> AudioFile:
    encoding = encodings.encoding(output_format)
    seconds = DEFAULT_SOUND_SECONDS
    if body.duration_seconds is not None:
        # Whole seconds, the nearest (halves up), at least 1.
        seconds = max(1, math.floor(body.duration_seconds + 0.5))
    request = native_request(
        SoundRequest,
        {"prompt": body.text, "duration_seconds": seconds},
        {"prompt": "text"},
    )
    answer = await sound.generate(db, settings, principal, request, encoding=encoding.name)
    url = shown_url(answer.output_url)
    return await _file(db, settings, principal, url, encoding.content_type)


async def isolate(
    db: Database, settings: Settings, principal: Principal, audio: UploadFile
) -> AudioFile:
    url = await kept_upload(db, settings, principal, audio, param="audio")
    request = native_request(IsolationRequest, {"audio_url": url, "format": "mp3"}, {})
    answer = await isolator.isolate(db, settings, principal, request)
    return await _file(db, settings, principal, shown_url(answer.vocals_url), CONTENT_TYPES["mp3"])


async def change_voice(
    db: Database,
    settings: Settings,
    principal: Principal,
    voice_id: str,
    audio: UploadFile,
    *,
    remove_background_noise: bool,
    output_format: str,
) -> AudioFile:
    catalog_voice, _pitch = elevenlabs_voice(voice_id)  # the voice changer takes no pitch

    def check_voice() -> None:  # before the upload is kept
        with db.read_session() as session:
            voices.get_active_voice(session, catalog_voice)

    await run_in_threadpool(check_voice)
    encoding = encodings.encoding(output_format)
    url = await kept_upload(db, settings, principal, audio, param="audio")
    request = native_request(
        VoiceChangerRequest,
        {
            "audio_url": url,
            "voice_id": catalog_voice,
            "remove_background_noise": remove_background_noise,
        },
        {"audio_url": "audio"},
    )
    answer = await voice_changer.change_voice(
        db, settings, principal, request, encoding=encoding.name
    )
    url = shown_url(answer.output_url)
    return await _file(db, settings, principal, url, encoding.content_type)
