"""The voice-isolation engine, DeepFilterNet: created on first use and kept for the life of
the process, so that its model loads once per worker process, never per request."""

from __future__ import annotations

from soundstage.engines.registry import load_once
from soundstage.engines.separators.base import Separator, SeparatorUnavailable


# Imports its module only when called: importing this one must not load the native runtime.
def _deepfilternet() -> Separator:
    from soundstage.engines.separators.deepfilter import DeepFilterSeparator

    return DeepFilterSeparator.load()


def get_separator() -> Separator:
    """The process's one DeepFilterNet separator; raises SeparatorUnavailable if it cannot
    run here (a failure is not remembered: the next call tries again)."""
    return load_once(
        "voice-isolation engine",
        "deepfilternet",
        _deepfilternet,
        unavailable=SeparatorUnavailable,
    )
