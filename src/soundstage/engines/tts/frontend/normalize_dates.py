"""Readers of times ("3:30 pm", "15:45", "15h30") and dates ("2024-03-15", "15/03/2024",
"March 3rd, 2024", "3 de marzo de 2024", "15. März 2024")."""

from __future__ import annotations

import calendar
import re

from soundstage.engines.tts.frontend import normalize_numbers as numbers
from soundstage.engines.tts.frontend.normalize_readers import Context, Reading, ends_sentence

_AMPM = r"(?P<ampm>[aApP]\.?\s?[mM]\b\.?)"
_TIME = re.compile(rf"(?P<h>\d{{1,2}})(?P<sep>[:.hH])(?P<m>\d{{2}})(?!\d)(?:\s?{_AMPM})?")
_HOUR_AMPM = re.compile(rf"(?P<h>\d{{1,2}})(?P<m>\d{{2}})?\s?{_AMPM}")
_UHR = re.compile(r"\s+Uhr\b")
_ISO = re.compile(r"(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?![\w-])")
_NUMERIC = re.compile(r"(?P<a>\d{1,4})(?P<sep>[./-])(?P<b>\d{1,2})(?P=sep)(?P<c>\d{2,4})(?![\w])")
_WORD = r"(?P<month>[^\W\d_]+\.?)"
_MONTH_FIRST = re.compile(
    rf"{_WORD}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)(?:,?\s+(?P<y>\d{{4}})(?!\d))?"
)
_DAY_FIRST = re.compile(
    rf"(?P<d>\d{{1,2}})(?:st|nd|rd|th|er|º|\.)?\s+(?:(?:de|of)\s+)?{_WORD}"
    r"(?:,?\s+(?:de\s+)?(?P<y>\d{4})(?!\d))?"
)


def time(ctx: Context, pos: int) -> Reading | None:
    reader = ctx.lex.time
    if reader is None:
        return None
    match = _TIME.match(ctx.text, pos)
    if match is not None:
        hour, minute = int(match["h"]), int(match["m"])
        twelve = match["ampm"] is not None
        sep = match["sep"]
        uhr = _UHR.match(ctx.text, match.end())
        # "3.30" is a time only with am/pm, or "Uhr" (German); "15h30" only in French.
        if sep == "." and not twelve and uhr is None:
            return None
        if sep in "hH" and ctx.lex.num2words != "fr":
            return None
    else:
        match = _HOUR_AMPM.match(ctx.text, pos)
        if match is None:
            return None
        # "9 am", and "330 pm" as people (and speech recognizers) write 3:30 pm.
        hour, minute, twelve, uhr = int(match["h"]), int(match["m"] or 0), True, None
    if minute > 59 or hour > (12 if twelve else 23) or (twelve and hour == 0):
        return None
    if twelve:
        pm = match["ampm"].lower().startswith("p")
        hour = hour % 12 + (12 if pm else 0)
    end = uhr.end() if uhr is not None else match.end()
    words = reader(hour, minute, twelve)
    if ctx.text[end - 1] == "." and ends_sentence(ctx.text, end):
        words += "\x00."
    return end, words


def _valid(year: int | None, month: int, day: int) -> bool:
    """A day that exists (February 29th only in leap years; any year when none is given)."""
    if not (1 <= month <= 12 and (year is None or 0 < year < 10000)):
        return False
    return 1 <= day <= calendar.monthrange(2000 if year is None else year, month)[1]


def date(ctx: Context, pos: int) -> Reading | None:
    reader = ctx.lex.date
    if reader is None:
        return None
    match = _ISO.match(ctx.text, pos)
    if match is not None:
        year, month, day = int(match["y"]), int(match["m"]), int(match["d"])
        if not _valid(year, month, day):
            return None
        return match.end(), _case(ctx, pos, reader(year, month, day))
    match = _NUMERIC.match(ctx.text, pos)
    if match is not None:
        return _numeric_date(ctx, match)
    for pattern in (_MONTH_FIRST, _DAY_FIRST):
        match = pattern.match(ctx.text, pos)
        if match is None:
            continue
        month_ = ctx.lex.month_names.get(match["month"].lower())
        if month_ is None and match["month"].endswith("."):
            month_ = ctx.lex.month_names.get(match["month"].lower().rstrip("."))
        if month_ is None:
            continue
        end = match.end()
        if (
            match["y"] is None
            and match["month"].endswith(".")
            and match["month"][:-1].lower() in (ctx.lex.month_names)
        ):
            # "on March 3." keeps the sentence's full stop out of the month.
            end = match.end("month") - 1 if pattern is _DAY_FIRST else end
        written_year = int(match["y"]) if match["y"] else None
        day = int(match["d"])
        if _valid(written_year, month_, day):
            if pattern is _DAY_FIRST and ctx.lex.date_day_first is not None:
                reader = ctx.lex.date_day_first
            return end, _case(ctx, pos, reader(written_year, month_, day))
    return None


def _numeric_date(ctx: Context, match: re.Match[str]) -> Reading | None:
    a, b, c = match["a"], match["b"], match["c"]
    if len(a) == 4:
        year, month, day = int(a), int(b), int(c)
        if len(c) > 2:
            return None
    else:
        if len(a) > 2:
            return None
        first, second = int(a), int(b)
        month, day = (first, second) if ctx.lex.date_order == "MDY" else (second, first)
        year = int(c) if len(c) == 4 else 2000 + int(c) if len(c) == 2 else -1
    if not _valid(year, month, day):
        return None
    assert ctx.lex.date is not None
    return match.end(), _case(ctx, match.start(), ctx.lex.date(year, month, day))


_GERMAN_DATIVE = re.compile(r"\b(?:am|vom|zum|dem|ab|bis)\s+$", re.IGNORECASE)


_THE = re.compile(r"\bthe\s+$", re.IGNORECASE)


def _case(ctx: Context, pos: int, words: str) -> str:
    """German dates after "am", "vom"... take the dative ("am fünfzehnten März"); English ones
    after "the" do not say it twice."""
    if words.startswith("the ") and _THE.search(ctx.text, max(0, pos - 5), pos):
        return words.removeprefix("the ")
    if ctx.lex.num2words == "de" and _GERMAN_DATIVE.search(ctx.text, max(0, pos - 8), pos):
        first, _, rest = words.partition(" ")
        if first.endswith("ter"):
            return f"{first[:-1]}n {rest}"
    return words


def read_date(ctx: Context, year: int | None, month: int | None, day: int | None) -> str:
    """A date from its parts, any of which may be missing (SSML say-as formats "my", "d"...)."""
    code = ctx.lex.num2words
    if ctx.lex.date is not None and month is not None and day is not None:
        return ctx.lex.date(year, month, day)
    parts: list[str] = []
    if day is not None:
        parts.append(numbers.ordinal(day, code) or numbers.cardinal(day, code))
    if month is not None:
        parts.append(ctx.lex.months[month - 1] if ctx.lex.months else numbers.cardinal(month, code))
    if year is not None:
        parts.append(numbers.year(year, code))
    return " ".join(parts)
