"""Spanish reading rules (es-ES)."""

from __future__ import annotations

from soundstage.engines.tts.frontend.languages.lexicon import Lexicon, month_names
from soundstage.engines.tts.frontend.normalize_numbers import cardinal, year

_MONTHS = (
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
)


def _hour(hour: int) -> str:
    return "una" if hour == 1 else cardinal(hour, "es")


def _time(hour: int, minute: int, twelve_hour: bool) -> str:
    """3:30 pm -> "tres y treinta de la tarde"; 15:45 -> "quince cuarenta y cinco"."""
    if twelve_hour:
        shown = hour % 12 or 12
        part = "de la mañana" if hour < 12 else "de la tarde" if hour < 20 else "de la noche"
        minutes = "en punto" if minute == 0 else f"y {cardinal(minute, 'es')}"
        return f"{_hour(shown)} {minutes} {part}"
    if minute == 0:
        return f"{_hour(hour)} en punto"
    return f"{_hour(hour)} {cardinal(minute, 'es')}"


def _date(year_: int | None, month: int, day: int) -> str:
    words = f"{cardinal(day, 'es')} de {_MONTHS[month - 1]}"
    return words if year_ is None else f"{words} de {year(year_, 'es')}"


_UNITS = {
    "km/h": ("kilómetro por hora", "kilómetros por hora"),
    "km": ("kilómetro", "kilómetros"),
    "kg": ("kilogramo", "kilogramos"),
    "mg": ("miligramo", "miligramos"),
    "g": ("gramo", "gramos"),
    "m": ("metro", "metros"),
    "cm": ("centímetro", "centímetros"),
    "mm": ("milímetro", "milímetros"),
    "l": ("litro", "litros"),
    "L": ("litro", "litros"),
    "ml": ("mililitro", "mililitros"),
    "mph": ("milla por hora", "millas por hora"),
    "°C": ("grado centígrado", "grados centígrados"),
    "°F": ("grado Fahrenheit", "grados Fahrenheit"),
    "°": ("grado", "grados"),
    "h": ("hora", "horas"),
    "min": ("minuto", "minutos"),
    "s": ("segundo", "segundos"),
    "GB": ("gigabyte", "gigabytes"),
    "MB": ("megabyte", "megabytes"),
}

LEXICON = Lexicon(
    num2words="es",
    months=_MONTHS,
    month_names=month_names(_MONTHS, ("sept.", 9), ("set.", 9)),
    abbreviations={
        "Sr.": "señor",
        "Sra.": "señora",
        "Srta.": "señorita",
        "Sres.": "señores",
        "Dr.": "doctor",
        "Dra.": "doctora",
        "Ud.": "usted",
        "Uds.": "ustedes",
        "Prof.": "profesor",
        "D.": "don",
        "Dña.": "doña",
        "etc.": "etcétera",
        "p. ej.": "por ejemplo",
        "p.ej.": "por ejemplo",
        "núm.": "número",
        "n.º": "número",
        "pág.": "página",
        "aprox.": "aproximadamente",
        "Avda.": "avenida",
        "Av.": "avenida",
        "c/": "calle",
        "EE. UU.": "Estados Unidos",
        "EE.UU.": "Estados Unidos",
        "S.A.": "sociedad anónima",
    },
    titles=frozenset(
        {"Sr.", "Sra.", "Srta.", "Sres.", "Dr.", "Dra.", "Prof.", "D.", "Dña.", "Avda.", "Av."}
        | {"núm.", "n.º", "pág.", "p. ej.", "p.ej.", "aprox."}
    ),
    currencies={"JPY": ("yen", "yenes"), "CNY": ("yuan", "yuanes")},
    units=_UNITS,
    words={
        "percent": "por ciento",
        "point": "coma",
        "dot": "punto",
        "slash": "barra",
        "at": "arroba",
        "dash": "guion",
        "to": "a",
        "colon": "dos puntos",
        "underscore": "guion bajo",
        "plus": "más",
    },
    time=_time,
    date=_date,
    ordinal_suffixes={".º": "m", ".ª": "f", "º": "m", "ª": "f"},
)
