"""The voice converters by name: created on first use and kept for the life of the process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from soundstage.core.errors import AppError
from soundstage.engines.conversion.base import VoiceConverter
from soundstage.engines.errors import EngineUnavailable
from soundstage.engines.registry import Registry

ConverterFactory = Callable[[], VoiceConverter]

# The only mode that makes the output sound like the target voice (docs/calibration.md,
# "Voice conversion", says which one was measured and left out).
DEFAULT_CONVERTER: Final = "resynthesis"


def _resynthesis() -> VoiceConverter:
    from soundstage.engines.conversion.resynthesis import ResynthesisConverter

    return ResynthesisConverter()


class UnknownConverter(AppError):
    """No voice converter has that name here."""

    status = 422
    code = "unknown_converter"

    def __init__(self, message: str, *, param: str | None = "mode") -> None:
        super().__init__(message, param=param)


_CONVERTERS: Registry[VoiceConverter] = Registry(
    "voice converter",
    {DEFAULT_CONVERTER: _resynthesis},
    unknown=UnknownConverter,
    unavailable=EngineUnavailable,
)


def converter_names() -> list[str]:
    return _CONVERTERS.names()


def register_converter(name: str, factory: ConverterFactory) -> None:
    """Add or replace a converter (e.g. a neural model from a deployment's plugin module)."""
    _CONVERTERS.register(name, factory)


def get_converter(name: str = DEFAULT_CONVERTER) -> VoiceConverter:
    """The process's one instance of the named converter; UnknownConverter if none has it."""
    return _CONVERTERS.get(name)
