"""What every naturalness predictor offers: the Predictor protocol (a predictor that cannot
load here raises engines.errors.EngineUnavailable)."""

from __future__ import annotations

from typing import Protocol

from soundstage.media.audio import Audio


class Predictor(Protocol):
    """A naturalness predictor. Instances are long-lived (one per process, see registry) and
    safe to call from several threads."""

    name: str

    def predict(self, audio: Audio) -> float:
        """The mean opinion score listeners would give `audio` (speech of any rate and channel
        count, at least a fraction of a second), from 1 (bad) to 5 (excellent)."""
        ...
