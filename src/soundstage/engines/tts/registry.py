"""The text-to-speech engines by name: created on first use and kept for the life of the process,
so that models load once per worker process, never per request."""

from __future__ import annotations

import logging

from soundstage.config import get_settings
from soundstage.engines.errors import EngineUnavailable
from soundstage.engines.registry import Registry
from soundstage.engines.tts.base import EngineVoice, SpeechSynthesizer

log = logging.getLogger(__name__)


# The factories import their module only when called: importing the registry must not load
# onnxruntime.
def _piper() -> SpeechSynthesizer:
    from soundstage.engines.tts.piper import PiperEngine

    return PiperEngine.from_settings(get_settings())


def _kokoro() -> SpeechSynthesizer:
    from soundstage.engines.tts.kokoro import KokoroEngine

    return KokoroEngine.from_settings(get_settings())


def _festival() -> SpeechSynthesizer:
    from soundstage.engines.tts.festival import FestivalEngine

    return FestivalEngine()


def _flite() -> SpeechSynthesizer:
    from soundstage.engines.tts.flite import FliteEngine

    return FliteEngine()


def _pico() -> SpeechSynthesizer:
    from soundstage.engines.tts.pico import PicoEngine

    return PicoEngine()


def _espeak() -> SpeechSynthesizer:
    from soundstage.engines.tts.espeak import EspeakEngine

    return EspeakEngine()


# Best first: all_voices() lists the engines in this order.
_ENGINES: Registry[SpeechSynthesizer] = Registry(
    "text-to-speech engine",
    {
        "piper": _piper,
        "kokoro": _kokoro,
        "festival": _festival,
        "flite": _flite,
        "pico": _pico,
        "espeak": _espeak,
    },
    unknown=EngineUnavailable,
    unavailable=EngineUnavailable,
)


def engine_names() -> list[str]:
    return _ENGINES.names()


def get_engine(name: str) -> SpeechSynthesizer:
    """The process's one instance of the named engine; EngineUnavailable if it is unknown or
    cannot run here (a failure is not remembered: the next call tries again)."""
    return _ENGINES.get(name)


def all_voices() -> list[EngineVoice]:
    """Every voice of every engine that can run here; engines that cannot are left out."""
    voices: list[EngineVoice] = []
    for name in engine_names():
        try:
            voices.extend(get_engine(name).voices())
        except EngineUnavailable as exc:
            log.warning("text-to-speech engine %s left out: %s", name, exc.message)
    return voices
