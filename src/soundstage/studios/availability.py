"""Opening sessions, free intervals and bookable start times of a studio's date.

Everything is computed in UTC minutes since the Unix epoch on a grid of 15-minute units, so a
daylight-saving change, a 30- or 45-minute time zone or an overnight session needs no special
case: local times are turned into instants once, at the edges. Intervals are half-open
[start, end).

A session belongs to the local date it opens on; an overnight session (22:00-04:00) runs into
the next date. A closure on a date cancels the sessions that open that date, not the tail of
the previous night's.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Final
from zoneinfo import ZoneInfo

QUARTER: Final = 15  # minutes: the booking grid and the unit of occupancy
DAY: Final = 1440

Interval = tuple[int, int]


@dataclass(frozen=True)
class WeeklySession:
    """Opening hours of one weekday (0 = Monday), minutes of the local day; `closes_minute`
    <= `opens_minute` ends the next day, 1440 is midnight."""

    weekday: int
    opens_minute: int
    closes_minute: int

    @property
    def overnight(self) -> bool:
        return self.closes_minute <= self.opens_minute


def to_minute(moment: datetime) -> int:
    return int(moment.timestamp()) // 60


def from_minute(minute: int, tz: tzinfo) -> datetime:
    return datetime.fromtimestamp(minute * 60, UTC).astimezone(tz)


def local_moment(day: date, minute_of_day: int, tz: ZoneInfo) -> datetime:
    """Minute `minute_of_day` (1440 and beyond: the following days) of the local `day`. A
    wall-clock time the clocks skip reads with the offset before the change (fold 0)."""
    whole_days, minute = divmod(minute_of_day, DAY)
    wall = time(minute // 60, minute % 60)
    return datetime.combine(day + timedelta(days=whole_days), wall, tzinfo=tz)


def exists_locally(moment: datetime) -> bool:
    """False for a wall-clock time that the clocks skip (spring forward)."""
    back = moment.astimezone(UTC).astimezone(moment.tzinfo)
    return back.replace(tzinfo=None) == moment.replace(tzinfo=None)


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """Sorted, with overlapping and touching intervals joined."""
    merged: list[Interval] = []
    for start, end in sorted(intervals):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def subtract(intervals: Sequence[Interval], taken: Sequence[Interval]) -> list[Interval]:
    """Parts of merged `intervals` outside merged `taken`."""
    out: list[Interval] = []
    for start, end in intervals:
        cursor = start
        for t_start, t_end in taken:
            if t_end <= cursor or t_start >= end:
                continue
            if t_start > cursor:
                out.append((cursor, t_start))
            cursor = max(cursor, t_end)
        if cursor < end:
            out.append((cursor, end))
    return out


def clip(intervals: Sequence[Interval], low: int, high: int) -> list[Interval]:
    return [(max(s, low), min(e, high)) for s, e in intervals if min(e, high) > max(s, low)]


def ceil_quarter(minute: int) -> int:
    return -(-minute // QUARTER) * QUARTER


def sessions(
    hours: Sequence[WeeklySession],
    closures: Collection[date],
    tz: ZoneInfo,
    first: date,
    last: date,
) -> list[Interval]:
    """The sessions opening on the local dates `first`..`last` (closed dates left out),
    merged."""
    found: list[Interval] = []
    day = first
    while day <= last:
        if day not in closures:
            for session in hours:
                if session.weekday != day.weekday():
                    continue
                closes = session.closes_minute + (DAY if session.overnight else 0)
                start = to_minute(local_moment(day, session.opens_minute, tz))
                found.append((start, to_minute(local_moment(day, closes, tz))))
        day += timedelta(days=1)
    return merge(found)


def blocked(occupied: Iterable[int], buffer_minutes: int) -> list[Interval]:
    """Where a new booking of a room may not be, given the units other bookings occupy: each
    unit, and the room's buffer before it (the new booking's buffer must not reach it)."""
    return merge((unit - buffer_minutes, unit + QUARTER) for unit in occupied)


def occupied_units(start: int, end: int, buffer_minutes: int) -> range:
    """The units a booking [start, end) takes: its time and the room's buffer after it."""
    return range(start, end + buffer_minutes, QUARTER)


def start_times(free: Sequence[Interval], low: int, high: int, length: int) -> list[int]:
    """Grid minutes in [low, high) at which `length` minutes fit inside one free interval."""
    found: list[int] = []
    for start, end in free:
        moment = max(start, ceil_quarter(low))
        while moment < high and moment + length <= end:
            found.append(moment)
            moment += QUARTER
    return found


def containing(intervals: Sequence[Interval], start: int, end: int) -> Interval | None:
    for interval in intervals:
        if interval[0] <= start and end <= interval[1]:
            return interval
    return None


@dataclass(frozen=True)
class DayWindow:
    """A local date of a studio, in UTC minutes."""

    day_start: int  # local midnight opening the date
    day_end: int  # local midnight closing it
    # The date's opening hours: its own sessions (with their overnight tails) and the part of
    # the previous night's session after midnight.
    opening: list[Interval]
    # Every session a booking starting on this date may run in: the previous, this and the
    # next date's, merged (a 24/7 studio's nights join up).
    reach: list[Interval]


def day_window(
    hours: Sequence[WeeklySession], closures: Collection[date], tz: ZoneInfo, day: date
) -> DayWindow:
    day_start = to_minute(local_moment(day, 0, tz))
    day_end = to_minute(local_moment(day, DAY, tz))
    before = day - timedelta(days=1)
    previous_tail = clip(sessions(hours, closures, tz, before, before), day_start, 2**62)
    own = sessions(hours, closures, tz, day, day)
    reach = sessions(hours, closures, tz, before, day + timedelta(days=1))
    return DayWindow(day_start, day_end, merge([*previous_tail, *own]), reach)


# ASCII digits only (`\d` also takes Arabic-Indic digits); fullmatch, so no trailing newline either.
_CLOCK: Final = re.compile(r"([01][0-9]|2[0-4]):([0-5][0-9])", re.ASCII)


def clock_minute(text: str, *, midnight_end: bool = False) -> int:
    """Minutes of the day of an `HH:MM` on the quarter hour; "24:00" (1440) only as an end.
    ValueError with a message for the caller otherwise."""
    match = _CLOCK.fullmatch(text)
    minute = int(match[1]) * 60 + int(match[2]) if match else -1
    if not 0 <= minute <= (DAY if midnight_end else DAY - 1):
        allowed = "00:00 to 24:00" if midnight_end else "00:00 to 23:45"
        raise ValueError(f"must be a 24-hour time HH:MM from {allowed}")
    if minute % QUARTER:
        raise ValueError("must be on the quarter hour (minutes 00, 15, 30 or 45)")
    return minute


def clock_text(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"
