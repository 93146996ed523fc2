"""Whisper through faster-whisper (CTranslate2, int8 on the CPU): the bundled whisper-base and
tiny.en, or any CTranslate2 Whisper model directory a deployment configures."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from soundstage.config import SttSettings
from soundstage.engines.cache import MODELS
from soundstage.engines.transcribers.base import (
    DecodingDetails,
    Progress,
    Segment,
    Task,
    TranscriberUnavailable,
    Transcript,
    Word,
    bcp47_language,
    whisper_language,
    whisper_languages,
)
from soundstage.engines.transcribers.models import MODEL_FILES
from soundstage.engines.transcribers.windows import Chunking, Window, windows

if TYPE_CHECKING:  # faster-whisper (and CTranslate2) load with the model: not in an API process
    from faster_whisper import WhisperModel
from soundstage.media.audio import Audio

# A later window is prompted with the end of the text before it, as Whisper does between its
# own 30 s windows, so that spelling and punctuation carry on. faster-whisper keeps at most
# 223 tokens of a prompt.
_PROMPT_CHARACTERS: Final = 400

_KIND: Final = "whisper model"

# Whisper's encoder is given the audio there is and at least 10 s of padding after it, at
# least 15 s in all, never more than the 30 s window faster-whisper pads every input to: the
# encoder's cost grows faster than its input (whisper-base, one thread: 0.92 s for 30 s,
# 0.22 s for 15 s), and a short recording's decode paid the whole window. Windows of speech
# after faster-whisper's VAD are at most as long as the audio, so the padding holds for them.
# What it costs in words and gains in time: bench/stt_short_window.py, docs/calibration.md.
_HOP: Final = 160
_WHOLE_ENCODER_FRAMES: Final = 3000
_MIN_ENCODER_FRAMES: Final = 1500
_PADDING_FRAMES: Final = 1000


def encoder_frames(samples: int) -> int:
    """The mel frames (100 a second) the encoder is given for audio of `samples` at 16 kHz."""
    frames = samples // _HOP + 1 + _PADDING_FRAMES
    return min(max(frames, _MIN_ENCODER_FRAMES), _WHOLE_ENCODER_FRAMES)


def load_model(name: str, directory: Path, *, cpu_threads: int | None = None) -> WhisperModel:
    """The process's one copy of the named model (the model cache, engines.cache), loaded
    from directory on first use (about 0.5 s for whisper-base); TranscriberUnavailable if it
    cannot be loaded."""
    return MODELS.get(_KIND, name, lambda: _load(name, directory, cpu_threads))


def _load(name: str, directory: Path, cpu_threads: int | None) -> WhisperModel:
    # Checked first: faster-whisper takes a path that is not a directory for a model name to
    # download from the Hugging Face hub.
    missing = [f for f in ("model.bin", *MODEL_FILES) if not (directory / f).is_file()]
    if missing:
        raise TranscriberUnavailable(
            f"The speech-to-text model {name} lacks {', '.join(missing)} in {directory}."
        )
    from faster_whisper import WhisperModel

    try:
        return WhisperModel(
            str(directory),
            device="cpu",
            compute_type="int8",
            cpu_threads=cpu_threads or os.cpu_count() or 1,
            local_files_only=True,
        )
    except (RuntimeError, ValueError, OSError) as exc:
        raise TranscriberUnavailable(
            f"The speech-to-text model {name} could not be loaded: {exc}"
        ) from exc


class WhisperTranscriber:
    """One Whisper model. Safe to share between threads: CTranslate2 runs one call at a time
    per model and queues the others."""

    def __init__(
        self,
        name: str,
        model: WhisperModel,
        *,
        beam_size: int = 5,
        chunking: Chunking | None = None,
        short_windows: bool = False,
    ) -> None:
        self.name = name
        self._model = model
        self._beam_size = beam_size
        self._chunking = chunking or Chunking()
        # The encoder given what encoder_frames() says, or (False) always its whole 30 s
        # window, as faster-whisper does: short for the models measured as hearing the same
        # words so (the bundled whisper-base and tiny.en: engines.transcribers.registry).
        self._short_windows = short_windows
        self.languages = model_languages(model)

    @property
    def model(self) -> WhisperModel:
        """The faster-whisper model itself (the realtime recognizer decodes with it)."""
        return self._model

    @property
    def beam_size(self) -> int:
        return self._beam_size

    def with_beam_size(self, beam_size: int) -> WhisperTranscriber:
        """The same model decoding with another beam (1: greedy, fastest)."""
        return self._copy(beam_size=beam_size, short_windows=self._short_windows)

    def with_short_windows(self, short: bool) -> WhisperTranscriber:
        """The same model with its encoder given what encoder_frames() says (short) or always
        its whole 30 s window."""
        return self._copy(beam_size=self._beam_size, short_windows=short)

    def _copy(self, *, beam_size: int, short_windows: bool) -> WhisperTranscriber:
        return WhisperTranscriber(
            self.name,
            self._model,
            beam_size=beam_size,
            chunking=self._chunking,
            short_windows=short_windows,
        )

    @classmethod
    def load(
        cls, name: str, directory: Path, settings: SttSettings, *, short_windows: bool = False
    ) -> WhisperTranscriber:
        model = load_model(name, directory, cpu_threads=settings.cpu_threads)
        return cls(name, model, beam_size=settings.beam_size, short_windows=short_windows)

    def transcribe(
        self,
        audio: Audio,
        *,
        language: str | None,
        word_timestamps: bool,
        progress: Progress | None = None,
        task: Task = "transcribe",
    ) -> Transcript:
        if audio.frames == 0:
            raise ValueError("audio has no frames")
        code = None if language is None else whisper_language(language, self.languages)
        probability = 1.0
        timeline = _Timeline(audio.duration_ms)
        report = _Reporter(progress, audio.duration_ms)
        texts: list[str] = []
        segments: list[Segment] = []
        for window in windows(audio, self._chunking):
            prompt = "".join(texts)[-_PROMPT_CHARACTERS:].strip() or None
            raw_segments, info = self._run(window, code, word_timestamps, prompt, task)
            if code is None:
                # Detected on the first window and kept: one recording, one language.
                code, probability = info.language, float(info.language_probability)
            for raw in raw_segments:
                texts.append(raw.text)
                segment = _segment(raw, window.offset_ms, timeline, word_timestamps)
                if segment is not None:
                    segments.append(segment)
                report(window.offset_ms + raw.end * 1000)
            report(window.end_ms)
        report(audio.duration_ms)
        return Transcript(
            text=_joined(texts, code),
            language=bcp47_language(code or "en"),
            language_probability=probability,
            duration_ms=audio.duration_ms,
            segments=tuple(segments),
        )

    def _run(
        self,
        window: Window,
        code: str | None,
        word_timestamps: bool,
        prompt: str | None,
        task: Task,
    ) -> tuple[Iterator[Any], Any]:
        model = self._model
        if self._short_windows:
            from soundstage.engines.transcribers.short_encoder import ShortEncoder

            # Its own per call (the frames are this window's): it shares the model's weights.
            model = ShortEncoder(self._model)
            model.frames = encoder_frames(int(window.samples.shape[0]))
        try:
            generated, info = model.transcribe(
                window.samples,
                language=code,
                task=task,
                beam_size=self._beam_size,
                word_timestamps=word_timestamps,
                initial_prompt=prompt,
                # Only speech is decoded (faster-whisper's bundled Silero VAD): on silence and
                # noise Whisper otherwise invents words ("You", "Thank you."). Times stay
                # those of the whole window.
                vad_filter=True,
            )
        except RuntimeError as exc:
            raise TranscriberUnavailable(f"The {self.name} model failed: {exc}") from exc
        return self._decoded(generated), info

    def _decoded(self, generated: Iterable[Any]) -> Iterator[Any]:
        # faster-whisper decodes while its generator is read, a segment at a time: read
        # lazily, progress follows the decoding, and failures surface here.
        try:
            yield from generated
        except RuntimeError as exc:
            raise TranscriberUnavailable(f"The {self.name} model failed: {exc}") from exc


# Languages written without spaces between words, whose text is joined as Whisper wrote it.
UNSPACED: Final = frozenset({"zh", "yue", "ja", "th", "lo", "km", "my", "bo"})


def _joined(texts: list[str], code: str | None) -> str:
    # Whisper starts each piece of spaced text with a space; window joints may double it.
    if code in UNSPACED:
        return "".join(texts).strip()
    return " ".join("".join(texts).split())


def model_languages(model: WhisperModel) -> frozenset[str]:
    """The Whisper codes of the languages the model writes."""
    if not model.model.is_multilingual:
        return frozenset({"en"})
    # Models before large-v3 have 99 languages (no "yue"): ask the tokenizer.
    tokenizer = model.hf_tokenizer
    return frozenset(
        code for code in whisper_languages() if tokenizer.token_to_id(f"<|{code}|>") is not None
    )


class _Reporter:
    """Progress as a fraction that never goes back, reported when it moves by 1% or more."""

    def __init__(self, progress: Progress | None, duration_ms: int) -> None:
        self._progress = progress
        self._duration_ms = max(duration_ms, 1)
        self._reported = -1.0

    def __call__(self, position_ms: float) -> None:
        if self._progress is None:
            return
        fraction = min(1.0, max(0.0, float(position_ms) / self._duration_ms))
        if fraction >= self._reported + 0.01 or (fraction == 1.0 and self._reported < 1.0):
            self._reported = fraction
            self._progress(fraction)


class _Timeline:
    """Model times (seconds into a window) as ms into the audio: inside it, each span starting
    no earlier than the one before ended."""

    def __init__(self, duration_ms: int) -> None:
        self._duration_ms = duration_ms
        self._cursor = 0

    def span(self, start: float, end: float, offset_ms: int) -> tuple[int, int]:
        start_ms = min(max(round(start * 1000) + offset_ms, self._cursor), self._duration_ms)
        end_ms = min(max(round(end * 1000) + offset_ms, start_ms), self._duration_ms)
        self._cursor = end_ms
        return start_ms, end_ms


def _segment(raw: Any, offset_ms: int, timeline: _Timeline, with_words: bool) -> Segment | None:
    text = raw.text.strip()
    if not text:
        return None
    words: tuple[Word, ...] = ()
    if with_words:
        words = tuple(
            Word(word, *timeline.span(start, end, offset_ms), probability)
            for word, start, end, probability in merged_words(raw.words or ())
        )
    if words:
        start_ms, end_ms = words[0].start_ms, words[-1].end_ms
    else:
        start_ms, end_ms = timeline.span(raw.start, raw.end, offset_ms)
    return Segment(text, start_ms, end_ms, words, _details(raw, offset_ms))


def _details(raw: Any, offset_ms: int) -> DecodingDetails | None:
    """faster-whisper's figures of a segment; `seek` counted from the start of the audio, as
    if it were one window (100 mel frames a second)."""
    try:
        return DecodingDetails(
            seek=int(raw.seek) + offset_ms // 10,
            tokens=tuple(int(token) for token in raw.tokens),
            temperature=float(raw.temperature or 0.0),
            avg_logprob=float(raw.avg_logprob),
            compression_ratio=float(raw.compression_ratio),
            no_speech_prob=float(raw.no_speech_prob),
        )
    except (AttributeError, TypeError, ValueError):  # a model that does not report them
        return None


@dataclass
class _RawWord:
    word: str
    start: float
    end: float
    probability: float


def merged_words(words: Iterable[Any]) -> list[tuple[str, float, float, float]]:
    """Whisper's words with the pieces it splits off glued back: in "ill-disposed" it gives
    " ill" then "-disposed" (no space before: the same written word)."""
    merged: list[_RawWord] = []
    for word in words:
        text = str(word.word)
        if merged and text and unicodedata.category(text[0]).startswith("P"):
            last = merged[-1]
            last.word += text
            last.end = float(word.end)
            last.probability = min(last.probability, float(word.probability))
        else:
            merged.append(
                _RawWord(text, float(word.start), float(word.end), float(word.probability))
            )
    return [
        (item.word.strip(), item.start, item.end, item.probability)
        for item in merged
        if item.word.strip()
    ]
