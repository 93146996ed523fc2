"""ElevenLabs' usage statistics through the official SDK against a live server: the characters
just synthesized, as the credits ledger charged them, per bucket, per operation, per
environment; and the bounds."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pytest
from elevenlabs import ElevenLabs, UsageCharactersResponseModel
from elevenlabs.errors import UnprocessableEntityError

from soundstage.core.db import Database
from tests.support.elevenlabs import ONCE, sdk
from tests.support.factories import create_customer

VOICE = "voice_kal"  # Festival's diphone voice: the fastest engine
TEXT = "Usage is counted in characters."
HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS


def now_ms() -> int:
    return int(time.time() * 1000)


def stats(client: ElevenLabs, start: int, end: int, **query: Any) -> UsageCharactersResponseModel:
    answer: UsageCharactersResponseModel = client.usage.get(
        start_unix=start, end_unix=end, request_options=ONCE, **query
    )
    return answer


def speak(client: ElevenLabs, text: str) -> None:
    b"".join(client.text_to_speech.convert(VOICE, text=text, request_options=ONCE))


def test_character_stats_count_the_characters_just_synthesized(live_url: str, db: Database) -> None:
    customer = create_customer(db, credits_each=1_000)
    client = sdk(live_url, customer.sandbox_key)
    before = now_ms()
    speak(client, TEXT)
    speak(client, TEXT + " Twice.")
    spoken = 2 * len(TEXT) + len(" Twice.")
    start, end = before - 2 * DAY_MS, now_ms() + 60_000

    # The charge is captured as the stream ends: it shows within moments.
    deadline = time.monotonic() + 30
    while sum((daily := stats(client, start, end, metric="tts_characters")).usage["All"]) == 0:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    # One bucket a UTC day, from the day the window starts: today's holds every character.
    assert len(daily.time) in (3, 4)
    assert daily.time[0] <= start < daily.time[0] + DAY_MS
    assert all(b - a == DAY_MS for a, b in zip(daily.time, daily.time[1:], strict=False))
    assert list(daily.usage) == ["All"]
    assert len(daily.usage["All"]) == len(daily.time)
    assert sum(daily.usage["All"]) == spoken

    # Credits by operation (the ledger's), two requests, and one hourly and one whole bucket.
    by_product = stats(
        client,
        start,
        end,
        breakdown_type="product_type",
        aggregation_interval="cumulative",
        include_workspace_metrics=True,
    )
    assert by_product.usage == {"tts": [spoken]}
    assert by_product.time == [start - start % 1000]  # from the window's first second
    assert sum(stats(client, start, end, metric="request_count").usage["All"]) == 2
    hourly = stats(client, before - HOUR_MS, end, aggregation_interval="hour")
    assert sum(hourly.usage["All"]) == spoken
    assert all(b - a == HOUR_MS for a, b in zip(hourly.time, hourly.time[1:], strict=False))
    # Weeks from Monday, calendar months from the 1st, UTC.
    weekly = stats(client, start, end, aggregation_interval="week")
    monthly = stats(client, start, end, aggregation_interval="month")
    assert datetime.fromtimestamp(weekly.time[0] / 1000, UTC).strftime("%a %H:%M") == "Mon 00:00"
    assert datetime.fromtimestamp(monthly.time[0] / 1000, UTC).strftime("%d %H:%M") == "01 00:00"
    assert sum(weekly.usage["All"]) == sum(monthly.usage["All"]) == spoken
    # Buckets of a given length count from the window's start.
    sized = stats(client, before, end, aggregation_bucket_size=60)
    assert sized.time[0] == before - before % 1000
    assert sum(sized.usage["All"]) == spoken

    # Nothing before the synthesis, nothing in the other environment.
    assert sum(stats(client, start, before - 1).usage["All"]) == 0
    production = sdk(live_url, customer.production_key)
    assert sum(stats(production, start, end).usage["All"]) == 0


def test_bounds(live_url: str, db: Database) -> None:
    client = sdk(live_url, create_customer(db).sandbox_key)

    def refused(**query: Any) -> dict[str, Any]:
        with pytest.raises(UnprocessableEntityError) as error:
            client.usage.get(request_options=ONCE, **query)
        detail: dict[str, Any] = error.value.body["detail"]
        return detail

    now = now_ms()
    assert refused(start_unix=now, end_unix=now - 1)["message"].startswith("end_unix")
    # 10,000 buckets at most: 416 days of hours is 9,984 buckets (or 9,985), 417 days more.
    inside = stats(client, now - 416 * DAY_MS + HOUR_MS, now, aggregation_interval="hour")
    assert len(inside.time) <= 10_000
    assert refused(start_unix=now - 417 * DAY_MS, end_unix=now, aggregation_interval="hour")[
        "message"
    ].startswith("aggregation_interval")
    assert refused(start_unix=0, end_unix=now, aggregation_bucket_size=0)["message"].startswith(
        "aggregation_bucket_size"
    )
    # The ledger knows operations, not voices or keys.
    assert refused(start_unix=0, end_unix=now, breakdown_type="voice")["message"].startswith(
        "breakdown_type"
    )
    assert refused(start_unix=0, end_unix=now, metric="ttfb_avg")["message"].startswith("metric")
