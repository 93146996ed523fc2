"""Money in integer minor units: fees computed once, rounded half-up to the cent."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal


@dataclass(frozen=True)
class Charge:
    """A priced transaction: what the seller earns, the platform's fee, what the buyer pays.
    `amount_cents + fee_cents == total_cents` always holds."""

    amount_cents: int
    fee_cents: int
    currency: str

    @property
    def total_cents(self) -> int:
        return self.amount_cents + self.fee_cents


def fee_cents(amount_cents: int, rate: Decimal) -> int:
    """`rate` of `amount_cents`, half-up to the cent: 2.5% of 20 cents is 0.5, so 1 cent."""
    if amount_cents < 0:
        raise ValueError("an amount is never negative")
    exact = Decimal(amount_cents) * rate
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def charge(amount_cents: int, rate: Decimal, currency: str) -> Charge:
    return Charge(amount_cents, fee_cents(amount_cents, rate), currency.upper())
