"""What a booking costs (hourly rate pro rata, the 2.5% platform fee on top) and what its
cancellation refunds."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Final

from soundstage.core import money

PLATFORM_FEE_RATE: Final = Decimal("0.025")
# Cancellation policy: everything back with this much notice, half the subtotal with
# HALF_REFUND_NOTICE, nothing after that.
FULL_REFUND_NOTICE: Final = timedelta(hours=48)
HALF_REFUND_NOTICE: Final = timedelta(hours=24)
HALF: Final = Decimal("0.5")


def subtotal_cents(hourly_rate_cents: int, minutes: int) -> int:
    """The room's hourly rate for `minutes`, half-up to the cent (only quarter hours of odd
    rates fall between cents)."""
    if hourly_rate_cents < 0 or minutes < 0:
        raise ValueError("a rate and a duration are never negative")
    return (hourly_rate_cents * minutes * 2 + 60) // 120


def booking_charge(hourly_rate_cents: int, minutes: int, currency: str) -> money.Charge:
    """Subtotal, platform fee (2.5% of the subtotal, rounded half-up once) and total
    (subtotal + fee), as the buyer pays at checkout."""
    return money.charge(subtotal_cents(hourly_rate_cents, minutes), PLATFORM_FEE_RATE, currency)


def refund_cents(charge: money.Charge, starts_at: datetime, cancelled_at: datetime) -> int:
    """Flexible policy: at least 48 h before the start, the whole total (fee included); at
    least 24 h before, half the subtotal (half-up; the fee is kept); later, nothing."""
    notice = starts_at - cancelled_at
    if notice >= FULL_REFUND_NOTICE:
        return charge.total_cents
    if notice >= HALF_REFUND_NOTICE:
        return money.fee_cents(charge.amount_cents, HALF)
    return 0
