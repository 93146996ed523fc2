"""The readers of written tokens that are not plain words: numbers, money, percentages, units,
ordinals, times, dates, phone numbers, URLs and e-mail addresses. Each reader looks at the text
from a position and answers (end, spoken words) or None when the text there is not its kind."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from soundstage.engines.tts.frontend import normalize_numbers as numbers
from soundstage.engines.tts.frontend.languages.lexicon import Lexicon

Reading = tuple[int, str]

_CURRENCY_SYMBOLS = {"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
_CURRENCY_CODES = ("USD", "EUR", "GBP", "JPY", "CHF", "CNY", "INR", "CAD", "AUD", "MXN", "BRL")
_CURRENCY = "|".join(
    re.escape(c) for c in sorted([*_CURRENCY_SYMBOLS, *_CURRENCY_CODES], key=len, reverse=True)
)
_SCALES = {"thousand", "million", "billion", "trillion"}
# A number as the language writes it: sign, digits grouped or not, decimals.
_POINT_NUMBER = r"(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<frac>\d+))?"
_COMMA_NUMBER = r"(?P<int>\d{1,3}(?:[.\u00a0\u202f\u2009]\d{3})+|\d+)(?:,(?P<frac>\d+))?"
# French also groups thousands with a plain space ("1 000 personnes").
_SPACE_NUMBER = r"(?P<int>\d{1,3}(?:[ .\u00a0\u202f\u2009]\d{3})+(?!,?\d)|\d+)(?:,(?P<frac>\d+))?"
_NOT_AFTER = r"(?![\w])"
# A number may touch letters of scripts without spaces (Chinese), never more digits.
_NO_DIGIT_AFTER = r"(?!\d)"


@dataclass(frozen=True)
class Context:
    text: str
    lex: Lexicon
    # Most words in the text are in capitals: all-caps words are read as words, not spelled.
    shouting: bool


def number_pattern(lex: Lexicon) -> str:
    if lex.num2words == "fr":
        return _SPACE_NUMBER
    return _COMMA_NUMBER if lex.decimal_comma else _POINT_NUMBER


def ends_sentence(text: str, end: int) -> bool:
    """Whether a full stop written at text[end - 1] also ends the sentence: nothing follows, or
    a capital does."""
    rest = text[end:].lstrip()
    return not rest or rest[0].isupper()


def read_number(integer: str, fraction: str | None, lex: Lexicon, *, as_year: bool = False) -> str:
    """Digits as written (group separators included) -> words."""
    digits_only = re.sub(r"\D", "", integer)
    code = lex.num2words
    if as_year and fraction is None and len(digits_only) == 4 and 1100 <= int(digits_only) < 2100:
        if integer == digits_only and not digits_only.startswith("0"):
            whole = numbers.year(int(digits_only), code)
        else:
            whole = numbers.cardinal_of_digits(digits_only, code)
    else:
        whole = numbers.cardinal_of_digits(digits_only, code)
    if fraction is None:
        return whole
    point = lex.words.get("point") or numbers.point_word(code)
    if whole == digits_only:
        # A language num2words does not speak: leave the number as written to its engine.
        return f"{digits_only}{point if len(point) == 1 else '.'}{fraction}"
    return f"{whole} {point} {numbers.digits(fraction, code)}"


def number(ctx: Context, pos: int, *, years: bool = True) -> Reading | None:
    """A plain number: "1,000,000", "3.5", "-4", "2024" (a year where a language reads years).
    A sign counts only at the start of a word ("10-20" is a range)."""
    sign = re.compile(r"[-\u2212+]?").match(ctx.text, pos)
    assert sign is not None
    before = ctx.text[pos - 1] if pos > 0 else " "
    if sign.group() and not before.isspace() and before not in "([":
        return None
    match = re.compile(number_pattern(ctx.lex) + _NO_DIGIT_AFTER).match(ctx.text, sign.end())
    if match is None:
        return None
    as_year = years and not sign.group() and _year_here(ctx, pos)
    words = read_number(match["int"], match["frac"], ctx.lex, as_year=as_year)
    if sign.group() in ("-", "\u2212"):
        minus = ctx.lex.words.get("minus") or numbers.minus_word(ctx.lex.num2words) or "-"
        words = f"{minus} {words}"
    elif sign.group() == "+":
        words = f"{ctx.lex.words.get('plus', '+')} {words}"
    return match.end(), words


# English words after which a 4-digit number is a year ("in 1948"; "1500 people" is not).
_YEAR_WORDS = frozenset(
    {"in", "since", "of", "from", "by", "until", "till", "year", "before", "after", "during"}
    | {"around", "circa", "and", "or", "to", "summer", "winter", "spring", "autumn", "fall"}
    | {"early", "late", "mid"}
)
_WORD_BEFORE = re.compile(r"([^\W\d_]+)\.?[,\s]+$")


def _year_here(ctx: Context, pos: int) -> bool:
    """Whether a bare 4-digit number at pos reads as a year: always in German (1948 is
    "neunzehnhundertachtundvierzig"); in English after a cue word or a month ("in 1948")."""
    if ctx.lex.num2words == "de":
        return True
    if ctx.lex.num2words != "en":
        return False
    before = _WORD_BEFORE.search(ctx.text, max(0, pos - 16), pos)
    if before is None:
        return False
    word = before.group(1).lower()
    return word in _YEAR_WORDS or word in ctx.lex.month_names


def _amount(ctx: Context, pos: int) -> tuple[int, str, str | None] | None:
    """A number at pos: (end, integer digits as written, fraction) without reading it."""
    match = re.compile(number_pattern(ctx.lex)).match(ctx.text, pos)
    if match is None or re.compile(r"\d").match(ctx.text, match.end()):
        return None
    return match.end(), match["int"], match["frac"]


def money(ctx: Context, pos: int) -> Reading | None:
    """$250, €3.50, 250 €, 3,50 EUR, USD 100, $2 million."""
    text = ctx.text
    if not ctx.lex.num2words:
        return None
    prefix = re.compile(rf"(?P<cur>{_CURRENCY})\s?").match(text, pos)
    if prefix is not None:
        amount = _amount(ctx, prefix.end())
        if amount is None:
            return None
        end, integer, fraction = amount
        currency_text = prefix["cur"]
    else:
        amount = _amount(ctx, pos)
        if amount is None:
            return None
        end, integer, fraction = amount
        suffix = re.compile(rf"\s?(?P<cur>{_CURRENCY}){_NOT_AFTER}").match(text, end)
        if suffix is None:
            return None
        end, currency_text = suffix.end(), suffix["cur"]
    code = _CURRENCY_SYMBOLS.get(currency_text, currency_text)
    scale = re.compile(r"\s(?P<scale>[a-z]+)\b").match(text, end)
    if ctx.lex.num2words == "en" and scale is not None and scale["scale"] in _SCALES:
        quantity = read_number(integer, fraction, ctx.lex)
        name = _currency_name(ctx.lex, code, 2)
        return scale.end(), f"{quantity} {scale['scale']} {name or currency_text}"
    units = int(re.sub(r"\D", "", integer))
    if fraction is None or len(fraction) <= 2:
        cents = int((fraction or "0").ljust(2, "0"))
        words = numbers.money(units, cents, code, ctx.lex.num2words)
        if words is not None:
            return end, words
    quantity = read_number(integer, fraction, ctx.lex)
    plural = 1 if units == 1 and fraction is None else 2
    name = _currency_name(ctx.lex, code, plural)
    return end, f"{quantity} {name or currency_text}"


def _currency_name(lex: Lexicon, code: str, count: int) -> str | None:
    if code in lex.currencies:
        one, many = lex.currencies[code]
        return one if count == 1 else many
    words = numbers.money(count, 0, code, lex.num2words)
    if words is None:
        return None
    # num2words' words for "2 <currency>" minus the "2".
    two = numbers.cardinal(count, lex.num2words)
    return words.removeprefix(two).strip() or None


def _number_end(ctx: Context, pos: int) -> int | None:
    """Where a number at pos ends, without reading it (the cheap test before a reader's)."""
    match = re.compile(r"[-\u2212+]?" + number_pattern(ctx.lex)).match(ctx.text, pos)
    return None if match is None else match.end()


def percent(ctx: Context, pos: int) -> Reading | None:
    end = _number_end(ctx, pos)
    sign = re.compile(r"\s?%").match(ctx.text, end) if end is not None else None
    found = number(ctx, pos) if sign is not None else None
    if sign is None or found is None or found[0] != end:
        return None
    return sign.end(), f"{found[1]} {ctx.lex.words.get('percent', '%')}"


@functools.cache
def _unit_pattern(symbols: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(s) for s in sorted(symbols, key=len, reverse=True))
    return re.compile(rf"\s?(?P<unit>{alternatives})(?![\w/])")


def unit(ctx: Context, pos: int) -> Reading | None:
    """10 km, 3.5 kg, 20°C, 100 km/h."""
    if not ctx.lex.units:
        return None
    end = _number_end(ctx, pos)
    if end is None:
        return None
    match = _unit_pattern(tuple(ctx.lex.units)).match(ctx.text, end)
    found = number(ctx, pos) if match is not None else None
    if match is None or found is None or found[0] != end:
        return None
    one, many = ctx.lex.units[match["unit"]]
    is_one = re.fullmatch(r"[-+]?0*1", ctx.text[pos : found[0]]) is not None
    return match.end(), f"{found[1]} {one if is_one else many}"


def ordinal(ctx: Context, pos: int) -> Reading | None:
    """12th, 1st, 3º, 1ª, 1er, 2e."""
    if not ctx.lex.ordinal_suffixes:
        return None
    suffixes = "|".join(
        re.escape(s) for s in sorted(ctx.lex.ordinal_suffixes, key=len, reverse=True)
    )
    match = re.compile(rf"(?P<n>\d{{1,15}})(?P<suffix>{suffixes}){_NOT_AFTER}").match(ctx.text, pos)
    if match is None:
        return None
    words = numbers.ordinal(int(match["n"]), ctx.lex.num2words)
    if words is None:
        return None
    if ctx.lex.ordinal_suffixes[match["suffix"]] == "f":
        words = feminine(words, ctx.lex.num2words)
    return match.end(), words


def feminine(words: str, code: str) -> str:
    if code == "fr":
        return re.sub(r"\bpremier\b", "première", words)
    return " ".join(w[:-1] + "a" if w.endswith("o") else w for w in words.split())


def decade(ctx: Context, pos: int) -> Reading | None:
    """1990s -> "nineteen nineties" (English)."""
    if not ctx.lex.decades:
        return None
    match = re.compile(r"(?P<n>\d{3}0|\d0)s" + _NOT_AFTER).match(ctx.text, pos)
    if match is None:
        return None
    value = int(match["n"])
    words = numbers.year(value, "en") if value >= 100 else numbers.cardinal(value, "en")
    return match.end(), re.sub(r"y$", "ies", words) if words.endswith("y") else words + "s"
