"""Normalization's invariants (spans in order, covering the text, offsets), bounds and
say_as, whatever the language."""

from __future__ import annotations

import re
import time

import pytest

from soundstage.engines.tts.frontend.normalize import MAX_DIGITS, MAX_SAY_AS_CHARS, expand, say_as
from soundstage.engines.tts.frontend.script import Span

CATALOG_LANGUAGES = [
    "en-US", "en-GB", "es-ES", "fr-FR", "de-DE", "it-IT", "pt-BR", "nl-NL", "pl-PL", "ru-RU",
    "cmn", "hi-IN", "ar", "sv-SE", "tr-TR", "el-GR", "cs-CZ", "fi-FI", "da-DK", "hu-HU",
    "ro-RO", "uk-UA", "ko-KR", "vi-VN", "id-ID", "nb-NO",
]  # fmt: skip

MIXED = (
    'Dr. Smith (the 12th) paid $250 at 3:30 pm on 2024-03-15 -- 40% more; "really?" '
    "Call +1 555 123 4567, mail a.b@example.com or see https://example.com/a. "
    "NASA, the BBC & U.S.A. 1,000,000 3.5 -4 1990s 10 km 20°C 10-20 3D mp3 é ü ß … ¿Sí? ¡No! "
    "Le 1er mars, 15h30, 3,50 €, M. Dupont. Am 3. März 2024, z.B. 15:30 Uhr. "
    "我有12345个苹果 मेरे पास 250 रुपये हैं Έχω 3 μήλα 2024-13-45 99/99/9999 $ % @ # * /"
)


def assert_spans_read(text: str, spans: list[Span], offset: int = 0) -> None:
    """In order, not overlapping, within the text, covering every non-space character."""
    covered: set[int] = set()
    previous_end = offset
    for span in spans:
        assert offset <= previous_end <= span.start < span.end <= offset + len(text), spans
        covered.update(range(span.start - offset, span.end - offset))
        previous_end = span.end
        assert span.spoken == span.spoken.strip()
        assert "\x00" not in span.spoken
    assert {i for i, c in enumerate(text) if not c.isspace()} <= covered


@pytest.mark.parametrize("language", CATALOG_LANGUAGES)
def test_spans_cover_the_text_in_order_in_every_language(language: str) -> None:
    spans = expand(MIXED, language)
    assert_spans_read(MIXED, spans)
    # Digits are read wherever the language has number words (not for hi, el: left as written).
    words = " ".join(span.spoken for span in spans)
    if language not in ("hi-IN", "el-GR"):
        assert not re.search(r"\d", words.replace("12345", "")), words


def test_offsets_are_shifted_by_offset() -> None:
    text = "Pay $250 now."
    plain = expand(text, "en-US")
    shifted = expand(text, "en-US", offset=100)
    assert [(s.start + 100, s.end + 100, s.spoken) for s in plain] == [
        (s.start, s.end, s.spoken) for s in shifted
    ]
    assert_spans_read(text, shifted, offset=100)
    assert [text[s.start : s.end] for s in plain] == ["Pay", "$250", "now."]


def test_groups_read_together_are_one_span() -> None:
    text = "At 3:30 pm on March 3rd, 2024 call +1 555 123 4567 about 10 km."
    written = [text[s.start : s.end] for s in expand(text, "en-US")]
    assert written == [
        "At", "3:30 pm", "on", "March 3rd, 2024", "call", "+1 555 123 4567", "about", "10 km.",
    ]  # fmt: skip


def test_empty_and_blank_text_have_no_spans() -> None:
    assert expand("", "en-US") == []
    assert expand(" \n\t ", "fr-FR") == []


def test_unread_tokens_have_empty_words() -> None:
    spans = expand("a * b", "en-US")
    assert [(s.spoken) for s in spans] == ["a", "", "b"]


def test_prosody_punctuation_stays_with_the_word_before() -> None:
    spans = expand('He said "yes," then (quietly) left; why? Now!', "en-US")
    assert [s.spoken for s in spans] == [
        "He", "said", "yes,", "then", "quietly", "left;", "why?", "Now!",
    ]  # fmt: skip


