"""Reading a front-end script (engines.tts.frontend) aloud: its spans grouped into the pieces
an engine speaks at once, each piece spoken with its own prosody, the pauses as silence, and
the words as written placed on the times of the words spoken for them.

Pieces end where plain text's would (engines.tts.text: sentences, paragraphs, clauses of an
overlong sentence, at most MAX_PIECE_CHARACTERS spoken), at every pause of the script (SSML
<break>, <p>, <s>), and where the prosody changes (<prosody>, <emphasis>). Around a script's
pause and a change of prosody the engine's own leading and trailing silence is cut, so that a
<break time="700ms"/> is 700 ms of silence between the words, and an emphasized word is not
set apart by the engine's padding.

<emphasis>: there is no engine control for it, so it is read slower and louder (strong: 15%
slower, +3 dB; moderate: 8% slower, +1.5 dB; reduced: 10% faster, -3 dB). <prosody rate>
goes to the engine's own rate where it has one (Rubber Band stretches the rest), <prosody
pitch> to Rubber Band."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Final

import numpy as np

from soundstage.engines import dsp
from soundstage.engines.errors import SynthesisFailed
from soundstage.engines.tts import text as text_pieces
from soundstage.engines.tts.base import Part, Phonemes, SpeechSynthesizer, honours_phonemes
from soundstage.engines.tts.frontend import reading
from soundstage.engines.tts.frontend.script import Emphasis, Pause, Script, Span
from soundstage.media.audio import Audio

# (rate, gain in dB) of each emphasis level.
EMPHASIS: Final[dict[Emphasis, tuple[float, float]]] = {
    "strong": (0.85, 3.0),
    "moderate": (0.92, 1.5),
    "reduced": (1.1, -3.0),
}
# Between two pieces read differently (a change of prosody), once their edges are cut.
PROSODY_JOIN_MS: Final = 40
# The engines' edge silence: 10 ms frames below -40 dB of the clip's loudest, kept 15 ms.
_FRAME_MS: Final = 10
_SILENCE_DB: Final = -40.0
_EDGE_MS: Final = 15
_ENGINE_RATES: Final = (0.5, 2.0)


@dataclass(frozen=True)
class ScriptPiece:
    """Spans an engine reads at once, and the silence after them."""

    spans: tuple[Span, ...]
    pause_after_ms: int
    # The pause after is the script's (exact: the engine's trailing silence is cut), not the
    # reader's natural one.
    exact_after: bool = False
    exact_before: bool = False
    # Silence before the piece (a script that starts with a pause), exact.
    pause_before_ms: int = 0

    @property
    def text(self) -> str:
        return reading.spoken_text(self.spans)

    @property
    def rate(self) -> float:
        span = self.spans[0]
        return span.rate * (EMPHASIS[span.emphasis][0] if span.emphasis else 1.0)

    @property
    def pitch(self) -> float:
        return self.spans[0].pitch

    @property
    def gain_db(self) -> float:
        emphasis = self.spans[0].emphasis
        return EMPHASIS[emphasis][1] if emphasis else 0.0


def _voice(span: Span) -> tuple[float, float, Emphasis | None]:
    return span.rate, span.pitch, span.emphasis


def _ends_sentence(words: str) -> bool:
    words = words.rstrip()
    if not words:
        return False
    if words[-1] in "\u3002\uff01\uff1f":
        return True
    return any(end == len(words) for end, _ in text_pieces.sentence_ends(words + " "))


def pieces(script: Script, text: str) -> list[ScriptPiece]:
    """The script's pieces, in order (`text`: the request's, whose paragraph breaks between
    two spans give the paragraph pause); the last one has no pause after it unless the
    script asks for one."""
    out: list[ScriptPiece] = []
    current: list[Span] = []
    leading = 0
    exact_before = False
    items = [item for item in script if not isinstance(item, Span) or item.spoken or item.phonemes]
    for index, item in enumerate(items):
        if isinstance(item, Pause):
            if current:
                out.append(ScriptPiece(tuple(current), item.ms, True, exact_before))
                current = []
            elif out:
                last = out[-1]
                kept = last.pause_after_ms if last.exact_after else 0
                out[-1] = replace(last, pause_after_ms=kept + item.ms, exact_after=True)
            else:
                leading += item.ms
            exact_before = True
            continue
        if current and _voice(item) != _voice(current[-1]):
            out.append(ScriptPiece(tuple(current), PROSODY_JOIN_MS, True, exact_before))
            current, exact_before = [], True
        length = len(reading.spoken_text([*current, item]))
        if current and length > text_pieces.MAX_PIECE_CHARACTERS:
            pause = text_pieces.PAUSE_AFTER_CLAUSE_MS
            out.append(ScriptPiece(tuple(current), pause, False, exact_before))
            current, exact_before = [], False
        current.append(item)
        written = text[item.start : item.end]
        if _ends_sentence(item.spoken) or ("<" not in written and _ends_sentence(written)):
            following = next((i for i in items[index + 1 :] if isinstance(i, Span)), None)
            between = text[item.end : following.start] if following else ""
            pause = (
                text_pieces.PAUSE_AFTER_PARAGRAPH_MS
                if text_pieces.PARAGRAPH_BREAK.search(between)
                else text_pieces.PAUSE_AFTER_SENTENCE_MS
            )
            out.append(ScriptPiece(tuple(current), pause, False, exact_before))
            current, exact_before = [], False
    if current:
        out.append(ScriptPiece(tuple(current), 0, False, exact_before))
    if out and not out[-1].exact_after:
        out[-1] = replace(out[-1], pause_after_ms=0)
    if out and leading:
        out[0] = replace(out[0], pause_before_ms=leading, exact_before=True)
    return out


def _engine_parts(piece: ScriptPiece, engine: SpeechSynthesizer) -> str | list[Part]:
    """What the engine is given for a piece: its spoken words, with a span that has
    `phonemes` as Phonemes(ipa, its words) when the engine honours phonemes."""
    if not honours_phonemes(engine) or all(span.phonemes is None for span in piece.spans):
        return piece.text
    parts: list[Part] = []
    for span in piece.spans:
        if span.phonemes is not None:
            parts.append(Phonemes(ipa=span.phonemes, text=span.spoken))
        elif span.spoken:
            parts.append(span.spoken)
    return parts


def speak(
    engine: SpeechSynthesizer, voice: str, piece: ScriptPiece, *, speed: float, native_rate: float
) -> Audio:
    """A piece spoken and followed by its pause (preceded by its leading one), at the
    reading's `native_rate` (times the piece's own rate) but not yet stretched by what the
    reading's `speed` leaves to Rubber Band (native_rate / speed) or shifted by its pitch."""
    wanted = native_rate * piece.rate
    engine_rate = (
        min(max(wanted, _ENGINE_RATES[0]), _ENGINE_RATES[1]) if engine.supports_rate else 1.0
    )
    clip = engine.synthesize(_engine_parts(piece, engine), voice, rate=engine_rate)
    if abs(engine_rate / wanted - 1) > 1e-3 or piece.pitch:
        clip = dsp.stretch_and_shift(clip, time_ratio=engine_rate / wanted, semitones=piece.pitch)
    clip = _trimmed(clip, start=piece.exact_before, end=piece.exact_after)
    if piece.gain_db:
        clip = _louder(clip, piece.gain_db)
    # Natural pauses follow the speed (a faster reading is faster throughout); a script's
    # pause lasts what it says once the whole reading is stretched.
    scale = speed / native_rate if piece.exact_after else 1 / native_rate
    audio = dsp.join([clip], [round(piece.pause_after_ms * scale)])
    if piece.pause_before_ms:
        silence = np.zeros(
            (
                round(piece.pause_before_ms * speed / native_rate * clip.sample_rate / 1000),
                audio.channels,
            ),
            dtype=np.float32,
        )
        audio = Audio(np.concatenate([silence, audio.samples]), audio.sample_rate)
    return audio


