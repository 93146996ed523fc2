"""Errors of the credits feature."""

from soundstage.core.errors import InsufficientCredits, InvalidField, NotFound

__all__ = [
    "CreditTransactionNotFound",
    "InsufficientCredits",
    "ReservationNotFound",
    "SandboxBalanceLimit",
]


class ReservationNotFound(NotFound):
    """No such credit reservation (internal: a job's reservation)."""

    code = "reservation_not_found"


class CreditTransactionNotFound(NotFound):
    """No such credit transaction in the caller's ledger."""

    code = "credit_transaction_not_found"


class SandboxBalanceLimit(InvalidField):
    """A sandbox top-up over the per-request cap or past the sandbox balance cap."""

    code = "sandbox_balance_limit"
