"""ElevenLabs' character stats from the credits ledger: what the caller's account was charged
in the key's environment (captures; held and released credits count nothing), per time
bucket, summed by the database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from sqlalchemy.orm import Session

from soundstage.compat.elevenlabs.usage.schemas import (
    ALL,
    Breakdown,
    ElevenLabsUsageCharacters,
    Interval,
    Metric,
)
from soundstage.core.errors import InvalidField
from soundstage.core.principal import Principal
from soundstage.credits import service as credits
from soundstage.credits.rates import CREDITS_PER_CHARACTER, Operation

# The job kinds charged per character of text (Operation.TTS's rate): speech, realtime speech
# and dialogue.
TEXT_KINDS: Final = frozenset({"tts", "tts_realtime", "dialogue"})
MAX_BUCKETS: Final = 10_000
_HOUR: Final = 3_600
_DAY: Final = 86_400


@dataclass(frozen=True)
class Axis:
    """The answer's buckets (`starts`), and the database's: `seconds` long from `origin`
    (days, gathered into the answer's calendar months when `monthly`)."""

    origin: datetime
    seconds: int
    starts: list[datetime]
    monthly: bool = False

    def bucket_of(self, index: int) -> int:
        """The answer's bucket of the database's bucket `index`."""
        if not self.monthly:
            return index
        return _months(self.starts[0], self.origin + timedelta(seconds=index * self.seconds))


def _months(first: datetime, moment: datetime) -> int:
    return (moment.year - first.year) * 12 + moment.month - first.month


def _midnight(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _axis(start: datetime, end: datetime, interval: Interval, bucket_seconds: int | None) -> Axis:
    """The buckets from the one holding `start` to the one holding `end`: hours, UTC days,
    ISO weeks (from Monday) and calendar months start where those do; `bucket_seconds`
    buckets and the one `cumulative` bucket start at `start`."""
    first_second = start.replace(microsecond=0)
    if bucket_seconds is not None:
        origin, seconds, param = first_second, bucket_seconds, "aggregation_bucket_size"
    elif interval == "cumulative":
        origin = first_second
        seconds = int((end - origin).total_seconds()) + 1
        param = "aggregation_interval"
    elif interval == "month":
        first = _midnight(start).replace(day=1)
        count = _months(first, end) + 1
        if count > MAX_BUCKETS:
            raise _too_many(count, "aggregation_interval")
        months = (first.month - 1 + n for n in range(count))
        starts = [datetime(first.year + m // 12, m % 12 + 1, 1, tzinfo=UTC) for m in months]
        return Axis(_midnight(start), _DAY, starts, monthly=True)
    else:
        param = "aggregation_interval"
        if interval == "hour":
            origin, seconds = start.replace(minute=0, second=0, microsecond=0), _HOUR
        elif interval == "week":
            origin = _midnight(start) - timedelta(days=start.weekday())
            seconds = 7 * _DAY
        else:
            origin, seconds = _midnight(start), _DAY
    count = int((end - origin).total_seconds()) // seconds + 1
    if count > MAX_BUCKETS:
        raise _too_many(count, param)
    return Axis(origin, seconds, [origin + timedelta(seconds=n * seconds) for n in range(count)])


def _too_many(count: int, param: str) -> InvalidField:
    return InvalidField(
        f"{param}: the window holds {count:,} buckets of it; at most {MAX_BUCKETS:,} are "
        "answered (take longer buckets or a shorter window).",
        param=param,
    )


def _value(metric: Metric, operation: str, charged: int, captures: int) -> int | None:
    """What one operation's captures in a bucket count for, None if nothing."""
    if metric == "credits":
        return charged
    if metric == "request_count":
        return captures
    if operation in TEXT_KINDS:
        return charged // CREDITS_PER_CHARACTER[Operation.TTS]
    return None


def character_stats(
    session: Session,
    principal: Principal,
    *,
    start: datetime,
    end: datetime,
    interval: Interval,
    bucket_seconds: int | None,
    breakdown: Breakdown,
    metric: Metric,
) -> ElevenLabsUsageCharacters:
    """`metric` per bucket from `start` to `end` (both included): `credits` charged (every
    operation), `tts_characters` (the characters of text to speech and dialogue, as billed:
    aliases as spoken) or `request_count` (charges), one series `All`, or one per operation
    charged by `product_type`."""
    if end < start:
        raise InvalidField("end_unix: the window ends before it starts.", param="end_unix")
    axis = _axis(start, end, interval, bucket_seconds)
    series: dict[str, list[float]] = {ALL: [0.0] * len(axis.starts)} if breakdown == "none" else {}
    rows = credits.captured_per_bucket(
        session, principal, start, end, origin=axis.origin, bucket_seconds=axis.seconds
    )
    for row in rows:
        value = _value(metric, row.operation, row.credits, row.captures)
        if value is None:
            continue
        key = ALL if breakdown == "none" else row.operation
        values = series.setdefault(key, [0.0] * len(axis.starts))
        values[axis.bucket_of(row.bucket)] += value
    return ElevenLabsUsageCharacters(
        time=[int(moment.timestamp() * 1000) for moment in axis.starts],
        usage=dict(sorted(series.items())),
    )
