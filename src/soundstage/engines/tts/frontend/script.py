"""What the text front end hands the text-to-speech job: a script of spans and pauses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Emphasis = Literal["reduced", "moderate", "strong"]


@dataclass(frozen=True)
class Span:
    """Words to speak, and where they come from in the text as sent."""

    # The characters of the request's text (markup included) that this span reads: word
    # timestamps and billing map back through them. start == end for words only the markup
    # adds (none today).
    start: int
    end: int
    # Plain words the engine reads ("" for a written token that is not read, e.g. a lone "-").
    spoken: str
    # The IPA pronunciation of the whole span, when the text gives one (SSML <phoneme>, a
    # dictionary's phoneme rule): engines that honour phonemes read it instead of `spoken`.
    phonemes: str | None = None
    # Relative speed (SSML <prosody rate>; 1.0 = as the request asks) and pitch shift in
    # semitones (SSML <prosody pitch>), multiplied/added onto the request's speed and pitch.
    rate: float = 1.0
    pitch: float = 0.0
    emphasis: Emphasis | None = None


@dataclass(frozen=True)
class Pause:
    """Silence the text asks for (SSML <break>), in milliseconds."""

    ms: int


Script = list[Span | Pause]


@dataclass(frozen=True)
class Rule:
    """A pronunciation-dictionary rule: a grapheme (a word or phrase as written) read as an
    alias (other words) or as an IPA phoneme string."""

    grapheme: str
    alias: str | None = None
    phoneme: str | None = None
    case_sensitive: bool = True
