"""The text-to-speech job: sentence by sentence through the voice's engine, joined with
natural pauses, time-stretched and pitch-shifted when asked, encoded, stored. A streamed job
also hands each sentence to the listener as soon as it is encoded."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel

from soundstage.engines import dsp
from soundstage.engines.tts.base import SpeechSynthesizer
from soundstage.engines.tts.frontend import reading as frontend
from soundstage.engines.tts.frontend.script import Rule, Script, Span
from soundstage.engines.tts.registry import get_engine
from soundstage.jobs import handlers, streams
from soundstage.jobs.handlers import JobContext, JobOutcome
from soundstage.jobs.payloads import JobRequest
from soundstage.media import encodings
from soundstage.media.audio import Audio, EncodeFormat, StreamEncoder
from soundstage.media.encodings import Encoding
from soundstage.realtime.live import register_lost_kind
from soundstage.speech.tts import scripted
from soundstage.speech.tts.schemas import TimedWord, TtsResult

KIND = "tts"
# A realtime session's job (GET /api/v1/speech/tts/realtime): its API process runs it and
# ends it; a worker only ever gets one whose API process died, and fails it uncharged.
REALTIME_KIND = "tts_realtime"
CONTENT_NAMES = {"mp3": "speech.mp3", "wav": "speech.wav", "flac": "speech.flac"}
# The rates an engine is asked to speak at (any speed outside is finished by Rubber Band).
NATIVE_RATE_RANGE: Final = (0.5, 2.0)
# Of the job's progress: synthesis up to here, then alignment (if asked) and encoding.
_SYNTHESIS_SHARE = 0.8


class DictionaryRule(BaseModel):
    """A pronunciation-dictionary rule, as resolved when the job was submitted (a job reads
    the dictionary versions it was asked for, whatever happens to them after)."""

    grapheme: str
    alias: str | None = None
    phoneme: str | None = None
    case_sensitive: bool = True

    def rule(self) -> Rule:
        return Rule(self.grapheme, self.alias, self.phoneme, self.case_sensitive)


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


@dataclass(frozen=True)
class Reading:
    """How to read the text: the engine and voice, the speed and the pitch shift."""

    engine: SpeechSynthesizer
    voice: str
    speed: float
    pitch: int

    @property
    def native_rate(self) -> float:
        """The engine's own rate: the speed, within the range engines are used at (the
        native API's 0.5 to 2.0); Rubber Band does the rest of a wider speed (the
        OpenAI-compatible API's 0.25 to 4.0)."""
        if not self.engine.supports_rate:
            return 1.0
        return min(max(self.speed, NATIVE_RATE_RANGE[0]), NATIVE_RATE_RANGE[1])

    @property
    def stretch(self) -> float:
        """What is left for Rubber Band after the engine's own rate."""
        return self.native_rate / self.speed


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


def stream_parts(
    ctx: JobContext[Any], parts: Iterator[Audio], paid: list[int], fmt: EncodeFormat | Encoding
) -> Audio:
    """Stream each part (of the same rate and channels) as it comes, paid for before the
    client can read it: the job records what the parts released so far cost
    (`ctx.charge_at_least(paid[i])`) and only then hands the part's bytes over, so a client
    that hangs up pays for what it was sent. The last part (`len(paid)` in all) is released
    with the charge of the whole price (`ctx.charge_now(paid[-1])`). The parts joined."""
    with streams.open_for_writing(ctx.settings, ctx.job_id) as out:
        out.hold()
        encoder: StreamEncoder | None = None
        done: list[Audio] = []
        for index, part in enumerate(parts):
            if encoder is None:
                encoder = StreamEncoder(out, fmt, part.sample_rate, part.channels)
            encoder.write(part)
            done.append(part)
            if index < len(paid) - 1:
                ctx.charge_at_least(paid[index])
                out.release()
        assert encoder is not None  # the script gives at least one piece
        encoder.close()
        ctx.charge_now(paid[-1])
        out.complete()
    return dsp.concatenate(done)


def paid_through(pieces: list[scripted.ScriptPiece], price: int) -> list[int]:
    """What the audio of pieces[0..i] costs, for each i: the price shared by the pieces'
    spoken characters (the words an engine reads: a measure of their length in audio),
    rounded up; the last is the whole price."""
    lengths = [max(len(piece.text), 1) for piece in pieces]
    total, running, paid = sum(lengths), 0, []
    for length in lengths:
        running += length
        paid.append(-(-price * running // total))
    return paid


def aligned_words(text: str, language: str | None, script: Script, audio: Audio) -> list[TimedWord]:
    """The words of `text` as written, each on the times of the words spoken for it (the
    script is the front end's of `text`)."""
    # Imported here: the recognizer (CTranslate2) loads only for jobs that ask for words.
    from soundstage.engines.transcribers.align import align_words

    spans = [item for item in script if isinstance(item, Span)]
    aligned = align_words(audio, frontend.spoken_text(spans), language=language)
    times = [(word.start_ms, word.end_ms) for word in aligned]
    return [
        TimedWord(word=word.word, start_ms=word.start_ms, end_ms=word.end_ms)
        for word in scripted.written_word_times(text, script, times)
    ]


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
