"""English reading rules (en-US and en-GB)."""

from __future__ import annotations

from dataclasses import replace

from soundstage.engines.tts.frontend.languages.lexicon import Lexicon, month_names
from soundstage.engines.tts.frontend.normalize_numbers import cardinal, ordinal, year

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def _time(hour: int, minute: int, twelve_hour: bool) -> str:
    """3:30 pm -> "three thirty P M"; 15:05 -> "fifteen oh five"; 3:00 pm -> "three P M".
    Capitals: every English engine reads them as letter names ("a m" came out as "yam")."""
    if twelve_hour:
        suffix = "A M" if hour < 12 else "P M"
        shown = hour % 12 or 12
    else:
        suffix = ""
        shown = hour
    if minute == 0:
        words = f"{cardinal(shown, 'en')} {suffix or 'hundred'}"
        if not twelve_hour and hour == 0:
            words = "midnight"
    elif minute < 10:
        words = f"{cardinal(shown, 'en')} oh {cardinal(minute, 'en')} {suffix}"
    else:
        words = f"{cardinal(shown, 'en')} {cardinal(minute, 'en')} {suffix}"
    return words.strip()


def _date_us(year_: int | None, month: int, day: int) -> str:
    words = f"{_MONTHS[month - 1]} {ordinal(day, 'en')}"
    return words if year_ is None else f"{words}, {year(year_, 'en')}"


def _date_gb(year_: int | None, month: int, day: int) -> str:
    words = f"the {ordinal(day, 'en')} of {_MONTHS[month - 1]}"
    return words if year_ is None else f"{words}, {year(year_, 'en')}"


US = Lexicon(
    num2words="en",
    decimal_comma=False,
    date_order="MDY",
    months=_MONTHS,
    month_names=month_names(_MONTHS, ("sept", 9), ("sept.", 9)),
    abbreviations={
        "Dr.": "Doctor",
        "Mr.": "Mister",
        "Mrs.": "Missus",
        "Ms.": "Miz",
        # Undotted as in British usage, also met in American text; never another word.
        "Mr": "Mister",
        "Mrs": "Missus",
        "Ms": "Miz",
        "Prof.": "Professor",
        "Sr.": "Senior",
        "Jr.": "Junior",
        "St.": "Saint",
        "Mt.": "Mount",
        "Ave.": "Avenue",
        "Rd.": "Road",
        "Blvd.": "Boulevard",
        "Co.": "Company",
        "Corp.": "Corporation",
        "Inc.": "Incorporated",
        "Ltd.": "Limited",
        "Dept.": "Department",
        "Gov.": "Governor",
        "Gen.": "General",
        "Capt.": "Captain",
        "Lt.": "Lieutenant",
        "Sgt.": "Sergeant",
        "No.": "number",
        "no.": "number",
        "vs.": "versus",
        "etc.": "et cetera",
        "e.g.": "for example",
        "i.e.": "that is",
        "approx.": "approximately",
        "min.": "minutes",
        "max.": "maximum",
        "Fig.": "figure",
        "fig.": "figure",
        "vol.": "volume",
        "Vol.": "volume",
        "p.": "page",
        "pp.": "pages",
        "Mon.": "Monday",
        "Tue.": "Tuesday",
        "Wed.": "Wednesday",
        "Thu.": "Thursday",
        "Fri.": "Friday",
        "Sat.": "Saturday",
        "Sun.": "Sunday",
    },
    titles=frozenset(
        {"Dr.", "Mr.", "Mrs.", "Ms.", "Prof.", "St.", "Mt.", "Gov.", "Gen.", "Capt.", "Lt.", "Sgt."}
        | {"Mr", "Mrs", "Ms"}
        | {"No.", "no.", "vs.", "Fig.", "fig.", "vol.", "Vol.", "p.", "pp.", "e.g.", "i.e."}
    ),
    currencies={"JPY": ("yen", "yen"), "CNY": ("yuan", "yuan"), "INR": ("rupee", "rupees")},
    units={
        "km/h": ("kilometer per hour", "kilometers per hour"),
        "km": ("kilometer", "kilometers"),
        "kg": ("kilogram", "kilograms"),
        "mg": ("milligram", "milligrams"),
        "g": ("gram", "grams"),
        "m": ("meter", "meters"),
        "cm": ("centimeter", "centimeters"),
        "mm": ("millimeter", "millimeters"),
        "l": ("liter", "liters"),
        "L": ("liter", "liters"),
        "ml": ("milliliter", "milliliters"),
        "mph": ("mile per hour", "miles per hour"),
        "mi": ("mile", "miles"),
        "ft": ("foot", "feet"),
        "lb": ("pound", "pounds"),
        "lbs": ("pound", "pounds"),
        "oz": ("ounce", "ounces"),
        "°C": ("degree Celsius", "degrees Celsius"),
        "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
        "°": ("degree", "degrees"),
        "kB": ("kilobyte", "kilobytes"),
        "MB": ("megabyte", "megabytes"),
        "GB": ("gigabyte", "gigabytes"),
        "TB": ("terabyte", "terabytes"),
        "Hz": ("hertz", "hertz"),
        "kHz": ("kilohertz", "kilohertz"),
        "kW": ("kilowatt", "kilowatts"),
        "W": ("watt", "watts"),
        "h": ("hour", "hours"),
        "s": ("second", "seconds"),
        "ms": ("millisecond", "milliseconds"),
    },
    words={
        "percent": "percent",
        "point": "point",
        "dot": "dot",
        "slash": "slash",
        "at": "at",
        "dash": "dash",
        "to": "to",
        "colon": "colon",
        "underscore": "underscore",
        "plus": "plus",
    },
    time=_time,
    date=_date_us,
    date_day_first=_date_gb,
    ordinal_suffixes={"st": "", "nd": "", "rd": "", "th": ""},
    decades=True,
)

GB = replace(
    US,
    date_order="DMY",
    date=_date_gb,
    # "Dr" undotted is Doctor in British usage only (American "Elm Dr" is a drive).
    abbreviations={**US.abbreviations, "Dr": "Doctor"},
    titles=US.titles | {"Dr"},
    units={
        **US.units,
        "km/h": ("kilometre per hour", "kilometres per hour"),
        "km": ("kilometre", "kilometres"),
        "m": ("metre", "metres"),
        "cm": ("centimetre", "centimetres"),
        "mm": ("millimetre", "millimetres"),
        "l": ("litre", "litres"),
        "L": ("litre", "litres"),
        "ml": ("millilitre", "millilitres"),
    },
)
