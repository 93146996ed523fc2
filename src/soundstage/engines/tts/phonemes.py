"""Phoneme notations: IPA checked, X-SAMPA to IPA, and IPA to what each engine takes (Piper's
phoneme ids, espeak-ng's ASCII mnemonics, the CMU phones of Festival and flite, the Italian
phones of Festival's Italian voices).

IPA is the one notation the service speaks (SSML `<phoneme alphabet="ipa">`, dictionaries'
phoneme rules); X-SAMPA is turned into IPA first. The conversions are tables of the phonemes
the catalog's languages use, not of all of IPA: a symbol an engine has no counterpart for
becomes its nearest sound, or is left out (stated at each table).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final, TypeVar

# An IPA pronunciation is of a word or a few: longer input is not a pronunciation.
MAX_PHONEME_CHARACTERS: Final = 200

_CONSONANTS: Final = (
    "pbtdʈɖcɟkgɡqɢʔʡmɱnɳɲŋɴʙrʀⱱɾɽɸβfvθðszʃʒʂʐçʝxɣχʁħʕhɦɬɮʋɹɻjɰlɭʎʟɫwʍɥʜʢɕʑɺɧʘǀǃǂǁɓɗʄɠʛʦʣʧʤʨʥ"
)
_VOWELS: Final = "iyɨʉɯuɪʏʊeøɘɵɤoəɛœɜɞʌɔæɐaɶɑɒɚɝᵻᵿ"
# Symbols that stand on their own: stress, length, breaks, tone letters.
_SUPRASEGMENTALS: Final = "ˈˌːˑ.‿|‖˥˦˧˨˩ꜜꜛ↗↘"
# Symbols that modify the segment before them (letters and combining marks).
_MODIFIERS: Final = "ʰʷʲˠˤⁿˡ˞ʼ"
_COMBINING: Final = (
    "\u0325\u030a\u032c\u0339\u031c\u031f\u0320\u0308\u033d\u0329\u030d\u032f\u0324\u0330"
    "\u033c\u0334\u031d\u031e\u0318\u0319\u032a\u033a\u033b\u0303\u031a\u0306\u0301\u0300"
    "\u0304\u0302\u030c\u030b\u030f\u0327\u0328\u0361\u035c"
)
_TIE: Final = "\u0361\u035c"
_STRESS: Final = "ˈˌ"
_SEGMENTS: Final = frozenset(_CONSONANTS + _VOWELS)
_ATTACHED: Final = frozenset(_MODIFIERS + _COMBINING)
_STANDALONE: Final = frozenset(_SUPRASEGMENTALS + " ")


def check_ipa(ipa: str) -> None:
    """Raise ValueError naming the first position (0-based, in characters) that is not IPA:
    an unknown symbol, or a mark or diacritic with no sound before it. Empty, blank and
    overlong (MAX_PHONEME_CHARACTERS) input is refused too. The input is taken in NFD, the
    form in which a diacritic is its own character; positions count in that form."""
    text = unicodedata.normalize("NFD", ipa)
    if not text.strip():
        raise ValueError("The IPA pronunciation is empty.")
    if len(text) > MAX_PHONEME_CHARACTERS:
        raise ValueError(
            f"The IPA pronunciation has {len(text)} characters, more than {MAX_PHONEME_CHARACTERS}."
        )
    after_segment = False
    for position, symbol in enumerate(text):
        if symbol in _SEGMENTS:
            after_segment = True
        elif symbol in _ATTACHED:
            if not after_segment:
                raise ValueError(
                    f"The IPA mark {symbol!r} at position {position} follows no sound."
                )
        elif symbol in _STANDALONE:
            after_segment = symbol in "ː‿"  # a long sound may still carry a diacritic
        else:
            raise ValueError(f"Unknown IPA symbol {symbol!r} at position {position}.")
    if not any(symbol in _SEGMENTS for symbol in text):
        raise ValueError("The IPA pronunciation has no sound in it, only marks.")


_Value = TypeVar("_Value")


def _nfd_keys(table: dict[str, _Value]) -> dict[str, _Value]:
    """A table keyed by IPA in NFD (ç is c + cedilla there), as the converters read IPA."""
    return {unicodedata.normalize("NFD", key): value for key, value in table.items()}


# --- X-SAMPA ---------------------------------------------------------------------------------

# X-SAMPA (Wells 1995) to IPA; matched longest first. Diacritics `_x` follow their sound.
_XSAMPA: Final[dict[str, str]] = {
    # Consonants and vowels that are plain letters in both.
    **{letter: letter for letter in "abcdefhijklmnopqrstuvwxyz"},
    "g": "ɡ",
    "A": "ɑ",
    "B": "β",
    "C": "ç",
    "D": "ð",
    "E": "ɛ",
    "F": "ɱ",
    "G": "ɣ",
    "H": "ɥ",
    "I": "ɪ",
    "I\\": "ᵻ",
    "J": "ɲ",
    "J\\": "ɟ",
    "K": "ɬ",
    "K\\": "ɮ",
    "L": "ʎ",
    "L\\": "ʟ",
    "M": "ɯ",
    "M\\": "ɰ",
    "N": "ŋ",
    "N\\": "ɴ",
    "O": "ɔ",
    "O\\": "ʘ",
    "P": "ʋ",
    "Q": "ɒ",
    "R": "ʁ",
    "R\\": "ʀ",
    "S": "ʃ",
    "T": "θ",
    "U": "ʊ",
    "U\\": "ᵿ",
    "V": "ʌ",
    "W": "ʍ",
    "X": "χ",
    "X\\": "ħ",
    "Y": "ʏ",
    "Z": "ʒ",
    "b_<": "ɓ",
    "d`": "ɖ",
    "d_<": "ɗ",
    "g_<": "ɠ",
    "G\\": "ɢ",
    "G\\_<": "ʛ",
    "h\\": "ɦ",
    "j\\": "ʝ",
    "l`": "ɭ",
    "l\\": "ɺ",
    "n`": "ɳ",
    "p\\": "ɸ",
    "r`": "ɽ",
    "r\\": "ɹ",
    "r\\`": "ɻ",
    "s`": "ʂ",
    "s\\": "ɕ",
    "t`": "ʈ",
    "v\\": "ʋ",
    "x\\": "ɧ",
    "z`": "ʐ",
    "z\\": "ʑ",
    "B\\": "ʙ",
    "H\\": "ʜ",
    "?": "ʔ",
    "?\\": "ʕ",
    "<\\": "ʢ",
    ">\\": "ʡ",
    "4": "ɾ",
    "5": "ɫ",
    "1": "ɨ",
    "2": "ø",
    "3": "ɜ",
    "3\\": "ɞ",
    "6": "ɐ",
    "7": "ɤ",
    "8": "ɵ",
    "9": "œ",
    "&": "ɶ",
    "{": "æ",
    "}": "ʉ",
    "@": "ə",
    "@`": "ɚ",
    "@\\": "ɘ",
    "3`": "ɝ",
    "|\\": "ǀ",
    "|\\|\\": "ǁ",
    "!\\": "ǃ",
    "=\\": "ǂ",
    "tS": "tʃ",
    "dZ": "dʒ",
    "ts\\": "tɕ",
    "dz\\": "dʑ",
    # Suprasegmentals.
    '"': "ˈ",
    "%": "ˌ",
    ":": "ː",
    ":\\": "ˑ",
    ".": ".",
    "-": "",
    " ": " ",
    "|": "|",
    "||": "‖",
    "_": "\u0361",
    # Modifier letters and diacritics.
    "_h": "ʰ",
    "_w": "ʷ",
    "'": "ʲ",
    "_j": "ʲ",
    "_G": "ˠ",
    "_?\\": "ˤ",
    "_e": "\u0334",
    "`": "˞",
    "_0": "\u0325",
    "_v": "\u032c",
    "_O": "\u0339",
    "_c": "\u031c",
    "_+": "\u031f",
    "_-": "\u0320",
    '_"': "\u0308",
    "_x": "\u033d",
    "=": "\u0329",
    "_=": "\u0329",
    "_^": "\u032f",
    "_t": "\u0324",
    "_k": "\u0330",
    "_N": "\u033c",
    "_r": "\u031d",
    "_o": "\u031e",
    "_A": "\u0318",
    "_q": "\u0319",
    "_d": "\u032a",
    "_a": "\u033a",
    "_m": "\u033b",
    "~": "\u0303",
    "_~": "\u0303",
    "_}": "\u031a",
    "_n": "ⁿ",
    "_l": "ˡ",
    "_>": "ʼ",
    "_X": "\u0306",
    # Tones.
    "_T": "˥",
    "_H": "˦",
    "_M": "˧",
    "_L": "˨",
    "_B": "˩",
}
_XSAMPA_LONGEST: Final = max(len(key) for key in _XSAMPA)


def xsampa_to_ipa(xsampa: str) -> str:
    """X-SAMPA to IPA (longest symbol first). Raises ValueError naming the 0-based position
    of the first symbol that is not X-SAMPA, or when the result is not valid IPA (check_ipa;
    its positions are then in the IPA)."""
    out: list[str] = []
    position = 0
    while position < len(xsampa):
        for size in range(min(_XSAMPA_LONGEST, len(xsampa) - position), 0, -1):
            ipa = _XSAMPA.get(xsampa[position : position + size])
            if ipa is not None:
                out.append(ipa)
                position += size
                break
        else:
            raise ValueError(f"Unknown X-SAMPA symbol {xsampa[position]!r} at position {position}.")
    result = "".join(out)
    check_ipa(result)
    return unicodedata.normalize("NFC", result)


# --- Piper -----------------------------------------------------------------------------------

# IPA a Piper voice's phoneme_id_map may lack, and what to say instead (tried in order; a
# symbol with none present is left out). Piper's maps hold espeak-ng's IPA, one code point
# per symbol (diacritics apart, NFD).
_PIPER_NEAREST: Final[dict[str, tuple[str, ...]]] = {
    "g": ("ɡ",),
    "ɡ": ("g",),
    "ʧ": ("tʃ",),
    "ʤ": ("dʒ",),
    "ʦ": ("ts",),
    "ʣ": ("dz",),
    "ʨ": ("tɕ",),
    "ʥ": ("dʑ",),
    "ɝ": ("ɜ˞", "ɚ", "ɜ"),
    "ɚ": ("ə˞", "ə"),
    "ε": ("ɛ",),
    "ᵿ": ("ʊ",),
    "ᵻ": ("ɪ",),
    "ɫ": ("l",),
    "ʀ": ("ʁ", "r"),
    "ʁ": ("ʀ", "r"),
    "ɹ": ("r",),
    "r": ("ɹ",),
    "ɾ": ("r", "ɹ"),
    "ɐ": ("ə", "a"),
    "ʍ": ("w",),
    "‿": (" ",),
    "|": (" ",),
    "‖": (" ",),
    ".": (),
}


def ipa_to_piper(ipa: str, id_map: Mapping[str, Sequence[int]]) -> list[str]:
    """IPA as a Piper voice's phoneme symbols (NFD code points, as Piper's own phonemizer
    gives them): each code point in the voice's map is kept, one that is not becomes its
    nearest present sound (_PIPER_NEAREST), else is left out. Tie bars are left out (Piper
    writes affricates as two symbols). Stress marks move to just before their syllable's
    vowel, where espeak (and so every Piper voice's training data) puts them: "ˈsaʊnd
    ˌtʃɛk" is said as "sˈaʊnd tʃˌɛk"."""
    symbols: list[str] = []
    # A stress mark not yet placed, and where it was written.
    stress: tuple[str, int] | None = None
    for symbol in unicodedata.normalize("NFD", ipa) + " ":
        if symbol in _TIE:
            continue
        if symbol in _STRESS:
            stress = (symbol, len(symbols)) if symbol in id_map else None
            continue
        if stress is not None and symbol in _VOWELS:
            symbols.append(stress[0])
            stress = None
        elif stress is not None and symbol == " ":
            symbols.insert(stress[1], stress[0])  # a word with no vowel: where it was written
            stress = None
        if symbol in id_map:
            symbols.append(symbol)
            continue
        for nearest in _PIPER_NEAREST.get(symbol, ()):
            if all(part in id_map for part in nearest):
                symbols.extend(nearest)
                break
    return symbols[:-1] if symbols[-1:] == [" "] else symbols


# --- espeak-ng -------------------------------------------------------------------------------

# IPA sounds to espeak-ng's phoneme mnemonics (docs/phonemes.md of espeak-ng, Kirshenbaum-like
# ASCII), the same for every language; matched longest first. espeak reads `[[...]]` with the
# voice's own phoneme table, so a sound its language lacks is spoken as that table's nearest.
_ESPEAK: Final[dict[str, str]] = {
    # Vowels.
    "i": "i",
    "y": "y",
    "ɨ": 'i"',
    "ʉ": 'u"',
    "ɯ": "u-",
    "u": "u",
    "ɪ": "I",
    "ʏ": "I.",
    "ʊ": "U",
    "e": "e",
    "ø": "Y",
    "ɘ": "@",
    "ɵ": "8",
    "ɤ": "o-",
    "o": "o",
    "ə": "@",
    "ɛ": "E",
    "ε": "E",
    "œ": "W",
    "ɜ": "3",
    "ɞ": "3",
    "ʌ": "V",
    "ɔ": "O",
    "æ": "&",
    "ɐ": "a#",
    "a": "a",
    "ɶ": "&",
    "ɑ": "A",
    "ɒ": "0",
    "ɚ": "3",
    "ɝ": "3:",
    "ᵻ": "I#",
    "ᵿ": "U",
    # Diphthongs as espeak names them in English, Dutch and German.
    "aɪ": "aI",
    "aʊ": "aU",
    "ɔɪ": "OI",
    "ɔø": "OY",
    "eɪ": "eI",
    "oʊ": "oU",
    "əʊ": "oU",
    "ɪə": "i@",
    "eə": "e@",
    "ʊə": "U@",
    "ɑː": "A:",
    "ɜː": "3:",
    # Consonants.
    "p": "p",
    "b": "b",
    "t": "t",
    "d": "d",
    "ʈ": "t.",
    "ɖ": "d.",
    "c": "c",
    "ɟ": "J",
    "k": "k",
    "g": "g",
    "ɡ": "g",
    "q": "q",
    "ɢ": "G",
    "ʔ": "?",
    "m": "m",
    "ɱ": "M",
    "n": "n",
    "ɳ": "n.",
    "ɲ": "n^",
    "ŋ": "N",
    "ɴ": 'n"',
    "r": "R",
    "ʀ": 'r"',
    "ɾ": "*",
    "ɽ": "*.",
    "ɸ": "F",
    "β": "B",
    "f": "f",
    "v": "v",
    "θ": "T",
    "ð": "D",
    "s": "s",
    "z": "z",
    "ʃ": "S",
    "ʒ": "Z",
    "ʂ": "s.",
    "ʐ": "z.",
    "ç": "C",
    "ʝ": "j",
    "x": "x",
    "ɣ": "Q",
    "χ": "X",
    "ʁ": "R",
    "ħ": "H",
    "ʕ": "H",
    "h": "h",
    "ɦ": "h",
    "ɬ": "l#",
    "ʋ": "v#",
    "ɹ": "r",
    "ɻ": "r.",
    "j": "j",
    "ɰ": "Q",
    "l": "l",
    "ɭ": "l.",
    "ʎ": "l^",
    "ɫ": "L",
    "w": "w",
    "ʍ": "w",
    "ɥ": "j<rnd>",
    "ɕ": "S;",
    "ʑ": "Z;",
    "tʃ": "tS",
    "dʒ": "dZ",
    "ʧ": "tS",
    "ʤ": "dZ",
    "ts": "ts",
    "dz": "dz",
    "ʦ": "ts",
    "ʣ": "dz",
    "tɕ": "tS;",
    "dʑ": "dZ;",
    "ʨ": "tS;",
    "ʥ": "dZ;",
    # Stress, length, modifiers and diacritics.
    "ˈ": "'",
    "ˌ": ",",
    "ː": ":",
    "ʰ": "h",
    "ʲ": ";",
    "\u0303": "~",
    "\u0329": "-",
    "\u032a": "[",
    " ": " ",
    # espeak's own IPA writes its syllabic or optional marks as "-" (French "sə-").
    "-": "-",
    # Tone letters as espeak's tone digits (Mandarin, Vietnamese voices).
    "˥": "5",
    "˦": "4",
    "˧": "3",
    "˨": "2",
    "˩": "1",
}
# Where one language's table names a sound otherwise (measured by the round trip of espeak's
# own IPA, tests/engines/tts/test_phonemes.py): language subtag -> IPA -> mnemonic.
_ESPEAK_BY_LANGUAGE: Final[dict[str, dict[str, str]]] = {
    "de": {"ɾ": "r"},
    "fr": {"ʁ": "r"},
    "pl": {"ɨ": "y"},
    "cs": {"r̝̊": "R^", "r̝": "R^"},
    "hu": {"r": "R2"},
    "hi": {"ʰ": "#"},
    "ar": {"ʕ": "A"},
    "ro": {"ʲʲ": ";I^"},
    "da": {"ɐ̯": "r", "ɒ": "O", "ʋ": "v", "ð": "D"},
    "ko": {"ɐ": "a", "ʌ": "@"},
    "vi": {"ɗ": "d_"},
}


def ipa_to_espeak(ipa: str, language: str) -> str:
    """IPA as espeak-ng mnemonics for the voice of `language` (BCP-47 or espeak voice name),
    ready to put between `[[` and `]]`. A sound with no mnemonic is left out. Tone digits
    (espeak's own, e.g. Mandarin 55) pass through."""
    overrides = _ESPEAK_BY_LANGUAGE.get(language.split("-")[0].split("+")[0].lower(), {})
    table = _nfd_keys({**_ESPEAK, **overrides})
    longest = max(len(key) for key in table)
    text = "".join(s for s in unicodedata.normalize("NFD", ipa) if s not in _TIE)
    out: list[str] = []
    position = 0
    while position < len(text):
        for size in range(min(longest, len(text) - position), 0, -1):
            mnemonic = table.get(text[position : position + size])
            if mnemonic is not None:
                out.append(mnemonic)
                position += size
                break
        else:
            # Tone digits are espeak's own; anything else without a mnemonic is left out.
            if text[position].isdigit():
                out.append(text[position])
            position += 1
    return "".join(out)


# --- CMU phones (Festival's radio phone set, flite's cmulex) ---------------------------------

# IPA to the CMU phones of American English, longest first. Non-rhotic vowels + r are
# spoken the American way ("ɪə" -> ih r); sounds English lacks go to the nearest English
# one; ʔ and marks without a phone are left out.
_CMU: Final[dict[str, tuple[str, ...]]] = {
    "i": ("iy",),
    "iː": ("iy",),
    "ɪ": ("ih",),
    "ᵻ": ("ih",),
    "ɨ": ("ih",),
    "y": ("uw",),
    "ʏ": ("uh",),
    "e": ("ey",),
    "eɪ": ("ey",),
    "eː": ("ey",),
    "ɛ": ("eh",),
    "ε": ("eh",),
    "ɛː": ("eh",),
    "æ": ("ae",),
    "a": ("aa",),
    "aː": ("aa",),
    "ɑ": ("aa",),
    "ɑː": ("aa",),
    "ɒ": ("aa",),
    "ɔ": ("ao",),
    "ɔː": ("ao",),
    "o": ("ow",),
    "oː": ("ow",),
    "oʊ": ("ow",),
    "əʊ": ("ow",),
    "ʊ": ("uh",),
    "u": ("uw",),
    "uː": ("uw",),
    "ʉ": ("uw",),
    "ʉː": ("uw",),
    "ʌ": ("ah",),
    "ɐ": ("ah",),
    "ə": ("ax",),
    "ɘ": ("ax",),
    "ɚ": ("er",),
    "ɝ": ("er",),
    "ɜ": ("er",),
    "ɜː": ("er",),
    "ø": ("er",),
    "œ": ("er",),
    "aɪ": ("ay",),
    "ɑɪ": ("ay",),
    "aʊ": ("aw",),
    "ɔɪ": ("oy",),
    "ɪə": ("ih", "r"),
    "ɪɹ": ("ih", "r"),
    "eə": ("eh", "r"),
    "ɛə": ("eh", "r"),
    "ʊə": ("uh", "r"),
    "p": ("p",),
    "b": ("b",),
    "t": ("t",),
    "d": ("d",),
    "k": ("k",),
    "g": ("g",),
    "ɡ": ("g",),
    "f": ("f",),
    "v": ("v",),
    "θ": ("th",),
    "ð": ("dh",),
    "s": ("s",),
    "z": ("z",),
    "ʃ": ("sh",),
    "ʒ": ("zh",),
    "h": ("hh",),
    "ɦ": ("hh",),
    "x": ("hh",),
    "χ": ("hh",),
    "ç": ("hh",),
    "m": ("m",),
    "n": ("n",),
    "ŋ": ("ng",),
    "ɲ": ("n", "y"),
    "l": ("l",),
    "ɫ": ("l",),
    "ʎ": ("l", "y"),
    "r": ("r",),
    "ɹ": ("r",),
    "ɾ": ("d",),
    "ʁ": ("r",),
    "ʀ": ("r",),
    "ɻ": ("r",),
    "j": ("y",),
    "w": ("w",),
    "ʍ": ("w",),
    "ʋ": ("v",),
    "β": ("v",),
    "tʃ": ("ch",),
    "ʧ": ("ch",),
    "dʒ": ("jh",),
    "ʤ": ("jh",),
    "ts": ("t", "s"),
    "dz": ("d", "z"),
    "ʦ": ("t", "s"),
    "ʣ": ("d", "z"),
}
CMU_VOWELS: Final = frozenset(
    ["iy", "ih", "ey", "eh", "ae", "aa", "ao", "ow", "uh", "uw", "ah", "ax", "er", "ay", "aw", "oy"]
)
_CMU_NFD: Final = _nfd_keys(_CMU)
_CMU_LONGEST: Final = max(len(key) for key in _CMU_NFD)


@dataclass(frozen=True)
class Syllable:
    """A syllable in CMU phones with its stress: 1 primary, 2 secondary, 0 none."""

    phones: tuple[str, ...]
    stress: int


def ipa_to_cmu(ipa: str) -> list[Syllable]:
    """IPA as syllables of CMU phones (for Festival's lex.add.entry and flite's lexicon
    addenda). Each vowel is a syllable's nucleus; between two vowels a lone consonant starts
    the next syllable, and of several the first closes the syllable before. A stress mark
    stresses the next vowel. Raises ValueError when no vowel is left (nothing to say)."""
    phones = _phones(ipa, _CMU_NFD, _CMU_LONGEST, CMU_VOWELS, geminate=False)
    if not any(stress is not None for _, stress in phones):
        raise ValueError("The pronunciation has no vowel English voices can say.")
    return _syllabify(phones)


def _phones(
    ipa: str,
    table: Mapping[str, tuple[str, ...]],
    longest: int,
    vowels: frozenset[str],
    *,
    geminate: bool,
) -> list[tuple[str, int | None]]:
    """IPA as (phone, stress of a vowel or None for a consonant), matched longest first. A
    stress mark stresses the next vowel; with `geminate`, a length mark after a consonant
    doubles it. Symbols the table lacks (other length marks, diacritics, ʔ...) are left out."""
    text = unicodedata.normalize("NFD", ipa)
    text = "".join(symbol for symbol in text if symbol not in _TIE)
    phones: list[tuple[str, int | None]] = []
    pending_stress = 0
    position = 0
    while position < len(text):
        symbol = text[position]
        if symbol in _STRESS:
            pending_stress, position = (1 if symbol == "ˈ" else 2), position + 1
            continue
        if symbol == "ː" and geminate and phones and phones[-1][1] is None:
            phones.append(phones[-1])
            position += 1
            continue
        for size in range(min(longest, len(text) - position), 0, -1):
            mapped = table.get(text[position : position + size])
            if mapped is not None:
                for phone in mapped:
                    if phone in vowels:
                        phones.append((phone, pending_stress))
                        pending_stress = 0
                    else:
                        phones.append((phone, None))
                position += size
                break
        else:
            position += 1
    return phones


def _syllabify(phones: list[tuple[str, int | None]]) -> list[Syllable]:
    nuclei = [index for index, (_, stress) in enumerate(phones) if stress is not None]
    starts = [0]
    for before, after in pairwise(nuclei):
        consonants = after - before - 1
        starts.append(after - 1 if consonants >= 1 else after)
        if consonants >= 2:
            starts[-1] = before + 2
    syllables: list[Syllable] = []
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(phones)
        stress = phones[nuclei[number]][1] or 0
        syllables.append(Syllable(tuple(phone for phone, _ in phones[start:end]), stress))
    return syllables


# --- Italian phones (Festival's Italian voices, festlex-ifd) ----------------------------------

# IPA to the phones of Festival's Italian phone set (italian_phoneset.scm): SAMPA-like, a
# stressed vowel written with "1" (a1). Sounds Italian lacks become the nearest Italian one;
# English diphthongs are two vowels (the voices have no diphone from a glide to a consonant);
# h, ʔ and marks without a phone are left out.
_ITALIAN: Final[dict[str, tuple[str, ...]]] = {
    "i": ("i",),
    "ɪ": ("i",),
    "ɨ": ("i",),
    "ᵻ": ("i",),
    "y": ("i",),
    "ʏ": ("u",),
    "e": ("e",),
    "ø": ("e",),
    "ə": ("e",),
    "ɘ": ("e",),
    "ɛ": ("E",),
    "ε": ("E",),
    "œ": ("E",),
    "æ": ("E",),
    "ɜ": ("E",),
    "a": ("a",),
    "ɐ": ("a",),
    "ʌ": ("a",),
    "ɑ": ("a",),
    "o": ("o",),
    "ɔ": ("O",),
    "ɒ": ("O",),
    "u": ("u",),
    "ʊ": ("u",),
    "ʉ": ("u",),
    "ɚ": ("e", "r"),
    "ɝ": ("e", "r"),
    "aɪ": ("a", "i"),
    "aʊ": ("a", "u"),
    "eɪ": ("e", "i"),
    "oʊ": ("o", "u"),
    "əʊ": ("o", "u"),
    "ɔɪ": ("O", "i"),
    "p": ("p",),
    "b": ("b",),
    "t": ("t",),
    "d": ("d",),
    "k": ("k",),
    "g": ("g",),
    "ɡ": ("g",),
    "x": ("k",),
    "χ": ("k",),
    "f": ("f",),
    "v": ("v",),
    "ʋ": ("v",),
    "β": ("v",),
    "θ": ("t",),
    "ð": ("d",),
    "s": ("s",),
    "z": ("z",),
    "ʃ": ("S",),
    "ç": ("S",),
    "ʒ": ("Z",),
    "m": ("m",),
    "n": ("n",),
    "ɲ": ("J",),
    "ŋ": ("ng",),
    "ɱ": ("nf",),
    "l": ("l",),
    "ɫ": ("l",),
    "ʎ": ("L",),
    "r": ("r",),
    "ɾ": ("r",),
    "ɹ": ("r",),
    "ʁ": ("r",),
    "ʀ": ("r",),
    "ɻ": ("r",),
    "j": ("j",),
    "w": ("w",),
    "ʍ": ("w",),
    "ts": ("ts",),
    "dz": ("dz",),
    "ʦ": ("ts",),
    "ʣ": ("dz",),
    "tʃ": ("tS",),
    "ʧ": ("tS",),
    "dʒ": ("dZ",),
    "ʤ": ("dZ",),
}
ITALIAN_VOWELS: Final = frozenset(["i", "e", "E", "a", "o", "O", "u"])
_ITALIAN_NFD: Final = _nfd_keys(_ITALIAN)
_ITALIAN_LONGEST: Final = max(len(key) for key in _ITALIAN_NFD)


def ipa_to_italian(ipa: str) -> list[Syllable]:
    """IPA as syllables of Festival's Italian phones, syllabified as ipa_to_cmu does; the
    vowel of a stressed syllable (primary or secondary) is written stressed ("a1") and the
    syllable's stress is 1, as in festlex-ifd's lexicon; a long consonant is doubled ("tː" ->
    t t, a geminate). Raises ValueError when no vowel is left."""
    phones = _phones(ipa, _ITALIAN_NFD, _ITALIAN_LONGEST, ITALIAN_VOWELS, geminate=True)
    if not any(stress is not None for _, stress in phones):
        raise ValueError("The pronunciation has no vowel Italian voices can say.")
    return [
        Syllable(
            tuple(
                f"{phone}1" if syllable.stress and phone in ITALIAN_VOWELS else phone
                for phone in syllable.phones
            ),
            1 if syllable.stress else 0,
        )
        for syllable in _syllabify(phones)
    ]


# --- X-SAMPA of a phone set (SVOX Pico) -------------------------------------------------------

# IPA segments to X-SAMPA: the inverse of _XSAMPA for one code point (g written as X-SAMPA g
# whichever g it is).
_TO_XSAMPA: Final[dict[str, str]] = {
    **{
        ipa: xsampa
        for xsampa, ipa in sorted(_XSAMPA.items(), key=lambda item: -len(item[0]))
        if len(ipa) == 1 and ipa in _SEGMENTS
    },
    "g": "g",
}
# What to say for an X-SAMPA phone a phone set lacks: each choice is a sequence of phones, tried
# in order; with none present the sound is left out. A nasal vowel missing is its vowel then n.
_NEAREST_XSAMPA: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    "i": (("I",), ("e",)),
    "I": (("i",), ("e",)),
    "e": (("E",), ("i",)),
    "E": (("e",),),
    "{": (("E",), ("e",), ("a",)),
    "a": (("A",), ("6",)),
    "A": (("a",),),
    "6": (("a",), ("@",)),
    "@": (("e",), ("E",), ("9",), ("a",)),
    "@`": (("@",), ("9",), ("e",)),
    "3": (("9",), ("@",), ("e",)),
    "3`": (("9",), ("@",), ("e",)),
    "V": (("a",), ("@",)),
    "Q": (("O",), ("o",)),
    "O": (("o",),),
    "o": (("O",),),
    "U": (("u",), ("o",)),
    "u": (("U",),),
    "y": (("i",), ("u",)),
    "Y": (("y",), ("i",), ("U",)),
    "2": (("e",), ("9",)),
    "9": (("2",), ("E",), ("e",)),
    "1": (("i",),),
    "}": (("u",), ("y",)),
    "M": (("u",),),
    "7": (("o",),),
    "8": (("@",), ("u",)),
    "A~": (("a", "n"),),
    "a~": (("A~",), ("a", "n")),
    "E~": (("e", "n"),),
    "e~": (("E~",), ("e", "n")),
    "O~": (("o", "n"),),
    "o~": (("O~",), ("o", "n")),
    "9~": (("E~",), ("9", "n"), ("e", "n")),
    "T": (("s",), ("f",), ("t",)),
    "D": (("d",), ("z",), ("v",)),
    "r": (("R",), ("4",)),
    "R": (("r",), ("4",), ("x",)),
    "R\\": (("R",), ("r",)),
    "4": (("r",), ("R",), ("d",)),
    "r\\": (("R",), ("r",), ("4",)),
    "h": (("x",),),
    "x": (("h",), ("k",)),
    "X": (("x",), ("R",), ("h",)),
    "C": (("S",), ("x",), ("h",), ("j",)),
    "S": (("s",),),
    "Z": (("S",), ("j",), ("z",)),
    "z": (("s",),),
    "v": (("B",), ("b",), ("f",)),
    "B": (("v",), ("b",)),
    "G": (("g",),),
    "P": (("v",), ("w",)),
    "w": (("u",),),
    "W": (("w",), ("u",)),
    "j": (("i",),),
    "H": (("j",), ("w",), ("y",)),
    "J": (("n", "j"), ("n",)),
    "L": (("l", "j"), ("l",)),
    "N": (("n",),),
    "5": (("l",),),
    "c": (("k",),),
    "J\\": (("g",),),
    "q": (("k",),),
    "K": (("l",), ("S",)),
}
# IPA marks a phone set's X-SAMPA keeps: stress (as "'" and "%": a double quote could not sit
# in an attribute), length and syllable breaks.
_XSAMPA_MARKS: Final = {"ˈ": "'", "ˌ": "%", "ː": ":", ".": "."}
_NASAL: Final = "\u0303"


