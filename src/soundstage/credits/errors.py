"""Errors of the credits feature."""

from soundstage.core.errors import InsufficientCredits, NotFound

__all__ = ["InsufficientCredits", "ReservationNotFound"]


class ReservationNotFound(NotFound):
    code = "reservation_not_found"
