"""What normalization knows of each language: the words it reads symbols, units, months,
abbreviations, times and dates with, and its writing conventions (decimal comma, date order).

- en-US, en-GB, es-ES, fr-FR, de-DE, it-IT: numbers, ordinals and years (num2words), money,
  percentages, times, dates, units, abbreviations, phone numbers, URLs and e-mail addresses
  (own rules: the modules `en`, `es`, `fr`, `de`, `it`).
- pt-BR, nl-NL, pl-PL, ru-RU, ar, sv-SE, tr-TR, fi-FI, da-DK, hu-HU, ro-RO, uk-UA, ko-KR,
  id-ID, nb-NO, cs-CZ, vi-VN: numbers (num2words: cardinals, decimals, negative numbers;
  ordinals and years where it has them), money where num2words has the currency (else the
  amount read and the symbol left to the engine), percentages with "%" left to the engine,
  phone numbers digit by digit. No times, dates, units or abbreviations.
- cmn: numbers by an own reader (num2words has no Mandarin): 12345 -> 一万二千三百四十五.
- ja-JP: numbers, decimals, percentages, money, dates and times in kanji numerals (the
  module `ja`, its own expand: spans are the runs between white space).
- hi-IN, el-GR and any other language: numbers left as digits (the engine reads them in its
  language).

A language not listed falls back to the last row: text passes through unchanged except
whitespace tokenization and punctuation kept for prosody."""

from __future__ import annotations

from soundstage.engines.tts.frontend.languages import de, en, es, fr, it
from soundstage.engines.tts.frontend.languages.lexicon import Lexicon
from soundstage.engines.tts.frontend.normalize_numbers import CHINESE


def base_language(language: str) -> str:
    """'en-US' -> 'en', 'nb-NO' -> 'nb', 'cmn' -> 'cmn' (lower case)."""
    return language.replace("_", "-").split("-")[0].lower()


# num2words codes of the catalog's languages that it speaks.
_NUM2WORDS = {
    "pt": "pt_BR",
    "nl": "nl",
    "pl": "pl",
    "ru": "ru",
    "ar": "ar",
    "sv": "sv",
    "tr": "tr",
    "fi": "fi",
    "da": "da",
    "hu": "hu",
    "ro": "ro",
    "uk": "uk",
    "ko": "ko",
    "id": "id",
    "nb": "no",
    "no": "no",
    "cs": "cs",
    "vi": "vi",
    "lt": "lt",
    "lv": "lv",
    "sk": "sk",
    "sl": "sl",
    "he": "he",
    "fa": "fa",
    "ja": "ja",
    "th": "th",
    "ca": "ca",
}
# Languages that write 3.5 (the rest write 3,5).
_DECIMAL_POINT = {"en", "cmn", "zh", "ko", "ja", "th", "hi", "he", "ar"}


def lexicon_for(language: str) -> Lexicon:
    """The reading rules of a BCP-47 language tag (a fallback for languages without own rules)."""
    base = base_language(language)
    if base == "en":
        return en.GB if language.upper().endswith("-GB") else en.US
    own = {"es": es.LEXICON, "fr": fr.LEXICON, "de": de.LEXICON, "it": it.LEXICON}
    if base in own:
        return own[base]
    if base in {"cmn", "zh", "yue"}:
        return Lexicon(num2words=CHINESE, decimal_comma=False)
    return Lexicon(num2words=_NUM2WORDS.get(base, ""), decimal_comma=base not in _DECIMAL_POINT)
