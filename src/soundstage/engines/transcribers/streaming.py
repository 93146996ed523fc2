"""Live speech-to-text: Whisper run again and again on the growing audio of the utterance being
spoken, utterances cut by silero-vad, partial transcripts stabilized by local agreement, final
ones decoded with word timings. Partials are asked of a PartialDecodes (engines.transcribers.
partials), which decodes them at once in this process or together with other sessions'
elsewhere, and collected when they are ready: the stream goes on being heard meanwhile."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final, Protocol, TypeAlias

import numpy as np

from soundstage.config import Settings
from soundstage.engines.speakers.live import LiveSpeakers
from soundstage.engines.speakers.vad import StreamingDetector
from soundstage.engines.transcribers.base import (
    TranscriberUnavailable,
    UnknownModel,
    Word,
    bcp47_language,
    whisper_language,
)
from soundstage.engines.transcribers.partials import (
    HOP,
    LocalPartials,
    PartialDecodes,
    PartialRequest,
    Samples,
)
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.engines.transcribers.whisper import UNSPACED, WhisperTranscriber, merged_words

if TYPE_CHECKING:  # faster-whisper (and CTranslate2) load with the model: not in an API process
    from faster_whisper import WhisperModel

    from soundstage.engines.transcribers.short_encoder import ShortEncoder

logger = logging.getLogger(__name__)

SAMPLE_RATE: Final = 16_000
# The encoder is given at least 15 s for finals (see engines/transcribers/short_encoder.py).
_FINAL_ENCODER_FRAMES: Final = 1500
# Whisper writes about 4 tokens a second of read speech: a decode that writes much more than
# this is looping ("He was not. He was not. ...") and is stopped (a partial is held closer:
# engines.transcribers.partials).
_TOKENS_PER_SECOND: Final = 8
# A greedy partial stuck in a loop inside that budget ("young man. I-I-I-I-I-I-I-I-I") shows
# the loop's first turn only: a text that ends in at least 4 turns of one piece of at most 40
# characters (8 characters or more in all). Speech rarely repeats itself so at the very end of
# what has been heard, and a partial is soon replaced; finals are never trimmed.
_LOOP_TURNS: Final = 4
_LOOP_LONGEST_PIECE: Final = 40
_LOOP_SHORTEST: Final = 8


class DecodeTurns(Protocol):
    """Turns at the cores a recognizer asks before it decodes, where several share them
    (realtime.turns): a final waits for one, a partial decoded here is skipped when none is
    free."""

    def urgent(self) -> AbstractContextManager[None]: ...

    def optional(self) -> AbstractContextManager[bool]: ...


class Unshared:
    """A recognizer alone with its cores: every decode runs at once."""

    def urgent(self) -> AbstractContextManager[None]:
        return nullcontext()

    def optional(self) -> AbstractContextManager[bool]:
        return nullcontext(True)


@dataclass(frozen=True)
class StreamingOptions:
    """How the live audio is cut and decoded; the defaults are calibrated on read speech
    (the LibriVox clips, bench/stt_realtime.py)."""

    # silero-vad cuts utterances; off, only commit() (and max_utterance_ms) does.
    vad: bool = True
    # Audio received between two partial decodes while speech goes on. Partials go out this
    # often plus the difference between two decodes' times (whisper-base on 2 cores: 70-320 ms
    # on the clips, growing with the utterance): every 400 ms left gaps of up to 525 ms, every
    # 360 ms at most 482 ms, for a session real-time factor of 0.39 (bench/stt_realtime.py).
    # A partial decoded elsewhere (with other sessions') is asked again once the last one is
    # back, when that took longer ...
    partial_step_ms: int = 360
    # ... and waited for once this much more audio has come: a client that sends its audio
    # faster than real time (a file) still gets a partial every second or so of it (the
    # audio of a session that lags its client is fed 2 s at a time: speech.stt.realtime),
    # while at real time the stream is heard on as the partial is decoded.
    partial_wait_ms: int = 1_000
    # silero-vad's probabilities: speech starts at start_threshold, goes on down to
    # end_threshold (its own defaults, as speech_regions uses them) ...
    start_threshold: float = 0.5
    end_threshold: float = 0.35
    # ... and this much silence ends an utterance: longer than a reader's pause at a comma.
    end_silence_ms: int = 500
    # After this much silence the final is decoded ahead, while the silence is still being
    # measured: if speech does not resume, the final is ready when the silence is long enough.
    speculate_ms: int = 200
    # Speech shorter than this (a cough, a click) is no utterance.
    min_speech_ms: int = 250
    # Audio kept before the first speech frame (silero-vad fires a little late) and after
    # the last one (word endings fade below the threshold).
    pre_roll_ms: int = 300
    tail_ms: int = 200
    # An utterance is cut at its quietest moment of its last 3 s when it grows this long:
    # each partial decodes the whole utterance, so its length bounds the work per step.
    max_utterance_ms: int = 15_000
    # The end of the session's text prompts each partial (the context of a sentence going
    # on). Not the finals: prompted so, whisper-base wrote words never said after an
    # utterance ("Thank you.", "sing") and misheard words it hears right unprompted: 35
    # errors in 829 words against 30 (measured as bench/stt_finals_wer.py measures, before
    # the change; docs/realtime.md).
    prompt_characters: int = 200


@dataclass(frozen=True)
class SpeechStarted:
    utterance: int
    at_ms: int


@dataclass(frozen=True)
class SpeechStopped:
    utterance: int
    at_ms: int


@dataclass(frozen=True)
class Partial:
    """The utterance so far; `stable_text` is the prefix two decodes in a row agreed on."""

    utterance: int
    text: str
    stable_text: str
    start_ms: int


@dataclass(frozen=True)
class FinalTranscript:
    utterance: int
    text: str
    start_ms: int
    end_ms: int
    # Times from the start of the session.
    words: tuple[Word, ...]
    # BCP-47 primary subtag, asked for or detected on the first utterance.
    language: str
    # With speakers told apart: `speaker_1`, `speaker_2`... (None: too little speech).
    speaker: str | None = None


Event: TypeAlias = SpeechStarted | SpeechStopped | Partial | FinalTranscript


@dataclass(frozen=True)
class _Decoded:
    text: str
    # Seconds into the decoded audio (finals only).
    words: tuple[tuple[str, float, float, float], ...]


def load_recognizer(
    settings: Settings,
    *,
    model: str | None,
    language: str | None,
    options: StreamingOptions | None = None,
    diarize: bool = False,
    turns: DecodeTurns | None = None,
    partials: PartialDecodes | None = None,
) -> StreamingRecognizer:
    """A recognizer over the process's copy of the named Whisper model (default:
    settings.stt.default_model), its partials decoded by `partials` (default: in this
    process, when `turns` grant one). language is a BCP-47 tag, or None to detect it on
    the first utterance. Raises UnknownModel, UnsupportedLanguage, TranscriberUnavailable."""
    transcriber = get_transcriber(model, settings=settings)
    if not isinstance(transcriber, WhisperTranscriber):
        raise TranscriberUnavailable(f"The model {transcriber.name} cannot transcribe live.")
    code = None if language is None else whisper_language(language, transcriber.languages)
    partial_model = None
    helper = settings.stt.realtime_partial_model
    if helper and helper != transcriber.name:
        try:
            whisper_model(helper, settings)
        except (UnknownModel, TranscriberUnavailable) as exc:
            # The deployment's setting, not the client's request: the session goes on with
            # its own model for the partials too.
            logger.warning("stt.realtime_partial_model %r is not used: %s", helper, exc)
        else:
            partial_model = helper
    return StreamingRecognizer(
        transcriber.model,
        name=transcriber.name,
        language=code,
        beam_size=transcriber.beam_size,
        options=options or StreamingOptions(),
        speakers=LiveSpeakers() if diarize else None,
        partial_model=partial_model,
        turns=turns,
        partials=partials or LocalPartials(lambda name: whisper_model(name, settings), turns),
    )


def whisper_model(name: str, settings: Settings) -> WhisperModel:
    """The process's copy of the named Whisper model (faster-whisper's). Raises UnknownModel,
    TranscriberUnavailable."""
    transcriber = get_transcriber(name, settings=settings)
    if not isinstance(transcriber, WhisperTranscriber):
        raise TranscriberUnavailable(f"The model {transcriber.name} cannot transcribe live.")
    return transcriber.model


class StreamingRecognizer:
    """One live stream: fed 16 kHz mono float32 audio in frames of any size, it yields events
    as soon as they are known. Not thread-safe: one stream, one caller."""

    def __init__(
        self,
        model: WhisperModel,
        *,
        name: str,
        language: str | None,
        beam_size: int,
        options: StreamingOptions,
        partials: PartialDecodes,
        speakers: LiveSpeakers | None = None,
        partial_model: str | None = None,
        turns: DecodeTurns | None = None,
    ) -> None:
        from soundstage.engines.transcribers.short_encoder import ShortEncoder

        self._model = ShortEncoder(model)
        self._name = name
        # An English-only model (tiny.en) for the partials of English speech: only once the
        # language is known to be English (asked for, or detected on the first final).
        self._partial_model = partial_model
        self._partials = partials
        # The partial asked and not collected yet: its utterance and where its audio ends.
        self._asked: tuple[_Utterance, int] | None = None
        self._speakers = speakers
        self._turns = turns or Unshared()
        self._language = language
        self._beam_size = beam_size
        self._options = options
        self._vad = StreamingDetector() if options.vad else None
        self._frame = StreamingDetector.frame
        self._audio = _Tape()
        # Audio silero-vad has not heard yet (less than a frame), and where it has heard to.
        self._unheard: Samples = np.zeros(0, dtype=np.float32)
        self._vad_cursor = 0
        self._prompt = ""
        self._index = 0
        self._utterance: _Utterance | None = None

    @property
    def received_ms(self) -> int:
        return _ms(self._audio.end)

    def feed(self, samples: Samples) -> Iterator[Event]:
        """Take the next audio; yield what it makes known."""
        samples = np.asarray(samples, dtype=np.float32).reshape(-1)
        self._audio.append(samples)
        if self._vad is None:
            if self._utterance is None and self._audio.end > self._audio.start:
                yield from self._start(self._audio.start)
        else:
            self._unheard = np.concatenate([self._unheard, samples])
            while self._unheard.size >= self._frame:
                frame, self._unheard = self._unheard[: self._frame], self._unheard[self._frame :]
                self._vad_cursor += self._frame
                probability = self._vad.probability(frame)
                yield from self._on_frame(probability, self._vad_cursor)
        utterance = self._utterance
        yield from self._collected()
        if utterance is None:
            self._audio.forget_before(self._audio.end - _samples(self._options.pre_roll_ms))
            return
        step = _samples(self._options.partial_step_ms)
        speaking = self._vad is None or self._vad_cursor - utterance.voice_end < _samples(
            self._options.speculate_ms
        )
        if speaking and self._asked is None and self._audio.end - utterance.decoded_to >= step:
            self._ask_partial(utterance, self._audio.end)
            yield from self._collected()  # decoded at once when decoded here
        if self._audio.end - utterance.start >= _samples(self._options.max_utterance_ms):
            yield from self._cut(utterance)

    def commit(self) -> Iterator[Event]:
        """End the utterance here (the client's commit): its final, if it said anything."""
        if self._utterance is not None:
            yield from self._finish(self._utterance, self._audio.end)
        # Its audio is done with: without silero-vad the next utterance starts at the tape's
        # start, which must not hold this one again (as after a clear).
        self._audio.forget_before(self._audio.end - self._unheard.size)

    def finish(self) -> Iterator[Event]:
        """The end of the stream: the final of the utterance under way."""
        yield from self.commit()

    def clear(self) -> None:
        """Drop the audio not transcribed yet (the client's clear): the utterance under way
        ends with no final, and the next one gets the next index."""
        if self._utterance is not None:
            self._utterance = None
            self._index += 1
        # Less than a VAD frame stays unheard: the frame cursor counts from the stream's start.
        self._audio.forget_before(self._audio.end - self._unheard.size)

    def _on_frame(self, probability: float, end: int) -> Iterator[Event]:
        options = self._options
        utterance = self._utterance
        if utterance is None:
            if probability >= options.start_threshold:
                start = max(self._audio.start, end - self._frame - _samples(options.pre_roll_ms))
                yield from self._start(start)
                assert self._utterance is not None
                self._utterance.voice(end, self._frame)
            return
        utterance.probabilities.append((end, probability))
        if probability >= options.end_threshold:
            utterance.voice(end, self._frame)
            return
        silence = end - utterance.voice_end
        if silence >= _samples(options.end_silence_ms):
            stop = min(end, utterance.voice_end + _samples(options.tail_ms))
            yield from self._finish(utterance, stop)
        elif silence >= _samples(options.speculate_ms) and utterance.ahead is None:
            stop = min(end, utterance.voice_end + _samples(options.tail_ms))
            decoded = self._decode(self._audio.span(utterance.start, stop))
            utterance.ahead = (utterance.voice_end, stop, decoded)
            yield self._agreed(utterance, decoded.text, stop)

    def _start(self, start: int) -> Iterator[Event]:
        self._utterance = _Utterance(start)
        yield SpeechStarted(self._index, _ms(start))

    def _ask_partial(self, utterance: _Utterance, end: int) -> None:
        # The stable text is forced as the decoder's prefix: only the rest is generated, so
        # a partial costs about the same early and late in a long utterance.
        model = self._name
        if self._partial_model is not None and self._language == "en":
            model = self._partial_model
        request = PartialRequest(
            self._audio.span(utterance.start, end),
            self._language,
            prefix=" ".join(utterance.stable),
            prompt=self._prompt.strip(),
        )
        if self._partials.submit(model, request):
            self._asked = (utterance, end)

    def _collected(self) -> Iterator[Partial]:
        """The partial asked, once it is back (waited for when the stream has gone on past
        partial_wait_ms): for the utterance still under way, unless a final decoded ahead
        has heard more of it since."""
        if self._asked is None:
            return
        lag = self._audio.end - self._asked[1]
        text = self._partials.collect(wait=lag >= _samples(self._options.partial_wait_ms))
        if text is None:
            if not self._partials.pending():  # lost: the next is asked with the next audio
                self._asked = None
            return
        utterance, end = self._asked
        self._asked = None
        if utterance is self._utterance and utterance.decoded_to < end:
            yield self._agreed(utterance, without_loop(text), end)

    def _agreed(self, utterance: _Utterance, text: str, end: int) -> Partial:
        """LocalAgreement-2 (whisper_streaming): the longest prefix on which this hypothesis
        and the one before agree joins the stable text, which never changes after."""
        words = text.split()
        utterance.decoded_to = end
        stable = utterance.stable
        previous = utterance.hypothesis[len(stable) :]
        current = words[len(stable) :]
        agreed = 0
        while agreed < min(len(previous), len(current)) and _comparable(
            previous[agreed]
        ) == _comparable(current[agreed]):
            agreed += 1
        # Never the hypothesis's last word: at the edge of the audio heard so far, Whisper
        # ends the text there ("consider how."), and forced as the prefix that period would
        # stay in every partial after ("how. Much there").
        agreed = max(0, min(agreed, len(current) - 1))
        stable.extend(current[:agreed])
        utterance.hypothesis = words
        return Partial(
            self._index,
            " ".join([*stable, *current[agreed:]]),
            " ".join(stable),
            _ms(utterance.start),
        )

    def _cut(self, utterance: _Utterance) -> Iterator[Event]:
        """End an over-long utterance at the quietest moment of its last 3 s; the speech
        after it starts the next one."""
        recent = self._audio.end - _samples(3000)
        candidates = [(p, end) for end, p in utterance.probabilities if end >= recent]
        cut = min(candidates)[1] if candidates else self._audio.end
        yield from self._finish(utterance, cut, stopped=False)
        self._audio.forget_before(cut)
        # The speech goes on: no speech events between the two.
        self._utterance = _Utterance(cut)
        self._utterance.voice(max(cut, utterance.voice_end), 0)

    def _finish(self, utterance: _Utterance, end: int, *, stopped: bool = True) -> Iterator[Event]:
        self._utterance = None
        if stopped:
            yield SpeechStopped(self._index, _ms(end))
        if self._vad is not None and utterance.voiced < _samples(self._options.min_speech_ms):
            self._index += 1
            return
        ahead = utterance.ahead
        if ahead is not None and ahead[0] == utterance.voice_end and ahead[1] == end:
            decoded = ahead[2]
        else:
            decoded = self._decode(self._audio.span(utterance.start, end))
        voice_end = None if self._vad is None else _ms(utterance.voice_end)
        final = self._final(utterance.start, end, decoded, voice_end)
        self._index += 1
        if final.text:
            self._prompt = f"{self._prompt} {final.text}"[-self._options.prompt_characters :]
            if self._speakers is not None:
                speaker = self._speakers.label(self._audio.span(utterance.start, end))
                final = replace(final, speaker=speaker)
            yield final

    def _final(
        self, start: int, end: int, decoded: _Decoded, voice_end_ms: int | None
    ) -> FinalTranscript:
        start_ms, end_ms = _ms(start), _ms(end)
        words = []
        cursor = start_ms
        for text, word_start, word_end, probability in decoded.words:
            # In order and inside the utterance, as the offline transcript's words are.
            first = min(max(start_ms + round(word_start * 1000), cursor), end_ms)
            last = min(max(start_ms + round(word_end * 1000), first), end_ms)
            words.append(Word(text, first, last, round(probability, 3)))
            cursor = last
        text = decoded.text
        # Whisper may go on writing into the silence that closes an utterance ("See you next
        # time.", tiny.en most): the last words when they start after silero-vad last heard
        # speech, or are squeezed into nothing at the very end.
        kept = len(words)
        while kept and (
            (voice_end_ms is not None and words[kept - 1].start_ms >= voice_end_ms)
            or words[kept - 1].start_ms == words[kept - 1].end_ms == end_ms
        ):
            kept -= 1
        # ... or make a last sentence of their own, none of whose words the model is sure of
        # ("Fuck.", "Bye." after a synthetic voice's last word).
        sentence = max(
            (i for i in range(1, kept) if words[i - 1].word.endswith(_SENTENCE_ENDS)), default=0
        )
        if sentence and all(w.probability < _UNSURE for w in words[sentence:kept]):
            kept = sentence
        if kept < len(words):
            words = words[:kept]
            joint = "" if self._language in UNSPACED else " "
            text = joint.join(word.word for word in words)
        return FinalTranscript(
            self._index,
            text,
            start_ms,
            end_ms,
            tuple(words),
            bcp47_language(self._language or "en"),
        )

    def _decode(self, samples: Samples) -> _Decoded:
        """The final transcript of an utterance, with its words' times."""
        with self._turns.urgent():
            return self._generate(self._model, samples)

    def _generate(self, model: ShortEncoder, samples: Samples) -> _Decoded:
        model.frames = max(len(samples) // HOP + 1, _FINAL_ENCODER_FRAMES)
        seconds = len(samples) / SAMPLE_RATE
        try:
            generated, info = model.transcribe(
                samples,
                language=self._language,
                word_timestamps=True,
                condition_on_previous_text=False,
                max_new_tokens=10 + int(seconds * _TOKENS_PER_SECOND),
                # Without silero-vad cutting the stream, silence reaches the model, which
                # invents words on it: its own VAD filter keeps only the speech.
                vad_filter=self._vad is None,
                beam_size=self._beam_size,
            )
            segments = list(generated)
        except RuntimeError as exc:
            raise TranscriberUnavailable(f"The speech-to-text model failed: {exc}") from exc
        if self._language is None:
            # Detected on the first final and kept: one session, one language.
            self._language = str(info.language)
        text = " ".join("".join(segment.text for segment in segments).split())
        words = tuple(word for segment in segments for word in merged_words(segment.words or ()))
        return _Decoded(text, words)


def without_loop(text: str) -> str:
    """`text` with a loop at its end cut to the loop's first turn ("man. I-I-I-I-I" -> "man. I");
    any other text unchanged."""
    for piece in range(1, _LOOP_LONGEST_PIECE + 1):
        start = len(text) - piece  # where the periodic end (period `piece`) begins
        while start > 0 and text[start - 1] == text[start - 1 + piece]:
            start -= 1
        looped = len(text) - start
        # The last turn may lack its trailing space or hyphen: "I-I-I-I" is four turns.
        if looped >= max(_LOOP_TURNS * piece - 1, _LOOP_SHORTEST):
            return text[: start + piece].rstrip(" -,;:")
    return text


class _Utterance:
    """The utterance being spoken: where it starts, where its voice was last heard, and the
    decodes so far."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.voice_end = start
        self.voiced = 0
        self.decoded_to = start
        self.hypothesis: list[str] = []
        self.stable: list[str] = []
        # A final decoded ahead: (voice_end, end, decoded) at the time.
        self.ahead: tuple[int, int, _Decoded] | None = None
        # (frame end, speech probability) of each frame: where to cut if it grows too long.
        self.probabilities: list[tuple[int, float]] = []

    def voice(self, end: int, samples: int) -> None:
        self.voice_end = end
        self.voiced += samples
        self.ahead = None


class _Tape:
    """The stream's recent audio, addressed by sample index from the start of the stream; what
    lies before `start` is forgotten."""

    def __init__(self) -> None:
        self._chunks: list[Samples] = []
        self.start = 0
        self.end = 0

    def append(self, samples: Samples) -> None:
        if samples.size:
            self._chunks.append(samples)
            self.end += samples.size

    def span(self, start: int, end: int) -> Samples:
        joined = np.concatenate(self._chunks) if self._chunks else np.zeros(0, np.float32)
        self._chunks = [joined]
        return joined[max(start, self.start) - self.start : end - self.start]

    def forget_before(self, index: int) -> None:
        keep = min(self.end, max(self.start, index))
        if keep > self.start:
            joined = self.span(self.start, self.end)
            self._chunks = [joined[keep - self.start :].copy()]
            self.start = keep


_PUNCTUATION: Final = re.compile(r"[^\w']+")
# The ends of sentences, Latin and CJK (ideographic full stop, full-width ? and !).
_SENTENCE_ENDS: Final = (".", "?", "!", "\u3002", "\uff1f", "\uff01")
# Below this probability a word is one the model is unsure of.
_UNSURE: Final = 0.5


def _comparable(word: str) -> str:
    """A word as agreement compares it: "Man," and "man." agree."""
    return _PUNCTUATION.sub("", word.lower())


def _samples(ms: int) -> int:
    return ms * SAMPLE_RATE // 1000


def _ms(samples: int) -> int:
    return samples * 1000 // SAMPLE_RATE