def ipa_to_xsampa_phones(ipa: str, phones: frozenset[str]) -> list[str]:
    """IPA as X-SAMPA symbols of a phone set (SVOX Pico's languages), one symbol a phone or
    mark: a sound the set lacks becomes its nearest present sounds (_NEAREST_XSAMPA), else is
    left out; tie bars and other diacritics are left out (an affricate is its two phones), a
    nasal vowel is one phone ("A~"). Word breaks stay as " "."""
    out: list[str] = []
    text = unicodedata.normalize("NFD", ipa)
    for position, symbol in enumerate(text):
        if symbol in _XSAMPA_MARKS:
            out.append(_XSAMPA_MARKS[symbol])
        elif symbol == " ":
            if out and out[-1] != " ":
                out.append(" ")
        elif symbol in _TO_XSAMPA:
            phone = _TO_XSAMPA[symbol]
            if text[position + 1 : position + 2] == _NASAL:
                phone += "~"
            out.extend(_present(phone, phones))
    while out and out[-1] == " ":
        out.pop()
    return out


def _present(phone: str, phones: frozenset[str]) -> tuple[str, ...]:
    if phone in phones:
        return (phone,)
    for choice in _NEAREST_XSAMPA.get(phone, ()):
        if all(part in phones for part in choice):
            return choice
    return ()
