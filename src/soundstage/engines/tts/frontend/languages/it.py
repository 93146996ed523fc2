"""Italian reading rules (it-IT)."""

from __future__ import annotations

from soundstage.engines.tts.frontend.languages.lexicon import Lexicon, month_names
from soundstage.engines.tts.frontend.normalize_numbers import cardinal, year

_MONTHS = (
    "gennaio",
    "febbraio",
    "marzo",
    "aprile",
    "maggio",
    "giugno",
    "luglio",
    "agosto",
    "settembre",
    "ottobre",
    "novembre",
    "dicembre",
)


def _time(hour: int, minute: int, twelve_hour: bool) -> str:
    """15:30 -> "quindici e trenta"; 1:00 -> "l'una" (pm read as 24 h)."""
    hours = "l'una" if hour == 1 else "mezzanotte" if hour == 0 else cardinal(hour, "it")
    return hours if minute == 0 else f"{hours} e {cardinal(minute, 'it')}"


def _date(year_: int | None, month: int, day: int) -> str:
    words = f"{'primo' if day == 1 else cardinal(day, 'it')} {_MONTHS[month - 1]}"
    return words if year_ is None else f"{words} {year(year_, 'it')}"


LEXICON = Lexicon(
    num2words="it",
    months=_MONTHS,
    month_names=month_names(_MONTHS),
    abbreviations={
        "Sig.": "signor",
        "Sig.ra": "signora",
        "Sig.na": "signorina",
        "Sigg.": "signori",
        "Dott.": "dottor",
        "Dott.ssa": "dottoressa",
        "Prof.": "professor",
        "Prof.ssa": "professoressa",
        "Avv.": "avvocato",
        "Ing.": "ingegner",
        "ecc.": "eccetera",
        "ad es.": "ad esempio",
        "p.es.": "per esempio",
        "pag.": "pagina",
        "n.": "numero",
        "ca.": "circa",
        "S.": "San",
        "tel.": "telefono",
    },
    titles=frozenset(
        {"Sig.", "Sig.ra", "Sig.na", "Sigg.", "Dott.", "Dott.ssa", "Prof.", "Prof.ssa", "Avv."}
        | {"Ing.", "ad es.", "p.es.", "pag.", "n.", "ca.", "S.", "tel."}
    ),
    currencies={"JPY": ("yen", "yen"), "CNY": ("yuan", "yuan")},
    units={
        "km/h": ("chilometro orario", "chilometri orari"),
        "km": ("chilometro", "chilometri"),
        "kg": ("chilogrammo", "chilogrammi"),
        "mg": ("milligrammo", "milligrammi"),
        "g": ("grammo", "grammi"),
        "m": ("metro", "metri"),
        "cm": ("centimetro", "centimetri"),
        "mm": ("millimetro", "millimetri"),
        "l": ("litro", "litri"),
        "L": ("litro", "litri"),
        "ml": ("millilitro", "millilitri"),
        "mph": ("miglio orario", "miglia orarie"),
        "°C": ("grado Celsius", "gradi Celsius"),
        "°F": ("grado Fahrenheit", "gradi Fahrenheit"),
        "°": ("grado", "gradi"),
        "h": ("ora", "ore"),
        "min": ("minuto", "minuti"),
        "s": ("secondo", "secondi"),
        "GB": ("gigabyte", "gigabyte"),
        "MB": ("megabyte", "megabyte"),
    },
    words={
        "percent": "per cento",
        "point": "virgola",
        "dot": "punto",
        "slash": "barra",
        "at": "chiocciola",
        "dash": "trattino",
        "to": "a",
        "colon": "due punti",
        "underscore": "trattino basso",
        "plus": "più",
        "minus": "meno",
    },
    time=_time,
    date=_date,
    ordinal_suffixes={"º": "m", "ª": "f", "°": "m"},
)
