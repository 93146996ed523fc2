"""Fee arithmetic: half-up rounding to the cent, and fee + amount == total, for every amount."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from soundstage.core.money import charge, fee_cents


@pytest.mark.parametrize("rate", [Decimal("0.025"), Decimal("0.01")])
def test_fee_is_the_exact_share_rounded_half_up_for_every_amount(rate: Decimal) -> None:
    share = Fraction(rate)
    for amount in range(1, 100_001):
        exact = amount * share
        # Half-up with integers only: floor(exact + 1/2).
        expected = int((exact + Fraction(1, 2)).__floor__())
        priced = charge(amount, rate, "usd")
        assert priced.fee_cents == expected, amount
        assert priced.amount_cents + priced.fee_cents == priced.total_cents


def test_halves_round_up_and_the_rest_to_the_nearest_cent() -> None:
    assert fee_cents(20, Decimal("0.025")) == 1  # 0.5 -> 1
    assert fee_cents(19, Decimal("0.025")) == 0  # 0.475 -> 0
    assert fee_cents(50, Decimal("0.01")) == 1  # 0.5 -> 1
    assert fee_cents(149, Decimal("0.01")) == 1  # 1.49 -> 1
    assert fee_cents(150, Decimal("0.01")) == 2  # 1.5 -> 2
    assert fee_cents(0, Decimal("0.025")) == 0
    assert charge(1000, Decimal("0.025"), "eur").currency == "EUR"


def test_a_negative_amount_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        fee_cents(-1, Decimal("0.01"))
