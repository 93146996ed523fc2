"""Studios marketplace: the studio catalog (studios, rooms, weekly hours, closures) and the
customers' bookings with the occupied time units that make a double booking impossible.

Studios, rooms, hours and closures are platform catalog data, like the voice catalog: no
`account_id` or `environment`. Bookings and their occupied units are customer rows.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, CustomerOwned, Timestamped


class StudioBookingStatus(StrEnum):
    """A stored booking's state; stored as its string value. The API's `completed` is not
    stored: it is a confirmed booking that has ended (studios.bookings.status_of)."""

    CONFIRMED = "confirmed"
    CANCELLED = "cancelled"


class Studio(Timestamped, Base):
    __tablename__ = "studio"
    # Discover filters by equality on one of these keys, keeps active studios and orders by
    # (rating, id) descending: each index serves its filter and the order without a sort.
    __table_args__ = (
        Index("ix_studio_rank", "is_active", "rating", "id"),
        *(
            Index(f"ix_studio_{column}_rank", column, "is_active", "rating", "id")
            for column in (
                "city_key",
                "state_key",
                "state_code_key",
                "max_booth_capacity",
                "type_recording",
                "type_mixing",
                "type_mastering",
                "type_podcast",
                "type_foley",
            )
        ),
    )

    # Catalog ids are the operator's (readable in the demo: `studio_berlin_003`).
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    # The studio's types, one column each so that every type filter is an indexed equality.
    type_recording: Mapped[bool] = mapped_column(Boolean, default=False)
    type_mixing: Mapped[bool] = mapped_column(Boolean, default=False)
    type_mastering: Mapped[bool] = mapped_column(Boolean, default=False)
    type_podcast: Mapped[bool] = mapped_column(Boolean, default=False)
    type_foley: Mapped[bool] = mapped_column(Boolean, default=False)
    address_line1: Mapped[str] = mapped_column(String(200), default="")
    city: Mapped[str] = mapped_column(String(100))
    state: Mapped[str] = mapped_column(String(100))
    state_code: Mapped[str | None] = mapped_column(String(10), default=None)
    postal_code: Mapped[str] = mapped_column(String(20), default="")
    country: Mapped[str] = mapped_column(String(2))  # ISO 3166-1 alpha-2
    # Casefolded, accents stripped (studios.places.place_key): the filters compare these, so
    # "SAO PAULO" finds "São Paulo" the same way on SQLite and PostgreSQL.
    city_key: Mapped[str] = mapped_column(String(200))
    state_key: Mapped[str] = mapped_column(String(200))
    state_code_key: Mapped[str | None] = mapped_column(String(20), default=None)
    timezone: Mapped[str] = mapped_column(String(64))  # IANA, e.g. America/Sao_Paulo
    latitude: Mapped[float] = mapped_column(Float)
    longitude: Mapped[float] = mapped_column(Float)
    amenities: Mapped[list[str]] = mapped_column(JSON, default=list)
    equipment: Mapped[list[str]] = mapped_column(JSON, default=list)
    photos: Mapped[list[str]] = mapped_column(JSON, default=list)
    # 0 when review_count is 0 (shown as null), so unrated studios sort last.
    rating: Mapped[float] = mapped_column(Float, default=0.0)
    review_count: Mapped[int] = mapped_column(Integer, default=0)
    # Derived from the active rooms at import: what discover filters and shows.
    max_booth_capacity: Mapped[int] = mapped_column(Integer)
    room_count: Mapped[int] = mapped_column(Integer)
    hourly_rate_from_cents: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    # sha256 of the imported content: a reload of the same content changes nothing.
    content_hash: Mapped[str] = mapped_column(String(64))
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    updated_at: Mapped[datetime]


class Room(Timestamped, Base):
    __tablename__ = "room"
    __table_args__ = (
        CheckConstraint("booth_capacity >= 1", name="booth_capacity_positive"),
        CheckConstraint("hourly_rate_cents >= 0", name="hourly_rate_not_negative"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    studio_id: Mapped[str] = mapped_column(ForeignKey("studio.id"), index=True)
    # Order of the rooms in the studio, as imported.
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(200))
    booth_capacity: Mapped[int] = mapped_column(Integer)
    hourly_rate_cents: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    min_booking_hours: Mapped[int] = mapped_column(Integer)
    buffer_minutes: Mapped[int] = mapped_column(Integer)
    # A room left out of a later import is retired: not shown, not bookable; its bookings stay.
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)


class StudioHours(Base):
    """One opening session of a weekday in the studio's local time. `closes_minute` <=
    `opens_minute` is an overnight session ending the next day; 1440 is midnight (24:00)."""

    __tablename__ = "studio_hours"

    studio_id: Mapped[str] = mapped_column(ForeignKey("studio.id"), primary_key=True)
    weekday: Mapped[int] = mapped_column(Integer, primary_key=True)  # 0 = Monday
    opens_minute: Mapped[int] = mapped_column(Integer, primary_key=True)
    closes_minute: Mapped[int] = mapped_column(Integer)


class StudioClosure(Base):
    """A local date on which the studio does not open (its sessions starting that day)."""

    __tablename__ = "studio_closure"

    studio_id: Mapped[str] = mapped_column(ForeignKey("studio.id"), primary_key=True)
    date: Mapped[date] = mapped_column(Date, primary_key=True)
    reason: Mapped[str] = mapped_column(String(200), default="")


class StudioBooking(CustomerOwned, Timestamped, Base):
    __tablename__ = "studio_booking"
    __table_args__ = (
        Index("ix_studio_booking_owner_created", "account_id", "environment", "created_at"),
        CheckConstraint("subtotal_cents + platform_fee_cents = total_cents", name="total_is_sum"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    studio_id: Mapped[str] = mapped_column(ForeignKey("studio.id"), index=True)
    room_id: Mapped[str] = mapped_column(ForeignKey("room.id"), index=True)
    # A StudioBookingStatus value; `completed` is derived: confirmed and ended.
    status: Mapped[str] = mapped_column(String(16))
    # As asked, in the studio's local time: the start's date and the HH:MM times.
    date: Mapped[date] = mapped_column(Date)
    start_time: Mapped[str] = mapped_column(String(5))
    end_time: Mapped[str] = mapped_column(String(5))
    ends_next_day: Mapped[bool] = mapped_column(Boolean, default=False)
    timezone: Mapped[str] = mapped_column(String(64))
    starts_at: Mapped[datetime]
    ends_at: Mapped[datetime]
    duration_minutes: Mapped[int] = mapped_column(Integer)
    # The room's terms when it was booked (a later catalog change leaves the booking alone).
    studio_name: Mapped[str] = mapped_column(String(200))
    room_name: Mapped[str] = mapped_column(String(200))
    hourly_rate_cents: Mapped[int] = mapped_column(BigInteger)
    buffer_minutes: Mapped[int] = mapped_column(Integer)
    subtotal_cents: Mapped[int] = mapped_column(BigInteger)
    platform_fee_cents: Mapped[int] = mapped_column(BigInteger)
    total_cents: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    notes: Mapped[str | None] = mapped_column(Text, default=None)
    refund_cents: Mapped[int | None] = mapped_column(BigInteger, default=None)
    cancellation_reason: Mapped[str | None] = mapped_column(String(500), default=None)
    cancelled_at: Mapped[datetime | None] = mapped_column(default=None)
    updated_at: Mapped[datetime]


class RoomOccupancy(Base):
    """One 15-minute unit of a room taken by a booking (its time plus the room's buffer after
    it), per environment. The primary key makes a second booking of any unit fail in the
    database itself, on SQLite and PostgreSQL alike, whatever the number of server processes."""

    __tablename__ = "room_occupancy"

    environment: Mapped[str] = mapped_column(String(16), primary_key=True)
    room_id: Mapped[str] = mapped_column(ForeignKey("room.id"), primary_key=True)
    # UTC minutes since the Unix epoch at the unit's start (a multiple of 15).
    minute: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    booking_id: Mapped[str] = mapped_column(ForeignKey("studio_booking.id"), index=True)
