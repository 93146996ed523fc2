"""The shape of one language's reading rules (see the table in `languages`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

# (hour 0-23, minute, written with am/pm) -> words
TimeReader = Callable[[int, int, bool], str]
# (year or None, month 1-12, day) -> words
DateReader = Callable[[int | None, int, int], str]


@dataclass(frozen=True)
class Lexicon:
    """One language's reading rules. `num2words` is the num2words code ('' when it has none)."""

    num2words: str
    decimal_comma: bool = True
    # Numeric dates: "DMY" (15/03/2024) or "MDY" (03/15/2024).
    date_order: str = "DMY"
    # Month names in order, as read; `month_names` maps every written form (lower case, full
    # and abbreviated, with or without the dot) to the month number.
    months: tuple[str, ...] = ()
    month_names: dict[str, int] = field(default_factory=dict)
    # Abbreviations as written (case-sensitive) -> words; `titles` come before a name and never
    # end a sentence.
    abbreviations: dict[str, str] = field(default_factory=dict)
    titles: frozenset[str] = frozenset()
    # Currency code -> (one, many) when num2words has no form for it in this language.
    currencies: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Unit symbol -> (one, many).
    units: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Words: "percent", "minus", "plus", "point" (decimal), "dot", "slash", "at", "dash",
    # "to" (ranges), "colon", "underscore".
    words: dict[str, str] = field(default_factory=dict)
    time: TimeReader | None = None
    date: DateReader | None = None
    # Dates written day first with the month's name ("3rd of March"), when they read otherwise.
    date_day_first: DateReader | None = None
    # Ordinal suffixes as written after digits -> grammatical form ("m", "f" or "").
    ordinal_suffixes: dict[str, str] = field(default_factory=dict)
    # English "1990s".
    decades: bool = False


def month_names(months: tuple[str, ...], *extra: tuple[str, int]) -> dict[str, int]:
    """Every written form of the months, lower case: the name, its first three letters (with
    and without a dot), and `extra` forms."""
    names: dict[str, int] = {}
    for number, name in enumerate(months, 1):
        lower = name.lower()
        names[lower] = number
        names[lower[:3]] = number
        names[lower[:3] + "."] = number
    for name, number in extra:
        names[name] = number
    return names


def units(table: dict[str, tuple[str, str]], *symbols: str) -> dict[str, tuple[str, str]]:
    """The unit table of `symbols` in order: table[symbol] = (one, many)."""
    return {symbol: table[symbol] for symbol in symbols}
