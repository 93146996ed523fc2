"""English normalization, category by category (en-US unless said)."""

from __future__ import annotations

import pytest

from soundstage.engines.tts.frontend.normalize import expand


def read(text: str, language: str = "en-US") -> str:
    return " ".join(span.spoken for span in expand(text, language) if span.spoken)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1,000,000", "one million"),
        ("3.5", "three point five"),
        ("3.05", "three point zero five"),
        ("-4", "minus four"),
        ("+7", "plus seven"),
        ("0", "zero"),
        ("in 1948", "in nineteen forty-eight"),
        ("since 2024", "since twenty twenty-four"),
        ("1500 people", "one thousand, five hundred people"),
        ("2024", "two thousand and twenty-four"),
        ("2,024", "two thousand and twenty-four"),
        ("0451", "four hundred and fifty-one"),
        ("10-20", "ten to twenty"),
        ("from 1990-2000", "from nineteen ninety to two thousand"),
        ("1990s", "nineteen nineties"),
        ("80s", "eighties"),
    ],
)
def test_numbers(text: str, words: str) -> None:
    assert read(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [("1st", "first"), ("2nd", "second"), ("3rd", "third"), ("12th", "twelfth"),
     ("21st", "twenty-first"), ("101st", "one hundred and first")],
)  # fmt: skip
def test_ordinals(text: str, words: str) -> None:
    assert read(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("$250", "two hundred and fifty dollars"),
        ("$1", "one dollar"),
        ("$3.50", "three dollars, fifty cents"),
        ("€20", "twenty euro"),
        ("£30", "thirty pounds sterling"),
        ("¥500", "five hundred yen"),
        ("250 USD", "two hundred and fifty dollars"),
        ("EUR 100", "one hundred euro"),
        ("$2 million", "two million dollars"),
        ("$1,250", "one thousand, two hundred and fifty dollars"),
    ],
)
def test_money(text: str, words: str) -> None:
    assert read(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("40%", "forty percent"),
        ("3.5 %", "three point five percent"),
        ("10 km", "ten kilometers"),
        ("1 km", "one kilometer"),
        ("25kg", "twenty-five kilograms"),
        ("100 km/h", "one hundred kilometers per hour"),
        ("60 mph", "sixty miles per hour"),
        ("20°C", "twenty degrees Celsius"),
        ("-5 °F", "minus five degrees Fahrenheit"),
        ("500 ml", "five hundred milliliters"),
        ("3 cm", "three centimeters"),
        ("2 mm", "two millimeters"),
        ("5 g", "five grams"),
        ("2 l", "two liters"),
        ("7 m", "seven meters"),
    ],
)
def test_percentages_and_units(text: str, words: str) -> None:
    assert read(text) == words


def test_british_units_and_dates() -> None:
    assert read("10 km", "en-GB") == "ten kilometres"
    assert read("15/03/2024", "en-GB") == "the fifteenth of March, twenty twenty-four"
    assert read("03/15/2024", "en-US") == "March fifteenth, twenty twenty-four"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("3:30 pm", "three thirty P M"),
        ("3:30pm", "three thirty P M"),
        ("3:30 p.m.", "three thirty P M."),
        ("10.15 a.m. today", "ten fifteen A M today"),
        ("9 am", "nine A M"),
        ("330 pm", "three thirty P M"),
        ("1015am", "ten fifteen A M"),
        ("12 pm", "twelve P M"),
        ("3:05 PM", "three oh five P M"),
        ("3:00 pm", "three P M"),
        ("15:45", "fifteen forty-five"),
        ("00:00", "midnight"),
        ("25:00", "twenty-five, zero"),
    ],
)
def test_times(text: str, words: str) -> None:
    assert read(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("2024-03-15", "March fifteenth, twenty twenty-four"),
        ("March 3rd, 2024", "March third, twenty twenty-four"),
        ("March 3, 2024", "March third, twenty twenty-four"),
        ("Mar. 3", "March third"),
        ("3 March 2024", "the third of March, twenty twenty-four"),
        ("on the 3rd of March", "on the third of March"),
        ("21st of June", "the twenty-first of June"),
        ("2024-02-30", "two zero two four, zero two, three zero"),
        ("2024-02-29", "February twenty-ninth, twenty twenty-four"),
    ],
)
def test_dates(text: str, words: str) -> None:
    assert read(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("+1 555 123 4567", "plus one, five five five, one two three, four five six seven"),
        ("(555) 123-4567", "five five five, one two three, four five six seven"),
        ("555-123-4567", "five five five, one two three, four five six seven"),
        ("555.123.4567", "five five five, one two three, four five six seven"),
        ("+44 20 7946 0958", "plus four four, two zero, seven nine four six, zero nine five eight"),
    ],
)
def test_phone_numbers(text: str, words: str) -> None:
    assert read(text) == words


def test_not_phone_numbers() -> None:
    assert read("1990-2000") == "one thousand, nine hundred and ninety to two thousand"
    assert read("in 2023 2024") == "in twenty twenty-three two thousand and twenty-four"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Dr. Smith", "Doctor Smith"),
        ("Mr. and Mrs. Jones", "Mister and Missus Jones"),
        ("Mr Jones, Mrs Jones and Ms Lee", "Mister Jones, Missus Jones and Miz Lee"),
        ("St. Louis", "Saint Louis"),
        ("on Main St. today", "on Main Street today"),
        ("apples, pears, etc.", "apples, pears, et cetera."),
        ("apples etc. and pears", "apples et cetera and pears"),
        ("e.g. this", "for example this"),
        ("i.e. that", "that is that"),
        ("Dr. No. 5", "Doctor number five"),
    ],
)
def test_abbreviations(text: str, words: str) -> None:
    assert read(text) == words


def test_undotted_dr_is_doctor_in_british_english_only() -> None:
    assert read("Dr Smith", "en-GB") == "Doctor Smith"
    assert read("on Elm Dr today") == "on Elm Dr today"


def test_a_title_does_not_end_the_sentence() -> None:
    (doctor, _name) = expand("Dr. Smith", "en-US")
    assert doctor.spoken == "Doctor"
    assert not doctor.spoken.endswith(".")
    # The sentence's own full stop after an abbreviation that can end one is kept.
    assert read("We met at the Corp. Then we left.") == ("We met at the Corporation. Then we left.")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("NASA", "NASA"),
        ("NATO and UNESCO", "NATO and UNESCO"),
        ("BBC", "B B C"),
        ("the FBI", "the F B I"),
        ("U.S.A. today", "U S A today"),
        ("in the U.S. Then", "in the U S. Then"),
        ("HELLO WORLD, THIS IS LOUD", "HELLO WORLD, THIS IS LOUD"),
        ("WARNING", "WARNING"),
        ("I", "I"),
    ],
)
def test_acronyms(text: str, words: str) -> None:
    assert read(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("https://example.com/a", "example dot com slash a"),
        ("see www.example.org.", "see w w w dot example dot org."),
        ("http://my-site.io/path_2", "my dash site dot io slash path underscore two"),
        ("john.doe@example.org", "john dot doe at example dot org"),
    ],
)
def test_urls_and_email_addresses(text: str, words: str) -> None:
    assert read(text) == words


def test_symbols() -> None:
    assert read("salt & pepper") == "salt and pepper"
    assert read("2 + 2 = 4") == "two plus two equals four"
