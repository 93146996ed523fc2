"""German reading rules (de-DE)."""

from __future__ import annotations

from soundstage.engines.tts.frontend.languages.lexicon import Lexicon, month_names
from soundstage.engines.tts.frontend.normalize_numbers import cardinal, ordinal, year

_MONTHS = (
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
)


def _time(hour: int, minute: int, twelve_hour: bool) -> str:
    """15:30 -> "fünfzehn Uhr dreißig"; 1:00 -> "ein Uhr" (pm read as 24 h)."""
    hours = "ein Uhr" if hour == 1 else f"{cardinal(hour, 'de')} Uhr"
    return hours if minute == 0 else f"{hours} {cardinal(minute, 'de')}"


def _date(year_: int | None, month: int, day: int) -> str:
    """15.03.2024 -> "fünfzehnter März zweitausendvierundzwanzig"."""
    words = f"{ordinal(day, 'de')}r {_MONTHS[month - 1]}"
    return words if year_ is None else f"{words} {year(year_, 'de')}"


LEXICON = Lexicon(
    num2words="de",
    months=_MONTHS,
    month_names=month_names(_MONTHS, ("märz", 3), ("maerz", 3), ("sept.", 9)),
    abbreviations={
        "Hr.": "Herr",
        "Hrn.": "Herrn",
        "Fr.": "Frau",
        "Dr.": "Doktor",
        "Prof.": "Professor",
        "z.B.": "zum Beispiel",
        "z. B.": "zum Beispiel",
        "usw.": "und so weiter",
        "bzw.": "beziehungsweise",
        "d.h.": "das heißt",
        "d. h.": "das heißt",
        "u.a.": "unter anderem",
        "u. a.": "unter anderem",
        "ca.": "circa",
        "Nr.": "Nummer",
        "S.": "Seite",
        "Str.": "Straße",
        "evtl.": "eventuell",
        "ggf.": "gegebenenfalls",
        "inkl.": "inklusive",
        "vgl.": "vergleiche",
        "Mio.": "Millionen",
        "Mrd.": "Milliarden",
        "Jh.": "Jahrhundert",
        "St.": "Sankt",
    },
    titles=frozenset(
        {"Hr.", "Hrn.", "Fr.", "Dr.", "Prof.", "z.B.", "z. B.", "d.h.", "d. h.", "u.a.", "u. a."}
        | {"bzw.", "ca.", "Nr.", "S.", "evtl.", "ggf.", "inkl.", "vgl.", "St."}
    ),
    currencies={"JPY": ("Yen", "Yen"), "CNY": ("Yuan", "Yuan")},
    units={
        "km/h": ("Kilometer pro Stunde", "Kilometer pro Stunde"),
        "km": ("Kilometer", "Kilometer"),
        "kg": ("Kilogramm", "Kilogramm"),
        "mg": ("Milligramm", "Milligramm"),
        "g": ("Gramm", "Gramm"),
        "m": ("Meter", "Meter"),
        "cm": ("Zentimeter", "Zentimeter"),
        "mm": ("Millimeter", "Millimeter"),
        "l": ("Liter", "Liter"),
        "L": ("Liter", "Liter"),
        "ml": ("Milliliter", "Milliliter"),
        "mph": ("Meile pro Stunde", "Meilen pro Stunde"),
        "°C": ("Grad Celsius", "Grad Celsius"),
        "°F": ("Grad Fahrenheit", "Grad Fahrenheit"),
        "°": ("Grad", "Grad"),
        "h": ("Stunde", "Stunden"),
        "min": ("Minute", "Minuten"),
        "s": ("Sekunde", "Sekunden"),
        "GB": ("Gigabyte", "Gigabyte"),
        "MB": ("Megabyte", "Megabyte"),
    },
    words={
        "percent": "Prozent",
        "point": "Komma",
        "dot": "Punkt",
        "slash": "Schrägstrich",
        "at": "at",
        "dash": "Bindestrich",
        "to": "bis",
        "colon": "Doppelpunkt",
        "underscore": "Unterstrich",
        "plus": "plus",
    },
    time=_time,
    date=_date,
)
