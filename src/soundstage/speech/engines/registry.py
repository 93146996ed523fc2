"""The text-to-speech engines by name: created on first use and kept for the life of the process,
so that models load once per worker process, never per request."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from soundstage.config import get_settings
from soundstage.speech.engines.base import EngineUnavailable, EngineVoice, SpeechSynthesizer

log = logging.getLogger(__name__)

EngineFactory = Callable[[], SpeechSynthesizer]


# The factories import their module only when called: importing the registry must not load
# onnxruntime, and an engine whose Python package is missing is just unavailable.
def _piper() -> SpeechSynthesizer:
    from soundstage.speech.engines.piper import PiperEngine

    return PiperEngine.from_settings(get_settings())


def _festival() -> SpeechSynthesizer:
    from soundstage.speech.engines.festival import FestivalEngine

    return FestivalEngine()


def _flite() -> SpeechSynthesizer:
    from soundstage.speech.engines.flite import FliteEngine

    return FliteEngine()


def _espeak() -> SpeechSynthesizer:
    from soundstage.speech.engines.espeak import EspeakEngine

    return EspeakEngine()


# Best first: all_voices() lists the engines in this order.
_FACTORIES: dict[str, EngineFactory] = {
    "piper": _piper,
    "festival": _festival,
    "flite": _flite,
    "espeak": _espeak,
}
_ENGINES: dict[str, SpeechSynthesizer] = {}
_LOCK = threading.Lock()


def engine_names() -> list[str]:
    return list(_FACTORIES)


def register_engine(name: str, factory: EngineFactory) -> None:
    """Add or replace an engine (e.g. a GPU model from a deployment's plugin module)."""
    with _LOCK:
        _FACTORIES[name] = factory
        _ENGINES.pop(name, None)


def get_engine(name: str) -> SpeechSynthesizer:
    """The process's one instance of the named engine; EngineUnavailable if it is unknown or
    cannot run here (a failure is not remembered: the next call tries again)."""
    engine = _ENGINES.get(name)
    if engine is not None:
        return engine
    with _LOCK:
        # Held while creating, so that concurrent first calls create the engine once.
        engine = _ENGINES.get(name)
        if engine is None:
            factory = _FACTORIES.get(name)
            if factory is None:
                raise EngineUnavailable(f"There is no text-to-speech engine named {name!r}.")
            try:
                engine = factory()
            except ImportError as exc:
                raise EngineUnavailable(
                    f"The {name} text-to-speech engine is not installed: {exc}."
                ) from exc
            _ENGINES[name] = engine
        return engine


def all_voices() -> list[EngineVoice]:
    """Every voice of every engine that can run here; engines that cannot are left out."""
    voices: list[EngineVoice] = []
    for name in engine_names():
        try:
            voices.extend(get_engine(name).voices())
        except EngineUnavailable as exc:
            log.warning("text-to-speech engine %s left out: %s", name, exc.message)
    return voices
