"""The voice converters by name: created on first use and kept for the life of the process."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final

from soundstage.core.errors import AppError
from soundstage.speech.conversion.base import VoiceConverter

ConverterFactory = Callable[[], VoiceConverter]

# The only mode that makes the output sound like the target voice. A signal-processing mode
# (Praat's "Change gender" toward the voice's pitch and formants) was measured and left out:
# its output stayed closer to the input speaker than to the target voice for every voice.
DEFAULT_CONVERTER: Final = "resynthesis"


def _resynthesis() -> VoiceConverter:
    from soundstage.speech.conversion.resynthesis import ResynthesisConverter

    return ResynthesisConverter()


_FACTORIES: dict[str, ConverterFactory] = {DEFAULT_CONVERTER: _resynthesis}
_CONVERTERS: dict[str, VoiceConverter] = {}
_LOCK = threading.Lock()


class UnknownConverter(AppError):
    """No voice converter has that name here."""

    status = 422
    code = "converter_not_found"

    def __init__(self, message: str, *, param: str | None = "mode") -> None:
        super().__init__(message, param=param)


def converter_names() -> list[str]:
    return list(_FACTORIES)


def register_converter(name: str, factory: ConverterFactory) -> None:
    """Add or replace a converter (e.g. a neural model from a deployment's plugin module)."""
    with _LOCK:
        _FACTORIES[name] = factory
        _CONVERTERS.pop(name, None)


def get_converter(name: str = DEFAULT_CONVERTER) -> VoiceConverter:
    """The process's one instance of the named converter; UnknownConverter if none has it."""
    converter = _CONVERTERS.get(name)
    if converter is not None:
        return converter
    with _LOCK:
        converter = _CONVERTERS.get(name)
        if converter is None:
            factory = _FACTORIES.get(name)
            if factory is None:
                raise UnknownConverter(f"There is no voice converter named {name!r}.")
            converter = factory()
            _CONVERTERS[name] = converter
        return converter
