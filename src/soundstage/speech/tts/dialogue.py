"""The dialogue job: several turns, each read by its own catalog voice (at its own speed and
pitch) as a text-to-speech job reads its text, joined with a set pause between turns into
one file at one rate; streamed turn by turn, sentence by sentence, when asked.

Each turn's engine silence is cut at its start and end, so that a turn's `start_ms` and
`end_ms` are where its voice starts and stops and the gap between two turns is the request's
`pause_ms` exactly (what a script's own <break> at the end of a turn adds, comes on top)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Final, Literal

from pydantic import BaseModel

from soundstage.engines import dsp
from soundstage.engines.errors import SynthesisFailed
from soundstage.engines.tts.frontend import reading as frontend
from soundstage.engines.tts.frontend.script import Script
from soundstage.engines.tts.registry import get_engine
from soundstage.jobs import handlers
from soundstage.jobs.handlers import JobContext, JobOutcome
from soundstage.jobs.payloads import JobRequest
from soundstage.media import encodings
from soundstage.media.audio import Audio, EncodeFormat
from soundstage.media.encodings import Encoding
from soundstage.speech.tts import scripted
from soundstage.speech.tts.schemas import (
    DEFAULT_PAUSE_MS,
    DialogueResult,
    DialogueTurnTime,
    DialogueWord,
)
from soundstage.speech.tts.speaking import (
    CONTENT_NAMES,
    DictionaryRule,
    Reading,
    aligned_words,
    paid_through,
    stream_parts,
)

KIND = "dialogue"
# Every turn is brought to this rate, the highest of the catalog's engines (Kokoro's): no
# voice loses anything, and one file has one rate.
SAMPLE_RATE: Final = 24_000
# Of the job's progress: synthesis up to here, then alignment (if asked) and encoding.
_SYNTHESIS_SHARE = 0.8


class DialogueTurnJob(BaseModel):
    """One turn as the job reads it: its text, and its voice resolved to the engine's."""

    text: str
    voice_id: str
    speed: float = 1.0
    pitch: int = 0
    engine: str
    engine_voice: str
    language: str | None = None


class DialogueJob(JobRequest):
    """The job's request: the endpoint's DialogueRequest with each turn's voice resolved and
    the dictionaries to their rules (which apply to every turn)."""

    inputs: list[DialogueTurnJob]
    format: EncodeFormat
    pause_ms: int = DEFAULT_PAUSE_MS
    timestamps: bool = False
    stream: bool = False
    apply_text_normalization: Literal["auto", "on", "off"] = "auto"
    rules: list[DictionaryRule] = []
    # The streamed bytes' encoding (a media.encodings name), for the compatible APIs; the
    # stored file stays in `format`.
    encoding: encodings.EncodingName | None = None

    @property
    def stream_encoding(self) -> EncodeFormat | Encoding:
        return self.format if self.encoding is None else encodings.encoding(self.encoding)


@dataclass(frozen=True)
class _Turn:
    """A turn ready to read: how, its script, and the pieces its engine speaks."""

    turn: DialogueTurnJob
    reading: Reading
    script: Script
    pieces: list[scripted.ScriptPiece]
    # The silence that ends its audio: its script's own closing break, then the gap.
    pause_after_ms: int


def _prepared(request: DialogueJob) -> list[_Turn]:
    rules = [rule.rule() for rule in request.rules]
    prepared: list[_Turn] = []
    for index, turn in enumerate(request.inputs):
        script = frontend.script(
            turn.text,
            turn.language or "en",
            normalization=request.apply_text_normalization,
            rules=rules,
        )
        pieces = scripted.pieces(script, turn.text)
        if not pieces:  # refused at submission; a job stored before is refused here
            raise SynthesisFailed(
                "The turn contains nothing to say.", param=f"inputs[{index}].text"
            )
        # Cut the engine's silence around the turn; the pause after it is the request's.
        pieces[0] = replace(pieces[0], exact_before=True)
        last = pieces[-1]
        trailing = last.pause_after_ms if last.exact_after else 0
        gap = request.pause_ms if index < len(request.inputs) - 1 else 0
        pieces[-1] = replace(last, exact_after=True, pause_after_ms=trailing + gap)
        reading = Reading(get_engine(turn.engine), turn.engine_voice, turn.speed, turn.pitch)
        prepared.append(_Turn(turn, reading, script, pieces, trailing + gap))
    return prepared


