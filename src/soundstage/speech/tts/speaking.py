"""What reading a text aloud takes, shared by the text-to-speech and dialogue jobs and the
realtime sessions: the engine and how it reads (speed, pitch), the dictionary rules a job was
given, streaming the audio paid for piece by piece, and the words placed on the audio."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel

from soundstage.engines import dsp
from soundstage.engines.tts.base import SpeechSynthesizer
from soundstage.engines.tts.frontend import reading as frontend
from soundstage.engines.tts.frontend.script import Rule, Script, Span
from soundstage.jobs import streams
from soundstage.jobs.handlers import JobContext
from soundstage.media.audio import Audio, EncodeFormat, StreamEncoder
from soundstage.media.encodings import Encoding
from soundstage.speech.tts import scripted
from soundstage.speech.tts.schemas import TimedWord

CONTENT_NAMES = {"mp3": "speech.mp3", "wav": "speech.wav", "flac": "speech.flac"}
# The rates an engine is asked to speak at (any speed outside is finished by Rubber Band).
NATIVE_RATE_RANGE: Final = (0.5, 2.0)


class DictionaryRule(BaseModel):
    """A pronunciation-dictionary rule, as resolved when the job was submitted (a job reads
    the dictionary versions it was asked for, whatever happens to them after)."""

    grapheme: str
    alias: str | None = None
    phoneme: str | None = None
    case_sensitive: bool = True

    def rule(self) -> Rule:
        return Rule(self.grapheme, self.alias, self.phoneme, self.case_sensitive)


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