def test_numbers_up_to_max_digits_are_words_longer_ones_digit_by_digit() -> None:
    inside = "9" * MAX_DIGITS
    outside = "9" * (MAX_DIGITS + 1)
    (read,) = expand(inside, "en-US")
    assert "nine hundred and ninety-nine trillion" in read.spoken
    (spelled,) = expand(outside, "en-US")
    assert spelled.spoken == " ".join(["nine"] * (MAX_DIGITS + 1))


def test_a_long_text_is_read_fast_and_bounded() -> None:
    text = (MIXED + " ") * (5000 // len(MIXED) + 1)
    text = text[:5000]
    started = time.perf_counter()
    spans = expand(text, "en-US")
    elapsed = time.perf_counter() - started
    assert_spans_read(text, spans)
    assert len(spans) <= len(text.split()) * 2
    assert elapsed < 2.0, elapsed
    # A 5,000-digit number: read digit by digit, one span, still fast.
    started = time.perf_counter()
    (span,) = expand("7" * 5000, "de-DE")
    assert span.spoken.split() == ["sieben"] * 5000
    assert time.perf_counter() - started < 2.0


def test_say_as_characters_spells_letters_and_digits() -> None:
    assert say_as("NASA", "characters", "en-US") == "N A S A"
    assert say_as("a1-b", "characters", "en-US") == "A one B"
    assert say_as("AB2", "characters", "fr-FR") == "A B deux"


def test_say_as_cardinal_and_ordinal() -> None:
    assert say_as("1,234", "cardinal", "en-US") == "one thousand, two hundred and thirty-four"
    assert say_as("1234", "cardinal", "de-DE") == "eintausendzweihundertvierunddreißig"
    assert say_as("-3,5", "cardinal", "fr-FR") == "moins trois virgule cinq"
    assert say_as("3", "ordinal", "en-US") == "third"
    assert say_as("21st", "ordinal", "en-US") == "twenty-first"
    assert say_as("1", "ordinal", "it-IT") == "primo"


def test_say_as_date_and_telephone() -> None:
    assert say_as("2024-03-15", "date", "en-US") == "March fifteenth, twenty twenty-four"
    assert say_as("03/15/2024", "date", "en-US", format="mdy") == (
        "March fifteenth, twenty twenty-four"
    )
    assert say_as("15/03/2024", "date", "es-ES") == "quince de marzo de dos mil veinticuatro"
    assert say_as("15.03", "date", "de-DE", format="dm").startswith("fünfzehnter März")
    assert say_as("1999", "date", "en-US", format="y") == "nineteen ninety-nine"
    assert say_as("(555) 123-4567", "telephone", "en-US") == (
        "five five five, one two three, four five six seven"
    )


@pytest.mark.parametrize(
    ("text", "interpret_as", "format", "message"),
    [
        ("abc", "cardinal", None, "is not a number"),
        ("12 apples", "cardinal", None, "is not a number"),
        ("first", "ordinal", None, "is not an ordinal"),
        ("2024-13-01", "date", None, "is not a valid date"),
        ("32/01/2024", "date", None, "is not a valid date"),
        ("tomorrow", "date", None, "is not a date"),
        ("2024-03-15", "date", "qq", "is not one of"),
        ("2024-03", "date", None, "needs a format"),
        ("123456", "telephone", None, "is not a phone number"),
        ("1" * 16, "telephone", None, "is not a phone number"),
        ("call 5551234567", "telephone", None, "is not a phone number"),
        ("  ", "characters", None, "has no text"),
        ("--", "characters", None, "no letters or digits"),
        ("1" * (MAX_SAY_AS_CHARS + 1), "characters", None, "longer than"),
    ],
)
def test_say_as_rejects_text_that_does_not_fit(
    text: str, interpret_as: str, format: str | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        say_as(text, interpret_as, "en-US", format=format)  # type: ignore[arg-type]


def test_say_as_bounds_inside() -> None:
    assert len(say_as("A" * MAX_SAY_AS_CHARS, "characters", "en-US").split()) == MAX_SAY_AS_CHARS
    assert say_as("1234567", "telephone", "en-US") == "one two three four five six seven"
    assert say_as("1" * 15, "telephone", "en-US") == " ".join(["one"] * 15)


def test_say_as_ordinal_without_ordinals_in_the_language() -> None:
    with pytest.raises(ValueError, match="no ordinals"):
        say_as("3", "ordinal", "hi-IN")
