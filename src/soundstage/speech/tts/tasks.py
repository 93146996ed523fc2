"""The text-to-speech job: sentence by sentence through the voice's engine, joined with
natural pauses, time-stretched and pitch-shifted when asked, encoded, stored. A streamed job
also hands each sentence to the listener as soon as it is encoded."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from soundstage.engines import dsp
from soundstage.engines.tts.frontend import reading as frontend
from soundstage.engines.tts.frontend.script import Script
from soundstage.engines.tts.registry import get_engine
from soundstage.jobs import handlers
from soundstage.jobs.handlers import JobContext, JobOutcome
from soundstage.jobs.payloads import JobRequest
from soundstage.media import encodings
from soundstage.media.audio import Audio, EncodeFormat
from soundstage.media.encodings import Encoding
from soundstage.realtime.live import register_lost_kind
from soundstage.speech.tts import dialogue, scripted
from soundstage.speech.tts.schemas import TimedWord, TtsResult
from soundstage.speech.tts.speaking import (
    CONTENT_NAMES,
    DictionaryRule,
    Reading,
    aligned_words,
    paid_through,
    stream_parts,
)

KIND = "tts"
# A realtime session's job (GET /api/v1/speech/tts/realtime): its API process runs it and
# ends it; a worker only ever gets one whose API process died, and fails it uncharged.
REALTIME_KIND = "tts_realtime"
# Of the job's progress: synthesis up to here, then alignment (if asked) and encoding.
_SYNTHESIS_SHARE = 0.8


class TtsJob(JobRequest):
    """The job's request: the endpoint's TtsRequest, with the voice resolved to its engine's
    voice and language, its dictionaries to their rules, and whether the audio is
    streamed."""

    text: str
    format: EncodeFormat
    speed: float
    pitch: int
    timestamps: bool = False
    # The catalog voice asked for (the history's filter); `engine_voice` is what is read.
    voice_id: str | None = None
    engine: str
    engine_voice: str
    language: str | None = None
    stream: bool = False
    apply_text_normalization: Literal["auto", "on", "off"] = "auto"
    rules: list[DictionaryRule] = []
    # The streamed bytes' encoding (a media.encodings name), for the compatible APIs; the
    # stored file stays in `format`. None: the stream is in `format` too.
    encoding: encodings.EncodingName | None = None

    @property
    def stream_encoding(self) -> EncodeFormat | Encoding:
        return self.format if self.encoding is None else encodings.encoding(self.encoding)


def script_of(request: TtsJob) -> Script:
    """What the job reads: the front end's script of its text."""
    return frontend.script(
        request.text,
        request.language or "en",
        normalization=request.apply_text_normalization,
        rules=[rule.rule() for rule in request.rules],
    )


def _spoken_pieces(
    ctx: JobContext[TtsJob], reading: Reading, pieces: list[scripted.ScriptPiece]
) -> Iterator[Audio]:
    """Each piece spoken, faded and followed by its pause, at the engine's rate but not yet
    stretched or shifted by the request's speed and pitch."""
    spoken = scripted.spoken_pieces(
        reading.engine, reading.voice, pieces, speed=reading.speed, native_rate=reading.native_rate
    )
    for index, clip in enumerate(spoken):
        yield clip
        ctx.progress(_SYNTHESIS_SHARE * (index + 1) / len(pieces), "synthesizing")


def _read_whole(
    ctx: JobContext[TtsJob], reading: Reading, pieces: list[scripted.ScriptPiece]
) -> Audio:
    audio = dsp.concatenate(list(_spoken_pieces(ctx, reading, pieces)))
    # One Rubber Band pass over the whole reading: better than one per sentence.
    return dsp.stretch_and_shift(audio, time_ratio=reading.stretch, semitones=reading.pitch)


def _read_streaming(
    ctx: JobContext[TtsJob],
    reading: Reading,
    pieces: list[scripted.ScriptPiece],
    fmt: EncodeFormat | Encoding,
    price: int,
) -> Audio:
    parts = (
        dsp.stretch_and_shift(spoken, time_ratio=reading.stretch, semitones=reading.pitch)
        for spoken in _spoken_pieces(ctx, reading, pieces)
    )
    return stream_parts(ctx, parts, paid_through(pieces, price), fmt)


def synthesize_speech(ctx: JobContext[TtsJob]) -> JobOutcome[TtsResult]:
    request = ctx.request
    reading = Reading(
        engine=get_engine(request.engine),
        voice=request.engine_voice,
        speed=request.speed,
        pitch=request.pitch,
    )
    fmt = request.format
    script = script_of(request)
    pieces = scripted.pieces(script, request.text)
    characters = frontend.billed_characters(request.text, [rule.rule() for rule in request.rules])
    if request.stream:
        audio = _read_streaming(ctx, reading, pieces, request.stream_encoding, characters)
    else:
        audio = _read_whole(ctx, reading, pieces)
    words: list[TimedWord] | None = None
    if request.timestamps:
        ctx.progress(_SYNTHESIS_SHARE, "aligning")
        words = aligned_words(request.text, request.language, script, audio)
    ctx.progress(0.95, "encoding")
    output, duration_ms = ctx.save_audio(audio, CONTENT_NAMES[fmt], fmt)
    result = TtsResult(output_url=output, duration_ms=duration_ms, characters_processed=characters)
    if words is not None:
        result.words = words
    return JobOutcome(result, credits_used=characters)


def register() -> None:
    """Declare this feature's job kinds (called by the composition root, soundstage.app_tasks)."""
    register_lost_kind(REALTIME_KIND)
    handlers.declare(KIND, synthesize_speech, request=TtsJob, result=TtsResult)
    dialogue.register()
