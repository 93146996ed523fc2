"""Rules as stored and their checks: IPA phoneme strings, and X-SAMPA read into IPA.

A version's rules are kept in order, each `{string_to_replace, type, alias | phoneme,
case_sensitive}`; a phoneme is always kept in IPA (X-SAMPA, from JSON or a PLS file, is
converted when it comes in), so that what synthesis reads is one alphabet.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from soundstage.engines.tts.frontend.script import Rule

# Bounds of a version's rules (the README's "Pronunciation dictionaries" lists them).
MAX_RULES = 1_000
MAX_GRAPHEME_CHARS = 100
MAX_ALIAS_CHARS = 200
MAX_PHONEME_CHARS = 200  # in IPA
MAX_XSAMPA_CHARS = 400  # as sent (X-SAMPA spells many IPA characters with two or three)

RuleType = Literal["alias", "phoneme"]
Alphabet = Literal["ipa", "x-sampa"]


@dataclass(frozen=True)
class StoredRule:
    """One rule of a version, as its JSON column holds it."""

    string_to_replace: str
    type: RuleType
    alias: str | None = None
    phoneme: str | None = None  # IPA
    case_sensitive: bool = True

    def to_json(self) -> dict[str, Any]:
        value = {"alias": self.alias} if self.type == "alias" else {"phoneme": self.phoneme}
        return {
            "string_to_replace": self.string_to_replace,
            "type": self.type,
            **value,
            "case_sensitive": self.case_sensitive,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StoredRule:
        return cls(
            string_to_replace=data["string_to_replace"],
            type=data["type"],
            alias=data.get("alias"),
            phoneme=data.get("phoneme"),
            case_sensitive=data["case_sensitive"],
        )

    def to_rule(self) -> Rule:
        """What the text front end applies."""
        return Rule(
            grapheme=self.string_to_replace,
            alias=self.alias,
            phoneme=self.phoneme,
            case_sensitive=self.case_sensitive,
        )


def rules_of(stored: Iterable[dict[str, Any]]) -> list[StoredRule]:
    return [StoredRule.from_json(item) for item in stored]


def merged(current: Sequence[StoredRule], new: Sequence[StoredRule]) -> list[StoredRule]:
    """`current` with each of `new` replacing the rule of the same `string_to_replace` where
    there is one (in its place), else appended, in order."""
    result = list(current)
    where = {rule.string_to_replace: i for i, rule in enumerate(result)}
    for rule in new:
        if rule.string_to_replace in where:
            result[where[rule.string_to_replace]] = rule
        else:
            where[rule.string_to_replace] = len(result)
            result.append(rule)
    return result


# --- IPA -------------------------------------------------------------------------------------

# Characters of IPA outside the blocks below (which are IPA's own: IPA Extensions, Spacing
# Modifier Letters with the stress, length and tone marks, combining diacritics (tie bars
# included), Phonetic Extensions): letters borrowed from Latin-1, Latin Extended and Greek,
# the clicks, the ꜛ ꜜ ↗ ↘ intonation marks, the linking ‿ and the group boundaries | ‖, the
# syllable break `.` and spaces between words.
_IPA_EXTRA = frozenset("æçðøħŋœβθχǀǁǂǃⁿ‿⁀‖|ꜛꜜ↗↘. ")
_IPA_BLOCKS = (
    (0x0250, 0x02FF),  # IPA Extensions, Spacing Modifier Letters (ˈ ˌ ː ˑ ʰ ʲ ˞ ˥…)
    (0x0300, 0x036F),  # Combining Diacritical Marks (tie bars ͡ ͜ too)
    (0x1D00, 0x1DFF),  # Phonetic Extensions (ᵻ ᵿ), their supplement and combining supplement
)
# What a phoneme string must contain besides marks: at least one segment.
_NOT_SEGMENTS = frozenset("ˈˌːˑ.|‖‿⁀ ")


def _is_ipa_char(char: str) -> bool:
    if "a" <= char <= "z" or char in _IPA_EXTRA:
        return True
    code = ord(char)
    return any(low <= code <= high for low, high in _IPA_BLOCKS)


def ipa_problem(text: str) -> str | None:
    """Why `text` is not an IPA phoneme string (None when it is one). Precomposed letters
    (ã, é) are read as their letter and diacritic."""
    decomposed = unicodedata.normalize("NFD", text)
    for position, char in enumerate(decomposed):
        if not _is_ipa_char(char):
            return f"{char!r} (U+{ord(char):04X}) at character {position + 1} is not IPA"
    if not any(
        char not in _NOT_SEGMENTS and unicodedata.category(char) != "Mn" for char in decomposed
    ):
        return "must contain at least one IPA segment (not only stress, length or spaces)"
    return None


# --- X-SAMPA ---------------------------------------------------------------------------------

# X-SAMPA (John Wells, 1995) to IPA: consonants, vowels, suprasegmentals and diacritics.
# The tie bar is `_`; `-` separates symbols and is dropped.
XSAMPA_TO_IPA: dict[str, str] = {
    # Lowercase letters and their backslash / backtick variants.
    "a": "a", "b": "b", "b_<": "ɓ", "c": "c", "d": "d", "d`": "ɖ", "d_<": "ɗ", "e": "e",
    "f": "f", "g": "ɡ", "g_<": "ɠ", "h": "h", "h\\": "ɦ", "i": "i", "j": "j", "j\\": "ʝ",
    "k": "k", "l": "l", "l`": "ɭ", "l\\": "ɺ", "m": "m", "n": "n", "n`": "ɳ", "o": "o",
    "p": "p", "p\\": "ɸ", "q": "q", "r": "r", "r`": "ɽ", "r\\": "ɹ", "r\\`": "ɻ", "s": "s",
    "s`": "ʂ", "s\\": "ɕ", "t": "t", "t`": "ʈ", "u": "u", "v": "v", "v\\": "ʋ", "w": "w",
    "x": "x", "x\\": "ɧ", "y": "y", "z": "z", "z`": "ʐ", "z\\": "ʑ",
    # Uppercase letters.
    "A": "ɑ", "B": "β", "B\\": "ʙ", "C": "ç", "D": "ð", "E": "ɛ", "F": "ɱ", "G": "ɣ",
    "G\\": "ɢ", "G\\_<": "ʛ", "H": "ɥ", "H\\": "ʜ", "I": "ɪ", "I\\": "ᵻ", "J": "ɲ",
    "J\\": "ɟ", "J\\_<": "ʄ", "K": "ɬ", "K\\": "ɮ", "L": "ʎ", "L\\": "ʟ", "M": "ɯ",
    "M\\": "ɰ", "N": "ŋ", "N\\": "ɴ", "O": "ɔ", "O\\": "ʘ", "P": "ʋ", "Q": "ɒ", "R": "ʁ",
    "R\\": "ʀ", "S": "ʃ", "T": "θ", "U": "ʊ", "U\\": "ᵿ", "V": "ʌ", "W": "ʍ", "X": "χ",
    "X\\": "ħ", "Y": "ʏ", "Z": "ʒ",
    # Other symbols.
    ".": ".", '"': "ˈ", "%": "ˌ", "'": "ʲ", ":": "ː", ":\\": "ˑ", "@": "ə", "@\\": "ɘ",
    "@`": "ɚ", "{": "æ", "}": "ʉ", "1": "ɨ", "2": "ø", "3": "ɜ", "3\\": "ɞ", "3`": "ɝ",
    "4": "ɾ", "5": "ɫ", "6": "ɐ", "7": "ɤ", "8": "ɵ", "9": "œ", "&": "ɶ", "?": "ʔ",
    "?\\": "ʕ", "<\\": "ʢ", ">\\": "ʡ", "^": "ꜛ", "!": "ꜜ", "!\\": "ǃ", "|": "|", "|\\": "ǀ",
    "||": "‖", "|\\|\\": "ǁ", "=\\": "ǂ", "-\\": "‿", " ": " ", "-": "",
    # Diacritics.
    '_"': "\u0308", "_+": "\u031f", "_-": "\u0320", "_/": "\u030c", "_0": "\u0325",
    "=": "\u0329", "_=": "\u0329", "_>": "ʼ", "_?\\": "ˤ", "_\\": "\u0302", "_^": "\u032f",
    "_}": "\u031a", "`": "˞", "~": "\u0303", "_~": "\u0303", "_A": "\u0318", "_a": "\u033a",
    "_B": "\u030f", "_B_L": "\u1dc5", "_c": "\u031c", "_d": "\u032a", "_e": "\u0334",
    "_F": "\u0302", "_G": "ˠ", "_H": "\u0301", "_H_T": "\u1dc4", "_h": "ʰ", "_j": "ʲ",
    "_k": "\u0330", "_L": "\u0300", "_l": "ˡ", "_M": "\u0304", "_m": "\u033b",
    "_N": "\u033c", "_n": "ⁿ", "_O": "\u0339", "_o": "\u031e", "_q": "\u0319",
    "_R": "\u030c", "_R_F": "\u1dc8", "_r": "\u031d", "_T": "\u030b", "_t": "\u0324",
    "_v": "\u032c", "_w": "ʷ", "_X": "\u0306", "_x": "\u033d", "_": "\u0361",
}  # fmt: skip
_LONGEST = max(len(symbol) for symbol in XSAMPA_TO_IPA)


def xsampa_to_ipa(text: str) -> str:
    """The IPA spelling of an X-SAMPA string, symbol by symbol (the longest symbol that
    matches first). ValueError naming the first character that starts no symbol."""
    out: list[str] = []
    i = 0
    while i < len(text):
        for length in range(min(_LONGEST, len(text) - i), 0, -1):
            ipa = XSAMPA_TO_IPA.get(text[i : i + length])
            if ipa is not None:
                out.append(ipa)
                i += length
                break
        else:
            raise ValueError(f"{text[i]!r} at character {i + 1} is not X-SAMPA")
    return "".join(out)


def phoneme_in_ipa(phoneme: str, alphabet: Alphabet) -> str:
    """`phoneme` in IPA, checked: ValueError saying what is wrong with it."""
    ipa = xsampa_to_ipa(phoneme) if alphabet == "x-sampa" else phoneme
    ipa = unicodedata.normalize("NFC", ipa).strip()
    problem = ipa_problem(ipa)
    if problem is not None:
        raise ValueError(problem)
    if len(ipa) > MAX_PHONEME_CHARS:
        raise ValueError(f"must be at most {MAX_PHONEME_CHARS} characters in IPA")
    return ipa
