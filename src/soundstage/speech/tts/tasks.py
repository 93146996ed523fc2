"""The text-to-speech job: sentence by sentence through the voice's engine, joined with
natural pauses, time-stretched and pitch-shifted when asked, encoded, stored."""

from __future__ import annotations

from typing import Any

from soundstage.core.audio import encode
from soundstage.jobs.handlers import JobContext, JobOutcome, register
from soundstage.speech import dsp
from soundstage.speech.engines.registry import get_engine
from soundstage.speech.tts import text as text_pieces
from soundstage.storage import service as storage

KIND = "tts"
CONTENT_NAMES = {"mp3": "speech.mp3", "wav": "speech.wav", "flac": "speech.flac"}


@register(KIND)
def synthesize_speech(ctx: JobContext) -> JobOutcome:
    request: dict[str, Any] = ctx.request
    engine = get_engine(request["engine"])
    speed, pitch = float(request["speed"]), int(request["pitch"])
    native_rate = speed if engine.supports_rate else 1.0
    pieces = text_pieces.split(request["text"])
    clips = []
    for index, piece in enumerate(pieces):
        clips.append(engine.synthesize(piece.text, request["engine_voice"], rate=native_rate))
        ctx.progress(0.85 * (index + 1) / len(pieces), "synthesizing")
    # Pauses follow the speed too, so a faster reading is faster throughout.
    pauses = [round(piece.pause_after_ms / native_rate) for piece in pieces]
    audio = dsp.join(clips, pauses)
    audio = dsp.stretch_and_shift(audio, time_ratio=native_rate / speed, semitones=pitch)
    ctx.progress(0.9, "encoding")
    fmt = request["format"]
    path = ctx.workdir / CONTENT_NAMES[fmt]
    encoded = encode(audio, path, fmt)
    with ctx.db.session() as session:
        media = storage.save(
            session,
            ctx.settings,
            ctx.principal,
            path,
            filename=CONTENT_NAMES[fmt],
            content_type=encoded.content_type,
            duration_ms=encoded.duration_ms,
            purpose="output",
            job_id=ctx.job_id,
        )
        output = storage.media_ref(media)
    characters = len(request["text"])
    result = {
        "output_url": output,
        "duration_ms": encoded.duration_ms,
        "characters_processed": characters,
    }
    return JobOutcome(result, credits_used=characters)
