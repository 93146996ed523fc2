"""The voice-isolation engines by name: created on first use and kept for the life of the
process, so that a model loads once per worker process, never per request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from soundstage.engines.registry import Registry
from soundstage.engines.separators.base import Separator, SeparatorUnavailable

SeparatorFactory = Callable[[], Separator]

DEFAULT_SEPARATOR: Final = "deepfilternet"


# The factory imports its module only when called: importing the registry must not load the
# native runtime.
def _deepfilternet() -> Separator:
    from soundstage.engines.separators.deepfilter import DeepFilterSeparator

    return DeepFilterSeparator.load()


_SEPARATORS: Registry[Separator] = Registry(
    "voice-isolation engine",
    {DEFAULT_SEPARATOR: _deepfilternet},
    unknown=SeparatorUnavailable,
    unavailable=SeparatorUnavailable,
)


def separator_names() -> list[str]:
    return _SEPARATORS.names()


def register_separator(name: str, factory: SeparatorFactory) -> None:
    """Add or replace an engine (e.g. a GPU source-separation model from a deployment's plugin
    module)."""
    _SEPARATORS.register(name, factory)


def get_separator(name: str | None = None) -> Separator:
    """The process's one instance of the named engine (default: deepfilternet); raises
    SeparatorUnavailable if there is no engine of that name or it cannot run here (a failure
    is not remembered: the next call tries again)."""
    return _SEPARATORS.get(name or DEFAULT_SEPARATOR)
