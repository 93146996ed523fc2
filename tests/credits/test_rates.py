"""The spec's rate table and the per-started-second rounding rule."""

from __future__ import annotations

import pytest

from soundstage.credits import rates
from soundstage.credits.rates import Operation


@pytest.mark.parametrize(
    ("operation", "duration_ms", "expected"),
    [
        (Operation.STT, 60_000, 250),
        (Operation.STT, 61_200, 259),  # 62 started seconds * 250 / 60 = 258.3 -> 259
        (Operation.STT, 1, 5),  # 1 started second: ceil(250 / 60)
        (Operation.ISOLATION, 120_000, 1500),
        (Operation.DUBBING_STANDARD, 30_000, 750),
        (Operation.DUBBING_PREMIUM, 30_000, 1500),
        (Operation.MUSIC, 10_000, 125),
        (Operation.DAW, 90_500, 1138),  # 91 s * 750 / 60 = 1137.5 -> 1138
    ],
)
def test_per_minute_rates_round_up_per_started_second(
    operation: Operation, duration_ms: int, expected: int
) -> None:
    assert rates.for_duration(operation, duration_ms) == expected


def test_per_character_and_per_generation() -> None:
    assert rates.for_characters(Operation.TTS, 5000) == 5000
    assert rates.for_generation(Operation.SOUND) == 150
