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
from soundstage.engines.tts.phonemes import check_ipa, xsampa_to_ipa

# Bounds of a version's rules (docs/text-to-speech.md, "Pronunciation dictionaries", lists them).
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


def phoneme_in_ipa(phoneme: str, alphabet: Alphabet) -> str:
    """`phoneme` in IPA (NFC), checked by the engines' own rules (engines.tts.phonemes), so
    that what a dictionary keeps is what every engine can read: ValueError saying what is
    wrong with it."""
    ipa = xsampa_to_ipa(phoneme.strip()) if alphabet == "x-sampa" else phoneme.strip()
    check_ipa(ipa)
    ipa = unicodedata.normalize("NFC", ipa)
    if len(ipa) > MAX_PHONEME_CHARS:
        raise ValueError(f"must be at most {MAX_PHONEME_CHARS} characters in IPA")
    return ipa
