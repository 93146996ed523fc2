"""What every translator offers: the Translator protocol, language pairs and errors."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

import pycountry

from soundstage.core.errors import AppError
from soundstage.media.audio import Audio


@dataclass(frozen=True)
class LanguagePair:
    """A direction a translator can take, in BCP-47 primary subtags ("en" -> "es"); via names
    the languages it goes through on the way (("es",) for English to French by Apertium)."""

    source: str
    target: str
    translator: str
    via: tuple[str, ...] = ()


@dataclass(frozen=True)
class SourceUtterance:
    """What one speaker said in one go: the words as transcribed, and the speech itself (16 kHz
    mono) for translators that listen rather than read."""

    text: str
    speech: Audio | None = None


class Translator(Protocol):
    """A translation engine. Instances are long-lived (one per worker process, see
    registry.get_translator) and safe to call from several threads."""

    name: str

    def pairs(self) -> list[LanguagePair]:
        """Every direction this engine can translate here (with what is installed)."""
        ...

    def translate(self, utterances: Sequence[SourceUtterance], pair: LanguagePair) -> list[str]:
        """One translation per utterance, in order (an utterance may translate to ""). pair is
        one of pairs(). Raises TranslatorUnavailable if the engine fails."""
        ...


class UnsupportedLanguagePair(AppError):
    """No translator (or no voice) here takes this direction."""

    status = 422
    code = "unsupported_language_pair"

    def __init__(self, message: str, *, param: str | None = "target_language") -> None:
        super().__init__(message, param=param)


class TranslatorUnavailable(AppError):
    """The translation engine is missing or failed: not the user's fault."""

    status = 503
    type = "api_error"
    code = "translator_unavailable"


_TAG: Final = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")


def language_code(tag: str, *, param: str = "target_language") -> str:
    """The primary subtag of a BCP-47 tag, lower case, two letters where ISO 639-1 has them:
    "en-GB" -> "en", "spa" -> "es", "pt_BR" -> "pt". UnsupportedLanguagePair (naming param)
    for what is not a language tag."""
    cleaned = tag.strip()
    if not _TAG.fullmatch(cleaned):
        raise UnsupportedLanguagePair(f"{tag!r} is not a BCP-47 language tag.", param=param)
    primary = re.split(r"[-_]", cleaned)[0].lower()
    if len(primary) == 3:
        entry = pycountry.languages.get(alpha_3=primary)
        two_letter = getattr(entry, "alpha_2", None)
        if two_letter:
            return str(two_letter)
    return primary
