"""ElevenLabs' text to dialogue onto the native dialogue (speech.tts): each input's voice is
the catalog voice that reads it (an ElevenLabs premade id included), the audio streamed by
the native job in the exact `output_format` encoding, WAV sent whole with its sizes."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.concurrency import run_in_threadpool

from soundstage.compat.elevenlabs.dialogue.schemas import (
    ElevenLabsDialogueBody,
    ElevenLabsDialogueChunk,
    ElevenLabsDialogueWithTimestamps,
    ElevenLabsVoiceSegment,
)
from soundstage.compat.elevenlabs.schemas import ElevenLabsCharacterAlignment, native_request
from soundstage.compat.elevenlabs.service import Speech, once, whole
from soundstage.compat.voice_aliases import elevenlabs_voice
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.jobs import service as jobs
from soundstage.media import encodings
from soundstage.media.audio import finalize
from soundstage.speech.character_times import WordSpan, character_times
from soundstage.speech.tts import service as tts
from soundstage.speech.tts.schemas import DialogueRequest, DialogueResult


def _native(body: ElevenLabsDialogueBody, *, timestamps: bool) -> DialogueRequest:
    inputs: list[dict[str, Any]] = []
    for turn in body.inputs:
        voice, pitch = elevenlabs_voice(turn.voice_id)
        inputs.append({"text": turn.text, "voice_id": voice, "pitch": pitch})
    fields: dict[str, Any] = {
        "inputs": inputs,
        "timestamps": timestamps,
        "pronunciation_dictionary_locators": body.dictionary_locators(),
    }
    if body.apply_text_normalization is not None:
        fields["apply_text_normalization"] = body.apply_text_normalization
    return native_request(DialogueRequest, fields, {})


async def _speak(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: ElevenLabsDialogueBody,
    output_format: str,
    *,
    timestamps: bool,
) -> tuple[tts.SpeechStream, encodings.Encoding]:
    encoding = encodings.encoding(output_format)
    speech = await tts.stream_dialogue(
        db, settings, principal, _native(body, timestamps=timestamps), encoding=encoding.name
    )
    return speech, encoding


async def convert(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: ElevenLabsDialogueBody,
    output_format: str,
) -> Speech:
    """The dialogue in `output_format`, relayed as it is made; WAV whole, with its sizes."""
    speech, encoding = await _speak(db, settings, principal, body, output_format, timestamps=False)
    chunks = speech.body()
    if encoding.container == "wav":
        chunks = once(finalize(encoding, await whole(chunks)))
    return Speech(speech.job_id, speech.content_type, chunks)


def _timed(
    body: ElevenLabsDialogueBody, result: DialogueResult
) -> ElevenLabsDialogueWithTimestamps:
    """Every input's characters on the times of its words (speech.character_times), the
    inputs one after the other, and each input's segment."""
    characters: list[str] = []
    starts: list[float] = []
    ends: list[float] = []
    segments: list[ElevenLabsVoiceSegment] = []
    words = result.words or []
    for index, (turn, time) in enumerate(zip(body.inputs, result.turns, strict=True)):
        spans = [
            WordSpan(word.start_ms - time.start_ms, word.end_ms - time.start_ms)
            for word in words
            if word.turn == index
        ]
        times = character_times(turn.text, spans, time.end_ms - time.start_ms)
        offset = time.start_ms / 1000
        segments.append(
            ElevenLabsVoiceSegment(
                voice_id=turn.voice_id,
                start_time_seconds=offset,
                end_time_seconds=time.end_ms / 1000,
                character_start_index=len(characters),
                character_end_index=len(characters) + len(times.characters),
                dialogue_input_index=index,
            )
        )
        characters += times.characters
        starts += [round(offset + start, 3) for start in times.starts]
        ends += [round(offset + end, 3) for end in times.ends]
    alignment = ElevenLabsCharacterAlignment(
        characters=characters,
        character_start_times_seconds=starts,
        character_end_times_seconds=ends,
    )
    return ElevenLabsDialogueWithTimestamps(
        audio_base64="",
        alignment=alignment,
        normalized_alignment=alignment,
        voice_segments=segments,
    )


async def _timed_result(
    db: Database, settings: Settings, body: ElevenLabsDialogueBody, job_id: str
) -> ElevenLabsDialogueWithTimestamps:
    """Once the job's audio has been relayed: wait for its words, and time the characters."""
    job = await jobs.wait(db, settings, job_id)
    job = await run_in_threadpool(jobs.raise_for_failure, db, job)
    return _timed(body, DialogueResult.model_validate(job.result or {}))


async def convert_with_timestamps(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: ElevenLabsDialogueBody,
    output_format: str,
) -> ElevenLabsDialogueWithTimestamps:
    """The audio (base64), when each character is spoken and where each input's voice is."""
    speech, encoding = await _speak(db, settings, principal, body, output_format, timestamps=True)
    audio = finalize(encoding, await whole(speech.body()))
    answer = await _timed_result(db, settings, body, speech.job_id)
    answer.audio_base64 = base64.b64encode(audio).decode("ascii")
    return answer


def _line(chunk: ElevenLabsDialogueChunk) -> bytes:
    return json.dumps(chunk.model_dump(), separators=(",", ":")).encode() + b"\n"


async def stream_with_timestamps(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: ElevenLabsDialogueBody,
    output_format: str,
) -> Speech:
    """One JSON object a line: each piece of audio as it is made (no alignment, no
    segments), then, once the words are aligned, a last line with no audio, the alignment
    and the voice segments of the whole dialogue."""
    speech, _encoding = await _speak(db, settings, principal, body, output_format, timestamps=True)

    async def lines() -> AsyncIterator[bytes]:
        async for audio in speech.body():
            encoded = base64.b64encode(audio).decode("ascii")
            yield _line(
                ElevenLabsDialogueChunk(
                    audio_base64=encoded,
                    alignment=None,
                    normalized_alignment=None,
                    voice_segments=[],
                )
            )
        timed = await _timed_result(db, settings, body, speech.job_id)
        yield _line(
            ElevenLabsDialogueChunk(
                audio_base64="",
                alignment=timed.alignment,
                normalized_alignment=timed.normalized_alignment,
                voice_segments=timed.voice_segments,
            )
        )

    return Speech(speech.job_id, "application/x-ndjson", lines())
