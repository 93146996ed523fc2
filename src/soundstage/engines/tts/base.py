"""What every text-to-speech engine offers: the SpeechSynthesizer protocol and voices (the
errors it raises are every engine's: `engines.errors`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, TypeAlias

import numpy as np
import numpy.typing as npt

from soundstage.engines.errors import SynthesisFailed, UnknownVoice
from soundstage.media.audio import Audio

Gender = Literal["female", "male"]

MIN_RATE: Final = 0.5
MAX_RATE: Final = 2.0
# Below this peak the "speech" is silence (or dither): the engine said nothing.
_SILENT_PEAK: Final = 1e-3


@dataclass(frozen=True)
class EngineVoice:
    """One voice of one engine, as the voice catalog sees it."""

    engine: str
    # The engine's own id of the voice, passed back to synthesize().
    voice: str
    # BCP-47: en-US, es-ES, cmn, ...
    language: str
    gender: Gender
    # How the speaker sounds to a listener: "American", "Scottish", "Castilian", ...
    accent: str
    # The name shown to people.
    label: str


@dataclass(frozen=True)
class Phonemes:
    """Words given by their pronunciation (SSML <phoneme>, a dictionary's phoneme rule).

    `ipa` is IPA (checked with phonemes.check_ipa before it gets here); `text` is the written
    words, which engines that cannot honour phonemes read instead."""

    ipa: str
    text: str


# What synthesize() takes besides a plain string: plain text and words given by phonemes,
# in the order they are said, making one sentence.
Part: TypeAlias = str | Phonemes


def plain_text(text: str | Sequence[Part]) -> str:
    """The words as written: a plain string as it is, parts joined (Phonemes by their text),
    with one space where two parts would otherwise run together."""
    if isinstance(text, str):
        return text
    joined = ""
    for part in text:
        words = part if isinstance(part, str) else part.text
        if joined and words and not joined[-1].isspace() and not words[0].isspace():
            joined += " "
        joined += words
    return joined


def honours_phonemes(engine: SpeechSynthesizer) -> bool:
    """engine.honours_phonemes, False for an engine written before it (a deployment's plugin):
    such an engine is given plain text (plain_text), never parts."""
    return bool(getattr(engine, "honours_phonemes", False))


class SpeechSynthesizer(Protocol):
    """A text-to-speech engine. Instances are long-lived (one per worker process, see
    registry.get_engine) and must be safe to call from several threads."""

    name: str
    # Whether synthesize() applies `rate` itself (speed of speech; pitch kept). Engines
    # without it leave the audio at rate 1.0 for the caller to time-stretch.
    supports_rate: bool
    # Whether synthesize() says Phonemes parts by their IPA (for every voice of the engine);
    # engines without it read their text.
    honours_phonemes: bool

    def voices(self) -> list[EngineVoice]:
        """The voices this engine can speak with on this machine."""
        ...

    def synthesize(
        self,
        text: str | Sequence[Part],
        voice: str,
        *,
        rate: float = 1.0,
        deterministic: bool = False,
    ) -> Audio:
        """Speak one sentence or short paragraph: mono float32 at the engine's native sample
        rate. `text` is a plain string, or a sequence of parts (plain text and Phonemes)
        spoken as one sentence: an engine that honours phonemes says each Phonemes by its
        IPA, the others read its text (plain_text). rate is the speed of speech, 1.0
        normal, MIN_RATE..MAX_RATE. With `deterministic` the same text gives the same
        samples every time (for generators that take a seed): an engine that samples noise
        (Piper's VITS) leaves it out then; the others are deterministic anyway and ignore
        it. Off by default, so that speech keeps its natural variation.

        Raises UnknownVoice, SynthesisFailed (nothing speakable, engine error on this text)
        or EngineUnavailable (the engine is missing or stuck); ValueError for a rate out of
        bounds (the endpoint validates it first).
        """
        ...


class BaseSynthesizer(ABC):
    """A SpeechSynthesizer whose `synthesize` makes the checks every engine needs, once: the
    rate in bounds (ValueError), something to say (SynthesisFailed), a voice of the engine
    (UnknownVoice); then `speak` does the engine's own work. An engine gives `name`,
    `voices` and `speak`, and `has_voice` when it speaks more than the voices it lists."""

    name: str
    supports_rate: bool = True
    honours_phonemes: bool = True

    @abstractmethod
    def voices(self) -> list[EngineVoice]:
        """The voices this engine can speak with on this machine."""

    def has_voice(self, voice: str) -> bool:
        return any(known.voice == voice for known in self.voices())

    def synthesize(
        self,
        text: str | Sequence[Part],
        voice: str,
        *,
        rate: float = 1.0,
        deterministic: bool = False,
    ) -> Audio:
        """SpeechSynthesizer.synthesize: the checks, then `speak`."""
        self.check(text, voice, rate)
        return self.speak(text, voice, rate=rate, deterministic=deterministic)

    def check(self, text: str | Sequence[Part], voice: str, rate: float) -> None:
        check_rate(rate)
        check_text(text)
        if not self.has_voice(voice):
            raise _unknown_voice(self.name, voice)

    @abstractmethod
    def speak(
        self, text: str | Sequence[Part], voice: str, *, rate: float, deterministic: bool
    ) -> Audio:
        """Speak text already checked (something to say, a voice of the engine, the rate in
        bounds), as SpeechSynthesizer.synthesize does."""


def check_rate(rate: float) -> None:
    if not MIN_RATE <= rate <= MAX_RATE:
        raise ValueError(f"rate must be {MIN_RATE}..{MAX_RATE}, not {rate}")


def check_text(text: str | Sequence[Part]) -> None:
    parts = [text] if isinstance(text, str) else text
    if not any((part if isinstance(part, str) else part.ipa + part.text).strip() for part in parts):
        raise SynthesisFailed("The text contains nothing to say.", param="text")


def find_voice(voices: Iterable[EngineVoice], voice: str, engine: str) -> EngineVoice:
    for candidate in voices:
        if candidate.voice == voice:
            return candidate
    raise _unknown_voice(engine, voice)


def _unknown_voice(engine: str, voice: str) -> UnknownVoice:
    return UnknownVoice(f"The {engine} engine has no voice {voice!r}.", param="voice_id")


def spoken(samples: npt.NDArray[Any], sample_rate: int, engine: str) -> Audio:
    """Wrap an engine's mono output as Audio, refusing output with nothing in it."""
    mono = np.ascontiguousarray(samples, dtype=np.float32).reshape(-1, 1)
    if mono.shape[0] == 0 or float(np.max(np.abs(mono))) < _SILENT_PEAK:
        raise SynthesisFailed(
            f"The {engine} engine produced no speech for this text.", param="text"
        )
    return Audio(mono, sample_rate)
