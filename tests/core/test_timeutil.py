"""The process clock that tests move forward."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from soundstage.core.timeutil import travel, utcnow


def test_travel_moves_the_clock_and_puts_it_back() -> None:
    real = datetime.now(UTC)
    with travel(timedelta(days=31)):
        moved = utcnow()
        assert timedelta(days=31) <= moved - real < timedelta(days=31, seconds=5)
        with travel(timedelta(days=1)):
            assert utcnow() - moved >= timedelta(days=1)
    assert utcnow() - real < timedelta(seconds=5)
