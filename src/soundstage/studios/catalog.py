"""The studio catalog as content: what an import file (and the demo generator) describes,
validated before anything is written.

A file is `{"studios": [ ... ]}`; each studio carries its rooms, weekly opening hours and
closures. Ids are the operator's and never change; importing a studio again replaces its
content (see studios.importer).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from itertools import pairwise
from typing import Annotated, Final, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pycountry
from pydantic import AfterValidator, Field, StringConstraints, field_validator, model_validator

from soundstage.core.schemas import CalendarDate, MediaUrl, RequestModel
from soundstage.studios.availability import DAY, QUARTER, WeeklySession, clock_minute
from soundstage.studios.places import place_key

StudioType = Literal["recording", "mixing", "mastering", "podcast", "foley"]
STUDIO_TYPES: Final[tuple[StudioType, ...]] = (
    "recording",
    "mixing",
    "mastering",
    "podcast",
    "foley",
)
Weekday = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
WEEKDAYS: Final[tuple[Weekday, ...]] = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
)
CatalogId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,40}$")]
ShortText = Annotated[str, StringConstraints(min_length=1, max_length=100)]
MAX_BUFFER_MINUTES: Final = 240
MAX_MIN_BOOKING_HOURS: Final = 24
MAX_BOOTH_CAPACITY: Final = 1000
MAX_HOURLY_RATE_CENTS: Final = 10_000_000_000


def _opening_time(value: str) -> str:
    clock_minute(value)
    return value


def _closing_time(value: str) -> str:
    clock_minute(value, midnight_end=True)
    return value


def _place(value: str) -> str:
    if not place_key(value):
        raise ValueError("must contain a letter or a digit")
    return value


def _ascii_letters(value: str, length: int) -> bool:
    return len(value) == length and value.isascii() and value.isalpha()


def _currency(value: str) -> str:
    code = value.upper()
    # ASCII before upper(): 'ß'.upper() is 'SS', so 'ßp' would read as SSP.
    if not _ascii_letters(value, 3) or pycountry.currencies.get(alpha_3=code) is None:
        raise ValueError("must be an ISO 4217 currency code, e.g. USD")
    return code


def _country(value: str) -> str:
    code = value.upper()
    if not _ascii_letters(value, 2) or pycountry.countries.get(alpha_2=code) is None:
        raise ValueError("must be an ISO 3166-1 alpha-2 country code, e.g. US")
    return code


def _timezone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError("must be an IANA time zone, e.g. America/New_York") from exc
    return value


class OpeningHoursSpec(RequestModel):
    """One opening session; `close` at or before `open` ends the next day (overnight),
    "24:00" is midnight, "00:00"-"24:00" is the whole day."""

    day: Weekday
    open: Annotated[str, AfterValidator(_opening_time)]
    close: Annotated[str, AfterValidator(_closing_time)]

    @model_validator(mode="after")
    def _not_empty(self) -> OpeningHoursSpec:
        if self.open == self.close:
            raise ValueError("open and close are equal: use 00:00-24:00 for a whole day")
        return self

    def session(self) -> WeeklySession:
        return WeeklySession(
            WEEKDAYS.index(self.day),
            clock_minute(self.open),
            clock_minute(self.close, midnight_end=True),
        )


class ClosureSpec(RequestModel):
    date: CalendarDate
    reason: str = Field(default="", max_length=200)


class RoomSpec(RequestModel):
    id: CatalogId
    name: str = Field(min_length=1, max_length=200)
    booth_capacity: int = Field(ge=1, le=MAX_BOOTH_CAPACITY, description="People in the booth.")
    hourly_rate_cents: int = Field(ge=1, le=MAX_HOURLY_RATE_CENTS)
    currency: Annotated[str, AfterValidator(_currency)]
    min_booking_hours: int = Field(default=1, ge=1, le=MAX_MIN_BOOKING_HOURS)
    buffer_minutes: int = Field(default=0, ge=0, le=MAX_BUFFER_MINUTES)

    @field_validator("buffer_minutes")
    @classmethod
    def _on_grid(cls, value: int) -> int:
        if value % QUARTER:
            raise ValueError("must be a multiple of 15")
        return value


class AddressSpec(RequestModel):
    line1: str = Field(default="", max_length=200)
    city: Annotated[str, StringConstraints(min_length=1, max_length=100), AfterValidator(_place)]
    state: Annotated[str, StringConstraints(min_length=1, max_length=100), AfterValidator(_place)]
    state_code: Annotated[str, StringConstraints(max_length=10), AfterValidator(_place)] | None = (
        None
    )
    postal_code: str = Field(default="", max_length=20)
    country: Annotated[str, AfterValidator(_country)]


class StudioSpec(RequestModel):
    id: CatalogId
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=5000)
    types: list[StudioType] = Field(min_length=1, max_length=len(STUDIO_TYPES))
    address: AddressSpec
    timezone: Annotated[str, StringConstraints(max_length=64), AfterValidator(_timezone)]
    latitude: float = Field(ge=-90, le=90)
    longitude: float = Field(ge=-180, le=180)
    amenities: list[ShortText] = Field(default_factory=list, max_length=50)
    equipment: list[ShortText] = Field(default_factory=list, max_length=50)
    photos: list[MediaUrl] = Field(default_factory=list, max_length=20)
    rating: float | None = Field(default=None, ge=0, le=5)
    review_count: int = Field(default=0, ge=0)
    rooms: list[RoomSpec] = Field(min_length=1, max_length=50)
    opening_hours: list[OpeningHoursSpec] = Field(default_factory=list, max_length=50)
    closures: list[ClosureSpec] = Field(default_factory=list, max_length=1000)
    active: bool = True

    @model_validator(mode="after")
    def _consistent(self) -> StudioSpec:
        if len(set(self.types)) != len(self.types):
            raise ValueError("types: each type once")
        if (self.rating is None) != (self.review_count == 0):
            raise ValueError("rating is given exactly when review_count is above 0")
        if len({room.id for room in self.rooms}) != len(self.rooms):
            raise ValueError("rooms: room ids must be unique")
        if len({room.currency for room in self.rooms}) != 1:
            raise ValueError("rooms: every room of a studio has the same currency")
        if len({closure.date for closure in self.closures}) != len(self.closures):
            raise ValueError("closures: each date once")
        _check_no_overlap(self.opening_hours)
        return self

    def sessions(self) -> list[WeeklySession]:
        return [hours.session() for hours in self.opening_hours]

    def content_hash(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()


def _check_no_overlap(hours: list[OpeningHoursSpec]) -> None:
    """Sessions must not overlap on the weekly circle (an overnight one included)."""
    week = 7 * DAY
    spans: list[tuple[int, int, int]] = []
    for index, item in enumerate(hours):
        session = item.session()
        start = session.weekday * DAY + session.opens_minute
        length = session.closes_minute - session.opens_minute + (DAY if session.overnight else 0)
        spans.append((start, start + length, index))
        if start + length > week:  # Sunday night runs into Monday
            spans.append((start - week, start + length - week, index))
    spans.sort()
    for (_, end, first), (start, _, second) in pairwise(spans):
        if start < end:
            a, b = hours[min(first, second)], hours[max(first, second)]
            raise ValueError(
                f"opening_hours: {a.day} {a.open}-{a.close} overlaps {b.day} {b.open}-{b.close}"
            )


class CatalogFile(RequestModel):
    """An import file."""

    studios: list[StudioSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> CatalogFile:
        for what, ids in (
            ("studio", [studio.id for studio in self.studios]),
            ("room", [room.id for studio in self.studios for room in studio.rooms]),
        ):
            repeated = sorted(i for i, n in Counter(ids).items() if n > 1)
            if repeated:
                raise ValueError(f"{what} ids appear more than once: {', '.join(repeated[:10])}")
        return self
