"""What every voice converter offers: the VoiceConverter protocol, its result and errors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

from soundstage.core.errors import AppError
from soundstage.engines.transcribers.base import Transcript
from soundstage.media.audio import Audio

# Called with the fraction done, 0..1 (a job's JobContext.progress fits).
Progress = Callable[[float], None]
# The rate a converter is best given speech at (mono): every engine speaks at 16 to 22.05 kHz
# and the transcriber listens at 16 kHz, so more costs memory (held whole) and adds nothing.
WORKING_RATE: Final = 24_000


@dataclass(frozen=True)
class ConvertedPhrase:
    """One stretch of speech between pauses, as it was re-voiced."""

    text: str
    # Where it lies in the input (and the output): its first word's start, last word's end.
    start_ms: int
    end_ms: int
    # The re-voiced phrase's duration over the synthesized one's (> 1: slowed down), after any
    # change of the engine's own speaking rate.
    time_ratio: float
    # The engine's speaking rate the phrase was synthesized at (1.0 unless the source was far
    # slower or faster than the voice speaks).
    engine_rate: float
    # False when the engine could not say it (nothing it can pronounce): left silent.
    spoken: bool


@dataclass(frozen=True)
class Converted:
    """The re-voiced speech and what was measured on the way.

    audio is mono at the input's sample rate with exactly the input's frame count: sample i
    of the output is the moment of sample i of the input, so the output lines up with the
    input (and with a video or a background track) without any offset.
    """

    audio: Audio
    # What the input says, with its words' times (force-aligned for English).
    transcript: Transcript
    phrases: tuple[ConvertedPhrase, ...]

    @property
    def text(self) -> str:
        return self.transcript.text


class VoiceConverter(Protocol):
    """Speech to speech in a target voice. Instances are long-lived (one per worker process,
    see registry.get_converter) and safe to call from several threads."""

    name: str

    def convert(
        self,
        speech: Audio,
        *,
        engine: str,
        engine_voice: str,
        language: str | None,
        progress: Progress | None = None,
    ) -> Converted:
        """Say what `speech` says, when it says it and with its intonation, in the voice
        `engine_voice` of the text-to-speech engine `engine` (a catalog voice's engine and
        engine_voice). language is a BCP-47 tag, or None to detect it. Speech without words
        (silence, noise, music) gives silence of the same length. progress, if given, is
        called with the fraction done, 0..1, ending with 1.0.

        Raises AppErrors: UnknownVoice, EngineUnavailable (engine or rubberband missing),
        UnsupportedLanguage, TranscriberUnavailable, NothingToSay.
        """
        ...


class NothingToSay(AppError):
    """The input has words, but the target voice could say none of them (e.g. speech in a
    script the engine cannot read)."""

    status = 422
    code = "nothing_to_say"

    def __init__(self, message: str, *, param: str | None = "voice_id") -> None:
        super().__init__(message, param=param)
