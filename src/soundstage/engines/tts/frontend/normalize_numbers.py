"""Numbers read out through num2words (cardinals, ordinals, years, money), with the bounds
normalization keeps: past MAX_DIGITS an integer is read digit by digit."""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Final

from num2words import CONVERTER_CLASSES, num2words

# Integers longer than this (quadrillions and up) are read digit by digit: nobody says them,
# and a reader would spell them out anyway.
MAX_DIGITS: Final = 15

# num2words' code for Mandarin, which it does not speak: read by _chinese().
CHINESE: Final = "zh"
_CHINESE_DIGITS = "零一二三四五六七八九"


def _words(value: int | Decimal, code: str, to: str = "cardinal", **kwargs: str) -> str | None:
    if not code or code not in CONVERTER_CLASSES:
        return None
    return _cached_words(value, code, to, tuple(sorted(kwargs.items())))


@functools.lru_cache(maxsize=4096)
def _cached_words(
    value: int | Decimal, code: str, to: str, options: tuple[tuple[str, str], ...]
) -> str | None:
    try:
        return str(num2words(value, lang=code, to=to, **dict(options)))
    except (NotImplementedError, AttributeError, TypeError, OverflowError, IndexError):
        return None


def digits(text: str, code: str) -> str:
    """Each digit of `text` by its name ("0451" -> "zero four five one")."""
    names = [cardinal_of_digits(d, code) for d in text if d.isdigit()]
    return " ".join(names)


def cardinal_of_digits(text: str, code: str) -> str:
    """The cardinal of a string of ASCII digits; past MAX_DIGITS, digit by digit. A language
    num2words does not speak keeps the digits (its engine reads them)."""
    stripped = text.lstrip("0") or "0"
    if len(stripped) > MAX_DIGITS:
        return digits(text, code) if len(text) > 1 else text
    if code == CHINESE:
        return _chinese(int(stripped))
    words = _words(int(stripped), code)
    return text if words is None else words


def cardinal(value: int, code: str) -> str:
    if value < 0:
        return f"{minus_word(code)} {cardinal_of_digits(str(-value), code)}".strip()
    return cardinal_of_digits(str(value), code)


def ordinal(value: int, code: str) -> str | None:
    """The ordinal ("third"), or None when the language has none in num2words."""
    if value < 0 or len(str(value)) > MAX_DIGITS:
        return None
    return _words(value, code, "ordinal")


def year(value: int, code: str) -> str:
    """A year as the language reads years ("nineteen ninety" in English)."""
    words = _words(value, code, "year")
    return words if words is not None else cardinal(value, code)


def minus_word(code: str) -> str:
    converter = CONVERTER_CLASSES.get(code)
    word = getattr(converter, "negword", "") if converter is not None else ""
    return str(word).strip()


def point_word(code: str) -> str:
    """The word between a number's integer and its decimals ("point", "virgule")."""
    if code == CHINESE:
        return "点"
    converter = CONVERTER_CLASSES.get(code)
    word = getattr(converter, "pointword", "") if converter is not None else ""
    return str(word).strip() or "."


def currency_forms(code: str, currency: str) -> bool:
    converter = CONVERTER_CLASSES.get(code)
    forms = getattr(converter, "CURRENCY_FORMS", {}) if converter is not None else {}
    return currency in forms


def money(units: int, cents: int, currency: str, code: str) -> str | None:
    """An amount in num2words' words for the currency ("two hundred and fifty dollars"), cents
    left out when zero; None when num2words has no words for that currency in the language."""
    if not currency_forms(code, currency) or len(str(units)) > MAX_DIGITS:
        return None
    value = Decimal(units) + Decimal(cents) / 100
    if cents:
        return _words(value, code, "currency", currency=currency)
    # The amount without its "zero cents": cut at a separator only we write.
    words = _words(value, code, "currency", currency=currency, separator="\x00")
    if words is None or "\x00" not in words:
        return words
    return words.split("\x00")[0].strip().rstrip(",")


def _chinese(value: int) -> str:
    """Mandarin cardinals (num2words has none): 12345 -> 一万二千三百四十五."""
    if value == 0:
        return _CHINESE_DIGITS[0]
    parts: list[str] = []
    for unit in ("亿", "万", ""):
        size = {"亿": 10**8, "万": 10**4, "": 1}[unit]
        group, value = divmod(value, size)
        if group:
            text = _chinese_below_10000(group) if group < 10**4 else _chinese(group)
            if parts and group < size // 10 and not parts[-1].endswith(_CHINESE_DIGITS[0]):
                parts.append(_CHINESE_DIGITS[0])
            parts.append(text + unit)
        elif parts and value:
            parts.append(_CHINESE_DIGITS[0])
    text = "".join(parts)
    while "零零" in text:
        text = text.replace("零零", "零")
    text = text.rstrip("零")
    return text[1:] if text.startswith("一十") else text


def _chinese_below_10000(value: int) -> str:
    out = ""
    zero = False
    for size, name in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit, value = divmod(value, size)
        if digit:
            if zero and out:
                out += _CHINESE_DIGITS[0]
            out += _CHINESE_DIGITS[digit] + name
            zero = False
        else:
            zero = True
    return out
