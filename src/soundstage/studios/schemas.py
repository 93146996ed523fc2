"""Request and response bodies of the studios marketplace."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from soundstage.core.schemas import CalendarDate, RequestModel
from soundstage.core.timeutil import Timestamp
from soundstage.studios.availability import clock_minute
from soundstage.studios.catalog import StudioType, Weekday

BookingStatus = Literal["confirmed", "cancelled", "completed"]
MAX_NOTES = 1000
MAX_REASON = 500


def _start_time(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("must be a time HH:MM")
    clock_minute(value)
    return value


def _end_time(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("must be a time HH:MM")
    clock_minute(value, midnight_end=True)
    return value


StartTime = Annotated[
    str,
    BeforeValidator(_start_time),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^([01][0-9]|2[0-3]):(00|15|30|45)$",
            "example": "10:00",
        }
    ),
]
EndTime = Annotated[
    str,
    BeforeValidator(_end_time),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^(([01][0-9]|2[0-3]):(00|15|30|45)|24:00)$",
            "example": "14:00",
        }
    ),
]


# --- catalog ---------------------------------------------------------------------------------


class AddressOut(BaseModel):
    line1: str
    city: str
    state: str = Field(description="State, province or region.")
    state_code: str | None = Field(description="Its short code where it has one, e.g. `CA`.")
    postal_code: str
    country: str = Field(description="ISO 3166-1 alpha-2.")


class CoordinatesOut(BaseModel):
    latitude: float
    longitude: float


class StudioSummaryOut(BaseModel):
    """A studio as discover lists it; GET /api/v1/studios/{id} adds its rooms and hours."""

    object: Literal["studio"] = "studio"
    id: str
    name: str
    types: list[StudioType]
    address: AddressOut
    coordinates: CoordinatesOut
    timezone: str = Field(description="IANA time zone of the studio; every time is local.")
    rating: float | None = Field(description="Average review, 0 to 5; null without reviews.")
    review_count: int
    max_booth_capacity: int = Field(description="The largest booth capacity of its rooms.")
    room_count: int
    hourly_rate_from_cents: int = Field(description="The lowest hourly rate of its rooms.")
    currency: str = Field(description="ISO 4217; amounts are in its minor unit.")
    cover_photo_url: str | None


class RoomOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    object: Literal["room"] = "room"
    id: str
    name: str
    booth_capacity: int
    hourly_rate_cents: int
    currency: str
    min_booking_hours: int = Field(description="A booking lasts at least this long.")
    buffer_minutes: int = Field(
        description="Time kept free after every booking (and so before the next)."
    )


class OpeningHoursOut(BaseModel):
    day: Weekday
    open: str = Field(description="HH:MM, local time.")
    close: str = Field(description="HH:MM; 24:00 is midnight.")
    overnight: bool = Field(description="True when the session closes the next day.")


class ClosureOut(BaseModel):
    date: date
    reason: str


class StudioOut(StudioSummaryOut):
    description: str
    amenities: list[str]
    equipment: list[str]
    photos: list[str]
    rooms: list[RoomOut]
    opening_hours: list[OpeningHoursOut] = Field(description="The weekly schedule.")
    upcoming_closures: list[ClosureOut] = Field(
        description="Dates within the next year on which the studio does not open."
    )


# --- availability ----------------------------------------------------------------------------


class TimeRangeOut(BaseModel):
    start_time: str = Field(description="HH:MM, studio local time.")
    end_time: str = Field(description="HH:MM, studio local time.")
    ends_next_day: bool
    start: Timestamp = Field(
        description="The start as an instant, in UTC (`start_time` is the local time, in "
        "the studio's `timezone`)."
    )
    end: Timestamp


class RoomAvailabilityOut(RoomOut):
    """A room (its `id` is the booking's `room_id`) and its time on the date."""

    free: list[TimeRangeOut] = Field(
        description="Where a booking of this room can be: opening hours less closures, "
        "other bookings and their buffers, and the past."
    )
    start_times: list[str] = Field(
        description="HH:MM starts on this date from which at least the minimum hours fit."
    )


class StudioAvailabilityOut(BaseModel):
    object: Literal["studio_availability"] = "studio_availability"
    studio_id: str
    date: date
    timezone: str
    closed: bool = Field(description="True when the studio has no opening hours this date.")
    closure_reason: str | None = Field(description="Why, when the date is a closure.")
    opening_hours: list[TimeRangeOut]
    rooms: list[RoomAvailabilityOut]


# --- bookings ----------------------------------------------------------------------------------


class BookingCreate(RequestModel):
    date: CalendarDate = Field(description="Local date the booking starts, YYYY-MM-DD.")
    start_time: StartTime = Field(description="HH:MM (24-hour), on the quarter hour, local.")
    end_time: EndTime = Field(
        description="HH:MM, after start_time on the same date (24:00 is midnight), or on "
        "the next date when `ends_next_day` is true."
    )
    ends_next_day: bool = Field(
        default=False,
        description="Books past midnight: end_time is on the day after `date`. Overnight "
        "bookings must say so; an end_time before start_time alone is refused.",
    )
    room_id: str = Field(min_length=1, max_length=40, description="A room of this studio.")
    notes: str | None = Field(
        default=None, max_length=MAX_NOTES, description="For the studio, up to 1,000 characters."
    )


class BookingCancel(RequestModel):
    reason: str | None = Field(default=None, max_length=MAX_REASON)


class BookingQuoteOut(BaseModel):
    """What booking this time would charge: `POST /studios/{id}/book` with the same body
    charges exactly this while the room's rate stays the same."""

    object: Literal["studio_booking_quote"] = "studio_booking_quote"
    studio_id: str
    studio_name: str
    room_id: str
    room_name: str
    date: date
    start_time: str
    end_time: str
    ends_next_day: bool
    timezone: str
    starts_at: Timestamp = Field(description="UTC.")
    ends_at: Timestamp = Field(description="UTC.")
    duration_minutes: int
    hourly_rate_cents: int
    subtotal_cents: int = Field(description="Hourly rate x duration, half-up to the cent.")
    platform_fee_cents: int = Field(description="2.5% of the subtotal, rounded half-up once.")
    total_cents: int = Field(description="subtotal_cents + platform_fee_cents: what is paid.")
    currency: str


class BookingOut(BaseModel):
    object: Literal["studio_booking"] = "studio_booking"
    id: str
    status: BookingStatus = Field(
        description="`confirmed` at checkout, `cancelled` when cancelled, `completed` once "
        "it has ended."
    )
    studio_id: str
    studio_name: str
    room_id: str
    room_name: str
    date: date
    start_time: str
    end_time: str
    ends_next_day: bool
    timezone: str
    starts_at: Timestamp = Field(description="UTC.")
    ends_at: Timestamp = Field(description="UTC.")
    duration_minutes: int
    hourly_rate_cents: int
    subtotal_cents: int = Field(description="Hourly rate x duration, half-up to the cent.")
    platform_fee_cents: int = Field(description="2.5% of the subtotal, rounded half-up once.")
    total_cents: int = Field(description="subtotal_cents + platform_fee_cents: what is paid.")
    currency: str
    refund_cents: int | None = Field(description="What the cancellation refunded.")
    notes: str | None
    cancellation_reason: str | None
    created_at: Timestamp
    cancelled_at: Timestamp | None
