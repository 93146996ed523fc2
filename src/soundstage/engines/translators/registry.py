"""The translators by name, in order of preference, created on first use and kept for the life
of the process; and the route of a language pair: the engine that takes it with the fewest
pivots, the earlier engine on a tie.

A deployment adds an engine (a neural model on a GPU, a cloud API) from a plugin module
loaded through SOUNDSTAGE_JOBS__PLUGINS, with register_translator(name, factory, first=True):
from then on it translates every pair it offers."""

from __future__ import annotations

import logging
from collections.abc import Callable

from soundstage.config import get_settings
from soundstage.core.errors import AppError
from soundstage.engines.registry import Registry
from soundstage.engines.translators.base import (
    LanguagePair,
    Translator,
    TranslatorUnavailable,
    UnsupportedLanguagePair,
)

log = logging.getLogger(__name__)

TranslatorFactory = Callable[[], Translator]


def _apertium() -> Translator:
    from soundstage.engines.translators.apertium import ApertiumTranslator

    return ApertiumTranslator.load()


def _whisper() -> Translator:
    from soundstage.engines.translators.whisper import WhisperSpeechTranslator

    return WhisperSpeechTranslator(get_settings())


# Apertium first: on the pairs it has without a pivot (Spanish to English) its rules keep
# names and numbers exactly, where whisper-base paraphrases; Whisper comes before pivots.
_TRANSLATORS: Registry[Translator] = Registry(
    "translator",
    {"apertium": _apertium, "whisper": _whisper},
    unknown=TranslatorUnavailable,
    unavailable=TranslatorUnavailable,
)


def translator_names() -> list[str]:
    return _TRANSLATORS.names()


def register_translator(name: str, factory: TranslatorFactory, *, first: bool = False) -> None:
    """Add or replace an engine; first puts it ahead of the others on every pair it offers."""
    _TRANSLATORS.register(name, factory, first=first)


def unregister_translator(name: str) -> None:
    _TRANSLATORS.unregister(name)


def get_translator(name: str) -> Translator:
    """The process's one instance of the named engine; TranslatorUnavailable if it is
    unknown or cannot run here (a failure is not remembered: the next call tries again)."""
    return _TRANSLATORS.get(name)


def available_pairs() -> list[LanguagePair]:
    """The best route of every direction some engine here takes (see route())."""
    best: dict[tuple[str, str], tuple[int, int, LanguagePair]] = {}
    for rank, name in enumerate(translator_names()):
        try:
            pairs = get_translator(name).pairs()
        except AppError as exc:
            log.warning("translator %s left out: %s", name, exc.message)
            continue
        for pair in pairs:
            key = (pair.source, pair.target)
            candidate = (len(pair.via), rank, pair)
            if key not in best or candidate[:2] < best[key][:2]:
                best[key] = candidate
    return [entry[2] for _, entry in sorted(best.items())]


def route(source: str, target: str) -> tuple[Translator, LanguagePair]:
    """The engine and route for source -> target (primary subtags); UnsupportedLanguagePair
    when no engine here takes that direction."""
    for pair in available_pairs():
        if (pair.source, pair.target) == (source, target):
            return get_translator(pair.translator), pair
    raise UnsupportedLanguagePair(
        f"Dubbing from {source!r} into {target!r} is not supported here; "
        "GET /api/v1/speech/dubbing/languages lists the pairs that are."
    )
