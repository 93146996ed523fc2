"""The libraries only audio work uses (tests/test_imports.py names them), which the engines
import where they use them so that an API process never loads them. A worker imports them
once, in its parent before it forks its job processes: they share them, and no job pays
their import (nor grows by it: tests/speech/test_memory_bounds.py)."""

from __future__ import annotations


def preload() -> None:
    """Import them now, in this process."""
    import faster_whisper  # noqa: F401
    import pyloudnorm  # noqa: F401
    import scipy.cluster.hierarchy
    import scipy.ndimage
    import scipy.signal  # noqa: F401
