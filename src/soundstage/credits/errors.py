"""Errors of the credits feature."""

from soundstage.core.errors import InsufficientCredits, InvalidField, NotFound

__all__ = ["InsufficientCredits", "ReservationNotFound", "SandboxBalanceLimit"]


class ReservationNotFound(NotFound):
    code = "reservation_not_found"


class SandboxBalanceLimit(InvalidField):
    code = "sandbox_balance_limit"
