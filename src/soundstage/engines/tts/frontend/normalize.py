"""Normalization: written text to the words a reader says, per language.

`expand` cuts plain text into spans, each a written token or a group read together ("3:30 pm",
"$250", "March 3rd, 2024", "+1 555 123 4567"), and gives each the words spoken. What is read
and how, per language, is in the table of `frontend.languages`; in short:

- numbers ("1,000,000", "3.5", "-4"; a bare 4-digit number from 1100 to 2099 as a year),
  ordinals ("12th", "3º", "1er"), money ($, €, £, ¥ and codes: USD, EUR...), percentages and
  plain numbers through num2words in every language it speaks; integers longer than
  MAX_DIGITS are read digit by digit;
- times, dates, units, abbreviations and URL/e-mail words in en, es, fr, de and it;
- phone numbers (7 to 15 digits, with a +, brackets, or dashes/dots between groups, or the
  3-3-4 grouping) digit by digit in their groups, in every language num2words speaks;
- acronyms: a word of 2 to 5 capitals is spelled ("BBC" -> "B B C") unless it is one of
  ACRONYM_WORDS, read as a word ("NASA"); longer all-caps words, and every all-caps word of
  a text written mostly in capitals (shouting), are read as words. A list rather than a
  vowel heuristic: "USA" and "IBM" look pronounceable and are spelled by everyone.

Punctuation that marks prosody (. ! ? , ; and : read as ",") stays attached to the word
before it, so engines still pause; an abbreviation's own full stop ("Dr.") does not end a
sentence unless the abbreviation ends the text or is followed by a capital (and is not a title).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, Literal

from soundstage.engines.tts.frontend import normalize_numbers as numbers
from soundstage.engines.tts.frontend.languages import base_language, ja, lexicon_for
from soundstage.engines.tts.frontend.languages.lexicon import Lexicon
from soundstage.engines.tts.frontend.normalize_addresses import (
    MAX_PHONE_DIGITS,
    MIN_PHONE_DIGITS,
    phone,
    read_phone,
    url,
)
from soundstage.engines.tts.frontend.normalize_dates import date, read_date, time
from soundstage.engines.tts.frontend.normalize_readers import (
    Context,
    Reading,
    decade,
    ends_sentence,
    money,
    number,
    number_pattern,
    ordinal,
    percent,
    unit,
)
from soundstage.engines.tts.frontend.script import Span

MAX_DIGITS: Final = numbers.MAX_DIGITS
# say_as() takes at most this much text.
MAX_SAY_AS_CHARS: Final = 1000
ACRONYM_WORDS: Final = frozenset(
    {
        "NASA", "NATO", "UNESCO", "UNICEF", "OPEC", "FIFA", "UEFA", "NAFTA", "AIDS", "LASER",
        "RADAR", "SCUBA", "GIF", "JPEG", "PIN", "COVID", "ASCII", "NASDAQ", "IKEA", "CERN",
        "ESA", "SARS", "OTAN", "ONU", "ONG", "OVNI", "SIDA", "DAX", "ISBN", "IBAN",
    }
)  # fmt: skip

_LEADING = re.compile(r"[(\[{\"'«“\u2018¿¡]+")
_TRAILING = re.compile(r"[.,!?;:…)\]}\"'»”\u2019]+")
_PROSODY = re.compile(r"[.,!?;:…]")
# Letters, with the combining marks of scripts that write vowels as marks (Devanagari...).
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670"
    "\u06d6-\u06ed\u0900-\u0dff\u0e00-\u0eff"
)
_LETTER = rf"(?:[^\W\d_]|[{_MARKS}])"
_WORD = re.compile(rf"{_LETTER}+(?:['\u2019-]{_LETTER}+)*")
_INITIALISM = re.compile(r"(?:[A-Z]\.){2,}(?![\w])")
_ACRONYM = re.compile(r"[A-Z]{2,}(?![\w])")
_SYMBOLS = {
    "&": {"en": "and", "es": "y", "fr": "et", "de": "und", "it": "e"},
    "+": {"en": "plus", "es": "más", "fr": "plus", "de": "plus", "it": "più"},
    "=": {"en": "equals", "es": "igual a", "fr": "égale", "de": "gleich", "it": "uguale a"},
    "%": {"en": "percent", "es": "por ciento", "fr": "pour cent", "de": "Prozent",
          "it": "per cento"},
}  # fmt: skip

Reader = Callable[[Context, int], Reading | None]
# Most specific first: a date before a phone number before a plain number.
_READERS: tuple[Reader, ...] = (url, date, time, phone, money, percent, decade, unit, ordinal)


def expand(text: str, language: str, *, offset: int = 0) -> list[Span]:
    """The spans reading plain `text` (no markup) in `language` (BCP-47), in order, together
    covering every character that is not whitespace; each span's start/end are offsets into
    `text` plus `offset`. A written token that is not read has spoken == ""."""
    if base_language(language) == "ja":
        return ja.expand(text, offset=offset)
    lex = lexicon_for(language)
    ctx = Context(text, lex, _shouting(text))
    spans: list[Span] = []
    pos = 0
    length = len(text)
    while pos < length:
        if text[pos].isspace():
            pos += 1
            continue
        start = pos
        # "(555) 123-4567" starts with its bracket; other brackets and quotes are the next
        # word's.
        reading = phone(ctx, pos) if text[pos] == "(" else None
        leading = _LEADING.match(text, pos) if reading is None else None
        if leading is not None:
            pos = leading.end()
        if reading is None and pos < length and not text[pos].isspace():
            reading = _read(ctx, pos)
        if reading is None:
            end, spoken = pos, ""
        else:
            end, spoken = reading
        trailing = _TRAILING.match(text, end)
        if trailing is not None:
            marks = "".join(_PROSODY.findall(trailing.group())).replace("…", "...")
            spoken = (spoken + marks.replace(":", ",")).strip() if spoken else ""
            end = trailing.end()
        elif spoken.endswith("\x00."):
            spoken = spoken[:-2] + "."
        spoken = spoken.replace("\x00", "")
        if end == start:  # defensive: always advance
            end = start + 1
        spans.append(Span(offset + start, offset + end, spoken))
        pos = end
    return spans


def _read(ctx: Context, pos: int) -> Reading | None:
    text = ctx.text
    char = text[pos]
    if char.isdigit() or (char in "$€£¥+-\u2212" and pos + 1 < len(text)):
        for reader in _READERS:
            found = reader(ctx, pos)
            if found is not None:
                return found
        found = number(ctx, pos)
        if found is not None:
            return found
    elif _WORD.match(text, pos) is not None:
        for reader in (url, date, _abbreviation, money, _initialism, _acronym):
            found = reader(ctx, pos)
            if found is not None:
                return found
        match = _WORD.match(text, pos)
        if match is not None:
            # Digits glued to a word ("mp3", "3D", Chinese) are the next span's.
            return match.end(), match.group()
    return _symbol(ctx, pos)


def _abbreviation(ctx: Context, pos: int) -> Reading | None:
    text = ctx.text
    for written in _abbreviations(ctx.lex):
        if not text.startswith(written, pos):
            continue
        end = pos + len(written)
        # "Mme" but not "Mmes"; "Dr" not the start of "Dr." (which has its own entry).
        if end < len(text) and (text[end].isalnum() or text[end] == "."):
            continue
        spoken = ctx.lex.abbreviations[written]
        if written == "St." and ctx.lex.num2words == "en" and _after_name(text, pos):
            # "Main St." is a street, "St. Louis" a saint.
            return end, "Street\x00." if ends_sentence(text, end) else "Street"
        if written.endswith(".") and written not in ctx.lex.titles and ends_sentence(text, end):
            spoken += "\x00."
        return end, spoken
    return None


_ABBREVIATIONS: dict[int, list[str]] = {}


def _abbreviations(lex: Lexicon) -> list[str]:
    key = id(lex)
    if key not in _ABBREVIATIONS:
        _ABBREVIATIONS[key] = sorted(lex.abbreviations, key=len, reverse=True)
    return _ABBREVIATIONS[key]


def _after_name(text: str, pos: int) -> bool:
    before = text[:pos].rstrip().rsplit(None, 1)
    return bool(before) and before[-1][:1].isupper() and before[-1][-1:].isalpha()


def _initialism(ctx: Context, pos: int) -> Reading | None:
    """U.S.A. -> "U S A"."""
    match = _INITIALISM.match(ctx.text, pos)
    if match is None:
        return None
    spoken = " ".join(match.group().replace(".", ""))
    if ends_sentence(ctx.text, match.end()):
        spoken += "\x00."
    return match.end(), spoken


def _acronym(ctx: Context, pos: int) -> Reading | None:
    match = _ACRONYM.match(ctx.text, pos)
    if match is None:
        return None
    word = match.group()
    if ctx.shouting or word in ACRONYM_WORDS or len(word) > 5:
        return match.end(), word
    return match.end(), " ".join(word)


def _symbol(ctx: Context, pos: int) -> Reading:
    """One character no reader took: a symbol read by name, a dash between numbers read as
    "to", anything else not read."""
    text = ctx.text
    char = text[pos]
    base = ctx.lex.num2words.split("_")[0]
    if (
        char in "-\u2013\u2014"
        and pos > 0
        and text[pos - 1].isdigit()
        and text[pos + 1 : pos + 2].isdigit()
    ):
        return pos + 1, ctx.lex.words.get("to", "-")
    if char in "$€£¥":
        # A currency sign without an amount (or in a language without number words): the
        # engine reads it in its language.
        return pos + 1, char
    if char in _SYMBOLS:
        return pos + 1, _SYMBOLS[char].get(base, ctx.lex.words.get("percent", char))
    if char in "\u2014\u2013" and pos > 0 and text[pos - 1].isspace():
        return pos + 1, ","
    return pos + 1, ""


def _shouting(text: str) -> bool:
    words = re.findall(r"[^\W\d_]{2,}", text)
    capitals = sum(1 for word in words if word.isupper())
    return len(words) >= 3 and capitals * 2 > len(words)


Interpretation = Literal["characters", "cardinal", "ordinal", "date", "telephone"]
_DATE_FORMATS = frozenset({"mdy", "dmy", "ymd", "md", "dm", "ym", "my", "d", "m", "y"})


def say_as(
    text: str, interpret_as: Interpretation, language: str, *, format: str | None = None
) -> str:
    """The words for SSML <say-as interpret-as=...>: "characters" spells letters and digits
    one by one ("NASA" -> "N A S A"), "cardinal" and "ordinal" read one number, "date" a date
    (format: SSML's mdy, dmy, ymd, md, dm, ym, my, d, m, y; default ISO, else the language's
    order), "telephone" a phone number digit by digit. ValueError when the text does not fit."""
    written = text.strip()
    if not written:
        raise ValueError(f"say-as {interpret_as} has no text to read.")
    if len(written) > MAX_SAY_AS_CHARS:
        raise ValueError(f"say-as text is longer than {MAX_SAY_AS_CHARS} characters.")
    lex = lexicon_for(language)
    ctx = Context(written, lex, shouting=False)
    code = lex.num2words
    if interpret_as == "characters":
        pieces = [numbers.digits(c, code) if c.isdigit() else c.upper() for c in written]
        spoken = " ".join(p for p in pieces if p.strip() and (p[0].isalnum()))
        if not spoken:
            raise ValueError(f"say-as characters: {text!r} has no letters or digits to spell.")
        return spoken
    if interpret_as == "cardinal":
        match = re.fullmatch(r"[-\u2212+]?" + number_pattern(lex), written)
        found = number(ctx, 0, years=False) if match is not None else None
        if found is None or found[0] != len(written):
            raise ValueError(f"say-as cardinal: {text!r} is not a number.")
        return found[1]
    if interpret_as == "ordinal":
        match = re.fullmatch(r"(\d{1,15})\.?(?:[^\W\d_]{1,3}|[ºª°ᵉ])?", written)
        if match is None:
            raise ValueError(f"say-as ordinal: {text!r} is not an ordinal number.")
        words = numbers.ordinal(int(match.group(1)), code)
        if words is None:
            raise ValueError(f"say-as ordinal: no ordinals are known in {language!r}.")
        return words
    if interpret_as == "telephone":
        words = read_phone(written, ctx)
        if words is None:
            raise ValueError(
                f"say-as telephone: {text!r} is not a phone number ({MIN_PHONE_DIGITS} to "
                f"{MAX_PHONE_DIGITS} digits, with spaces, +, brackets, dashes or dots)."
            )
        return words
    if interpret_as == "date":
        return _say_date(ctx, written, format)
    raise ValueError(f"say-as interpret-as={interpret_as!r} is not supported.")


def _say_date(ctx: Context, written: str, format: str | None) -> str:
    if format is not None and format not in _DATE_FORMATS:
        raise ValueError(f"say-as date: format {format!r} is not one of {sorted(_DATE_FORMATS)}.")
    parts = re.split(r"[-./\s]+", written)
    if not all(p.isdigit() for p in parts) or not parts:
        if format is None:
            found = date(ctx, 0)
            if found is not None and found[0] == len(written):
                return found[1]
        raise ValueError(f"say-as date: {written!r} is not a date.")
    if format is None:
        if len(parts) == 3 and len(parts[0]) == 4:
            format = "ymd"
        elif len(parts) == 3:
            format = ctx.lex.date_order.lower()
        else:
            raise ValueError(f"say-as date: {written!r} needs a format.")
    if len(parts) != len(format):
        raise ValueError(f"say-as date: {written!r} does not have the parts of {format!r}.")
    values = {field: int(part) for field, part in zip(format, parts, strict=True)}
    year, month, day = values.get("y"), values.get("m"), values.get("d")
    if (
        (month is not None and not 1 <= month <= 12)
        or (day is not None and not 1 <= day <= 31)
        or (year is not None and not 0 < year < 10000)
    ):
        raise ValueError(f"say-as date: {written!r} is not a valid date ({format}).")
    return read_date(ctx, year, month, day)