def _spoken_parts(ctx: JobContext[DialogueJob], turns: list[_Turn]) -> Iterator[Audio]:
    """Every piece of every turn in order, spoken, stretched and shifted as its turn asks,
    at the dialogue's rate."""
    total = sum(len(turn.pieces) for turn in turns)
    done = 0
    for turn in turns:
        reading = turn.reading
        spoken = scripted.spoken_pieces(
            reading.engine,
            reading.voice,
            turn.pieces,
            speed=reading.speed,
            native_rate=reading.native_rate,
        )
        for clip in spoken:
            part = dsp.stretch_and_shift(clip, time_ratio=reading.stretch, semitones=reading.pitch)
            yield dsp.resample(part, SAMPLE_RATE)
            done += 1
            ctx.progress(_SYNTHESIS_SHARE * done / total, "synthesizing")


def _turn_audio(turns: list[_Turn], parts: list[Audio]) -> list[Audio]:
    """The parts grouped back into their turns."""
    grouped: list[Audio] = []
    start = 0
    for turn in turns:
        grouped.append(dsp.concatenate(parts[start : start + len(turn.pieces)]))
        start += len(turn.pieces)
    return grouped


def _starts(audio: list[Audio]) -> list[int]:
    """Where each turn starts in the whole, in ms."""
    starts, cursor = [], 0
    for clip in audio:
        starts.append(round(cursor * 1000 / SAMPLE_RATE))
        cursor += clip.frames
    return starts


def _spoken(ctx: JobContext[DialogueJob], turns: list[_Turn], price: int) -> list[Audio]:
    """Every part of every turn, streamed as it comes when the request is a stream."""
    parts = _spoken_parts(ctx, turns)
    if not ctx.request.stream:
        return list(parts)
    kept: list[Audio] = []

    def keeping() -> Iterator[Audio]:
        for part in parts:
            kept.append(part)
            yield part

    pieces = [piece for turn in turns for piece in turn.pieces]
    stream_parts(ctx, keeping(), paid_through(pieces, price), ctx.request.stream_encoding)
    return kept


def _turn_words(index: int, turn: _Turn, clip: Audio, time: DialogueTurnTime) -> list[DialogueWord]:
    """The turn's words on the dialogue's time line, held within the turn's voice (the
    recognizer's last word tends to run on into the pause)."""
    aligned = aligned_words(turn.turn.text, turn.turn.language, turn.script, clip)

    def placed(ms: int) -> int:
        return min(time.start_ms + ms, time.end_ms)

    return [
        DialogueWord(
            word=word.word, start_ms=placed(word.start_ms), end_ms=placed(word.end_ms), turn=index
        )
        for word in aligned
    ]


def synthesize_dialogue(ctx: JobContext[DialogueJob]) -> JobOutcome[DialogueResult]:
    request = ctx.request
    turns = _prepared(request)
    rules = [rule.rule() for rule in request.rules]
    characters = sum(frontend.billed_characters(turn.turn.text, rules) for turn in turns)
    turn_audio = _turn_audio(turns, _spoken(ctx, turns, characters))
    starts = _starts(turn_audio)
    times = [
        DialogueTurnTime(
            voice_id=turn.turn.voice_id,
            start_ms=start,
            end_ms=start + max(0, clip.duration_ms - turn.pause_after_ms),
        )
        for turn, clip, start in zip(turns, turn_audio, starts, strict=True)
    ]
    words: list[DialogueWord] | None = None
    if request.timestamps:
        ctx.progress(_SYNTHESIS_SHARE, "aligning")
        words = [
            word
            for index, (turn, clip, time) in enumerate(zip(turns, turn_audio, times, strict=True))
            for word in _turn_words(index, turn, clip, time)
        ]
    ctx.progress(0.95, "encoding")
    fmt = request.format
    output, duration_ms = ctx.save_audio(dsp.concatenate(turn_audio), CONTENT_NAMES[fmt], fmt)
    result = DialogueResult(
        output_url=output,
        duration_ms=duration_ms,
        characters_processed=characters,
        turns=times,
    )
    if words is not None:
        result.words = words
    return JobOutcome(result, credits_used=characters)


def register() -> None:
    """Declare the dialogue job kind (called by this feature's tasks.register)."""
    handlers.declare(KIND, synthesize_dialogue, request=DialogueJob, result=DialogueResult)
