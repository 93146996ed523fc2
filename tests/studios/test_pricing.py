"""Booking money: the 2.5% platform fee half-up once, fee + subtotal == total for every
subtotal from 1 to 100,000 cents, pro rata quarter hours, the refund policy; and the place
keys the city and state filters compare."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from soundstage.core.money import Charge
from soundstage.studios.places import place_key
from soundstage.studios.pricing import booking_charge, refund_cents, subtotal_cents


def test_fee_is_2_5_percent_half_up_and_adds_up_for_every_subtotal_to_100000() -> None:
    for subtotal in range(1, 100_001):
        # One hour at `subtotal` cents an hour is a subtotal of exactly that.
        charge = booking_charge(subtotal, 60, "usd")
        expected_fee = (subtotal * 25 + 500) // 1000  # 2.5% = 25/1000, half-up in integers
        assert charge.amount_cents == subtotal
        assert charge.fee_cents == expected_fee, subtotal
        assert charge.fee_cents + charge.amount_cents == charge.total_cents
        assert charge.currency == "USD"


@pytest.mark.parametrize(
    ("subtotal", "fee"),
    [(19, 0), (20, 1), (59, 1), (60, 2), (100, 3), (140, 4), (10_000, 250), (99_980, 2500)],
)
def test_half_cents_of_fee_round_up(subtotal: int, fee: int) -> None:
    # 20 * 2.5% = 0.5 -> 1; 19 * 2.5% = 0.475 -> 0; 60 -> 1.5 -> 2; 140 -> 3.5 -> 4.
    assert booking_charge(subtotal, 60, "EUR").fee_cents == fee


@pytest.mark.parametrize(
    ("rate", "minutes", "subtotal"),
    [
        (5000, 120, 10_000),
        (3333, 75, 4166),  # 4166.25
        (3333, 90, 5000),  # 4999.5 -> half-up
        (1, 30, 1),  # 0.5 -> 1
        (1, 15, 0),  # 0.25 -> 0
        (3, 30, 2),  # 1.5 -> 2
        (7, 45, 5),  # 5.25
    ],
)
def test_subtotal_is_the_hourly_rate_pro_rata_half_up(
    rate: int, minutes: int, subtotal: int
) -> None:
    assert subtotal_cents(rate, minutes) == subtotal


def test_refund_policy_boundaries() -> None:
    charge = Charge(amount_cents=10_001, fee_cents=250, currency="USD")
    start = datetime(2027, 3, 1, 12, tzinfo=UTC)
    second = timedelta(seconds=1)
    assert refund_cents(charge, start, start - timedelta(days=10)) == 10_251
    assert refund_cents(charge, start, start - timedelta(hours=48)) == 10_251
    assert refund_cents(charge, start, start - timedelta(hours=48) + second) == 5_001  # 5000.5
    assert refund_cents(charge, start, start - timedelta(hours=24)) == 5_001
    assert refund_cents(charge, start, start - timedelta(hours=24) + second) == 0
    assert refund_cents(charge, start, start - second) == 0


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("São Paulo", "SAO PAULO"),
        ("Montréal", "montreal"),
        ("Saint-Étienne", "saint etienne"),
        ("Île-de-France", "ILE DE FRANCE"),
        ("Łódź", "Lodz"),
        ("Malmö", "malmo"),
        ("København", "Kobenhavn"),
        ("St. Louis", "st louis"),
        ("Zürich", "ZÜRICH"),
        ("Straße", "strasse"),
    ],
)
def test_place_keys_ignore_case_accents_and_punctuation(typed: str, stored: str) -> None:
    assert place_key(typed) == place_key(stored)
    assert place_key(typed) == place_key(typed).casefold()


def test_place_keys_keep_different_places_apart() -> None:
    assert place_key("Portland") != place_key("Port Land Heights")
    assert place_key("Córdoba") != place_key("Cordova")
    assert place_key("---") == ""
