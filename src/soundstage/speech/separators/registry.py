"""The voice-isolation engines by name: created on first use and kept for the life of the
process, so that a model loads once per worker process, never per request."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final

from soundstage.speech.separators.base import Separator, SeparatorUnavailable

SeparatorFactory = Callable[[], Separator]

DEFAULT_SEPARATOR: Final = "deepfilternet"


# The factory imports its module only when called: importing the registry must not load the
# native runtime, and an engine whose package is missing is just unavailable.
def _deepfilternet() -> Separator:
    from soundstage.speech.separators.deepfilter import DeepFilterSeparator

    return DeepFilterSeparator.load()


_FACTORIES: dict[str, SeparatorFactory] = {DEFAULT_SEPARATOR: _deepfilternet}
_SEPARATORS: dict[str, Separator] = {}
_LOCK = threading.Lock()


def separator_names() -> list[str]:
    return list(_FACTORIES)


def register_separator(name: str, factory: SeparatorFactory) -> None:
    """Add or replace an engine (e.g. a GPU source-separation model from a deployment's plugin
    module)."""
    with _LOCK:
        _FACTORIES[name] = factory
        _SEPARATORS.pop(name, None)


def get_separator(name: str | None = None) -> Separator:
    """The process's one instance of the named engine (default: deepfilternet).

    Raises SeparatorUnavailable if there is no engine of that name or it cannot run here (a
    failure is not remembered: the next call tries again).
    """
    name = name or DEFAULT_SEPARATOR
    separator = _SEPARATORS.get(name)
    if separator is not None:
        return separator
    with _LOCK:
        # Held while creating, so that concurrent first calls load the model once.
        separator = _SEPARATORS.get(name)
        if separator is None:
            factory = _FACTORIES.get(name)
            if factory is None:
                raise SeparatorUnavailable(f"There is no voice-isolation engine named {name!r}.")
            try:
                separator = factory()
            except ImportError as exc:
                raise SeparatorUnavailable(
                    f"The {name} voice-isolation engine is not installed: {exc}."
                ) from exc
            except OSError as exc:
                raise SeparatorUnavailable(
                    f"The {name} voice-isolation engine could not be loaded: {exc}."
                ) from exc
            _SEPARATORS[name] = separator
        return separator
