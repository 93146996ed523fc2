"""What the two tiers do differently, and what they cost and take."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from soundstage.credits.rates import Operation

TierName = Literal["standard", "premium"]


@dataclass(frozen=True)
class Tier:
    name: TierName
    operation: Operation
    # Whisper's beam when transcribing the source (1: greedy decoding).
    beam_size: int
    # English words placed by forced alignment (PocketSphinx) rather than Whisper's own
    # word times (docs/calibration.md, "Dubbing tiers"): utterance edges, and so where each
    # dubbed line starts, follow the source more closely.
    align_words: bool
    # Passes of the voice isolation: the second runs the recording backwards and averages
    # the two voice estimates (better on music, at twice the cost; docs/calibration.md).
    isolation_passes: int
    # Seconds of work per second of media, and the fixed cost of a job (model loads in a
    # fresh worker, input and output), measured (docs/calibration.md, "Dubbing tiers"). They
    # make estimated_completion_ms.
    realtime_factor: float
    overhead_ms: int


TIERS: Final[dict[TierName, Tier]] = {
    "standard": Tier(
        name="standard",
        operation=Operation.DUBBING_STANDARD,
        beam_size=1,
        align_words=False,
        isolation_passes=1,
        realtime_factor=0.9,
        overhead_ms=10_000,
    ),
    "premium": Tier(
        name="premium",
        operation=Operation.DUBBING_PREMIUM,
        beam_size=5,
        align_words=True,
        isolation_passes=2,
        realtime_factor=2.0,
        overhead_ms=10_000,
    ),
}


def estimated_completion_ms(tier: TierName, duration_ms: int) -> int:
    profile = TIERS[tier]
    return round(profile.overhead_ms + duration_ms * profile.realtime_factor)
