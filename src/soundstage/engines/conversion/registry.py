"""The voice converter: resynthesis, created on first use and kept for the life of the process."""

from __future__ import annotations

from soundstage.engines.conversion.base import VoiceConverter
from soundstage.engines.errors import EngineUnavailable
from soundstage.engines.registry import load_once


def _resynthesis() -> VoiceConverter:
    from soundstage.engines.conversion.resynthesis import ResynthesisConverter

    return ResynthesisConverter()


def get_converter() -> VoiceConverter:
    """The process's one converter: resynthesis, the only mode that makes the output sound
    like the target voice (docs/calibration.md, "Voice conversion", says which one was
    measured and left out)."""
    return load_once("voice converter", "resynthesis", _resynthesis, unavailable=EngineUnavailable)
