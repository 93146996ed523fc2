"""What every speech-to-text model offers: the Transcriber protocol, transcripts, errors, and
the mapping of BCP-47 language tags onto Whisper's language codes."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import cache
from typing import Final, Literal, Protocol

import pycountry

from soundstage.core.errors import AppError
from soundstage.media.audio import Audio

Progress = Callable[[float], None]
# What a model does with the speech: write it down in its language, or in English (Whisper's
# own speech translation).
Task = Literal["transcribe", "translate"]

# A language tag as BCP-47 writes it (primary subtag, then script, region, variants), with "_"
# tolerated for "-" (en_US is what locales say).
_TAG: Final = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")
# Primary subtags whose Whisper code is not the tag itself: ISO 639-3 members of a
# macrolanguage Whisper knows as a whole, deprecated ISO 639-1 codes, and Whisper's own "jw".
_ALIASES: Final = {
    "cmn": "zh",  # Mandarin: Whisper's Chinese
    "arb": "ar",
    "azj": "az",
    "ekk": "et",
    "fil": "tl",  # Filipino, Whisper's Tagalog
    "in": "id",
    "iw": "he",
    "ji": "yi",
    "jv": "jw",
    "khk": "mn",
    "lvs": "lv",
    "mo": "ro",
    "nb": "no",
    "npi": "ne",
    "pbt": "ps",
    "pes": "fa",
    "plt": "mg",
    "prs": "fa",
    "swh": "sw",
    "uzn": "uz",
    "ydd": "yi",
    "zsm": "ms",
}
# Used only with models that lack the language: Whisper before large-v3 has no Cantonese token
# and writes Cantonese speech as Chinese.
_FALLBACKS: Final = {"yue": "zh"}
# Whisper codes that are not the BCP-47 primary subtag of their language.
_WHISPER_TO_BCP47: Final = {"jw": "jv"}


@dataclass(frozen=True)
class Word:
    # As the model wrote it, with its punctuation ("Mr.", "ill-disposed", "them.").
    word: str
    start_ms: int
    end_ms: int
    # The model's confidence in the word, 0..1.
    probability: float


@dataclass(frozen=True)
class DecodingDetails:
    """How Whisper decoded a segment, as it reports it (what OpenAI's `verbose_json` shows)."""

    # Where in the window's mel frames (10 ms each) the decoding started.
    seek: int
    tokens: tuple[int, ...]
    # The temperature of the decoding kept (higher ones are fallbacks after a failed check).
    temperature: float
    avg_logprob: float
    compression_ratio: float
    no_speech_prob: float


@dataclass(frozen=True)
class Segment:
    """About a sentence: the unit the model decodes, with its words if they were asked for."""

    text: str
    start_ms: int
    end_ms: int
    words: tuple[Word, ...] = ()
    # The model's own figures, when the model reports them (Whisper does).
    details: DecodingDetails | None = None


@dataclass(frozen=True)
class Transcript:
    text: str
    # BCP-47 primary subtag ("en", "pt", "zh"): the one asked for, or the one detected.
    language: str
    # 1.0 when the language was given; the model's confidence when it detected it.
    language_probability: float
    duration_ms: int
    segments: tuple[Segment, ...]

    @property
    def words(self) -> tuple[Word, ...]:
        return tuple(word for segment in self.segments for word in segment.words)


class Transcriber(Protocol):
    """A speech-to-text model. Instances are long-lived (one per worker process, see
    registry.get_transcriber) and safe to call from several threads."""

    name: str
    # The Whisper codes of the languages the model transcribes ({"en"} for English-only ones).
    languages: frozenset[str]

    def transcribe(
        self,
        audio: Audio,
        *,
        language: str | None,
        word_timestamps: bool,
        progress: Progress | None = None,
        task: Task = "transcribe",
    ) -> Transcript:
        """Transcribe speech of any length, sample rate and channel count (channels are
        mixed). language is a BCP-47 tag, or None to detect it from the start of the audio.
        task "translate" writes the speech in English (language is then the speech's).
        Times are in milliseconds from the start of the audio, inside it and in order.
        progress, if given, is called with the fraction done, 0..1, ending with 1.0.

        Raises UnsupportedLanguage, TranscriberUnavailable if the model fails, ValueError for
        audio without frames (a decoder never returns it).
        """
        ...


class TranscriberUnavailable(AppError):
    """The speech-to-text model is missing or failed: not the user's fault."""

    status = 503
    type = "api_error"
    code = "transcriber_unavailable"


class UnknownModel(AppError):
    """No speech-to-text model has that name here."""

    status = 422
    code = "unknown_model"

    def __init__(self, message: str, *, param: str | None = "model_id") -> None:
        super().__init__(message, param=param)


class UnsupportedLanguage(AppError):
    """The model cannot transcribe the language asked for."""

    status = 422
    code = "unsupported_language"

    def __init__(self, message: str, *, param: str | None = "language") -> None:
        super().__init__(message, param=param)


@cache
def whisper_languages() -> frozenset[str]:
    """Every language code Whisper has (large-v3's 100; older models lack "yue")."""
    # Imported here: faster_whisper pulls in CTranslate2 and PyAV, which importing the protocol
    # must not. Its tokenizer holds the list, in token order.
    from faster_whisper.tokenizer import _LANGUAGE_CODES

    return frozenset(str(code) for code in _LANGUAGE_CODES)


def whisper_language(tag: str, languages: Collection[str] | None = None) -> str:
    """The Whisper code of a BCP-47 tag (en-US -> en, pt-BR -> pt, zh-Hans and cmn -> zh),
    among `languages` (default: all of Whisper's). Script and region subtags are dropped:
    Whisper has one code per language. Raises UnsupportedLanguage otherwise."""
    supported = whisper_languages() if languages is None else languages
    cleaned = tag.strip()
    if not _TAG.fullmatch(cleaned):
        raise UnsupportedLanguage(f"{tag!r} is not a BCP-47 language tag.")
    primary = re.split(r"[-_]", cleaned)[0].lower()
    code = _ALIASES.get(primary, primary)
    if code not in supported and len(code) == 3:
        # ISO 639-2/3 spelling of a language with a two-letter code: spa -> es.
        entry = pycountry.languages.get(alpha_3=code)
        two_letter = getattr(entry, "alpha_2", None)
        if two_letter:
            code = _ALIASES.get(two_letter, two_letter)
    if code not in supported:
        code = _FALLBACKS.get(code, code)
    if code not in supported:
        raise UnsupportedLanguage(f"Speech-to-text does not support the language {tag!r}.")
    return code


def bcp47_language(code: str) -> str:
    """The BCP-47 primary subtag of a Whisper code (the same but for Javanese: jw -> jv)."""
    return _WHISPER_TO_BCP47.get(code, code)