def _louder(clip: Audio, gain_db: float) -> Audio:
    peak = float(np.max(np.abs(clip.samples))) or 1.0
    gain = min(10 ** (gain_db / 20), 0.99 / peak)
    return Audio(np.ascontiguousarray(clip.samples * gain, dtype=np.float32), clip.sample_rate)


def _trimmed(audio: Audio, *, start: bool, end: bool) -> Audio:
    """The clip without the engine's silence at its start and/or end."""
    if not (start or end):
        return audio
    frame = max(1, audio.sample_rate * _FRAME_MS // 1000)
    count = audio.frames // frame
    if count == 0:
        return audio
    mono = audio.samples[: count * frame].mean(axis=1).reshape(count, frame)
    rms = np.sqrt(np.mean(np.square(mono, dtype=np.float64), axis=1))
    loud = np.nonzero(rms > rms.max() * 10 ** (_SILENCE_DB / 20))[0]
    if loud.size == 0:
        return audio
    edge = audio.sample_rate * _EDGE_MS // 1000
    first = max(0, int(loud[0]) * frame - edge) if start else 0
    last = min(audio.frames, (int(loud[-1]) + 1) * frame + edge) if end else audio.frames
    return Audio(np.ascontiguousarray(audio.samples[first:last]), audio.sample_rate)


def spoken_pieces(
    engine: SpeechSynthesizer,
    voice: str,
    script_pieces: Sequence[ScriptPiece],
    *,
    speed: float,
    native_rate: float,
) -> Iterator[Audio]:
    if not script_pieces:
        raise SynthesisFailed("The text contains nothing to say.", param="text")
    for piece in script_pieces:
        yield speak(engine, voice, piece, speed=speed, native_rate=native_rate)


@dataclass(frozen=True)
class WordTime:
    word: str
    start_ms: int
    end_ms: int


def written_word_times(
    text: str, script: Script, spoken_times: Sequence[tuple[int, int]]
) -> list[WordTime]:
    """Each word of the text as written (reading.written_words) with the union of the times
    of the words spoken for it: `spoken_times[i]` is the i-th word of the script's spoken
    text (reading.spoken_text of its spans, split at white space). A written word nothing is
    spoken for (a lone "-") gets an empty time where the word before it ends."""
    spans = [item for item in script if isinstance(item, Span) and item.spoken]
    span_times: list[tuple[int, int] | None] = []
    index = 0
    for span in spans:
        count = len(span.spoken.split())
        times = spoken_times[index : index + count]
        index += count
        span_times.append((min(t[0] for t in times), max(t[1] for t in times)) if times else None)
    words: list[WordTime] = []
    cursor = 0
    for word in reading.written_words(text):
        covered = [
            times
            for span, times in zip(spans, span_times, strict=True)
            if times is not None and span.start < word.end and span.end > word.start
        ]
        if covered:
            start, end = min(t[0] for t in covered), max(t[1] for t in covered)
        else:
            start = end = cursor
        words.append(WordTime(word.word, start, end))
        cursor = max(cursor, end)
    return words
