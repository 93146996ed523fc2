"""Errors of the studios marketplace."""

from __future__ import annotations

from soundstage.core.errors import AppError, Conflict, InvalidField, NotFound


class StudioNotFound(NotFound):
    """No such studio (or it was retired)."""

    code = "studio_not_found"


class BookingNotFound(NotFound):
    """No such booking."""

    code = "booking_not_found"


class InvalidBooking(InvalidField):
    """A booking request that is well formed but cannot be booked as asked (outside opening
    hours, too short, in the past, ...): 422 with a specific code and the field at fault.
    Abstract: raise one of its subclasses."""

    code = ""


class DateInPast(InvalidBooking):
    """The `date` is before the studio's local today."""

    code = "date_in_past"


class DateTooFar(InvalidBooking):
    """The `date` is more than a year ahead."""

    code = "date_too_far"


class RoomNotInStudio(InvalidBooking):
    """The `room_id` is not a room of this studio."""

    code = "room_not_in_studio"


class BookingTooLong(InvalidBooking):
    """With `ends_next_day`, the booking would last more than 24 hours."""

    code = "booking_too_long"


class EndBeforeStart(InvalidBooking):
    """`end_time` is not after `start_time` (set `ends_next_day` to book past midnight)."""

    code = "end_before_start"


class NonexistentLocalTime(InvalidBooking):
    """The time does not exist on that date in the studio's time zone (clocks go forward)."""

    code = "nonexistent_local_time"


class StartInPast(InvalidBooking):
    """The booking would start in the past."""

    code = "start_in_past"


class BelowMinimumHours(InvalidBooking):
    """The booking is shorter than the room's minimum hours."""

    code = "below_minimum_hours"


class StudioClosed(InvalidBooking):
    """The studio is closed on that date."""

    code = "studio_closed"


class OutsideOpeningHours(InvalidBooking):
    """The booking is not within the studio's opening hours."""

    code = "outside_opening_hours"


class SlotUnavailable(Conflict):
    """The room is already booked for part of that time (with its buffer)."""

    code = "slot_unavailable"


class BookingNotCancellable(Conflict):
    """The booking cannot be cancelled any more (already cancelled, or started)."""

    code = "booking_not_cancellable"


class CatalogInvalid(AppError):
    """An import file with problems: nothing of it was written (operator import)."""

    status = 422
    code = "catalog_invalid"

    def __init__(self, problems: list[str]) -> None:
        count = len(problems)
        super().__init__(f"The catalog has {count} problem{'s' if count != 1 else ''}.")
        self.problems = problems
