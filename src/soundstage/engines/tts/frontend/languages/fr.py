"""French reading rules (fr-FR)."""

from __future__ import annotations

from soundstage.engines.tts.frontend.languages.lexicon import Lexicon, month_names
from soundstage.engines.tts.frontend.normalize_numbers import cardinal, year

_MONTHS = (
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
)


def _time(hour: int, minute: int, twelve_hour: bool) -> str:
    """15:30 or 15h30 -> "quinze heures trente"; 1:00 -> "une heure" (pm read as 24 h)."""
    hours = "une heure" if hour == 1 else f"{cardinal(hour, 'fr')} heures"
    if hour == 0:
        hours = "minuit"
    return hours if minute == 0 else f"{hours} {cardinal(minute, 'fr')}"


def _date(year_: int | None, month: int, day: int) -> str:
    words = f"{'premier' if day == 1 else cardinal(day, 'fr')} {_MONTHS[month - 1]}"
    return words if year_ is None else f"{words} {year(year_, 'fr')}"


LEXICON = Lexicon(
    num2words="fr",
    months=_MONTHS,
    month_names=month_names(
        _MONTHS, ("janv.", 1), ("févr.", 2), ("fevrier", 2), ("aout", 8), ("sept.", 9)
    ),
    abbreviations={
        "M.": "monsieur",
        "MM.": "messieurs",
        "Mme": "madame",
        "Mmes": "mesdames",
        "Mlle": "mademoiselle",
        "Dr": "docteur",
        "Dr.": "docteur",
        "Pr": "professeur",
        "Me": "maître",
        "St": "saint",
        "Ste": "sainte",
        "etc.": "et cetera",
        "p. ex.": "par exemple",
        "c.-à-d.": "c'est-à-dire",
        "n°": "numéro",
        "no": "numéro",
        "av.": "avenue",
        "bd": "boulevard",
        "env.": "environ",
        "cf.": "confer",
        "hab.": "habitants",
    },
    titles=frozenset(
        {"M.", "MM.", "Mme", "Mmes", "Mlle", "Dr", "Dr.", "Pr", "Me", "St", "Ste", "n°", "no"}
        | {"av.", "bd", "env.", "cf.", "p. ex.", "c.-à-d."}
    ),
    currencies={"JPY": ("yen", "yens"), "CNY": ("yuan", "yuans")},
    units={
        "km/h": ("kilomètre heure", "kilomètres heure"),
        "km": ("kilomètre", "kilomètres"),
        "kg": ("kilogramme", "kilogrammes"),
        "mg": ("milligramme", "milligrammes"),
        "g": ("gramme", "grammes"),
        "m": ("mètre", "mètres"),
        "cm": ("centimètre", "centimètres"),
        "mm": ("millimètre", "millimètres"),
        "l": ("litre", "litres"),
        "L": ("litre", "litres"),
        "ml": ("millilitre", "millilitres"),
        "mph": ("mile par heure", "miles par heure"),
        "°C": ("degré Celsius", "degrés Celsius"),
        "°F": ("degré Fahrenheit", "degrés Fahrenheit"),
        "°": ("degré", "degrés"),
        "min": ("minute", "minutes"),
        "s": ("seconde", "secondes"),
        "Go": ("gigaoctet", "gigaoctets"),
        "Mo": ("mégaoctet", "mégaoctets"),
    },
    words={
        "percent": "pour cent",
        "point": "virgule",
        "dot": "point",
        "slash": "slash",
        "at": "arobase",
        "dash": "tiret",
        "to": "à",
        "colon": "deux points",
        "underscore": "tiret bas",
        "plus": "plus",
    },
    time=_time,
    date=_date,
    ordinal_suffixes={"er": "m", "re": "f", "ère": "f", "ème": "", "e": "", "ᵉ": "", "è": ""},
)
