"""Errors of the studios marketplace."""

from __future__ import annotations

from soundstage.core.errors import AppError, Conflict, InvalidField, NotFound


class StudioNotFound(NotFound):
    code = "studio_not_found"


class BookingNotFound(NotFound):
    code = "booking_not_found"


class InvalidBooking(InvalidField):
    """A booking request that is well formed but cannot be booked as asked (outside opening
    hours, too short, in the past, ...): 422 with a specific code and the field at fault."""


class SlotUnavailable(Conflict):
    code = "slot_unavailable"


class BookingNotCancellable(Conflict):
    code = "booking_not_cancellable"


class CatalogInvalid(AppError):
    """An import file with problems: nothing of it was written."""

    status = 422
    code = "catalog_invalid"

    def __init__(self, problems: list[str]) -> None:
        count = len(problems)
        super().__init__(f"The catalog has {count} problem{'s' if count != 1 else ''}.")
        self.problems = problems
