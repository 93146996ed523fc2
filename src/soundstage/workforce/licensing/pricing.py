"""License quotes: the creator's base fee for the usage (12 months, one country) times a
territory multiplier and a term multiplier, rounded half-up to the cent once; the 1% success
fee on top of that, half-up once (core/money.py), so amount + fee == total."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Final

from soundstage.core.money import Charge, charge

WORLDWIDE: Final = "worldwide"
SUCCESS_FEE_RATE: Final = Decimal("0.01")
# One country 1.00; each further country +0.50; worldwide (or more countries than it is
# worth) 3.00.
ONE_COUNTRY: Final = Decimal("1.00")
EACH_FURTHER_COUNTRY: Final = Decimal("0.50")
WORLDWIDE_MULTIPLIER: Final = Decimal("3.00")
# Term multipliers by the longest term of each tier, in months (the base fee buys 12).
TERM_TIERS: Final[tuple[tuple[int, Decimal], ...]] = (
    (3, Decimal("0.40")),
    (6, Decimal("0.60")),
    (12, Decimal("1.00")),
    (24, Decimal("1.75")),
    (36, Decimal("2.40")),
    (60, Decimal("3.50")),
    (120, Decimal("5.00")),
)
MIN_MONTHS: Final = 1
MAX_MONTHS: Final = TERM_TIERS[-1][0]


@dataclass(frozen=True)
class Quote:
    base_fee_cents: int
    territory_multiplier: Decimal
    term_multiplier: Decimal
    charge: Charge


def territory_multiplier(territory: str) -> Decimal:
    """`territory` is WORLDWIDE or country codes joined by commas."""
    if territory == WORLDWIDE:
        return WORLDWIDE_MULTIPLIER
    further = len(territory.split(",")) - 1
    return min(ONE_COUNTRY + EACH_FURTHER_COUNTRY * further, WORLDWIDE_MULTIPLIER)


def term_multiplier(months: int) -> Decimal:
    for longest, multiplier in TERM_TIERS:
        if MIN_MONTHS <= months <= longest:
            return multiplier
    raise ValueError(f"a term is {MIN_MONTHS} to {MAX_MONTHS} months, not {months}")


def quote(base_fee_cents: int, territory: str, months: int, currency: str) -> Quote:
    by_territory = territory_multiplier(territory)
    by_term = term_multiplier(months)
    exact = Decimal(base_fee_cents) * by_territory * by_term
    amount = int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return Quote(base_fee_cents, by_territory, by_term, charge(amount, SUCCESS_FEE_RATE, currency))


def term_ends_at(starts_at: datetime, months: int) -> datetime:
    """The same day and time `months` later, on the month's last day when it has no such
    day (Jan 31 + 1 month = Feb 28 or 29)."""
    month_index = starts_at.month - 1 + months
    year, month = starts_at.year + month_index // 12, month_index % 12 + 1
    day = min(starts_at.day, calendar.monthrange(year, month)[1])
    return starts_at.replace(year=year, month=month, day=day)
